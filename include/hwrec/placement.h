// PlacementEvaluator: for one execution and its candidate node pools, what the
// execution should request on each pool's own hardware, whether it fits and why
// not, and which pool to choose (DESIGN §7). An evaluator holds a snapshot of
// the catalog and the registered pools taken when it is opened, and reads
// recommendations through its Store's connection with statements it keeps
// prepared between evaluations: one thread at a time, and the Store outlives it.
// Each evaluation reads history and settings as they are then.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hwrec/placement_types.h"
#include "hwrec/status.h"

namespace hwrec {

class Store;

class PlacementEvaluator {
 public:
  // Loads the catalog and the registered node pools once.
  static Result<PlacementEvaluator> Open(const Store& store);

  PlacementEvaluator(PlacementEvaluator&&) noexcept;
  PlacementEvaluator& operator=(PlacementEvaluator&&) noexcept;
  PlacementEvaluator(const PlacementEvaluator&) = delete;
  PlacementEvaluator& operator=(const PlacementEvaluator&) = delete;
  ~PlacementEvaluator();

  // Evaluates every candidate (a pool missing from the snapshot is infeasible,
  // with the reason) and chooses by `policy`. Recommendations are read as of
  // `as_of` (default now), once per distinct hardware key, from one consistent
  // state of the store. Fails only on bad input (no candidates, a pin without a
  // value) or a store error.
  Result<PlacementResult> Evaluate(const ExecutionToPlace& execution,
                                   const std::vector<PlacementCandidate>& candidates,
                                   PlacementPolicy policy = PlacementPolicy::kBestFit,
                                   std::optional<double> as_of = std::nullopt);

 private:
  struct Impl;
  explicit PlacementEvaluator(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Writes the chosen effective request of `result` onto the `placements` row
// of `execution_id`, with its provenance and the time, in one write
// transaction. Returns the row id. One row per execution: recording the same
// decision again changes nothing; another decision replaces the row (same id,
// new time), as the latest choice is the one applied. Fails when nothing was
// chosen.
Result<std::int64_t> RecordPlacement(Store& store, const std::string& execution_id,
                                     const PlacementResult& result);

// A recorded placement, as RecordPlacement wrote it.
struct PlacementRecord {
  std::int64_t id = 0;
  std::string execution_id;
  std::string workload;
  std::string node_pool_id;
  PlacementPolicy policy = PlacementPolicy::kBestFit;
  EffectiveRequest request;
  double placed_at = 0;  // epoch seconds
};

// The placement recorded for `execution_id`: none or one.
Result<std::vector<PlacementRecord>> ListPlacements(const Store& store,
                                                    const std::string& execution_id);

// The versioned payload for an external scheduler: {"schema":
// "hwrec.placement/v1", "workload", "policy", "as_of", "candidates": [ranked
// entries with node_pool_id, feasible, reason, notes, request, needs, waste,
// provenance], "chosen": {node_pool_id, request} or null}.
std::string PlacementToJson(const PlacementResult& result, int indent = -1);
// Reads a payload PlacementToJson wrote; refuses other schema versions.
Result<PlacementResult> ParsePlacementJson(const std::string& json);

// Reads `{"gpu_count": n, "gpu_brand": "...", "gpu_model": "...", "architecture":
// "...", "gpu_memory_gb": x, "gpu_compute_fraction": x, "cpu_millicores": n,
// "memory_bytes": n, "pinned": ["field", …]}`, every field optional. `what`
// names the input in errors ("--declared").
Result<DeclaredResources> ParseDeclaredResources(const std::string& json, const std::string& what);
// Reads a JSON array of {"node_pool_id", "free_partitions", "free_cpu_millicores",
// "free_memory_bytes"}; a missing free field means no limit is known.
Result<std::vector<PlacementCandidate>> ParsePlacementCandidates(const std::string& json);

// The rules every candidate list obeys, however it was built (Evaluate and
// ParsePlacementCandidates apply them): each candidate names a pool, each pool
// is listed once, and no free capacity is negative. Messages count candidates
// from 1.
Status CheckPlacementCandidates(const std::vector<PlacementCandidate>& candidates);

}  // namespace hwrec
