// The GPUs an execution itself held (gpu_count_held): width and per-GPU
// figures are learned from it, never from the node's GPU count. One-GPU pods
// and four-GPU pods share 8-GPU a3-highgpu-8g nodes; the router, placement and
// recommend each answer per width; rows that did not say are of unknown width.
#include <SQLiteCpp/SQLiteCpp.h>

#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <algorithm>
#include <ctime>
#include <sstream>

#include "hwrec/check.h"
#include "hwrec/ingest.h"
#include "hwrec/ladder.h"
#include "hwrec/placement.h"
#include "hwrec/pool_import.h"
#include "hwrec/recommend.h"
#include "hwrec/router.h"
#include "hwrec/runner.h"
#include "hwrec/store_copy.h"
#include "store/migration.h"
#include "store/migrator.h"
#include "test_support.h"

namespace hwrec::gpus_held_test {

namespace {

constexpr const char* kWide = "ghcr.io/acme/capture-13b:1.0";  // 1-GPU pods on 8-GPU nodes
constexpr const char* kFour = "ghcr.io/acme/eval-7b:1.0";      // 4-GPU pods on the same nodes
constexpr const char* kOld = "ghcr.io/acme/lora-7b:1.0";       // records that do not say

struct Fleet {
  test::TempDir dir;
  std::string path = test::NewStoreLocation(dir, "held.db");
  std::unique_ptr<Store> store = test::OpenStoreOrFail(path);

  Fleet() {
    std::istringstream pools(
        R"({"site_id":"gke","node_pool_id":"a3-8g","instance_type":"a3-highgpu-8g",)"
        R"("architecture":"x86_64","cpu_millicores":208000,"memory_bytes":2009749364736,)"
        R"("gpu_brand":"NVIDIA","gpu_model":"H100 80GB","gpu_count":8,"gpu_mode":"full",)"
        R"("gpu_total":8})"
        "\n");
    auto imported = ImportNodePools(*store, pools);
    INFO(imported.status().ToString());
    REQUIRE(imported.ok());
  }

  // `n` executions of `image` on the 8-GPU pool, peaking at `peak_gb` per GPU,
  // holding `held` GPUs (absent: the record does not say).
  IngestSummary Ingest(const std::string& image, int n, double peak_gb, std::optional<int> held,
                       const std::string& tag) {
    std::ostringstream lines;
    const auto now = static_cast<long long>(std::time(nullptr));
    for (int i = 0; i < n; ++i) {
      lines << fmt::format(
                   R"({{"execution_id":"{}-{}-{}","action_image":"{}","finished_at":{},)"
                   R"("node_pool_id":"a3-8g","gpu_memory_peak_gb":{},"gpu_utilization":0.5{}}})",
                   image, tag, i, image, now - 600 * (i + 1), peak_gb,
                   held ? fmt::format(R"(,"gpu_count_held":{})", *held) : "")
            << "\n";
    }
    auto ingestor = Ingestor::Open(*store);
    REQUIRE(ingestor.ok());
    std::istringstream in(lines.str());
    auto summary = (*ingestor)->IngestJsonLines(in);
    INFO(summary.status().ToString());
    REQUIRE(summary.ok());
    return *summary;
  }

  RoutePlan Route(const std::string& intent, int width) {
    auto snapshot = RouterSnapshot::Load(*store);
    INFO(snapshot.status().ToString());
    REQUIRE(snapshot.ok());
    auto plan = BuildLadder(*snapshot, {intent, width, 48, width > 1});
    INFO(plan.status().ToString());
    REQUIRE(plan.ok());
    return *plan;
  }

  PlacementResult Place(const std::string& image) {
    auto evaluator = PlacementEvaluator::Open(*store);
    REQUIRE(evaluator.ok());
    ExecutionToPlace execution;
    execution.workload = image;
    PlacementCandidate candidate;
    candidate.node_pool_id = "a3-8g";
    auto result = (*evaluator)->Evaluate(execution, {candidate});
    INFO(result.status().ToString());
    REQUIRE(result.ok());
    return *result;
  }

  Figure GpuMemory(const std::string& image, std::optional<std::int64_t> width) {
    auto query = RecommendationQuery::Open(*store);
    REQUIRE(query.ok());
    HardwareKey key;
    key.gpu_brand = "NVIDIA";
    key.gpu_model = "H100 80GB";
    key.instance_type = "a3-highgpu-8g";
    auto r = (*query)->Recommend(image, key, std::nullopt, Explain::kYes, width);
    INFO(r.status().ToString());
    REQUIRE(r.ok());
    CHECK(r->width == width);
    return r->figure(FigureKind::kGpuMemoryGb);
  }
};

bool AnyContains(const std::vector<std::string>& texts, const std::string& part) {
  return std::any_of(texts.begin(), texts.end(),
                     [&](const std::string& t) { return t.find(part) != std::string::npos; });
}

std::string Joined(const std::vector<std::string>& texts) {
  std::string all;
  for (const std::string& t : texts) all += t + "\n";
  return all;
}

std::vector<std::string> PrunedReasons(const RoutePlan& plan) {
  std::vector<std::string> reasons;
  for (const PrunedRung& p : plan.pruned) reasons.push_back(p.id + ": " + p.reason);
  return reasons;
}

bool HasRung(const RoutePlan& plan, const std::string& id) {
  return std::any_of(plan.ladder.begin(), plan.ladder.end(),
                     [&](const Rung& r) { return r.id == id; });
}

}  // namespace

TEST_CASE("gpus held: 1-GPU pods on an 8-GPU node are width 1, 4-GPU pods width 4",
          "[gpus_held][router][placement][engine]") {
  Fleet f;
  // 59.3 GiB per GPU held alone: 65.2 GiB with the margin, more than an A100 40GB.
  f.Ingest(kWide, 5, 59.3, 1, "one");
  // The 4-GPU workload peaked at 70 GiB the few times it ran alone, 30 per GPU at 4.
  f.Ingest(kFour, 2, 70, 1, "one");
  f.Ingest(kFour, 5, 30, 4, "four");

  SECTION("the router sizes each width by the figure learned at it") {
    const RoutePlan wide = f.Route("capture-13b", 8);
    const std::vector<std::string> pruned = PrunedReasons(wide);
    INFO(Joined(pruned) << Joined(wide.notes));
    // Nothing is pruned for a per-GPU need said to be learned at width 8 …
    CHECK_FALSE(AnyContains(pruned, "at width 8"));
    // … and the A100 40GB rungs of widths 8, 4 and 2 stay: a 1-GPU figure is
    // no lower bound of one shard of more GPUs.
    CHECK(HasRung(wide, "gcp/a2-highgpu-8g/flex-start"));
    CHECK(HasRung(wide, "gcp/a2-highgpu-4g/flex-start"));
    CHECK(HasRung(wide, "gcp/a2-highgpu-2g/flex-start"));
    CHECK(AnyContains(wide.notes, "learned on H100 80GB at width 1"));
    // At width 1 the figure learned at width 1 prunes the card too small.
    CHECK(AnyContains(pruned,
                      "slurm/a100-40gb: needs 65.2 GiB GPU memory per shard (learned on "
                      "H100 80GB at width 1)"));

    const RoutePlan four = f.Route("eval-7b", 4);
    const std::vector<std::string> four_pruned = PrunedReasons(four);
    INFO(Joined(four_pruned) << Joined(four.notes));
    // 30 GiB per GPU at width 4 (33 with the margin) fits an A100 40GB: the
    // width-4 rung is sized by the width-4 history, not by the 77 GiB seen
    // when the workload held one GPU.
    CHECK(HasRung(four, "gcp/a2-highgpu-4g/flex-start"));
    CHECK(AnyContains(four.notes,
                      "A100 40GB: needs 33.0 GiB per GPU (learned on H100 80GB at "
                      "width 4); card holds 40 GiB: fits"));
    CHECK(AnyContains(four_pruned,
                      "needs 77.0 GiB GPU memory per shard (learned on H100 80GB at "
                      "width 1)"));
  }

  SECTION("placement asks for the GPUs the executions held") {
    const PlacementResult one = f.Place(kWide);
    INFO(Joined(one.shape.notes));
    CHECK(one.shape.gpu_count == 1);
    CHECK(AnyContains(one.shape.notes, "said how many GPUs they held had at most 1"));
    const PlacementResult four = f.Place(kFour);
    INFO(Joined(four.shape.notes));
    CHECK(four.shape.gpu_count == 4);
    REQUIRE(four.chosen_evaluation() != nullptr);
    CHECK(four.chosen_evaluation()->request.gpu_count == 4);
    // Each of its 4 GPUs needs what each GPU needed at width 4, not the 77 GiB
    // of the runs that held one.
    REQUIRE(four.chosen_evaluation()->needs.gpu_memory_gb);
    CHECK(*four.chosen_evaluation()->needs.gpu_memory_gb == Approx(33));
  }

  SECTION("recommend answers for a width and says which it was learned at") {
    const Figure at_one = f.GpuMemory(kWide, 1);
    CHECK(at_one.learned_width == 1);
    CHECK(*at_one.value == Approx(65.23));
    // No execution held 8: the nearest width it ran at, unscaled, said so.
    const Figure at_eight = f.GpuMemory(kWide, 8);
    CHECK(at_eight.learned_width == 1);
    CHECK(*at_eight.value == Approx(65.23));
    REQUIRE(at_eight.reason);
    CHECK_THAT(at_eight.reason->text, Catch::Contains("the nearest width it ran at"));
    const Figure four = f.GpuMemory(kFour, 4);
    CHECK(four.learned_width == 4);
    CHECK(*four.value == Approx(33));
    CHECK(four.provenance == Provenance::kExact);  // on this very hardware key, at width 4
    // No history at 2: 1 is the nearest width; at 3, 4 is.
    CHECK(f.GpuMemory(kFour, 2).learned_width == 1);
    CHECK(f.GpuMemory(kFour, 3).learned_width == 4);
    // Without a width: every execution of the key, as one population.
    const Figure pooled = f.GpuMemory(kFour, std::nullopt);
    CHECK_FALSE(pooled.learned_width);
    CHECK(*pooled.value == Approx(77));
  }

  SECTION("records that do not say are of unknown width, never the node's 8") {
    f.Ingest(kOld, 5, 59.3, std::nullopt, "old");
    const Figure figure = f.GpuMemory(kOld, 8);
    CHECK_FALSE(figure.learned_width);
    const RoutePlan plan = f.Route("lora-7b", 8);
    const std::vector<std::string> pruned = PrunedReasons(plan);
    INFO(Joined(pruned) << Joined(plan.notes));
    CHECK(HasRung(plan, "gcp/a2-highgpu-8g/flex-start"));
    CHECK_FALSE(AnyContains(pruned, "at width 8"));
    CHECK(AnyContains(plan.notes, "width unknown"));
    const PlacementResult placed = f.Place(kOld);
    CHECK(placed.shape.gpu_count == 1);
    CHECK(AnyContains(placed.shape.notes, "none of its executions said how many GPUs it held"));
  }

  SECTION("check and copy keep every per-width aggregate equal to a rebuild") {
    auto report = CheckStore(f.path);
    REQUIRE(report.ok());
    for (const CheckResult& c : report->checks) UNSCOPED_INFO(c.name << ": " << c.summary);
    CHECK(report->sound());
    // To a file, whichever engine the fleet's store is on: the copy verifies
    // its aggregates against the source's and a rebuild.
    const std::string copy_path = f.dir.File("copy.db");
    auto copy = test::OpenStoreOrFail(copy_path);
    auto copied = CopyStore(*f.store, *copy);
    INFO(copied.status().ToString());
    REQUIRE(copied.ok());
    CHECK(f.GpuMemory(kFour, 4).value == [&] {
      auto query = RecommendationQuery::Open(*copy);
      REQUIRE(query.ok());
      HardwareKey key;
      key.gpu_brand = "NVIDIA";
      key.gpu_model = "H100 80GB";
      key.instance_type = "a3-highgpu-8g";
      return (*query)
          ->Recommend(kFour, key, std::nullopt, Explain::kNo, 4)
          ->figure(FigureKind::kGpuMemoryGb)
          .value;
    }());
  }
}

TEST_CASE("gpus held: a width without history is sized by the nearest wider one, if any",
          "[gpus_held][router][engine]") {
  Fleet f;
  // 30 GiB per GPU held alone (33 with the margin), 45 per GPU at 8 (49.5).
  f.Ingest("ghcr.io/acme/lora-13b:1.0", 3, 30, 1, "one");
  f.Ingest("ghcr.io/acme/lora-13b:1.0", 3, 45, 8, "eight");
  const RoutePlan plan = f.Route("lora-13b", 2);
  const std::vector<std::string> pruned = PrunedReasons(plan);
  INFO(Joined(pruned) << Joined(plan.notes));
  // Width 1 is nearer to 2, but only the width-8 figure bounds one shard of 2.
  CHECK(AnyContains(pruned,
                    "gcp/a2-highgpu-2g/flex-start: needs 49.5 GiB GPU memory per shard "
                    "(learned on H100 80GB at width 8, the nearest wider width it ran "
                    "at); A100 40GB offers 40 GiB"));
  CHECK_FALSE(AnyContains(plan.notes, "not used to prune"));
  // At width 1 its own figure: 33 GiB per shard fits the 40 GiB lane (pruned
  // for being smaller than the intent's card, not for the shard).
  CHECK_FALSE(AnyContains(pruned, "slurm/a100-40gb: needs"));
  // A request is sized from the nearest width, the narrower on a tie: never
  // below what executions of fewer GPUs needed per GPU.
  f.Ingest("ghcr.io/acme/lora-7b:1.0", 2, 20, 2, "two");
  f.Ingest("ghcr.io/acme/lora-7b:1.0", 2, 10, 4, "four");
  CHECK(f.GpuMemory("ghcr.io/acme/lora-7b:1.0", 3).learned_width == 2);
  CHECK(f.GpuMemory("ghcr.io/acme/lora-13b:1.0", 2).learned_width == 1);
}

TEST_CASE("gpus held: more than the node has, or GPU use with none held, is refused by name",
          "[gpus_held][ingest][engine]") {
  Fleet f;
  std::istringstream in(
      R"({"execution_id":"a","action_image":"x","finished_at":1700000000,"node_pool_id":"a3-8g","gpu_count_held":9})"
      "\n"
      R"({"execution_id":"b","action_image":"x","finished_at":1700000000,"hardware":{"gpu_count":2},"gpu_count_held":3})"
      "\n"
      R"({"execution_id":"c","action_image":"x","finished_at":1700000000,"gpu_count_held":0,"gpu_memory_peak_gb":3})"
      "\n"
      R"({"execution_id":"d","action_image":"x","finished_at":1700000000,"gpu_count_held":-1})"
      "\n"
      R"({"execution_id":"e","action_image":"x","finished_at":1700000000,"node_pool_id":"a3-8g","gpu_count_held":8})"
      "\n"
      // 8 cards split into 16 MIG partitions: up to 16 partitions held.
      R"({"execution_id":"f","action_image":"x","finished_at":1700000000,"hardware":{"gpu_count":8,"gpu_mode":"mig-3g.20gb","gpu_total":16},"gpu_count_held":10})"
      "\n"
      R"({"execution_id":"g","action_image":"x","finished_at":1700000000,"hardware":{"gpu_count":8,"gpu_mode":"mig-3g.20gb","gpu_total":16},"gpu_count_held":17})"
      "\n"
      R"({"execution_id":"h","action_image":"x","finished_at":1700000000,"status":"gpu_oom","gpu_count_held":0})"
      "\n"
      R"({"execution_id":"i","action_image":"x","finished_at":1700000000,"gpu_count_held":5000})"
      "\n");
  auto ingestor = Ingestor::Open(*f.store);
  REQUIRE(ingestor.ok());
  auto summary = (*ingestor)->IngestJsonLines(in);
  REQUIRE(summary.ok());
  CHECK(summary->accepted == 2);
  REQUIRE(summary->rejects.size() == 7);
  for (const RecordError& e : summary->rejects) CHECK(e.field == "gpu_count_held");
  CHECK_THAT(summary->rejects[0].reason,
             Catch::Contains("more than the 8 GPU(s) a node of pool 'a3-8g' has"));
  CHECK_THAT(summary->rejects[1].reason, Catch::Contains("more than the 2 GPU(s) its node has"));
  CHECK_THAT(summary->rejects[2].reason, Catch::Contains("reports a GPU memory peak of 3"));
  CHECK_THAT(summary->rejects[3].reason, Catch::Contains("zero or more"));
  CHECK_THAT(summary->rejects[4].reason, Catch::Contains("more than the 16 GPU(s) its node has"));
  CHECK_THAT(summary->rejects[5].reason, Catch::Contains("ran out of GPU memory"));
  CHECK_THAT(summary->rejects[6].reason, Catch::Contains("more GPUs than one node holds"));
}

TEST_CASE("gpus held: the Runner sends resources_allocation.gpu", "[gpus_held][runner]") {
  auto parsed = ParseRunnerObservationJson(
      R"({"execution_id":"r","action_container_image":"x","ended_at":1700000000,)"
      R"("node_pool_gpu":8,"resources_allocation":{"gpu":"4"}})");
  REQUIRE(parsed.observation);
  CHECK(parsed.observation->gpu_count_held == 4);
  auto too_many = ParseRunnerObservationJson(
      R"({"execution_id":"r","action_container_image":"x","ended_at":1700000000,)"
      R"("node_pool_gpu":2,"resources_allocation":{"gpu":4}})");
  REQUIRE(too_many.errors.size() == 1);
  CHECK(too_many.errors[0].field == "resources_allocation.gpu");
  auto half = ParseRunnerObservationJson(
      R"({"execution_id":"r","action_container_image":"x","ended_at":1700000000,)"
      R"("resources_allocation":{"gpu":1.5}})");
  REQUIRE(half.errors.size() == 1);
  CHECK(half.errors[0].field == "resources_allocation.gpu");
}

TEST_CASE("gpus held: a record without it keeps the content hash it always had",
          "[gpus_held][ingest]") {
  // The hash of a record that does not send gpu_count_held is the one stored
  // before schema 14: a re-sent old record is a duplicate, not a conflict.
  Observation o;
  o.execution_id = "ex-1";
  o.action_image = "img";
  o.finished_at = 1700000000;
  o.gpu_memory_peak_gb = 12.5;
  Observation held = o;
  held.gpu_count_held = 2;
  test::TempDir dir;
  auto store = test::OpenStoreOrFail(dir.File("hash.db"));
  auto ingestor = Ingestor::Open(*store);
  REQUIRE(ingestor.ok());
  REQUIRE((*ingestor)->Ingest({o}).ok());
  // The digest a schema-13 build stored for this record (hwrec-observation-1:
  // its 28 fields, each absent one a 0 byte).
  SQLite::Database db(dir.File("hash.db"), SQLite::OPEN_READONLY);
  CHECK(db.execAndGet("SELECT hex(content_hash) FROM observations").getString() ==
        "E4DAD532FBCB667E1BE2D52024B239E366D78E49AC600FA89BC34F74E5C71180");
  auto again = (*ingestor)->Ingest({held});
  REQUIRE(again.ok());
  CHECK(again->conflicts == 1);
}

TEST_CASE("gpus held: a schema-13 store migrates with its rows of unknown width",
          "[gpus_held][migrations]") {
  test::TempDir dir;
  const std::string path = dir.File("thirteen.db");
  {
    auto store = test::OpenStoreOrFail(path);
    std::istringstream pools(
        R"({"site_id":"gke","node_pool_id":"a3-8g","instance_type":"a3-highgpu-8g",)"
        R"("gpu_brand":"NVIDIA","gpu_model":"H100 80GB","gpu_count":8,"gpu_mode":"full",)"
        R"("gpu_total":8})"
        "\n");
    REQUIRE(ImportNodePools(*store, pools).ok());
    std::istringstream in(
        R"({"execution_id":"old-1","action_image":"ghcr.io/acme/lora-7b:1.0","finished_at":1700000000,)"
        R"("node_pool_id":"a3-8g","gpu_memory_peak_gb":59.3})"
        "\n");
    auto ingestor = Ingestor::Open(*store);
    REQUIRE(ingestor.ok());
    REQUIRE((*ingestor)->IngestJsonLines(in).ok());
  }
  {
    // Back to schema 13 as an older build left it: no column, no width.
    SQLite::Database db(path, SQLite::OPEN_READWRITE);
    db.exec("DELETE FROM aggregates WHERE width > 0");
    db.exec("ALTER TABLE observations DROP COLUMN gpu_count_held");
    db.exec(
        "CREATE TABLE aggregates13 (workload_id INTEGER NOT NULL REFERENCES workloads (id), "
        "scope TEXT NOT NULL, gpu_brand TEXT NOT NULL, gpu_model TEXT NOT NULL, "
        "instance_type TEXT NOT NULL, samples INTEGER NOT NULL, last_finished_at REAL NOT NULL, "
        "state BLOB NOT NULL, PRIMARY KEY (workload_id, scope, gpu_brand, gpu_model, "
        "instance_type)) WITHOUT ROWID");
    db.exec(
        "INSERT INTO aggregates13 SELECT workload_id, scope, gpu_brand, gpu_model, "
        "instance_type, samples, last_finished_at, state FROM aggregates");
    db.exec("DROP TABLE aggregates");
    db.exec("ALTER TABLE aggregates13 RENAME TO aggregates");
    db.exec("DELETE FROM schema_migrations WHERE version = 14");
    db.exec("PRAGMA user_version = 13");
  }
  auto store = test::OpenStoreOrFail(path);
  REQUIRE(store->schema_version() == 13);
  auto applied = store->Migrate();
  INFO(applied.status().ToString());
  REQUIRE(applied.ok());
  CHECK(store->schema_version() == 14);
  {
    SQLite::Database db(path, SQLite::OPEN_READONLY);
    CHECK(
        db.execAndGet("SELECT count(*) FROM observations WHERE gpu_count_held IS NULL").getInt() ==
        1);
    CHECK(db.execAndGet("SELECT count(*) FROM aggregates WHERE width > 0").getInt() == 0);
    CHECK(db.execAndGet("SELECT count(*) FROM aggregates").getInt() == 4);
  }
  auto query = RecommendationQuery::Open(*store);
  REQUIRE(query.ok());
  HardwareKey key;
  key.gpu_brand = "NVIDIA";
  key.gpu_model = "H100 80GB";
  auto r = (*query)->Recommend("ghcr.io/acme/lora-7b:1.0", key, std::nullopt, Explain::kNo, 8);
  REQUIRE(r.ok());
  CHECK(r->figure(FigureKind::kGpuMemoryGb).value);
  CHECK_FALSE(r->figure(FigureKind::kGpuMemoryGb).learned_width);
  auto report = CheckStore(path);
  REQUIRE(report.ok());
  CHECK(report->sound());
}

}  // namespace hwrec::gpus_held_test
