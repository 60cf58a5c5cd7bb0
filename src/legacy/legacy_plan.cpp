// PlanLegacyMigration: where each legacy row would go (node pool, its own GPU
// name, CPU-only, or quarantine with the reason, and how rows of GPU pools with
// no recorded model can join the unknown-model population), read only.
#include <fmt/format.h>

#include <map>
#include <memory>
#include <utility>

#include "aggregate/settings.h"
#include "base/time.h"
#include "hwrec/catalog.h"
#include "hwrec/legacy_migration.h"
#include "hwrec/legacy_quarantine.h"
#include "hwrec/store.h"
#include "legacy/legacy_move.h"
#include "legacy/legacy_mover.h"
#include "legacy/legacy_pools.h"
#include "legacy/legacy_resolver.h"
#include "legacy/legacy_row.h"
#include "store/database.h"
#include "store/guarded.h"
#include "store/legacy_history.h"
#include "store/migration.h"
#include "store/migrator.h"

namespace hwrec {

namespace {

using internal::LegacyResolution;
using internal::LegacyRoute;
using internal::LegacyRow;

// The catalog the migration will resolve with: the store's when it has one,
// else the catalog this build seeds (what the pending migrations will write).
Result<GpuCatalog> PlanCatalog(const Store& store) {
  if (store::ConnectionOf(store).HasTable("gpu_models")) return GpuCatalog::Load(store);
  StoreOptions scratch;
  scratch.create_if_missing = true;
  auto fresh = Store::Open(":memory:", scratch);
  if (!fresh.ok()) return fresh.status();
  return GpuCatalog::Load(**fresh);
}

LegacyPlanGroup& GroupOf(std::map<std::pair<std::string, std::string>, LegacyPlanGroup>* groups,
                         const LegacyRow& row) {
  const std::string pool = row.node_pool_id.value_or("");
  LegacyPlanGroup& group = (*groups)[{row.site_id, pool}];
  group.site_id = row.site_id;
  group.node_pool_id = pool;
  return group;
}

// Where the plan says one row goes: the route, or a quarantine reason.
void PlanRow(const LegacyRow& row, const LegacyResolution& r,
             const internal::LegacyRowBounds& bounds, store::Statement* stored, LegacyPlan* plan,
             LegacyPlanGroup* group) {
  std::string code = r.reason_code;
  std::string reason = r.reason;
  if (r.route != LegacyRoute::kQuarantine || !row.mistyped.empty()) {  // as the move does
    if (!internal::CheckedLegacyObservation(row, r.resolved, bounds, &reason)) {
      code = internal::kInvalidField;
    } else if (stored != nullptr) {
      stored->Reset();
      stored->Bind(1, row.execution_id);
      if (stored->Step()) {
        code = internal::kAlreadyStored;
        reason =
            fmt::format("execution '{}' is already stored as an observation", row.execution_id);
      }
    }
  }
  ++group->rows;
  if (code.empty()) {
    ++plan->migrated;
    if (r.route == LegacyRoute::kNodePool) ++group->via_node_pool;
    if (r.route == LegacyRoute::kRowGpu) ++group->via_row_gpu;
    if (r.route == LegacyRoute::kCpuOnly) ++group->cpu_only;
    return;
  }
  ++plan->quarantined;
  ++group->quarantined[code];
  if (code == internal::kPoolWithoutGpuModel) ++plan->unknown_model;
  plan->reason_text.emplace(code, reason);
}

}  // namespace

Result<std::int64_t> CountLegacyRows(const Store& store) {
  return internal::Guarded(store.path(), [&]() -> Result<std::int64_t> {
    return internal::LegacyRowCount(store::ConnectionOf(store));
  });
}

Result<LegacyPlan> PlanLegacyMigration(const Store& store, const std::vector<NodePool>& pools) {
  return internal::Guarded(store.path(), [&]() -> Result<LegacyPlan> {
    store::Connection& db = store::ConnectionOf(store);
    LegacyPlan plan;
    plan.path = store.path();
    plan.from_version = store.schema_version();
    plan.pending_versions = internal::Migrator(store).Pending();
    plan.to_version =
        plan.pending_versions.empty() ? plan.from_version : plan.pending_versions.back();
    plan.legacy_rows = internal::LegacyRowCount(db);
    if (plan.legacy_rows == 0) return plan;
    auto catalog = PlanCatalog(store);
    if (!catalog.ok()) return catalog.status();
    auto resolver = internal::MakeLegacyResolver(store, std::move(catalog).value(), pools);
    if (!resolver.ok()) return resolver.status();
    std::unique_ptr<store::Statement> stored;
    if (db.HasTable("observations")) {
      stored = db.Prepare("SELECT 1 FROM observations WHERE execution_id = ?");
    }
    std::map<std::pair<std::string, std::string>, LegacyPlanGroup> groups;
    const auto rows = db.Prepare(
        fmt::format("SELECT {} FROM site_observations ORDER BY id", internal::kLegacyColumns));
    // The bounds the move will check rows against (the defaults before the
    // store has a config table).
    const internal::RecommenderSettings settings =
        db.HasTable("config") ? internal::LoadSettings(db) : internal::RecommenderSettings{};
    const internal::LegacyRowBounds bounds{internal::NowEpochSeconds(),
                                           settings.max_clock_skew_hours};
    LegacyRow row;
    while (rows->Step()) {
      internal::ReadLegacyRow(*rows, 0, &row);
      PlanRow(row, *(*resolver)->Resolve(row), bounds, stored.get(), &plan, &GroupOf(&groups, row));
    }
    for (auto& [key, group] : groups) plan.groups.push_back(std::move(group));
    if (plan.unknown_model > 0) {
      plan.release_unknown_model =
          fmt::format("hwrec quarantine resolve {} --reason {} --gpu-model {}", plan.path,
                      internal::kPoolWithoutGpuModel, kUnknownGpuModel);
    }
    return plan;
  });
}

}  // namespace hwrec
