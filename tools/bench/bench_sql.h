// The benchmark's own connection to a store, beside hwrec's: to set a store
// back to an older schema, count rows and read them for verification, and
// administer a throwaway server. SQLite through SQLiteCpp, PostgreSQL
// through libpq. hwrec-bench only: the library offers no raw SQL.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace hwrec::bench {

class BenchSql {
 public:
  // `location`: a SQLite file or a PostgreSQL location, as Store::Open takes
  // them. Throws std::runtime_error when it cannot connect.
  static std::unique_ptr<BenchSql> Open(const std::string& location);
  virtual ~BenchSql() = default;

  virtual bool postgresql() const = 0;
  // Runs `sql` (no parameters: the benchmark's own text). Throws on error.
  virtual void Execute(const std::string& sql) = 0;
  // The first column of the first row as an integer; nullopt when no row or
  // NULL.
  virtual std::optional<std::int64_t> QueryInt64(const std::string& sql) = 0;
  // Reads every row of `sql` and returns how many there were.
  virtual std::int64_t CountRows(const std::string& sql) = 0;
  // Calls `row` with the first column of each row as text.
  virtual void ForEachText(const std::string& sql,
                           const std::function<void(const std::string&)>& row) = 0;
};

}  // namespace hwrec::bench
