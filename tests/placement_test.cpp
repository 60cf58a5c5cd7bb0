// The promises of the placement evaluator (DESIGN §7): every candidate pool is
// judged with its own hardware's figures, hard and soft limits are kept apart,
// floors and pins hold, the policies rank as documented, and what is chosen is
// what is emitted and recorded.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>
#include <thread>

#include "hwrec/config.h"
#include "hwrec/ingest.h"
#include "hwrec/node_pool.h"
#include "hwrec/placement.h"
#include "hwrec/placement_json.h"
#include "hwrec/placement_record.h"
#include "placement/history.h"
#include "test_support.h"

namespace hwrec {
namespace {

constexpr double kNow = 1795968000;  // 2026-11-29
constexpr std::int64_t kGiB = 1024LL * 1024 * 1024;
const std::string kImage = "ghcr.io/acme/train:1";

NodePool Pool(const std::string& id, std::optional<std::string> model, const std::string& mode,
              std::int64_t cards, std::int64_t partitions, const std::string& instance_type) {
  NodePool pool;
  pool.node_pool_id = id;
  pool.site_id = "site-a";
  pool.hardware.instance_type = instance_type;
  pool.hardware.architecture = "x86_64";
  pool.hardware.cpu_millicores = 64000;
  pool.hardware.memory_bytes = 256 * kGiB;
  pool.hardware.gpu_count = cards;
  pool.hardware.gpu_total = partitions;
  if (cards > 0) pool.hardware.gpu_mode = mode;
  if (model) pool.hardware.gpu_brand = "NVIDIA";
  pool.hardware.gpu_model = std::move(model);
  return pool;
}

// A pool of one GPU whose model is not recorded.
NodePool UnknownModelPool(const std::string& id) {
  NodePool pool = Pool(id, std::nullopt, "full", 1, 1, "on-prem-gpu");
  pool.hardware.gpu_brand = "NVIDIA";
  return pool;
}

NodePool CpuPool(const std::string& id) { return Pool(id, std::nullopt, "", 0, 0, "c6i.16xlarge"); }

NodePool ArmCpuPool(const std::string& id) {
  NodePool pool = Pool(id, std::nullopt, "", 0, 0, "c6g.16xlarge");
  pool.hardware.architecture = "aarch64";
  return pool;
}

// One finished execution of kImage on `pool`.
Observation Ran(const std::string& pool, int n, double gpu_peak_gb, double utilization,
                double cpu_p95, std::int64_t memory_peak) {
  Observation o;
  o.execution_id = fmt::format("{}-{}", pool, n);
  o.action_image = kImage;
  o.finished_at = kNow - 3600 - n;
  o.node_pool_id = pool;
  if (gpu_peak_gb > 0) {
    o.gpu_memory_peak_gb = gpu_peak_gb;
    o.gpu_utilization = utilization;
  }
  o.cpu_millicores_avg = cpu_p95 * 0.8;
  o.cpu_millicores_p95 = cpu_p95;
  o.cpu_millicores_max = cpu_p95 * 1.1;
  o.memory_peak_bytes = memory_peak;
  return o;
}

struct Fixture {
  test::TempDir dir;
  std::string location = test::NewStoreLocation(dir, "placement.db");
  std::unique_ptr<Store> store = test::OpenStoreOrFail(location);

  void Register(const std::vector<NodePool>& pools) {
    for (const NodePool& pool : pools) REQUIRE(RegisterNodePool(*store, pool).ok());
  }
  // Five executions on `pool`, numbered from `first` (distinct numbers: distinct executions).
  void History(const std::string& pool, double gpu_peak_gb, double utilization, double cpu_p95,
               std::int64_t memory_peak, int first = 0) {
    std::vector<Observation> batch;
    for (int n = first; n < first + 5; ++n) {
      batch.push_back(Ran(pool, n, gpu_peak_gb, utilization, cpu_p95, memory_peak));
    }
    const auto ingestor_owner = Ingestor::Open(*store).value();
    Ingestor& ingestor = *ingestor_owner;
    auto summary = ingestor.Ingest(batch);
    INFO(summary.status().ToString());
    REQUIRE(summary.ok());
    REQUIRE(summary->accepted == 5);
  }
  // Executions as given, every one accepted.
  void Ingest(const std::vector<Observation>& batch) {
    const auto ingestor = Ingestor::Open(*store).value();
    auto summary = ingestor->Ingest(batch);
    INFO(summary.status().ToString());
    REQUIRE(summary.ok());
    REQUIRE(summary->accepted == static_cast<std::int64_t>(batch.size()));
  }
  // An evaluator over one registered pool, "a100" (eight full A100 80GB cards).
  std::unique_ptr<PlacementEvaluator> EvaluatorOverOneA100Pool() {
    Register({Pool("a100", "A100 80GB", "full", 8, 8, "a2-ultragpu-8g")});
    auto evaluator = PlacementEvaluator::Open(*store);
    REQUIRE(evaluator.ok());
    return std::move(*evaluator);
  }
  PlacementResult Place(const ExecutionToPlace& execution, const std::vector<std::string>& pool_ids,
                        PlacementPolicy policy = PlacementPolicy::kBestFit) {
    std::vector<PlacementCandidate> candidates;
    for (const std::string& id : pool_ids) candidates.push_back({id, {}, {}, {}});
    return Place(execution, candidates, policy);
  }
  PlacementResult Place(const ExecutionToPlace& execution,
                        const std::vector<PlacementCandidate>& candidates,
                        PlacementPolicy policy = PlacementPolicy::kBestFit) {
    auto evaluator = PlacementEvaluator::Open(*store);
    REQUIRE(evaluator.ok());
    auto result = (*evaluator)->Evaluate(execution, candidates, policy, kNow);
    INFO(result.status().ToString());
    REQUIRE(result.ok());
    return std::move(*result);
  }
};

ExecutionToPlace Execution(DeclaredResources declared = {}) {
  ExecutionToPlace execution;
  execution.workload = kImage;
  execution.declared = std::move(declared);
  return execution;
}

// An execution retried after running out of GPU memory: its floor sets
// gpu_memory_gb and no gpu_count.
ExecutionToPlace RetriedWithGpuMemoryFloor(DeclaredResources declared, double gpu_memory_gb) {
  ExecutionToPlace retry = Execution(std::move(declared));
  DeclaredResources floor;
  floor.gpu_memory_gb = gpu_memory_gb;
  retry.retry_floor = floor;
  return retry;
}

DeclaredResources OneGpu() {
  DeclaredResources d;
  d.gpu_count = 1;
  return d;
}

// One GPU with `gpu_memory_gb` of memory on it.
DeclaredResources OneGpuWithMemory(double gpu_memory_gb) {
  DeclaredResources d = OneGpu();
  d.gpu_memory_gb = gpu_memory_gb;
  return d;
}

std::map<std::string, CandidateEvaluation> ByPool(const PlacementResult& result) {
  std::map<std::string, CandidateEvaluation> out;
  for (const CandidateEvaluation& e : result.evaluations) out[e.node_pool_id] = e;
  return out;
}

const FigureOrigin& Origin(const CandidateEvaluation& e, FigureKind kind) {
  return e.request.origin(kind);
}

std::vector<std::string> Order(const PlacementResult& result) {
  std::vector<std::string> out;
  for (const CandidateEvaluation& e : result.evaluations) out.push_back(e.node_pool_id);
  return out;
}

}  // namespace

TEST_CASE("placement: no pool is judged infeasible by a figure learned on another card",
          "[placement][engine]") {
  Fixture f;
  f.Register({Pool("a100-3g", "A100 40GB", "mig-3g.20gb", 8, 16, "p4d.24xlarge"),
              Pool("a30-4g", "A30", "mig-4g.24gb", 4, 4, "on-prem-a30")});
  // 17 GB peaks at 80 % of 3/7 of an A100; 21.5 GB peaks at 90 % of a whole A30.
  f.History("a100-3g", 17, 0.8, 4000, 8 * kGiB);
  f.History("a30-4g", 21.5, 0.9, 6000, 8 * kGiB);
  const auto result = f.Place(Execution(OneGpu()), std::vector<std::string>{"a100-3g", "a30-4g"});
  const auto by_pool = ByPool(result);
  const CandidateEvaluation& a100 = by_pool.at("a100-3g");
  const CandidateEvaluation& a30 = by_pool.at("a30-4g");

  // The A30's figures would not fit the A100's partition: a mixed key would
  // have judged the A100 pool too small (memory) and short (compute share).
  REQUIRE(a30.needs.gpu_memory_gb.has_value());
  CHECK(*a30.needs.gpu_memory_gb > 20);
  CHECK(*a30.needs.gpu_compute_fraction > 3.0 / 7);

  CHECK(a100.feasible);
  CHECK(a100.reason == "fits");
  CHECK(*a100.needs.gpu_memory_gb == Approx(17 * 1.1));
  CHECK(*a100.needs.gpu_compute_fraction <= 3.0 / 7);
  CHECK(a100.waste.compute_shortfall == 0);
  // No shortfall noted: only where the undeclared architecture came from.
  CHECK(a100.notes ==
        std::vector<std::string>{
            "architecture x86_64 from history: recorded by 10 of its last 10 executions that ran"});
  CHECK(a100.request.gpu_config_id == std::optional<std::string>("nvidia-a100-40gb-mig-3g.20gb"));
  CHECK(Origin(a100, FigureKind::kGpuMemoryGb).provenance == Provenance::kExact);
  CHECK(Origin(a100, FigureKind::kGpuComputeFraction).provenance == Provenance::kExact);

  CHECK(a30.feasible);
  CHECK(*a30.needs.gpu_memory_gb == Approx(21.5 * 1.1));
  CHECK(a30.request.gpu_config_id == std::optional<std::string>("nvidia-a30-mig-4g.24gb"));
  CHECK(*a30.request.gpu_memory_gb == 24);
  CHECK(Origin(a30, FigureKind::kGpuMemoryGb).provenance == Provenance::kExact);
}

TEST_CASE("placement: a pool of unknown GPU model stays eligible, never judged too small",
          "[placement][engine]") {
  Fixture f;
  f.Register({Pool("a100-80", "A100 80GB", "full", 8, 8, "a2-ultragpu-8g"),
              Pool("t4", "T4", "full", 4, 4, "n1-standard-32"),
              Pool("mystery", std::nullopt, "full", 8, 8, "on-prem-g2")});
  f.History("a100-80", 35, 0.7, 4000, 8 * kGiB);
  const auto by_pool =
      ByPool(f.Place(Execution(OneGpu()), std::vector<std::string>{"t4", "mystery"}));

  const CandidateEvaluation& t4 = by_pool.at("t4");
  CHECK_FALSE(t4.feasible);
  CHECK_THAT(t4.reason, Catch::Contains("needs 38.5 GiB GPU memory (learned on other GPU models); "
                                        "this pool offers a whole T4 (16 GiB)"));

  const CandidateEvaluation& mystery = by_pool.at("mystery");
  CHECK(mystery.feasible);
  CHECK_FALSE(mystery.waste.card.has_value());
  CHECK_FALSE(mystery.request.gpu_config_id.has_value());
  CHECK(*mystery.request.gpu_memory_gb == Approx(38.5));  // the need: no partition to round to
  REQUIRE(mystery.notes.size() == 2);  // and where the undeclared architecture came from
  CHECK_THAT(mystery.notes[1], Catch::Contains("unknown size"));

  // Even a declared need larger than any card leaves it eligible.
  DeclaredResources huge = OneGpu();
  huge.gpu_memory_gb = 500;
  huge.pinned = {"gpu_memory_gb"};
  const auto pinned = f.Place(Execution(huge), std::vector<std::string>{"mystery"});
  CHECK(pinned.evaluations[0].feasible);
}

TEST_CASE(
    "placement: a GPU pool without a recorded gpu_mode is eligible for every GPU request, "
    "never judged too small",
    "[placement][parse][engine]") {
  Fixture f;
  NodePool unsplit = Pool("a30-old", "A30", "", 4, 0, "on-prem-a30");
  unsplit.hardware.gpu_mode.reset();
  f.Register({Pool("a100-80", "A100 80GB", "full", 8, 8, "a2-ultragpu-8g"), unsplit});
  f.History("a100-80", 35, 0.7, 4000, 8 * kGiB);
  DeclaredResources two = OneGpu();
  two.gpu_count = 2;
  two.gpu_memory_gb = 200;  // more than an A30 holds
  two.pinned = {"gpu_memory_gb"};
  const auto result = f.Place(Execution(two), std::vector<std::string>{"a30-old"});
  REQUIRE(result.evaluations.size() == 1);
  const CandidateEvaluation& e = result.evaluations[0];
  CHECK(e.feasible);
  CHECK_FALSE(e.waste.card.has_value());
  CHECK_FALSE(e.request.gpu_config_id.has_value());
  REQUIRE(e.notes.size() == 2);  // and where the undeclared architecture came from
  CHECK_THAT(e.notes[1], Catch::Contains("gpu_mode") && Catch::Contains("unknown size"));
}

TEST_CASE("placement: an OOM-retry floor is kept above a lower recommendation",
          "[placement][engine]") {
  Fixture f;
  f.Register({Pool("a100-80", "A100 80GB", "full", 8, 8, "a2-ultragpu-8g")});
  f.History("a100-80", 10, 0.5, 2000, 4 * kGiB);
  ExecutionToPlace retry = Execution(OneGpu());
  DeclaredResources floor;
  floor.memory_bytes = 16 * kGiB;
  floor.gpu_memory_gb = 30;
  floor.cpu_millicores = 500;  // below the recommendation: changes nothing
  retry.retry_floor = floor;
  const auto result = f.Place(retry, std::vector<std::string>{"a100-80"});
  const CandidateEvaluation& e = result.evaluations[0];
  REQUIRE(e.feasible);
  CHECK(*e.request.memory_bytes == 16 * kGiB);
  CHECK(Origin(e, FigureKind::kMemoryBytes).source == FigureSource::kRetryFloor);
  CHECK(*e.needs.gpu_memory_gb == 30);
  CHECK(Origin(e, FigureKind::kGpuMemoryGb).source == FigureSource::kRetryFloor);
  CHECK(*e.request.cpu_request_millicores > 500);
  CHECK(Origin(e, FigureKind::kCpuRequestMillicores).provenance == Provenance::kExact);

  // A pin below the floor is what ran out of memory: the floor still holds.
  retry.declared.memory_bytes = 2 * kGiB;
  retry.declared.pinned = {"memory_bytes"};
  const auto pinned = f.Place(retry, std::vector<std::string>{"a100-80"});
  CHECK(*pinned.evaluations[0].request.memory_bytes == 16 * kGiB);
}

TEST_CASE("placement: best_fit picks the least waste of a card, first_fit keeps the order",
          "[placement][engine]") {
  Fixture f;
  f.Register({Pool("a100-80-full", "A100 80GB", "full", 8, 8, "a2-ultragpu-8g"),
              Pool("a30-4g", "A30", "mig-4g.24gb", 4, 4, "on-prem-a30"),
              Pool("a100-40-3g", "A100 40GB", "mig-3g.20gb", 8, 16, "p4d.24xlarge"),
              CpuPool("cpu")});
  DeclaredResources declared = OneGpu();  // no history: the declared values are used
  declared.gpu_memory_gb = 10;
  declared.gpu_compute_fraction = 0.3;
  const std::vector<std::string> order = {"a100-80-full", "cpu", "a30-4g", "a100-40-3g"};

  const auto best = f.Place(Execution(declared), order, PlacementPolicy::kBestFit);
  CHECK(Order(best) == std::vector<std::string>{"a100-40-3g", "a30-4g", "a100-80-full", "cpu"});
  REQUIRE(best.chosen_evaluation() != nullptr);
  CHECK(best.chosen_evaluation()->node_pool_id == "a100-40-3g");
  CHECK(*best.chosen_evaluation()->waste.card == Approx(0.5 - 0.3));
  CHECK(Origin(*best.chosen_evaluation(), FigureKind::kGpuMemoryGb).source ==
        FigureSource::kDeclared);

  const auto first = f.Place(Execution(declared), order, PlacementPolicy::kFirstFit);
  CHECK(Order(first) == std::vector<std::string>{"a100-80-full", "a30-4g", "a100-40-3g", "cpu"});
  CHECK(first.chosen_evaluation()->node_pool_id == "a100-80-full");
}

TEST_CASE("placement: a short compute share ranks lower but never makes a pool infeasible",
          "[placement][engine]") {
  Fixture f;
  f.Register({Pool("a100-40-3g", "A100 40GB", "mig-3g.20gb", 8, 16, "p4d.24xlarge"),
              Pool("a100-40-4g", "A100 40GB", "mig-4g.20gb", 8, 8, "p4d.24xlarge")});
  DeclaredResources declared = OneGpuWithMemory(12);
  declared.gpu_compute_fraction = 0.5;
  const auto result =
      f.Place(Execution(declared), std::vector<std::string>{"a100-40-3g", "a100-40-4g"});
  CHECK(Order(result) == std::vector<std::string>{"a100-40-4g", "a100-40-3g"});
  const CandidateEvaluation& short_pool = result.evaluations[1];
  CHECK(short_pool.feasible);
  CHECK(short_pool.waste.compute_shortfall == Approx(0.5 - 3.0 / 7));
  REQUIRE(short_pool.notes.size() == 1);
  CHECK_THAT(short_pool.notes[0], Catch::Contains("short of compute: needs 0.50 of a card"));
}

TEST_CASE("placement: a pinned value wins over the recommendation", "[placement][engine]") {
  Fixture f;
  f.Register({CpuPool("cpu")});
  f.History("cpu", 0, 0, 2000, 4 * kGiB);
  DeclaredResources declared;
  declared.cpu_millicores = 1000;
  declared.memory_bytes = 1 * kGiB;
  declared.pinned = {"cpu_millicores"};
  const auto result = f.Place(Execution(declared), std::vector<std::string>{"cpu"});
  const CandidateEvaluation& e = result.evaluations[0];
  CHECK(*e.request.cpu_request_millicores == 1000);
  CHECK(*e.request.cpu_limit_millicores == 1000);
  CHECK(Origin(e, FigureKind::kCpuRequestMillicores).source == FigureSource::kPinned);
  // Declared but not pinned: the recommendation is used.
  CHECK(*e.request.memory_bytes > 4 * kGiB);
  CHECK(Origin(e, FigureKind::kMemoryBytes).provenance == Provenance::kExact);

  auto evaluator = PlacementEvaluator::Open(*f.store);
  REQUIRE(evaluator.ok());
  DeclaredResources no_value;
  no_value.pinned = {"gpu_memory_gb"};
  auto refused = (*evaluator)->Evaluate(Execution(no_value), {{"cpu", {}, {}, {}}});
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.status().message(), Catch::Contains("pinned 'gpu_memory_gb' has no declared "
                                                         "value: declare gpu_memory_gb too"));
}

TEST_CASE("placement: with no feasible pool each pool says why in words", "[placement][engine]") {
  Fixture f;
  f.Register({Pool("a100-3g", "A100 40GB", "mig-3g.20gb", 8, 16, "p4d.24xlarge"),
              Pool("t4", "T4", "full", 4, 4, "n1-standard-32"), CpuPool("cpu"),
              Pool("a30-4g", "A30", "mig-4g.24gb", 4, 4, "on-prem-a30")});
  DeclaredResources declared = OneGpu();
  declared.gpu_memory_gb = 35.2;
  declared.memory_bytes = 64 * kGiB;
  std::vector<PlacementCandidate> candidates = {{"a100-3g", {}, {}, {}},
                                                {"t4", {}, {}, {}},
                                                {"cpu", {}, {}, {}},
                                                {"gone", {}, {}, {}},
                                                {"a30-4g", 0, {}, 32 * kGiB}};
  const auto result = f.Place(Execution(declared), candidates);
  CHECK(result.chosen_evaluation() == nullptr);
  const auto by_pool = ByPool(result);
  for (const auto& [id, e] : by_pool) {
    INFO(id);
    CHECK_FALSE(e.feasible);
  }
  CHECK(by_pool.at("a100-3g").reason ==
        "needs 35.2 GiB GPU memory; this pool offers 3g.20gb (20 GiB)");
  CHECK(by_pool.at("t4").reason ==
        "needs 35.2 GiB GPU memory; this pool offers a whole T4 (16 GiB)");
  CHECK(by_pool.at("cpu").reason == "needs 1 GPU; this pool has none");
  CHECK_THAT(by_pool.at("gone").reason, Catch::Contains("'gone' is not registered"));
  const std::string& a30 = by_pool.at("a30-4g").reason;
  CHECK_THAT(a30, Catch::Contains("needs 1 GPU; this pool has 0 free"));
  CHECK_THAT(a30, Catch::Contains("needs 35.2 GiB GPU memory; this pool offers 4g.24gb (24 GiB)"));
  CHECK_THAT(a30, Catch::Contains("needs 64.0 GiB memory; this pool has 32.0 GiB free"));
  // Infeasible candidates keep their given order.
  CHECK(Order(result) == std::vector<std::string>{"a100-3g", "t4", "cpu", "gone", "a30-4g"});
}

TEST_CASE("placement: declared hardware constraints are hard", "[placement][engine]") {
  Fixture f;
  f.Register({Pool("a30-4g", "A30", "mig-4g.24gb", 4, 4, "on-prem-a30"),
              Pool("mystery", std::nullopt, "full", 8, 8, "on-prem-g2"),
              Pool("a100-3g", "A100 40GB", "mig-3g.20gb", 8, 16, "p4d.24xlarge")});
  DeclaredResources declared;
  declared.gpu_model = "A100 40GB";
  declared.gpu_count = 3;
  declared.architecture = "x86_64";
  const auto by_pool = ByPool(
      f.Place(Execution(declared), std::vector<std::string>{"a30-4g", "mystery", "a100-3g"}));
  CHECK_THAT(by_pool.at("a30-4g").reason,
             Catch::Contains("declares gpu_model A100 40GB; this pool has A30"));
  CHECK_THAT(
      by_pool.at("mystery").reason,
      Catch::Contains("declares gpu_model A100 40GB; this pool's gpu_model is not recorded"));
  CHECK(by_pool.at("a100-3g").feasible);
  CHECK(by_pool.at("a100-3g").request.gpu_count == 3);

  declared.gpu_count = 20;
  const auto wide = f.Place(Execution(declared), std::vector<std::string>{"a100-3g"});
  CHECK(wide.evaluations[0].reason == "needs 20 GPUs; a node of this pool has 16 of mig-3g.20gb");
}

TEST_CASE("placement: the JSON payload round-trips", "[placement][engine]") {
  Fixture f;
  f.Register({Pool("a100-3g", "A100 40GB", "mig-3g.20gb", 8, 16, "p4d.24xlarge"),
              Pool("mystery", std::nullopt, "full", 8, 8, "on-prem-g2"), CpuPool("cpu")});
  f.History("a100-3g", 17, 0.8, 4000, 8 * kGiB);
  const auto result =
      f.Place(Execution(OneGpu()), std::vector<std::string>{"cpu", "mystery", "a100-3g"});
  const std::string json = PlacementToJson(result);
  auto parsed = ParsePlacementJson(json);
  INFO(json);
  REQUIRE(parsed.ok());
  CHECK(*parsed == result);
  CHECK(PlacementToJson(*parsed) == json);
  CHECK_THAT(json, Catch::StartsWith(R"({"schema":"hwrec.placement/v1")"));
  CHECK_THAT(json, Catch::Contains(R"("chosen":{"node_pool_id":"a100-3g")"));

  std::string newer = json;
  newer.replace(newer.find("placement/v1"), 12, "placement/v2");
  auto refused = ParsePlacementJson(newer);
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.status().message(), Catch::Contains("upgrade hwrec"));
}

TEST_CASE("placement: recording writes exactly the chosen request", "[placement][engine]") {
  Fixture f;
  f.Register({Pool("a100-3g", "A100 40GB", "mig-3g.20gb", 8, 16, "p4d.24xlarge"),
              Pool("a30-4g", "A30", "mig-4g.24gb", 4, 4, "on-prem-a30")});
  f.History("a100-3g", 17, 0.8, 4000, 8 * kGiB);
  const auto result = f.Place(Execution(OneGpu()), std::vector<std::string>{"a30-4g", "a100-3g"});
  const CandidateEvaluation* chosen = result.chosen_evaluation();
  REQUIRE(chosen != nullptr);
  auto id = RecordPlacement(*f.store, "exec-42", result);
  REQUIRE(id.ok());
  auto records = ListPlacements(*f.store, "exec-42");
  REQUIRE(records.ok());
  REQUIRE(records->size() == 1);
  const PlacementRecord& record = records->front();
  CHECK(record.id == *id);
  CHECK(record.node_pool_id == chosen->node_pool_id);
  CHECK(record.workload == kImage);
  CHECK(record.policy == PlacementPolicy::kBestFit);
  CHECK(record.request == chosen->request);
  CHECK(record.placed_at > 0);

  PlacementResult nothing = result;
  nothing.chosen.reset();
  auto refused = RecordPlacement(*f.store, "exec-43", nothing);
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.status().message(), Catch::Contains("no candidate pool fits"));
  CHECK(ListPlacements(*f.store, "exec-43")->empty());
}

TEST_CASE("placement: an evaluator kept open sees history and settings written since it was used",
          "[placement][engine]") {
  Fixture f;
  f.Register({Pool("a100-80", "A100 80GB", "full", 8, 8, "a2-ultragpu-8g"),
              Pool("a100-3g", "A100 80GB", "mig-3g.40gb", 1, 2, "a2-ultragpu-1g"), CpuPool("cpu")});
  auto evaluator = PlacementEvaluator::Open(*f.store);
  REQUIRE(evaluator.ok());
  const std::vector<PlacementCandidate> candidates = {
      {"a100-80", {}, {}, {}}, {"a100-3g", {}, {}, {}}, {"cpu", {}, {}, {}}};
  // The kept evaluator answers exactly as one opened afresh.
  auto evaluate = [&] {
    auto kept =
        (*evaluator)->Evaluate(Execution(OneGpu()), candidates, PlacementPolicy::kBestFit, kNow);
    INFO(kept.status().ToString());
    REQUIRE(kept.ok());
    CHECK(*kept == f.Place(Execution(OneGpu()), candidates));
    return ByPool(*kept);
  };

  auto before = evaluate();  // no history yet: nothing learned
  CHECK(Origin(before.at("a100-80"), FigureKind::kGpuMemoryGb).source == FigureSource::kNone);
  CHECK_FALSE(before.at("a100-80").needs.gpu_memory_gb.has_value());

  f.History("a100-80", 10, 0.5, 2000, 4 * kGiB);
  auto learned = evaluate();
  const CandidateEvaluation& full = learned.at("a100-80");
  CHECK(Origin(full, FigureKind::kGpuMemoryGb).provenance == Provenance::kExact);
  CHECK(Origin(full, FigureKind::kGpuMemoryGb).samples == 5);
  CHECK(*full.needs.gpu_memory_gb == Approx(10 * 1.1));
  CHECK(learned.at("a100-3g").feasible);

  // A larger peak no longer fits the 40 GB slice.
  f.History("a100-80", 50, 0.5, 2000, 4 * kGiB, 5);
  auto larger = evaluate();
  CHECK(Origin(larger.at("a100-80"), FigureKind::kGpuMemoryGb).samples == 10);
  CHECK(*larger.at("a100-80").needs.gpu_memory_gb == Approx(50 * 1.1));
  CHECK_FALSE(larger.at("a100-3g").feasible);
  CHECK_THAT(larger.at("a100-3g").reason, Catch::Contains("needs 55.0 GiB GPU memory"));

  REQUIRE(SetConfig(*f.store, "gpu_memory.margin", "0").ok());
  auto no_margin = evaluate();
  CHECK(*no_margin.at("a100-80").needs.gpu_memory_gb == Approx(50));
}

TEST_CASE("placement: inputs are read with errors that name the field", "[placement]") {
  auto declared = ParseDeclaredResources(
      R"({"gpu_count": 2, "gpu_memory_gb": 35.2, "pinned": ["gpu_memory_gb"]})", "--declared");
  REQUIRE(declared.ok());
  CHECK(*declared->gpu_count == 2);
  CHECK(declared->pinned == std::vector<std::string>{"gpu_memory_gb"});
  auto typo = ParseDeclaredResources(R"({"gpu_mem": 3})", "--declared");
  REQUIRE_FALSE(typo.ok());
  CHECK(typo.status().message() ==
        "--declared: gpu_mem is not a known field: did you mean `gpu_memory_gb`?");
  auto share = ParseDeclaredResources(R"({"gpu_compute_fraction": 1.5})", "--retry-floor");
  REQUIRE_FALSE(share.ok());
  CHECK_THAT(share.status().message(), Catch::Contains("--retry-floor: gpu_compute_fraction"));

  auto candidates = ParsePlacementCandidates(
      R"([{"node_pool_id": "a", "free_partitions": 2}, {"node_pool_id": "b"}])");
  REQUIRE(candidates.ok());
  CHECK(*(*candidates)[0].free_partitions == 2);
  CHECK_FALSE((*candidates)[1].free_memory_bytes.has_value());
  auto twice = ParsePlacementCandidates(R"([{"node_pool_id": "a"}, {"node_pool_id": "a"}])");
  REQUIRE_FALSE(twice.ok());
  CHECK_THAT(twice.status().message(), Catch::Contains("candidate 2: node_pool_id 'a' is listed "
                                                       "twice"));
}

TEST_CASE("placement: every candidate list obeys one set of rules, however it was built",
          "[placement][engine]") {
  Fixture f;
  std::unique_ptr<PlacementEvaluator> evaluator = f.EvaluatorOverOneA100Pool();
  const auto refused = [&](const std::vector<PlacementCandidate>& candidates) {
    auto result =
        evaluator->Evaluate(Execution(OneGpu()), candidates, PlacementPolicy::kBestFit, kNow);
    REQUIRE_FALSE(result.ok());
    CHECK(result.status().code() == StatusCode::kInvalidArgument);
    return result.status().message();
  };
  CHECK(refused({{"a100", {}, {}, {}}, {"a100", 2, {}, {}}}) ==
        "candidate 2: node_pool_id 'a100' is listed twice: list each pool once");
  CHECK(refused({{"ghost", {}, {}, {}}, {"a100", {}, {}, {}}, {"ghost", {}, {}, {}}}) ==
        "candidate 3: node_pool_id 'ghost' is listed twice: list each pool once");
  CHECK(refused({{"", {}, {}, {}}}) == "candidate 1: node_pool_id is empty: give the pool's id");
  CHECK(refused({{"a100", {}, -4, {}}}) ==
        "candidate 1: free_cpu_millicores is -4: send 0 or more, or leave it out when unknown");
  // The JSON reader applies the same rules, with the same words.
  auto parsed = ParsePlacementCandidates(R"([{"node_pool_id":"a100"},{"node_pool_id":"a100"}])");
  REQUIRE_FALSE(parsed.ok());
  CHECK(parsed.status().message() ==
        "candidate 2: node_pool_id 'a100' is listed twice: list each pool once");
}

TEST_CASE("placement: an evaluator kept across calls finds every candidate in any order",
          "[placement][engine]") {
  Fixture f;
  f.Register({Pool("p1", "A100 80GB", "full", 8, 8, "a2-ultragpu-8g"),
              Pool("p2", "A100 40GB", "mig-3g.20gb", 8, 16, "p4d.24xlarge"),
              Pool("p3", "A30", "full", 4, 4, "on-prem-a30")});
  f.History("p2", 9, 0.4, 4000, 8 * kGiB);
  auto opened = PlacementEvaluator::Open(*f.store);
  REQUIRE(opened.ok());
  PlacementEvaluator& kept = **opened;
  // Each call of the kept evaluator answers as a fresh one does.
  const auto same_as_fresh = [&](const std::vector<std::string>& ids) {
    std::vector<PlacementCandidate> candidates;
    for (const std::string& id : ids) candidates.push_back({id, 2, {}, {}});
    auto result = kept.Evaluate(Execution(OneGpu()), candidates, PlacementPolicy::kBestFit, kNow);
    REQUIRE(result.ok());
    CHECK(*result == f.Place(Execution(OneGpu()), candidates));
    return *result;
  };
  for (const auto& ids : std::vector<std::vector<std::string>>{{"p1", "p2", "p3"},
                                                               {"p3", "p1", "p2"},
                                                               {"p2", "ghost", "p1"},
                                                               {"p1"},
                                                               {"p3", "p2", "p1", "p0"}}) {
    INFO(fmt::format("{}", fmt::join(ids, ", ")));
    same_as_fresh(ids);
  }
  // A candidate named twice is refused, in a list of the same length as the
  // last one too.
  auto twice = kept.Evaluate(Execution(OneGpu()), {{"p3", {}, {}, {}}, {"p3", {}, {}, {}}},
                             PlacementPolicy::kBestFit, kNow);
  REQUIRE_FALSE(twice.ok());
  CHECK(twice.status().message() ==
        "candidate 2: node_pool_id 'p3' is listed twice: list each pool once");
  // A pool registered since moves the others in the store's list.
  f.Register({Pool("p0", "A30", "full", 2, 2, "on-prem-a30")});
  const PlacementResult after = same_as_fresh({"p3", "p2", "p1", "p0"});
  CHECK(after.evaluations.size() == 4);
  for (const CandidateEvaluation& e : after.evaluations) {
    INFO(e.node_pool_id << ": " << e.reason);
    CHECK(e.reason.find("not registered") == std::string::npos);
  }
}

TEST_CASE("placement and recommend: an as_of that is not a date is refused, naming it",
          "[placement][engine]") {
  Fixture f;
  std::unique_ptr<PlacementEvaluator> evaluator = f.EvaluatorOverOneA100Pool();
  const auto opened = RecommendationQuery::Open(*f.store).value();
  RecommendationQuery& query = *opened;
  for (double as_of : {std::nan(""), HUGE_VAL, -1.0, 1e300}) {
    INFO(as_of);
    auto placed = evaluator->Evaluate(Execution(OneGpu()), {{"a100", {}, {}, {}}},
                                      PlacementPolicy::kBestFit, as_of);
    REQUIRE_FALSE(placed.ok());
    CHECK(placed.status().message().rfind("as_of is ", 0) == 0);
    auto recommended = query.Recommend(kImage, HardwareKey{}, as_of);
    REQUIRE_FALSE(recommended.ok());
    CHECK(recommended.status().code() == StatusCode::kInvalidArgument);
  }
}

TEST_CASE("placement: two replicas recording at once keep every placement once",
          "[placement][engine]") {
  Fixture f;
  f.Register({Pool("a100-3g", "A100 40GB", "mig-3g.20gb", 8, 16, "p4d.24xlarge")});
  f.History("a100-3g", 17, 0.8, 4000, 8 * kGiB);
  const auto result = f.Place(Execution(OneGpu()), std::vector<std::string>{"a100-3g"});
  constexpr int kRecords = 15;
  // Each replica has its own connection and records its own executions and
  // the shared ones; Catch's assertions stay on this thread.
  auto replica = [&](const std::string& name, std::string* failure) {
    auto store = Store::Open(f.location);
    if (!store.ok()) {
      *failure = store.status().ToString();
      return;
    }
    for (int i = 0; i < kRecords; ++i) {
      for (const std::string& execution :
           {fmt::format("{}-{}", name, i), fmt::format("shared-{}", i)}) {
        if (auto id = RecordPlacement(**store, execution, result); !id.ok()) {
          *failure = id.status().ToString();
          return;
        }
      }
    }
  };
  std::string failures[2];
  std::thread first(replica, "a", &failures[0]);
  std::thread second(replica, "b", &failures[1]);
  first.join();
  second.join();
  CHECK(failures[0].empty());
  CHECK(failures[1].empty());
  INFO(failures[0] << failures[1]);
  for (int i = 0; i < kRecords; ++i) {
    for (const std::string& execution :
         {fmt::format("a-{}", i), fmt::format("b-{}", i), fmt::format("shared-{}", i)}) {
      INFO(execution);
      const auto records = ListPlacements(*f.store, execution);
      REQUIRE(records.ok());
      CHECK(records->size() == 1);
    }
  }
}

TEST_CASE(
    "placement: with nothing declared, the workload's history says it uses a GPU and on which "
    "architecture",
    "[placement][engine]") {
  Fixture f;
  f.Register({Pool("a100-3g", "A100 40GB", "mig-3g.20gb", 8, 16, "p4d.24xlarge"),
              ArmCpuPool("arm-cpu"), CpuPool("x86-cpu")});
  f.History("a100-3g", 17, 0.8, 4000, 8 * kGiB);  // five GPU executions on x86_64
  const auto result =
      f.Place(Execution(), std::vector<std::string>{"arm-cpu", "x86-cpu", "a100-3g"});
  REQUIRE(result.chosen_evaluation() != nullptr);
  CHECK(result.chosen_evaluation()->node_pool_id == "a100-3g");
  const auto by_pool = ByPool(result);
  const CandidateEvaluation& gpu = by_pool.at("a100-3g");
  CHECK(gpu.request.gpu_count == 1);
  CHECK(*gpu.needs.gpu_memory_gb == Approx(17 * 1.1));
  CHECK(gpu.request.gpu_config_id == std::optional<std::string>("nvidia-a100-40gb-mig-3g.20gb"));
  const CandidateEvaluation& arm = by_pool.at("arm-cpu");
  CHECK_FALSE(arm.feasible);
  CHECK_THAT(arm.reason, Catch::Contains("needs 1 GPU; this pool has none"));
  CHECK_THAT(arm.reason, Catch::Contains("ran only on x86_64 (recorded by 5 of its last 5 "
                                         "executions that ran); this pool is aarch64"));
  CHECK(by_pool.at("x86-cpu").reason == "needs 1 GPU; this pool has none");
  for (const auto& [id, e] : by_pool) {
    INFO(id);
    CHECK_THAT(e.notes,
               Catch::VectorContains(std::string(
                   "gpu_count 1 from history: 5 of its last 5 executions that ran used GPUs")));
  }
}

TEST_CASE("placement: what the author declared wins over the workload's history",
          "[placement][engine]") {
  Fixture f;
  f.Register({Pool("a100-3g", "A100 40GB", "mig-3g.20gb", 8, 16, "p4d.24xlarge"),
              ArmCpuPool("arm-cpu"), CpuPool("x86-cpu")});
  f.History("a100-3g", 17, 0.8, 4000, 8 * kGiB);
  DeclaredResources cpu_only;
  cpu_only.gpu_count = 0;
  cpu_only.architecture = "aarch64";
  const auto result =
      f.Place(Execution(cpu_only), std::vector<std::string>{"x86-cpu", "a100-3g", "arm-cpu"});
  REQUIRE(result.chosen_evaluation() != nullptr);
  CHECK(result.chosen_evaluation()->node_pool_id == "arm-cpu");
  CHECK(result.chosen_evaluation()->request.gpu_count == 0);
  CHECK(result.chosen_evaluation()->notes.empty());
  CHECK(ByPool(result).at("x86-cpu").reason ==
        "declares architecture aarch64; this pool has x86_64");
}

TEST_CASE("placement: a CPU-only history keeps the work on the architecture it ran on",
          "[placement][engine]") {
  Fixture f;
  f.Register({ArmCpuPool("arm-cpu"), CpuPool("x86-cpu"),
              Pool("a100-3g", "A100 40GB", "mig-3g.20gb", 8, 16, "p4d.24xlarge")});
  f.History("arm-cpu", 0, 0, 3000, 4 * kGiB);
  const auto result =
      f.Place(Execution(), std::vector<std::string>{"x86-cpu", "a100-3g", "arm-cpu"});
  REQUIRE(result.chosen_evaluation() != nullptr);
  CHECK(result.chosen_evaluation()->node_pool_id == "arm-cpu");
  CHECK(result.chosen_evaluation()->request.gpu_count == 0);
  const auto by_pool = ByPool(result);
  CHECK_FALSE(by_pool.at("x86-cpu").feasible);
  CHECK(by_pool.at("x86-cpu").reason ==
        "ran only on aarch64 (recorded by 5 of its last 5 executions that ran); this pool is "
        "x86_64: declare architecture x86_64 to place it here");
  CHECK_THAT(by_pool.at("arm-cpu").notes,
             Catch::VectorContains(std::string(
                 "gpu_count 0 from history: none of its last 5 executions that ran used GPUs")));
}

TEST_CASE(
    "placement: best_fit ranks by one score, so a little compute shortfall does not lose to a "
    "large card waste",
    "[placement][engine]") {
  Fixture f;
  f.Register({Pool("l4", "L4", "full", 1, 1, "g2-standard-8"),
              Pool("h100-3g", "H100 80GB", "mig-3g.40gb", 8, 16, "a3-highgpu-8g")});
  // Peaks of 8.07 GB at 87 % of 3/7 of an H100: it needs 0.45 of a card and 8.9 GB.
  f.History("h100-3g", 8.07, 0.87, 4000, 8 * kGiB);
  const auto result = f.Place(Execution(OneGpu()), std::vector<std::string>{"l4", "h100-3g"});
  CHECK(Order(result) == std::vector<std::string>{"h100-3g", "l4"});
  const auto by_pool = ByPool(result);
  const CandidateEvaluation& h100 = by_pool.at("h100-3g");
  const CandidateEvaluation& l4 = by_pool.at("l4");
  CHECK(*h100.needs.gpu_compute_fraction == Approx(0.45));
  CHECK(*h100.waste.card == Approx(0.05));
  CHECK(*l4.waste.card == Approx(0.63).margin(0.005));
}

TEST_CASE("placement: a kept evaluator reads the history other writers added since its last call",
          "[placement][engine]") {
  Fixture f;
  auto evaluator = f.EvaluatorOverOneA100Pool();
  const std::vector<PlacementCandidate> a100 = {{"a100", {}, {}, {}}};
  f.History("a100", 17, 0.8, 4000, 8 * kGiB);
  auto first = evaluator->Evaluate(Execution(), a100, PlacementPolicy::kBestFit, kNow);
  REQUIRE(first.ok());
  CHECK(first->shape.history_executions == 5);
  auto again = evaluator->Evaluate(Execution(), a100, PlacementPolicy::kBestFit, kNow);
  REQUIRE(again.ok());
  CHECK(again->shape.history_executions == 5);
  {  // another connection, as another process would
    auto other = test::OpenStoreOrFail(f.location);
    auto ingestor = Ingestor::Open(*other).value();
    std::vector<Observation> batch;
    for (int n = 100; n < 103; ++n) batch.push_back(Ran("a100", n, 17, 0.8, 4000, 24 * kGiB));
    auto summary = ingestor->Ingest(batch);
    REQUIRE(summary.ok());
    REQUIRE(summary->accepted == 3);
  }
  auto after = evaluator->Evaluate(Execution(), a100, PlacementPolicy::kBestFit, kNow);
  REQUIRE(after.ok());
  CHECK(after->shape.history_executions == 8);
  // Their larger memory peaks are in the figures too, not the ones read before.
  REQUIRE(again->evaluations.size() == 1);
  REQUIRE(after->evaluations.size() == 1);
  CHECK(after->evaluations[0].request.memory_bytes.value_or(0) >
        again->evaluations[0].request.memory_bytes.value_or(0) + 8 * kGiB);
  f.History("a100", 17, 0.8, 4000, 48 * kGiB, 200);  // this connection, larger peaks again
  auto own = evaluator->Evaluate(Execution(), a100, PlacementPolicy::kBestFit, kNow);
  REQUIRE(own.ok());
  CHECK(own->shape.history_executions == 13);
  REQUIRE(own->evaluations.size() == 1);
  CHECK(own->evaluations[0].request.memory_bytes.value_or(0) >
        after->evaluations[0].request.memory_bytes.value_or(0) + 8 * kGiB);
}

TEST_CASE(
    "placement: history counts only executions that ran: a failed run allows no architecture, a "
    "cancelled one casts no GPU vote",
    "[placement][engine]") {
  Fixture f;
  NodePool arm_gpu = Pool("arm-a100", "A100 40GB", "mig-3g.20gb", 8, 16, "p4d-arm");
  arm_gpu.hardware.architecture = "aarch64";
  f.Register({Pool("a100-3g", "A100 40GB", "mig-3g.20gb", 8, 16, "p4d.24xlarge"), arm_gpu,
              CpuPool("x86-cpu")});
  std::vector<Observation> batch;
  for (int n = 0; n < 3; ++n) batch.push_back(Ran("a100-3g", n, 17, 0.8, 4000, 8 * kGiB));
  // Newer: two runs on aarch64 that never started (exec format error) and
  // four cancelled before they touched a GPU.
  for (int n = 10; n < 12; ++n) {
    Observation o = Ran("arm-a100", n, 0, 0, 100, kGiB);
    o.finished_at = kNow - 60 - n;
    o.status = ExecutionStatus::kFailed;
    batch.push_back(o);
  }
  for (int n = 20; n < 24; ++n) {
    Observation o = Ran("x86-cpu", n, 0, 0, 100, kGiB);
    o.finished_at = kNow - 60 - n;
    o.status = ExecutionStatus::kCancelled;
    batch.push_back(o);
  }
  f.Ingest(batch);
  const auto result =
      f.Place(Execution(), std::vector<std::string>{"x86-cpu", "arm-a100", "a100-3g"});
  CHECK(result.shape.gpu_count == 1);
  CHECK(result.shape.history_executions == 3);
  CHECK(result.shape.gpu_executions == 3);
  CHECK(result.shape.architectures == std::vector<std::string>{"x86_64"});
  REQUIRE(result.chosen_evaluation() != nullptr);
  CHECK(result.chosen_evaluation()->node_pool_id == "a100-3g");
  const auto by_pool = ByPool(result);
  CHECK_FALSE(by_pool.at("arm-a100").feasible);
  CHECK_THAT(by_pool.at("arm-a100").reason,
             Catch::Contains("ran only on x86_64 (recorded by 3 of its last 3 executions that "
                             "ran); this pool is aarch64"));
  CHECK(by_pool.at("x86-cpu").reason == "needs 1 GPU; this pool has none");
  CHECK_THAT(result.shape.notes,
             Catch::VectorContains(std::string(
                 "gpu_count 1 from history: 3 of its last 3 executions that ran used GPUs")));
}

TEST_CASE(
    "placement: a gpu_oom run and a requested GPU figure count as GPU use in the workload's "
    "history",
    "[placement][engine]") {
  Fixture f;
  f.Register(
      {Pool("a100-3g", "A100 40GB", "mig-3g.20gb", 8, 16, "p4d.24xlarge"), CpuPool("x86-cpu")});
  // Neither GPU run reported a GPU figure of its own: one ran out of GPU
  // memory, the other was given GPU memory and a share.
  Observation oom = Ran("a100-3g", 0, 0, 0, 4000, 8 * kGiB);
  oom.status = ExecutionStatus::kGpuOom;
  Observation given = Ran("a100-3g", 1, 0, 0, 4000, 8 * kGiB);
  given.requested.gpu_memory_gb = 20;
  given.requested.gpu_compute_fraction = 3.0 / 7;
  const Observation cpu = Ran("x86-cpu", 2, 0, 0, 4000, 8 * kGiB);
  f.Ingest({oom, given, cpu});
  const auto result = f.Place(Execution(), std::vector<std::string>{"x86-cpu", "a100-3g"});
  CHECK(result.shape.gpu_count == 1);
  CHECK(result.shape.gpu_executions == 2);
  REQUIRE(result.chosen_evaluation() != nullptr);
  CHECK(result.chosen_evaluation()->node_pool_id == "a100-3g");
  CHECK_THAT(ByPool(result).at("a100-3g").notes,
             Catch::VectorContains(std::string(
                 "gpu_count 1 from history: 2 of its last 3 executions that ran used GPUs")));
}

TEST_CASE(
    "placement: every candidate's notes say the architecture and the GPU count came from history",
    "[placement][engine]") {
  Fixture f;
  f.Register({Pool("a100-3g", "A100 40GB", "mig-3g.20gb", 8, 16, "p4d.24xlarge"),
              ArmCpuPool("arm-cpu"), CpuPool("x86-cpu")});
  f.History("a100-3g", 17, 0.8, 4000, 8 * kGiB);
  const auto result =
      f.Place(Execution(), std::vector<std::string>{"arm-cpu", "x86-cpu", "a100-3g"});
  for (const CandidateEvaluation& e : result.evaluations) {
    INFO(e.node_pool_id);
    CHECK_THAT(e.notes,
               Catch::VectorContains(std::string(
                   "gpu_count 1 from history: 5 of its last 5 executions that ran used GPUs")));
    CHECK_THAT(
        e.notes,
        Catch::VectorContains(std::string(
            "architecture x86_64 from history: recorded by 5 of its last 5 executions that ran")));
  }
  // Declared, the architecture is not noted; the GPU count still is.
  DeclaredResources x86;
  x86.architecture = "x86_64";
  const auto declared = f.Place(Execution(x86), std::vector<std::string>{"a100-3g"});
  for (const std::string& note : declared.evaluations[0].notes) {
    CHECK_THAT(note, !Catch::Contains("architecture"));
  }
  CHECK(declared.evaluations[0].notes.front() ==
        "gpu_count 1 from history: 5 of its last 5 executions that ran used GPUs");
}

TEST_CASE(
    "placement: a GPU count taken from history tells the author to declare gpu_count for more "
    "than one GPU",
    "[placement][engine]") {
  Fixture f;
  f.Register({Pool("a100-3g", "A100 40GB", "mig-3g.20gb", 8, 16, "p4d.24xlarge")});
  f.History("a100-3g", 17, 0.8, 4000, 8 * kGiB);
  const std::string hint =
      "history asks for 1 GPU: none of its executions said how many GPUs it held "
      "(gpu_count_held; an observation's hardware.gpu_count is its node's): declare gpu_count "
      "when the execution uses more than one";
  const auto result = f.Place(Execution(), std::vector<std::string>{"a100-3g"});
  CHECK(result.shape.gpu_count == 1);
  CHECK_THAT(result.evaluations[0].notes, Catch::VectorContains(hint));
  DeclaredResources two;
  two.gpu_count = 2;
  const auto declared = f.Place(Execution(two), std::vector<std::string>{"a100-3g"});
  CHECK(declared.shape.gpu_count == 2);
  CHECK_THAT(declared.evaluations[0].notes, !Catch::VectorContains(hint));
}

TEST_CASE(
    "placement: a retry floor with GPU figures but no gpu_count asks for a GPU, with nothing "
    "declared and no history",
    "[placement][engine]") {
  Fixture f;
  f.Register({CpuPool("cpu"), Pool("a100-80", "A100 80GB", "full", 8, 8, "a2-ultragpu-8g")});
  const auto result =
      f.Place(RetriedWithGpuMemoryFloor({}, 30), std::vector<std::string>{"cpu", "a100-80"});
  CHECK(result.shape.gpu_count == 1);
  CHECK(result.shape.gpu_count_source == ShapeSource::kRetryFloor);
  REQUIRE(result.chosen_evaluation() != nullptr);
  const CandidateEvaluation& chosen = *result.chosen_evaluation();
  CHECK(chosen.node_pool_id == "a100-80");
  CHECK(*chosen.needs.gpu_memory_gb == 30);
  CHECK(Origin(chosen, FigureKind::kGpuMemoryGb).source == FigureSource::kRetryFloor);
  CHECK_THAT(chosen.notes, Catch::VectorContains(std::string(
                               "gpu_count 1 from the retry floor: it sets gpu_memory_gb")));
  CHECK(ByPool(result).at("cpu").reason == "needs 1 GPU; this pool has none");
}

TEST_CASE(
    "placement: an unknown GPU memory need leaves the card waste and the score unknown, not a "
    "whole card wasted",
    "[placement][engine]") {
  Fixture f;
  f.Register({Pool("a100-80", "A100 80GB", "full", 8, 8, "a2-ultragpu-8g"),
              Pool("a100-40-3g", "A100 40GB", "mig-3g.20gb", 8, 16, "p4d.24xlarge")});
  DeclaredResources share = OneGpu();  // no history: only the compute share is known
  share.gpu_compute_fraction = 0.3;
  const auto result = f.Place(Execution(share), std::vector<std::string>{"a100-80", "a100-40-3g"});
  for (const CandidateEvaluation& e : result.evaluations) {
    INFO(e.node_pool_id);
    CHECK(e.feasible);
    CHECK_FALSE(e.waste.card.has_value());
    CHECK_FALSE(e.waste.score.has_value());
    CHECK(e.waste.compute_shortfall == std::optional<double>(0));
    CHECK_THAT(e.notes, Catch::VectorContains(std::string(
                            "GPU memory needed is unknown (no history of it, none declared): "
                            "card waste and score unknown, ranked after every pool with a known "
                            "score; declare gpu_memory_gb to score it")));
  }
  // With the memory need known the same pools score.
  share.gpu_memory_gb = 10;
  const auto known = f.Place(Execution(share), std::vector<std::string>{"a100-80", "a100-40-3g"});
  CHECK(Order(known) == std::vector<std::string>{"a100-40-3g", "a100-80"});
  CHECK(*known.evaluations[0].waste.score == Approx(0.5 - 0.3));
}

TEST_CASE(
    "placement: among pools of unknown score a known compute shortfall ranks before an unknown "
    "one",
    "[placement][engine]") {
  Fixture f;
  f.Register({Pool("sitec-l4", "L4", "full", 1, 1, "g2-standard-8"),
              Pool("a100-mig", "A100 40GB", "mig-3g.20gb", 8, 16, "p4d.24xlarge"),
              Pool("h100-3g", "H100 80GB", "mig-3g.40gb", 8, 16, "a3-highgpu-8g")});
  // Five runs at 87 % of 3/7 of an H100 that reported no GPU memory: every
  // score is unknown; only the H100 partition's shortfall is known (0.02).
  // CPU and memory come from the same history on every pool, so that the
  // history-sized H100 pool does not rank first for that alone.
  REQUIRE(SetConfig(*f.store, "fallback.cpu_memory_any_hardware", "true").ok());
  std::vector<Observation> batch;
  for (int n = 0; n < 5; ++n) {
    Observation o = Ran("h100-3g", n, 0, 0, 4000, 8 * kGiB);
    o.gpu_utilization = 0.87;
    batch.push_back(o);
  }
  f.Ingest(batch);
  const auto result =
      f.Place(Execution(), std::vector<std::string>{"sitec-l4", "a100-mig", "h100-3g"});
  const auto by_pool = ByPool(result);
  for (const auto& [id, e] : by_pool) {
    INFO(id);
    CHECK_FALSE(e.waste.score.has_value());
  }
  CHECK(by_pool.at("sitec-l4").waste.compute_shortfall == std::optional<double>(0));
  CHECK_FALSE(by_pool.at("a100-mig").waste.compute_shortfall.has_value());
  REQUIRE(by_pool.at("h100-3g").waste.compute_shortfall.has_value());
  CHECK(*by_pool.at("h100-3g").waste.compute_shortfall > 0);
  CHECK(Order(result) == std::vector<std::string>{"sitec-l4", "h100-3g", "a100-mig"});
}

TEST_CASE("placement: the architecture from history counts only the executions that recorded one",
          "[placement][engine]") {
  Fixture f;
  NodePool unrecorded = Pool("a100-noarch", "A100 40GB", "mig-3g.20gb", 8, 16, "p4d-noarch");
  unrecorded.hardware.architecture.reset();
  NodePool arm_gpu = Pool("arm-a100", "A100 40GB", "mig-3g.20gb", 8, 16, "p4d-arm");
  arm_gpu.hardware.architecture = "aarch64";
  f.Register(
      {Pool("a100-3g", "A100 40GB", "mig-3g.20gb", 8, 16, "p4d.24xlarge"), unrecorded, arm_gpu});
  std::vector<Observation> batch;
  for (int n = 0; n < 3; ++n) batch.push_back(Ran("a100-3g", n, 17, 0.8, 4000, 8 * kGiB));
  for (int n = 3; n < 5; ++n) batch.push_back(Ran("a100-noarch", n, 17, 0.8, 4000, 8 * kGiB));
  f.Ingest(batch);
  const auto result = f.Place(Execution(), std::vector<std::string>{"arm-a100", "a100-3g"});
  CHECK(result.shape.history_executions == 5);
  CHECK(result.shape.architectures == std::vector<std::string>{"x86_64"});
  const auto by_pool = ByPool(result);
  CHECK_THAT(by_pool.at("a100-3g").notes,
             Catch::VectorContains(std::string(
                 "architecture x86_64 from history: recorded by 3 of its last 5 executions that "
                 "ran")));
  CHECK_THAT(by_pool.at("arm-a100").reason,
             Catch::Contains("ran only on x86_64 (recorded by 3 of its last 5 executions that "
                             "ran); this pool is aarch64"));
}

TEST_CASE(
    "placement: a declared gpu_count 0 wins over a retry floor's GPU figures; a floor's gpu_count "
    "still raises it",
    "[placement][engine]") {
  Fixture f;
  f.Register({CpuPool("cpu"), Pool("a100-80", "A100 80GB", "full", 8, 8, "a2-ultragpu-8g")});
  DeclaredResources cpu_only;
  cpu_only.gpu_count = 0;
  ExecutionToPlace retry = RetriedWithGpuMemoryFloor(cpu_only, 30);
  const auto result = f.Place(retry, std::vector<std::string>{"a100-80", "cpu"});
  CHECK(result.shape.gpu_count == 0);
  CHECK(result.shape.gpu_count_source == ShapeSource::kDeclared);
  REQUIRE(result.chosen_evaluation() != nullptr);
  CHECK(result.chosen_evaluation()->node_pool_id == "cpu");
  CHECK_THAT(result.shape.notes,
             Catch::VectorContains(std::string(
                 "the retry floor's gpu_memory_gb is ignored: gpu_count 0 is declared")));
  retry.retry_floor->gpu_count = 1;
  const auto raised = f.Place(retry, std::vector<std::string>{"a100-80", "cpu"});
  CHECK(raised.shape.gpu_count == 1);
  CHECK(raised.shape.gpu_count_source == ShapeSource::kRetryFloor);
  CHECK_THAT(
      raised.shape.notes,
      Catch::VectorContains(std::string("gpu_count 1 from the retry floor, above the declared 0")));
}

TEST_CASE(
    "placement: history reads a bounded window, so a crash-looping workload's failed runs are not "
    "all scanned",
    "[placement][engine]") {
  Fixture f;
  f.Register(
      {Pool("a100-3g", "A100 40GB", "mig-3g.20gb", 8, 16, "p4d.24xlarge"), CpuPool("x86-cpu")});
  std::vector<Observation> batch;
  for (int n = 0; n < 5; ++n) batch.push_back(Ran("a100-3g", n, 17, 0.8, 4000, 8 * kGiB));
  // Newer: more failed runs than the window reads.
  for (int n = 0; n < internal::kShapeHistoryScan + 20; ++n) {
    Observation o = Ran("x86-cpu", 100 + n, 0, 0, 100, kGiB);
    o.finished_at = kNow - 60 - n * 0.01;
    o.status = ExecutionStatus::kFailed;
    batch.push_back(o);
  }
  f.Ingest(batch);
  const auto result = f.Place(Execution(), std::vector<std::string>{"x86-cpu", "a100-3g"});
  CHECK(result.shape.history_executions == 0);
  CHECK(result.shape.gpu_count_source == ShapeSource::kNone);
  CHECK_THAT(result.shape.notes,
             Catch::VectorContains(fmt::format("no execution that ran ({} failed/cancelled passed "
                                               "over): declare gpu_count and architecture",
                                               internal::kShapeHistoryScan)));
}

TEST_CASE(
    "placement: a requested GPU figure counts as GPU use only when no GPU figure was measured",
    "[placement][engine]") {
  auto gpu_executions = [&](const Observation& o) {
    Fixture g;
    g.Register({CpuPool("x86-cpu")});
    g.Ingest({o});
    return g.Place(Execution(), std::vector<std::string>{"x86-cpu"}).shape.gpu_executions;
  };
  Observation memory = Ran("x86-cpu", 0, 0, 0, 4000, 8 * kGiB);
  memory.requested.gpu_memory_gb = 20;
  CHECK(gpu_executions(memory) == 1);
  Observation share = Ran("x86-cpu", 0, 0, 0, 4000, 8 * kGiB);
  share.requested.gpu_compute_fraction = 0.5;
  CHECK(gpu_executions(share) == 1);
  Observation measured_zero = share;
  measured_zero.requested.gpu_memory_gb = 20;
  measured_zero.gpu_utilization = 0;
  measured_zero.gpu_memory_peak_gb = 0;
  CHECK(gpu_executions(measured_zero) == 0);
  Observation utilization_zero = share;
  utilization_zero.gpu_utilization = 0;
  CHECK(gpu_executions(utilization_zero) == 0);  // one measured figure is enough to outvote it
}

TEST_CASE(
    "placement: a known compute share of at least what the partition gives makes the card waste "
    "0, even with the GPU memory need unknown",
    "[placement][engine]") {
  Fixture f;
  f.Register({Pool("a100-80", "A100 80GB", "full", 8, 8, "a2-ultragpu-8g"),
              Pool("a100-40-3g", "A100 40GB", "mig-3g.20gb", 8, 16, "p4d.24xlarge")});
  DeclaredResources share = OneGpu();
  share.gpu_compute_fraction = 0.6;  // more than 3g.20gb gives (half the card), less than a card
  const auto result = f.Place(Execution(share), std::vector<std::string>{"a100-80", "a100-40-3g"});
  const auto by_pool = ByPool(result);
  const CandidateEvaluation& mig = by_pool.at("a100-40-3g");
  CHECK(mig.waste.card == std::optional<double>(0));
  REQUIRE(mig.waste.score.has_value());
  CHECK(*mig.waste.score == Approx(mig.waste.shortfall_weight * (0.6 - 3.0 / 7)).margin(1e-6));
  CHECK_FALSE(by_pool.at("a100-80").waste.card.has_value());  // 0.6 of a card: memory decides
  CHECK_FALSE(by_pool.at("a100-80").waste.score.has_value());
  share.gpu_compute_fraction = 1;
  const auto whole = f.Place(Execution(share), std::vector<std::string>{"a100-80"});
  CHECK(whole.evaluations[0].waste.card == std::optional<double>(0));
  CHECK(whole.evaluations[0].waste.score == std::optional<double>(0));
}

TEST_CASE("placement: the result's shape carries the notes on where the shape came from",
          "[placement][engine]") {
  Fixture f;
  f.Register({Pool("a100-3g", "A100 40GB", "mig-3g.20gb", 8, 16, "p4d.24xlarge")});
  f.History("a100-3g", 17, 0.8, 4000, 8 * kGiB);
  DeclaredResources share;
  share.gpu_compute_fraction = 0.9;  // short of compute on 3g.20gb: a note of that pool's own
  share.pinned = {"gpu_compute_fraction"};
  share.architecture = "x86_64";
  ExecutionToPlace execution = Execution();
  const auto result = f.Place(execution, std::vector<std::string>{"a100-3g"});
  REQUIRE_FALSE(result.shape.notes.empty());
  const std::vector<std::string>& notes = result.evaluations[0].notes;
  REQUIRE(notes.size() >= result.shape.notes.size());
  const std::vector<std::string> first(
      notes.begin(), notes.begin() + static_cast<std::ptrdiff_t>(result.shape.notes.size()));
  CHECK(first == result.shape.notes);
  const auto declared = f.Place(Execution(share), std::vector<std::string>{"a100-3g"});
  CHECK(declared.shape.notes.empty());
  CHECK_FALSE(declared.evaluations[0].notes.empty());
}

namespace {

// Cards shared by share (free_gpu_shares): two T4 pools, an execution asking
// for half a card, 1 core and 1 GiB.
struct SharedCards : Fixture {
  SharedCards() {
    Register({Pool("a", "T4", "full", 4, 4, "n1-standard-32"),
              Pool("b", "T4", "full", 4, 4, "n1-standard-32")});
    half.workload = kImage;
    half.declared.gpu_count = 1;
    half.declared.gpu_compute_fraction = 0.5;
    half.declared.cpu_millicores = 1000;
    half.declared.memory_bytes = kGiB;
  }
  static PlacementCandidate Shares(const std::string& id, std::vector<double> shares) {
    PlacementCandidate c{id, {}, {}, {}};
    c.free_gpu_shares = std::move(shares);
    return c;
  }
  // `execution` placed on pool "a" with `shares` free: its evaluation, which fits.
  CandidateEvaluation FitOnA(const ExecutionToPlace& execution, std::vector<double> shares) {
    const PlacementResult r = Place(execution, {Shares("a", std::move(shares))});
    const CandidateEvaluation& e = r.evaluations[0];
    INFO(e.reason);
    REQUIRE(e.feasible);
    return e;
  }
  // `execution` placed on `candidates` by the fragmentation policy for `mix`.
  PlacementResult PlaceByFragmentation(const std::vector<DemandShape>& mix,
                                       const ExecutionToPlace& execution,
                                       const std::vector<PlacementCandidate>& candidates) {
    auto evaluator = PlacementEvaluator::Open(*store);
    REQUIRE(evaluator.ok());
    REQUIRE((*evaluator)->SetDemandMix(mix).ok());
    auto result =
        (*evaluator)->Evaluate(execution, candidates, PlacementPolicy::kFragmentation, kNow);
    INFO(result.status().ToString());
    REQUIRE(result.ok());
    return std::move(*result);
  }
  ExecutionToPlace half;
};

}  // namespace

TEST_CASE("placement: a share of one card goes on the tightest card with that much free",
          "[placement]") {
  SharedCards f;
  const CandidateEvaluation e = f.FitOnA(f.half, {1, 0.3, 0.6, 0.8});
  CHECK(e.gpu_cards == std::vector<std::size_t>{2});
  CHECK(e.waste.card == 0.0);              // it is given its share of a card others share
  CHECK(e.waste.gpu_left == Approx(2.2));  // 2.7 free, 0.5 taken
}

TEST_CASE("placement: a share of a shared card is asked for as that share and its waste is known",
          "[placement]") {
  SharedCards f;
  const CandidateEvaluation e = f.FitOnA(f.half, {1, 0.3, 0.6, 0.8});
  CHECK(e.request.gpu_compute_fraction == 0.5);
  CHECK(e.request.gpu_memory_gb == 8.0);  // half of a T4's 16 GB
  CHECK(e.waste.score == 0.0);
  CHECK(e.notes == std::vector<std::string>{});  // nothing about the whole card's waste
}

TEST_CASE("placement: the share of a card taken is the larger of its compute and memory shares",
          "[placement]") {
  SharedCards f;
  ExecutionToPlace memory_bound = f.half;
  memory_bound.declared.gpu_compute_fraction = 0.25;
  memory_bound.declared.gpu_memory_gb = 12;  // 0.75 of a T4's 16 GB
  const CandidateEvaluation e = f.FitOnA(memory_bound, {1, 0.5, 0.8, 0.3});
  CHECK(e.gpu_cards == std::vector<std::size_t>{2});  // 0.3 holds the compute, not the memory
  CHECK(e.waste.gpu_left == Approx(1.85));            // 2.6 free, 0.75 taken
  CHECK(e.request.gpu_compute_fraction == 0.75);
  CHECK(e.request.gpu_memory_gb == 12.0);
}

TEST_CASE("placement: cards shared by share refuse a share larger than any card's free share",
          "[placement]") {
  SharedCards f;
  ExecutionToPlace two_whole = f.half;
  two_whole.declared.gpu_compute_fraction.reset();
  two_whole.declared.gpu_count = 2;
  const PlacementResult r = f.Place(f.half, {SharedCards::Shares("a", {0.3, 0.4, 0, 0})});
  CHECK_FALSE(r.chosen);
  CHECK_THAT(
      r.evaluations[0].reason,
      Catch::Contains("needs 0.50 of a card; the most free on one card of this pool is 0.40"));
  const PlacementResult whole = f.Place(two_whole, {SharedCards::Shares("a", {1, 0.9, 0, 0})});
  CHECK_THAT(whole.evaluations[0].reason,
             Catch::Contains("needs 2 whole GPUs; this pool has 1 whole GPU free"));
  const PlacementResult fits = f.Place(two_whole, {SharedCards::Shares("a", {1, 0.9, 1, 0})});
  REQUIRE(fits.chosen);
  CHECK(fits.evaluations[0].gpu_cards == std::vector<std::size_t>{0, 2});
}

TEST_CASE("placement: free_gpu_shares must list exactly one share per GPU of a node",
          "[placement]") {
  SharedCards f;  // "a": 4 T4 cards
  f.Register({Pool("a100-1g", "A100 80GB", "mig-1g.10gb", 8, 56, "a2-ultragpu-8g")});
  const PlacementResult r =
      f.Place(f.half, {SharedCards::Shares("a", {1, 1}),
                       SharedCards::Shares("a100-1g", std::vector<double>(10, 1.0))});
  CHECK_FALSE(r.chosen);
  const auto by_pool = ByPool(r);
  CHECK_THAT(by_pool.at("a").reason,
             Catch::Contains("free_gpu_shares lists 2 GPUs; a node of this pool has 4 GPUs"));
  CHECK_THAT(by_pool.at("a100-1g").reason,
             Catch::Contains("free_gpu_shares lists 10 GPUs; a node of this pool has 8 GPUs"));
}

TEST_CASE("placement: a MIG pool's free_partitions bounds it when free_gpu_shares are listed too",
          "[placement]") {
  SharedCards f;
  // A MIG pool of a known card, and one whose card is not recorded: both
  // give whole partitions, so the shares a caller lists are not used.
  f.Register({Pool("a100-1g", "A100 80GB", "mig-1g.10gb", 8, 56, "a2-ultragpu-8g"),
              Pool("mig-unknown", std::nullopt, "mig-1g.10gb", 8, 56, "on-prem-mig")});
  ExecutionToPlace one = f.half;
  one.declared.gpu_compute_fraction.reset();
  one.declared.gpu_memory_gb = 8;
  for (const std::string& id : {std::string("a100-1g"), std::string("mig-unknown")}) {
    INFO(id);
    PlacementCandidate none_free = SharedCards::Shares(id, std::vector<double>(8, 1.0));
    none_free.free_partitions = 0;
    const PlacementResult full = f.Place(one, {none_free});
    CHECK_FALSE(full.chosen);
    CHECK_THAT(full.evaluations[0].reason, Catch::Contains("needs 1 GPU; this pool has 0 free"));
    PlacementCandidate one_free = none_free;
    one_free.free_partitions = 1;
    const PlacementResult fits = f.Place(one, {one_free});
    REQUIRE(fits.chosen);
    CHECK(fits.evaluations[0].gpu_cards.empty());  // partitions, not shares of a card
    // Nor do the unused shares say what is left: 7 whole cards it is not.
    CHECK_FALSE(fits.evaluations[0].waste.gpu_left.has_value());
    const std::vector<std::string>& notes = fits.evaluations[0].notes;
    CHECK(std::any_of(notes.begin(), notes.end(), [](const std::string& note) {
      return note.rfind("free_gpu_shares not used: this pool gives whole ", 0) == 0 &&
             note.find("1g.10gb") != std::string::npos;
    }));
  }
}

TEST_CASE("placement: a C++ caller's declared values are checked as the JSON form checks them",
          "[placement]") {
  SharedCards f;
  auto evaluator = PlacementEvaluator::Open(*f.store);
  REQUIRE(evaluator.ok());
  const auto refused = [&](const ExecutionToPlace& execution) {
    auto result = (*evaluator)
                      ->Evaluate(execution, {SharedCards::Shares("a", {1, 1, 1, 1})},
                                 PlacementPolicy::kBestFit, kNow);
    REQUIRE_FALSE(result.ok());
    CHECK(result.status().code() == hwrec::StatusCode::kInvalidArgument);
    return result.status().message();
  };
  ExecutionToPlace bad = f.half;
  bad.declared.gpu_count = -1;
  CHECK_THAT(refused(bad),
             Catch::StartsWith("declared.gpu_count is -1: ") && Catch::Contains("0 or more"));
  bad = f.half;
  bad.declared.gpu_compute_fraction = 1.5;
  CHECK_THAT(refused(bad), Catch::StartsWith("declared.gpu_compute_fraction is 1.5: "));
  bad = f.half;
  bad.declared.memory_bytes = -5;
  CHECK_THAT(refused(bad), Catch::StartsWith("declared.memory_bytes is -5: "));
  bad = f.half;
  bad.retry_floor = DeclaredResources{};
  bad.retry_floor->gpu_memory_gb = std::numeric_limits<double>::quiet_NaN();
  CHECK_THAT(refused(bad), Catch::StartsWith("retry_floor.gpu_memory_gb is nan: "));
  bad = f.half;
  bad.declared.pinned = {"gpu_count"};
  CHECK_THAT(refused(bad),
             Catch::Contains("pinned 'gpu_count' is not a figure that can be pinned"));
  bad = f.half;
  bad.declared.pinned = {"memory_bytes"};
  bad.declared.memory_bytes.reset();
  CHECK_THAT(refused(bad), Catch::Contains("pinned 'memory_bytes' has no declared value"));
}

TEST_CASE("placement: a pool the execution does not fit names no card", "[placement]") {
  SharedCards f;
  ExecutionToPlace too_many_cores = f.half;
  too_many_cores.declared.cpu_millicores = 100000;  // a node has 64 cores; the cards have room
  const PlacementResult r = f.Place(too_many_cores, {SharedCards::Shares("a", {1, 0.3, 0.6, 0.8})});
  const CandidateEvaluation& e = r.evaluations[0];
  CHECK_THAT(e.reason, Catch::Contains("needs 100000 CPU millicores"));
  CHECK(e.gpu_cards.empty());
}

TEST_CASE("placement: best_fit chooses the node left with the least free GPU", "[placement]") {
  SharedCards f;
  const PlacementResult r = f.Place(
      f.half, {SharedCards::Shares("a", {1, 1, 1, 1}), SharedCards::Shares("b", {1, 1, 1, 0.5})});
  REQUIRE(r.chosen);
  CHECK(r.chosen_evaluation()->node_pool_id == "b");
  CHECK(r.chosen_evaluation()->gpu_cards == std::vector<std::size_t>{3});
}

TEST_CASE("placement: a pool's free_partitions counts as at most a node's cards of free GPU",
          "[placement]") {
  Fixture f;
  f.Register({Pool("a100", "A100 80GB", "full", 8, 8, "a2-ultragpu-8g")});
  // Free partitions are the pool's; one node holds 8 cards, whatever the pool has free.
  for (const std::int64_t free : {std::int64_t{20}, std::int64_t{1} << 62}) {
    INFO("free_partitions " << free);
    const PlacementResult r =
        f.Place(Execution(OneGpu()), {PlacementCandidate{"a100", free, {}, {}}});
    CHECK(r.evaluations[0].waste.gpu_left == 7.0);
  }
}

TEST_CASE("placement: of two equal fits best_fit chooses the pool left with fewer free partitions",
          "[placement]") {
  Fixture f;
  f.Register({Pool("roomy", "A100 80GB", "full", 8, 8, "a2-ultragpu-8g"),
              Pool("busy", "A100 80GB", "full", 8, 8, "a2-ultragpu-8g")});
  // No free_gpu_shares: free_partitions of whole cards alone give gpu_left
  // (docs/PLACEMENT.md "Score", rule 6).
  const PlacementResult r =
      f.Place(Execution(OneGpuWithMemory(40)),
              {PlacementCandidate{"roomy", 6, {}, {}}, PlacementCandidate{"busy", 3, {}, {}}});
  CHECK(Order(r) == std::vector<std::string>{"busy", "roomy"});
  CHECK(r.evaluations[0].waste.score == r.evaluations[1].waste.score);
  CHECK(r.evaluations[0].waste.gpu_left == 2.0);
  CHECK(r.evaluations[1].waste.gpu_left == 5.0);
}

TEST_CASE("placement: fragmentation keeps free shares the demand mix can use", "[placement]") {
  SharedCards f;
  // Best fit leaves 0.1 of a card on "a", which no half-card request can use;
  // on "b" the half goes on the whole card, leaving 0.5 and 0.7: both usable.
  const std::vector<PlacementCandidate> candidates{SharedCards::Shares("a", {0.6, 0, 0, 0}),
                                                   SharedCards::Shares("b", {1, 0.7, 0, 0})};
  const PlacementResult best = f.Place(f.half, candidates);
  CHECK(best.chosen_evaluation()->node_pool_id == "a");
  const PlacementResult frag = f.PlaceByFragmentation({{1, 0.5, 0, 1}}, f.half, candidates);
  const CandidateEvaluation* chosen = frag.chosen_evaluation();
  REQUIRE(chosen != nullptr);
  CHECK(chosen->node_pool_id == "b");
  CHECK(chosen->gpu_cards == std::vector<std::size_t>{0});
  CHECK(chosen->waste.fragmentation == 0.0);
  CHECK(frag.evaluations[1].waste.fragmentation == Approx(0.1));  // "a": 0.1 left unusable
  CHECK(ToString(PlacementPolicy::kFragmentation) == "fragmentation");
  CHECK(ParsePlacementPolicy("fragmentation") == PlacementPolicy::kFragmentation);
}

TEST_CASE("placement: fragmentation scores an increase as FGD does, 0 to 100", "[placement]") {
  CHECK(FragmentationScore(0) == 50);  // adds nothing
  CHECK(FragmentationScore(0.01) == 49);
  CHECK(FragmentationScore(0.03) == 49);  // one point is about 0.04 of a card near zero
  CHECK(FragmentationScore(0.1) == 47);
  CHECK(FragmentationScore(-0.05) == 51);  // frees some
  CHECK(FragmentationScore(2) == 11);      // the points widen as the increase grows
  CHECK(FragmentationScore(3) == 4);
  CHECK(FragmentationScore(1000) == 0);
  CHECK(FragmentationScore(-1000) == 100);
  CHECK(FragmentationScore(std::numeric_limits<double>::quiet_NaN()) == 0);  // not a number: last
}

TEST_CASE(
    "placement: fragmentation takes placements of one score as equal and the candidate order "
    "among them",
    "[placement]") {
  SharedCards f;
  auto evaluator = PlacementEvaluator::Open(*f.store);
  REQUIRE(evaluator.ok());
  REQUIRE((*evaluator)->SetDemandMix({{1, 0.5, 0, 1}}).ok());
  auto chosen = [&](const ExecutionToPlace& execution,
                    const std::vector<PlacementCandidate>& candidates) {
    const auto r =
        (*evaluator)->Evaluate(execution, candidates, PlacementPolicy::kFragmentation, kNow);
    REQUIRE(r.ok());
    REQUIRE(r->chosen_evaluation() != nullptr);
    return *r->chosen_evaluation();
  };
  // On "a" the half leaves 0.03 no half can use (0.3 already could not); on
  // "b" 0.01. Both score 49: equal, and "a" comes first. Exact ranking and
  // best_fit's gpu_left (0.33 against 0.01) would take "b".
  const std::vector<PlacementCandidate> one_score{SharedCards::Shares("a", {0.53, 0, 0, 0.3}),
                                                  SharedCards::Shares("b", {0.51, 0, 0, 0})};
  const CandidateEvaluation first = chosen(f.half, one_score);
  CHECK(first.node_pool_id == "a");
  CHECK(first.waste.fragmentation == Approx(0.03));
  CHECK(f.Place(f.half, one_score).chosen_evaluation()->node_pool_id == "b");
  // Adding nothing ("b" fills its card, 50) ranks before adding anything, however little (49).
  const CandidateEvaluation none = chosen(f.half, {SharedCards::Shares("a", {0.52, 0, 0, 0.3}),
                                                   SharedCards::Shares("b", {0.5, 0, 0, 0})});
  CHECK(none.node_pool_id == "b");
  CHECK(none.waste.fragmentation == 0.0);
  // Scores apart (0.1 added, 47, against 0): the higher score wins over candidate order.
  CHECK(chosen(f.half,
               {SharedCards::Shares("a", {0.6, 0, 0, 0}), SharedCards::Shares("b", {1, 0, 0, 0})})
            .node_pool_id == "b");
}

TEST_CASE(
    "placement: fragmentation puts CPU-only work of one score on the node with the least free "
    "GPU",
    "[placement]") {
  SharedCards f;
  ExecutionToPlace cpu_only;
  cpu_only.workload = kImage;
  cpu_only.declared.gpu_count = 0;
  cpu_only.declared.cpu_millicores = 1000;
  cpu_only.declared.memory_bytes = kGiB;
  // The mix asks no CPU: on either node the CPU taken adds nothing (both 50).
  // "b" has half a card free, "a" four cards: the CPU goes where it strands
  // the least GPU, keeping "a"'s CPU for the GPU work to come.
  const std::vector<PlacementCandidate> candidates{SharedCards::Shares("a", {1, 1, 1, 1}),
                                                   SharedCards::Shares("b", {0.5, 0, 0, 0})};
  const PlacementResult r = f.PlaceByFragmentation({{1, 0.5, 0, 1}}, cpu_only, candidates);
  REQUIRE(r.chosen_evaluation() != nullptr);
  CHECK(r.chosen_evaluation()->node_pool_id == "b");
  CHECK(r.evaluations[0].waste.fragmentation == 0.0);
  CHECK(r.evaluations[1].waste.fragmentation == 0.0);
  CHECK(r.evaluations[0].waste.gpu_left == Approx(0.5));
  CHECK(r.evaluations[1].waste.gpu_left == Approx(4));
}

TEST_CASE("placement: fragmentation weighs card waste only where the increase is unknown",
          "[placement]") {
  Fixture f;
  f.Register({Pool("a100", "A100 80GB", "full", 8, 8, "a2-ultragpu-8g"),
              Pool("t4", "T4", "full", 4, 4, "n1-standard-32")});
  auto evaluator = PlacementEvaluator::Open(*f.store);
  REQUIRE(evaluator.ok());
  REQUIRE((*evaluator)->SetDemandMix({{1, 1, 0, 1}}).ok());
  auto chosen = [&](const std::vector<PlacementCandidate>& candidates) {
    const auto r = (*evaluator)
                       ->Evaluate(Execution(OneGpuWithMemory(8)), candidates,
                                  PlacementPolicy::kFragmentation, kNow);
    REQUIRE(r.ok());
    REQUIRE(r->chosen_evaluation() != nullptr);
    return r->chosen_evaluation()->node_pool_id;
  };
  // Free cards known: a whole card taken adds nothing on either node (both
  // 50), so the candidate order decides, though the A100 wastes more of its card.
  const PlacementCandidate a100 = SharedCards::Shares("a100", std::vector<double>(8, 1));
  const PlacementCandidate t4 = SharedCards::Shares("t4", {1, 1, 1, 1});
  CHECK(chosen({a100, t4}) == "a100");
  CHECK(chosen({t4, a100}) == "t4");
  // Free cards unknown: best_fit's score terms decide, the T4 wasting less
  // (0.5 of a card against 0.9).
  CHECK(chosen({{"a100", {}, {}, {}}, {"t4", {}, {}, {}}}) == "t4");
}

TEST_CASE("placement: a demand mix with a bad shape is refused, naming it", "[placement]") {
  SharedCards f;
  auto evaluator = PlacementEvaluator::Open(*f.store);
  REQUIRE(evaluator.ok());
  const Status share = (*evaluator)->SetDemandMix({{1, 0.5, 0, 1}, {1, 1.5, 0, 1}});
  CHECK_THAT(share.ToString(), Catch::Contains("demand mix shape 2: gpu_share is 1.5"));
  const Status weight = (*evaluator)->SetDemandMix({{1, 1, 0, 0}});
  CHECK_THAT(weight.ToString(), Catch::Contains("weight is 0: give a finite weight above 0"));
  const Status infinite =
      (*evaluator)
          ->SetDemandMix({{1, 1, 0, 1}, {1, 0.5, 0, std::numeric_limits<double>::infinity()}});
  CHECK_THAT(infinite.ToString(),
             Catch::Contains("demand mix shape 2: weight is inf: give a finite weight above 0"));
}

TEST_CASE("placement: a demand mix weighs its shapes alike however large the weights",
          "[placement]") {
  SharedCards f;
  const std::vector<PlacementCandidate> candidates{SharedCards::Shares("a", {0.6, 0, 0, 0})};
  for (const double weight : {1.0, 1e308}) {
    INFO("weight " << weight);
    const PlacementResult r =
        f.PlaceByFragmentation({{1, 0.5, 0, weight}, {1, 0.5, 0, weight}}, f.half, candidates);
    CHECK(r.evaluations[0].waste.fragmentation == Approx(0.1));  // 0.1 left unusable
  }
}

TEST_CASE("placement: free_gpu_shares is read from the candidates file and checked",
          "[placement]") {
  const auto parsed = ParsePlacementCandidates(
      R"([{"node_pool_id": "a", "free_gpu_shares": [1, 0.25]}, {"node_pool_id": "b"}])");
  REQUIRE(parsed.ok());
  CHECK((*parsed)[0].free_gpu_shares == std::vector<double>{1, 0.25});
  CHECK((*parsed)[1].free_gpu_shares.empty());
  const auto above =
      ParsePlacementCandidates(R"([{"node_pool_id": "a", "free_gpu_shares": [1.5]}])");
  CHECK_THAT(above.status().ToString(),
             Catch::Contains("candidate 1: free_gpu_shares[0] is 1.5: each GPU's free share of "
                             "itself is in [0, 1]"));
  const auto text = ParsePlacementCandidates(R"([{"node_pool_id": "a", "free_gpu_shares": "1"}])");
  CHECK_THAT(text.status().ToString(), Catch::Contains("free_gpu_shares must be an array"));
}

TEST_CASE("placement: the payload carries the cards chosen and reads them back", "[placement]") {
  SharedCards f;
  const PlacementResult r = f.Place(f.half, {SharedCards::Shares("a", {1, 0.3, 0.6, 0.8})});
  const auto back = ParsePlacementJson(PlacementToJson(r));
  REQUIRE(back.ok());
  CHECK(*back == r);
  CHECK_THAT(PlacementToJson(r), Catch::Contains("\"gpu_cards\":[2]"));
}

TEST_CASE("placement: a payload's candidate and gpu_cards must be whole numbers of 0 or more",
          "[placement]") {
  SharedCards f;
  const std::string json =
      PlacementToJson(f.Place(f.half, {SharedCards::Shares("a", {1, 0.3, 0.6, 0.8})}));
  // The payload with `from` written as `to`.
  auto with = [&](const std::string& from, const std::string& to) {
    std::string out = json;
    const std::size_t at = out.find(from);
    REQUIRE(at != std::string::npos);
    return out.replace(at, from.size(), to);
  };
  const std::string candidate = R"("candidate":0)";
  const std::string cards = R"("gpu_cards":[2])";
  const std::pair<std::string, std::string> refused[] = {
      {with(candidate, R"("candidate":1.5)"), "candidate is 1.5"},
      {with(candidate, R"("candidate":-1)"), "candidate is -1"},
      {with(candidate, R"("candidate":-1.5)"), "candidate is -1.5"},
      {with(cards, R"("gpu_cards":[-1])"), "gpu_cards[0] is -1"},
      {with(cards, R"("gpu_cards":[2.5])"), "gpu_cards[0] is 2.5"},
      {with(cards, R"("gpu_cards":[0,1e300])"), "gpu_cards[1] is 1e+300"}};
  for (const auto& [payload, says] : refused) {
    INFO(payload);
    CHECK_THAT(ParsePlacementJson(payload).status().ToString(),
               Catch::Contains(says + ": it must be a whole number, 0 or more"));
  }
  CHECK(ParsePlacementJson(with(cards, R"("gpu_cards":[2.0])")).ok());
}

TEST_CASE("placement: a payload's counts and amounts must be whole numbers within 64 bits",
          "[placement]") {
  SharedCards f;
  const std::string json =
      PlacementToJson(f.Place(f.half, {SharedCards::Shares("a", {1, 0.3, 0.6, 0.8})}));
  // The payload with the first number after `key` (within `after`) written as `to`.
  auto with = [&](const std::string& after, const std::string& key, const std::string& to) {
    std::string out = json;
    const std::size_t from = out.find(after);
    REQUIRE(from != std::string::npos);
    const std::size_t at = out.find("\"" + key + "\":", from);
    REQUIRE(at != std::string::npos);
    const std::size_t value = at + key.size() + 3;
    const std::size_t end = out.find_first_of(",}", value);
    return out.replace(value, end - value, to);
  };
  const std::string shape = R"("shape":)";
  const std::string request = R"("request":)";
  const std::string cpu = R"("provenance":{"cpu_request_millicores":)";
  struct Case {
    std::string payload, says;
  };
  const Case refused[] = {
      {with(shape, "gpu_count", "1e300"), "shape.gpu_count is 1e+300"},
      {with(shape, "history_executions", "-1e19"), "shape.history_executions is -1e+19"},
      {with(shape, "gpu_executions", "0.5"), "shape.gpu_executions is 0.5"},
      {with(request, "gpu_count", "9.3e18"), "request.gpu_count is 9.3e+18"},
      {with(request, "cpu_request_millicores", "1e300"),
       "request.cpu_request_millicores is 1e+300"},
      {with(request, "memory_bytes", "18446744073709551615"),
       "request.memory_bytes is 18446744073709551615"},
      {with(cpu, "samples", "2.5"), "provenance.samples is 2.5"}};
  for (const Case& c : refused) {
    INFO(c.payload);
    CHECK_THAT(ParsePlacementJson(c.payload).status().ToString(),
               Catch::Contains(c.says + ": it must be a whole number within 64 bits"));
  }
  const auto whole = ParsePlacementJson(with(request, "gpu_count", "1.0"));
  REQUIRE(whole.ok());
  CHECK(whole->evaluations.front().request.gpu_count == 1);
}

}  // namespace hwrec

namespace hwrec {
namespace {

TEST_CASE(
    "placement: a kept evaluator answers from the pools and settings another handle committed, "
    "without reopening",
    "[placement][engine]") {
  Fixture f;
  f.Register({Pool("a100", "A100 80GB", "mig-3g.40gb", 8, 16, "a2-ultragpu-8g")});
  auto opened = PlacementEvaluator::Open(*f.store);
  REQUIRE(opened.ok());
  PlacementEvaluator& evaluator = **opened;
  DeclaredResources declared;
  declared.gpu_count = 1;
  declared.gpu_memory_gb = 10;
  const std::vector<PlacementCandidate> candidates = {{"a100", {}, {}, {}}, {"h100", {}, {}, {}}};
  auto first =
      evaluator.Evaluate(Execution(declared), candidates, PlacementPolicy::kFirstFit, kNow);
  REQUIRE(first.ok());
  auto by_pool = ByPool(*first);
  CHECK(by_pool.at("a100").request.gpu_config_id ==
        std::optional<std::string>("nvidia-a100-80gb-mig-3g.40gb"));
  CHECK_THAT(by_pool.at("h100").reason, Catch::Contains("is not registered"));
  CHECK(by_pool.at("a100").request.cpu_request_millicores == std::optional<std::int64_t>(1000));

  // Another process: re-partitions one pool, registers another, changes a setting.
  {
    const auto other = test::OpenStoreOrFail(f.location);
    REQUIRE(
        RegisterNodePool(*other, Pool("a100", "A100 80GB", "mig-1g.10gb", 8, 56, "a2-ultragpu-8g"))
            .ok());
    REQUIRE(
        RegisterNodePool(*other, Pool("h100", "H100 80GB", "full", 8, 8, "a3-highgpu-8g")).ok());
    REQUIRE(SetConfig(*other, "default.cpu_request_millicores", "1500").ok());
  }
  auto second =
      evaluator.Evaluate(Execution(declared), candidates, PlacementPolicy::kFirstFit, kNow);
  REQUIRE(second.ok());
  by_pool = ByPool(*second);
  CHECK(by_pool.at("a100").request.gpu_config_id ==
        std::optional<std::string>("nvidia-a100-80gb-mig-1g.10gb"));
  CHECK(by_pool.at("h100").feasible);
  CHECK(by_pool.at("a100").request.cpu_request_millicores == std::optional<std::int64_t>(1500));

  // A call that fails on its input after another change leaves the change
  // for the next call: it is never lost.
  REQUIRE(
      SetConfig(*test::OpenStoreOrFail(f.location), "default.cpu_request_millicores", "2500").ok());
  const std::vector<PlacementCandidate> twice = {{"a100", {}, {}, {}}, {"a100", {}, {}, {}}};
  REQUIRE_FALSE(evaluator.Evaluate(Execution(declared), twice).ok());
  auto third =
      evaluator.Evaluate(Execution(declared), candidates, PlacementPolicy::kFirstFit, kNow);
  REQUIRE(third.ok());
  CHECK(ByPool(*third).at("a100").request.cpu_request_millicores ==
        std::optional<std::int64_t>(2500));
}

TEST_CASE(
    "placement: a chosen pool always carries a CPU and a memory request, and pools history sizes "
    "rank first",
    "[placement][engine]") {
  Fixture f;
  // The workload's only history is on a GPU pool of unknown model.
  const NodePool mystery = UnknownModelPool("mystery");
  f.Register({mystery, Pool("a100", "A100 80GB", "full", 8, 8, "a2-ultragpu-8g")});
  f.History("mystery", 20, 0.5, 3000, 6 * kGiB);
  DeclaredResources one_gpu;
  one_gpu.gpu_count = 1;

  // Best fit would take the whole A100 80GB on waste alone; it has no CPU or
  // memory figure of its own, so the default request sizes it, said so.
  const auto result = f.Place(Execution(one_gpu), std::vector<std::string>{"a100", "mystery"});
  const auto by_pool = ByPool(result);
  const CandidateEvaluation& a100 = by_pool.at("a100");
  CHECK(a100.request.cpu_request_millicores == std::optional<std::int64_t>(1000));
  CHECK(a100.request.cpu_limit_millicores == std::optional<std::int64_t>(1000));
  CHECK(a100.request.memory_bytes == std::optional<std::int64_t>(2 * kGiB));
  const auto origin = [](const CandidateEvaluation& e, FigureKind kind) {
    return std::string(ToString(e.request.origins[static_cast<std::size_t>(kind)]));
  };
  CHECK(origin(a100, FigureKind::kCpuRequestMillicores) == "default");
  CHECK(origin(a100, FigureKind::kMemoryBytes) == "default");
  CHECK(origin(by_pool.at("mystery"), FigureKind::kCpuRequestMillicores) == "exact");
  REQUIRE(result.chosen.has_value());
  CHECK(result.evaluations[*result.chosen].node_pool_id == "mystery");

  // A declaration sizes before the default, and still ranks after history.
  DeclaredResources sized = one_gpu;
  sized.cpu_millicores = 2000;
  sized.memory_bytes = 4 * kGiB;
  const auto declared = ByPool(f.Place(Execution(sized), std::vector<std::string>{"a100"}));
  CHECK(declared.at("a100").request.cpu_request_millicores == std::optional<std::int64_t>(2000));
  CHECK(origin(declared.at("a100"), FigureKind::kMemoryBytes) == "declared");

  // The default is a setting.
  REQUIRE(SetConfig(*f.store, "default.memory_bytes", std::to_string(8 * kGiB)).ok());
  const auto set = ByPool(f.Place(Execution(one_gpu), std::vector<std::string>{"a100"}));
  CHECK(set.at("a100").request.memory_bytes == std::optional<std::int64_t>(8 * kGiB));
}

TEST_CASE(
    "placement: the retry floor of an execution that ran out of memory comes from its record "
    "and the settings, says which pools hold it, and placement keeps it",
    "[placement][engine]") {
  Fixture f;
  const NodePool mystery = UnknownModelPool("mystery");
  NodePool small_node = CpuPool("small-node");
  small_node.hardware.memory_bytes = 16 * kGiB;
  f.Register({Pool("a100-3g", "A100 80GB", "mig-3g.40gb", 8, 16, "a2-ultragpu-8g"),
              Pool("a100-1g", "A100 80GB", "mig-1g.10gb", 8, 56, "a2-ultragpu-8g"), mystery,
              CpuPool("cpu"), small_node});
  Observation gpu_oom = Ran("a100-3g", 0, 19.5, 0.9, 2000, 4 * kGiB);
  gpu_oom.execution_id = "run-1";
  gpu_oom.status = ExecutionStatus::kGpuOom;
  gpu_oom.requested.gpu_memory_gb = 20;
  Observation oom = Ran("cpu", 1, 0, 0, 2000, 16 * kGiB);
  oom.execution_id = "run-2";
  oom.status = ExecutionStatus::kOom;
  oom.requested.memory_bytes = 16 * kGiB;
  f.Ingest({gpu_oom, oom, Ran("cpu", 2, 0, 0, 2000, 4 * kGiB)});

  auto floor = RetryFloorAfterOom(*f.store, "run-1", {"a100-3g", "a100-1g", "mystery", "gone"});
  INFO(floor.status().ToString());
  REQUIRE(floor.ok());
  CHECK(floor->workload == kImage);
  CHECK(floor->status == ExecutionStatus::kGpuOom);
  CHECK(floor->floor.gpu_memory_gb == std::optional<double>(24.0));  // 20 × 1.2
  CHECK_FALSE(floor->floor.memory_bytes.has_value());
  CHECK(floor->reason ==
        "gpu_oom: max(requested 20 GiB, observed 19.5 GiB) × 1.2 = 24 GiB per GPU");
  REQUIRE(floor->pools.size() == 4);
  CHECK(floor->pools[0].holds);
  CHECK_FALSE(floor->pools[1].holds);
  CHECK(floor->pools[1].reason ==
        "needs 24 GiB GPU memory per GPU; this pool offers 1g.10gb (10 GiB)");
  CHECK(floor->pools[2].holds);  // unknown size: never too small
  CHECK_FALSE(floor->pools[3].holds);
  CHECK_THAT(floor->pools[3].reason, Catch::Contains("is not registered"));

  // Placement takes it as the floor it accepts from the caller.
  ExecutionToPlace retry = Execution();
  retry.retry_floor = floor->floor;
  const auto placed = ByPool(f.Place(retry, std::vector<std::string>{"a100-3g", "a100-1g"}));
  CHECK(placed.at("a100-3g").feasible);
  CHECK_FALSE(placed.at("a100-1g").feasible);
  // (the history's own OOM bump, with its margin, is above the floor here)
  REQUIRE(placed.at("a100-3g").needs.gpu_memory_gb.has_value());
  CHECK(*placed.at("a100-3g").needs.gpu_memory_gb >= 24);

  // The bump follows the setting; host memory gets at least +100 MiB.
  REQUIRE(SetConfig(*f.store, "oom_bump_factor", "1.5").ok());
  auto host = RetryFloorAfterOom(*f.store, "run-2", {"cpu", "small-node"});
  REQUIRE(host.ok());
  CHECK(host->floor.memory_bytes == std::optional<std::int64_t>(24 * kGiB));  // 16 × 1.5
  CHECK(host->pools[0].holds);
  CHECK(host->pools[1].reason == "a node has 16.00 GiB memory; the retry needs at least 24.00 GiB");

  CHECK(RetryFloorAfterOom(*f.store, "no-such-run").status().code() == StatusCode::kNotFound);
  const auto ran = RetryFloorAfterOom(*f.store, "cpu-2");
  CHECK(ran.status().code() == StatusCode::kInvalidArgument);
  CHECK_THAT(ran.status().message(), Catch::Contains("its status is success, not oom or gpu_oom"));
}

TEST_CASE("placement: a retry floor beyond what a request can hold is refused, naming the field",
          "[placement][engine]") {
  Fixture f;
  f.Register({CpuPool("cpu")});
  // A request in the wrong unit: bumped by the OOM factor, past any int64.
  Observation oom = Ran("cpu", 1, 0, 0, 2000, 16 * kGiB);
  oom.execution_id = "huge";
  oom.status = ExecutionStatus::kOom;
  oom.requested.memory_bytes = std::int64_t{9000000000000000000};
  f.Ingest({oom});
  const auto floor = RetryFloorAfterOom(*f.store, "huge");
  REQUIRE_FALSE(floor.ok());
  CHECK(floor.status().code() == StatusCode::kInvalidArgument);
  CHECK_THAT(floor.status().message(),
             Catch::Contains("requested.memory_bytes") && Catch::Contains("unit"));
}

}  // namespace
}  // namespace hwrec
