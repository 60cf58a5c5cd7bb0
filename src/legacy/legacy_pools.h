// The node pools a legacy migration resolves rows with: the legacy
// site_node_pools table, the pools already registered, and pools the operator
// gives with the migration (`hwrec migrate --pools FILE`), which win.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "hwrec/catalog.h"
#include "hwrec/node_pool.h"
#include "hwrec/status.h"
#include "legacy/legacy_resolver.h"

namespace hwrec::internal {

// Reads only. A given pool that fails validation is an error naming it.
Result<std::unique_ptr<LegacyResolver>> MakeLegacyResolver(const Store& store, GpuCatalog catalog,
                                                           const std::vector<NodePool>& given);

// Same, and registers in node_pools (inside the caller's transaction) the
// given pools and the legacy pools whose hardware is fully known and that are
// not registered yet; `*registered` counts them.
Result<std::unique_ptr<LegacyResolver>> PrepareLegacyPools(Store& store, GpuCatalog catalog,
                                                           const std::vector<NodePool>& given,
                                                           std::int64_t* registered);

}  // namespace hwrec::internal
