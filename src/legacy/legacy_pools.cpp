#include "legacy/legacy_pools.h"

#include <fmt/format.h>

#include <set>
#include <utility>

#include "base/status_error.h"
#include "base/time.h"

#include "hardware/node_pool_table.h"
#include "hwrec/store.h"
#include "store/database.h"
#include "store/row_values.h"

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
  if (!store::ConnectionOf(store).HasTable("node_pools")) return std::vector<NodePool>{};
  return ListNodePools(store);
}

// Legacy pools whose hardware is fully known: a catalog GPU, or no GPU at all.
std::vector<NodePool> KnownLegacyPools(store::Connection& db, const LegacyResolver& resolver) {
  std::vector<NodePool> pools;
  for (SiteNodePool& row : ReadSiteNodePools(db)) {
    NodePool pool;
    pool.node_pool_id = std::move(row.node_pool_id);
    pool.site_id = std::move(row.site_id);
    pool.name = std::move(row.name);
    pool.hardware = std::move(row.hardware);
    HardwareProfile& h = pool.hardware;
    if (row.gpu_name) {
      const GpuModel* model = resolver.FindGpuName(*row.gpu_name);
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
  resolver->AddLegacyPools(store::ConnectionOf(store));
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
  store::Connection& db = store::ConnectionOf(store);
  const double now = NowEpochSeconds();
  for (const NodePool& pool : *valid) {
    if (auto written = WriteNodePool(db, pool, now); !written.ok()) return written.status();
    taken.insert(pool.node_pool_id);
    ++*registered;
  }
  for (const NodePool& pool : KnownLegacyPools(db, **resolver)) {
    if (taken.count(pool.node_pool_id) != 0) continue;
    if (auto written = WriteNodePool(db, pool, now); !written.ok()) return written.status();
    ++*registered;
  }
  return resolver;
}

}  // namespace hwrec::internal
