// The node_pools table: the one reader and the one writer of its rows. Every
// path that registers a pool (RegisterNodePool, `hwrec pools import`, the
// legacy migration) writes through WriteNodePool, inside its caller's
// transaction. Throws the engine's exception on a store failure.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "hwrec/node_pool.h"
#include "hwrec/status.h"
#include "store/database.h"

namespace hwrec::internal {

// What WriteNodePool did to the pool's row.
enum class PoolChange { kRegistered, kUpdated, kUnchanged };

// The pool registered under `node_pool_id`, or nullopt.
std::optional<NodePool> LoadNodePool(store::Connection& db, const std::string& node_pool_id);
// Every registered pool, by site then id.
std::vector<NodePool> LoadNodePools(store::Connection& db);

// Writes `pool` with its hp ids, registered at `registered_at` (epoch
// seconds): a new row, or an update of the row of the same node_pool_id (a
// pool identical to its row is left alone: kUnchanged). gpu_count and
// gpu_total are stored as 0 when absent. kInvalidArgument when the hardware
// has no profile id (text that is not UTF-8).
Result<PoolChange> WriteNodePool(store::Connection& db, const NodePool& pool, double registered_at);

}  // namespace hwrec::internal
