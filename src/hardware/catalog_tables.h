// The GPU catalog's tables, read inside a caller's own boundary (Guarded):
// for the layers above that need the catalog as part of a larger action and
// report failures in that action's words.
#pragma once

#include <vector>

#include "hwrec/catalog.h"
#include "store/database.h"

namespace hwrec::internal {

// Every catalog GPU model (without partitions), by brand and model. Throws
// the engine's exception.
std::vector<GpuModel> ReadGpuModels(store::Connection& db);

}  // namespace hwrec::internal
