// A small Runner fleet end to end, as it runs: two replicas with a Store
// each on one store (a SQLite file, or PostgreSQL in the [engine] rerun),
// one registering and re-partitioning pools and ingesting while the other
// keeps its evaluator and query between calls and never reloads. Records
// without utilisation, an OOM and its retry, a workload whose only history
// is on a GPU of unknown model, and a workload placed on pools it never ran
// on: every answer must be right for the store as committed before it.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <functional>
#include <map>
#include <optional>
#include <sstream>

#include "hwrec/catalog.h"
#include "hwrec/config.h"
#include "hwrec/ingest.h"
#include "hwrec/node_pool.h"
#include "hwrec/placement.h"
#include "hwrec/placement_json.h"
#include "hwrec/recommend.h"
#include "placement/history.h"
#include "store/database.h"
#include "test_support.h"

// A namespace of its own: unity builds compile this file with others.
namespace hwrec::fleet_test {
namespace {

constexpr double kNow = 1795968000;  // 2026-11-29
constexpr std::int64_t kGiB = 1024LL * 1024 * 1024;

NodePool Pool(const std::string& id, const std::string& instance_type,
              std::optional<std::string> model, std::int64_t cards, const std::string& mode,
              std::int64_t partitions) {
  NodePool pool;
  pool.node_pool_id = id;
  pool.site_id = "site-a";
  pool.hardware.instance_type = instance_type;
  pool.hardware.architecture = "x86_64";
  pool.hardware.cpu_millicores = 96000;
  pool.hardware.memory_bytes = 512 * kGiB;
  pool.hardware.gpu_count = cards;
  pool.hardware.gpu_total = partitions;
  if (cards > 0) {
    pool.hardware.gpu_mode = mode;
    pool.hardware.gpu_brand = "NVIDIA";
    pool.hardware.gpu_model = std::move(model);
  }
  return pool;
}

// The fleet's seven pools.
std::vector<NodePool> Fleet() {
  NodePool arm = Pool("arm-cpu", "c6g.16xlarge", std::nullopt, 0, "", 0);
  arm.hardware.architecture = "aarch64";
  return {Pool("a100-full", "a2-ultragpu-8g", "A100 80GB", 8, "full", 8),
          Pool("a100-mig", "a2-ultragpu-8g-mig", "A100 80GB", 8, "mig-3g.40gb", 16),
          Pool("a30-mig", "on-prem-a30", "A30", 4, "mig-2g.12gb", 8),
          Pool("h100", "a3-highgpu-8g", "H100 80GB", 8, "full", 8),
          arm,
          Pool("x86-cpu", "n2-standard-32", std::nullopt, 0, "", 0),
          Pool("gpu-unknown", "on-prem-gpu", std::nullopt, 1, "full", 1)};
}

Observation Run(const std::string& id, const std::string& image, const std::string& pool,
                double finished_at, std::optional<double> utilization, double gpu_peak_gb) {
  Observation o;
  o.execution_id = id;
  o.action_image = image;
  o.finished_at = finished_at;
  o.node_pool_id = pool;
  o.gpu_utilization = utilization;
  if (gpu_peak_gb > 0) o.gpu_memory_peak_gb = gpu_peak_gb;
  o.cpu_millicores_avg = 1500;
  o.cpu_millicores_p95 = 2000;
  o.cpu_millicores_max = 2500;
  o.memory_peak_bytes = 6 * kGiB;
  return o;
}

struct Replica {
  explicit Replica(const std::string& location) : store(test::OpenStoreOrFail(location)) {}
  void Ingest(const std::vector<Observation>& batch) {
    const auto ingestor = Ingestor::Open(*store).value();
    const auto summary = ingestor->Ingest(batch);
    INFO(summary.status().ToString());
    REQUIRE(summary.ok());
    REQUIRE(summary->accepted == static_cast<std::int64_t>(batch.size()));
  }
  std::unique_ptr<Store> store;
};

// Every chosen pool carries a CPU and a memory request, sized by something.
void RequireSized(const PlacementResult& result) {
  const CandidateEvaluation* chosen = result.chosen_evaluation();
  REQUIRE(chosen != nullptr);
  INFO(chosen->node_pool_id);
  REQUIRE(chosen->request.cpu_request_millicores.has_value());
  REQUIRE(chosen->request.memory_bytes.has_value());
  for (FigureKind kind : {FigureKind::kCpuRequestMillicores, FigureKind::kMemoryBytes}) {
    CHECK(chosen->request.origins[static_cast<std::size_t>(kind)].source != FigureSource::kNone);
  }
}

std::map<std::string, CandidateEvaluation> ByPool(const PlacementResult& result) {
  std::map<std::string, CandidateEvaluation> out;
  for (const CandidateEvaluation& e : result.evaluations) out[e.node_pool_id] = e;
  return out;
}

std::string Origin(const CandidateEvaluation& e, FigureKind kind) {
  return std::string(ToString(e.request.origins[static_cast<std::size_t>(kind)]));
}

TEST_CASE("fleet: two replicas place right without reloading, on every pool", "[fleet][engine]") {
  test::TempDir dir;
  const std::string location = test::NewStoreLocation(dir, "fleet.db");
  Replica writer(location);
  Replica placer(location);
  for (const NodePool& pool : Fleet()) REQUIRE(RegisterNodePool(*writer.store, pool).ok());

  std::vector<Observation> history;
  for (int i = 0; i < 12; ++i) {  // train: half of a 3g.40gb share busy, 20 GiB peaks
    history.push_back(
        Run(fmt::format("train-{}", i), "train", "a100-mig", kNow - 7200 + i * 60, 0.5, 20));
  }
  for (int i = 0; i < 6; ++i) {  // mystery: only ever on the GPU of unknown model
    history.push_back(
        Run(fmt::format("mystery-{}", i), "mystery", "gpu-unknown", kNow - 5000 + i * 60, 0.7, 10));
  }
  Observation oom = Run("embed-oom", "embed", "a30-mig", kNow - 3000, 0.9, 12);
  oom.status = ExecutionStatus::kGpuOom;
  oom.requested.gpu_memory_gb = 12;
  history.push_back(oom);
  writer.Ingest(history);

  auto opened = PlacementEvaluator::Open(*placer.store);
  REQUIRE(opened.ok());
  PlacementEvaluator& evaluator = **opened;
  auto query = RecommendationQuery::Open(*placer.store).value();
  const auto place = [&](const ExecutionToPlace& execution, const std::vector<std::string>& pools) {
    std::vector<PlacementCandidate> candidates;
    for (const std::string& id : pools) candidates.push_back({id, {}, {}, {}});
    auto result = evaluator.Evaluate(execution, candidates, PlacementPolicy::kBestFit, kNow);
    INFO(result.status().ToString());
    REQUIRE(result.ok());
    return std::move(*result);
  };
  ExecutionToPlace train;
  train.workload = "train";
  const std::vector<std::string> gpu_pools = {"a100-full", "a100-mig", "a30-mig", "h100",
                                              "gpu-unknown"};

  SECTION("pools re-partitioned and added by the other replica are seen at the next call") {
    const auto first = ByPool(place(train, gpu_pools));
    CHECK(first.at("a100-mig").request.gpu_config_id ==
          std::optional<std::string>("nvidia-a100-80gb-mig-3g.40gb"));
    NodePool repartitioned = Fleet()[1];
    repartitioned.hardware.gpu_mode = "mig-4g.40gb";
    repartitioned.hardware.gpu_total = 8;
    REQUIRE(RegisterNodePool(*writer.store, repartitioned).ok());
    REQUIRE(RegisterNodePool(*writer.store,
                             Pool("h100-new", "a3-highgpu-8g", "H100 80GB", 8, "mig-3g.40gb", 16))
                .ok());
    std::vector<std::string> with_new = gpu_pools;
    with_new.push_back("h100-new");
    const auto result = place(train, with_new);
    const auto second = ByPool(result);
    CHECK(second.at("a100-mig").request.gpu_config_id ==
          std::optional<std::string>("nvidia-a100-80gb-mig-4g.40gb"));
    CHECK(second.at("h100-new").reason.find("not registered") == std::string::npos);
    CHECK(second.at("h100-new").request.gpu_config_id ==
          std::optional<std::string>("nvidia-h100-80gb-mig-3g.40gb"));
    RequireSized(result);
    // Its history is on this very pool (its hardware key is unchanged).
    CHECK(result.chosen_evaluation()->node_pool_id == "a100-mig");
  }

  SECTION("records without utilisation never move the measured share") {
    HardwareKey a100_mig = HardwareKey::Of(Fleet()[1]);
    const auto before = query->Recommend("train", a100_mig, kNow).value();
    std::vector<Observation> unmeasured;
    for (int i = 0; i < 3; ++i) {
      unmeasured.push_back(Run(fmt::format("train-nu-{}", i), "train", "a100-mig", kNow - 600 + i,
                               std::nullopt, 20));
    }
    writer.Ingest(unmeasured);
    const auto after = query->Recommend("train", a100_mig, kNow).value();
    const Figure& share = after.figure(FigureKind::kGpuComputeFraction);
    CHECK(share.value == before.figure(FigureKind::kGpuComputeFraction).value);
    CHECK_FALSE(share.held_share);
    CHECK(after.figure(FigureKind::kGpuMemoryGb).samples == 15);  // the records still count there
  }

  SECTION("an OOM and its retry: the floor is hwrec's and the retry keeps it") {
    const auto floor = RetryFloorAfterOom(*placer.store, "embed-oom", {"a30-mig", "a100-mig"});
    REQUIRE(floor.ok());
    CHECK(floor->floor.gpu_memory_gb == std::optional<double>(14.4));
    CHECK_FALSE(floor->pools[0].holds);
    CHECK(floor->pools[1].holds);
    ExecutionToPlace retry;
    retry.workload = "embed";
    retry.retry_floor = floor->floor;
    const auto result = place(retry, {"a30-mig", "a100-mig", "h100"});
    CHECK_FALSE(ByPool(result).at("a30-mig").feasible);
    RequireSized(result);
    CHECK(*result.chosen_evaluation()->needs.gpu_memory_gb >= 14.4);
  }

  SECTION("a workload whose only history is on the unknown-model pool is placed there, sized") {
    ExecutionToPlace mystery;
    mystery.workload = "mystery";
    const auto result = place(mystery, gpu_pools);
    RequireSized(result);
    const CandidateEvaluation& chosen = *result.chosen_evaluation();
    CHECK(chosen.node_pool_id == "gpu-unknown");
    CHECK(Origin(chosen, FigureKind::kCpuRequestMillicores) == "exact");
    const auto a100 = ByPool(result).at("a100-full");
    CHECK(Origin(a100, FigureKind::kCpuRequestMillicores) == "default");
    CHECK(Origin(a100, FigureKind::kMemoryBytes) == "default");
  }

  SECTION("a workload placed on pools it never ran on carries CPU and memory, said so") {
    const auto result = place(train, {"h100", "a30-mig"});
    RequireSized(result);
    const CandidateEvaluation& chosen = *result.chosen_evaluation();
    CHECK(Origin(chosen, FigureKind::kCpuRequestMillicores) == "default");
    CHECK(Origin(chosen, FigureKind::kGpuMemoryGb) == "workload_any_hardware");
    // The default is the store's setting, changed by the other replica.
    REQUIRE(SetConfig(*writer.store, "default.memory_bytes", std::to_string(16 * kGiB)).ok());
    const auto again = place(train, {"h100", "a30-mig"});
    CHECK(again.chosen_evaluation()->request.memory_bytes ==
          std::optional<std::int64_t>(16 * kGiB));
  }
}

// What a recommendation says, to compare two answers.
std::string Said(const Recommendation& r) {
  std::string out = fmt::format("{} width {}:", r.workload, r.width.value_or(0));
  for (const Figure& f : r.figures) {
    out += fmt::format(" {} {} {} n={} conf={} [{}, {}] {} w={} held={};", f.value.value_or(-1),
                       static_cast<int>(f.provenance), f.statistic, f.samples, f.confidence,
                       f.lower.value_or(-1), f.upper.value_or(-1), f.last_seen.value_or(-1),
                       f.learned_width.value_or(0), f.held_share);
  }
  return out;
}

// The round trips to the server a call costs (0 on SQLite, in this process),
// as a replica's metrics read them (Store::RoundTrips).
template <typename Call>
std::int64_t RoundTripsOf(const Store& store, Call&& call) {
  const std::int64_t before = store.RoundTrips();
  call();
  return store.RoundTrips() - before;
}

TEST_CASE("fleet: a kept query and evaluator answer in one round trip until something changes",
          "[fleet][engine]") {
  test::TempDir dir;
  const std::string location = test::NewStoreLocation(dir, "trips.db");
  Replica writer(location);
  Replica reader(location);
  for (const NodePool& pool : Fleet()) REQUIRE(RegisterNodePool(*writer.store, pool).ok());
  // More executions than a shape is learned from (internal::kShapeHistoryWindow): the
  // oldest on Arm CPUs, which a shape learned in the wrong order would count,
  // and the newest two failed (passed over).
  std::vector<Observation> history;
  for (int i = 0; i < internal::kShapeHistoryWindow + 10; ++i) {
    const bool arm = i < 6;
    Observation o = Run(fmt::format("train-{}", i), "train",
                        arm     ? "arm-cpu"
                        : i % 2 ? "a100-mig"
                                : "a100-full",
                        kNow - 7200 + i * 60, arm ? std::nullopt : std::optional<double>(0.5),
                        arm ? 0 : 20 + i % 9);
    if (!arm) o.gpu_count_held = i % 2 ? 1 : 2;
    if (i >= internal::kShapeHistoryWindow + 8) o.status = ExecutionStatus::kFailed;
    history.push_back(o);
  }
  writer.Ingest(history);

  auto query = RecommendationQuery::Open(*reader.store).value();
  auto evaluator = PlacementEvaluator::Open(*reader.store).value();
  const HardwareKey a100_mig = HardwareKey::Of(Fleet()[1]);
  const HardwareKey named{"NVIDIA", "A100 80GB", "a2-ultragpu-8g-mig", false};
  std::vector<PlacementCandidate> candidates;
  for (const NodePool& pool : Fleet()) candidates.push_back({pool.node_pool_id, {}, {}, {}});
  ExecutionToPlace declared;
  declared.workload = "train";
  declared.declared.gpu_count = 1;
  declared.declared.architecture = "x86_64";
  ExecutionToPlace undeclared;  // its shape from its history, read in the same statement
  undeclared.workload = "train";

  // Each call's answer, from the kept objects and from fresh ones (which
  // read everything in a snapshot), and what the kept call cost.
  struct Answers {
    std::int64_t trips = 0;
    std::string kept, fresh;
  };
  const auto recommend = [&](std::optional<std::int64_t> width) {
    Answers a;
    std::optional<Recommendation> kept;
    a.trips = RoundTripsOf(*reader.store, [&] {
      kept = query->Recommend("train", a100_mig, kNow, Explain::kNo, width).value();
    });
    auto fresh = RecommendationQuery::Open(*reader.store).value();
    a.kept = Said(*kept);
    a.fresh = Said(fresh->Recommend("train", a100_mig, kNow, Explain::kNo, width).value());
    return a;
  };
  const auto named_recommend = [&] {
    Answers a;
    std::optional<Recommendation> kept;
    a.trips = RoundTripsOf(*reader.store,
                           [&] { kept = query->RecommendNamed("train", named, kNow).value(); });
    auto fresh = RecommendationQuery::Open(*reader.store).value();
    a.kept = Said(*kept);
    a.fresh = Said(fresh->RecommendNamed("train", named, kNow).value());
    return a;
  };
  const auto place = [&](const ExecutionToPlace& execution) {
    Answers a;
    std::optional<PlacementResult> kept;
    a.trips = RoundTripsOf(*reader.store, [&] {
      kept = evaluator->Evaluate(execution, candidates, PlacementPolicy::kBestFit, kNow).value();
    });
    auto fresh = PlacementEvaluator::Open(*reader.store).value();
    a.kept = PlacementToJson(*kept);
    a.fresh = PlacementToJson(
        fresh->Evaluate(execution, candidates, PlacementPolicy::kBestFit, kNow).value());
    return a;
  };
  // Every kind of call, three times: the first may read in a snapshot what
  // the kept object holds, the others are the steady state (a statement's
  // first run prepares it in the same round trip).
  const auto every_call = [&](std::int64_t steady_trips) {
    const std::vector<std::pair<const char*, std::function<Answers()>>> calls = {
        {"recommend", [&] { return recommend(std::nullopt); }},
        {"recommend at a width", [&] { return recommend(2); }},
        {"recommend a named key", named_recommend},
        {"place a declared shape", [&] { return place(declared); }},
        {"place a shape from history", [&] { return place(undeclared); }}};
    for (const auto& [what, call] : calls) {
      INFO(what);
      const Answers first = call();  // may read in a snapshot what the kept object holds
      CHECK(first.kept == first.fresh);
      for (int i = 0; i < 2; ++i) {
        const Answers steady = call();
        CHECK(steady.kept == steady.fresh);
        CHECK(steady.trips == steady_trips);
      }
    }
  };
  // SQLite reads in this process: no round trip at all.
  const std::int64_t one = test::TestingPostgresql() ? 1 : 0;

  SECTION("the steady state") { every_call(one); }

  SECTION("records ingested by another replica: still one, and seen") {
    every_call(one);
    const std::string before = recommend(std::nullopt).kept;
    writer.Ingest({Run("train-late", "train", "a100-mig", kNow - 60, 0.9, 39)});
    const Answers after = recommend(std::nullopt);
    CHECK(after.trips == one);
    CHECK(after.kept == after.fresh);
    CHECK(after.kept != before);
    const Answers placed = place(declared);
    CHECK(placed.trips == one);
    CHECK(placed.kept == placed.fresh);
  }

  // The first call of an object that holds what another replica changed
  // reads it again in a snapshot (more than one round trip) and answers as a
  // fresh object does.
  const auto read_again = [&](const Answers& a) {
    CHECK(a.kept == a.fresh);
    if (test::TestingPostgresql()) CHECK(a.trips > 1);
    return a.kept;
  };

  SECTION("settings, catalog or pools changed: read again in a snapshot, then one again") {
    every_call(one);
    const std::string recommended = recommend(std::nullopt).kept;
    const std::string placed = place(declared).kept;
    REQUIRE(SetConfig(*writer.store, "gpu_memory.margin", "0.25").ok());  // every figure's object
    CHECK(read_again(recommend(std::nullopt)) != recommended);
    CHECK(read_again(place(declared)) != placed);
    every_call(one);
    // A card new to the catalog: a named key is resolved again, and the
    // evaluator reads its pools' cards again.
    std::istringstream csv(
        "brand,model,card_memory_gb,card_compute_slices,mode,memory_gb,compute_slices\n"
        "Acme,X1,48,4,full,48,4\n");
    const auto imported = ImportCatalogCsv(*writer.store, csv);
    REQUIRE(imported.ok());
    REQUIRE(imported->added == 1);
    read_again(named_recommend());
    read_again(place(declared));
    every_call(one);
    NodePool added = Pool("h100-new", "a3-highgpu-8g", "H100 80GB", 8, "full", 8);
    REQUIRE(RegisterNodePool(*writer.store, added).ok());
    candidates.push_back({added.node_pool_id, {}, {}, {}});
    CHECK(read_again(place(declared)).find("not registered") == std::string::npos);
    every_call(one);
  }
}

TEST_CASE("fleet: a kept query transfers to a new card in one round trip, within the refresh",
          "[fleet][transfer][engine]") {
  test::TempDir dir;
  const std::string location = test::NewStoreLocation(dir, "transfer.db");
  Replica writer(location);
  Replica reader(location);
  for (const NodePool& pool : Fleet()) REQUIRE(RegisterNodePool(*writer.store, pool).ok());
  // Four workloads seen on both cards use half the share of an H100 that
  // they use of an A100; serve:1 ran on the A100 only.
  std::vector<Observation> history;
  for (int w = 0; w < 4; ++w) {
    const std::string image = fmt::format("job-{}:1", w);
    for (int i = 0; i < 3; ++i) {
      const double use = 0.4 + 0.1 * w;
      history.push_back(
          Run(fmt::format("{}-a-{}", image, i), image, "a100-full", kNow - 3600 + i * 60, use, 20));
      history.push_back(Run(fmt::format("{}-h-{}", image, i), image, "h100", kNow - 3600 + i * 60,
                            use * 0.5, 24));
    }
  }
  for (int i = 0; i < 3; ++i) {
    history.push_back(
        Run(fmt::format("serve-{}", i), "serve:1", "a100-full", kNow - 1800 + i * 60, 0.8, 30));
  }
  writer.Ingest(history);

  const HardwareKey h100 = HardwareKey::Of(Fleet()[3]);
  auto query = RecommendationQuery::Open(*reader.store).value();
  const std::int64_t one = test::TestingPostgresql() ? 1 : 0;
  const auto share = [&](RecommendationQuery& q, std::int64_t* trips) {
    std::optional<Recommendation> r;
    const std::int64_t n =
        RoundTripsOf(*reader.store, [&] { r = q.Recommend("serve:1", h100, kNow).value(); });
    if (trips != nullptr) *trips = n;
    return r->figure(FigureKind::kGpuComputeFraction);
  };
  std::int64_t trips = 0;
  const Figure first = share(*query, &trips);  // reads the factors: may take more
  REQUIRE(first.provenance == Provenance::kTransferred);
  CHECK(first.transfer->estimate == Approx(0.4).epsilon(0.1));  // 0.8 x 0.5
  for (int i = 0; i < 2; ++i) {
    const Figure steady = share(*query, &trips);
    CHECK(trips == one);
    CHECK(steady.value == first.value);
  }
  // Another replica's records change the share on the A100: the kept query
  // still answers in one round trip, from the factors it read (within
  // transfer.refresh_seconds), while a new query reads them at once.
  std::vector<Observation> busier;
  for (int i = 0; i < 10; ++i) {
    busier.push_back(
        Run(fmt::format("serve-busy-{}", i), "serve:1", "a100-full", kNow - 600 + i, 1.0, 30));
  }
  writer.Ingest(busier);
  const Figure kept = share(*query, &trips);
  CHECK(trips == one);
  CHECK(kept.transfer->estimate == first.transfer->estimate);
  auto fresh_query = RecommendationQuery::Open(*reader.store).value();
  const Figure fresh = share(*fresh_query, nullptr);
  CHECK(fresh.transfer->estimate > first.transfer->estimate * 1.1);
  // Refreshed at every change, the kept query reads them again and agrees.
  REQUIRE(SetConfig(*writer.store, "transfer.refresh_seconds", "0").ok());
  CHECK(share(*query, nullptr).transfer->estimate == fresh.transfer->estimate);
}

}  // namespace
}  // namespace hwrec::fleet_test
