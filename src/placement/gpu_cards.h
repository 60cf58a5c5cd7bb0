// Private: the cards of a candidate that shares GPUs by share
// (PlacementCandidate::free_gpu_shares): which cards a request goes on, and
// how much of the node's free GPU a demand mix cannot use (the fragmentation
// policy, docs/PLACEMENT.md "Fragmentation").
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "hwrec/placement_result.h"

namespace hwrec::internal {

// What one execution takes of a node's GPUs: `count` cards of `share` each
// (share < 1 only for a single card shared with others).
struct CardRequest {
  std::int64_t count = 0;
  double share = 1;
};

// A node's free GPU: each card's free share, and its free CPU (absent: no limit known).
struct FreeGpu {
  std::vector<double> shares;
  std::optional<std::int64_t> cpu_millicores;
};

// The cards `request` goes on: for a share of one card the tightest card with
// that much free (the lowest position among equals); for whole cards the first
// `count` cards entirely free. Empty when they are not there.
std::vector<std::size_t> TightestCards(const std::vector<double>& shares,
                                       const CardRequest& request);

// Cards' worth of `free` that the mix cannot use, weighed by each shape's
// weight (the mix sums to 1): for a shape the node can host (enough cards with
// its share free, and its CPU), the free shares of the cards too small for it;
// otherwise, and for CPU-only shapes, all of the node's free GPU.
double UnusableCards(const FreeGpu& free, const std::vector<DemandShape>& mix);

// The cards `request` goes on chosen to add the least to UnusableCards (ties:
// the tightest card, then the lowest position), and that increase. Cards as
// TightestCards for whole cards. nullopt when the request does not fit.
struct FragmentationChoice {
  std::vector<std::size_t> cards;
  double increase = 0;
};
std::optional<FragmentationChoice> LeastFragmentingCards(const FreeGpu& free,
                                                         const CardRequest& request,
                                                         std::int64_t cpu_millicores,
                                                         const std::vector<DemandShape>& mix);

}  // namespace hwrec::internal
