// How a store is opened: recognised before anything is written, created only
// on request, inspectable when its schema is off, readable on read-only media,
// and explained in words when SQLite cannot open it.
#include <SQLiteCpp/SQLiteCpp.h>
#include <sqlite3.h>

#include <catch2/catch.hpp>

#include <filesystem>

#include "hwrec/store_location.h"
#include "store/database.h"
#include "store/store_file.h"
#include "test_support.h"

using hwrec::StatusCode;
using hwrec::Store;
using hwrec::StoreOptions;
using hwrec::test::ReadFile;
using hwrec::test::TempDir;

namespace {

StoreOptions ReadOnly() {
  StoreOptions options;
  options.read_only = true;
  return options;
}

StoreOptions Creating() {
  StoreOptions options;
  options.create_if_missing = true;
  return options;
}

// Another program's database, in rollback-journal mode as most are.
void MakeForeignDatabase(const std::string& path, const std::string& schema) {
  SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  db.exec(schema);
}

}  // namespace

TEST_CASE("store open: another program's database is refused, named, and left byte-identical",
          "[store][open]") {
  TempDir dir;
  const std::string path = dir.File("other.db");
  const std::string schema = GENERATE(
      std::string("CREATE TABLE jobs (id INTEGER PRIMARY KEY, name TEXT);"
                  "CREATE TABLE observations (x INTEGER); INSERT INTO jobs VALUES (1, 'a')"),
      std::string("CREATE TABLE schema_migrations (version INTEGER, dirty INTEGER);"
                  "PRAGMA user_version = 3"),
      std::string("PRAGMA user_version = 7"));
  MakeForeignDatabase(path, schema);
  const std::string before = ReadFile(path);
  for (const StoreOptions& options : {StoreOptions{}, ReadOnly(), Creating()}) {
    auto store = Store::Open(path, options);
    REQUIRE_FALSE(store.ok());
    CHECK(store.status().code() == StatusCode::kInvalidArgument);
    CHECK_THAT(store.status().message(), Catch::Contains("not an hwrec store"));
    CHECK_THAT(store.status().message(),
               Catch::Contains("create one at a new path with `hwrec init`"));
    CHECK(ReadFile(path) == before);
    CHECK_FALSE(std::filesystem::exists(path + "-wal"));
  }
}

TEST_CASE("store open: the refusal names the tables it found", "[store][open]") {
  TempDir dir;
  const std::string path = dir.File("other.db");
  MakeForeignDatabase(path, "CREATE TABLE jobs (id INTEGER); CREATE TABLE runs (id INTEGER)");
  auto store = Store::Open(path, Creating());
  REQUIRE_FALSE(store.ok());
  CHECK_THAT(store.status().message(), Catch::Contains("2 table(s): jobs, runs"));
  CHECK_THAT(store.status().message(), Catch::Contains("no schema_migrations table"));
}

TEST_CASE("store open: only create_if_missing makes a store; a missing or empty file is refused",
          "[store][open]") {
  TempDir dir;
  const std::string empty = dir.File("empty.db");
  hwrec::test::WriteFile(empty, "");
  for (const std::string& path : {empty, dir.File("absent.db")}) {
    for (const StoreOptions& options : {StoreOptions{}, ReadOnly()}) {
      auto store = Store::Open(path, options);
      REQUIRE_FALSE(store.ok());
      CHECK(store.status().code() == StatusCode::kNotFound);
      CHECK_THAT(store.status().message(), Catch::StartsWith("no hwrec store at " + path));
      CHECK_THAT(store.status().message(), Catch::Contains("create it with `hwrec init " + path));
    }
  }
  CHECK(std::filesystem::file_size(empty) == 0);
  CHECK_FALSE(std::filesystem::exists(dir.File("absent.db")));
  CHECK_FALSE(StoreOptions{}.create_if_missing);

  auto created = Store::Open(empty, Creating());
  REQUIRE(created.ok());
  CHECK((*created)->schema_version() == Store::LatestSchemaVersion());
}

TEST_CASE("store open: :memory: is only a scratch store made on request", "[store][open]") {
  auto refused = Store::Open(":memory:");
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.status().code() == StatusCode::kInvalidArgument);
  CHECK_THAT(refused.status().message(), Catch::Contains("create_if_missing"));
  auto scratch = Store::Open(":memory:", Creating());
  REQUIRE(scratch.ok());
  CHECK((*scratch)->schema_version() == Store::LatestSchemaVersion());
}

TEST_CASE("store open: a directory or a file that is not a database is named and left unchanged",
          "[store][open]") {
  TempDir dir;
  auto directory = Store::Open(dir.path().string(), Creating());
  REQUIRE_FALSE(directory.ok());
  CHECK_THAT(directory.status().message(), Catch::Contains("is a directory, not a store file"));
  CHECK_THAT(directory.status().message(), Catch::Contains("hwrec init"));

  const std::string text = dir.File("notes.txt");
  hwrec::test::WriteFile(text, std::string(4096, 'x'));
  for (const StoreOptions& options : {StoreOptions{}, ReadOnly(), Creating()}) {
    auto store = Store::Open(text, options);
    REQUIRE_FALSE(store.ok());
    CHECK_THAT(store.status().message(), Catch::Contains("not an SQLite database"));
    CHECK_THAT(store.status().message(), !Catch::Contains("file is not a database"));
    CHECK(ReadFile(text) == std::string(4096, 'x'));
  }
}

TEST_CASE("store open: a store whose applied migration changed opens for inspection only",
          "[store][open]") {
  TempDir dir;
  const std::string path = dir.File("altered.db");
  hwrec::test::OpenStoreOrFail(path);
  {
    SQLite::Database raw(path, SQLite::OPEN_READWRITE);
    raw.exec("UPDATE schema_migrations SET checksum = 'deadbeef' WHERE version = 2");
  }
  StoreOptions inspect = ReadOnly();
  inspect.inspect_schema = true;
  auto store = Store::Open(path, inspect);
  REQUIRE(store.ok());
  auto status = (*store)->GetStatus();
  REQUIRE(status.ok());
  CHECK_THAT(status->schema_problem, Catch::Contains("0002_hardware_keyed"));
  CHECK_THAT(status->schema_problem, Catch::Contains("checksum deadbeef"));

  CHECK(Store::Open(path, ReadOnly()).status().code() == StatusCode::kSchemaMismatch);
  StoreOptions writable_inspect;
  writable_inspect.inspect_schema = true;  // inspection never opens it for writing
  CHECK(Store::Open(path, writable_inspect).status().code() == StatusCode::kSchemaMismatch);
}

TEST_CASE("store open: a sound store's status names how it was opened and no schema problem",
          "[store][open]") {
  TempDir dir;
  const std::string path = dir.File("sound.db");
  CHECK(hwrec::test::OpenStoreOrFail(path)->GetStatus()->opened == "read-write");
  auto status = hwrec::test::OpenStoreOrFail(path, ReadOnly())->GetStatus();
  REQUIRE(status.ok());
  CHECK(status->opened == "read-only");
  CHECK_FALSE(status->immutable);
  CHECK(status->schema_problem.empty());
}

TEST_CASE("store open: the page cache is cache_mib MiB, read-write or read-only; 0 keeps SQLite's",
          "[store][open]") {
  TempDir dir;
  const std::string path = dir.File("cache.db");
  auto cache_size = [](const Store& store) {
    return hwrec::store::ConnectionOf(store).QueryInt64("PRAGMA cache_size").value_or(0);
  };
  CHECK(cache_size(*hwrec::test::OpenStoreOrFail(path, Creating())) == -64 * 1024);
  StoreOptions small = ReadOnly();
  small.cache_mib = 8;
  CHECK(cache_size(*hwrec::test::OpenStoreOrFail(path, small)) == -8 * 1024);
  StoreOptions sqlite_default;
  sqlite_default.cache_mib = 0;
  CHECK(cache_size(*hwrec::test::OpenStoreOrFail(path, sqlite_default)) == -2000);
}

TEST_CASE("store open: SQLite's open failures become what is wrong and what to do",
          "[store][open]") {
  using hwrec::internal::DescribeOpenFailure;
  TempDir dir;
  const std::string path = dir.File("s.db");
  const auto full = DescribeOpenFailure(path, SQLITE_FULL, "database or disk is full", false);
  CHECK_THAT(full.message(), Catch::Contains("the disk holding the store is full"));
  CHECK_THAT(full.message(), Catch::Contains("free space in " + dir.path().string()));
  const auto full_io = DescribeOpenFailure(path, SQLITE_IOERR_WRITE, "disk I/O error", true);
  CHECK_THAT(full_io.message(), Catch::Contains("is full"));
  const auto io = DescribeOpenFailure(path, SQLITE_IOERR_READ, "disk I/O error", false);
  CHECK_THAT(io.message(), Catch::Contains("the file system reported an I/O error"));
  CHECK_THAT(io.message(), Catch::Contains("check the disk"));
  const auto ro = DescribeOpenFailure(path, SQLITE_READONLY_DIRECTORY, "attempt to write", false);
  CHECK(ro.code() == StatusCode::kReadOnly);
  CHECK_THAT(ro.message(), Catch::Contains("this user cannot write the store"));
  CHECK_THAT(ro.message(), Catch::Contains("--read-only"));
  const auto no_dir = DescribeOpenFailure(dir.File("gone/s.db"), SQLITE_CANTOPEN, "x", false);
  CHECK_THAT(no_dir.message(), Catch::Contains("does not exist"));
  const auto notadb = DescribeOpenFailure(path, SQLITE_NOTADB, "file is not a database", false);
  CHECK_THAT(notadb.message(), Catch::Contains("not an SQLite database"));
}

TEST_CASE("store open: the immutable URI escapes what URIs reserve", "[store][open]") {
  using hwrec::internal::ImmutableUri;
  CHECK(ImmutableUri("/srv/a b/s?1#2%.db") == "file:///srv/a b/s%3F1%232%25.db?immutable=1");
  CHECK(ImmutableUri("rel/s.db") == "file:rel/s.db?immutable=1");
}

TEST_CASE("store open: a PostgreSQL location names its schema through libpq's options",
          "[store][open]") {
  using hwrec::PostgresqlLocationInSchema;
  CHECK(PostgresqlLocationInSchema("postgresql://u@h/db", "runner_a") ==
        "postgresql://u@h/db?options=-csearch_path%3Drunner_a");
  CHECK(PostgresqlLocationInSchema("postgresql://u@h/db?sslmode=disable", "s1") ==
        "postgresql://u@h/db?sslmode=disable&options=-csearch_path%3Ds1");
  // Nothing in a schema name can end the option or add another one.
  CHECK(PostgresqlLocationInSchema("postgresql:///db", "a b&c=d") ==
        "postgresql:///db?options=-csearch_path%3Da%20b%26c%3Dd");
}
