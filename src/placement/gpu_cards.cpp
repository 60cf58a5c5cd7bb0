#include "placement/gpu_cards.h"

#include <algorithm>
#include <numeric>

namespace hwrec::internal {

namespace {

constexpr double kShareEpsilon = 1e-9;

bool Holds(double free, double share) { return free >= share - kShareEpsilon; }

// Whether `free` hosts one shape: its cards and its CPU.
bool Hosts(const FreeGpu& free, const DemandShape& shape) {
  if (free.cpu_millicores && *free.cpu_millicores < shape.cpu_millicores) return false;
  std::int64_t cards = 0;
  for (const double s : free.shares) cards += Holds(s, shape.gpu_share) ? 1 : 0;
  return cards >= shape.gpu_count;
}

FreeGpu After(const FreeGpu& free, const std::vector<std::size_t>& cards, double share,
              std::int64_t cpu_millicores) {
  FreeGpu after = free;
  for (const std::size_t card : cards)
    after.shares[card] = std::max(0.0, after.shares[card] - share);
  if (after.cpu_millicores) *after.cpu_millicores -= cpu_millicores;
  return after;
}

}  // namespace

std::vector<std::size_t> TightestCards(const std::vector<double>& shares,
                                       const CardRequest& request) {
  std::vector<std::size_t> cards;
  if (request.count <= 0) return cards;
  if (request.share < 1 - kShareEpsilon) {
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < shares.size(); ++i) {
      if (Holds(shares[i], request.share) && (!best || shares[i] < shares[*best] - kShareEpsilon)) {
        best = i;
      }
    }
    if (best) cards.push_back(*best);
    return cards;
  }
  for (std::size_t i = 0;
       i < shares.size() && static_cast<std::int64_t>(cards.size()) < request.count; ++i) {
    if (Holds(shares[i], 1)) cards.push_back(i);
  }
  if (static_cast<std::int64_t>(cards.size()) < request.count) cards.clear();
  return cards;
}

double UnusableCards(const FreeGpu& free, const std::vector<DemandShape>& mix) {
  const double total = std::accumulate(free.shares.begin(), free.shares.end(), 0.0);
  double unusable = 0;
  for (const DemandShape& shape : mix) {
    if (shape.gpu_count == 0 || !Hosts(free, shape)) {
      unusable += shape.weight * total;
      continue;
    }
    double small = 0;
    for (const double s : free.shares) small += Holds(s, shape.gpu_share) ? 0 : s;
    unusable += shape.weight * small;
  }
  return unusable;
}

std::optional<FragmentationChoice> LeastFragmentingCards(const FreeGpu& free,
                                                         const CardRequest& request,
                                                         std::int64_t cpu_millicores,
                                                         const std::vector<DemandShape>& mix) {
  const double before = UnusableCards(free, mix);
  auto increase = [&](const std::vector<std::size_t>& cards) {
    return UnusableCards(After(free, cards, request.share, cpu_millicores), mix) - before;
  };
  if (request.count <= 0 || request.share >= 1 - kShareEpsilon) {
    std::vector<std::size_t> cards = TightestCards(free.shares, request);
    if (request.count > 0 && cards.empty()) return std::nullopt;
    const double added = increase(cards);
    return FragmentationChoice{std::move(cards), added};
  }
  std::optional<FragmentationChoice> best;
  for (std::size_t i = 0; i < free.shares.size(); ++i) {
    if (!Holds(free.shares[i], request.share)) continue;
    // Cards with the same free share are interchangeable: the first is tried.
    const auto same = std::find(
        free.shares.begin(), free.shares.begin() + static_cast<std::ptrdiff_t>(i), free.shares[i]);
    if (same != free.shares.begin() + static_cast<std::ptrdiff_t>(i)) continue;
    const double added = increase({i});
    const bool better = !best || added < best->increase - kShareEpsilon ||
                        (added < best->increase + kShareEpsilon &&
                         free.shares[i] < free.shares[best->cards[0]] - kShareEpsilon);
    if (better) best = FragmentationChoice{{i}, added};
  }
  return best;
}

}  // namespace hwrec::internal
