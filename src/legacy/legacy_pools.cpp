#include "legacy/legacy_pools.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>

#include <set>

#include "hardware/node_pool_table.h"
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
  store::Connection& connection = store::ConnectionOf(store);
  const double now = NowEpochSeconds();
  for (const NodePool& pool : *valid) {
    if (auto written = WriteNodePool(connection, pool, now); !written.ok()) return written.status();
    taken.insert(pool.node_pool_id);
    ++*registered;
  }
  for (const NodePool& pool : KnownLegacyPools(db, **resolver)) {
    if (taken.count(pool.node_pool_id) != 0) continue;
    if (auto written = WriteNodePool(connection, pool, now); !written.ok()) return written.status();
    ++*registered;
  }
  return resolver;
}

}  // namespace hwrec::internal
