#include "legacy/legacy_pools.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>

#include <set>
#include <stdexcept>

#include "hwrec/store.h"
#include "store/sqlite_util.h"

namespace hwrec::internal {

namespace {

Result<std::vector<NodePool>> Validated(const GpuCatalog& catalog, std::vector<NodePool> given) {
  for (NodePool& pool : given) {
    HardwareProfile& h = pool.hardware;
    if (h.gpu_model && !h.gpu_brand) {
      if (const GpuModel* model = catalog.FindModelAnyBrand(*h.gpu_model))
        h.gpu_brand = model->brand;
    }
    if (Status s = ValidateNodePool(pool, catalog); !s.ok()) {
      return Status::InvalidArgument(
          fmt::format("pools given with the migration: {}", s.message()));
    }
  }
  return given;
}

Result<std::vector<NodePool>> Registered(const Store& store) {
  if (!StoreAccess::Db(store).tableExists("node_pools")) return std::vector<NodePool>{};
  return ListNodePools(store);
}

// Legacy pools whose hardware is fully known: a catalog GPU, or no GPU at all.
std::vector<NodePool> KnownLegacyPools(SQLite::Database& db, const LegacyResolver& resolver) {
  std::vector<NodePool> pools;
  SQLite::Statement query(db,
                          "SELECT node_pool_id, site_id, name, instance_type, architecture, "
                          "cpu_millicores, memory_bytes, gpu_count, gpu_mode, gpu_total, gpu_name "
                          "FROM site_node_pools ORDER BY node_pool_id");
  while (query.executeStep()) {
    NodePool pool;
    pool.node_pool_id = query.getColumn(0).getString();
    pool.site_id = query.getColumn(1).getString();
    pool.name = query.getColumn(2).getString();
    HardwareProfile& h = pool.hardware;
    h.instance_type = ColumnOptionalText(query.getColumn(3));
    h.architecture = ColumnOptionalText(query.getColumn(4));
    h.cpu_millicores = ColumnOptionalInt64(query.getColumn(5));
    h.memory_bytes = ColumnOptionalInt64(query.getColumn(6));
    h.gpu_count = ColumnOptionalInt64(query.getColumn(7));
    h.gpu_mode = ColumnOptionalText(query.getColumn(8));
    h.gpu_total = ColumnOptionalInt64(query.getColumn(9));
    const std::optional<std::string> name = ColumnOptionalText(query.getColumn(10));
    if (name) {
      const GpuModel* model = resolver.FindGpuName(*name);
      if (model == nullptr) continue;
      h.gpu_brand = model->brand;
      h.gpu_model = model->model;
    } else if (h.gpu_count.value_or(0) > 0 || h.gpu_mode) {
      continue;
    }
    if (ValidateNodePool(pool, resolver.catalog()).ok()) pools.push_back(std::move(pool));
  }
  return pools;
}

void Register(SQLite::Database& db, const NodePool& pool, double now) {
  const HardwareProfile& h = pool.hardware;
  auto v1 = HardwareProfileId(h, ProfileIdVersion::kV1);
  auto v2 = HardwareProfileId(h, ProfileIdVersion::kV2);
  if (!v1.ok() || !v2.ok()) throw std::runtime_error((v1.ok() ? v2 : v1).status().message());
  SQLite::Statement insert(
      db,
      "INSERT OR REPLACE INTO node_pools (node_pool_id, site_id, name, instance_type, "
      "architecture, cpu_millicores, memory_bytes, gpu_brand, gpu_model, gpu_count, gpu_mode, "
      "gpu_total, hp_v1, hp_v2, registered_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
      "?)");
  insert.bind(1, pool.node_pool_id);
  insert.bind(2, pool.site_id);
  insert.bind(3, pool.name);
  BindOptional(insert, 4, h.instance_type);
  BindOptional(insert, 5, h.architecture);
  BindOptional(insert, 6, h.cpu_millicores);
  BindOptional(insert, 7, h.memory_bytes);
  BindOptional(insert, 8, h.gpu_brand);
  BindOptional(insert, 9, h.gpu_model);
  insert.bind(10, h.gpu_count.value_or(0));
  BindOptional(insert, 11, h.gpu_mode);
  insert.bind(12, h.gpu_total.value_or(0));
  insert.bind(13, *v1);
  insert.bind(14, *v2);
  insert.bind(15, now);
  insert.exec();
}

}  // namespace

Result<std::unique_ptr<LegacyResolver>> MakeLegacyResolver(const Store& store, GpuCatalog catalog,
                                                           const std::vector<NodePool>& given) {
  auto valid = Validated(catalog, given);
  if (!valid.ok()) return valid.status();
  auto registered = Registered(store);
  if (!registered.ok()) return registered.status();
  auto resolver = std::make_unique<LegacyResolver>(std::move(catalog));
  resolver->AddLegacyPools(StoreAccess::Db(store));
  resolver->AddPools(*registered);
  resolver->AddPools(*valid);
  return resolver;
}

Result<std::unique_ptr<LegacyResolver>> PrepareLegacyPools(Store& store, GpuCatalog catalog,
                                                           const std::vector<NodePool>& given,
                                                           std::int64_t* registered) {
  auto resolver = MakeLegacyResolver(store, std::move(catalog), given);
  if (!resolver.ok()) return resolver.status();
  auto valid = Validated((*resolver)->catalog(), given);
  auto known = Registered(store);
  if (!valid.ok()) return valid.status();
  if (!known.ok()) return known.status();
  std::set<std::string> taken;
  for (const NodePool& pool : *known) taken.insert(pool.node_pool_id);
  SQLite::Database& db = StoreAccess::Db(store);
  const double now = NowEpochSeconds();
  for (const NodePool& pool : *valid) {
    Register(db, pool, now);
    taken.insert(pool.node_pool_id);
    ++*registered;
  }
  for (const NodePool& pool : KnownLegacyPools(db, **resolver)) {
    if (taken.count(pool.node_pool_id) != 0) continue;
    Register(db, pool, now);
    ++*registered;
  }
  return resolver;
}

}  // namespace hwrec::internal
