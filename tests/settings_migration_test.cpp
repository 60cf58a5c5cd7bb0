// Migration 10 merges the router's settings table into config; migration 11
// gives quota blocks a GPU count.
#include <SQLiteCpp/SQLiteCpp.h>

#include <catch2/catch.hpp>

#include "hwrec/config.h"
#include "hwrec/ladder.h"
#include "hwrec/ladder_walk.h"
#include "hwrec/router.h"
#include "hwrec/router_config.h"
#include "hwrec/store.h"
#include "store/database.h"
#include "store/migration.h"
#include "store/migrator.h"
#include "store/pg_connection.h"
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

TEST_CASE("migrations: a quota block recorded at schema 10 blocks its whole quota at schema 11",
          "[migrations][router][engine]") {
  TempDir dir;
  const std::string location = hwrec::test::NewStoreLocation(dir, "ten.db");
  const auto ten = [](hwrec::store::Engine engine) {
    const auto& all = hwrec::internal::EmbeddedMigrations(engine);
    REQUIRE(all.size() >= 11);
    REQUIRE(all[10].version == 11);
    return std::vector<hwrec::internal::Migration>(all.begin(), all.begin() + 10);
  };
  const std::string block =
      "INSERT INTO router_quota_blocks (day, gpu_model, class, reason, blocked_at) "
      "VALUES ('2026-07-08', 'A100 40GB', 'preemptible', 'quota used up', 1783512000)";
  if (hwrec::store::IsPostgresqlUri(location)) {
    auto db = hwrec::store::ConnectPostgresql(location);
    REQUIRE(
        hwrec::internal::Migrator(*db, ten(hwrec::store::Engine::kPostgresql)).ApplyPending().ok());
    db->Execute(block);
  } else {
    SQLite::Database db(location, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    REQUIRE(hwrec::internal::Migrator(db, ten(hwrec::store::Engine::kSqlite)).ApplyPending().ok());
    REQUIRE(db.execAndGet("PRAGMA user_version").getInt() == 10);
    db.exec(block);
  }
  auto store = hwrec::test::OpenStoreOrFail(location);
  REQUIRE(store->schema_version() == 10);
  auto applied = store->Migrate();
  INFO(applied.status().ToString());
  REQUIRE(applied.ok());
  CHECK(store->schema_version() == hwrec::Store::LatestSchemaVersion());

  // The old block knew no GPU count: it blocks every rung of its quota.
  auto day = hwrec::ReadRouterDayState(*store, 1783512000.0);
  REQUIRE(day.ok());
  REQUIRE(day->quota_blocks.size() == 1);
  CHECK(day->quota_blocks[0].gpus == 1);
  CHECK(day->quota_blocks[0].reason == "quota used up");
  auto snapshot = hwrec::RouterSnapshot::Load(*store);
  REQUIRE(snapshot.ok());
  auto plan = hwrec::BuildLadder(*snapshot, {"eval-7b", 1, 1, false});
  REQUIRE(plan.ok());
  hwrec::WalkOptions options;
  options.now = 1783512000.0;
  options.dry_run = true;
  auto walk = hwrec::WalkLadder(
      *store, *plan, [](const hwrec::Rung&) { return hwrec::LaunchResult{}; }, options);
  REQUIRE(walk.ok());
  REQUIRE_FALSE(walk->attempts.empty());
  CHECK(walk->attempts[0].rung.id == "gcp/a2-highgpu-1g/spot");
  CHECK(walk->attempts[0].skipped == hwrec::RungSkip::kQuotaExhausted);
}
