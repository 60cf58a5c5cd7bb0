// RouterSnapshot::Open: the configuration, the catalog's card sizes and what
// each intent's workload needs per GPU on every card at every width, read once.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "base/status_error.h"
#include "base/time.h"
#include "hwrec/catalog.h"
#include "hwrec/recommend.h"
#include "hwrec/router.h"
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

// Needs of one intent's workload on every card the configuration offers, at
// every width a rung of it may have; empty when it has no GPU-memory history.
std::map<CardWidth, CardNeed> NeedsOf(RecommendationQuery& query, const RouterConfig& config,
                                      const Intent& intent, double as_of) {
  std::map<std::string, std::string> cards;  // model -> brand
  for (const GcpMachineType& m : config.machines) cards.emplace(m.gpu_model, m.gpu_brand);
  for (const SlurmLane& lane : config.lanes) cards.emplace(lane.gpu_model, lane.gpu_brand);
  cards.emplace(config.runpod.gpu_model, config.runpod.gpu_brand);
  std::map<CardWidth, CardNeed> needs;
  bool any_history = false;
  for (const auto& [model, brand] : cards) {
    if (model.empty()) continue;
    HardwareKey key;
    key.gpu_brand = brand;
    key.gpu_model = model;
    for (int width : RungWidths(config, intent)) {
      auto rec = query.Recommend(intent.workload_image, key, as_of, Explain::kNo, width);
      internal::ThrowIfError(rec.status());
      const Figure& figure = rec->figure(FigureKind::kGpuMemoryGb);
      needs[{model, width}] = CardNeed{figure.value, figure.provenance, figure.learned_width, ""};
      any_history = any_history || figure.value.has_value();
    }
  }
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

Result<RouterSnapshot> RouterSnapshot::Open(const Store& store, std::optional<double> as_of) {
  if (Status time = internal::CheckEpochSeconds(as_of, "as_of"); !time.ok()) return time;
  return internal::Guarded(store, "load the router snapshot", [&]() -> Result<RouterSnapshot> {
    RouterSnapshot snapshot;
    snapshot.config = internal::ReadRouterConfig(store::ConnectionOf(store));
    auto catalog = GpuCatalog::Load(store);
    internal::ThrowIfError(catalog.status());
    for (const GpuModel& card : catalog->models())
      snapshot.card_memory_gb[card.model] = card.memory_gb;
    const double at = as_of.value_or(internal::NowEpochSeconds());
    auto query = RecommendationQuery::Open(store);
    if (!query.ok()) return query.status();
    for (const Intent& intent : snapshot.config.intents) {
      auto needs = NeedsOf(**query, snapshot.config, intent, at);
      if (!needs.empty()) snapshot.needs[intent.intent] = std::move(needs);
    }
    return snapshot;
  });
}

}  // namespace hwrec
