// What the placement evaluator is asked: the execution to place (what its
// author declared, an OOM-retry floor), the candidate pools with their free
// capacity, the policy that ranks them and, for the fragmentation policy,
// the demand expected. Plain values; safe to copy and share between threads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hwrec/export.h"

namespace hwrec {

// Resources an author declared, or an OOM-retry floor. Every field optional.
// `pinned` names fields whose declared value wins over any recommendation:
// cpu_millicores, memory_bytes, gpu_memory_gb, gpu_compute_fraction.
struct HWREC_EXPORT DeclaredResources {
  std::optional<std::int64_t> gpu_count;
  std::optional<std::string> gpu_brand;        // hard constraint
  std::optional<std::string> gpu_model;        // hard constraint (catalog spelling)
  std::optional<std::string> architecture;     // hard constraint
  std::optional<double> gpu_memory_gb;         // per GPU
  std::optional<double> gpu_compute_fraction;  // share of one card, (0, 1]
  std::optional<std::int64_t> cpu_millicores;
  std::optional<std::int64_t> memory_bytes;
  std::vector<std::string> pinned;

  bool operator==(const DeclaredResources& other) const;
};

struct HWREC_EXPORT ExecutionToPlace {
  std::string workload;  // the action image
  DeclaredResources declared;
  std::optional<DeclaredResources> retry_floor;  // after an OOM: never go below it
};

// A candidate pool and its free capacity; absent: no limit known.
struct HWREC_EXPORT PlacementCandidate {
  std::string node_pool_id;
  std::optional<std::int64_t> free_partitions;
  std::optional<std::int64_t> free_cpu_millicores;
  std::optional<std::int64_t> free_memory_bytes;
  // The free share of each GPU of the node (cards shared by share, e.g. 0.4
  // when 60 % of a card is held by others), in [0, 1], one per GPU of a node
  // (the pool's gpu_count); empty: not given.
  // When given, a share of one card goes on one card with that much free and
  // whole GPUs on cards with all of themselves free (docs/PLACEMENT.md).
  std::vector<double> free_gpu_shares = {};
};

enum class PlacementPolicy { kBestFit, kFirstFit, kFragmentation };
// "best_fit", "first_fit", "fragmentation"
HWREC_EXPORT std::string_view ToString(PlacementPolicy policy);
HWREC_EXPORT std::optional<PlacementPolicy> ParsePlacementPolicy(std::string_view text);

// One request size expected of the work to come, for the fragmentation
// policy: `gpu_count` cards (0: CPU-only) of `gpu_share` each (1: whole
// cards), with `cpu_millicores`, weighed by `weight` (> 0; weights are
// normalised to sum to 1).
struct HWREC_EXPORT DemandShape {
  std::int64_t gpu_count = 0;
  double gpu_share = 1;
  std::int64_t cpu_millicores = 0;
  double weight = 1;
};

}  // namespace hwrec
