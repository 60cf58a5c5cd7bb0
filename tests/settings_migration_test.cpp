// Migration 10 merges the router's settings table into config.
#include <SQLiteCpp/SQLiteCpp.h>

#include <catch2/catch.hpp>

#include "hwrec/config.h"
#include "hwrec/router_config.h"
#include "hwrec/store.h"
#include "store/migration.h"
#include "store/migrator.h"
#include "test_support.h"

using hwrec::test::TempDir;

TEST_CASE("migrations: a store at schema 9 keeps its router settings in config at schema 10",
          "[migrations][router]") {
  TempDir dir;
  const std::string path = dir.File("nine.db");
  {
    SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    const auto& all = hwrec::internal::EmbeddedMigrations();
    REQUIRE(all.size() >= 10);
    const std::vector<hwrec::internal::Migration> nine(all.begin(), all.begin() + 9);
    REQUIRE(hwrec::internal::Migrator(db, nine).ApplyPending().ok());
    REQUIRE(db.execAndGet("PRAGMA user_version").getInt() == 9);
    db.exec("UPDATE router_settings SET value = '3' WHERE key = 'short_job_max_hours'");
    db.exec("UPDATE router_settings SET value = '7' WHERE key = 'gcp_daily_attempt_cap'");
  }
  auto store = hwrec::test::OpenStoreOrFail(path);
  auto applied = store->Migrate();
  INFO(applied.status().ToString());
  REQUIRE(applied.ok());
  CHECK(store->schema_version() == hwrec::Store::LatestSchemaVersion());

  auto config = hwrec::LoadRouterConfig(*store);
  REQUIRE(config.ok());
  CHECK(config->settings.short_job_max_hours == 3);
  CHECK(config->settings.gcp_daily_attempt_cap == 7);
  CHECK(config->settings.flex_start_max_hours == 168);
  // The estimator's keys are listed as before; the router's stay the router's.
  auto listed = hwrec::ListConfig(*store);
  REQUIRE(listed.ok());
  for (const hwrec::ConfigEntry& entry : *listed) CHECK(entry.key.rfind("router.", 0) != 0);
  store.reset();

  SQLite::Database db(path, SQLite::OPEN_READONLY);
  CHECK_FALSE(db.tableExists("router_settings"));
  CHECK(db.execAndGet("SELECT value FROM config WHERE key = 'router.short_job_max_hours'")
            .getString() == "3");
  CHECK(db.execAndGet("SELECT count(*) FROM config WHERE key LIKE 'router.%'").getInt() == 3);
}
