// PgConnection, the libpq session behind ConnectPostgresql (pg_connection.h),
// declared here for the two files that define it: the session, its
// transactions and locks (pg_connection.cpp), and the statements it prepares
// and runs (pg_statement.cpp). Engine private: only src/store/ includes it.
#pragma once

#include <libpq-fe.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "store/database.h"

namespace hwrec::store {

struct ResultDeleter {
  void operator()(PGresult* result) const { PQclear(result); }
};
using ResultPtr = std::unique_ptr<PGresult, ResultDeleter>;

class PgConnection final : public Connection {
 public:
  PgConnection(std::string uri, bool read_only);
  ~PgConnection() override;
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  Engine engine() const override { return Engine::kPostgresql; }
  std::unique_ptr<Statement> Prepare(std::string_view sql) override;
  std::unique_ptr<Statement> PrepareInsert(std::string_view insert_sql,
                                           std::string_view id_column) override;
  std::optional<std::int64_t> RunInsert(Statement& insert) override;
  void Execute(std::string_view sql) override;
  std::int64_t LastInsertId() const override;
  // Kept here rather than asked of libpq, which answers "unknown" once the
  // connection is lost: a transaction that was open stays open (and lost)
  // until it is rolled back.
  bool InTransaction() const override { return in_transaction_; }
  bool ConcurrentWriters() const override { return true; }
  void Begin(LockMode mode) override;
  // Transaction-scoped advisory locks, one per workload, in hwrec's own
  // class of locks (two-key form: the first key names hwrec, the second the
  // workload, its id folded into 31 bits: ids that share a lock only wait for
  // each other). Taken in ascending order in one statement.
  void LockWorkloads(const std::vector<std::int64_t>& workload_ids) override;
  void LockAllWorkloads() override;
  void UnlockAllWorkloads() noexcept override;
  void Commit() override;
  void RollbackQuietly() noexcept override;
  // Any writer on any connection may have changed the data; nothing tells
  // without a round trip, so readers compare the store's counters instead.
  std::optional<Version> DataVersion() override { return std::nullopt; }
  Footprint ReadFootprint() override;

  std::vector<std::string> TableNames() override;

  std::string LongTextKey(std::string_view column) const override;
  std::set<std::string> WholeNumberColumns(const std::string& table) override;
  void FollowWrittenIds(const std::string& table) override;

  bool HasTable(std::string_view name) override;

  // The name of the statement this session prepared for `sql` with these
  // parameter types; "" when it has not.
  std::string PreparedName(const std::string& sql, const std::vector<Oid>& types) const;
  // Prepares `sql` for these parameter types and runs it with `values`, in
  // one round trip (libpq's pipeline mode): the result of the run, or of the
  // preparation when that failed (the caller Checks it), and the new
  // statement's name in `*name` ("" when not prepared).
  PGresult* PrepareAndRun(const std::string& sql, const std::vector<Oid>& types,
                          const std::vector<const char*>& values, const std::vector<int>& lengths,
                          const std::vector<int>& formats, std::string* name);
  bool RoundTripPerStatement() const override { return true; }
  std::int64_t RoundTrips() const override { return round_trips_; }
  void CountRoundTrip() { ++round_trips_; }

  PGconn* handle() { return conn_; }
  std::int64_t epoch() const { return epoch_; }

  // Before a statement outside a transaction: a connection the server
  // dropped is made again (a dropped transaction is reported, never resumed).
  void EnsureConnected();

  // Throws the server's error for a failed result.
  void Check(const PGresult* result) const;

 private:
  static std::string PreparedKey(const std::string& sql, const std::vector<Oid>& types);
  // Reads what is left of a pipeline up to its sync and leaves pipeline
  // mode; a session that cannot leave it is made anew at the next statement
  // (PQreset leaves the mode too).
  void DrainPipeline();
  // Runs a statement of one bound integer, reading every row it returns.
  static void RunToEnd(Statement& statement, std::int64_t value);
  PGresult* Exec(const char* sql);
  void Connect();
  void Configure();
  // libpq's messages may quote the connection string, or pieces of it.
  std::string Scrubbed(const std::string& message) const;

  std::string uri_;
  bool read_only_ = false;
  bool in_transaction_ = false;
  bool key_locked_ = false;  // the open transaction is kKeyLocked
  bool committing_ = false;
  std::unique_ptr<Statement> lock_workloads_;  // these three made on first use
  std::unique_ptr<Statement> lock_all_workloads_;
  std::unique_ptr<Statement> unlock_all_workloads_;
  std::int64_t all_workloads_locked_epoch_ = -1;  // the session LockAllWorkloads locked in
  PGconn* conn_ = nullptr;
  std::unordered_map<std::string, std::string> prepared_;
  std::int64_t epoch_ = 0;                // moves when the connection is made again
  mutable std::int64_t round_trips_ = 0;  // each libpq call that waits for the server
  // A session left where it cannot be used (a pipeline it could not leave):
  // made again at the next statement, as a lost one is.
  bool broken_ = false;
};

}  // namespace hwrec::store
