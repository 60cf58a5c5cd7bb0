// Loading, validating and saving the router configuration (router_* tables).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "aggregate/config_table.h"
#include "base/enum_names.h"
#include "base/status_error.h"
#include "base/text.h"
#include "hardware/catalog_tables.h"
#include "hwrec/catalog.h"
#include "hwrec/router_config.h"
#include "router/router_internal.h"
#include "store/database.h"
#include "store/guarded.h"
#include "store/row_values.h"

namespace hwrec {

namespace {

constexpr internal::EnumName<Provisioning> kProvisioningNames[] = {
    {Provisioning::kSpot, "SPOT"},
    {Provisioning::kFlexStart, "FLEX_START"},
    {Provisioning::kStandard, "STANDARD"}};
constexpr internal::EnumName<QuotaClass> kQuotaClassNames[] = {
    {QuotaClass::kOnDemand, "on_demand"}, {QuotaClass::kPreemptible, "preemptible"}};

}  // namespace

std::string_view ToString(Provisioning provisioning) {
  return internal::NameOf(kProvisioningNames, provisioning, "STANDARD");
}

std::string_view ToString(QuotaClass quota_class) {
  return internal::NameOf(kQuotaClassNames, quota_class, "preemptible");
}

std::optional<Provisioning> internal::ParseProvisioning(std::string_view text) {
  return ValueOf(kProvisioningNames, text);
}

QuotaClass QuotaClassOf(Provisioning provisioning) {
  return provisioning == Provisioning::kStandard ? QuotaClass::kOnDemand : QuotaClass::kPreemptible;
}

bool GcpMachineType::Allows(Provisioning provisioning) const {
  switch (provisioning) {
    case Provisioning::kSpot:
      return allows_spot;
    case Provisioning::kFlexStart:
      return allows_flex_start;
    case Provisioning::kStandard:
      return allows_standard;
  }
  return false;
}

const Intent* RouterConfig::FindIntent(std::string_view name) const {
  for (const Intent& i : intents) {
    if (i.intent == name) return &i;
  }
  return nullptr;
}

const GcpMachineType* RouterConfig::FindMachine(std::string_view machine_type) const {
  for (const GcpMachineType& m : machines) {
    if (m.machine_type == machine_type) return &m;
  }
  return nullptr;
}

const GpuQuota* RouterConfig::FindQuota(std::string_view gpu_model, QuotaClass quota_class) const {
  for (const GpuQuota& q : quotas) {
    if (q.quota_class == quota_class && q.gpu_model == gpu_model) return &q;  // cheap test first
  }
  return nullptr;
}

namespace internal {

std::optional<QuotaClass> ParseQuotaClass(std::string_view text) {
  return ValueOf(kQuotaClassNames, text);
}

namespace {

// Appends one item per row of `sql` to `out`, `read` reading the row.
template <typename T, typename Read>
void LoadEach(store::Connection& db, std::string_view sql, std::vector<T>* out, Read read) {
  const auto rows = db.Prepare(sql);
  while (rows->Step()) {
    T item;
    read(*rows, &item);
    out->push_back(std::move(item));
  }
}

void LoadTables(store::Connection& db, RouterConfig* config) {
  LoadEach(db,
           "SELECT machine_type, gpu_brand, gpu_model, gpu_count, vcpus, memory_gb, allows_spot, "
           "allows_flex_start, allows_standard FROM router_gcp_machines "
           "ORDER BY gpu_model, gpu_count, machine_type",
           &config->machines, [](const store::Statement& row, GcpMachineType* m) {
             store::ReadRow(row, &m->machine_type, &m->gpu_brand, &m->gpu_model, &m->gpu_count,
                            &m->vcpus, &m->memory_gb, &m->allows_spot, &m->allows_flex_start,
                            &m->allows_standard);
           });
  LoadEach(db, "SELECT gpu_model, class, metric, gpus FROM router_quotas ORDER BY gpu_model, class",
           &config->quotas, [](const store::Statement& row, GpuQuota* q) {
             std::string quota_class;
             store::ReadRow(row, &q->gpu_model, &quota_class, &q->metric, &q->gpus);
             q->quota_class = ParseQuotaClass(quota_class).value_or(QuotaClass::kOnDemand);
           });
  LoadEach(db,
           "SELECT lane, position, partition, gpu_brand, gpu_model, max_gpus "
           "FROM router_slurm_lanes ORDER BY position",
           &config->lanes, [](const store::Statement& row, SlurmLane* l) {
             store::ReadRow(row, &l->lane, &l->position, &l->partition, &l->gpu_brand,
                            &l->gpu_model, &l->max_gpus);
           });
  const auto runpod = db.Prepare(
      "SELECT name, gpu_type, gpu_brand, gpu_model, max_gpus FROM router_runpod WHERE id = 1");
  if (runpod->Step()) {
    RunPodRung& r = config->runpod;
    store::ReadRow(*runpod, &r.name, &r.gpu_type, &r.gpu_brand, &r.gpu_model, &r.max_gpus);
  }
  LoadEach(db,
           "SELECT intent, workload_image, legacy_machine, min_width FROM router_intents "
           "ORDER BY intent",
           &config->intents, [](const store::Statement& row, Intent* i) {
             store::ReadRow(row, &i->intent, &i->workload_image, &i->legacy_machine, &i->min_width);
           });
}

void LoadRouterSettings(store::Connection& db, RouterConfig* config) {
  for (const auto& [key, value] : ReadConfigRows(db, kRouterConfigPrefix)) {
    // Values were validated when written; a hand edit that broke one is caught below.
    ApplySetting(&config->settings, key, value).ok();
  }
}

}  // namespace

RouterConfig ReadRouterConfig(store::Connection& db) {
  RouterConfig config;
  LoadTables(db, &config);
  LoadRouterSettings(db, &config);
  return config;
}

Status CheckAndWriteRouterConfig(const Store& store, store::Connection& db,
                                 const RouterConfig& config) {
  if (Status s = CheckRouterConfig(config, CatalogCards(store)); !s.ok()) return s;
  WriteRouterConfig(db, config);
  return Status::Ok();
}

Status ReplaceRouterConfig(Store& store,
                           const std::function<Result<RouterConfig>(store::Connection& db)>& next) {
  store::Connection& db = store::ConnectionOf(store);
  Status status;
  store::RunWrite(db, [&] {
    store::WriteTransaction tx(db);
    Result<RouterConfig> config = next(db);
    status = config.ok() ? CheckAndWriteRouterConfig(store, db, *config) : config.status();
    if (status.ok()) tx.Commit();
  });
  return status;
}

CardSet CatalogCards(const Store& store) {
  CardSet cards;
  for (const GpuModel& card : ReadGpuModels(store::ConnectionOf(store))) {
    cards.emplace(card.brand, card.model);
  }
  return cards;
}

}  // namespace internal

Result<RouterConfig> LoadRouterConfig(const Store& store) {
  return internal::Guarded(store, "load the router configuration", [&]() -> Result<RouterConfig> {
    return internal::ReadRouterConfig(store::ConnectionOf(store));
  });
}

Status ValidateRouterConfig(const RouterConfig& config, const Store& store) {
  return internal::Guarded(store, "validate the router configuration", [&]() -> Status {
    return internal::CheckRouterConfig(config, internal::CatalogCards(store));
  });
}

Status SaveRouterConfig(Store& store, const RouterConfig& config) {
  if (Status writable = store.CheckWritable(); !writable.ok()) return writable;
  return internal::Guarded(store, "save the router configuration", [&]() -> Status {
    return internal::ReplaceRouterConfig(
        store, [&](store::Connection&) -> Result<RouterConfig> { return config; });
  });
}

Status SetRouterSetting(Store& store, const std::string& key, const std::string& value) {
  if (Status writable = store.CheckWritable(); !writable.ok()) return writable;
  return internal::Guarded(store, "set a router setting", [&]() -> Status {
    return internal::ReplaceRouterConfig(store, [&](store::Connection& db) -> Result<RouterConfig> {
      RouterConfig config = internal::ReadRouterConfig(db);
      if (Status s = internal::ApplySetting(&config.settings, key, value); !s.ok()) return s;
      return config;
    });
  });
}

}  // namespace hwrec
