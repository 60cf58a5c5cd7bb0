#include "hardware/node_pool_table.h"

#include <fmt/format.h>

#include "store/row_values.h"

namespace hwrec::internal {

namespace {

constexpr const char* kPoolColumns =
    "node_pool_id, site_id, name, instance_type, architecture, cpu_millicores, memory_bytes, "
    "gpu_count, gpu_mode, gpu_total, gpu_brand, gpu_model";

NodePool ReadPool(const store::Statement& row) {
  NodePool pool;
  HardwareProfile& h = pool.hardware;
  store::ReadRow(row, &pool.node_pool_id, &pool.site_id, &pool.name, &h.instance_type,
                 &h.architecture, &h.cpu_millicores, &h.memory_bytes, &h.gpu_count, &h.gpu_mode,
                 &h.gpu_total, &h.gpu_brand, &h.gpu_model);
  return pool;
}

bool SamePool(const NodePool& a, const NodePool& b) {
  return a.node_pool_id == b.node_pool_id && a.site_id == b.site_id && a.name == b.name &&
         a.hardware == b.hardware;
}

}  // namespace

std::optional<NodePool> LoadNodePool(store::Connection& db, const std::string& node_pool_id) {
  auto query =
      db.Prepare(fmt::format("SELECT {} FROM node_pools WHERE node_pool_id = ?", kPoolColumns));
  query->Bind(1, node_pool_id);
  if (!query->Step()) return std::nullopt;
  return ReadPool(*query);
}

std::vector<NodePool> LoadNodePools(store::Connection& db) {
  auto query = db.Prepare(
      fmt::format("SELECT {} FROM node_pools ORDER BY site_id, node_pool_id", kPoolColumns));
  std::vector<NodePool> pools;
  while (query->Step()) pools.push_back(ReadPool(*query));
  return pools;
}

Result<PoolChange> WriteNodePool(store::Connection& db, const NodePool& given,
                                 double registered_at) {
  NodePool pool = given;
  HardwareProfile& h = pool.hardware;
  h.gpu_count = h.gpu_count.value_or(0);  // the store's columns are never null
  h.gpu_total = h.gpu_total.value_or(0);
  const std::optional<NodePool> existing = LoadNodePool(db, pool.node_pool_id);
  if (existing && SamePool(*existing, pool)) return PoolChange::kUnchanged;
  // The ids of the hardware as given (a legacy pool may leave gpu_count out).
  auto hp_v1 = HardwareProfileId(given.hardware, ProfileIdVersion::kV1);
  if (!hp_v1.ok()) return hp_v1.status();
  auto hp_v2 = HardwareProfileId(given.hardware, ProfileIdVersion::kV2);
  if (!hp_v2.ok()) return hp_v2.status();
  auto upsert = db.Prepare(
      "INSERT INTO node_pools (node_pool_id, site_id, name, instance_type, architecture, "
      "cpu_millicores, memory_bytes, gpu_count, gpu_mode, gpu_total, gpu_brand, gpu_model, "
      "hp_v1, hp_v2, registered_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
      "ON CONFLICT (node_pool_id) DO UPDATE SET site_id = excluded.site_id, "
      "name = excluded.name, instance_type = excluded.instance_type, "
      "architecture = excluded.architecture, cpu_millicores = excluded.cpu_millicores, "
      "memory_bytes = excluded.memory_bytes, gpu_count = excluded.gpu_count, "
      "gpu_mode = excluded.gpu_mode, gpu_total = excluded.gpu_total, "
      "gpu_brand = excluded.gpu_brand, gpu_model = excluded.gpu_model, hp_v1 = excluded.hp_v1, "
      "hp_v2 = excluded.hp_v2, registered_at = excluded.registered_at");
  upsert->Bind(1, pool.node_pool_id);
  upsert->Bind(2, pool.site_id);
  upsert->Bind(3, pool.name);
  upsert->Bind(4, h.instance_type);
  upsert->Bind(5, h.architecture);
  upsert->Bind(6, h.cpu_millicores);
  upsert->Bind(7, h.memory_bytes);
  upsert->Bind(8, h.gpu_count);
  upsert->Bind(9, h.gpu_mode);
  upsert->Bind(10, h.gpu_total);
  upsert->Bind(11, h.gpu_brand);
  upsert->Bind(12, h.gpu_model);
  upsert->Bind(13, *hp_v1);
  upsert->Bind(14, *hp_v2);
  upsert->Bind(15, registered_at);
  upsert->Run();
  return existing ? PoolChange::kUpdated : PoolChange::kRegistered;
}

}  // namespace hwrec::internal
