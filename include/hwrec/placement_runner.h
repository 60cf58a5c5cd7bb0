// A placement in the Runner's own terms: the chosen effective request as the
// `resources_allocation` of CompleteExecutionMetric (the fields and units
// hwrec reads from it, docs/RUNNER.md), and the compute fraction the Runner
// stamps on StartExecutionV2's metadata. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "hwrec/export.h"
#include "hwrec/placement_result.h"

namespace hwrec {

// `resources_allocation` as the Runner writes it; absent where the request
// has no figure (no history and nothing declared).
struct HWREC_EXPORT RunnerAllocation {
  std::optional<double> cpu;                   // cores, to the millicore (2500 m is 2.5)
  std::optional<std::int64_t> memory;          // bytes
  std::int64_t gpu = 0;                        // GPUs held: whole cards or partitions
  std::optional<double> gpu_memory_gb;         // GiB (2^30 bytes) per GPU
  std::optional<double> gpu_compute_fraction;  // per GPU, share of one card
  bool operator==(const RunnerAllocation& other) const;
};

// `request` in the Runner's units: cpu is the CPU request (not the limit) in
// cores; gpu_memory_gb and gpu_compute_fraction what the pool gives per GPU
// (its partition, or the share of a whole card others share), left out where
// the pool's GPU model or partitioning is not recorded.
HWREC_EXPORT RunnerAllocation ToRunnerAllocation(const EffectiveRequest& request);

// {"cpu":2.5,"memory":8589934592,"gpu":1,"gpu_memory_gb":40,
// "gpu_compute_fraction":0.428571}: absent figures are left out, as the
// Runner leaves out what it does not know.
HWREC_EXPORT std::string RunnerAllocationJson(const RunnerAllocation& allocation);

// The compute fraction to stamp on StartExecutionV2 once `evaluation` (the
// chosen pool) is applied: the share of one card the execution is given, that
// is its partition's (3/7 of an A100 for mig-3g.40gb, written 0.428571; 1 for a
// whole card) or its share of a card others share; not the recommended
// figure. nullopt when the execution holds no GPU or the pool's GPU model or
// partitioning is not recorded (then only the Runner knows what it gave).
HWREC_EXPORT std::optional<double> StampedComputeFraction(const CandidateEvaluation& evaluation);

}  // namespace hwrec
