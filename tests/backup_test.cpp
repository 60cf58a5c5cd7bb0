// Backups of a store: complete under their final name or absent, never
// through a planted link, with the store's permission bits, and never in a
// directory that other users can tamper with.
#include "store/backup.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "legacy_fixture.h"
#include "test_support.h"

namespace fs = std::filesystem;
using hwrec::internal::WriteBackup;
using hwrec::test::TempDir;

namespace {

constexpr const char* kStamp = "20261129T160237Z";

std::vector<std::string> Names(const fs::path& directory) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(directory)) {
    names.push_back(entry.path().filename().string());
  }
  return names;
}

mode_t ModeOf(const std::string& path) {
  struct stat st {};
  REQUIRE(stat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

std::string IntegrityOf(const std::string& path) {
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  return db.execAndGet("PRAGMA integrity_check").getString();
}

// A legacy store with a few rows, in its own directory.
struct BackupFixture {
  BackupFixture() : store_dir(dir.path() / "stores"), store(store_dir / "legacy.db") {
    fs::create_directory(store_dir);
    hwrec::test::MakeSeededLegacy(store.string(), 200, 3);
  }
  TempDir dir;
  fs::path store_dir;
  fs::path store;
};

}  // namespace

TEST_CASE("backup: a planted symlink under the backup's name is never followed", "[backup]") {
  BackupFixture f;
  const fs::path elsewhere = f.dir.path() / "elsewhere";
  fs::create_directory(elsewhere);
  const std::string planted = f.store.string() + ".hp-v1-backup-" + kStamp;
  fs::create_symlink(elsewhere / "stolen.db", planted);  // dangling: "exists" says no

  SQLite::Database db(f.store.string(), SQLite::OPEN_READONLY);
  auto backup = WriteBackup(db, f.store.string(), "hp-v1-backup", kStamp);
  INFO(backup.status().ToString());
  REQUIRE(backup.ok());
  CHECK(*backup == planted + "-2");
  CHECK_FALSE(fs::exists(elsewhere / "stolen.db"));
  CHECK(fs::is_symlink(planted));
  CHECK(fs::is_regular_file(fs::symlink_status(*backup)));
  CHECK(IntegrityOf(*backup) == "ok");
  CHECK(hwrec::test::CountRows(*backup, "site_observations") == 200);
}

TEST_CASE("backup: a backup has the store's permissions", "[backup]") {
  BackupFixture f;
  for (const mode_t mode : {mode_t{0600}, mode_t{0640}}) {
    fs::permissions(f.store, static_cast<fs::perms>(mode));
    SQLite::Database db(f.store.string(), SQLite::OPEN_READONLY);
    auto backup = WriteBackup(db, f.store.string(), "hp-v1-backup", kStamp);
    REQUIRE(backup.ok());
    CHECK(ModeOf(*backup) == mode);
  }
}

TEST_CASE("backup: a directory others can write without the sticky bit is refused", "[backup]") {
  BackupFixture f;
  fs::permissions(f.store_dir, static_cast<fs::perms>(0777));
  {
    SQLite::Database db(f.store.string(), SQLite::OPEN_READONLY);
    auto refused = WriteBackup(db, f.store.string(), "hp-v1-backup", kStamp);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.status().code() == hwrec::StatusCode::kInvalidArgument);
    CHECK_THAT(refused.status().message(), Catch::Contains("sticky bit"));
    CHECK(Names(f.store_dir) == std::vector<std::string>{"legacy.db"});
  }
  fs::permissions(f.store_dir, static_cast<fs::perms>(01777));
  SQLite::Database db(f.store.string(), SQLite::OPEN_READONLY);
  CHECK(WriteBackup(db, f.store.string(), "hp-v1-backup", kStamp).ok());
}

TEST_CASE(
    "backup: a failed backup leaves no file, and a killed one's leftover is removed, not one "
    "under way",
    "[backup]") {
  BackupFixture f;
  SQLite::Database db(f.store.string(), SQLite::OPEN_READWRITE);
  {
    SQLite::Transaction open_transaction(db);  // VACUUM INTO cannot run inside one
    auto failed = WriteBackup(db, f.store.string(), "hp-v1-backup", kStamp);
    REQUIRE_FALSE(failed.ok());
    CHECK_THAT(failed.status().message(), Catch::Contains("nothing of it is left"));
    for (const std::string& name : Names(f.store_dir)) {  // the store's -wal and -shm may be there
      CHECK(name.find("hp-v1-backup") == std::string::npos);
    }
  }
  // Past the largest pid Linux allows, so its writer is surely gone; pid 1
  // always runs, so its partial copy is a backup under way and stays.
  const std::string leftover = f.store.string() + ".hp-v1-backup-20260101T000000Z.partial-4194305";
  const std::string under_way = f.store.string() + ".hp-v1-backup-20260101T000000Z.partial-1";
  hwrec::test::WriteFile(leftover, "half a copy");
  hwrec::test::WriteFile(under_way, "a copy being written");
  auto backup = WriteBackup(db, f.store.string(), "hp-v1-backup", kStamp);
  REQUIRE(backup.ok());
  CHECK_FALSE(fs::exists(leftover));
  CHECK(fs::exists(under_way));
  fs::remove(under_way);
  std::vector<std::string> backups;
  for (const std::string& name : Names(f.store_dir)) {
    if (name.find("hp-v1-backup") != std::string::npos) backups.push_back(name);
  }
  CHECK(backups == std::vector<std::string>{"legacy.db.hp-v1-backup-" + std::string(kStamp)});
}

TEST_CASE("backup: hwrec migrate writes its backup with the store's mode", "[backup][cli]") {
  BackupFixture f;
  fs::permissions(f.store, static_cast<fs::perms>(0600));
  const auto migrated = hwrec::test::RunCli("migrate " + hwrec::test::ShellQuote(f.store.string()) +
                                            " --accept-hp-v2 --format json");
  INFO(migrated.err);
  REQUIRE(migrated.exit_code == 0);
  const std::string backup =
      nlohmann::json::parse(migrated.out).at("backup_path").get<std::string>();
  CHECK(ModeOf(backup) == 0600);
  CHECK(IntegrityOf(backup) == "ok");
  CHECK(hwrec::test::CountRows(backup, "site_observations") == 200);
}

TEST_CASE("store: a store left on a rollback journal gets WAL back from any open that can write",
          "[store]") {
  TempDir dir;
  const std::string path = dir.File("store.db");
  { hwrec::test::OpenStoreOrFail(path); }
  {
    SQLite::Database raw(path, SQLite::OPEN_READWRITE);  // what a killed migration leaves
    REQUIRE(raw.execAndGet("PRAGMA journal_mode = DELETE").getString() == "delete");
  }
  SECTION("status restores it") {
    const auto status = hwrec::test::RunCli("status " + hwrec::test::ShellQuote(path));
    REQUIRE(status.exit_code == 0);
    CHECK_THAT(status.out, Catch::Contains("journal mode:   wal\n"));
  }
  SECTION("status says why when it cannot") {
    SQLite::Database holder(path, SQLite::OPEN_READWRITE);
    holder.exec("BEGIN");
    holder.execAndGet("SELECT count(*) FROM observations");  // holds a shared lock
    const auto status = hwrec::test::RunCli("status " + hwrec::test::ShellQuote(path));
    holder.exec("COMMIT");
    REQUIRE(status.exit_code == 0);
    CHECK_THAT(status.out, Catch::Contains("journal mode:   delete (not WAL"));
    CHECK_THAT(status.out, Catch::Contains("restores WAL"));
  }
}
