#include <SQLiteCpp/SQLiteCpp.h>

#include <catch2/catch.hpp>

#include "store/migration.h"
#include "store/migrator.h"

using hwrec::internal::Migration;
using hwrec::internal::Migrator;

namespace {

int CountRows(SQLite::Database& db, const char* table) {
  return db.execAndGet(std::string("SELECT count(*) FROM ") + table).getInt();
}

}  // namespace

TEST_CASE("migrations: each is applied with its record and user_version", "[migrations]") {
  SQLite::Database db(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  const std::vector<Migration> migrations = {
      {1, "first", "CREATE TABLE a (x INTEGER);"},
      {2, "second", "CREATE TABLE b (y INTEGER); INSERT INTO b VALUES (1);"},
  };
  Migrator migrator(db, migrations);
  auto applied = migrator.ApplyPending();
  REQUIRE(applied.ok());
  CHECK(*applied == std::vector<int>{1, 2});
  CHECK(migrator.CurrentVersion() == 2);
  CHECK(CountRows(db, "schema_migrations") == 2);
  const auto list = migrator.List();
  REQUIRE(list.size() == 2);
  CHECK(list[1].name == "second");
  CHECK(list[1].checksum == hwrec::internal::MigrationChecksum(migrations[1]));
  CHECK(migrator.ApplyPending()->empty());  // a second run does nothing
}

TEST_CASE("migrations: a failing migration changes nothing", "[migrations]") {
  SQLite::Database db(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  const std::vector<Migration> good = {{1, "first", "CREATE TABLE a (x INTEGER);"}};
  REQUIRE(Migrator(db, good).ApplyPending().ok());

  const std::vector<Migration> broken = {
      good[0],
      {2, "broken",
       "CREATE TABLE b (y INTEGER); INSERT INTO a VALUES (1); INSERT INTO missing VALUES (1);"},
  };
  Migrator migrator(db, broken);
  auto applied = migrator.ApplyPending();
  REQUIRE_FALSE(applied.ok());
  CHECK_THAT(applied.status().message(), Catch::Contains("0002_broken"));
  CHECK_THAT(applied.status().message(), Catch::Contains("changed nothing"));
  CHECK(migrator.CurrentVersion() == 1);
  CHECK_FALSE(db.tableExists("b"));
  CHECK(CountRows(db, "a") == 0);
  CHECK(CountRows(db, "schema_migrations") == 1);
}

TEST_CASE("migrations: the embedded files are numbered without gaps", "[migrations]") {
  const auto& migrations = hwrec::internal::EmbeddedMigrations();
  REQUIRE(migrations.size() >= 3);
  for (std::size_t i = 0; i < migrations.size(); ++i) {
    CHECK(migrations[i].version == static_cast<int>(i + 1));
  }
  CHECK(std::string(migrations[0].name) == "legacy_site_keyed");
}

TEST_CASE("migrations: a first migration that fails leaves no bookkeeping behind", "[migrations]") {
  SQLite::Database db(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  db.exec("CREATE TABLE taken (x INTEGER)");
  const std::vector<Migration> colliding = {{1, "first", "CREATE TABLE taken (y INTEGER);"}};
  Migrator migrator(db, colliding);
  auto applied = migrator.ApplyPending();
  REQUIRE_FALSE(applied.ok());
  CHECK_THAT(applied.status().message(), Catch::Contains("failed and changed nothing"));
  CHECK_FALSE(db.tableExists("schema_migrations"));
  CHECK(migrator.CurrentVersion() == 0);
}
