#include "hwrec/node_pool.h"

#include <fmt/format.h>

#include "base/time.h"
#include "hardware/node_pool_rules.h"
#include "hardware/node_pool_table.h"
#include "hwrec/catalog.h"
#include "hwrec/remedy.h"
#include "hwrec/store.h"
#include "store/database.h"
#include "store/guarded.h"

namespace hwrec {

Status ValidateNodePool(const NodePool& pool, const GpuCatalog& catalog) {
  NodePool resolved;
  if (auto error = internal::ResolveNodePool(pool, catalog, &resolved)) {
    return internal::NodePoolErrorStatus(pool, *error);
  }
  return Status::Ok();
}

Result<NodePool> ParseNodePoolJson(const std::string& json) {
  NodePool pool;
  if (auto error = internal::ReadNodePoolJson(json, &pool)) {
    return Status::InvalidArgument(fmt::format("node pool: {} {}", error->field, error->reason));
  }
  return pool;
}

Status RegisterNodePool(Store& store, const NodePool& pool) {
  if (Status writable = store.CheckWritable(); !writable.ok()) return writable;
  return internal::Guarded(store, "registering " + internal::NodePoolName(pool), [&]() -> Status {
    store::Connection& db = store::ConnectionOf(store);
    return store::RunWrite(db, [&]() -> Status {
      store::WriteTransaction tx(db);
      auto catalog = GpuCatalog::Load(store);
      if (!catalog.ok()) return catalog.status();
      NodePool resolved;
      if (auto error = internal::ResolveNodePool(pool, *catalog, &resolved)) {
        return internal::NodePoolErrorStatus(pool, *error);
      }
      auto change = internal::WriteNodePool(db, resolved, internal::NowEpochSeconds());
      if (!change.ok()) return change.status();
      tx.Commit();
      return Status::Ok();
    });
  });
}

Result<std::vector<NodePool>> ListNodePools(const Store& store) {
  return internal::Guarded(store, "listing node pools", [&]() -> Result<std::vector<NodePool>> {
    store::Connection& db = store::ConnectionOf(store);
    if (!db.HasTable("node_pools")) {
      return Status::SchemaMismatch(
          fmt::format("{}: the store is at schema {} and has no node pools: run {}", store.path(),
                      store.schema_version(), RemedyText(Remedy::kMigrate, store.path())));
    }
    return internal::LoadNodePools(db);
  });
}

Result<std::optional<NodePool>> FindNodePool(const Store& store, const std::string& node_pool_id) {
  return internal::Guarded(
      store, "finding node pool " + node_pool_id, [&]() -> Result<std::optional<NodePool>> {
        return internal::LoadNodePool(store::ConnectionOf(store), node_pool_id);
      });
}

}  // namespace hwrec
