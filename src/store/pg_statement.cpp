// PgStatement: a store::Statement on a PostgreSQL session (PgConnection,
// pg_session_internal.h). Its `?` parameters are numbered `$1`, `$2`, …; it
// is prepared once per parameter-type signature and session, in the round
// trip of its first run (libpq's pipeline mode), and named in the session's
// cache, kept here with PgConnection::Prepare. Results are read as text, the
// values typed by their column's type OID.
#include "store/pg_session_internal.h"

#include <fmt/format.h>
#include <libpq-fe.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
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

class PgStatement final : public Statement {
 public:
  PgStatement(PgConnection& connection, std::string_view sql);

  void BindNull(int index) override { At(index) = Param{}; }
  void BindInt64(int index, std::int64_t value) override {
    BindOwned(index, kInt8Oid, 0, std::to_string(value));
  }
  void BindDouble(int index, double value) override {
    BindOwned(index, kFloat8Oid, 0,
              std::isnan(value)   ? "NaN"
              : std::isinf(value) ? (value > 0 ? "Infinity" : "-Infinity")
                                  : fmt::format("{}", value));
  }
  void BindText(int index, std::string_view value) override {
    BindOwned(index, kTextOid, 0, std::string(value));
  }
  void BindTextView(int index, std::string_view value) override {
    At(index) = Param{kTextOid, 0, {}, value, false};
  }
  void BindBlob(int index, std::string_view bytes) override {
    BindOwned(index, kByteaOid, 1, std::string(bytes));
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

  // Binds a value the statement keeps a copy of (`format` 1: binary).
  void BindOwned(int index, Oid type, int format, std::string value) {
    Param& p = At(index);
    p = Param{type, format, std::move(value), {}, false};
    p.view = p.owned;
  }
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

std::unique_ptr<Statement> PgConnection::Prepare(std::string_view sql) {
  return std::make_unique<PgStatement>(*this, sql);
}

std::string PgConnection::PreparedName(const std::string& sql,
                                       const std::vector<Oid>& types) const {
  auto it = prepared_.find(PreparedKey(sql, types));
  return it != prepared_.end() ? it->second : std::string();
}

PGresult* PgConnection::PrepareAndRun(const std::string& sql, const std::vector<Oid>& types,
                                      const std::vector<const char*>& values,
                                      const std::vector<int>& lengths,
                                      const std::vector<int>& formats, std::string* name) {
  const int count = static_cast<int>(types.size());
  std::string key = PreparedKey(sql, types);
  std::string made = "hwrec_" + std::to_string(prepared_.size() + 1);
  ++round_trips_;
  if (PQenterPipelineMode(conn_) != 1) return nullptr;  // Check says what libpq said
  if (PQsendPrepare(conn_, made.c_str(), sql.c_str(), count, types.data()) != 1 ||
      PQsendQueryPrepared(conn_, made.c_str(), count, values.data(), lengths.data(), formats.data(),
                          0) != 1 ||
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

std::string PgConnection::PreparedKey(const std::string& sql, const std::vector<Oid>& types) {
  std::string key = sql;
  key += '\0';
  for (Oid t : types) key += std::to_string(t) + ",";
  return key;
}

void PgConnection::DrainPipeline() {
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

}  // namespace hwrec::store
