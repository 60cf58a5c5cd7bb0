// The one seam between hwrec and its database engine. Every layer above
// src/store/ reaches the database only through these three types: a
// Connection prepares Statements, and WriteTransaction / ReadSnapshot scope
// the work. The SQL each layer sends stays next to the code that owns its
// tables; only the engine behind the interface changes (SQLite today, in
// sqlite_connection.cpp, or PostgreSQL in pg_connection.cpp). SQL above
// the seam is written once, in the dialect both engines speak: `?`
// parameters, ON CONFLICT upserts, CASE instead of two-argument min/max,
// DOUBLE PRECISION instead of REAL, integers compared with 0 rather than
// used as booleans.
//
// Errors are exceptions inside src/: an engine failure throws the engine's
// exception (SQLite::Exception, or store::EngineError for PostgreSQL), which
// store/guarded.h turns into a Status at the public boundary. One Connection and its Statements
// belong to one thread at a time, like the Store that owns them.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace hwrec {
class Store;
}

namespace hwrec::store {

enum class Engine { kSqlite, kPostgresql };

// The type of one value in a result row.
enum class ValueKind { kNull, kInteger, kReal, kText, kBlob };

// A failure the PostgreSQL engine reports: the server's SQLSTATE (e.g.
// "40001"), or "08006" when the connection is lost ("08007" while committing,
// "08001" when connecting again failed).
class EngineError : public std::runtime_error {
 public:
  EngineError(std::string sqlstate, const std::string& message)
      : std::runtime_error(message), sqlstate_(std::move(sqlstate)) {}
  const std::string& sqlstate() const { return sqlstate_; }
  // A serialization failure or deadlock: the transaction changed nothing and
  // may be run again as it was.
  bool retryable() const { return sqlstate_ == "40001" || sqlstate_ == "40P01"; }
  // The server went away (restart, shutdown, network): the transaction
  // changed nothing (unless commit_in_doubt()); the next Begin reconnects.
  bool connection_lost() const {
    return sqlstate_.rfind("08", 0) == 0 || sqlstate_ == "57P01" || sqlstate_ == "57P02" ||
           sqlstate_ == "57P03";
  }
  // Lost while committing: the transaction may or may not have been written.
  bool commit_in_doubt() const { return sqlstate_ == "08007"; }

 private:
  std::string sqlstate_;
};

// One prepared statement. Parameters are numbered from 1 (the SQL's `?`),
// columns from 0. Bound text and blobs are copied unless bound as a view.
class Statement {
 public:
  virtual ~Statement() = default;

  virtual void BindNull(int index) = 0;
  virtual void BindInt64(int index, std::int64_t value) = 0;
  virtual void BindDouble(int index, double value) = 0;
  virtual void BindText(int index, std::string_view value) = 0;
  // Not copied: `value` must outlive the next Step, Reset or ClearBindings.
  virtual void BindTextView(int index, std::string_view value) = 0;
  virtual void BindBlob(int index, std::string_view bytes) = 0;
  virtual void BindBlobView(int index, std::string_view bytes) = 0;

  template <typename T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
  void Bind(int index, T value) {
    BindInt64(index, static_cast<std::int64_t>(value));
  }
  void Bind(int index, double value) { BindDouble(index, value); }
  void Bind(int index, std::string_view value) { BindText(index, value); }
  void Bind(int index, const std::string& value) { BindText(index, value); }
  void Bind(int index, const char* value) { BindText(index, value); }
  void Bind(int index, std::nullopt_t) { BindNull(index); }
  // NULL when absent.
  template <typename T>
  void Bind(int index, const std::optional<T>& value) {
    if (value.has_value()) {
      Bind(index, *value);
    } else {
      BindNull(index);
    }
  }

  // Runs the statement to its next row: true on a row, false when done.
  virtual bool Step() = 0;
  // Runs the statement to the end (an INSERT, UPDATE, DELETE or DDL) and
  // resets it for the next use; returns the rows it changed.
  virtual std::int64_t Run() = 0;
  // Ready to run again; bindings are kept.
  virtual void Reset() = 0;
  virtual void ClearBindings() = 0;

  virtual int ColumnCount() const = 0;
  virtual std::string ColumnName(int column) const = 0;
  virtual bool IsNull(int column) const = 0;
  // The value's type in the current row (a column's declared type on
  // PostgreSQL, the value's own on SQLite).
  virtual ValueKind Kind(int column) const = 0;
  virtual std::int64_t Int64(int column) const = 0;
  int Int(int column) const { return static_cast<int>(Int64(column)); }
  virtual double Double(int column) const = 0;
  // Valid until the next Step, Reset or column read of another type.
  virtual std::string_view Text(int column) const = 0;
  virtual std::string_view Blob(int column) const = 0;

  std::string String(int column) const { return std::string(Text(column)); }
  std::optional<std::int64_t> OptionalInt64(int column) const;
  std::optional<double> OptionalDouble(int column) const;
  std::optional<std::string> OptionalText(int column) const;
  // Reads a text column into `*out`, reusing its buffer: for loops that read
  // millions of rows into the same structs.
  void AssignText(int column, std::string* out) const;
  void AssignOptionalText(int column, std::optional<std::string>* out) const;
};

// How a write transaction takes its lock.
enum class LockMode {
  kDeferred,   // on first read or write (a read snapshot)
  kImmediate,  // the write lock at once: the one way to write
  // A writer that locks what it shares itself (Connection::LockWorkloads, in
  // key order): where writers run at once (ConcurrentWriters()), each
  // statement sees what others committed before it (PostgreSQL's READ
  // COMMITTED) instead of failing when another writer commits first;
  // elsewhere as kImmediate.
  kKeyLocked,
};

// One connection to a store's database.
class Connection {
 public:
  virtual ~Connection() = default;

  virtual Engine engine() const = 0;
  virtual std::unique_ptr<Statement> Prepare(std::string_view sql) = 0;
  // Runs one or more statements without parameters.
  virtual void Execute(std::string_view sql) = 0;
  // A single value of a query without parameters (e.g. a count); nullopt
  // when it returns no row or NULL.
  std::optional<std::int64_t> QueryInt64(std::string_view sql);
  std::optional<std::string> QueryText(std::string_view sql);
  // The first value of every row of a query without parameters, as text.
  std::vector<std::string> QueryTexts(std::string_view sql);

  virtual std::int64_t LastInsertId() const = 0;
  // An INSERT that tells the id of the row it added: prepare it with
  // PrepareInsert (each engine adds to `insert_sql` what it needs) and run it
  // with RunInsert, which gives the new row's id, or nullopt when the insert
  // added no row (ON CONFLICT … DO NOTHING). PostgreSQL asks for the id with
  // RETURNING, in the same round trip; SQLite reads its last rowid, as its
  // RETURNING costs about 23,000 instructions a row (a fifth of a bulk ingest).
  virtual std::unique_ptr<Statement> PrepareInsert(std::string_view insert_sql,
                                                   std::string_view id_column) = 0;
  virtual std::optional<std::int64_t> RunInsert(Statement& insert) = 0;
  virtual bool InTransaction() const = 0;
  virtual void Begin(LockMode mode) = 0;
  virtual void Commit() = 0;
  // Never throws: used while unwinding.
  virtual void RollbackQuietly() noexcept = 0;
  // Whether several writers' transactions run at once (PostgreSQL), rather
  // than one after another under one write lock (SQLite).
  virtual bool ConcurrentWriters() const { return false; }
  // In a kKeyLocked transaction where writers run at once: waits for, then
  // holds until the transaction ends, the lock of each workload in
  // `workload_ids` (ascending, no repeats: every writer takes them in one
  // order, so two never wait for each other). Under SQLite's write lock, or
  // in another mode, nothing to do.
  virtual void LockWorkloads(const std::vector<std::int64_t>& workload_ids) { (void)workload_ids; }
  // Where writers run at once: the lock of every workload at once, taken
  // outside a transaction, before one that writes every workload's
  // aggregates or recommendations (a rebuild, a refresh) begins, and held
  // until after it ends (AllWorkloadsLock): it waits for the ingest batches
  // merging aggregates, and keeps new ones from merging until released, so
  // that its snapshot sees every batch committed before it. Ingest batches
  // take it shared, with their workloads' locks (LockWorkloads). Under
  // SQLite's write lock, nothing to do.
  virtual void LockAllWorkloads() {}
  virtual void UnlockAllWorkloads() noexcept {}
  // Changes whenever the store's data may have changed, by this connection
  // or another (compare for equality); cheap enough to ask before every read.
  // nullopt when the engine has no such signal (PostgreSQL): callers then read
  // what they compare (store/change_watch.h).
  struct Version {
    std::int64_t others = 0;  // moves on other connections' commits
    std::int64_t ours = 0;    // moves on this connection's changes
    bool operator==(const Version& v) const { return others == v.others && ours == v.ours; }
    bool operator!=(const Version& v) const { return !(*this == v); }
  };
  virtual std::optional<Version> DataVersion() = 0;
  // Whether a table (or view) named `name` exists.
  virtual bool HasTable(std::string_view name) = 0;
  // Whether each statement is a round trip to a server (PostgreSQL) rather
  // than a call into this process (SQLite). A reader kept across calls then
  // asks in one statement what it would otherwise ask in a snapshot of
  // several (store/combined_read.h): one statement sees one state of the
  // store without a transaction around it.
  virtual bool RoundTripPerStatement() const { return false; }
  // The round trips to the server this connection has made (statements,
  // BEGIN and COMMIT, preparations, reconnections): what a call costs on
  // PostgreSQL, counted by tests. 0 on an engine in this process.
  virtual std::int64_t RoundTrips() const { return 0; }

  // The expression a unique index keys a text column that may be long by:
  // the column itself, or, where an index entry is bounded (PostgreSQL's
  // b-tree holds 2704 bytes at most), its md5 (migrations/postgresql/0008).
  virtual std::string LongTextKey(std::string_view column) const { return std::string(column); }
  // The columns of `table` that round a fraction written to them without a
  // word (PostgreSQL's whole-number types); none where a column keeps any
  // value as it is written (SQLite).
  virtual std::set<std::string> WholeNumberColumns(const std::string& table) {
    (void)table;
    return {};
  }
  // After rows of `table` were written with their own ids: the next id the
  // table generates follows them (SQLite takes max(id) + 1 by itself; a
  // PostgreSQL identity's sequence must be moved on).
  virtual void FollowWrittenIds(const std::string& table) { (void)table; }

  // What the store's storage is, as `hwrec status` shows it.
  struct Footprint {
    std::string engine;          // "sqlite" or "postgresql"
    std::string journal_mode;    // SQLite's ("wal"); empty on PostgreSQL
    std::int64_t bytes = 0;      // the file, or the store's tables on the server
    std::int64_t log_bytes = 0;  // the file's write-ahead log; 0 on a server
  };
  virtual Footprint ReadFootprint() = 0;
  // The store's tables (not the engine's own), by name.
  virtual std::vector<std::string> TableNames() = 0;
};

// The one way to write: takes the write lock at once and rolls back unless
// committed.
class WriteTransaction {
 public:
  explicit WriteTransaction(Connection& db, LockMode mode = LockMode::kImmediate);
  WriteTransaction(const WriteTransaction&) = delete;
  WriteTransaction& operator=(const WriteTransaction&) = delete;
  ~WriteTransaction();
  void Commit();

 private:
  Connection& db_;
  bool open_ = true;
};

// Holds Connection::LockAllWorkloads for its lifetime: make it before the
// WriteTransaction of a rebuild or a refresh.
class AllWorkloadsLock {
 public:
  explicit AllWorkloadsLock(Connection& db) : db_(db) { db_.LockAllWorkloads(); }
  AllWorkloadsLock(const AllWorkloadsLock&) = delete;
  AllWorkloadsLock& operator=(const AllWorkloadsLock&) = delete;
  ~AllWorkloadsLock() { db_.UnlockAllWorkloads(); }

 private:
  Connection& db_;
};

// One read transaction over a batch of reads: they see one state of the
// store and take the read lock once. Does nothing inside an open transaction.
class ReadSnapshot {
 public:
  explicit ReadSnapshot(Connection& db);
  ReadSnapshot(const ReadSnapshot&) = delete;
  ReadSnapshot& operator=(const ReadSnapshot&) = delete;
  ~ReadSnapshot();  // ends the transaction; never throws

 private:
  Connection& db_;
  bool began_ = false;
};

// When a failed write transaction may be run again.
enum class Rerun {
  // The engine cancelled it (a serialization failure or deadlock): it changed nothing.
  kWhenCancelled,
  // Also when the connection was lost, even while committing, once the server
  // answers again: a write that running twice changes no more than running
  // once (ingest: a stored record is recognised by its execution id).
  kAlsoAfterLostConnection,
};

// Runs `attempt` (which opens its own WriteTransaction and commits it) and,
// when the engine reports a serialization failure or deadlock (PostgreSQL
// writers meeting on the same rows), runs it again after a short randomised
// pause, up to kWriteAttempts times in all. With kAlsoAfterLostConnection, a
// lost connection runs it again too (the next Begin connects anew, to
// whichever server of a multi-host URI takes writes), for up to
// kReconnectWindow from the first loss. `before_retry` undoes what a failed
// attempt left in memory (counters, caches). The last failure is rethrown.
// On SQLite a writer waits for the lock instead, so `attempt` runs once.
// Returns what the attempt that finished returned (a Status, a Result<T>, or
// nothing); an attempt that returns without committing rolls back and is not
// retried.
inline constexpr int kWriteAttempts = 40;
inline constexpr std::chrono::seconds kReconnectWindow{60};
void RunWriteAttempts(Connection& db, const std::function<void()>& attempt,
                      const std::function<void()>& before_retry, Rerun rerun);

template <typename Fn>
auto RunWrite(Connection& db, Fn&& attempt, const std::function<void()>& before_retry = {},
              Rerun rerun = Rerun::kWhenCancelled) -> decltype(attempt()) {
  if constexpr (std::is_void_v<decltype(attempt())>) {
    RunWriteAttempts(db, attempt, before_retry, rerun);
  } else {
    std::optional<decltype(attempt())> result;
    RunWriteAttempts(
        db, [&] { result.emplace(attempt()); }, before_retry, rerun);
    return std::move(*result);
  }
}

// The connection of an open Store (a Store is one connection).
Connection& ConnectionOf(Store& store);
Connection& ConnectionOf(const Store& store);  // read paths only

}  // namespace hwrec::store
