#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "hwrec/store.h"
#include "store/database.h"
#include "test_support.h"

TEST_CASE("schema: a fresh store equals schema/schema.sql", "[schema]") {
  hwrec::test::TempDir dir;
  auto store = hwrec::test::OpenStoreOrFail(dir.File("fresh.db"));
  auto dumped = store->DumpSchema();
  REQUIRE(dumped.ok());
  const std::string committed = hwrec::test::ReadFile(hwrec::test::SourcePath("schema/schema.sql"));
  INFO("regenerate with: cmake --build <build dir> --target schema");
  CHECK(*dumped == committed);
}

namespace {

// A store's tables and views, each with its column names in order, and its
// applied migrations as "version name": what both engines must agree on.
struct SchemaShape {
  std::map<std::string, std::vector<std::string>> columns;
  std::vector<std::string> migrations;
};

SchemaShape ShapeOf(hwrec::Store& store) {
  hwrec::store::Connection& db = hwrec::store::ConnectionOf(store);
  const bool sqlite = db.engine() == hwrec::store::Engine::kSqlite;
  auto names =
      db.Prepare(sqlite ? "SELECT name FROM sqlite_master WHERE (type = 'table' OR type = 'view') "
                          "AND name NOT LIKE 'sqlite_%'"
                        : "SELECT table_name FROM information_schema.tables "
                          "WHERE table_schema = current_schema()");
  SchemaShape shape;
  while (names->Step()) shape.columns[names->String(0)];
  for (auto& [name, columns] : shape.columns) {
    // Identifiers cannot be bound; the names come from the engine's catalog.
    auto select = db.Prepare("SELECT * FROM \"" + name + "\" LIMIT 0");
    select->Step();
    for (int c = 0; c < select->ColumnCount(); ++c) columns.push_back(select->ColumnName(c));
  }
  auto applied = db.Prepare("SELECT version, name FROM schema_migrations ORDER BY version");
  while (applied->Step()) {
    shape.migrations.push_back(std::to_string(applied->Int64(0)) + " " + applied->String(1));
  }
  return shape;
}

}  // namespace

TEST_CASE("schema: a fresh PostgreSQL store equals schema/schema.postgresql.sql",
          "[engine][schema]") {
  if (!hwrec::test::TestingPostgresql()) {
    SUCCEED("PostgreSQL only: schema/schema.sql is checked above");
    return;
  }
  hwrec::test::TempDir dir;
  auto store = hwrec::test::OpenStoreOrFail(hwrec::test::NewStoreLocation(dir, "fresh"));
  auto dumped = store->DumpSchema();
  REQUIRE(dumped.ok());
  const std::string committed =
      hwrec::test::ReadFile(hwrec::test::SourcePath("schema/schema.postgresql.sql"));
  INFO("regenerate with: cmake --build <build dir> --target schema");
  CHECK(*dumped == committed);
}

TEST_CASE("schema: both engines make the same tables, views, columns and migrations",
          "[engine][schema]") {
  if (!hwrec::test::TestingPostgresql()) {
    SUCCEED("needs PostgreSQL beside SQLite");
    return;
  }
  hwrec::test::TempDir dir;
  auto sqlite = hwrec::test::OpenStoreOrFail(dir.File("parity.db"));
  auto postgresql = hwrec::test::OpenStoreOrFail(hwrec::test::NewStoreLocation(dir, "parity"));
  const SchemaShape on_sqlite = ShapeOf(*sqlite);
  const SchemaShape on_postgresql = ShapeOf(*postgresql);
  CHECK(on_sqlite.columns.count("v_recommendations") == 1);
  CHECK(on_sqlite.columns.count("schema_migrations") == 1);
  CHECK(on_sqlite.columns == on_postgresql.columns);
  CHECK(on_sqlite.migrations.size() ==
        static_cast<std::size_t>(hwrec::Store::LatestSchemaVersion()));
  CHECK(on_sqlite.migrations == on_postgresql.migrations);
}
