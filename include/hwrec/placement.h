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

#include "hwrec/placement_types.h"
#include "hwrec/status.h"

namespace hwrec {

class Store;

class PlacementEvaluator {
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

// The rules every candidate list obeys, however it was built (Evaluate and
// ParsePlacementCandidates apply them): each candidate names a pool, each pool
// is listed once, and no free capacity is negative. Messages count candidates
// from 1. Returns kInvalidArgument naming the first candidate that breaks one.
Status CheckPlacementCandidates(const std::vector<PlacementCandidate>& candidates);

}  // namespace hwrec
