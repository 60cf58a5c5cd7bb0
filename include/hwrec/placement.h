// PlacementEvaluator: for one execution and its candidate node pools, what the
// execution should request on each pool's own hardware, whether it fits and why
// not, and which pool to choose (DESIGN §7). An evaluator keeps the catalog
// and the registered pools between evaluations, and reads recommendations
// through its Store's connection with statements it keeps prepared: one
// thread at a time, and the Store outlives it. Each evaluation sees the
// store as one state, as committed before it began by any process or
// replica: pools, catalog and settings are checked for change in that state
// and re-read only when they changed; history is read as it is then.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hwrec/export.h"
#include "hwrec/observation.h"
#include "hwrec/placement_result.h"
#include "hwrec/status.h"

namespace hwrec {

class Store;

class HWREC_EXPORT PlacementEvaluator {
 public:
  // Loads the catalog and the registered node pools. Returns kIoError when
  // the store cannot be read.
  static Result<std::unique_ptr<PlacementEvaluator>> Open(const Store& store);

  PlacementEvaluator(const PlacementEvaluator&) = delete;
  PlacementEvaluator& operator=(const PlacementEvaluator&) = delete;
  ~PlacementEvaluator();

  // Evaluates every candidate (a pool the store has not registered is
  // infeasible, with the reason) and chooses by `policy`. Recommendations are read as of
  // `as_of` (default now), once per distinct hardware key, from one consistent
  // state of the store. Returns kInvalidArgument for bad input (no workload, no
  // candidates, a candidate listed twice or without a pool, a pin without a
  // value, a bad as_of), kSchemaMismatch when the store predates the
  // recommendation tables, kIoError when the store cannot be read.
  Result<PlacementResult> Evaluate(const ExecutionToPlace& execution,
                                   const std::vector<PlacementCandidate>& candidates,
                                   PlacementPolicy policy = PlacementPolicy::kBestFit,
                                   std::optional<double> as_of = std::nullopt);

  // The request sizes the fragmentation policy expects of the work to come
  // (docs/PLACEMENT.md "Fragmentation"); weights are normalised. Until set,
  // or set empty, each execution's own request is the one expected. Returns
  // kInvalidArgument naming the first shape with a negative count, a share
  // outside (0, 1] (or below 1 on more than one card), or a weight that is not
  // a finite number above 0.
  Status SetDemandMix(std::vector<DemandShape> mix);

 private:
  struct Impl;
  explicit PlacementEvaluator(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The OOM-retry floor of an execution that ran out of memory: what its retry
// must request at least, so that the bump is never undone (DESIGN §7). It is
// the bump the aggregates learn from the same execution, not capped by the
// hardware it ran on: max(requested, observed) × oom_bump_factor, at least
// +100 MiB of memory (status oom) or +1 GiB of GPU memory per GPU (gpu_oom).
// Give it to Evaluate as ExecutionToPlace::retry_floor.
struct HWREC_EXPORT RetryFloorOnPool {
  std::string node_pool_id;
  // A node of the pool holds the floor: its memory, or its partition's GPU
  // memory, is at least the floor's; true when the pool's size is unknown (a
  // GPU of unknown model), false when the pool is not registered.
  bool holds = false;
  std::string reason;  // "holds it", or why not, in words
};
struct HWREC_EXPORT OomRetryFloor {
  std::string execution_id;
  std::string workload;
  ExecutionStatus status = ExecutionStatus::kOom;  // kOom or kGpuOom
  // memory_bytes (oom) or gpu_memory_gb (gpu_oom); nothing else is set.
  DeclaredResources floor;
  // "gpu_oom: max(requested 20 GiB, observed 19.5 GiB) × 1.2 = 24 GiB per GPU".
  std::string reason;
  std::vector<RetryFloorOnPool> pools;  // one per pool asked about, in order
};

// The retry floor of the stored execution `execution_id`, with the store's
// oom_bump_factor, and whether each of `node_pool_ids` holds it. Returns
// kNotFound when no stored observation has the id, kInvalidArgument when it
// did not run out of memory (its status is not oom or gpu_oom) or recorded
// neither what it requested nor what it used of the memory that ran out,
// kIoError when the store cannot be read.
HWREC_EXPORT Result<OomRetryFloor> RetryFloorAfterOom(
    const Store& store, const std::string& execution_id,
    const std::vector<std::string>& node_pool_ids = {});

// The rules every candidate list obeys, however it was built (Evaluate and
// ParsePlacementCandidates apply them): each candidate names a pool, each pool
// is listed once, and no free capacity is negative. Messages count candidates
// from 1. Returns kInvalidArgument naming the first candidate that breaks one.
HWREC_EXPORT Status CheckPlacementCandidates(const std::vector<PlacementCandidate>& candidates);

}  // namespace hwrec
