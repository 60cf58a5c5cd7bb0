// `hwrec config set` is one change: the value, the aggregates it shapes and the
// recommendations derived from them are stored together, or, when any part
// fails, nothing changes and the message says so.
#include <SQLiteCpp/SQLiteCpp.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "test_support.h"

using hwrec::test::RunCli;
using hwrec::test::ShellQuote;

namespace {

// The example store: pools registered, observations ingested, recommendations materialised.
void MakeExampleStore(const std::string& path) {
  const std::string store = ShellQuote(path);
  REQUIRE(RunCli("init " + store).exit_code == 0);
  REQUIRE(RunCli("pools import " + store + " " +
                 ShellQuote(hwrec::test::SourcePath("examples/pools.jsonl")))
              .exit_code == 0);
  RunCli("ingest " + store + " " +
         ShellQuote(hwrec::test::SourcePath("examples/observations.jsonl")));
}

void Exec(const std::string& path, const std::string& sql) {
  SQLite::Database db(path, SQLite::OPEN_READWRITE);
  db.exec(sql);
}

// Every row of `table` as text, sorted: equal texts, equal tables.
std::string TableText(const std::string& path, const std::string& table) {
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  SQLite::Statement query(db, "SELECT * FROM " + table);
  std::vector<std::string> rows;
  while (query.executeStep()) {
    std::string row;
    for (int c = 0; c < query.getColumnCount(); ++c) {
      const SQLite::Column column = query.getColumn(c);
      row += column.isBlob() ? std::string(static_cast<const char*>(column.getBlob()),
                                           static_cast<std::size_t>(column.getBytes()))
                             : column.getString();
      row += '|';
    }
    rows.push_back(row);
  }
  std::sort(rows.begin(), rows.end());
  std::string text;
  for (const std::string& row : rows) text += row + "\n";
  return text;
}

struct Snapshot {
  std::string config, aggregates, recommendations;
  bool operator==(const Snapshot& o) const {
    return config == o.config && aggregates == o.aggregates && recommendations == o.recommendations;
  }
};

Snapshot Take(const std::string& path) {
  return {TableText(path, "config"), TableText(path, "aggregates"),
          TableText(path, "recommendations")};
}

void CheckFailedAndUnchanged(const std::string& path, const std::string& key,
                             const std::string& value) {
  const Snapshot before = Take(path);
  const auto r = RunCli("config set " + ShellQuote(path) + " " + key + " " + value);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("setting " + key + " to '" + value +
                                    "' failed and changed "
                                    "nothing"));
  CHECK(Take(path) == before);
  const auto get = RunCli("config get " + ShellQuote(path) + " " + key);
  CHECK(get.out != value + "\n");
}

}  // namespace

TEST_CASE(
    "config set: when refreshing recommendations fails, the value, aggregates and "
    "recommendations stay as they were",
    "[cli][config]") {
  hwrec::test::TempDir dir;
  const std::string path = dir.File("store.db");
  MakeExampleStore(path);
  // One aggregate the refresh cannot read, as a damaged or foreign write leaves it.
  Exec(path,
       "UPDATE aggregates SET state = x'00' "
       "WHERE workload_id = (SELECT min(workload_id) FROM aggregates)");
  CheckFailedAndUnchanged(path, "memory.margin", "0.5");
}

TEST_CASE("config set: when a setting that rebuilds aggregates fails, nothing is changed",
          "[cli][config]") {
  hwrec::test::TempDir dir;
  const std::string path = dir.File("store.db");
  MakeExampleStore(path);
  // The rebuild itself succeeds; writing the recommendations it leads to fails.
  Exec(path,
       "CREATE TRIGGER refuse_recommendations BEFORE INSERT ON recommendations "
       "BEGIN SELECT RAISE(ABORT, 'recommendations are refused here'); END");
  CheckFailedAndUnchanged(path, "half_life_hours", "24");
  CheckFailedAndUnchanged(path, "max_range_samples", "3");

  Exec(path, "DROP TRIGGER refuse_recommendations");
  const auto ok = RunCli("config set " + ShellQuote(path) + " half_life_hours 24");
  INFO(ok.err);
  CHECK(ok.exit_code == 0);
  CHECK(RunCli("config get " + ShellQuote(path) + " half_life_hours").out == "24\n");
}
