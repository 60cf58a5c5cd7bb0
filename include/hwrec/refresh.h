// Refreshing what is derived from the observations: the materialised
// `recommendations` table, and (on a rebuild) the per-key aggregates behind
// it. Ingest keeps both up to date; these are for a change of settings made
// outside `hwrec config set`, or to repair. Each call is one write
// transaction: on failure nothing changed.
#pragma once

#include <cstdint>

#include "hwrec/export.h"
#include "hwrec/status.h"

namespace hwrec {

class Store;

// Recomputes the materialised `recommendations` table for every workload and
// every hardware key it has history on or a registered node pool offers.
// Returns the number of (workload, hardware key) rows written; kReadOnly when
// the store was opened read-only, kIoError when it cannot be written.
HWREC_EXPORT Result<std::int64_t> RefreshRecommendations(Store& store);

// Rebuilds every aggregate from the stored observations with the current
// settings (after a change of half-life, or to repair), then refreshes.
// Returns what RefreshRecommendations returns.
HWREC_EXPORT Result<std::int64_t> RebuildRecommendations(Store& store);

}  // namespace hwrec
