// hwrec-bench place --openb-allocation: GPU allocation on the openb traces,
// replayed the way the ATC'23 "Beware of Fragmentation" simulator
// (hkust-adsl/kubernetes-scheduler-simulator) does it: every node of
// openb_node_list_gpu_node.csv (the GPU nodes, the paper's cluster), in an
// order drawn by the seed, and the trace's pods sorted by name and shuffled
// by the seed, then pods drawn from the trace at random and appended while
// the GPU asked for stays within 130 % of the cluster's, all drawn with Go's
// math/rand as the simulator draws them, so a seed replays the paper's pods;
// each pod placed once, no departures, a pod that fits nowhere skipped.
// After each pod the allocation (GPU shares held / the cluster's cards) is
// filed under the demand that has arrived so far (GPU asked for, placed or
// not, as a whole percent of the cluster's cards); a percent's figure is the
// mean of its pods (of the pods within one percent of it when none falls on
// it).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "bench/bench_commands.h"
#include "bench/bench_util.h"
#include "bench/go_random.h"
#include "bench/openb_inventory.h"
#include "hwrec/placement.h"

namespace hwrec::bench {

namespace {

constexpr std::int64_t kMilli = 1000;
constexpr double kTuneRatio = 1.3;
constexpr int kMaxPercent = 130;
constexpr std::array<int, 4> kReported{100, 110, 120, 130};
constexpr double kTypicalShare = 0.95;  // the simulator's pod popularity threshold

std::int64_t GpuMilli(const OpenbPod& pod) { return pod.num_gpu * pod.gpu_milli; }

// Rounded to two decimals, half to even, as the paper's analysis (pandas)
// rounds.
double TwoDecimals(double value) { return std::nearbyint(value * 100) / 100; }

// The seed's draws, as the simulator makes them with Go's math/rand seeded by
// the seed: the trace's pods sorted by name and shuffled, then tuned to 130 %
// of the cluster's GPU (random pods removed, or random draws appended until
// the next draw's GPU per card would pass the target), then the nodes' order.
struct SeedDraws {
  std::vector<const OpenbPod*> pods;
  std::vector<std::size_t> nodes;  // node indexes, in the order the simulator sees them
};

SeedDraws DrawSeed(const std::vector<OpenbPod>& by_name, std::size_t node_count,
                   std::int64_t gpu_milli, int seed) {
  GoRandom random(seed);
  random.Int();  // the simulator logs one draw after seeding
  SeedDraws draws;
  std::vector<const OpenbPod*>& order = draws.pods;
  std::int64_t asked = 0;
  for (const OpenbPod& pod : by_name) {
    order.push_back(&pod);
    asked += GpuMilli(pod);
  }
  random.Shuffle(order);
  const double target = kTuneRatio * static_cast<double>(gpu_milli);
  const int trace_size = static_cast<int>(by_name.size());
  if (static_cast<double>(asked) > target) {
    while (static_cast<double>(asked) > target && !order.empty()) {
      const auto i = static_cast<std::size_t>(random.Intn(static_cast<int>(order.size())));
      asked -= GpuMilli(*order[i]);
      order.erase(order.begin() + static_cast<std::ptrdiff_t>(i));
    }
  } else if (static_cast<double>(asked) < target) {
    for (;;) {
      const OpenbPod& drawn = by_name[static_cast<std::size_t>(random.Intn(trace_size))];
      // The simulator stops on the draw's share of one card, not its total.
      if (static_cast<double>(asked + drawn.gpu_milli) > target) break;
      asked += GpuMilli(drawn);
      order.push_back(&drawn);
    }
  }
  // The simulator prefixes each node's name (in name order) with its place in
  // a random permutation, and breaks a tie between nodes by that name.
  const std::vector<int> places = random.Perm(static_cast<int>(node_count));
  draws.nodes.resize(node_count);
  for (std::size_t i = 0; i < node_count; ++i) draws.nodes[static_cast<std::size_t>(places[i])] = i;
  return draws;
}

// The trace's request sizes, most frequent first, down to the 95 % of pods
// the simulator counts as typical: the mix the fragmentation policy scores for.
std::vector<DemandShape> TypicalMix(const std::vector<OpenbPod>& pods) {
  std::map<std::array<std::int64_t, 3>, std::int64_t> counts;
  for (const OpenbPod& pod : pods) ++counts[{pod.cpu_milli, pod.gpu_milli, pod.num_gpu}];
  std::vector<std::pair<std::int64_t, std::array<std::int64_t, 3>>> ranked;
  for (const auto& [shape, count] : counts) ranked.emplace_back(count, shape);
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<DemandShape> mix;
  std::int64_t covered = 0;
  for (const auto& [count, shape] : ranked) {
    if (static_cast<double>(covered) >= kTypicalShare * static_cast<double>(pods.size())) break;
    const auto [cpu, milli, gpus] = shape;
    const double share = gpus == 1 && milli < kMilli ? static_cast<double>(milli) / kMilli : 1.0;
    mix.push_back({gpus, share, cpu, static_cast<double>(count)});
    covered += count;
  }
  return mix;
}

// One node's free capacity, in the trace's units.
struct NodeState {
  std::vector<std::int64_t> gpu_milli;  // per card
  std::int64_t cpu = 0;
  std::int64_t memory = 0;
};

struct RunFigures {
  int seed = 0;
  std::size_t pods = 0;
  std::size_t placed = 0;
  std::int64_t arrived_milli = 0;
  std::int64_t allocated_milli = 0;
  std::array<double, kMaxPercent + 1> sum{};  // allocation % summed per arrived percent
  std::array<int, kMaxPercent + 1> count{};
  std::vector<double> seconds;  // per evaluation
  double runtime = 0;

  // The simulator's figure at `percent`, rounded to two decimals as the
  // paper's analysis rounds it: nullopt when no pod arrived near it.
  std::optional<double> At(int percent) const {
    const auto at = static_cast<std::size_t>(percent);
    if (count[at] > 0) return TwoDecimals(sum[at] / count[at]);
    double s = 0;
    int n = 0;
    for (std::size_t p = at == 0 ? 0 : at - 1; p <= std::min<std::size_t>(kMaxPercent, at + 1);
         ++p) {
      s += sum[p];
      n += count[p];
    }
    return n > 0 ? std::optional<double>(TwoDecimals(s / n)) : std::nullopt;
  }
};

class AllocationReplay {
 public:
  AllocationReplay(PlacementEvaluator& evaluator, const std::vector<OpenbNode>& nodes)
      : evaluator_(evaluator), nodes_(nodes) {
    for (const OpenbNode& n : nodes) gpu_milli_ += n.pool.hardware.gpu_count.value_or(0) * kMilli;
  }
  std::int64_t gpu_milli() const { return gpu_milli_; }

  RunFigures Run(const SeedDraws& draws, PlacementPolicy policy, int seed) {
    RunFigures run;
    run.seed = seed;
    Reset(draws.nodes);
    Stopwatch stopwatch;
    Stopwatch total;
    total.Start();
    const double cards = static_cast<double>(gpu_milli_ / kMilli);
    for (const OpenbPod* pod : draws.pods) {
      ExecutionToPlace execution;
      execution.workload = "openb/" + pod->name;
      execution.declared = DeclaredOf(*pod);
      stopwatch.Start();
      const auto result = evaluator_.Evaluate(execution, candidates_, policy);
      stopwatch.Stop();
      if (!result.ok()) throw std::runtime_error(result.status().ToString());
      run.arrived_milli += GpuMilli(*pod);
      if (const CandidateEvaluation* chosen = result->chosen_evaluation()) {
        Take(*pod, *chosen);
        ++run.placed;
        run.allocated_milli += GpuMilli(*pod);
      }
      // As the paper's analysis computes them: percents of the cards, the
      // demand rounded to a whole percent (half to even), the allocation to
      // two decimals before its mean is taken.
      const double arrived = static_cast<double>(run.arrived_milli) / cards / 10;
      const double percent = std::nearbyint(arrived);
      if (percent <= kMaxPercent) {
        const double allocated = static_cast<double>(run.allocated_milli) / cards / 10;
        run.sum[static_cast<std::size_t>(percent)] += TwoDecimals(allocated);
        ++run.count[static_cast<std::size_t>(percent)];
      }
    }
    run.runtime = total.Stop();
    run.pods = draws.pods.size();
    run.seconds = stopwatch.laps();
    return run;
  }

 private:
  // Every node a candidate, in `node_order`, with all its capacity free.
  void Reset(const std::vector<std::size_t>& node_order) {
    state_.clear();
    candidates_.clear();
    for (const std::size_t node : node_order) {
      const OpenbNode& n = nodes_[node];
      const HardwareProfile& h = n.pool.hardware;
      NodeState s{
          std::vector<std::int64_t>(static_cast<std::size_t>(h.gpu_count.value_or(0)), kMilli),
          h.cpu_millicores.value_or(0), h.memory_bytes.value_or(0)};
      PlacementCandidate c;
      c.node_pool_id = n.pool.node_pool_id;
      state_.push_back(std::move(s));
      candidates_.push_back(std::move(c));
      Publish(state_.size() - 1);
    }
  }

  // The node's free capacity as its candidate states it.
  void Publish(std::size_t node) {
    const NodeState& s = state_[node];
    PlacementCandidate& c = candidates_[node];
    c.free_cpu_millicores = s.cpu;
    c.free_memory_bytes = s.memory;
    c.free_gpu_shares.clear();
    for (const std::int64_t milli : s.gpu_milli) {
      c.free_gpu_shares.push_back(static_cast<double>(milli) / kMilli);
    }
  }

  void Take(const OpenbPod& pod, const CandidateEvaluation& chosen) {
    const std::size_t node = chosen.candidate;
    NodeState& s = state_[node];
    s.cpu -= chosen.request.cpu_request_millicores.value_or(0);
    s.memory -= chosen.request.memory_bytes.value_or(0);
    if (pod.num_gpu > 0 && chosen.gpu_cards.size() != static_cast<std::size_t>(pod.num_gpu)) {
      throw std::runtime_error(fmt::format("pod {}: placed on {} cards of {}, asked for {}",
                                           pod.name, chosen.gpu_cards.size(), chosen.node_pool_id,
                                           pod.num_gpu));
    }
    for (const std::size_t card : chosen.gpu_cards) s.gpu_milli[card] -= pod.gpu_milli;
    Publish(node);
  }

  PlacementEvaluator& evaluator_;
  const std::vector<OpenbNode>& nodes_;
  std::int64_t gpu_milli_ = 0;
  std::vector<NodeState> state_;
  std::vector<PlacementCandidate> candidates_;
};

// The paper's figures at kReported for the trace, mean over the seeds, per policy.
using Figures = std::map<std::string, std::array<std::optional<double>, kReported.size()>>;

Figures PaperFigures(const std::string& path, const std::string& workload, int first, int last) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot be read", path));
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  for (std::stringstream cells(line); std::getline(cells, line, ',');) header.push_back(line);
  std::array<std::size_t, kReported.size()> column{};
  for (std::size_t k = 0; k < kReported.size(); ++k) {
    const auto at = std::find(header.begin(), header.end(), std::to_string(kReported[k]));
    if (at == header.end())
      throw std::runtime_error(path + ": no column " + std::to_string(kReported[k]));
    column[k] = static_cast<std::size_t>(at - header.begin());
  }
  std::map<std::string, std::array<std::pair<double, int>, kReported.size()>> sums;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    for (std::stringstream cells(line); std::getline(cells, line, ',');) f.push_back(line);
    if (f.size() < header.size() || f[0] != workload) continue;
    const int seed = std::stoi(f[3]);
    if (seed < first || seed > last) continue;
    for (std::size_t k = 0; k < kReported.size(); ++k) {
      if (f[column[k]].empty()) continue;
      sums[f[1]][k].first += std::stod(f[column[k]]);
      ++sums[f[1]][k].second;
    }
  }
  Figures out;
  for (const auto& [policy, cells] : sums) {
    for (std::size_t k = 0; k < kReported.size(); ++k) {
      if (cells[k].second > 0) out[policy][k] = cells[k].first / cells[k].second;
    }
  }
  return out;
}

Figures HwrecFigures(const std::map<PlacementPolicy, std::vector<RunFigures>>& runs) {
  Figures out;
  for (const auto& [policy, per_seed] : runs) {
    auto& cells = out[std::string(ToString(policy))];
    for (std::size_t k = 0; k < kReported.size(); ++k) {
      double s = 0;
      int n = 0;
      for (const RunFigures& run : per_seed) {
        if (const auto v = run.At(kReported[k])) s += *v, ++n;
      }
      if (n > 0) cells[k] = s / n;
    }
  }
  return out;
}

nlohmann::json FiguresJson(const Figures& figures) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [policy, cells] : figures) {
    nlohmann::json row = nlohmann::json::object();
    for (std::size_t k = 0; k < kReported.size(); ++k) {
      row[std::to_string(kReported[k])] =
          cells[k] ? nlohmann::json(std::round(*cells[k] * 100) / 100) : nlohmann::json();
    }
    out[policy] = row;
  }
  return out;
}

std::string Cell(const std::optional<double>& v) { return v ? fmt::format("{:.2f}", *v) : "-"; }

struct Report {
  std::string trace;
  const OpenbAllocationOptions* options = nullptr;
  std::size_t nodes = 0;
  std::int64_t gpus = 0;
  std::map<PlacementPolicy, std::vector<RunFigures>> runs;
  Figures paper;
};

std::vector<double> AllSeconds(const std::vector<RunFigures>& runs) {
  std::vector<double> all;
  for (const RunFigures& r : runs) all.insert(all.end(), r.seconds.begin(), r.seconds.end());
  return all;
}

void PrintJson(const Report& r) {
  nlohmann::json latency = nlohmann::json::object();
  nlohmann::json runs = nlohmann::json::object();
  for (const auto& [policy, per_seed] : r.runs) {
    const std::vector<double> all = AllSeconds(per_seed);
    double runtime = 0;
    nlohmann::json seeds = nlohmann::json::array();
    for (const RunFigures& run : per_seed) {
      runtime += run.runtime;
      nlohmann::json allocation = nlohmann::json::object();
      for (int percent = 0; percent <= kMaxPercent; ++percent) {
        if (const auto at = run.At(percent)) allocation[std::to_string(percent)] = *at;
      }
      seeds.push_back({{"seed", run.seed},
                       {"pods", run.pods},
                       {"placed", run.placed},
                       {"arrived_gpu_milli", run.arrived_milli},
                       {"allocated_gpu_milli", run.allocated_milli},
                       {"allocation", allocation}});
    }
    latency[std::string(ToString(policy))] = {{"p50_ms", Percentile(all, 50) * 1000},
                                              {"p99_ms", Percentile(all, 99) * 1000},
                                              {"runtime_s", runtime}};
    runs[std::string(ToString(policy))] = seeds;
  }
  const nlohmann::json out = {{"trace", r.trace},
                              {"seeds", {r.options->first_seed, r.options->last_seed}},
                              {"nodes", r.nodes},
                              {"gpus", r.gpus},
                              {"hwrec", FiguresJson(HwrecFigures(r.runs))},
                              {"paper", FiguresJson(r.paper)},
                              {"evaluation", latency},
                              {"runs", runs},
                              {"load_average", LoadAverage()}};
  std::cout << out.dump() << "\n";
}

void PrintTable(const Report& r) {
  const OpenbAllocationOptions& o = *r.options;
  std::cout << fmt::format(
      "openb allocation: openb_pod_list_{}, seeds {}-{}, {} nodes ({} GPUs), load {:.2f}\n\n",
      r.trace, o.first_seed, o.last_seed, r.nodes, r.gpus, LoadAverage());
  std::cout << fmt::format("{:<28}", "GPU allocated (%) at demand");
  for (const int p : kReported) std::cout << fmt::format("{:>8}", fmt::format("{}%", p));
  std::cout << "\n";
  auto rows = [](const Figures& figures, const char* source) {
    for (const auto& [policy, cells] : figures) {
      std::cout << fmt::format("{:<28}", fmt::format("{} {}", source, policy));
      for (const auto& cell : cells) std::cout << fmt::format("{:>8}", Cell(cell));
      std::cout << "\n";
    }
  };
  rows(HwrecFigures(r.runs), "hwrec");
  rows(r.paper, "paper");
  std::cout << "\n";
  for (const auto& [policy, per_seed] : r.runs) {
    const std::vector<double> all = AllSeconds(per_seed);
    double runtime = 0;
    std::size_t pods = 0, placed = 0;
    for (const RunFigures& run : per_seed)
      runtime += run.runtime, pods += run.pods, placed += run.placed;
    std::cout << fmt::format(
        "{}: {} pods placed of {}; per pod over {} candidates p50 {:.3f} ms, p99 {:.3f} ms; "
        "{:.1f} s\n",
        ToString(policy), placed, pods, r.nodes, Percentile(all, 50) * 1000,
        Percentile(all, 99) * 1000, runtime);
  }
}

// One row of docs/PLACEMENT.md's table: the paper's six policies, then hwrec's.
void PrintMarkdown(const Report& r) {
  std::string row = "| openb_pod_list_" + r.trace;
  for (const auto& [policy, cells] : r.paper) row += " | " + Cell(cells.back());
  for (const auto& [policy, cells] : HwrecFigures(r.runs)) row += " | " + Cell(cells.back());
  std::cout << row << " |\n";
}

}  // namespace

int RunOpenbAllocation(const OpenbAllocationOptions& options) {
  const std::string trace_dir = options.data_dir + "/alibaba-gpu-v2023";
  const std::string results = options.data_dir + "/fgd-atc23-results/analysis_allo_discrete.csv";
  // The paper's cluster: the simulator's input folders hold the GPU nodes
  // only (its data/prepare_input.sh), not the CPU-only ones.
  const std::string node_list = trace_dir + "/openb_node_list_gpu_node.csv";
  if (!std::filesystem::exists(node_list)) {
    throw UsageError(fmt::format(
        "--data {}: no alibaba-gpu-v2023/openb_node_list_gpu_node.csv there: point --data at "
        "the folder that holds the openb traces",
        options.data_dir));
  }
  auto nodes = ReadOpenbNodes(node_list);
  // In name order, as the simulator sorts them before drawing their order.
  std::stable_sort(nodes.begin(), nodes.end(), [](const OpenbNode& a, const OpenbNode& b) {
    return a.pool.node_pool_id < b.pool.node_pool_id;
  });
  // Allocation is a share of the cluster's GPU: none, and there is no share.
  if (std::none_of(nodes.begin(), nodes.end(),
                   [](const OpenbNode& n) { return n.pool.hardware.gpu_count.value_or(0) > 0; })) {
    throw std::runtime_error(node_list +
                             ": no node has a GPU: the allocation is a share of the cluster's "
                             "GPU; give a node list with GPUs");
  }
  const std::string pod_list = trace_dir + "/openb_pod_list_" + options.trace + ".csv";
  auto pods = ReadOpenbPods(pod_list);
  // DrawSeed draws pods until they ask for 130 % of the cluster's GPU.
  if (pods.empty()) {
    throw std::runtime_error(pod_list + ": holds no pod: give a trace with pods to replay");
  }
  if (std::none_of(pods.begin(), pods.end(), [](const OpenbPod& p) { return GpuMilli(p) > 0; })) {
    throw std::runtime_error(pod_list +
                             ": no pod asks for a GPU: the replay draws pods until they ask for "
                             "130 % of the cluster's GPU, which these never do");
  }
  std::sort(pods.begin(), pods.end(),
            [](const OpenbPod& a, const OpenbPod& b) { return a.name < b.name; });
  ScratchDir scratch;
  auto store = Store::Open(scratch.File("openb.hwrec"), BenchStoreOptions());
  if (!store.ok()) throw std::runtime_error(store.status().ToString());
  ImportOpenbNodes(**store, nodes);
  auto evaluator = PlacementEvaluator::Open(**store);
  if (!evaluator.ok()) throw std::runtime_error(evaluator.status().ToString());
  if (Status set = (*evaluator)->SetDemandMix(TypicalMix(pods)); !set.ok()) {
    throw std::runtime_error(set.ToString());
  }
  AllocationReplay replay(**evaluator, nodes);
  Report report;
  report.trace = options.trace;
  report.options = &options;
  report.nodes = nodes.size();
  report.gpus = replay.gpu_milli() / kMilli;
  for (int seed = options.first_seed; seed <= options.last_seed; ++seed) {
    SeedDraws draws = DrawSeed(pods, nodes.size(), replay.gpu_milli(), seed);
    if (options.pods && *options.pods < draws.pods.size()) draws.pods.resize(*options.pods);
    for (const PlacementPolicy policy : options.policies) {
      report.runs[policy].push_back(replay.Run(draws, policy, seed));
    }
  }
  if (std::filesystem::exists(results)) {
    report.paper = PaperFigures(results, "openb_pod_list_" + options.trace, options.first_seed,
                                options.last_seed);
  }
  if (options.format == "json") {
    PrintJson(report);
  } else if (options.format == "markdown") {
    PrintMarkdown(report);
  } else {
    PrintTable(report);
  }
  return kExitOk;
}

}  // namespace hwrec::bench
