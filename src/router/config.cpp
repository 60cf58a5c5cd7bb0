// Loading, validating and saving the router configuration (router_* tables).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "aggregate/config_table.h"
#include "base/text.h"
#include "hwrec/router_config.h"
#include "router/router_internal.h"
#include "store/sqlite_connection.h"
#include "store/sqlite_util.h"

namespace hwrec {

std::string_view ToString(Provisioning provisioning) {
  switch (provisioning) {
    case Provisioning::kSpot:
      return "SPOT";
    case Provisioning::kFlexStart:
      return "FLEX_START";
    case Provisioning::kStandard:
      return "STANDARD";
  }
  return "STANDARD";
}

std::string_view ToString(QuotaClass quota_class) {
  return quota_class == QuotaClass::kOnDemand ? "on_demand" : "preemptible";
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
    if (q.gpu_model == gpu_model && q.quota_class == quota_class) return &q;
  }
  return nullptr;
}

namespace internal {

std::optional<QuotaClass> ParseQuotaClass(std::string_view text) {
  if (text == "on_demand") return QuotaClass::kOnDemand;
  if (text == "preemptible") return QuotaClass::kPreemptible;
  return std::nullopt;
}

namespace {

void LoadMachines(SQLite::Database& db, RouterConfig* config) {
  SQLite::Statement q(db,
                      "SELECT machine_type, gpu_brand, gpu_model, gpu_count, vcpus, memory_gb, "
                      "allows_spot, allows_flex_start, allows_standard FROM router_gcp_machines "
                      "ORDER BY gpu_model, gpu_count, machine_type");
  while (q.executeStep()) {
    GcpMachineType m;
    m.machine_type = q.getColumn(0).getString();
    m.gpu_brand = q.getColumn(1).getString();
    m.gpu_model = q.getColumn(2).getString();
    m.gpu_count = q.getColumn(3).getInt();
    m.vcpus = q.getColumn(4).getInt();
    m.memory_gb = q.getColumn(5).getDouble();
    m.allows_spot = q.getColumn(6).getInt() != 0;
    m.allows_flex_start = q.getColumn(7).getInt() != 0;
    m.allows_standard = q.getColumn(8).getInt() != 0;
    config->machines.push_back(std::move(m));
  }
}

void LoadQuotasAndLanes(SQLite::Database& db, RouterConfig* config) {
  SQLite::Statement quotas(
      db, "SELECT gpu_model, class, metric, gpus FROM router_quotas ORDER BY gpu_model, class");
  while (quotas.executeStep()) {
    GpuQuota q;
    q.gpu_model = quotas.getColumn(0).getString();
    q.quota_class =
        ParseQuotaClass(quotas.getColumn(1).getString()).value_or(QuotaClass::kOnDemand);
    q.metric = quotas.getColumn(2).getString();
    q.gpus = quotas.getColumn(3).getInt();
    config->quotas.push_back(std::move(q));
  }
  SQLite::Statement lanes(db,
                          "SELECT lane, position, partition, gpu_brand, gpu_model, max_gpus "
                          "FROM router_slurm_lanes ORDER BY position");
  while (lanes.executeStep()) {
    SlurmLane l;
    l.lane = lanes.getColumn(0).getString();
    l.position = lanes.getColumn(1).getInt();
    l.partition = lanes.getColumn(2).getString();
    l.gpu_brand = lanes.getColumn(3).getString();
    l.gpu_model = lanes.getColumn(4).getString();
    l.max_gpus = lanes.getColumn(5).getInt();
    config->lanes.push_back(std::move(l));
  }
}

void LoadRest(SQLite::Database& db, RouterConfig* config) {
  SQLite::Statement runpod(
      db, "SELECT name, gpu_type, gpu_brand, gpu_model, max_gpus FROM router_runpod WHERE id = 1");
  if (runpod.executeStep()) {
    config->runpod.name = runpod.getColumn(0).getString();
    config->runpod.gpu_type = runpod.getColumn(1).getString();
    config->runpod.gpu_brand = runpod.getColumn(2).getString();
    config->runpod.gpu_model = runpod.getColumn(3).getString();
    config->runpod.max_gpus = runpod.getColumn(4).getInt();
  }
  SQLite::Statement intents(db,
                            "SELECT intent, workload_image, legacy_machine, min_width "
                            "FROM router_intents ORDER BY intent");
  while (intents.executeStep()) {
    Intent i;
    i.intent = intents.getColumn(0).getString();
    i.workload_image = intents.getColumn(1).getString();
    i.legacy_machine = intents.getColumn(2).getString();
    i.min_width = intents.getColumn(3).getInt();
    config->intents.push_back(std::move(i));
  }
  // Until this file reads through the seam: the config table's connection.
  const auto connection = store::MakeSqliteConnection(db.getHandle());
  for (const auto& [key, value] : ReadConfigRows(*connection, kRouterConfigPrefix)) {
    // Values were validated when written; a hand edit that broke one is caught below.
    ApplySetting(&config->settings, key, value).ok();
  }
}

}  // namespace

RouterConfig ReadRouterConfig(SQLite::Database& db) {
  RouterConfig config;
  LoadMachines(db, &config);
  LoadQuotasAndLanes(db, &config);
  LoadRest(db, &config);
  return config;
}

std::set<std::pair<std::string, std::string>> CatalogCards(SQLite::Database& db) {
  std::set<std::pair<std::string, std::string>> cards;
  SQLite::Statement q(db, "SELECT brand, model FROM gpu_models");
  while (q.executeStep()) cards.emplace(q.getColumn(0).getString(), q.getColumn(1).getString());
  return cards;
}

}  // namespace internal

Result<RouterConfig> LoadRouterConfig(const Store& store) {
  return internal::Guarded(store, "load the router configuration", [&]() -> Result<RouterConfig> {
    return internal::ReadRouterConfig(internal::StoreAccess::Db(store));
  });
}

Status ValidateRouterConfig(const RouterConfig& config, const Store& store) {
  return internal::Guarded(store, "validate the router configuration", [&]() -> Status {
    return internal::CheckRouterConfig(config,
                                       internal::CatalogCards(internal::StoreAccess::Db(store)));
  });
}

Status SaveRouterConfig(Store& store, const RouterConfig& config) {
  if (Status writable = store.CheckWritable(); !writable.ok()) return writable;
  return internal::Guarded(store, "save the router configuration", [&]() -> Status {
    SQLite::Database& db = internal::StoreAccess::Db(store);
    internal::WriteTransaction tx(db);
    if (Status s = internal::CheckRouterConfig(config, internal::CatalogCards(db)); !s.ok()) {
      return s;
    }
    internal::WriteRouterConfig(db, config);
    tx.Commit();
    return Status::Ok();
  });
}

Status SetRouterSetting(Store& store, const std::string& key, const std::string& value) {
  if (Status writable = store.CheckWritable(); !writable.ok()) return writable;
  return internal::Guarded(store, "set a router setting", [&]() -> Status {
    SQLite::Database& db = internal::StoreAccess::Db(store);
    internal::WriteTransaction tx(db);
    RouterConfig config = internal::ReadRouterConfig(db);
    if (Status s = internal::ApplySetting(&config.settings, key, value); !s.ok()) return s;
    if (Status s = internal::CheckRouterConfig(config, internal::CatalogCards(db)); !s.ok()) {
      return s;
    }
    internal::WriteRouterConfig(db, config);
    tx.Commit();
    return Status::Ok();
  });
}

}  // namespace hwrec
