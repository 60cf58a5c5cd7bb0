// hwrec-bench place --openb-allocation on a slice of the openb default trace
// (docs/PLACEMENT.md "Allocation on the openb traces"). Runs when
// ../shared/data holds the openb traces; skips with a message otherwise.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bench/go_random.h"
#include "test_support.h"

namespace hwrec::test {
namespace {

const std::string kSharedData = SharedDataPath("");

nlohmann::json Replay(const std::string& seeds) {
  const CommandResult run =
      RunShell(ShellQuote(BenchPath()) + " place --openb-allocation --trace default --seeds " +
               seeds + " --pods 300 --format json --data " + ShellQuote(kSharedData));
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  return nlohmann::json::parse(run.out);
}

// Half a card, a whole card and a CPU-only pod.
const char* const kSomePods = "half,1000,1024,1,500\nwhole,2000,2048,1,1000\ncpu,1000,1024,0,0\n";

// A data folder of a few lines: `nodes` (lines of sn,cpu_milli,memory_mib,gpu,model;
// by default one node of 2 T4 cards) and the default trace holding `pods`
// (lines of name,cpu_milli,memory_mib,num_gpu,gpu_milli).
class SmallTrace {
 public:
  explicit SmallTrace(const std::string& pods,
                      const std::string& nodes = "node-1,32000,131072,2,T4\n") {
    const std::filesystem::path traces = dir_.path() / "alibaba-gpu-v2023";
    std::filesystem::create_directories(traces);
    std::ofstream(traces / "openb_node_list_gpu_node.csv") << "sn,cpu_milli,memory_mib,gpu,model\n"
                                                           << nodes;
    std::ofstream(traces / "openb_pod_list_default.csv")
        << "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
        << pods;
  }
  // The replay with `args`, stopped after a minute should it not end.
  CommandResult Replay(const std::string& args) const {
    return RunShell("timeout 60 " + ShellQuote(BenchPath()) +
                    " place --openb-allocation --trace default --format json --data " +
                    ShellQuote(dir_.path().string()) + " " + args);
  }

 private:
  TempDir dir_;
};

}  // namespace

TEST_CASE("openb allocation: a trace with no pod or no GPU asked for is refused, naming the file",
          "[openb]") {
  const std::pair<std::string, std::string> traces[] = {
      {"", "openb_pod_list_default.csv: holds no pod"},
      {"cpu-1,1000,1024,0,0\ncpu-2,2000,2048,0,0\n",
       "openb_pod_list_default.csv: no pod asks for a GPU"}};
  for (const auto& [pods, says] : traces) {
    INFO(says);
    const CommandResult run = SmallTrace(pods).Replay("--seeds 42");
    CHECK(run.exit_code == 1);
    CHECK_THAT(run.err, Catch::Contains(says));
  }
}

TEST_CASE("openb allocation: a node list without a GPU is refused, naming the file", "[openb]") {
  const CommandResult run =
      SmallTrace(kSomePods, "cpu-node,32000,131072,0,\n").Replay("--seeds 42");
  CHECK(run.exit_code == 1);
  CHECK_THAT(run.err, Catch::Contains("openb_node_list_gpu_node.csv: no node has a GPU"));
}

TEST_CASE("openb allocation: a policy named twice in --policies runs once", "[openb]") {
  const SmallTrace trace(kSomePods);
  const CommandResult twice = trace.Replay("--seeds 42 --policies best_fit,best_fit");
  INFO(twice.err);
  REQUIRE(twice.exit_code == 0);
  const nlohmann::json runs = nlohmann::json::parse(twice.out)["runs"];
  CHECK(runs.size() == 1);
  CHECK(runs["best_fit"].size() == 1);
}

TEST_CASE("openb allocation: a last seed of INT_MAX is refused", "[openb]") {
  const CommandResult last = SmallTrace(kSomePods).Replay("--seeds 2147483640-2147483647");
  CHECK(last.exit_code == 2);
  CHECK_THAT(last.err, Catch::Contains("--seeds is '2147483640-2147483647': the last seed must be "
                                       "below 2147483647"));
}

TEST_CASE(
    "openb allocation: 300 pods of the default trace all fit an empty cluster, the same "
    "for a seed",
    "[openb][real-data]") {
  if (!std::filesystem::exists(kSharedData + "/alibaba-gpu-v2023/openb_node_list_gpu_node.csv") ||
      !std::filesystem::exists(kSharedData + "/alibaba-gpu-v2023/openb_pod_list_default.csv")) {
    WARN("skipped: the openb trace is not under " + kSharedData + " (see docs/PLACEMENT.md)");
    return;
  }
  const nlohmann::json first = Replay("42");
  CHECK(first["trace"] == "default");
  CHECK(first["nodes"] == 1213);
  CHECK(first["gpus"] == 6212);
  for (const char* policy : {"best_fit", "fragmentation"}) {
    INFO(policy);
    const nlohmann::json& run = first["runs"][policy][0];
    CHECK(run["seed"] == 42);
    CHECK(run["pods"] == 300);
    // 300 pods ask for a few percent of 6,212 GPUs: every one is placed, so
    // what is allocated is what arrived, and no figure near 100 % exists yet.
    CHECK(run["placed"] == 300);
    CHECK(run["allocated_gpu_milli"] == run["arrived_gpu_milli"]);
    CHECK(run["arrived_gpu_milli"].get<std::int64_t>() > 0);
    CHECK(first["hwrec"][policy]["100"].is_null());
  }
  CHECK(first["paper"]["05-BestFit"]["130"].get<double>() == Approx(93.13).margin(0.005));
  // The seed decides the order: the same seed replays the same pods, another does not.
  CHECK(Replay("42")["runs"] == first["runs"]);
  CHECK(Replay("43")["runs"]["best_fit"][0]["arrived_gpu_milli"] !=
        first["runs"]["best_fit"][0]["arrived_gpu_milli"]);
}

TEST_CASE("openb allocation: the replay's generator gives Go's math/rand draws for a seed",
          "[openb]") {
  // Each value as Go 1.19's math/rand gives it: rand.New(rand.NewSource(seed))
  // and the calls in this order.
  bench::GoRandom random(42);
  CHECK(random.Int63() == 3440579354231278675);
  CHECK(random.Int63() == 608747136543856411);
  CHECK(random.Int63() == 5571782338101878760);
  CHECK(random.Intn(8152) == 1382);
  CHECK(random.Intn(1000) == 423);
  CHECK(random.Intn(7) == 0);
  CHECK(random.Intn(1 << 20) == 809893);
  std::vector<int> items{0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  random.Shuffle(items);
  CHECK(items == std::vector<int>{2, 8, 4, 0, 6, 1, 7, 5, 9, 3});
  CHECK(random.Perm(10) == std::vector<int>{5, 9, 4, 7, 2, 6, 3, 8, 0, 1});
  // Seeds are taken modulo 2^31 - 1; 0 stands for another seed.
  CHECK(bench::GoRandom(0).Int63() == 8717895732742165505);
  CHECK(bench::GoRandom(-5).Int63() == 1811683815564572222);
  // The simulator's start for seed 51: rand.Seed(51), one rand.Int(), then
  // rand.Shuffle of 8,152 pods.
  bench::GoRandom simulator(51);
  CHECK(simulator.Int() == 3893522058333705853);
  std::vector<int> pods(8152);
  for (std::size_t i = 0; i < pods.size(); ++i) pods[i] = static_cast<int>(i);
  simulator.Shuffle(pods);
  CHECK(std::vector<int>(pods.begin(), pods.begin() + 5) ==
        std::vector<int>{7151, 7598, 3598, 3081, 2518});
  CHECK(std::vector<int>(pods.end() - 5, pods.end()) ==
        std::vector<int>{4992, 6008, 5620, 2725, 5448});
}

namespace {

// The paper's allocation per demand percent for (trace, policy, seed), from
// analysis_allo_discrete.csv (its columns: workload, sc_policy, tune, seed,
// total_gpus, then one per percent from 0).
std::vector<double> PaperRow(const std::string& workload, const std::string& policy, int seed) {
  std::ifstream in(kSharedData + "/fgd-atc23-results/analysis_allo_discrete.csv");
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream fields(line);
    for (std::string field; std::getline(fields, field, ',');) f.push_back(field);
    if (f.size() < 5 || f[0] != workload || f[1] != policy || f[2] != "1.3" ||
        f[3] != std::to_string(seed)) {
      continue;
    }
    std::vector<double> row;
    for (std::size_t i = 5; i < f.size(); ++i) row.push_back(std::stod(f[i]));
    return row;
  }
  return {};
}

}  // namespace

TEST_CASE(
    "openb allocation: a seed replays the paper's pods: until a pod fails, the allocation at "
    "each demand percent is the paper's for that seed",
    "[openb][real-data]") {
  if (!std::filesystem::exists(kSharedData + "/alibaba-gpu-v2023/openb_node_list_gpu_node.csv") ||
      !std::filesystem::exists(kSharedData + "/alibaba-gpu-v2023/openb_pod_list_default.csv") ||
      !std::filesystem::exists(kSharedData + "/fgd-atc23-results/analysis_allo_discrete.csv")) {
    WARN("skipped: the openb trace or the paper's results are not under " + kSharedData +
         " (see docs/PLACEMENT.md)");
    return;
  }
  // 3,000 pods reach about a third of the cluster's GPU, where every pod fits
  // under every policy, so each policy's figure is the demand's own: the
  // paper's figures are equal across its policies there, and the replay's
  // must equal them to the paper's two decimals if it draws the same pods.
  const CommandResult run = RunShell(
      ShellQuote(BenchPath()) +
      " place --openb-allocation --trace default --seeds 42-43 --policies best_fit --pods 3000 "
      "--format json --data " +
      ShellQuote(kSharedData));
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const nlohmann::json replay = nlohmann::json::parse(run.out);
  for (const nlohmann::json& seed_run : replay["runs"]["best_fit"]) {
    const int seed = seed_run["seed"];
    INFO("seed " << seed);
    REQUIRE(seed_run["placed"] == 3000);
    const nlohmann::json& allocation = seed_run["allocation"];
    // The last percent the 3,000 pods reach holds only some of its pods, and
    // the one after it is filled from its neighbours.
    int last = 0;
    for (const auto& [percent, figure] : allocation.items())
      last = std::max(last, std::stoi(percent));
    REQUIRE(last > 30);
    for (const char* policy : {"05-BestFit", "06-FGD"}) {
      INFO(policy);
      const std::vector<double> paper = PaperRow("openb_pod_list_default", policy, seed);
      REQUIRE(paper.size() > static_cast<std::size_t>(last));
      for (int percent = 0; percent < last - 1; ++percent) {
        INFO("demand " << percent << " %");
        CHECK(allocation[std::to_string(percent)].get<double>() ==
              Approx(paper[static_cast<std::size_t>(percent)]).margin(1e-9));
      }
    }
  }
}

}  // namespace hwrec::test
