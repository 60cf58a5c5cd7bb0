// hwrec-bench place --openb: the openb trace's nodes as pools, its pods placed
// one by one through PlacementEvaluator as a scheduler would.
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <queue>
#include <sstream>

#include "bench/bench_commands.h"
#include "bench/bench_util.h"
#include "bench/openb_inventory.h"
#include "hwrec/placement.h"
#include "hwrec/pool_import.h"
#include "hwrec/store.h"

namespace hwrec::bench {

namespace {

struct Free {
  std::int64_t gpus = 0;
  std::int64_t cpu = 0;
  std::int64_t memory = 0;
};

struct Running {
  double until = 0;
  std::size_t node = 0;
  Free used;
  bool operator>(const Running& other) const { return until > other.until; }
};

struct ReplayFigures {
  std::map<std::string, std::int64_t> pools_by_model;  // catalog model, "unknown", "CPU only"
  std::size_t pods = 0;
  std::size_t placed = 0;
  std::int64_t gpus_placed = 0;
  std::string first_unplaced;  // a pod that fit nowhere, with the reason of its first candidate
  std::vector<double> seconds;
  std::size_t candidates = 0;
};

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out) throw std::runtime_error(fmt::format("{}: cannot be written", path));
}

void Emit(const std::string& dir, const std::vector<OpenbNode>& nodes,
          const std::vector<OpenbPod>& pods) {
  std::string pools, candidates = "[", declared;
  for (const OpenbNode& node : nodes) {
    pools += NodePoolJsonLine(node.pool) + "\n";
    candidates += fmt::format(R"({}{{"node_pool_id": "{}"}})", candidates.size() > 1 ? ",\n " : "",
                              node.pool.node_pool_id);
  }
  for (const OpenbPod& pod : pods) declared += DeclaredJson(DeclaredOf(pod)) + "\n";
  WriteText(dir + "/pools.jsonl", pools);
  WriteText(dir + "/candidates.json", candidates + "]\n");
  WriteText(dir + "/declared.jsonl", declared);
}

// Pools whose trace model is one of the pod's gpu_spec (every pool when it has none).
bool Allowed(const OpenbPod& pod, const OpenbNode& node) {
  if (pod.gpu_spec.empty()) return true;
  return std::find(pod.gpu_spec.begin(), pod.gpu_spec.end(), node.trace_model) !=
         pod.gpu_spec.end();
}

std::vector<PlacementCandidate> CandidatesFor(const OpenbPod& pod,
                                              const std::vector<OpenbNode>& nodes,
                                              const std::vector<Free>& free) {
  std::vector<PlacementCandidate> out;
  out.reserve(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (!Allowed(pod, nodes[i])) continue;
    out.push_back({nodes[i].pool.node_pool_id, free[i].gpus, free[i].cpu, free[i].memory});
  }
  return out;
}

void PlaceAll(PlacementEvaluator& evaluator, const std::vector<OpenbNode>& nodes,
              const std::vector<OpenbPod>& pods, ReplayFigures* figures) {
  std::map<std::string, std::size_t> index;
  std::vector<Free> free;
  for (const OpenbNode& n : nodes) {
    index[n.pool.node_pool_id] = free.size();
    const HardwareProfile& h = n.pool.hardware;
    free.push_back(
        {h.gpu_count.value_or(0), h.cpu_millicores.value_or(0), h.memory_bytes.value_or(0)});
  }
  std::priority_queue<Running, std::vector<Running>, std::greater<>> running;
  Stopwatch stopwatch;
  for (const OpenbPod& pod : pods) {
    for (; !running.empty() && running.top().until <= pod.creation_time; running.pop()) {
      Free& f = free[running.top().node];
      f.gpus += running.top().used.gpus, f.cpu += running.top().used.cpu;
      f.memory += running.top().used.memory;
    }
    const auto candidates = CandidatesFor(pod, nodes, free);
    ExecutionToPlace execution;
    execution.workload = "openb/" + pod.name;
    execution.declared = DeclaredOf(pod);
    stopwatch.Start();
    const auto result = evaluator.Evaluate(execution, candidates);
    stopwatch.Stop();
    if (!result.ok()) throw std::runtime_error(result.status().ToString());
    figures->candidates = std::max(figures->candidates, candidates.size());
    const CandidateEvaluation* chosen = result->chosen_evaluation();
    if (chosen == nullptr) {
      if (figures->first_unplaced.empty()) {
        figures->first_unplaced = pod.name + ": " + result->evaluations.front().reason;
      }
      continue;
    }
    const Free used{chosen->request.gpu_count, chosen->request.cpu_request_millicores.value_or(0),
                    chosen->request.memory_bytes.value_or(0)};
    Free& f = free[index.at(chosen->node_pool_id)];
    f.gpus -= used.gpus, f.cpu -= used.cpu, f.memory -= used.memory;
    running.push({pod.deletion_time, index.at(chosen->node_pool_id), used});
    ++figures->placed;
    figures->gpus_placed += used.gpus;
  }
  figures->pods = pods.size();
  figures->seconds = stopwatch.laps();
}

void Print(const ReplayFigures& r, bool as_json) {
  const double p50 = Percentile(r.seconds, 50) * 1000;
  const double p99 = Percentile(r.seconds, 99) * 1000;
  std::int64_t nodes = 0;
  std::string models;
  for (const auto& [model, count] : r.pools_by_model) {
    nodes += count;
    models += fmt::format(R"({}"{}": {})", models.empty() ? "" : ", ", model, count);
  }
  if (as_json) {
    std::cout << fmt::format(
        R"({{"pools": {}, "pools_by_model": {{{}}}, "pods": {}, "placed": {}, "not_placed": {}, )"
        R"("gpus_placed": {}, "max_candidates": {}, "p50_ms": {:.4f}, "p99_ms": {:.4f}}})"
        "\n",
        nodes, models, r.pods, r.placed, r.pods - r.placed, r.gpus_placed, r.candidates, p50, p99);
    return;
  }
  std::cout << fmt::format("openb replay: {} pools ({})\n", nodes, models)
            << fmt::format("  pods placed     {} of {} ({} GPUs)\n", r.placed, r.pods,
                           r.gpus_placed)
            << fmt::format("  not placed      {}\n", r.pods - r.placed)
            << fmt::format(
                   "  per evaluation  p50 {:.4f} ms, p99 {:.4f} ms over up to {} "
                   "candidates\n",
                   p50, p99, r.candidates);
  if (!r.first_unplaced.empty()) std::cout << "  e.g. " << r.first_unplaced << "\n";
}

}  // namespace

int RunOpenbReplay(const std::string& dir, std::optional<std::size_t> pods,
                   const std::string& emit_dir, const std::string& store_path, bool as_json) {
  const auto nodes = ReadOpenbNodes(dir + "/openb_node_list_all_node.csv");
  auto all_pods = ReadOpenbPods(dir + "/openb_pod_list_default.csv");
  if (pods && *pods < all_pods.size()) all_pods.resize(*pods);
  if (!emit_dir.empty()) Emit(emit_dir, nodes, all_pods);
  std::stable_sort(all_pods.begin(), all_pods.end(), [](const OpenbPod& a, const OpenbPod& b) {
    return a.creation_time < b.creation_time;
  });
  ScratchDir scratch;
  auto store = Store::Open(store_path.empty() ? scratch.File("openb.hwrec") : store_path,
                           BenchStoreOptions());
  if (!store.ok()) throw std::runtime_error(store.status().ToString());
  ReplayFigures figures;
  for (const OpenbNode& node : nodes) {
    const auto& model = node.pool.hardware.gpu_model;
    ++figures.pools_by_model[node.trace_model.empty() ? "CPU only"
                             : model                  ? *model
                                                      : "unknown (" + node.trace_model + ")"];
  }
  ImportOpenbNodes(**store, nodes);
  auto evaluator = PlacementEvaluator::Open(**store);
  if (!evaluator.ok()) throw std::runtime_error(evaluator.status().ToString());
  PlaceAll(**evaluator, nodes, all_pods, &figures);
  Print(figures, as_json);
  return kExitOk;
}

}  // namespace hwrec::bench
