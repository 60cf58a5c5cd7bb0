#include <SQLiteCpp/SQLiteCpp.h>

#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "aggregate/aggregator.h"
#include "aggregate/settings.h"
#include "hwrec/check.h"
#include "hwrec/ingest.h"
#include "hwrec/legacy_migration.h"
#include "hwrec/legacy_quarantine.h"
#include "hwrec/recommend.h"
#include "hwrec/store_copy.h"
#include "legacy_fixture.h"
#include "store/sqlite_connection.h"
#include "test_support.h"

using hwrec::LegacyMigrationOptions;
using hwrec::MigrateStore;
using hwrec::Store;
using hwrec::test::AddLegacyPool;
using hwrec::test::AddLegacyRow;
using hwrec::test::CountRows;
using hwrec::test::LegacyPoolSpec;
using hwrec::test::LegacyRowSpec;
using hwrec::test::MakeLegacy;
using hwrec::test::ReadFile;
using hwrec::test::RunCli;
using hwrec::test::ShellQuote;
using hwrec::test::TempDir;

namespace {

// Resolves the rows `filter` selects with a GPU model (and brand).
hwrec::Result<hwrec::QuarantineResolveSummary> Resolve(hwrec::Store& store,
                                                       const hwrec::QuarantineFilter& filter,
                                                       const std::string& gpu_model,
                                                       std::optional<std::string> gpu_brand) {
  hwrec::QuarantineResolveOptions options;
  options.filter = filter;
  options.gpu_model = gpu_model;
  options.gpu_brand = std::move(gpu_brand);
  return hwrec::ResolveQuarantine(store, options);
}

LegacyMigrationOptions Consent() {
  LegacyMigrationOptions options;
  options.accept_hp_v2 = true;
  options.backup = false;
  return options;
}

hwrec::LegacyMigrationReport MigrateOrFail(const std::string& path,
                                           const LegacyMigrationOptions& options = Consent()) {
  auto store = hwrec::test::OpenStoreOrFail(path);
  auto report = MigrateStore(*store, options);
  INFO(report.status().ToString());
  REQUIRE(report.ok());
  return std::move(report).value();
}

// The reason code of the quarantined row with this execution id, or "" when
// the row is not in quarantine.
std::string ReasonOf(const std::string& path, const std::string& execution_id) {
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  SQLite::Statement q(db, "SELECT reason_code FROM legacy_quarantine WHERE execution_id = ?");
  q.bind(1, execution_id);
  return q.executeStep() ? q.getColumn(0).getString() : std::string();
}

// One legacy store with one pool per route and one row per quarantine reason.
void WriteEveryReason(const std::string& path) {
  MakeLegacy(path);
  AddLegacyPool(path, {"pool-a100", "site-a", "dgx-node", "full", 1, "A100 80GB"});
  AddLegacyPool(path, {"pool-nomodel", "site-a", "lab-node", "full", 1, std::nullopt});
  AddLegacyPool(path, {"pool-dcgm", "site-b", "lab-node", "full", 1, "NVIDIA A100-SXM4-80GB"});
  AddLegacyPool(path, {"pool-a30", "site-b", "r750xa", "mig-3g.40gb", 1, "A30"});
  AddLegacyPool(path, {"pool-cpu", "site-b", "c3-standard-22", std::nullopt, 0, std::nullopt});
  LegacyRowSpec ok = hwrec::test::Row("ok-pool");
  ok.node_pool_id = "pool-a100";
  AddLegacyRow(path, ok);
  LegacyRowSpec row_gpu = hwrec::test::Row("ok-row-gpu");
  row_gpu.node_pool_gpu = "H100 80GB";
  AddLegacyRow(path, row_gpu);
  LegacyRowSpec cpu = hwrec::test::CpuOnlyRow("ok-cpu");
  cpu.node_pool_id = "pool-cpu";
  AddLegacyRow(path, cpu);
  LegacyRowSpec neither = hwrec::test::Row("q-neither");
  AddLegacyRow(path, neither);
  LegacyRowSpec unknown_name = hwrec::test::Row("q-row-name");
  unknown_name.node_pool_gpu = "Tesla A100-PCIE";
  AddLegacyRow(path, unknown_name);
  LegacyRowSpec pool_name = hwrec::test::Row("q-pool-name");
  pool_name.node_pool_id = "pool-dcgm";
  AddLegacyRow(path, pool_name);
  LegacyRowSpec no_model = hwrec::test::Row("q-no-model");
  no_model.node_pool_id = "pool-nomodel";
  AddLegacyRow(path, no_model);
  LegacyRowSpec conflict = hwrec::test::Row("q-conflict");
  conflict.node_pool_id = "pool-a100";
  conflict.node_pool_gpu = "H100 80GB";
  AddLegacyRow(path, conflict);
  LegacyRowSpec mode = hwrec::test::Row("q-mode");
  mode.node_pool_id = "pool-a30";
  mode.gpu_mode = std::nullopt;  // filled from the pool: mig-3g.40gb, not an A30 partition
  AddLegacyRow(path, mode);
  LegacyRowSpec invalid = hwrec::test::Row("q-invalid");
  invalid.node_pool_id = "pool-a100";
  invalid.status = "exploded";
  AddLegacyRow(path, invalid);
}

// Bytes in the store's write-ahead log: 0 when nothing is waiting to be written.
std::uintmax_t WalFrames(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path + "-wal", ec);
  return ec ? 0 : size;
}

// Every aggregate of the store, by key.
std::map<std::string, hwrec::internal::KeyAggregate> ReadAggregates(SQLite::Database& db) {
  std::map<std::string, hwrec::internal::KeyAggregate> out;
  SQLite::Statement q(db,
                      "SELECT workload_id || '/' || scope || '/' || gpu_brand || '/' || gpu_model "
                      "|| '/' || instance_type, samples, last_finished_at, state FROM aggregates");
  while (q.executeStep()) {
    hwrec::internal::KeyAggregate aggregate;
    const SQLite::Column state = q.getColumn(3);
    REQUIRE(aggregate.Deserialize(std::string(static_cast<const char*>(state.getBlob()),
                                              static_cast<std::size_t>(state.getBytes()))));
    aggregate.samples = q.getColumn(1).getInt64();
    aggregate.last_finished_at = q.getColumn(2).getDouble();
    out.emplace(q.getColumn(0).getString(), std::move(aggregate));
  }
  return out;
}

// The aggregates a migration left equal those rebuilt from its observations.
void CheckAggregatesMatchRebuild(const std::string& path) {
  SQLite::Database db(path, SQLite::OPEN_READWRITE);
  const auto moved = ReadAggregates(db);
  {
    SQLite::Transaction tx(db);
    const auto connection = hwrec::store::MakeSqliteConnection(db.getHandle());
    hwrec::internal::RebuildAggregates(*connection, hwrec::internal::LoadSettings(*connection));
    const auto rebuilt = ReadAggregates(db);
    REQUIRE(moved.size() == rebuilt.size());
    REQUIRE_FALSE(moved.empty());
    for (const auto& [key, aggregate] : rebuilt) {
      INFO(key);
      REQUIRE(moved.count(key) == 1);
      const hwrec::internal::KeyAggregate& m = moved.at(key);
      CHECK(m.samples == aggregate.samples);
      CHECK(m.last_finished_at == aggregate.last_finished_at);
      for (std::size_t i = 0; i < aggregate.metrics.size(); ++i) {
        const auto& a = aggregate.metrics[i];
        const auto& b = m.metrics[i];
        CHECK(b.count() == a.count());
        CHECK(b.MaxEver() == a.MaxEver());
        CHECK(b.MaxOfRecent(10) == a.MaxOfRecent(10));
        if (a.empty()) continue;
        // The execution that set the max is named as a rebuild names it.
        CHECK(b.MaxOfRecentEntry(10)->observation_id > 0);
        CHECK(b.MaxOfRecentEntry(10)->observation_id == a.MaxOfRecentEntry(10)->observation_id);
        CHECK(*b.Percentile(0.95) == Approx(*a.Percentile(0.95)).epsilon(1e-9));
        CHECK(*b.DecayedAverage() == Approx(*a.DecayedAverage()).epsilon(1e-9));
      }
    }
  }  // rolled back: the store keeps what the migration wrote
}

// Adds the rows of another legacy store to `path`'s site_observations, their
// execution ids prefixed so that they are new.
void CopyLegacyRows(const std::string& from, const std::string& path, const std::string& prefix) {
  SQLite::Database db(path, SQLite::OPEN_READWRITE);
  SQLite::Statement attach(db, "ATTACH ? AS other");
  attach.bind(1, from);
  attach.exec();
  SQLite::Statement copy(
      db,
      "INSERT INTO site_observations (execution_id, site_id, action_image, node_pool_id, "
      "finished_at, status, duration_s, hardware_profile_id, instance_type, architecture, "
      "cpu_millicores, memory_bytes, gpu_count, gpu_mode, gpu_total, node_pool_gpu, "
      "gpu_compute_fraction, gpu_utilization, gpu_memory_peak_gb, cpu_millicores_avg, "
      "cpu_millicores_p95, cpu_millicores_max, memory_peak_bytes, requested_cpu_millicores, "
      "requested_memory_bytes, requested_gpu_memory_gb, requested_gpu_compute_fraction) "
      "SELECT ? || execution_id, site_id, action_image, node_pool_id, finished_at, status, "
      "duration_s, hardware_profile_id, instance_type, architecture, cpu_millicores, "
      "memory_bytes, gpu_count, gpu_mode, gpu_total, node_pool_gpu, gpu_compute_fraction, "
      "gpu_utilization, gpu_memory_peak_gb, cpu_millicores_avg, cpu_millicores_p95, "
      "cpu_millicores_max, memory_peak_bytes, requested_cpu_millicores, requested_memory_bytes, "
      "requested_gpu_memory_gb, requested_gpu_compute_fraction FROM other.site_observations");
  copy.bind(1, prefix);
  copy.exec();
  db.exec("INSERT OR IGNORE INTO site_node_pools SELECT * FROM other.site_node_pools");
  db.exec("DETACH other");
}

// A legacy store at `name` in `dir` with one A100 pool, dc-a100.
std::string LegacyWithA100Pool(const TempDir& dir, const std::string& name) {
  const std::string path = dir.File(name);
  MakeLegacy(path);
  AddLegacyPool(path, {"dc-a100", "site-a", "dgx-node", "full", 1, "A100 80GB"});
  return path;
}

}  // namespace

TEST_CASE(
    "legacy migration: without consent nothing changes and the message says what the bump does",
    "[legacy]") {
  TempDir dir;
  const std::string path = dir.File("legacy.db");
  WriteEveryReason(path);
  const std::string before = ReadFile(path);
  {
    auto store = hwrec::test::OpenStoreOrFail(path);
    auto refused = store->Migrate();
    REQUIRE_FALSE(refused.ok());
    const std::string& message = refused.status().message();
    CHECK(refused.status().code() == hwrec::StatusCode::kSchemaMismatch);
    CHECK_THAT(message, Catch::Contains("re-keys that history by hardware"));
    CHECK_THAT(message, Catch::Contains("old hp:v1 id kept beside the new hp:v2 id"));
    CHECK_THAT(message, Catch::Contains("quarantined with a reason"));
    CHECK_THAT(message, Catch::Contains("--dry-run"));
    CHECK_THAT(message, Catch::Contains("--accept-hp-v2"));
    CHECK(store->schema_version() == 1);

    // The library opens the store but refuses writes with the same guidance.
    const hwrec::Status writable = store->CheckWritable();
    CHECK(writable.code() == hwrec::StatusCode::kSchemaMismatch);
    CHECK(writable.message() == message);
    const auto ingestor_owner = hwrec::Ingestor::Open(*store).value();
    hwrec::Ingestor& ingestor = *ingestor_owner;
    auto ingest = ingestor.Ingest({});
    REQUIRE_FALSE(ingest.ok());
    CHECK_THAT(ingest.status().message(), Catch::Contains("--accept-hp-v2"));
  }
  const auto cli = RunCli("migrate " + ShellQuote(path));
  CHECK(cli.exit_code == 1);
  CHECK_THAT(cli.err, Catch::Contains("--accept-hp-v2"));
  CHECK_THAT(cli.err, Catch::Contains("--dry-run"));
  CHECK(ReadFile(path) == before);
  CHECK(CountRows(path, "site_observations") == 10);
  CHECK(WalFrames(path) == 0);
}

TEST_CASE("legacy migration: an empty legacy store migrates without consent", "[legacy]") {
  TempDir dir;
  const std::string path = dir.File("empty.db");
  MakeLegacy(path);
  const auto cli = RunCli("migrate " + ShellQuote(path));
  INFO(cli.err);
  CHECK(cli.exit_code == 0);
  auto store = hwrec::test::OpenStoreOrFail(path);
  CHECK(store->schema_version() == Store::LatestSchemaVersion());
  CHECK(store->CheckWritable().ok());
}

TEST_CASE("legacy migration: a dry run prints the plan and leaves the file byte-identical",
          "[legacy]") {
  TempDir dir;
  const std::string path = dir.File("fixture.db");
  hwrec::test::MakeSeededLegacy(path, 3000, 11);
  const std::string before = ReadFile(path);
  const auto table = RunCli("migrate " + ShellQuote(path) + " --dry-run");
  INFO(table.err);
  REQUIRE(table.exit_code == 0);
  CHECK_THAT(table.out, Catch::Contains("dry run: nothing changed"));
  CHECK_THAT(table.out, Catch::Contains("via_pool"));
  CHECK_THAT(table.out, Catch::Contains("via_row_gpu"));
  CHECK_THAT(table.out, Catch::Contains("usc-h100-80gb"));
  CHECK_THAT(table.out, Catch::Contains("pool_without_gpu_model"));
  CHECK_THAT(table.out, Catch::Contains("gpu_name_not_in_catalog"));
  const auto json = RunCli("migrate " + ShellQuote(path) + " --dry-run --format json");
  REQUIRE(json.exit_code == 0);
  CHECK_THAT(json.out, Catch::Contains("\"legacy_rows\": 3000"));
  CHECK(ReadFile(path) == before);
  CHECK(WalFrames(path) == 0);

  // The plan is what the migration then does.
  auto plan_store = hwrec::test::OpenStoreOrFail(path, {true, false, 5000});
  auto plan = hwrec::PlanLegacyMigration(*plan_store);
  REQUIRE(plan.ok());
  plan_store.reset();
  const auto report = MigrateOrFail(path);
  CHECK(report.migrated == plan->migrated);
  CHECK(report.quarantined == plan->quarantined);
  std::int64_t grouped = 0;
  for (const auto& group : plan->groups) grouped += group.rows;
  CHECK(grouped == 3000);
}

TEST_CASE("legacy migration: a dry run leaves a store kept in a rollback journal byte-identical",
          "[legacy]") {
  TempDir dir;
  const std::string path = dir.File("fixture.db");
  hwrec::test::MakeSeededLegacy(path, 200, 12);
  {  // as a store a killed migration left, mid-switch, in a rollback journal
    SQLite::Database db(path, SQLite::OPEN_READWRITE);
    REQUIRE(db.execAndGet("PRAGMA journal_mode = DELETE").getString() == "delete");
  }
  const std::string before = ReadFile(path);
  const auto dry = RunCli("migrate " + ShellQuote(path) + " --dry-run");
  INFO(dry.out + dry.err);
  REQUIRE(dry.exit_code == 0);
  const bool unchanged = ReadFile(path) == before;  // bytes: not printed
  CHECK(unchanged);
  CHECK_FALSE(std::filesystem::exists(path + "-wal"));
}

TEST_CASE("legacy migration: migrated plus quarantined rows equal the legacy rows", "[legacy]") {
  TempDir dir;
  const std::string path = dir.File("fixture.db");
  hwrec::test::MakeSeededLegacy(path, 2500, 3);
  const auto report = MigrateOrFail(path);
  CHECK(report.legacy_rows == 2500);
  CHECK(report.migrated + report.quarantined == 2500);
  CHECK(report.migrated > 2000);
  CHECK(report.quarantined > 0);
  CHECK(report.to_version == Store::LatestSchemaVersion());
  CHECK(CountRows(path, "observations") == report.migrated);
  CHECK(CountRows(path, "legacy_quarantine") == report.quarantined);
  CHECK(CountRows(path, "site_observations") == 0);
  CHECK(CountRows(path, "aggregates") > 0);
  CHECK(CountRows(path, "recommendations") == report.recommendations);
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  CHECK(db.execAndGet("SELECT migrated + quarantined = legacy_rows FROM legacy_migrations")
            .getInt() == 1);
  CHECK(db.execAndGet("PRAGMA integrity_check").getString() == "ok");
}

TEST_CASE("legacy migration: each unresolvable row is quarantined with its reason and fields",
          "[legacy]") {
  TempDir dir;
  const std::string path = dir.File("reasons.db");
  WriteEveryReason(path);
  const auto report = MigrateOrFail(path);
  CHECK(report.migrated == 3);
  CHECK(report.quarantined == 7);
  CHECK(ReasonOf(path, "ok-pool").empty());
  CHECK(ReasonOf(path, "ok-row-gpu").empty());
  CHECK(ReasonOf(path, "ok-cpu").empty());
  CHECK(ReasonOf(path, "q-neither") == "no_pool_no_gpu_name");
  CHECK(ReasonOf(path, "q-row-name") == "gpu_name_not_in_catalog");
  CHECK(ReasonOf(path, "q-pool-name") == "gpu_name_not_in_catalog");
  CHECK(ReasonOf(path, "q-no-model") == "pool_without_gpu_model");
  CHECK(ReasonOf(path, "q-conflict") == "pool_gpu_conflict");
  CHECK(ReasonOf(path, "q-mode") == "mode_not_a_partition");
  CHECK(ReasonOf(path, "q-invalid") == "invalid_field");

  auto store = hwrec::test::OpenStoreOrFail(path);
  hwrec::QuarantineFilter filter;
  filter.reason_code = "gpu_name_not_in_catalog";
  auto rows = hwrec::ListQuarantine(*store, filter);
  REQUIRE(rows.ok());
  REQUIRE(rows->size() == 2);
  CHECK_THAT(rows->at(0).reason, Catch::Contains("'Tesla A100-PCIE' is not in the GPU catalog"));
  CHECK_THAT(rows->at(1).reason, Catch::Contains("NVIDIA A100-SXM4-80GB"));
  // Every original field is kept beside the reason.
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  SQLite::Statement q(db,
                      "SELECT site_id, action_image, duration_s, cpu_millicores_p95, "
                      "memory_peak_bytes, gpu_total, status FROM legacy_quarantine "
                      "WHERE execution_id = 'q-invalid'");
  REQUIRE(q.executeStep());
  CHECK(q.getColumn(0).getString() == "site-a");
  CHECK(q.getColumn(1).getString() == "registry/train:1");
  CHECK(q.getColumn(2).getDouble() == 42.5);
  CHECK(q.getColumn(3).getDouble() == 1500);
  CHECK(q.getColumn(4).getInt64() == 4294967296LL);
  CHECK(q.getColumn(5).getInt() == 8);
  CHECK(q.getColumn(6).getString() == "exploded");
}

TEST_CASE("legacy migration: a row already stored as an observation is quarantined, not lost",
          "[legacy]") {
  TempDir dir;
  const std::string path = dir.File("again.db");
  WriteEveryReason(path);
  MigrateOrFail(path);
  LegacyRowSpec late =
      hwrec::test::Row("ok-pool");  // the same execution, written late by an old Runner
  late.node_pool_id = "pool-a100";
  AddLegacyRow(path, late);
  const auto report = MigrateOrFail(path);
  CHECK(report.legacy_rows == 1);
  CHECK(report.quarantined == 1);
  CHECK(ReasonOf(path, "ok-pool") == "execution_already_stored");
  CHECK(CountRows(path, "legacy_quarantine") == 8);
}

// Rows of `table` whose text and blob columns were stored with another type.
std::int64_t MistypedRows(const std::string& path, const std::string& table) {
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  const std::string sql =
      table == "observations"
          ? "SELECT count(*) FROM observations WHERE typeof(execution_id) != 'text' OR "
            "typeof(status) != 'text' OR typeof(hp_v2) != 'text' OR typeof(fraction_source) != "
            "'text' OR typeof(content_hash) != 'blob'"
          : "SELECT count(*) FROM legacy_quarantine WHERE typeof(execution_id) != 'text' OR "
            "typeof(site_id) != 'text' OR typeof(status) != 'text' OR typeof(reason) != 'text'";
  return db.execAndGet(sql).getInt64();
}

std::int64_t QuarantinedAs(const std::string& path, const std::string& execution_id,
                           const std::string& code) {
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  SQLite::Statement q(db,
                      "SELECT count(*) FROM legacy_quarantine WHERE execution_id = ? AND "
                      "reason_code = ?");
  q.bind(1, execution_id);
  q.bind(2, code);
  q.executeStep();
  return q.getColumn(0).getInt64();
}

TEST_CASE("legacy migration: rows of executions already stored are quarantined amid new ones",
          "[legacy]") {
  TempDir dir;
  const std::string path = dir.File("again.db");

  SECTION("in one batch, after a row that makes the image known") {
    MakeLegacy(path);
    AddLegacyPool(path, {"pool-a100", "site-a", "dgx-node", "full", 1, "A100 80GB"});
    auto pooled = [](const std::string& id) {
      LegacyRowSpec row = hwrec::test::Row(id);
      row.node_pool_id = "pool-a100";
      return row;
    };
    AddLegacyRow(path, pooled("stored-first"));
    MigrateOrFail(path);
    CheckAggregatesMatchRebuild(path);
    for (const char* id : {"new-1", "stored-first", "new-2"}) AddLegacyRow(path, pooled(id));
    const auto report = MigrateOrFail(path);
    CHECK(report.legacy_rows == 3);
    CHECK(report.migrated == 2);
    CHECK(report.quarantined == 1);
    CHECK(QuarantinedAs(path, "stored-first", "execution_already_stored") == 1);
    CHECK(CountRows(path, "observations") == 3);
    CHECK(MistypedRows(path, "observations") == 0);
    CHECK(MistypedRows(path, "legacy_quarantine") == 0);
    CheckAggregatesMatchRebuild(path);
  }
  SECTION("over several batches") {
    // The same 3,000 legacy rows twice: migrated once, then found again after
    // 5,000 new rows, so they meet known images across batches.
    const std::string first = dir.File("first.db");
    const std::string copy = dir.File("first-copy.db");
    const std::string later = dir.File("later.db");
    hwrec::test::MakeSeededLegacy(first, 3000, 7);
    std::filesystem::copy_file(first, copy);
    hwrec::test::MakeSeededLegacy(later, 5000, 8);
    const auto initial = MigrateOrFail(first);
    CopyLegacyRows(later, first, "later-");
    CopyLegacyRows(copy, first, "");
    const auto report = MigrateOrFail(first);
    CHECK(report.legacy_rows == 8000);
    CHECK(report.migrated + report.quarantined == 8000);
    SQLite::Database db(first, SQLite::OPEN_READONLY);
    // Each of the 3,000 rows is now either one observation and one row
    // quarantined as already stored, or two quarantined rows with the same reason.
    CHECK(db.execAndGet("SELECT count(*) FROM legacy_quarantine WHERE reason_code = "
                        "'execution_already_stored'")
              .getInt64() == initial.migrated);
    CHECK(db.execAndGet("SELECT count(*) FROM legacy_quarantine q JOIN observations o USING "
                        "(execution_id) WHERE q.reason_code != 'execution_already_stored'")
              .getInt64() == 0);
    CHECK(db.execAndGet("SELECT count(*) FROM (SELECT execution_id FROM legacy_quarantine "
                        "WHERE execution_id NOT LIKE 'later-%' GROUP BY execution_id HAVING "
                        "count(*) = 2 AND count(DISTINCT reason_code) = 1)")
              .getInt64() == initial.quarantined);
    CHECK(CountRows(first, "observations") == initial.migrated + report.migrated);
    CHECK(MistypedRows(first, "observations") == 0);
    CHECK(MistypedRows(first, "legacy_quarantine") == 0);
    CheckAggregatesMatchRebuild(first);
  }
}

TEST_CASE("legacy migration: two pools colliding on hp:v1 with different cards become two keys",
          "[legacy]") {
  TempDir dir;
  const std::string path = dir.File("collision.db");
  MakeLegacy(path);
  AddLegacyPool(path, {"dc-a100", "site-a", "dgx-node", "full", 1, "A100 80GB"});
  AddLegacyPool(path, {"dc-h100", "site-b", "dgx-node", "full", 1, "H100 80GB"});
  for (int i = 0; i < 6; ++i) {
    LegacyRowSpec a = hwrec::test::Row("a-" + std::to_string(i));
    a.node_pool_id = "dc-a100";
    a.gpu_memory_peak_gb = 30;
    a.finished_at += i;
    AddLegacyRow(path, a);
    LegacyRowSpec h = hwrec::test::Row("h-" + std::to_string(i));
    h.node_pool_id = "dc-h100";
    h.site_id = "site-b";
    h.gpu_memory_peak_gb = 60;
    h.finished_at += i;
    AddLegacyRow(path, h);
  }
  MigrateOrFail(path);
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  CHECK(db.execAndGet("SELECT count(DISTINCT hp_v1) FROM observations").getInt() == 1);
  CHECK(db.execAndGet("SELECT count(DISTINCT hp_v2) FROM observations").getInt() == 2);
  CHECK(db.execAndGet("SELECT count(*) FROM observations WHERE hp_v2 LIKE 'hp:v2:%'").getInt() ==
        12);
  CHECK(db.execAndGet("SELECT count(*) FROM aggregates WHERE scope = 'exact'").getInt() == 2);

  auto store = hwrec::test::OpenStoreOrFail(path);
  const auto opened = hwrec::RecommendationQuery::Open(*store).value();
  hwrec::RecommendationQuery& query = *opened;
  for (const auto& [model, peak] : {std::pair<std::string, double>{"A100 80GB", 30},
                                    std::pair<std::string, double>{"H100 80GB", 60}}) {
    hwrec::HardwareKey key;
    key.gpu_brand = "NVIDIA";
    key.gpu_model = model;
    key.instance_type = "dgx-node";
    auto r = query.Recommend("registry/train:1", key);
    REQUIRE(r.ok());
    const hwrec::Figure& memory = r->figure(hwrec::FigureKind::kGpuMemoryGb);
    CHECK(memory.provenance == hwrec::Provenance::kExact);
    CHECK(memory.samples == 6);
    REQUIRE(memory.value);
    CHECK(*memory.value == Approx(peak * 1.1).epsilon(0.06));
  }
}

TEST_CASE("legacy migration: the row's hp:v1 id is kept beside its new hp:v2 id", "[legacy]") {
  TempDir dir;
  const std::string path = LegacyWithA100Pool(dir, "ids.db");
  LegacyRowSpec row = hwrec::test::Row("with-id");
  row.node_pool_id = "dc-a100";
  row.hardware_profile_id = "hp:v1:0123456789abcdef";
  AddLegacyRow(path, row);
  MigrateOrFail(path);
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  SQLite::Statement q(db,
                      "SELECT sent_profile_id, hp_v1, hp_v2, gpu_model, profile_id_mismatch "
                      "FROM observations");
  REQUIRE(q.executeStep());
  CHECK(q.getColumn(0).getString() == "hp:v1:0123456789abcdef");
  CHECK_THAT(q.getColumn(1).getString(), Catch::StartsWith("hp:v1:"));
  CHECK_THAT(q.getColumn(2).getString(), Catch::StartsWith("hp:v2:"));
  CHECK(q.getColumn(3).getString() == "A100 80GB");
  CHECK(q.getColumn(4).getInt() == 1);  // the sent id differs from the recomputed one
}

TEST_CASE("legacy migration: a row whose duration_s is beyond a year moves, without it",
          "[legacy]") {
  TempDir dir;
  const std::string path = LegacyWithA100Pool(dir, "long.db");
  for (const char* id : {"long", "plain"}) {
    LegacyRowSpec row = hwrec::test::Row(id);
    row.node_pool_id = "dc-a100";
    AddLegacyRow(path, row);
  }
  {
    SQLite::Database db(path, SQLite::OPEN_READWRITE);
    db.exec("UPDATE site_observations SET duration_s = 40000000 WHERE execution_id = 'long'");
    db.exec("UPDATE site_observations SET duration_s = 60 WHERE execution_id = 'plain'");
  }
  const auto report = MigrateOrFail(path);
  CHECK(report.migrated == 2);
  CHECK(report.quarantined == 0);
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  CHECK(db.execAndGet("SELECT count(*) FROM observations WHERE execution_id = 'long' AND "
                      "duration_s IS NULL AND gpu_memory_peak_gb = 10")
            .getInt() == 1);
  CHECK(db.execAndGet("SELECT duration_s FROM observations WHERE execution_id = 'plain'")
            .getDouble() == 60);
}

TEST_CASE(
    "legacy migration: a row ingest would refuse (a future finish, a peak above its "
    "card) is quarantined naming the field, and the store checks sound",
    "[legacy]") {
  TempDir dir;
  const std::string path = LegacyWithA100Pool(dir, "bounds.db");
  for (const char* id : {"future", "too-big", "plain"}) {
    LegacyRowSpec row = hwrec::test::Row(id);
    row.node_pool_id = "dc-a100";
    if (std::string(id) == "future") row.finished_at = 1788220800.0 * 1000;  // milliseconds
    if (std::string(id) == "too-big") row.gpu_memory_peak_gb = 500;          // the card has 80 GB
    AddLegacyRow(path, row);
  }
  {
    // The dry run's plan says the same as the move.
    auto plan_store = hwrec::test::OpenStoreOrFail(path);
    auto plan = hwrec::PlanLegacyMigration(*plan_store);
    REQUIRE(plan.ok());
    CHECK(plan->migrated == 1);
    CHECK(plan->quarantined == 2);
    CHECK(plan->reason_text.count("invalid_field") == 1);
  }
  const auto report = MigrateOrFail(path);
  CHECK(report.migrated == 1);
  CHECK(report.quarantined == 2);
  CHECK(ReasonOf(path, "plain").empty());
  CHECK(ReasonOf(path, "future") == "invalid_field");
  CHECK(ReasonOf(path, "too-big") == "invalid_field");
  {
    SQLite::Database db(path, SQLite::OPEN_READONLY);
    SQLite::Statement q(db, "SELECT reason FROM legacy_quarantine ORDER BY execution_id");
    REQUIRE(q.executeStep());
    CHECK_THAT(q.getColumn(0).getString(), Catch::StartsWith("finished_at: "));
    REQUIRE(q.executeStep());
    CHECK_THAT(q.getColumn(0).getString(), Catch::StartsWith("gpu_memory_peak_gb: "));
  }
  auto checked = hwrec::CheckStore(path);
  REQUIRE(checked.ok());
  std::string problems;
  for (const hwrec::CheckResult& c : checked->checks) {
    for (const std::string& problem : c.problems) problems += problem + "\n";
  }
  INFO(problems);
  CHECK(checked->sound());
}

TEST_CASE(
    "legacy migration: a row refused for its values is quarantined naming each bad one and what "
    "its good ones break (the clock, its card), in the plan and in the move",
    "[legacy]") {
  TempDir dir;
  const std::string path = LegacyWithA100Pool(dir, "all_fields.db");
  LegacyRowSpec row = hwrec::test::Row("many");
  row.node_pool_id = "dc-a100";
  row.status = "exploded";
  row.finished_at = 1788220800.0 * 1000;  // milliseconds
  row.gpu_memory_peak_gb = 500;           // the card has 80 GB
  AddLegacyRow(path, row);
  LegacyRowSpec negative = hwrec::test::Row("negative");
  negative.node_pool_id = "dc-a100";
  negative.status = "exploded";
  negative.gpu_memory_peak_gb = -1;
  AddLegacyRow(path, negative);
  const auto fields_of = [](const std::string& reason) {
    std::vector<std::string> fields;
    for (std::size_t at = 0; at < reason.size();) {
      fields.push_back(reason.substr(at, reason.find(':', at) - at));
      const std::size_t next = reason.find("; ", at);
      at = next == std::string::npos ? reason.size() : next + 2;
    }
    return fields;
  };
  {
    auto plan_store = hwrec::test::OpenStoreOrFail(path);
    auto plan = hwrec::PlanLegacyMigration(*plan_store);
    REQUIRE(plan.ok());
    CHECK(plan->quarantined == 2);
  }
  const auto report = MigrateOrFail(path);
  CHECK(report.quarantined == 2);
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  SQLite::Statement q(db,
                      "SELECT reason_code, reason FROM legacy_quarantine ORDER BY execution_id");
  REQUIRE(q.executeStep());  // many
  CHECK(q.getColumn(0).getString() == "invalid_field");
  CHECK(fields_of(q.getColumn(1).getString()) ==
        std::vector<std::string>{"status", "finished_at", "gpu_memory_peak_gb"});
  REQUIRE(q.executeStep());  // negative: its bad peak is named once, for its sign
  CHECK(fields_of(q.getColumn(1).getString()) ==
        std::vector<std::string>{"status", "gpu_memory_peak_gb"});
}

TEST_CASE(
    "legacy migration: a value SQLite kept as another type is quarantined naming its column, "
    "kept as it was, and moves once it is mended",
    "[legacy]") {
  TempDir dir;
  const std::string path = LegacyWithA100Pool(dir, "types.db");
  for (const char* id : {"text-time", "fraction-bytes", "blob-cpu", "huge-bytes", "plain"}) {
    LegacyRowSpec row = hwrec::test::Row(id);
    row.node_pool_id = "dc-a100";
    AddLegacyRow(path, row);
  }
  AddLegacyPool(path, {"dc-cpu", "site-a", "c6g.16xlarge", std::nullopt, 0, std::nullopt});
  LegacyRowSpec cpu_only = hwrec::test::CpuOnlyRow("cpu-only");
  cpu_only.node_pool_id = "dc-cpu";
  cpu_only.instance_type = "c6g.16xlarge";
  AddLegacyRow(path, cpu_only);
  // A peak above its pool's A100 40GB: the operator knows the card was an 80GB.
  AddLegacyPool(path, {"dc-a100-40", "site-a", "dgx-node", "full", 1, "A100 40GB"});
  LegacyRowSpec peak = hwrec::test::Row("peak-40");
  peak.node_pool_id = "dc-a100-40";
  peak.gpu_memory_peak_gb = 70;
  AddLegacyRow(path, peak);
  {
    // Read as their columns' types, these would be a 1970 time (2026.0), a
    // peak cut to 1500 bytes and a CPU figure of 0.
    SQLite::Database db(path, SQLite::OPEN_READWRITE);
    db.exec(
        "UPDATE site_observations SET finished_at = '2026-01-01T00:00:00Z' "
        "WHERE execution_id = 'text-time'");
    db.exec(
        "UPDATE site_observations SET memory_peak_bytes = 1500.7 "
        "WHERE execution_id = 'fraction-bytes'");
    db.exec(
        "UPDATE site_observations SET cpu_millicores_avg = x'00ff', "
        "finished_at = 'soon' WHERE execution_id = 'blob-cpu'");
    db.exec(
        "UPDATE site_observations SET memory_peak_bytes = 1e20 "
        "WHERE execution_id = 'huge-bytes'");
    db.exec(
        "UPDATE site_observations SET finished_at = 'yesterday' "
        "WHERE execution_id = 'cpu-only'");
  }
  {
    auto plan_store = hwrec::test::OpenStoreOrFail(path);
    auto plan = hwrec::PlanLegacyMigration(*plan_store);
    REQUIRE(plan.ok());
    CHECK(plan->migrated == 1);
    CHECK(plan->quarantined == 6);
  }
  const auto report = MigrateOrFail(path);
  CHECK(report.migrated == 1);
  CHECK(report.quarantined == 6);
  CHECK(ReasonOf(path, "plain").empty());
  {
    SQLite::Database db(path, SQLite::OPEN_READONLY);
    const auto reason = [&](const char* id) {
      SQLite::Statement q(db,
                          "SELECT reason_code || ' ' || reason FROM legacy_quarantine "
                          "WHERE execution_id = ?");
      q.bind(1, id);
      REQUIRE(q.executeStep());
      return q.getColumn(0).getString();
    };
    CHECK_THAT(reason("text-time"),
               Catch::StartsWith("invalid_field finished_at: holds the text "
                                 "'2026-01-01T00:00:00Z', not a number: write it in "
                                 "site_observations before migrating, or in legacy_quarantine"));
    CHECK_THAT(reason("fraction-bytes"),
               Catch::StartsWith("invalid_field memory_peak_bytes: is 1500.7, not a whole number"));
    CHECK_THAT(reason("huge-bytes"),
               Catch::StartsWith("invalid_field memory_peak_bytes: is 1e+20, beyond the whole "
                                 "numbers a store keeps"));
    // Every column of the wrong type is named, in column order.
    CHECK_THAT(reason("blob-cpu"),
               Catch::StartsWith("invalid_field finished_at: holds the text 'soon'") &&
                   Catch::Contains("; cpu_millicores_avg: holds a blob of 2 bytes, not a number"));
    // Kept as they were read, not as a conversion left them.
    CHECK(db.execAndGet("SELECT typeof(finished_at) || ' ' || finished_at FROM legacy_quarantine "
                        "WHERE execution_id = 'text-time'")
              .getString() == "text 2026-01-01T00:00:00Z");
    CHECK(db.execAndGet("SELECT typeof(memory_peak_bytes) || ' ' || memory_peak_bytes "
                        "FROM legacy_quarantine WHERE execution_id = 'fraction-bytes'")
              .getString() == "real 1500.7");
    CHECK(db.execAndGet("SELECT typeof(cpu_millicores_avg) || ' ' || hex(cpu_millicores_avg) "
                        "FROM legacy_quarantine WHERE execution_id = 'blob-cpu'")
              .getString() == "blob 00FF");
    CHECK(
        db.execAndGet("SELECT count(*) FROM observations WHERE execution_id <> 'plain'").getInt() ==
        0);
  }
  // The list shows no time for a row that holds none, rather than 1970.
  const auto listed = RunCli("quarantine list " + ShellQuote(path) + " --format json");
  REQUIRE(listed.exit_code == 0);
  for (const auto& row : nlohmann::json::parse(listed.out)) {
    INFO(row.dump());
    const std::string id = row["execution_id"];
    CHECK(row["finished_at"].is_null() ==
          (id == "text-time" || id == "blob-cpu" || id == "cpu-only"));
  }
  // Resolving without mending it keeps the row, and its value, as they were.
  auto store = hwrec::test::OpenStoreOrFail(path);
  hwrec::QuarantineFilter text_time;
  {
    SQLite::Database db(path, SQLite::OPEN_READONLY);
    text_time.ids = {db.execAndGet("SELECT id FROM legacy_quarantine WHERE execution_id = "
                                   "'text-time'")
                         .getInt64()};
  }
  auto kept = Resolve(*store, text_time, "A100 80GB", std::nullopt);
  REQUIRE(kept.ok());
  CHECK(kept->moved == 0);
  REQUIRE(kept->kept.size() == 1);
  CHECK_THAT(kept->kept[0].reason, Catch::StartsWith("finished_at: holds the text"));
  {
    SQLite::Database db(path, SQLite::OPEN_READWRITE);
    db.exec(
        "UPDATE legacy_quarantine SET finished_at = 1767225600 "
        "WHERE execution_id = 'text-time'");
  }
  auto moved = Resolve(*store, text_time, "A100 80GB", std::nullopt);
  REQUIRE(moved.ok());
  CHECK(moved->moved == 1);
  CHECK(moved->moved_by_own_hardware == 1);  // its pool's A100 80GB, not the model given
  store.reset();
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  CHECK(db.execAndGet("SELECT finished_at FROM observations WHERE execution_id = 'text-time'")
            .getDouble() == 1767225600.0);

  // A row its own hardware refuses still takes the model given.
  {
    auto again = hwrec::test::OpenStoreOrFail(path);
    hwrec::QuarantineFilter peak_40;
    peak_40.ids = {db.execAndGet("SELECT id FROM legacy_quarantine WHERE execution_id = 'peak-40'")
                       .getInt64()};
    auto model = Resolve(*again, peak_40, "A100 80GB", std::nullopt);
    REQUIRE(model.ok());
    CHECK(model->moved == 1);
    CHECK(model->moved_by_own_hardware == 0);
  }
  CHECK(db.execAndGet("SELECT gpu_model FROM observations WHERE execution_id = 'peak-40'")
            .getString() == "A100 80GB");

  // A mended CPU-only row goes as CPU-only, with a model given or without,
  // whatever it was quarantined for (here: as if a duplicate, deleted since).
  {
    SQLite::Database rw(path, SQLite::OPEN_READWRITE);
    rw.exec(
        "UPDATE legacy_quarantine SET finished_at = 1767225600, "
        "reason_code = 'execution_already_stored' WHERE execution_id = 'cpu-only'");
  }
  const auto brand_alone =
      RunCli("quarantine resolve " + ShellQuote(path) + " --all --gpu-brand NVIDIA");
  CHECK(brand_alone.exit_code == 2);
  CHECK_THAT(brand_alone.err, Catch::Contains("--gpu-brand needs --gpu-model"));
  const auto resolved =
      RunCli("quarantine resolve " + ShellQuote(path) + " --all --gpu-model 'A100 80GB'");
  INFO(resolved.out << resolved.err);
  CHECK(resolved.exit_code == 3);  // the rows left unmended stay
  CHECK_THAT(resolved.out, Catch::Contains("1 moved into observations (0 as A100 80GB, 1 by their "
                                           "own hardware), 3 kept"));
  CHECK(db.execAndGet("SELECT coalesce(gpu_model, '') || '|' || gpu_count || '|' || "
                      "node_pool_id FROM observations WHERE execution_id = 'cpu-only'")
            .getString() == "|0|dc-cpu");
  CHECK(db.execAndGet("SELECT count(*) FROM legacy_quarantine").getInt() == 3);
  const auto without_model = RunCli("quarantine resolve " + ShellQuote(path) + " --all");
  CHECK(without_model.exit_code == 3);
  CHECK_THAT(without_model.out,
             Catch::Contains("0 moved into observations by their own hardware, 3 kept"));
}

TEST_CASE("legacy migration: a rerun after success is a no-op that says so", "[legacy]") {
  TempDir dir;
  const std::string path = dir.File("rerun.db");
  WriteEveryReason(path);
  const auto first = RunCli("migrate " + ShellQuote(path) + " --accept-hp-v2 --no-backup");
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  CHECK_THAT(first.out, Catch::Contains("3 migrated"));
  const std::int64_t observations = CountRows(path, "observations");
  const auto second = RunCli("migrate " + ShellQuote(path) + " --accept-hp-v2");
  CHECK(second.exit_code == 0);
  CHECK_THAT(second.out, Catch::Contains("nothing to do"));
  CHECK_THAT(second.out, Catch::Contains("was migrated to hp:v2"));
  CHECK(CountRows(path, "observations") == observations);
  CHECK(CountRows(path, "legacy_migrations") == 1);
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    CHECK(entry.path().filename().string().find("backup") == std::string::npos);
  }
}

TEST_CASE("legacy migration: a backup of the legacy store is written next to it first",
          "[legacy]") {
  TempDir dir;
  const std::string path = dir.File("backed.db");
  WriteEveryReason(path);
  const auto cli = RunCli("migrate " + ShellQuote(path) + " --accept-hp-v2");
  INFO(cli.err);
  REQUIRE(cli.exit_code == 0);
  std::string backup;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    const std::string name = entry.path().filename().string();
    if (name.find("backed.db.hp-v1-backup-") == 0) backup = entry.path().string();
  }
  REQUIRE_FALSE(backup.empty());
  CHECK_THAT(cli.out, Catch::Contains(backup));
  SQLite::Database db(backup, SQLite::OPEN_READONLY);
  CHECK(db.execAndGet("PRAGMA user_version").getInt() == 1);
  CHECK(db.execAndGet("SELECT count(*) FROM site_observations").getInt() == 10);
}

TEST_CASE("legacy migration: --no-backup removes what a killed earlier backup left", "[legacy]") {
  TempDir dir;
  const std::string path = dir.File("killed.db");
  WriteEveryReason(path);
  // A backup killed mid-copy: its process (no pid is this high) is gone.
  const std::string partial = path + ".hp-v1-backup-20261205T000000Z.partial-2147483646";
  { std::ofstream(partial) << std::string(4096, 'x'); }
  const std::string other = path + ".not-a-backup.partial-2147483646";
  { std::ofstream(other) << "kept"; }
  const auto cli = RunCli("migrate " + ShellQuote(path) + " --accept-hp-v2 --no-backup");
  INFO(cli.err);
  REQUIRE(cli.exit_code == 0);
  CHECK_FALSE(std::filesystem::exists(partial));
  CHECK(std::filesystem::exists(other));
}

TEST_CASE("legacy migration: pools given with --pools resolve rows and are registered",
          "[legacy]") {
  TempDir dir;
  const std::string path = dir.File("pools.db");
  MakeLegacy(path);
  LegacyRowSpec row = hwrec::test::Row("unlisted-pool");
  row.node_pool_id = "new-l4";
  row.instance_type = "g2-standard-8";
  AddLegacyRow(path, row);
  const std::string pools = dir.File("pools.jsonl");
  hwrec::test::WriteFile(pools,
                         R"({"site_id":"site-a","node_pool_id":"new-l4","name":"L4",)"
                         R"("instance_type":"g2-standard-8","architecture":"x86_64",)"
                         R"("cpu_millicores":8000,"memory_bytes":34359738368,"gpu_brand":"NVIDIA",)"
                         R"("gpu_model":"L4","gpu_count":1,"gpu_mode":"full","gpu_total":1})"
                         "\n");
  const auto plan = RunCli("migrate " + ShellQuote(path) + " --dry-run --pools " +
                           ShellQuote(pools) + " --format json");
  INFO(plan.err);
  CHECK_THAT(plan.out, Catch::Contains("\"via_node_pool\": 1"));
  const auto cli = RunCli("migrate " + ShellQuote(path) + " --accept-hp-v2 --no-backup --pools " +
                          ShellQuote(pools));
  INFO(cli.err);
  REQUIRE(cli.exit_code == 0);
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  CHECK(db.execAndGet("SELECT gpu_model FROM observations").getString() == "L4");
  CHECK(db.execAndGet("SELECT count(*) FROM node_pools WHERE node_pool_id = 'new-l4'").getInt() ==
        1);
}

TEST_CASE("quarantine: resolve moves rows into observations and refreshes recommendations",
          "[legacy]") {
  TempDir dir;
  const std::string path = dir.File("resolve.db");
  WriteEveryReason(path);
  MigrateOrFail(path);
  const std::string store_arg = ShellQuote(path);
  const auto list = RunCli("quarantine list " + store_arg);
  REQUIRE(list.exit_code == 0);
  CHECK_THAT(list.out, Catch::Contains("q-no-model"));
  CHECK_THAT(list.out, Catch::Contains("pool_without_gpu_model"));

  const auto unnamed = RunCli("quarantine resolve " + store_arg + " --gpu-model 'A100 80GB'");
  CHECK(unnamed.exit_code == 1);
  const auto resolved = RunCli("quarantine resolve " + store_arg +
                               " --node-pool pool-nomodel --gpu-model 'A100 40GB' --format json");
  INFO(resolved.err);
  REQUIRE(resolved.exit_code == 0);
  CHECK_THAT(resolved.out, Catch::Contains("\"moved\": 1"));
  CHECK(ReasonOf(path, "q-no-model").empty());
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  CHECK(db.execAndGet("SELECT gpu_model FROM observations WHERE execution_id = 'q-no-model'")
            .getString() == "A100 40GB");
  CHECK(db.execAndGet("SELECT count(*) FROM recommendations WHERE gpu_model = 'A100 40GB' AND "
                      "instance_type = 'dgx-node' AND gpu_memory_gb IS NOT NULL")
            .getInt() == 1);

  // A model the row's mode does not fit keeps it in quarantine with the new reason.
  auto store = hwrec::test::OpenStoreOrFail(path);
  hwrec::QuarantineFilter mode;
  mode.node_pool_id = "pool-a30";
  auto kept = Resolve(*store, mode, "A30", std::nullopt);
  REQUIRE(kept.ok());
  CHECK(kept->moved == 0);
  REQUIRE(kept->kept.size() == 1);
  CHECK_THAT(kept->kept[0].reason, Catch::Contains("mig-3g.40gb"));
  auto fits = Resolve(*store, mode, "A100 80GB", std::string("NVIDIA"));
  REQUIRE(fits.ok());
  CHECK(fits->moved == 1);
  store.reset();

  // One row by its quarantine id.
  const std::int64_t id =
      db.execAndGet("SELECT id FROM legacy_quarantine WHERE execution_id = 'q-neither'").getInt64();
  const auto by_id =
      RunCli("quarantine resolve " + store_arg + " --id " + std::to_string(id) + " --gpu-model L4");
  INFO(by_id.err);
  CHECK(by_id.exit_code == 0);
  CHECK(ReasonOf(path, "q-neither").empty());
  CHECK(db.execAndGet("SELECT gpu_model FROM observations WHERE execution_id = 'q-neither'")
            .getString() == "L4");
  CHECK(CountRows(path, "legacy_quarantine") == 4);
}

TEST_CASE("quarantine: list and resolve work on a migrated store copied to either engine",
          "[legacy][engine]") {
  // The documented path to PostgreSQL: migrate the legacy file, then copy it.
  TempDir dir;
  const std::string path = dir.File("legacy.db");
  WriteEveryReason(path);
  MigrateOrFail(path);
  const std::string location = hwrec::test::NewStoreLocation(dir, "copied.db");
  {
    auto file = hwrec::test::OpenStoreOrFail(path);
    auto copy = hwrec::test::OpenStoreOrFail(location);
    auto copied = hwrec::CopyStore(*file, *copy);
    INFO(copied.status().ToString());
    REQUIRE(copied.ok());
  }
  const std::string store_arg = ShellQuote(location);
  const auto list = RunCli("quarantine list " + store_arg + " --format json");
  INFO(list.err);
  REQUIRE(list.exit_code == 0);
  const auto rows = nlohmann::json::parse(list.out);
  REQUIRE(rows.size() == 7);
  std::int64_t no_model_id = 0;
  for (const auto& row : rows) {
    if (row.at("execution_id") == "q-no-model") no_model_id = row.at("id").get<std::int64_t>();
  }
  REQUIRE(no_model_id != 0);
  // By its quarantine id, then by a filter.
  const auto by_id = RunCli("quarantine resolve " + store_arg + " --id " +
                            std::to_string(no_model_id) + " --gpu-model 'A100 40GB'");
  INFO(by_id.err);
  CHECK(by_id.exit_code == 0);
  auto store = hwrec::test::OpenStoreOrFail(location);
  hwrec::QuarantineFilter mode;
  mode.node_pool_id = "pool-a30";
  auto fits = Resolve(*store, mode, "A100 80GB", std::string("NVIDIA"));
  INFO(fits.status().ToString());
  REQUIRE(fits.ok());
  CHECK(fits->moved == 1);
  hwrec::QuarantineFilter ids;
  ids.ids = {no_model_id};
  auto gone = hwrec::ListQuarantine(*store, ids);
  REQUIRE(gone.ok());
  CHECK(gone->empty());
  auto left = hwrec::ListQuarantine(*store, hwrec::QuarantineFilter{});
  REQUIRE(left.ok());
  CHECK(left->size() == 5);
}

TEST_CASE("quarantine: resolving while another writer ingests the same workload loses nothing",
          "[legacy][engine]") {
  TempDir dir;
  const std::string path = dir.File("legacy.db");
  MakeLegacy(path);
  AddLegacyPool(path, {"pool-nomodel", "site-a", "dgx-node", "full", 1, std::nullopt});
  constexpr int kRows = 40;
  for (int i = 0; i < kRows; ++i) {
    LegacyRowSpec row = hwrec::test::Row(fmt::format("q-{}", i));
    row.node_pool_id = "pool-nomodel";
    row.gpu_memory_peak_gb = 10 + i % 7;
    row.finished_at += 60 * i;
    AddLegacyRow(path, row);
  }
  MigrateOrFail(path);
  const std::string location = hwrec::test::NewStoreLocation(dir, "busy.db");
  {
    auto file = hwrec::test::OpenStoreOrFail(path);
    auto copy = hwrec::test::OpenStoreOrFail(location);
    REQUIRE(hwrec::CopyStore(*file, *copy).ok());
  }
  auto store = hwrec::test::OpenStoreOrFail(location);
  auto quarantined = hwrec::ListQuarantine(*store, hwrec::QuarantineFilter{});
  REQUIRE(quarantined.ok());
  REQUIRE(quarantined->size() == static_cast<std::size_t>(kRows));

  // Another replica's Runner ingests the same workload on the same card,
  // one record per call, while each quarantined row is resolved onto it.
  std::atomic<bool> stop{false};
  std::atomic<int> ingested{0};
  std::string ingest_failure;
  std::thread runner([&] {
    auto other = hwrec::Store::Open(location, {});
    if (!other.ok()) {
      ingest_failure = other.status().ToString();
      return;
    }
    auto ingestor = hwrec::Ingestor::Open(**other);
    for (int i = 0; !stop && i < 5000; ++i) {
      std::istringstream line(fmt::format(
          R"({{"execution_id":"live-{}","action_image":"registry/train:1","finished_at":{},)"
          R"("status":"success","hardware":{{"instance_type":"dgx-node","gpu_count":1,)"
          R"("gpu_mode":"full","gpu_brand":"NVIDIA","gpu_model":"A100 80GB"}},)"
          R"("gpu_memory_peak_gb":{}}})",
          i, 1788220800 + 30 * i, 12 + i % 5));
      auto summary = (*ingestor)->IngestJsonLines(line);
      if (!summary.ok()) {
        ingest_failure = summary.status().ToString();
        return;
      }
      ingested += static_cast<int>(summary->accepted);
    }
  });
  std::string resolve_failure;
  for (const hwrec::QuarantinedRow& row : *quarantined) {
    hwrec::QuarantineFilter one;
    one.ids = {row.id};
    auto resolved = Resolve(*store, one, "A100 80GB", std::nullopt);
    if (!resolved.ok() || resolved->moved != 1) {
      resolve_failure = resolved.ok() ? "not moved" : resolved.status().ToString();
      break;
    }
  }
  stop = true;
  runner.join();
  CHECK(resolve_failure == "");
  CHECK(ingest_failure == "");
  INFO("ingested alongside: " << ingested.load());
  auto report = hwrec::CheckStore(location);
  REQUIRE(report.ok());
  for (const hwrec::CheckResult& check : report->checks) {
    INFO(check.name << ": " << check.summary);
    for (const std::string& problem : check.problems) UNSCOPED_INFO(problem);
    CHECK(check.state != hwrec::CheckState::kProblem);
  }
}

TEST_CASE("legacy migration: aggregates built while rows move equal a rebuild", "[legacy]") {
  TempDir dir;
  const std::string path = dir.File("fixture.db");
  hwrec::test::MakeSeededLegacy(path, 12000, 5);  // several batches of the move
  const auto report = MigrateOrFail(path);
  REQUIRE(report.migrated > 9000);
  CheckAggregatesMatchRebuild(path);

  SECTION("legacy rows found after a migration merge into the aggregates already stored") {
    const std::string more = dir.File("more.db");
    hwrec::test::MakeSeededLegacy(more, 3000, 6);
    CopyLegacyRows(more, path, "later-");
    const auto second = MigrateOrFail(path);
    CHECK(second.legacy_rows == 3000);
    CHECK(CountRows(path, "observations") == report.migrated + second.migrated);
    CheckAggregatesMatchRebuild(path);
  }
}

TEST_CASE("legacy migration: the store's connection settings are restored afterwards", "[legacy]") {
  TempDir dir;
  const std::string path = dir.File("fixture.db");
  hwrec::test::MakeSeededLegacy(path, 500, 2);

  SECTION("alone, the move runs on a rollback journal and the store returns to WAL") {
    auto store = hwrec::test::OpenStoreOrFail(path);
    REQUIRE(MigrateStore(*store, Consent()).ok());
    const auto status = store->GetStatus();
    REQUIRE(status.ok());
    CHECK(status->journal_mode == "wal");
  }
  SECTION("with another connection open, the move stays in WAL and still succeeds") {
    SQLite::Database reader(path, SQLite::OPEN_READONLY);
    CHECK(reader.execAndGet("SELECT count(*) FROM site_observations").getInt() == 500);
    const auto report = MigrateOrFail(path);
    CHECK(report.migrated + report.quarantined == 500);
  }
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  CHECK(db.execAndGet("PRAGMA journal_mode").getString() == "wal");
  CHECK(CountRows(path, "site_observations") == 0);
  CHECK_FALSE(std::filesystem::exists(path + "-journal"));
}

TEST_CASE("legacy migration: progress is reported as rows move, as a bar only on a terminal",
          "[legacy]") {
  TempDir dir;
  const std::string path = dir.File("progress.db");
  hwrec::test::MakeSeededLegacy(path, 20000, 4);

  SECTION("the library reports rising counts that end at the legacy rows") {
    auto options = Consent();
    std::vector<std::pair<std::int64_t, std::int64_t>> calls;
    options.progress = [&](std::int64_t done, std::int64_t total) {
      calls.emplace_back(done, total);
    };
    MigrateOrFail(path, options);
    REQUIRE(calls.size() >= 3);  // 20,000 rows: every 8,192 and at the end
    for (std::size_t i = 0; i < calls.size(); ++i) {
      CHECK(calls[i].second == 20000);
      if (i > 0) CHECK(calls[i].first >= calls[i - 1].first);
    }
    CHECK(calls.back().first == 20000);
  }
  SECTION("the CLI draws no bar when stderr is not a terminal") {
    const auto cli = RunCli("migrate " + ShellQuote(path) + " --accept-hp-v2 --no-backup");
    INFO(cli.err);
    REQUIRE(cli.exit_code == 0);
    CHECK_THAT(cli.err, !Catch::Contains("migrating legacy rows"));
  }
  SECTION("the CLI draws the bar on stderr when it is a terminal") {
    // util-linux `script` runs the command on a pseudo-terminal.
    if (hwrec::test::RunShell("command -v script").exit_code != 0) {
      WARN("`script` is not installed: the terminal case is not checked");
      return;
    }
    const std::string command = ShellQuote(hwrec::test::CliPath()) + " migrate " +
                                ShellQuote(path) + " --accept-hp-v2 --no-backup";
    const auto run = hwrec::test::RunShell("script -qec " + ShellQuote(command) + " /dev/null");
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    CHECK_THAT(run.out, Catch::Contains("migrating legacy rows ["));
    CHECK_THAT(run.out, Catch::Contains("100% 20000/20000"));
  }
}

TEST_CASE(
    "quarantine: rows of a GPU pool with no recorded model join the unknown-model population "
    "when released there, and the plan says how",
    "[legacy]") {
  TempDir dir;
  const std::string path = dir.File("unknown.db");
  WriteEveryReason(path);
  // A MIG pool with no recorded model: its share is assumed, as ingest assumes it.
  AddLegacyPool(path, {"pool-nomodel-mig", "site-a", "lab-node", "mig-3g.40gb", 1, std::nullopt});
  LegacyRowSpec mig = hwrec::test::Row("q-no-model-mig");
  mig.node_pool_id = "pool-nomodel-mig";
  mig.gpu_mode = std::nullopt;
  AddLegacyRow(path, mig);
  const std::string release =
      "hwrec quarantine resolve " + path + " --reason pool_without_gpu_model --gpu-model unknown";
  {
    auto store = hwrec::test::OpenStoreOrFail(path);
    auto plan = hwrec::PlanLegacyMigration(*store);
    REQUIRE(plan.ok());
    CHECK(plan->unknown_model == 2);
    CHECK(plan->release_unknown_model == release);
  }
  const auto dry = RunCli("migrate " + ShellQuote(path) + " --dry-run");
  INFO(dry.out << dry.err);
  REQUIRE(dry.exit_code == 0);
  CHECK_THAT(dry.out, Catch::Contains("2 row(s) of GPU pools with no recorded model") &&
                          Catch::Contains(release));
  const auto dry_json = RunCli("migrate " + ShellQuote(path) + " --dry-run --format json");
  REQUIRE(dry_json.exit_code == 0);
  const auto plan_json = nlohmann::json::parse(dry_json.out);
  CHECK(plan_json["unknown_model"]["rows"] == 2);
  CHECK(plan_json["unknown_model"]["command"] == release);
  MigrateOrFail(path);
  CHECK_THAT(ReasonOf(path, "q-no-model"), Catch::Equals("pool_without_gpu_model"));

  // A brand cannot come with the unknown model; a row whose GPU name is
  // recorded is not released there: it keeps its reason code.
  {
    auto store = hwrec::test::OpenStoreOrFail(path);
    hwrec::QuarantineFilter named;
    named.reason_code = "gpu_name_not_in_catalog";
    auto branded = Resolve(*store, named, hwrec::kUnknownGpuModel, std::string("NVIDIA"));
    REQUIRE_FALSE(branded.ok());
    CHECK_THAT(branded.status().message(), Catch::Contains("leave gpu_brand out"));
    auto kept = Resolve(*store, named, hwrec::kUnknownGpuModel, std::nullopt);
    REQUIRE(kept.ok());
    CHECK(kept->moved == 0);
    REQUIRE(kept->kept.size() == 2);
    CHECK(kept->kept[0].reason_code == "gpu_name_not_in_catalog");
    CHECK_THAT(kept->kept[0].reason, Catch::Contains("'Tesla A100-PCIE'") &&
                                         Catch::Contains("not the unknown-model population"));
  }
  const auto branded = RunCli("quarantine resolve " + ShellQuote(path) +
                              " --all --gpu-model unknown --gpu-brand NVIDIA");
  CHECK(branded.exit_code == 2);
  CHECK_THAT(branded.err, Catch::Contains("leave --gpu-brand out"));
  const auto resolved = RunCli("quarantine resolve " + ShellQuote(path) +
                               " --reason pool_without_gpu_model --gpu-model unknown");
  INFO(resolved.out << resolved.err);
  REQUIRE(resolved.exit_code == 0);
  CHECK_THAT(resolved.out, Catch::Contains("2 moved into observations (2 as a GPU of unknown "
                                           "model, 0 by their own hardware)"));
  CHECK(ReasonOf(path, "q-no-model").empty());
  {
    SQLite::Database db(path, SQLite::OPEN_READONLY);
    // As ingest stores a GPU of unknown model: no brand, no model, the share assumed.
    CHECK(db.execAndGet("SELECT group_concat(execution_id || '|' || coalesce(gpu_brand, '-') || "
                        "'|' || coalesce(gpu_model, '-') || '|' || instance_type || '|' || "
                        "round(gpu_compute_fraction, 4) || '|' || fraction_source, ' ') FROM "
                        "(SELECT * FROM observations WHERE gpu_count > 0 AND gpu_model IS NULL "
                        "ORDER BY execution_id)")
              .getString() ==
          "q-no-model|-|-|dgx-node|1.0|assumed q-no-model-mig|-|-|dgx-node|0.4286|assumed");
    CHECK(db.execAndGet(
                "SELECT count(*) FROM recommendations WHERE gpu_brand = '' AND gpu_model = '' AND "
                "instance_type = 'dgx-node' AND gpu_memory_gb IS NOT NULL")
              .getInt() == 1);
  }
  CheckAggregatesMatchRebuild(path);
  const auto check = RunCli("check " + ShellQuote(path));
  INFO(check.out << check.err);
  CHECK(check.exit_code == 0);
}
