#include "store/pg_connection.h"

#include <fmt/format.h>
#include <libpq-fe.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <unordered_map>
#include <utility>
#include <vector>

namespace hwrec::store {

namespace {

// Type OIDs of pg_type.h (stable across releases).
constexpr Oid kBoolOid = 16;
constexpr Oid kByteaOid = 17;
constexpr Oid kInt8Oid = 20;
constexpr Oid kInt2Oid = 21;
constexpr Oid kInt4Oid = 23;
constexpr Oid kTextOid = 25;
constexpr Oid kOidOid = 26;
constexpr Oid kFloat4Oid = 700;
constexpr Oid kFloat8Oid = 701;
constexpr Oid kNumericOid = 1700;

constexpr const char* kConnectionLost = "08006";
constexpr const char* kCannotConnect = "08001";  // sqlclient_unable_to_establish_sqlconnection
constexpr const char* kCommitInDoubt = "08007";  // transaction_resolution_unknown
// The first key of hwrec's advisory locks of one workload: "hwrc" in ASCII.
constexpr std::int64_t kWorkloadLockClass = 0x68777263;
// The first key of the lock of every workload at once ("hwrd"; second key 0).
constexpr std::int64_t kAllWorkloadsLockClass = 0x68777264;

struct ResultDeleter {
  void operator()(PGresult* result) const { PQclear(result); }
};
using ResultPtr = std::unique_ptr<PGresult, ResultDeleter>;

std::string Trimmed(const char* text) {
  std::string out = text != nullptr ? text : "";
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

// `?` parameters become `$1`, `$2`, … and `?N` becomes `$N`; quoted text, quoted names and comments
// are copied as they are.
std::string NumberParameters(std::string_view sql, int* count) {
  std::string out;
  out.reserve(sql.size() + 16);
  int n = 0;
  for (std::size_t i = 0; i < sql.size(); ++i) {
    const char c = sql[i];
    if (c == '\'' || c == '"') {
      const std::size_t end = sql.find(c, i + 1);
      const std::size_t stop = end == std::string_view::npos ? sql.size() : end + 1;
      out.append(sql.substr(i, stop - i));
      i = stop - 1;
    } else if (c == '-' && i + 1 < sql.size() && sql[i + 1] == '-') {
      const std::size_t end = sql.find('\n', i);
      const std::size_t stop = end == std::string_view::npos ? sql.size() : end;
      out.append(sql.substr(i, stop - i));
      i = stop - 1;
    } else if (c == '/' && i + 1 < sql.size() && sql[i + 1] == '*') {
      const std::size_t end = sql.find("*/", i + 2);
      const std::size_t stop = end == std::string_view::npos ? sql.size() : end + 2;
      out.append(sql.substr(i, stop - i));
      i = stop - 1;
    } else if (c == '?') {
      std::size_t digits = i + 1;
      while (digits < sql.size() && sql[digits] >= '0' && sql[digits] <= '9') ++digits;
      if (digits == i + 1) {  // `?`: the next number
        out += '$';
        out += std::to_string(++n);
      } else {  // `?N`, SQLite's numbered form: `$N`
        const std::string_view number = sql.substr(i + 1, digits - i - 1);
        int value = 0;
        std::from_chars(number.data(), number.data() + number.size(), value);
        n = std::max(n, value);
        out += '$';
        out.append(number);
        i = digits - 1;
      }
    } else {
      out += c;
    }
  }
  *count = n;
  return out;
}

class PgConnection;

class PgStatement final : public Statement {
 public:
  PgStatement(PgConnection& connection, std::string_view sql);

  void BindNull(int index) override { At(index) = Param{}; }
  void BindInt64(int index, std::int64_t value) override {
    Param& p = At(index);
    p = Param{kInt8Oid, 0, std::to_string(value), {}, false};
    p.view = p.owned;
  }
  void BindDouble(int index, double value) override {
    Param& p = At(index);
    std::string text = std::isnan(value)   ? "NaN"
                       : std::isinf(value) ? (value > 0 ? "Infinity" : "-Infinity")
                                           : fmt::format("{}", value);
    p = Param{kFloat8Oid, 0, std::move(text), {}, false};
    p.view = p.owned;
  }
  void BindText(int index, std::string_view value) override {
    Param& p = At(index);
    p = Param{kTextOid, 0, std::string(value), {}, false};
    p.view = p.owned;
  }
  void BindTextView(int index, std::string_view value) override {
    At(index) = Param{kTextOid, 0, {}, value, false};
  }
  void BindBlob(int index, std::string_view bytes) override {
    Param& p = At(index);
    p = Param{kByteaOid, 1, std::string(bytes), {}, false};
    p.view = p.owned;
  }
  void BindBlobView(int index, std::string_view bytes) override {
    At(index) = Param{kByteaOid, 1, {}, bytes, false};
  }

  bool Step() override {
    if (!result_) Execute();
    ++row_;
    return row_ < rows_;
  }
  std::int64_t Run() override {
    Execute();
    const char* changed = PQcmdTuples(result_.get());
    std::int64_t count = 0;
    if (changed != nullptr && *changed != '\0') count = std::strtoll(changed, nullptr, 10);
    Reset();
    return count;
  }
  void Reset() override {
    result_.reset();
    rows_ = 0;
    row_ = -1;
  }
  void ClearBindings() override {
    for (Param& p : params_) p = Param{};
  }

  int ColumnCount() const override {
    if (result_) return PQnfields(result_.get());
    return columns_known_;
  }
  std::string ColumnName(int column) const override {
    const char* name = result_ ? PQfname(result_.get(), column) : nullptr;
    return name != nullptr ? name : "";
  }
  bool IsNull(int column) const override {
    return !OnRow() || PQgetisnull(result_.get(), row_, column) != 0;
  }
  ValueKind Kind(int column) const override {
    if (IsNull(column)) return ValueKind::kNull;
    switch (PQftype(result_.get(), column)) {
      case kBoolOid:
      case kInt2Oid:
      case kInt4Oid:
      case kInt8Oid:
      case kOidOid:
        return ValueKind::kInteger;
      case kFloat4Oid:
      case kFloat8Oid:
      case kNumericOid:
        return ValueKind::kReal;
      case kByteaOid:
        return ValueKind::kBlob;
      default:
        return ValueKind::kText;
    }
  }
  std::int64_t Int64(int column) const override {
    if (IsNull(column)) return 0;
    const std::string_view text = Raw(column);
    if (PQftype(result_.get(), column) == kBoolOid) return text == "t" ? 1 : 0;
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc() && end == text.data() + text.size()) return value;
    const double real = ParseDouble(text);  // a real or numeric value, truncated as SQLite does
    if (std::isnan(real)) return 0;
    if (real >= 9.2233720368547758e18) return INT64_MAX;
    if (real <= -9.2233720368547758e18) return INT64_MIN;
    return static_cast<std::int64_t>(real);
  }
  double Double(int column) const override {
    if (IsNull(column)) return 0;
    return ParseDouble(Raw(column));
  }
  std::string_view Text(int column) const override {
    if (IsNull(column)) return {};
    if (PQftype(result_.get(), column) == kByteaOid) return Blob(column);
    return Raw(column);
  }
  std::string_view Blob(int column) const override {
    if (IsNull(column)) return {};
    if (PQftype(result_.get(), column) != kByteaOid) return Raw(column);
    if (decoded_row_ != row_ || decoded_column_ != column) {
      std::size_t length = 0;
      unsigned char* bytes = PQunescapeBytea(
          reinterpret_cast<const unsigned char*>(PQgetvalue(result_.get(), row_, column)), &length);
      if (bytes == nullptr) throw EngineError("XX000", "PostgreSQL returned a malformed bytea");
      decoded_.assign(reinterpret_cast<const char*>(bytes), length);
      PQfreemem(bytes);
      decoded_row_ = row_;
      decoded_column_ = column;
    }
    return decoded_;
  }

 private:
  struct Param {
    Oid type = 0;  // 0 for NULL: the server infers it
    int format = 0;
    std::string owned;
    std::string_view view;
    bool null = true;
  };

  Param& At(int index) {
    if (index < 1 || index > static_cast<int>(params_.size())) {
      throw EngineError("42P02", fmt::format("parameter {} is out of range: the statement takes {}",
                                             index, params_.size()));
    }
    Reset();
    return params_[static_cast<std::size_t>(index - 1)];
  }
  bool OnRow() const { return result_ && row_ >= 0 && row_ < rows_; }
  std::string_view Raw(int column) const {
    return std::string_view(PQgetvalue(result_.get(), row_, column),
                            static_cast<std::size_t>(PQgetlength(result_.get(), row_, column)));
  }
  static double ParseDouble(std::string_view text) {
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc() && end == text.data() + text.size()) return value;
    if (text == "Infinity") return HUGE_VAL;
    if (text == "-Infinity") return -HUGE_VAL;
    if (text == "NaN") return std::nan("");
    if (ec == std::errc::result_out_of_range)
      return std::strtod(std::string(text).c_str(), nullptr);
    throw EngineError("22P02", fmt::format("'{}' is not a number", text));
  }
  void Execute();

  PgConnection& connection_;
  std::string sql_;  // with $n parameters
  std::vector<Param> params_;
  ResultPtr result_;
  int rows_ = 0;
  int row_ = -1;
  int columns_known_ = 0;
  std::vector<Oid> prepared_types_;
  std::string prepared_name_;
  std::int64_t prepared_epoch_ = -1;
  mutable std::string decoded_;
  mutable int decoded_row_ = -1;
  mutable int decoded_column_ = -1;
};

class PgConnection final : public Connection {
 public:
  PgConnection(std::string uri, bool read_only) : uri_(std::move(uri)), read_only_(read_only) {
    Connect();
  }
  ~PgConnection() override {
    lock_workloads_.reset();
    lock_all_workloads_.reset();
    unlock_all_workloads_.reset();
    if (conn_ != nullptr) PQfinish(conn_);
  }
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  Engine engine() const override { return Engine::kPostgresql; }
  std::unique_ptr<Statement> Prepare(std::string_view sql) override {
    return std::make_unique<PgStatement>(*this, sql);
  }
  std::unique_ptr<Statement> PrepareInsert(std::string_view insert_sql,
                                           std::string_view id_column) override {
    return Prepare(fmt::format("{} RETURNING {}", insert_sql, id_column));
  }
  std::optional<std::int64_t> RunInsert(Statement& insert) override {
    std::optional<std::int64_t> id;
    if (insert.Step()) id = insert.Int64(0);
    insert.Reset();
    return id;
  }
  void Execute(std::string_view sql) override {
    EnsureConnected();
    ++round_trips_;
    ResultPtr result(PQexec(conn_, std::string(sql).c_str()));
    // A script of nothing but comments (a migration that only raises the
    // schema version) runs as nothing.
    if (PQresultStatus(result.get()) != PGRES_EMPTY_QUERY) Check(result.get());
  }
  std::int64_t LastInsertId() const override {
    ++round_trips_;
    ResultPtr result(PQexec(conn_, "SELECT lastval()"));
    Check(result.get());
    return std::strtoll(PQgetvalue(result.get(), 0, 0), nullptr, 10);
  }
  // Kept here rather than asked of libpq, which answers "unknown" once the
  // connection is lost: a transaction that was open stays open (and lost)
  // until it is rolled back.
  bool InTransaction() const override { return in_transaction_; }
  bool ConcurrentWriters() const override { return true; }
  void Begin(LockMode mode) override {
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
  // Transaction-scoped advisory locks, one per workload, in hwrec's own
  // class of locks (two-key form: the first key names hwrec, the second the
  // workload, its id folded into 31 bits: ids that share a lock only wait for
  // each other). Taken in ascending order in one statement.
  void LockWorkloads(const std::vector<std::int64_t>& workload_ids) override {
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
  void LockAllWorkloads() override {
    if (in_transaction_) throw std::logic_error("LockAllWorkloads inside a transaction");
    if (!lock_all_workloads_) lock_all_workloads_ = Prepare("SELECT pg_advisory_lock(?::int4, 0)");
    RunToEnd(*lock_all_workloads_, kAllWorkloadsLockClass);
    all_workloads_locked_epoch_ = epoch_;
  }
  void UnlockAllWorkloads() noexcept override {
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
  void Commit() override {
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
  void RollbackQuietly() noexcept override {
    if (!in_transaction_) return;
    in_transaction_ = false;
    if (conn_ != nullptr && PQstatus(conn_) == CONNECTION_OK) {
      ++round_trips_;
      PQclear(PQexec(conn_, "ROLLBACK"));
    }
  }
  // Any writer on any connection may have changed the data; nothing tells
  // without a round trip, so readers compare the store's counters instead.
  std::optional<Version> DataVersion() override { return std::nullopt; }
  Footprint ReadFootprint() override {
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

  std::vector<std::string> TableNames() override {
    std::vector<std::string> tables;
    const auto list = Prepare(
        "SELECT tablename FROM pg_catalog.pg_tables WHERE schemaname = current_schema() ORDER "
        "BY tablename");
    while (list->Step()) tables.push_back(list->String(0));
    return tables;
  }

  std::string LongTextKey(std::string_view column) const override {
    return fmt::format("md5({})", column);
  }
  std::set<std::string> WholeNumberColumns(const std::string& table) override {
    std::set<std::string> columns;
    const auto query = Prepare(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = "
        "current_schema() AND table_name = ? AND data_type IN ('smallint', 'integer', 'bigint')");
    query->Bind(1, table);
    while (query->Step()) columns.insert(query->String(0));
    return columns;
  }
  void FollowWrittenIds(const std::string& table) override {
    // `table` is one of the store's own, named by hwrec, never by input.
    const auto advance =
        Prepare("SELECT setval(pg_get_serial_sequence(?, 'id'), max(id)) FROM " + table);
    advance->Bind(1, table);
    while (advance->Step()) {
    }
  }

  bool HasTable(std::string_view name) override {
    auto statement = Prepare(
        "SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = "
        "c.relnamespace WHERE n.nspname = current_schema() AND c.relname = ? AND c.relkind IN "
        "('r', 'v', 'p', 'm')");
    statement->Bind(1, name);
    return statement->Step();
  }

  // The name of the statement this session prepared for `sql` with these
  // parameter types; "" when it has not.
  std::string PreparedName(const std::string& sql, const std::vector<Oid>& types) const {
    auto it = prepared_.find(PreparedKey(sql, types));
    return it != prepared_.end() ? it->second : std::string();
  }
  // Prepares `sql` for these parameter types and runs it with `values`, in
  // one round trip (libpq's pipeline mode): the result of the run, or of the
  // preparation when that failed (the caller Checks it), and the new
  // statement's name in `*name` ("" when not prepared).
  PGresult* PrepareAndRun(const std::string& sql, const std::vector<Oid>& types,
                          const std::vector<const char*>& values, const std::vector<int>& lengths,
                          const std::vector<int>& formats, std::string* name) {
    const int count = static_cast<int>(types.size());
    std::string key = PreparedKey(sql, types);
    std::string made = "hwrec_" + std::to_string(prepared_.size() + 1);
    ++round_trips_;
    if (PQenterPipelineMode(conn_) != 1) return nullptr;  // Check says what libpq said
    if (PQsendPrepare(conn_, made.c_str(), sql.c_str(), count, types.data()) != 1 ||
        PQsendQueryPrepared(conn_, made.c_str(), count, values.data(), lengths.data(),
                            formats.data(), 0) != 1 ||
        PQpipelineSync(conn_) != 1) {
      // Without its sync the server may never answer what was queued: this
      // session is not read again but made anew at the next statement.
      broken_ = true;
      return nullptr;
    }
    // The preparation's result, then the run's (or PIPELINE_ABORTED), each
    // followed by a null, then the sync.
    ResultPtr prepared(PQgetResult(conn_));
    ResultPtr ran;
    if (prepared != nullptr) {
      const ResultPtr end_of_preparation(PQgetResult(conn_));  // null, as a rule
      if (end_of_preparation == nullptr) ran.reset(PQgetResult(conn_));
    }
    DrainPipeline();
    if (prepared == nullptr || PQresultStatus(prepared.get()) != PGRES_COMMAND_OK) {
      return prepared.release();
    }
    prepared_.emplace(std::move(key), made);
    *name = std::move(made);
    return ran.release();
  }
  bool RoundTripPerStatement() const override { return true; }
  std::int64_t RoundTrips() const override { return round_trips_; }
  void CountRoundTrip() { ++round_trips_; }

  PGconn* handle() { return conn_; }
  std::int64_t epoch() const { return epoch_; }

  // Before a statement outside a transaction: a connection the server
  // dropped is made again (a dropped transaction is reported, never resumed).
  void EnsureConnected() {
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

  // Throws the server's error for a failed result.
  void Check(const PGresult* result) const {
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

 private:
  static std::string PreparedKey(const std::string& sql, const std::vector<Oid>& types) {
    std::string key = sql;
    key += '\0';
    for (Oid t : types) key += std::to_string(t) + ",";
    return key;
  }
  // Reads what is left of a pipeline up to its sync and leaves pipeline
  // mode; a session that cannot leave it is made anew at the next statement
  // (PQreset leaves the mode too).
  void DrainPipeline() {
    for (int nulls = 0; nulls < 2 && PQstatus(conn_) == CONNECTION_OK;) {
      PGresult* result = PQgetResult(conn_);
      if (result == nullptr) {
        ++nulls;
        continue;
      }
      nulls = 0;
      const bool synced = PQresultStatus(result) == PGRES_PIPELINE_SYNC;
      PQclear(result);
      if (synced) break;
    }
    if (PQexitPipelineMode(conn_) != 1) broken_ = true;
  }
  // Runs a statement of one bound integer, reading every row it returns.
  static void RunToEnd(Statement& statement, std::int64_t value) {
    statement.Reset();
    statement.BindInt64(1, value);
    while (statement.Step()) {
    }
    statement.Reset();
  }
  PGresult* Exec(const char* sql) {
    EnsureConnected();
    ++round_trips_;
    ResultPtr result(PQexec(conn_, sql));  // freed when Check throws
    Check(result.get());
    return result.release();
  }
  void Connect() {
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
  void Configure() {
    PQsetNoticeProcessor(
        conn_, [](void*, const char*) {}, nullptr);
    // Floats as text in full (a finish time orders recent executions).
    ++round_trips_;
    ResultPtr result(PQexec(
        conn_,
        "SET client_min_messages = warning; SET TIME ZONE 'UTC'; SET extra_float_digits = 3"));
    Check(result.get());
    if (read_only_) {  // again on every new session: a read-only store stays read-only
      ++round_trips_;
      ResultPtr read_only(PQexec(conn_, "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY"));
      Check(read_only.get());
    }
  }
  // libpq's messages may quote the connection string, or pieces of it.
  std::string Scrubbed(const std::string& message) const { return RedactedText(message, uri_); }

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

PgStatement::PgStatement(PgConnection& connection, std::string_view sql) : connection_(connection) {
  int count = 0;
  sql_ = NumberParameters(sql, &count);
  params_.resize(static_cast<std::size_t>(count));
}

void PgStatement::Execute() {
  Reset();
  connection_.EnsureConnected();
  std::vector<Oid> types;
  std::vector<const char*> values;
  std::vector<int> lengths;
  std::vector<int> formats;
  types.reserve(params_.size());
  for (const Param& p : params_) {
    types.push_back(p.null ? 0 : p.type);
    values.push_back(p.null ? nullptr : (p.view.data() != nullptr ? p.view.data() : ""));
    lengths.push_back(static_cast<int>(p.view.size()));
    formats.push_back(p.format);
  }
  // The last signature's statement is reused without a lookup while the
  // connection lasts (a reconnect forgets every prepared statement).
  if (types != prepared_types_ || prepared_epoch_ != connection_.epoch()) {
    prepared_name_ = connection_.PreparedName(sql_, types);
    prepared_types_ = types;
    prepared_epoch_ = connection_.epoch();
  }
  ResultPtr result;
  if (prepared_name_.empty()) {  // prepared as it first runs, in the same round trip
    result.reset(connection_.PrepareAndRun(sql_, types, values, lengths, formats, &prepared_name_));
  } else {
    connection_.CountRoundTrip();
    result.reset(PQexecPrepared(connection_.handle(), prepared_name_.c_str(),
                                static_cast<int>(params_.size()), values.data(), lengths.data(),
                                formats.data(), 0));
  }
  connection_.Check(result.get());
  rows_ = PQntuples(result.get());
  columns_known_ = PQnfields(result.get());
  row_ = -1;
  decoded_row_ = -1;
  result_ = std::move(result);
}

}  // namespace

std::unique_ptr<Connection> ConnectPostgresql(const std::string& uri, bool read_only) {
  return std::make_unique<PgConnection>(LibpqConninfo(uri), read_only);
}

}  // namespace hwrec::store
