// RouterSnapshot::Load: the configuration, the catalog's card sizes and what
// each intent's workload needs per GPU on every GCP machine type, read once.
#include "hwrec/recommend.h"
#include "hwrec/route_plan.h"
#include "router/router_internal.h"
#include "store/sqlite_util.h"

namespace hwrec {

namespace {

// Needs of one workload per machine type; empty when it has no GPU-memory history.
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
    if (!rec.ok()) throw std::runtime_error(rec.status().message());
    const Figure& figure = rec->figure(FigureKind::kGpuMemoryGb);
    needs[m.machine_type] = CardNeed{figure.value, figure.provenance};
    any_history = any_history || figure.value.has_value();
  }
  if (!any_history) needs.clear();
  return needs;
}

}  // namespace

Result<RouterSnapshot> RouterSnapshot::Load(const Store& store, std::optional<double> as_of) {
  if (Status time = internal::CheckEpochSeconds(as_of, "as_of"); !time.ok()) return time;
  return internal::Guarded(store, "load the router snapshot", [&]() -> Result<RouterSnapshot> {
    SQLite::Database& db = internal::StoreAccess::Db(store);
    RouterSnapshot snapshot;
    snapshot.config = internal::ReadRouterConfig(db);
    SQLite::Statement cards(db, "SELECT model, memory_gb FROM gpu_models");
    while (cards.executeStep()) {
      snapshot.card_memory_gb[cards.getColumn(0).getString()] = cards.getColumn(1).getDouble();
    }
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
