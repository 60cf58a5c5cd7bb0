// Writes a validated router configuration over the router_* tables.
#include <string_view>
#include <vector>

#include "aggregate/config_table.h"
#include "router/router_internal.h"
#include "store/row_values.h"

namespace hwrec::internal {

namespace {

// Runs `sql` once per item of `items`, `bind` binding the item's values.
template <typename T, typename Bind>
void InsertEach(store::Connection& db, std::string_view sql, const std::vector<T>& items,
                Bind bind) {
  const auto insert = db.Prepare(sql);
  for (const T& item : items) {
    bind(*insert, item);
    insert->Run();
  }
}

void WriteTables(store::Connection& db, const RouterConfig& config) {
  InsertEach(db,
             "INSERT INTO router_gcp_machines (machine_type, gpu_brand, gpu_model, gpu_count, "
             "vcpus, memory_gb, allows_spot, allows_flex_start, allows_standard) "
             "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
             config.machines, [](store::Statement& s, const GcpMachineType& m) {
               store::BindRow(s, m.machine_type, m.gpu_brand, m.gpu_model, m.gpu_count, m.vcpus,
                              m.memory_gb, m.allows_spot, m.allows_flex_start, m.allows_standard);
             });
  InsertEach(db, "INSERT INTO router_quotas (gpu_model, class, metric, gpus) VALUES (?, ?, ?, ?)",
             config.quotas, [](store::Statement& s, const GpuQuota& q) {
               store::BindRow(s, q.gpu_model, ToString(q.quota_class), q.metric, q.gpus);
             });
  InsertEach(db,
             "INSERT INTO router_slurm_lanes (lane, position, partition, gpu_brand, gpu_model, "
             "max_gpus) VALUES (?, ?, ?, ?, ?, ?)",
             config.lanes, [](store::Statement& s, const SlurmLane& l) {
               store::BindRow(s, l.lane, l.position, l.partition, l.gpu_brand, l.gpu_model,
                              l.max_gpus);
             });
  InsertEach(db,
             "INSERT INTO router_runpod (id, name, gpu_type, gpu_brand, gpu_model, max_gpus) "
             "VALUES (1, ?, ?, ?, ?, ?)",
             std::vector<RunPodRung>{config.runpod}, [](store::Statement& s, const RunPodRung& r) {
               store::BindRow(s, r.name, r.gpu_type, r.gpu_brand, r.gpu_model, r.max_gpus);
             });
  InsertEach(db,
             "INSERT INTO router_intents (intent, workload_image, legacy_machine, min_width) "
             "VALUES (?, ?, ?, ?)",
             config.intents, [](store::Statement& s, const Intent& i) {
               store::BindRow(s, i.intent, i.workload_image, i.legacy_machine, i.min_width);
             });
}

void WriteSettings(store::Connection& db, const RouterConfig& config) {
  for (const SettingInfo& info : SettingInfos()) {
    UpdateConfigValue(db, std::string(kRouterConfigPrefix) + info.key,
                      SettingValue(config.settings, info.key));
  }
}

}  // namespace

void WriteRouterConfig(store::Connection& db, const RouterConfig& config) {
  // Intents reference machine types: clear them first, write them last.
  for (const char* table : {"router_intents", "router_gcp_machines", "router_quotas",
                            "router_slurm_lanes", "router_runpod"}) {
    db.Execute(std::string("DELETE FROM ") + table);
  }
  WriteTables(db, config);
  WriteSettings(db, config);
}

}  // namespace hwrec::internal
