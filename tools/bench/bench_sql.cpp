#include "bench/bench_sql.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>
#include <libpq-fe.h>

#include <cctype>
#include <stdexcept>
#include <utility>

#include "hwrec/store_location.h"

namespace hwrec::bench {

namespace {

class SqliteSql final : public BenchSql {
 public:
  // With the page cache a store opens with (StoreOptions::cache_mib), so that
  // a scan here reads as hwrec's own connection would.
  explicit SqliteSql(const std::string& path) : db_(path, SQLite::OPEN_READWRITE, 5000) {
    db_.exec("PRAGMA cache_size = -65536");
  }

  bool postgresql() const override { return false; }
  void Execute(const std::string& sql) override { db_.exec(sql); }
  std::optional<std::int64_t> QueryInt64(const std::string& sql) override {
    SQLite::Statement query(db_, sql);
    if (!query.executeStep() || query.getColumn(0).isNull()) return std::nullopt;
    return query.getColumn(0).getInt64();
  }
  std::int64_t CountRows(const std::string& sql) override {
    SQLite::Statement query(db_, sql);
    std::int64_t rows = 0;
    while (query.executeStep()) ++rows;
    return rows;
  }
  void ForEachText(const std::string& sql,
                   const std::function<void(const std::string&)>& row) override {
    SQLite::Statement query(db_, sql);
    while (query.executeStep()) row(query.getColumn(0).getString());
  }

 private:
  SQLite::Database db_;
};

struct ResultFree {
  void operator()(PGresult* r) const { PQclear(r); }
};
using PgResult = std::unique_ptr<PGresult, ResultFree>;

class PostgresqlSql final : public BenchSql {
 public:
  explicit PostgresqlSql(const std::string& location)
      : connection_(PQconnectdb(Conninfo(location).c_str()), PQfinish) {
    if (PQstatus(connection_.get()) != CONNECTION_OK) {
      throw std::runtime_error(RedactedMessage(
          fmt::format("connecting to {} failed: {}", location, LastError()), location));
    }
    // The server's notices (what DROP ... CASCADE dropped) are not the bench's output.
    PQsetNoticeProcessor(
        connection_.get(), [](void*, const char*) {}, nullptr);
  }

  bool postgresql() const override { return true; }
  void Execute(const std::string& sql) override { Run(sql); }
  std::optional<std::int64_t> QueryInt64(const std::string& sql) override {
    const PgResult result = Run(sql);
    if (PQntuples(result.get()) == 0 || PQgetisnull(result.get(), 0, 0)) return std::nullopt;
    return std::stoll(PQgetvalue(result.get(), 0, 0));
  }
  std::int64_t CountRows(const std::string& sql) override { return PQntuples(Run(sql).get()); }
  void ForEachText(const std::string& sql,
                   const std::function<void(const std::string&)>& row) override {
    const PgResult result = Run(sql);
    for (int i = 0; i < PQntuples(result.get()); ++i) row(PQgetvalue(result.get(), i, 0));
  }

 private:
  PgResult Run(const std::string& sql) {
    PgResult result(PQexec(connection_.get(), sql.c_str()));
    const ExecStatusType status = PQresultStatus(result.get());
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
      throw std::runtime_error(fmt::format("{}: {}", sql, LastError()));
    }
    return result;
  }

  // libpq's message without its final line break.
  std::string LastError() const {
    std::string message = PQerrorMessage(connection_.get());
    while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) {
      message.pop_back();
    }
    return message;
  }

  // A location as libpq reads it: a URI's scheme in lowercase, as hwrec
  // accepts it in any case ("POSTGRESQL://...").
  static std::string Conninfo(const std::string& location) {
    std::string out = location;
    const std::size_t scheme = out.find("://");
    if (scheme != std::string::npos) {
      for (std::size_t i = 0; i < scheme; ++i) {
        out[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(out[i])));
      }
    }
    return out;
  }

  std::unique_ptr<PGconn, void (*)(PGconn*)> connection_;
};

}  // namespace

std::unique_ptr<BenchSql> BenchSql::Open(const std::string& location) {
  if (IsPostgresqlLocation(location)) return std::make_unique<PostgresqlSql>(location);
  return std::make_unique<SqliteSql>(location);
}

}  // namespace hwrec::bench
