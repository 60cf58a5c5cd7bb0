// Private: how one candidate pool is judged for one execution. The evaluator
// resolves the pool and its recommendation; these functions are pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hwrec/catalog.h"
#include "hwrec/node_pool.h"
#include "hwrec/placement_result.h"
#include "hwrec/recommend.h"
#include "placement/history.h"

namespace hwrec::internal {

// How far apart two figures (or shares of a card) may be and still count as
// equal, in the judging of a candidate and in the figures it starts from.
inline constexpr double kEpsilon = 1e-9;

// The candidate rules (CheckPlacementCandidates) one candidate at a time, for
// the evaluator, which finds duplicates while it looks the pools up. `i` is the
// candidate's position; messages count from 1.
Status CheckCandidateFields(std::size_t i, const PlacementCandidate& candidate);
Status CandidateListedTwice(std::size_t i, const std::string& node_pool_id);

// A registered pool with its catalog facts, looked up once per evaluator.
struct PoolFacts {
  NodePool pool;
  std::size_t key_index = 0;                // distinct hardware key of the snapshot
  const GpuModel* card = nullptr;           // null: CPU-only or model not recorded
  const GpuPartition* partition = nullptr;  // null: CPU-only or model not recorded
  std::string partition_words;              // PartitionWords(*partition), or ""
  std::optional<std::int64_t> partitions_per_node;
};

// The execution's per-evaluation constants: what it declared, checked once,
// completed from its history where it declared nothing.
struct ExecutionFacts {
  const ExecutionToPlace* execution = nullptr;
  ExecutionShape shape;
  std::string architecture_words;  // "x86_64", when they come from history
  // "3 of its last 5 executions that ran": those that recorded an architecture.
  std::string architecture_history_words;
  bool pin_cpu = false;
  bool pin_memory = false;
  bool pin_gpu_memory = false;
  bool pin_compute = false;
  // The store's default CPU and memory request (settings default.*): what a
  // pool gets where neither history nor the execution sizes them.
  double default_cpu_millicores = 0;
  double default_memory_bytes = 0;
};

// "a whole A100 80GB (80 GiB)", "3g.40gb (40 GiB)": what one partition offers.
std::string PartitionWords(const GpuPartition& partition);

// Checks pins and counts; fails naming the field and the fix. The shape is
// what was declared; CompleteShape fills in the rest.
Result<ExecutionFacts> ResolveExecution(const ExecutionToPlace& execution);
// Whether the author left the GPU count or the architecture to history.
bool ShapeNeedsHistory(const ExecutionFacts& facts);
// Takes the GPU count and architectures the author did not declare from
// `history`, then raises the GPU count to the retry floor's.
void CompleteShape(const WorkloadHistory& history, ExecutionFacts* facts);

// What a candidate's request starts from: CPU, memory and GPU needs chosen
// from its pool's recommendation (null: none, the pool is not registered)
// and what the execution declared. The same for every pool of one hardware
// key: worked out once per key.
struct ChosenFigures {
  EffectiveRequest request;
  PlacementNeeds needs;
};
ChosenFigures ChooseFigures(const ExecutionFacts& execution, const Recommendation* recommendation);

// Judges one candidate. `pool` null: not registered. `chosen`: ChooseFigures
// of that pool's recommendation. `mix` (fragmentation policy only, else
// null): the demand mix the fragmentation term is scored for; empty: the
// execution's own request.
CandidateEvaluation EvaluateCandidate(const ExecutionFacts& execution,
                                      const PlacementCandidate& candidate, std::size_t index,
                                      const PoolFacts* pool, const ChosenFigures& chosen,
                                      const std::vector<DemandShape>* mix);

}  // namespace hwrec::internal
