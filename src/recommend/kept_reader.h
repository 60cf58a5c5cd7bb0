// The RecommendationReader a query object keeps across calls (a
// RecommendationQuery, a PlacementEvaluator): checked against the store's
// schema and settings before each batch of reads, cheaply when nothing changed.
#pragma once

#include <memory>

#include "aggregate/recommendation_reader.h"
#include "hwrec/status.h"
#include "hwrec/store.h"

namespace hwrec::internal {

// Fails with kSchemaMismatch, naming the fix, when the store is older than the
// recommendation tables; else makes the reader on first use and refreshes its
// settings. Throws on an engine failure (call inside Guarded).
Result<RecommendationReader*> KeptReader(const Store& store,
                                         std::unique_ptr<RecommendationReader>* reader);

}  // namespace hwrec::internal
