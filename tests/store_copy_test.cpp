// hwrec copy: a whole store into an empty one, all or nothing, counts checked
// and aggregates equal after; SQLite -> SQLite always, and SQLite ->
// PostgreSQL -> SQLite when HWREC_TEST_POSTGRESQL names a server ([engine]).
#include <SQLiteCpp/SQLiteCpp.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "copy/table_rows.h"
#include "hwrec/check.h"
#include "hwrec/store_copy.h"
#include "store/database.h"
#include "test_support.h"

namespace {

using hwrec::Store;
using hwrec::test::RunCli;
using hwrec::test::ShellQuote;
using hwrec::test::TempDir;

constexpr const char* kSecret = "s3cret-do-not-print";

// Every table's rows, exactly (hwrec::internal::TableRows), but the
// engine's own schema_migrations and change counters.
std::map<std::string, std::vector<std::string>> Dump(const Store& store) {
  std::map<std::string, std::vector<std::string>> out;
  auto status = store.GetStatus();
  REQUIRE(status.ok());
  for (const hwrec::TableCount& t : status->tables) {
    if (t.table == "schema_migrations" || t.table == "store_changes") continue;
    out[t.table] = hwrec::internal::TableRows(hwrec::store::ConnectionOf(store), t.table);
  }
  return out;
}

std::map<std::string, std::vector<std::string>> DumpAt(const std::string& location) {
  hwrec::StoreOptions options;
  options.read_only = true;
  auto store = Store::Open(location, options);
  REQUIRE(store.ok());
  return Dump(**store);
}

std::unique_ptr<Store> FreshStore(const std::string& location) {
  hwrec::StoreOptions options;
  options.create_if_missing = true;
  auto store = Store::Open(location, options);
  REQUIRE(store.ok());
  return std::move(store).value();
}

// The rows that differ between two dumps, for a failure a reader can follow.
void RequireSameRows(const std::map<std::string, std::vector<std::string>>& a,
                     const std::map<std::string, std::vector<std::string>>& b) {
  REQUIRE(a.size() == b.size());
  for (const auto& [table, rows] : a) {
    INFO("table " << table);
    REQUIRE(b.count(table) == 1);
    CHECK(rows == b.at(table));
  }
}

// A fresh PostgreSQL store location (hwrec::test::NewStoreLocation), or ""
// with a warning that the case is not run when no test server is set.
std::string PostgresqlLocation(const TempDir& dir, const std::string& name) {
  if (!hwrec::test::TestingPostgresql()) {
    WARN("HWREC_TEST_POSTGRESQL is not set: the PostgreSQL case is not run");
    return "";
  }
  return hwrec::test::NewStoreLocation(dir, name);
}

// `uri` with kSecret as its password (the test server trusts loopback and
// ignores it).
std::string WithPassword(const std::string& uri) {
  const std::size_t begin = uri.find("://") + 3;
  const std::size_t at = uri.find('@', begin);
  const std::size_t colon = uri.find(':', begin);
  const std::string user = uri.substr(begin, std::min(at, colon) - begin);
  return uri.substr(0, begin) + user + ":" + kSecret + uri.substr(at);
}

void CorruptOneAggregate(const std::string& path) {
  SQLite::Database db(path, SQLite::OPEN_READWRITE);
  db.exec(
      "UPDATE aggregates SET samples = samples + 1 WHERE workload_id = "
      "(SELECT min(workload_id) FROM aggregates)");
}

}  // namespace

TEST_CASE("copy: a SQLite store copied into a new file holds every row exactly", "[copy]") {
  TempDir dir;
  const std::string source_path = hwrec::test::ExampleStore(dir);
  auto source = FreshStore(source_path);
  auto destination = FreshStore(dir.File("copy.db"));
  auto summary = hwrec::CopyStore(*source, *destination);
  REQUIRE(summary.ok());
  CHECK(summary->source == source_path);
  CHECK(summary->destination == dir.File("copy.db"));
  CHECK(summary->aggregates_checked > 0);
  std::int64_t sum = 0;
  for (const hwrec::TableCount& t : summary->tables) sum += t.rows;
  CHECK(sum == summary->rows);
  RequireSameRows(Dump(*source), Dump(*destination));
  CHECK(destination->CheckWritable().ok());
  destination.reset();
  auto report = hwrec::CheckStore(dir.File("copy.db"));
  REQUIRE(report.ok());
  CHECK(report->sound());
}

TEST_CASE("copy: `hwrec copy` creates DST, prints the counts and a last line", "[copy][cli]") {
  TempDir dir;
  const std::string source = hwrec::test::ExampleStore(dir);
  const std::string destination = dir.File("new.db");
  const auto r = RunCli("copy " + ShellQuote(source) + " " + ShellQuote(destination));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("observations"));
  CHECK_THAT(r.out, Catch::Contains("aggregates"));
  CHECK_THAT(r.out, Catch::Contains("copied "));
  CHECK_THAT(r.out, Catch::Contains("aggregates equal the source's and a rebuild"));
  RequireSameRows(DumpAt(source), DumpAt(destination));
  CHECK(RunCli("check " + ShellQuote(destination)).exit_code == 0);

  const auto json =
      RunCli("copy " + ShellQuote(source) + " " + ShellQuote(dir.File("j.db")) + " --format json");
  REQUIRE(json.exit_code == 0);
  CHECK_THAT(json.out, Catch::Contains("\"tables\""));
  CHECK(RunCli("copy " + ShellQuote(source)).exit_code == 2);
}

TEST_CASE("copy: a destination that holds data is refused and left unchanged", "[copy]") {
  TempDir dir;
  TempDir other;
  auto source = FreshStore(hwrec::test::ExampleStore(dir));
  const std::string held = hwrec::test::ExampleStore(other);
  const auto before = DumpAt(held);
  auto destination = FreshStore(held);
  auto summary = hwrec::CopyStore(*source, *destination);
  REQUIRE_FALSE(summary.ok());
  CHECK(summary.status().code() == hwrec::StatusCode::kConflict);
  CHECK_THAT(summary.status().message(), Catch::Contains("already holds data"));
  destination.reset();
  RequireSameRows(before, DumpAt(held));

  const auto cli = RunCli("copy " + ShellQuote(dir.File("example.db")) + " " + ShellQuote(held));
  CHECK(cli.exit_code == 1);
  CHECK_THAT(cli.err, Catch::Contains("fresh store (`hwrec init`)"));
  RequireSameRows(before, DumpAt(held));
  CHECK(hwrec::CopyStore(*source, *source).status().code() == hwrec::StatusCode::kInvalidArgument);
}

TEST_CASE("copy: a row the destination refuses rolls the whole copy back", "[copy]") {
  TempDir dir;
  auto source = FreshStore(hwrec::test::ExampleStore(dir));
  const std::string target = dir.File("target.db");
  FreshStore(target).reset();
  const auto fresh = DumpAt(target);
  {
    SQLite::Database db(target, SQLite::OPEN_READWRITE);
    db.exec(
        "CREATE TRIGGER refuse_aggregates BEFORE INSERT ON aggregates "
        "BEGIN SELECT RAISE(ABORT, 'refused by the test'); END");
  }
  auto destination = FreshStore(target);
  auto summary = hwrec::CopyStore(*source, *destination);
  REQUIRE_FALSE(summary.ok());
  CHECK_THAT(summary.status().message(), Catch::Contains("refused by the test"));
  destination.reset();
  // The workloads and observations written before the refused row are gone,
  // and the seeded rows the copy had cleared are back.
  RequireSameRows(fresh, DumpAt(target));
}

TEST_CASE("copy: aggregates that differ from a rebuild are refused; a DST copy made is removed",
          "[copy][cli]") {
  TempDir dir;
  const std::string source = hwrec::test::ExampleStore(dir);
  CorruptOneAggregate(source);
  const std::string destination = dir.File("new.db");
  const auto r = RunCli("copy " + ShellQuote(source) + " " + ShellQuote(destination));
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("differ from a rebuild from the observations"));
  CHECK_THAT(r.err, Catch::Contains("nothing was written"));
  CHECK_FALSE(std::filesystem::exists(destination));
  CHECK_FALSE(std::filesystem::exists(destination + "-wal"));
}

TEST_CASE("copy: a URI's password is never printed, and SQLite-only commands say what to do",
          "[copy][cli]") {
  TempDir dir;
  const std::string unreachable =
      ShellQuote(std::string("postgresql://hwrec:") + kSecret + "@127.0.0.1:1/hwrec");
  const std::string file = ShellQuote(dir.File("x.db"));
  REQUIRE(RunCli("init " + file).exit_code == 0);
  for (const std::string& args :
       {"init " + unreachable, "status " + unreachable, "status " + unreachable + " --format json",
        "migrate " + unreachable, "ingest " + unreachable + " /dev/null",
        "recommend " + unreachable + " --image x", "pools list " + unreachable,
        "config list " + unreachable, "copy " + file + " " + unreachable,
        "copy " + unreachable + " " + file}) {
    INFO(args);
    const auto r = RunCli(args);
    CHECK(r.exit_code != 0);
    CHECK(r.out.find(kSecret) == std::string::npos);
    CHECK(r.err.find(kSecret) == std::string::npos);
  }
  // hwrec check reads a PostgreSQL store too: here it says why it cannot.
  const auto check = RunCli("check " + unreachable);
  CHECK(check.exit_code == 1);
  CHECK_THAT(check.err, Catch::Contains("cannot connect to PostgreSQL"));
  CHECK(check.err.find(kSecret) == std::string::npos);
  const auto legacy = RunCli("migrate " + unreachable + " --accept-hp-v2");
  CHECK(legacy.exit_code == 1);
  CHECK_THAT(legacy.err, Catch::Contains("legacy stores are files"));
  CHECK(legacy.err.find(kSecret) == std::string::npos);
  CHECK_THAT(RunCli("--help").out, Catch::Contains("starts with postgresql://") &&
                                       Catch::Contains("key=value string naming host"));
  CHECK_THAT(RunCli("status --help").out, Catch::Contains("a file path or a PostgreSQL location"));
}

TEST_CASE("copy: SQLite -> PostgreSQL -> SQLite gives back every row exactly", "[copy][engine]") {
  TempDir dir;
  const std::string postgresql = PostgresqlLocation(dir, "copy_round_trip");
  if (postgresql.empty()) return;
  const std::string source = hwrec::test::ExampleStore(dir);
  const auto there = RunCli("copy " + ShellQuote(source) + " " + ShellQuote(postgresql));
  INFO(there.err);
  REQUIRE(there.exit_code == 0);
  const std::string back = dir.File("back.db");
  const auto home = RunCli("copy " + ShellQuote(postgresql) + " " + ShellQuote(back));
  INFO(home.err);
  REQUIRE(home.exit_code == 0);
  const auto original = DumpAt(source);
  RequireSameRows(original, DumpAt(postgresql));
  RequireSameRows(original, DumpAt(back));
  CHECK(RunCli("check " + ShellQuote(back)).exit_code == 0);

  // The identities moved past the copied ids: the next row gets a new one.
  for (const char* table : {"workloads", "observations", "ingest_rejects"}) {
    INFO(table);
    const auto next = hwrec::test::RunShell(
        "psql " + ShellQuote(postgresql) + " -tAc " +
        ShellQuote(std::string("SELECT nextval(pg_get_serial_sequence('") + table +
                   "', 'id')) > (SELECT max(id) FROM " + table + ")"));
    CHECK(next.out == "t\n");
  }

  // A second copy into the now-full store is refused and changes nothing.
  const auto full = DumpAt(postgresql);
  const auto refused = RunCli("copy " + ShellQuote(source) + " " + ShellQuote(postgresql));
  CHECK(refused.exit_code == 1);
  CHECK_THAT(refused.err, Catch::Contains("already holds data"));
  RequireSameRows(full, DumpAt(postgresql));
}

TEST_CASE(
    "copy: a value SQLite kept as another type than its column's is refused into PostgreSQL, "
    "naming its table and row, and nothing is written",
    "[copy][engine]") {
  TempDir dir;
  const std::string postgresql = PostgresqlLocation(dir, "copy_mistyped");
  if (postgresql.empty()) return;
  const std::string source = hwrec::test::ExampleStore(dir);
  {
    // A legacy migration keeps such a value in quarantine as it was read.
    SQLite::Database db(source, SQLite::OPEN_READWRITE);
    db.exec(
        "INSERT INTO legacy_quarantine (id, legacy_id, execution_id, site_id, action_image, "
        "finished_at, status, reason_code, reason, quarantined_at) VALUES (7, 1, 'e', 's', 'img', "
        "'2026-01-01T00:00:00Z', 'success', 'invalid_field', 'finished_at: …', 1)");
  }
  FreshStore(postgresql).reset();
  const auto fresh = DumpAt(postgresql);
  const auto refused = RunCli("copy " + ShellQuote(source) + " " + ShellQuote(postgresql));
  CHECK(refused.exit_code == 1);
  CHECK_THAT(refused.err, Catch::Contains("table legacy_quarantine, the row of id 7: ") &&
                              Catch::Contains("finished_at") &&
                              Catch::Contains("mend the value in the source") &&
                              Catch::Contains("nothing was written"));
  RequireSameRows(fresh, DumpAt(postgresql));

  // PostgreSQL would round a fraction in a whole-number column without a word.
  {
    SQLite::Database db(source, SQLite::OPEN_READWRITE);
    db.exec(
        "UPDATE legacy_quarantine SET finished_at = 1767225600, memory_peak_bytes = 1500.7 "
        "WHERE id = 7");
  }
  const auto rounded = RunCli("copy " + ShellQuote(source) + " " + ShellQuote(postgresql));
  CHECK(rounded.exit_code == 1);
  CHECK_THAT(rounded.err,
             Catch::Contains("table legacy_quarantine, the row of id 7: column memory_peak_bytes "
                             "holds 1500.7, which PostgreSQL keeps as whole numbers only") &&
                 Catch::Contains("nothing was written"));
  RequireSameRows(fresh, DumpAt(postgresql));
}

TEST_CASE("copy: a PostgreSQL store's password is never printed", "[copy][engine][cli]") {
  TempDir dir;
  const std::string postgresql = PostgresqlLocation(dir, "copy_password");
  if (postgresql.empty()) return;
  const std::string uri = ShellQuote(WithPassword(postgresql));
  const std::string source = ShellQuote(hwrec::test::ExampleStore(dir));
  for (const std::string& args :
       {"init " + uri, "status " + uri, "status " + uri + " --format json", "init " + uri,
        "copy " + source + " " + uri, "copy " + source + " " + uri, "pools list " + uri,
        "check " + uri}) {
    INFO(args);
    const auto r = RunCli(args);
    CHECK(r.out.find(kSecret) == std::string::npos);
    CHECK(r.err.find(kSecret) == std::string::npos);
  }
  const auto status = RunCli("status " + uri);
  CHECK_THAT(status.out, Catch::Contains("engine:         postgresql"));
  CHECK_THAT(status.out, Catch::Contains("***"));
  CHECK_THAT(status.out, !Catch::Contains("journal mode"));
}
