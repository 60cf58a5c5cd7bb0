// Ranking the candidates of one evaluation (PlacementEvaluator::Impl::Rank):
// the feasible ones first, in the order of the policy's keys (best_fit,
// fragmentation: docs/PLACEMENT.md "Score", "Fragmentation") or as given
// (first_fit), then the others as given.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "hwrec/placement.h"
#include "hwrec/placement_input.h"
#include "hwrec/placement_result.h"
#include "hwrec/recommend.h"
#include "placement/candidate.h"
#include "placement/evaluator_impl.h"

namespace hwrec {

namespace {

using internal::PoolFacts;

// Score ties closer than this are ties: the next term decides.
double Rounded(double value) { return std::round(value * 1e6) / 1e6; }

// The score terms best_fit and fragmentation share: a known score before an
// unknown one, the lower; a known compute shortfall before an unknown one,
// the smaller; a known card waste before an unknown one, the smaller.
template <typename = void>
auto ScoreTerms(const PlacementWaste& w) {
  return std::make_tuple(!w.score.has_value(), Rounded(w.score.value_or(0)),
                         !w.compute_shortfall.has_value(), Rounded(w.compute_shortfall.value_or(0)),
                         !w.card.has_value(), Rounded(w.card.value_or(0)));
}

// How many figures of a candidate's request a default or the execution's
// declaration sized, not the workload's own history (CPU request and memory;
// GPU memory and compute share for GPU work): candidates history sizes rank
// first. A figure nothing sized is left to the score's unknown terms (a
// whole card needs no compute share to be judged).
int GuessedFigures(const CandidateEvaluation& e) {
  int guessed = 0;
  for (FigureKind kind : {FigureKind::kCpuRequestMillicores, FigureKind::kMemoryBytes,
                          FigureKind::kGpuMemoryGb, FigureKind::kGpuComputeFraction}) {
    const bool gpu = kind == FigureKind::kGpuMemoryGb || kind == FigureKind::kGpuComputeFraction;
    if (gpu && e.request.gpu_count == 0) continue;
    const FigureSource source = e.request.origins[static_cast<std::size_t>(kind)].source;
    guessed += source == FigureSource::kDefault || source == FigureSource::kDeclared;
  }
  return guessed;
}

// best_fit (docs/PLACEMENT.md "Score"): for CPU-only work CPU-only pools
// first; the fewer figures sized by a default or a declaration; the score terms; a known gpu_left
// before an unknown one, the smaller; the less CPU and memory left idle; candidate order. An
// unknown term never counts as zero.
template <typename = void>
auto BestFitKey(const CandidateEvaluation& e, bool gpu_work, bool gpu_pool) {
  const PlacementWaste& w = e.waste;
  return std::tuple_cat(std::make_tuple(!gpu_work && gpu_pool, GuessedFigures(e)), ScoreTerms<>(w),
                        std::make_tuple(!w.gpu_left.has_value(), Rounded(w.gpu_left.value_or(0)),
                                        Rounded(w.cpu + w.memory), e.candidate));
}

// fragmentation (docs/PLACEMENT.md "Fragmentation"): for CPU-only work
// CPU-only pools first; the fewer figures sized by a default or a
// declaration; a known increase before an unknown one; the higher
// FragmentationScore; for CPU-only work the node with the least free GPU (a
// known amount first); where the increase is unknown, the score terms; candidate
// order.
template <typename = void>
auto FragmentationKey(const CandidateEvaluation& e, bool gpu_work, bool gpu_pool) {
  static const PlacementWaste kNoTerms;  // in the score terms' place when the increase is known
  const PlacementWaste& w = e.waste;
  const std::optional<double>& f = w.fragmentation;
  const std::optional<double> left = gpu_work ? std::optional<double>(0) : w.gpu_left;
  return std::tuple_cat(std::make_tuple(!gpu_work && gpu_pool, GuessedFigures(e), !f.has_value(),
                                        f ? -FragmentationScore(*f) : 0, !left.has_value(),
                                        Rounded(left.value_or(0))),
                        ScoreTerms<>(f ? kNoTerms : w), std::make_tuple(e.candidate));
}

// Candidates in `key` order, feasible ones only: each key computed once, then
// positions sorted by them (a comparison costs no lookup, a swap moves no
// key). Keys end in the candidate's position: no two are equal.
template <typename KeyOf>
void SortFeasible(const std::vector<CandidateEvaluation>& all, std::int64_t gpu_count,
                  const std::vector<const PoolFacts*>& pools_given, KeyOf key_of,
                  std::vector<std::size_t>* order) {
  using Key = decltype(key_of(all.front(), false, false));
  std::vector<Key> keys;
  keys.reserve(all.size());
  std::vector<std::size_t> positions;  // in `all`, parallel to `keys`
  positions.reserve(all.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (!all[i].feasible) continue;
    const PoolFacts* pool = pools_given[all[i].candidate];
    const bool gpu_pool = pool != nullptr && pool->pool.hardware.gpu_count.value_or(0) > 0;
    keys.push_back(key_of(all[i], gpu_count > 0, gpu_pool));
    positions.push_back(i);
  }
  std::vector<std::uint32_t> ranked(keys.size());
  for (std::uint32_t k = 0; k < ranked.size(); ++k) ranked[k] = k;
  std::sort(ranked.begin(), ranked.end(),
            [&keys](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });
  for (const std::uint32_t k : ranked) order->push_back(positions[k]);
}

}  // namespace

int FragmentationScore(double increase) {
  if (std::isnan(increase)) return 0;
  return static_cast<int>(std::floor(100 / (1 + std::exp(increase))));
}

// The order is worked out on indices, then each evaluation is moved once.
void PlacementEvaluator::Impl::Rank(PlacementResult* result, PlacementPolicy policy,
                                    std::int64_t gpu_count,
                                    const std::vector<const PoolFacts*>& pools_given) const {
  auto& all = result->evaluations;
  std::vector<std::size_t> order;
  order.reserve(all.size());
  if (policy == PlacementPolicy::kBestFit) {
    SortFeasible(all, gpu_count, pools_given, BestFitKey<>, &order);
  } else if (policy == PlacementPolicy::kFragmentation) {
    SortFeasible(all, gpu_count, pools_given, FragmentationKey<>, &order);
  } else {
    for (std::size_t i = 0; i < all.size(); ++i) {
      if (all[i].feasible) order.push_back(i);
    }
  }
  const bool any_feasible = !order.empty();
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (!all[i].feasible) order.push_back(i);
  }
  std::vector<CandidateEvaluation> ranked;
  ranked.reserve(all.size());
  for (const std::size_t i : order) ranked.push_back(std::move(all[i]));
  all = std::move(ranked);
  if (any_feasible) result->chosen = 0;
}

}  // namespace hwrec
