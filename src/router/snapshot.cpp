// RouterSnapshot::Open: the configuration, the catalog's card sizes and what
// each intent's workload needs per GPU on every GCP machine type (and on the
// SLURM partitions and RunPod GPU type it ran on), read once.
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

// Needs of one workload per GCP machine type, and per SLURM partition and
// RunPod GPU type where it ran there; empty when it has no GPU-memory history.
std::map<std::string, CardNeed, std::less<>> NeedsOf(RecommendationQuery& query,
                                                     const RouterConfig& config,
                                                     const std::string& image, double as_of) {
  std::map<std::string, CardNeed, std::less<>> needs;
  bool any_history = false;
  for (const GcpMachineType& m : config.machines) {
    HardwareKey key;
    key.gpu_brand = m.gpu_brand;
    key.gpu_model = m.gpu_model;
    key.instance_type = m.machine_type;
    auto rec = query.Recommend(image, key, as_of);
    internal::ThrowIfError(rec.status());
    const Figure& figure = rec->figure(FigureKind::kGpuMemoryGb);
    needs[m.machine_type] = CardNeed{figure.value, figure.provenance};
    any_history = any_history || figure.value.has_value();
  }
  // The SLURM partitions' and RunPod's own figures (their width is not known):
  // only what was learned there, keyed by the instance type the Runner reports.
  const auto exact_on = [&](const std::string& brand, const std::string& model,
                            const std::string& instance_type) {
    if (instance_type.empty() || needs.count(instance_type) != 0) return;
    HardwareKey key;
    key.gpu_brand = brand;
    key.gpu_model = model;
    key.instance_type = instance_type;
    auto rec = query.Recommend(image, key, as_of);
    internal::ThrowIfError(rec.status());
    const Figure& figure = rec->figure(FigureKind::kGpuMemoryGb);
    if (!figure.value || figure.provenance != Provenance::kExact) return;
    needs[instance_type] = CardNeed{figure.value, figure.provenance};
    any_history = true;
  };
  for (const SlurmLane& lane : config.lanes)
    exact_on(lane.gpu_brand, lane.gpu_model, lane.partition);
  exact_on(config.runpod.gpu_brand, config.runpod.gpu_model, config.runpod.gpu_type);
  if (!any_history) needs.clear();
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
      auto needs = NeedsOf(**query, snapshot.config, intent.workload_image, at);
      if (!needs.empty()) snapshot.needs[intent.intent] = std::move(needs);
    }
    return snapshot;
  });
}

}  // namespace hwrec
