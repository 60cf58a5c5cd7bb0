#include <SQLiteCpp/SQLiteCpp.h>
#include <sqlite3.h>

#include <catch2/catch.hpp>

#include <filesystem>

#include "hwrec/store_location.h"
#include "store/migration.h"
#include "store/migrator.h"
#include "test_support.h"

using hwrec::Store;
using hwrec::StoreOptions;
using hwrec::test::TempDir;

namespace {

// Writes a store that has only the legacy schema-1 migration applied.
void MakeLegacyStore(const std::string& path) {
  SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  db.exec("PRAGMA journal_mode = WAL");
  const std::vector<hwrec::internal::Migration> first = {
      hwrec::internal::EmbeddedMigrations().front()};
  hwrec::internal::Migrator migrator(db, first);
  REQUIRE(migrator.ApplyPending().ok());
}

}  // namespace

TEST_CASE("status: WithMessage keeps the code and replaces the message", "[store]") {
  const hwrec::Status failed = hwrec::Status::NotFound("no store at postgresql://u:secret@h/db");
  const hwrec::Status redacted = failed.WithMessage("no store at postgresql://u:***@h/db");
  CHECK(redacted.code() == hwrec::StatusCode::kNotFound);
  CHECK(redacted.ToString() == "not found: no store at postgresql://u:***@h/db");
  CHECK(hwrec::Status::Ok().WithMessage("anything").ok());
}

TEST_CASE("store: a new store is created at the latest schema", "[store][engine]") {
  TempDir dir;
  auto store = hwrec::test::OpenStoreOrFail(hwrec::test::NewStoreLocation(dir, "new.db"));
  CHECK(store->schema_version() == Store::LatestSchemaVersion());
  CHECK(store->CheckWritable().ok());
  auto migrations = store->Migrations();
  REQUIRE(migrations.ok());
  for (const auto& m : *migrations) CHECK(m.applied);
}

TEST_CASE("store: WAL journaling, foreign keys and NORMAL sync are on after open", "[store]") {
  TempDir dir;
  const std::string path = dir.File("wal.db");
  auto store = hwrec::test::OpenStoreOrFail(path);
  auto status = store->GetStatus();
  REQUIRE(status.ok());
  CHECK(status->journal_mode == "wal");
  CHECK(status->hp_version == "hp:v2");
  SQLite::Database raw(path, SQLite::OPEN_READONLY);
  CHECK(raw.execAndGet("PRAGMA journal_mode").getString() == "wal");
}

TEST_CASE("store: the SQLite handle is the store's own connection; none on PostgreSQL",
          "[store][engine]") {
  TempDir dir;
  const std::string location = hwrec::test::NewStoreLocation(dir, "handle.db");
  auto store = hwrec::test::OpenStoreOrFail(location);
  sqlite3* handle = store->SqliteHandle();
  if (hwrec::IsPostgresqlLocation(location)) {
    CHECK(handle == nullptr);
    return;
  }
  REQUIRE(handle != nullptr);
  // Instrumentation on it sees what hwrec itself runs: a trace of the status.
  std::vector<std::string> traced;
  sqlite3_trace_v2(
      handle, SQLITE_TRACE_STMT,
      [](unsigned, void* out, void* statement, void*) {
        static_cast<std::vector<std::string>*>(out)->push_back(
            sqlite3_sql(static_cast<sqlite3_stmt*>(statement)));
        return 0;
      },
      &traced);
  REQUIRE(store->GetStatus().ok());
  sqlite3_trace_v2(handle, 0, nullptr, nullptr);
  CHECK_FALSE(traced.empty());
  CHECK(sqlite3_db_readonly(handle, "main") == 0);
  CHECK(store->RoundTrips() == 0);  // nothing crosses a network on SQLite
}

TEST_CASE("store: a read-only open refuses writes and a missing file", "[store][engine]") {
  TempDir dir;
  const std::string path = hwrec::test::NewStoreLocation(dir, "ro.db");
  hwrec::test::OpenStoreOrFail(path);
  StoreOptions options;
  options.read_only = true;
  auto store = hwrec::test::OpenStoreOrFail(path, options);
  CHECK(store->read_only());
  const hwrec::Status writable = store->CheckWritable();
  CHECK(writable.code() == hwrec::StatusCode::kReadOnly);
  CHECK(store->Migrate().status().code() == hwrec::StatusCode::kReadOnly);

  auto missing = Store::Open(dir.File("absent.db"), options);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().code() == hwrec::StatusCode::kNotFound);
  CHECK_THAT(missing.status().message(), Catch::Contains("hwrec init"));
}

TEST_CASE("store: a store newer than this build is refused with both versions", "[store]") {
  TempDir dir;
  const std::string path = dir.File("newer.db");
  hwrec::test::OpenStoreOrFail(path);
  {
    SQLite::Database raw(path, SQLite::OPEN_READWRITE);
    raw.exec("PRAGMA user_version = 99");
  }
  auto store = Store::Open(path);
  REQUIRE_FALSE(store.ok());
  CHECK(store.status().code() == hwrec::StatusCode::kSchemaMismatch);
  const std::string& message = store.status().message();
  CHECK_THAT(message, Catch::Contains("schema 99"));
  CHECK_THAT(message, Catch::Contains(std::to_string(Store::LatestSchemaVersion())));
  CHECK_THAT(message, Catch::Contains("upgrade hwrec"));
}

TEST_CASE("store: a store whose applied migration changed is refused", "[store]") {
  TempDir dir;
  const std::string path = dir.File("altered.db");
  hwrec::test::OpenStoreOrFail(path);
  {
    SQLite::Database raw(path, SQLite::OPEN_READWRITE);
    raw.exec("UPDATE schema_migrations SET checksum = 'deadbeef' WHERE version = 2");
  }
  auto store = Store::Open(path);
  REQUIRE_FALSE(store.ok());
  CHECK(store.status().code() == hwrec::StatusCode::kSchemaMismatch);
  CHECK_THAT(store.status().message(), Catch::Contains("0002_hardware_keyed"));
  CHECK_THAT(store.status().message(), Catch::Contains("checksum"));
}

TEST_CASE("store: an older store opens but refuses writes until migrated", "[store]") {
  TempDir dir;
  const std::string path = dir.File("legacy.db");
  MakeLegacyStore(path);
  auto store = hwrec::test::OpenStoreOrFail(path);
  CHECK(store->schema_version() == 1);
  auto status = store->GetStatus();
  REQUIRE(status.ok());
  CHECK(status->hp_version == "hp:v1");
  const hwrec::Status writable = store->CheckWritable();
  CHECK(writable.code() == hwrec::StatusCode::kSchemaMismatch);
  CHECK_THAT(writable.message(), Catch::Contains("hwrec migrate"));

  auto applied = store->Migrate();
  REQUIRE(applied.ok());
  CHECK(applied->front() == 2);
  CHECK(store->schema_version() == Store::LatestSchemaVersion());
  CHECK(store->CheckWritable().ok());
}

TEST_CASE("store: legacy history is never re-keyed as a side effect of migrate", "[store]") {
  TempDir dir;
  const std::string path = dir.File("legacy-rows.db");
  MakeLegacyStore(path);
  {
    SQLite::Database raw(path, SQLite::OPEN_READWRITE);
    raw.exec(
        "INSERT INTO site_observations (execution_id, site_id, action_image, finished_at) "
        "VALUES ('e1', 'site-a', 'img', 1700000000)");
  }
  auto store = hwrec::test::OpenStoreOrFail(path);
  auto applied = store->Migrate();
  REQUIRE_FALSE(applied.ok());
  CHECK(applied.status().code() == hwrec::StatusCode::kSchemaMismatch);
  // Refused without consent, saying what the bump does and how to preview it.
  CHECK_THAT(applied.status().message(), Catch::Contains("hp:v2"));
  CHECK_THAT(applied.status().message(), Catch::Contains("--accept-hp-v2"));
  CHECK_THAT(applied.status().message(), Catch::Contains("--dry-run"));
  CHECK(store->schema_version() == 1);
  CHECK(store->CheckWritable().message() == applied.status().message());
  SQLite::Database raw(path, SQLite::OPEN_READONLY);
  CHECK(raw.execAndGet("SELECT count(*) FROM site_observations").getInt() == 1);
  CHECK_FALSE(raw.tableExists("observations"));
}

TEST_CASE("store: status counts the rows of every table", "[store][engine]") {
  TempDir dir;
  auto store = hwrec::test::OpenStoreOrFail(hwrec::test::NewStoreLocation(dir, "count.db"));
  auto status = store->GetStatus();
  REQUIRE(status.ok());
  bool saw_partitions = false;
  for (const auto& t : status->tables) {
    if (t.table == "gpu_partitions") {
      saw_partitions = true;
      CHECK(t.rows > 40);
    }
  }
  CHECK(saw_partitions);
  CHECK(status->file_size_bytes > 0);
}

namespace {

// A copy of a store caught mid-write on a rollback journal, as a killed
// process leaves it: the file holds half-written pages, the journal the old.
std::string CrashedMidWrite(const TempDir& dir) {
  const std::string path = dir.File("store.db");
  const std::string crashed = dir.File("crashed.db");
  { hwrec::test::OpenStoreOrFail(path); }
  SQLite::Database db(path, SQLite::OPEN_READWRITE);
  db.exec("PRAGMA journal_mode = DELETE");
  db.exec("INSERT INTO workloads (image) VALUES ('kept:1')");
  db.exec("PRAGMA cache_size = 1");  // spill to the file mid-transaction
  db.exec("BEGIN IMMEDIATE");
  db.exec(
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000) "
      "INSERT INTO workloads (image) SELECT 'lost:' || i FROM n");
  db.exec("UPDATE workloads SET image = image || '-changed'");
  std::filesystem::copy_file(path, crashed);
  std::filesystem::copy_file(path + "-journal", crashed + "-journal");
  db.exec("ROLLBACK");
  return crashed;
}

}  // namespace

TEST_CASE("store: a read-only open rolls back a write interrupted on a rollback journal",
          "[store]") {
  TempDir dir;
  const std::string crashed = CrashedMidWrite(dir);
  REQUIRE(std::filesystem::exists(crashed + "-journal"));
  StoreOptions read_only;
  read_only.read_only = true;
  auto store = Store::Open(crashed, read_only);
  INFO(store.status().ToString());
  REQUIRE(store.ok());
  SQLite::Database check(crashed, SQLite::OPEN_READONLY);
  CHECK(check.execAndGet("SELECT group_concat(image) FROM workloads").getString() == "kept:1");
  CHECK_FALSE(std::filesystem::exists(crashed + "-journal"));
}

TEST_CASE(
    "store: --read-only and hwrec check never read a killed writer's half-written pages as the "
    "store",
    "[store][readonly]") {
  TempDir dir;
  const std::string crashed = CrashedMidWrite(dir);
  const std::string bytes = hwrec::test::ReadFile(crashed);
  for (const std::string& command : {"status " + hwrec::test::ShellQuote(crashed) + " --read-only",
                                     "check " + hwrec::test::ShellQuote(crashed)}) {
    const auto r = hwrec::test::RunCli(command);
    INFO(command << "\n" << r.out << r.err);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("interrupted write left"));
    CHECK_THAT(r.err, !Catch::Contains("attempt to write a readonly database"));
  }
  CHECK(hwrec::test::ReadFile(crashed) == bytes);  // neither wrote
  CHECK(std::filesystem::exists(crashed + "-journal"));
  // Without --read-only, status rolls the write back and reads the store.
  const auto repaired = hwrec::test::RunCli("status " + hwrec::test::ShellQuote(crashed));
  CHECK(repaired.exit_code == 0);
  SQLite::Database check(crashed, SQLite::OPEN_READONLY);
  CHECK(check.execAndGet("SELECT group_concat(image) FROM workloads").getString() == "kept:1");
}
