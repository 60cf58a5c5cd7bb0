// Recording twice adds nothing: a placement re-recorded for the same
// execution stays one row, a file ingested again does not store its rejects or
// conflicts again, and a store holding such duplicates from before is cleaned
// on upgrade.
#include <SQLiteCpp/SQLiteCpp.h>

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "hwrec/placement.h"
#include "hwrec/placement_record.h"
#include "store/database.h"
#include "store/migration.h"
#include "store/migrator.h"
#include "test_support.h"

using hwrec::test::RunCli;
using hwrec::test::ShellQuote;
using hwrec::test::SourcePath;

namespace {

// The store at `path` with the bundled example's pools registered, nothing
// ingested; returns `path` quoted for the shell.
std::string PoolsOnlyStore(const std::string& path) {
  const std::string store = ShellQuote(path);
  REQUIRE(RunCli("init " + store).exit_code == 0);
  REQUIRE(RunCli("pools import " + store + " " + ShellQuote(SourcePath("examples/pools.jsonl")))
              .exit_code == 0);
  return store;
}

std::int64_t Count(const std::string& path, const std::string& table) {
  auto store = hwrec::test::OpenStoreOrFail(path);
  // Table names come from the tests themselves.
  return hwrec::store::ConnectionOf(*store)
      .QueryInt64("SELECT count(*) FROM " + table)
      .value_or(-1);
}

std::vector<hwrec::PlacementRecord> Placements(const std::string& path,
                                               const std::string& execution_id) {
  auto store = hwrec::Store::Open(path);
  REQUIRE(store.ok());
  auto records = hwrec::ListPlacements(**store, execution_id);
  REQUIRE(records.ok());
  return *records;
}

std::string Place(const std::string& store, const std::string& policy,
                  const std::string& execution_id) {
  return "place " + store + " --image ghcr.io/acme/llm-finetune:2.3 --candidates " +
         ShellQuote(SourcePath("tests/data/idempotence_candidates.json")) +
         " --declared '{\"gpu_count\": 1}' --policy " + policy + " --record " + execution_id;
}

}  // namespace

TEST_CASE("placement: re-recording an execution keeps one row; another decision replaces it",
          "[placement][idempotence][engine]") {
  hwrec::test::TempDir dir;
  const std::string path = hwrec::test::NewStoreLocation(dir, "example.db");
  const std::string store = PoolsOnlyStore(path);
  RunCli("ingest " + store + " " + ShellQuote(SourcePath("examples/observations.jsonl")));

  REQUIRE(RunCli(Place(store, "best_fit", "exec-1")).exit_code == 0);
  const auto first = Placements(path, "exec-1");
  REQUIRE(first.size() == 1);

  REQUIRE(RunCli(Place(store, "best_fit", "exec-1")).exit_code == 0);
  const auto same = Placements(path, "exec-1");
  REQUIRE(same.size() == 1);
  CHECK(same[0].id == first[0].id);
  CHECK(same[0].placed_at == first[0].placed_at);  // the same decision changes nothing

  REQUIRE(RunCli(Place(store, "first_fit", "exec-1")).exit_code == 0);
  const auto replaced = Placements(path, "exec-1");
  REQUIRE(replaced.size() == 1);
  CHECK(replaced[0].id == first[0].id);
  CHECK(replaced[0].policy == hwrec::PlacementPolicy::kFirstFit);
  CHECK(replaced[0].placed_at >= first[0].placed_at);

  REQUIRE(RunCli(Place(store, "best_fit", "exec-2")).exit_code == 0);
  CHECK(Count(path, "placements") == 2);
}

TEST_CASE("ingest: re-ingesting a file does not store its rejects again",
          "[ingest][idempotence][engine]") {
  hwrec::test::TempDir dir;
  const std::string path = hwrec::test::NewStoreLocation(dir, "example.db");
  const std::string store = PoolsOnlyStore(path);
  const std::string file = ShellQuote(SourcePath("examples/observations.jsonl"));
  const auto first = RunCli("ingest " + store + " " + file);
  REQUIRE(first.exit_code == 3);
  const std::int64_t rejects = Count(path, "ingest_rejects");
  REQUIRE(rejects > 0);

  const auto again = RunCli("ingest " + store + " " + file + " --format json");
  CHECK(again.exit_code == 3);  // still reported as rejected, to the caller
  CHECK(Count(path, "ingest_rejects") == rejects);
}

TEST_CASE("ingest: a conflicting re-send ingested again is kept once in ingest_conflicts",
          "[ingest][idempotence][engine]") {
  hwrec::test::TempDir dir;
  const std::string path = hwrec::test::NewStoreLocation(dir, "example.db");
  const std::string store = PoolsOnlyStore(path);
  const std::string line =
      R"({"execution_id":"x-1","action_image":"ghcr.io/acme/etl:1","finished_at":1795968157,)"
      R"("node_pool_id":"sitea-arm-cpu","duration_s":)";
  REQUIRE(RunCli("ingest " + store + " -", line + "10}\n").exit_code == 0);
  const std::string resend = line + "20}\n";
  REQUIRE(RunCli("ingest " + store + " -", resend).exit_code == 0);
  REQUIRE(Count(path, "ingest_conflicts") == 1);
  const auto again = RunCli("ingest " + store + " - --format json", resend);
  CHECK_THAT(again.out, Catch::Contains(R"("conflicts": 1)"));  // still reported
  CHECK(Count(path, "ingest_conflicts") == 1);
}

TEST_CASE("migrations: duplicates recorded before schema 8 are removed, keeping the latest",
          "[migrations][idempotence]") {
  hwrec::test::TempDir dir;
  const std::string path = dir.File("old.db");
  const auto& all = hwrec::internal::EmbeddedMigrations();
  {
    SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    const std::vector<hwrec::internal::Migration> up_to_7(all.begin(), all.begin() + 7);
    REQUIRE(hwrec::internal::Migrator(db, up_to_7).ApplyPending().ok());
    for (int i = 1; i <= 3; ++i) {
      SQLite::Statement placement(
          db,
          "INSERT INTO placements (execution_id, workload, node_pool_id, policy, gpu_count, "
          "cpu_request_millicores_provenance, cpu_request_millicores_samples, "
          "cpu_limit_millicores_provenance, cpu_limit_millicores_samples, "
          "memory_bytes_provenance, memory_bytes_samples, gpu_memory_gb_provenance, "
          "gpu_memory_gb_samples, gpu_compute_fraction_provenance, gpu_compute_fraction_samples, "
          "placed_at) VALUES ('exec-1', 'w', ?, 'best_fit', 0, 'none', 0, 'none', 0, 'none', 0, "
          "'none', 0, 'none', 0, ?)");
      placement.bind(1, "pool-" + std::to_string(i));
      placement.bind(2, 1000.0 + i);
      placement.exec();
      SQLite::Statement reject(db,
                               "INSERT INTO ingest_rejects (source, line, field, reason, record, "
                               "rejected_at) VALUES ('f.jsonl', ?, 'json', 'broken', '{x', ?)");
      reject.bind(1, i);
      reject.bind(2, 1000.0 + i);
      reject.exec();
      SQLite::Statement conflict(db,
                                 "INSERT INTO ingest_conflicts (execution_id, source, line, "
                                 "record, seen_at) VALUES ('exec-1', 'f.jsonl', ?, '{}', ?)");
      conflict.bind(1, i);
      conflict.bind(2, 1000.0 + i);
      conflict.exec();
    }
  }
  SQLite::Database db(path, SQLite::OPEN_READWRITE);
  REQUIRE(hwrec::internal::Migrator(db, all).ApplyPending().ok());
  CHECK(db.execAndGet("SELECT count(*) FROM placements").getInt64() == 1);
  CHECK(db.execAndGet("SELECT node_pool_id FROM placements").getString() == "pool-3");
  CHECK(db.execAndGet("SELECT count(*) FROM ingest_rejects").getInt64() == 1);
  CHECK(db.execAndGet("SELECT line FROM ingest_rejects").getInt64() == 3);
  CHECK(db.execAndGet("SELECT count(*) FROM ingest_conflicts").getInt64() == 1);
  CHECK(db.execAndGet("SELECT line FROM ingest_conflicts").getInt64() == 3);
}
