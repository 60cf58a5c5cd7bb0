// PgConnection (pg_session_internal.h): a libpq session as a
// store::Connection: connecting, and connecting again after the server
// dropped it; transactions and hwrec's advisory locks; the catalog queries
// the store asks of every engine; the server's errors as EngineError, with
// the connection string's secrets masked. Its statements are in
// pg_statement.cpp.
#include "store/pg_connection.h"

#include <fmt/format.h>
#include <libpq-fe.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "store/pg_session_internal.h"

namespace hwrec::store {

namespace {

constexpr const char* kConnectionLost = "08006";
constexpr const char* kCannotConnect = "08001";  // sqlclient_unable_to_establish_sqlconnection
constexpr const char* kCommitInDoubt = "08007";  // transaction_resolution_unknown
// The first key of hwrec's advisory locks of one workload: "hwrc" in ASCII.
constexpr std::int64_t kWorkloadLockClass = 0x68777263;
// The first key of the lock of every workload at once ("hwrd"; second key 0).
constexpr std::int64_t kAllWorkloadsLockClass = 0x68777264;

std::string Trimmed(const char* text) {
  std::string out = text != nullptr ? text : "";
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

}  // namespace

PgConnection::PgConnection(std::string uri, bool read_only)
    : uri_(std::move(uri)), read_only_(read_only) {
  Connect();
}

PgConnection::~PgConnection() {
  lock_workloads_.reset();
  lock_all_workloads_.reset();
  unlock_all_workloads_.reset();
  if (conn_ != nullptr) PQfinish(conn_);
}

std::unique_ptr<Statement> PgConnection::PrepareInsert(std::string_view insert_sql,
                                                       std::string_view id_column) {
  return Prepare(fmt::format("{} RETURNING {}", insert_sql, id_column));
}

std::optional<std::int64_t> PgConnection::RunInsert(Statement& insert) {
  std::optional<std::int64_t> id;
  if (insert.Step()) id = insert.Int64(0);
  insert.Reset();
  return id;
}

void PgConnection::Execute(std::string_view sql) {
  EnsureConnected();
  ++round_trips_;
  ResultPtr result(PQexec(conn_, std::string(sql).c_str()));
  // A script of nothing but comments (a migration that only raises the
  // schema version) runs as nothing.
  if (PQresultStatus(result.get()) != PGRES_EMPTY_QUERY) Check(result.get());
}

std::int64_t PgConnection::LastInsertId() const {
  ++round_trips_;
  ResultPtr result(PQexec(conn_, "SELECT lastval()"));
  Check(result.get());
  return std::strtoll(PQgetvalue(result.get(), 0, 0), nullptr, 10);
}

void PgConnection::Begin(LockMode mode) {
  const char* begin = mode == LockMode::kImmediate   ? "BEGIN ISOLATION LEVEL SERIALIZABLE"
                      : mode == LockMode::kKeyLocked ? "BEGIN ISOLATION LEVEL READ COMMITTED"
                                                     : "BEGIN ISOLATION LEVEL REPEATABLE READ";
  try {
    ResultPtr result(Exec(begin));
  } catch (const EngineError& e) {
    // A connection the server dropped while it sat idle (a restart, a
    // failover) looks open until used: this BEGIN finds it lost. Nothing
    // was written, so connect anew (to whichever server of a multi-host URI
    // takes writes) and begin once more.
    if (!e.connection_lost()) throw;
    ResultPtr result(Exec(begin));
  }
  in_transaction_ = true;
  key_locked_ = mode == LockMode::kKeyLocked;
}

void PgConnection::LockWorkloads(const std::vector<std::int64_t>& workload_ids) {
  if (!in_transaction_ || !key_locked_ || workload_ids.empty()) return;
  std::vector<std::int32_t> keys;
  keys.reserve(workload_ids.size());
  for (const std::int64_t id : workload_ids) {
    keys.push_back(static_cast<std::int32_t>(id & 0x7fffffff));
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  if (!lock_workloads_) {
    // The every-workloads lock shared first (row 0), then each workload's,
    // in one statement: the locks are taken as the sorted rows are read.
    lock_workloads_ = Prepare(
        "SELECT CASE WHEN n = 0 THEN pg_advisory_xact_lock_shared(?::int4, 0) "
        "ELSE pg_advisory_xact_lock(?::int4, k) END FROM (SELECT 0::int4 AS k, 0::int8 AS n "
        "UNION ALL SELECT k, n FROM unnest(?::int4[]) WITH ORDINALITY AS u(k, n)) AS l "
        "ORDER BY n");
  }
  Statement& lock = *lock_workloads_;
  lock.Reset();
  lock.BindInt64(1, kAllWorkloadsLockClass);
  lock.BindInt64(2, kWorkloadLockClass);
  lock.BindText(3, fmt::format("{{{}}}", fmt::join(keys, ",")));
  while (lock.Step()) {
  }
  lock.Reset();
}

void PgConnection::LockAllWorkloads() {
  if (in_transaction_) throw std::logic_error("LockAllWorkloads inside a transaction");
  if (!lock_all_workloads_) lock_all_workloads_ = Prepare("SELECT pg_advisory_lock(?::int4, 0)");
  RunToEnd(*lock_all_workloads_, kAllWorkloadsLockClass);
  all_workloads_locked_epoch_ = epoch_;
}

void PgConnection::UnlockAllWorkloads() noexcept {
  // A connection lost since released it with its session.
  if (all_workloads_locked_epoch_ != epoch_ || PQstatus(conn_) != CONNECTION_OK) return;
  try {
    if (!unlock_all_workloads_) {
      unlock_all_workloads_ = Prepare("SELECT pg_advisory_unlock(?::int4, 0)");
    }
    RunToEnd(*unlock_all_workloads_, kAllWorkloadsLockClass);
  } catch (...) {  // a failed unlock ends with the session
  }
  all_workloads_locked_epoch_ = -1;
}

void PgConnection::Commit() {
  committing_ = true;
  try {
    ResultPtr result(Exec("COMMIT"));
  } catch (...) {
    committing_ = false;
    in_transaction_ = false;  // a failed COMMIT ends the transaction too
    throw;
  }
  committing_ = false;
  in_transaction_ = false;
}

void PgConnection::RollbackQuietly() noexcept {
  if (!in_transaction_) return;
  in_transaction_ = false;
  if (conn_ != nullptr && PQstatus(conn_) == CONNECTION_OK) {
    ++round_trips_;
    PQclear(PQexec(conn_, "ROLLBACK"));
  }
}

Connection::Footprint PgConnection::ReadFootprint() {
  Footprint footprint;
  footprint.engine = "postgresql";
  footprint.bytes =
      QueryInt64(
          "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM "
          "pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
          "WHERE n.nspname = current_schema() AND c.relkind = 'r'")
          .value_or(0);
  return footprint;
}

std::vector<std::string> PgConnection::TableNames() {
  return QueryTexts(
      "SELECT tablename FROM pg_catalog.pg_tables WHERE schemaname = current_schema() ORDER "
      "BY tablename");
}

std::string PgConnection::LongTextKey(std::string_view column) const {
  return fmt::format("md5({})", column);
}

std::set<std::string> PgConnection::WholeNumberColumns(const std::string& table) {
  std::set<std::string> columns;
  const auto query = Prepare(
      "SELECT column_name FROM information_schema.columns WHERE table_schema = "
      "current_schema() AND table_name = ? AND data_type IN ('smallint', 'integer', 'bigint')");
  query->Bind(1, table);
  while (query->Step()) columns.insert(query->String(0));
  return columns;
}

void PgConnection::FollowWrittenIds(const std::string& table) {
  // `table` is one of the store's own, named by hwrec, never by input.
  const auto advance =
      Prepare("SELECT setval(pg_get_serial_sequence(?, 'id'), max(id)) FROM " + table);
  advance->Bind(1, table);
  while (advance->Step()) {
  }
}

bool PgConnection::HasTable(std::string_view name) {
  auto statement = Prepare(
      "SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = "
      "c.relnamespace WHERE n.nspname = current_schema() AND c.relname = ? AND c.relkind IN "
      "('r', 'v', 'p', 'm')");
  statement->Bind(1, name);
  return statement->Step();
}

void PgConnection::EnsureConnected() {
  if (PQstatus(conn_) == CONNECTION_OK && !broken_) return;
  if (in_transaction_) {  // never resumed on a new session: the caller rolls back
    throw EngineError(kConnectionLost,
                      fmt::format("the connection to PostgreSQL at {} was lost: the open "
                                  "transaction was not written; run the command again",
                                  RedactedUri(uri_)));
  }
  prepared_.clear();
  ++epoch_;
  ++round_trips_;
  PQreset(conn_);
  broken_ = false;
  if (PQstatus(conn_) != CONNECTION_OK) {
    throw EngineError(kCannotConnect,
                      fmt::format("PostgreSQL at {} cannot be reached: {}: nothing was "
                                  "written; run the command again once the server is up",
                                  RedactedUri(uri_), Scrubbed(Trimmed(PQerrorMessage(conn_)))));
  }
  Configure();
}

void PgConnection::Check(const PGresult* result) const {
  const ExecStatusType status = result != nullptr ? PQresultStatus(result) : PGRES_FATAL_ERROR;
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return;
  if (result == nullptr || PQstatus(conn_) != CONNECTION_OK || broken_) {
    if (committing_) {  // the server may have committed before the connection went
      throw EngineError(
          kCommitInDoubt,
          fmt::format("the connection to PostgreSQL at {} was lost while committing: {}: the "
                      "transaction may or may not have been written; look before running "
                      "again anything that counts (ingest recognises the records it stored)",
                      RedactedUri(uri_), Scrubbed(Trimmed(PQerrorMessage(conn_)))));
    }
    throw EngineError(kConnectionLost,
                      fmt::format("the connection to PostgreSQL at {} was lost: {}: the open "
                                  "transaction was not written; run the command again",
                                  RedactedUri(uri_), Scrubbed(Trimmed(PQerrorMessage(conn_)))));
  }
  const char* state = PQresultErrorField(result, PG_DIAG_SQLSTATE);
  std::string message =
      "PostgreSQL: " + Trimmed(PQresultErrorField(result, PG_DIAG_MESSAGE_PRIMARY));
  if (const char* detail = PQresultErrorField(result, PG_DIAG_MESSAGE_DETAIL)) {
    message += " (" + Trimmed(detail) + ")";
  }
  throw EngineError(state != nullptr ? state : "XX000", message);
}

void PgConnection::RunToEnd(Statement& statement, std::int64_t value) {
  statement.Reset();
  statement.BindInt64(1, value);
  while (statement.Step()) {
  }
  statement.Reset();
}

PGresult* PgConnection::Exec(const char* sql) {
  EnsureConnected();
  ++round_trips_;
  ResultPtr result(PQexec(conn_, sql));  // freed when Check throws
  Check(result.get());
  return result.release();
}

void PgConnection::Connect() {
  const char* keys[] = {"dbname", "fallback_application_name", nullptr};
  const char* values[] = {uri_.c_str(), "hwrec", nullptr};
  ++round_trips_;
  conn_ = PQconnectdbParams(keys, values, 1);
  if (conn_ == nullptr || PQstatus(conn_) != CONNECTION_OK) {
    const std::string why =
        conn_ != nullptr ? Scrubbed(Trimmed(PQerrorMessage(conn_))) : "out of memory";
    throw EngineError(
        "08001", fmt::format("cannot connect to PostgreSQL at {}: {}", RedactedUri(uri_), why));
  }
  Configure();
}

void PgConnection::Configure() {
  PQsetNoticeProcessor(
      conn_, [](void*, const char*) {}, nullptr);
  // Floats as text in full (a finish time orders recent executions).
  ++round_trips_;
  ResultPtr result(PQexec(
      conn_, "SET client_min_messages = warning; SET TIME ZONE 'UTC'; SET extra_float_digits = 3"));
  Check(result.get());
  if (read_only_) {  // again on every new session: a read-only store stays read-only
    ++round_trips_;
    ResultPtr read_only(PQexec(conn_, "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY"));
    Check(read_only.get());
  }
}

std::string PgConnection::Scrubbed(const std::string& message) const {
  return RedactedText(message, uri_);
}

std::unique_ptr<Connection> ConnectPostgresql(const std::string& uri, bool read_only) {
  return std::make_unique<PgConnection>(LibpqConninfo(uri), read_only);
}

}  // namespace hwrec::store
