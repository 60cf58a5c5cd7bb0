// Writes a validated router configuration over the router_* tables.
#include "aggregate/config_table.h"
#include "router/router_internal.h"
#include "store/sqlite_connection.h"

namespace hwrec::internal {

namespace {

void WriteMachines(SQLite::Database& db, const RouterConfig& config) {
  SQLite::Statement insert(
      db,
      "INSERT INTO router_gcp_machines (machine_type, gpu_brand, gpu_model, gpu_count, vcpus, "
      "memory_gb, allows_spot, allows_flex_start, allows_standard) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
  for (const GcpMachineType& m : config.machines) {
    insert.reset();
    insert.bind(1, m.machine_type);
    insert.bind(2, m.gpu_brand);
    insert.bind(3, m.gpu_model);
    insert.bind(4, m.gpu_count);
    insert.bind(5, m.vcpus);
    insert.bind(6, m.memory_gb);
    insert.bind(7, m.allows_spot ? 1 : 0);
    insert.bind(8, m.allows_flex_start ? 1 : 0);
    insert.bind(9, m.allows_standard ? 1 : 0);
    insert.exec();
  }
}

void WriteQuotasAndLanes(SQLite::Database& db, const RouterConfig& config) {
  SQLite::Statement quota(
      db, "INSERT INTO router_quotas (gpu_model, class, metric, gpus) VALUES (?, ?, ?, ?)");
  for (const GpuQuota& q : config.quotas) {
    quota.reset();
    quota.bind(1, q.gpu_model);
    quota.bind(2, std::string(ToString(q.quota_class)));
    quota.bind(3, q.metric);
    quota.bind(4, q.gpus);
    quota.exec();
  }
  SQLite::Statement lane(db,
                         "INSERT INTO router_slurm_lanes (lane, position, partition, gpu_brand, "
                         "gpu_model, max_gpus) VALUES (?, ?, ?, ?, ?, ?)");
  for (const SlurmLane& l : config.lanes) {
    lane.reset();
    lane.bind(1, l.lane);
    lane.bind(2, l.position);
    lane.bind(3, l.partition);
    lane.bind(4, l.gpu_brand);
    lane.bind(5, l.gpu_model);
    lane.bind(6, l.max_gpus);
    lane.exec();
  }
}

void WriteRest(SQLite::Database& db, const RouterConfig& config) {
  SQLite::Statement runpod(db,
                           "INSERT INTO router_runpod (id, name, gpu_type, gpu_brand, gpu_model, "
                           "max_gpus) VALUES (1, ?, ?, ?, ?, ?)");
  runpod.bind(1, config.runpod.name);
  runpod.bind(2, config.runpod.gpu_type);
  runpod.bind(3, config.runpod.gpu_brand);
  runpod.bind(4, config.runpod.gpu_model);
  runpod.bind(5, config.runpod.max_gpus);
  runpod.exec();
  SQLite::Statement intent(db,
                           "INSERT INTO router_intents (intent, workload_image, legacy_machine, "
                           "min_width) VALUES (?, ?, ?, ?)");
  for (const Intent& i : config.intents) {
    intent.reset();
    intent.bind(1, i.intent);
    intent.bind(2, i.workload_image);
    intent.bind(3, i.legacy_machine);
    intent.bind(4, i.min_width);
    intent.exec();
  }
  // Until this file writes through the seam: the config table's connection.
  const auto connection = store::MakeSqliteConnection(db.getHandle());
  for (const SettingInfo& info : SettingInfos()) {
    UpdateConfigValue(*connection, std::string(kRouterConfigPrefix) + info.key,
                      SettingValue(config.settings, info.key));
  }
}

}  // namespace

void WriteRouterConfig(SQLite::Database& db, const RouterConfig& config) {
  // Intents reference machine types: clear them first, write them last.
  for (const char* table : {"router_intents", "router_gcp_machines", "router_quotas",
                            "router_slurm_lanes", "router_runpod"}) {
    db.exec(std::string("DELETE FROM ") + table);
  }
  WriteMachines(db, config);
  WriteQuotasAndLanes(db, config);
  WriteRest(db, config);
}

}  // namespace hwrec::internal
