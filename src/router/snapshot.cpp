// RouterSnapshot::Load: the configuration, the catalog's card sizes and what
// each intent's workload needs per GPU on every card at every width, read once.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "base/status_error.h"
#include "base/time.h"
#include "hwrec/catalog.h"
#include "hwrec/router.h"
#include "recommend/kept_reader.h"
#include "router/router_internal.h"
#include "store/database.h"
#include "store/guarded.h"

namespace hwrec {

namespace {

// The widths a rung of `intent` may have: every GCP machine width, 1, and the
// intent's minimum (its SLURM and RunPod rungs' width).
std::set<int> RungWidths(const RouterConfig& config, const Intent& intent) {
  std::set<int> widths = {1, std::max(1, intent.min_width)};
  for (const GcpMachineType& m : config.machines) widths.insert(m.gpu_count);
  return widths;
}

// Where a transferred figure was learned: its source card and the factor
// ("A100 80GB x1.20 by transfer"); empty for a figure of another provenance.
std::string TransferredFrom(const Figure& figure) {
  if (figure.provenance != Provenance::kTransferred || !figure.transfer) return "";
  return fmt::format("{} x{:.2f} by transfer",
                     figure.transfer->source.gpu_model.value_or("another card"),
                     figure.transfer->factor);
}

// The need at each width in `widths` from what the workload needed at the
// widths it ran at (`by_width`; the pooled figure when it has none): the
// figure of that width; else of the nearest wider one, a lower bound of one
// shard's need; else of the nearest narrower one, which the ladder notes but
// never prunes with.
void NeedsAtWidths(const std::map<std::int64_t, Figure>& by_width, const Figure& pooled,
                   const std::string& model, const std::set<int>& widths,
                   std::map<CardWidth, CardNeed>* needs) {
  for (int width : widths) {
    CardNeed& need = (*needs)[{model, width}];
    if (by_width.empty()) {
      need = CardNeed{pooled.value, pooled.provenance, std::nullopt, TransferredFrom(pooled)};
      continue;
    }
    auto at = by_width.lower_bound(width);         // this width, else the nearest wider
    if (at == by_width.end()) at = std::prev(at);  // else the nearest narrower
    need =
        CardNeed{at->second.value, at->second.provenance, at->first, TransferredFrom(at->second)};
  }
}

// Needs of one intent's workload on every card the configuration offers, at
// every width a rung of it may have; empty when it has no GPU-memory history.
std::map<CardWidth, CardNeed> NeedsOf(internal::RecommendationReader& reader,
                                      const RouterConfig& config, const Intent& intent,
                                      double as_of) {
  std::map<CardWidth, CardNeed> needs;
  const std::optional<std::int64_t> workload_id = reader.WorkloadId(intent.workload_image);
  if (!workload_id) return needs;
  std::map<std::string, std::string> cards;  // model -> brand
  for (const GcpMachineType& m : config.machines) cards.emplace(m.gpu_model, m.gpu_brand);
  for (const SlurmLane& lane : config.lanes) cards.emplace(lane.gpu_model, lane.gpu_brand);
  cards.emplace(config.runpod.gpu_model, config.runpod.gpu_brand);
  bool any_history = false;
  std::vector<HardwareKey> keys;
  for (const auto& [model, brand] : cards) {
    if (model.empty()) continue;
    HardwareKey& key = keys.emplace_back();
    key.gpu_brand = brand;
    key.gpu_model = model;
  }
  // Every card's rows, of every width, in one read of the workload's aggregates.
  std::vector<const HardwareKey*> wanted;
  wanted.reserve(keys.size());
  for (const HardwareKey& key : keys) wanted.push_back(&key);
  internal::AggregateMemo memo;
  reader.ReadAggregates(*workload_id, wanted, &memo);
  for (const HardwareKey& key : keys) {
    const std::string& model = *key.gpu_model;
    const Recommendation pooled =
        reader.Read(*workload_id, intent.workload_image, key, as_of, &memo);
    const std::map<std::int64_t, Figure> by_width =
        reader.GpuMemoryByWidth(*workload_id, pooled, &memo);
    NeedsAtWidths(by_width, pooled.figure(FigureKind::kGpuMemoryGb), model,
                  RungWidths(config, intent), &needs);
  }
  for (const auto& [at, need] : needs) any_history = any_history || need.gpu_memory_gb;
  if (!any_history) needs.clear();
  // Name the cards a figure learned on other cards comes from: those whose
  // own figure was learned at the same width (or, width unknown, at all).
  for (auto& [at, need] : needs) {
    if (!need.gpu_memory_gb || need.provenance != Provenance::kWorkloadAnyHardware) continue;
    std::set<std::string> sources;
    for (const auto& [other, own] : needs) {
      if (own.gpu_memory_gb && other.first != at.first &&
          (own.provenance == Provenance::kGpuModel || own.provenance == Provenance::kExact) &&
          own.learned_width == need.learned_width) {
        sources.insert(other.first);
      }
    }
    need.learned_on = sources.empty() ? "other cards" : fmt::format("{}", fmt::join(sources, ", "));
  }
  return needs;
}

}  // namespace

Result<RouterSnapshot> RouterSnapshot::Load(const Store& store, std::optional<double> as_of) {
  if (Status time = internal::CheckEpochSeconds(as_of, "as_of"); !time.ok()) return time;
  return internal::Guarded(store, "load the router snapshot", [&]() -> Result<RouterSnapshot> {
    RouterSnapshot snapshot;
    snapshot.config = internal::ReadRouterConfig(store::ConnectionOf(store));
    auto catalog = GpuCatalog::Load(store);
    internal::ThrowIfError(catalog.status());
    for (const GpuModel& card : catalog->models())
      snapshot.card_memory_gb[card.model] = card.memory_gb;
    const double at = as_of.value_or(internal::NowEpochSeconds());
    // One snapshot of the store for every figure.
    store::ReadSnapshot read(store::ConnectionOf(store));
    store::ChangeWatch watch(store::ConnectionOf(store));
    std::unique_ptr<internal::RecommendationReader> kept;
    auto reader = internal::KeptReader(store, &kept, watch);
    if (!reader.ok()) return reader.status();
    for (const Intent& intent : snapshot.config.intents) {
      auto intent_needs = NeedsOf(**reader, snapshot.config, intent, at);
      if (!intent_needs.empty()) snapshot.needs[intent.intent] = std::move(intent_needs);
    }
    return snapshot;
  });
}

}  // namespace hwrec
