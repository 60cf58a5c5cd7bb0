// The RecommendationReader a query object keeps across calls (a
// RecommendationQuery, a PlacementEvaluator): checked against the store's
// schema when made, and its settings re-read when the caller's
// store::ChangeWatch saw them change.
#pragma once

#include <memory>

#include "aggregate/recommendation_reader.h"
#include "hwrec/status.h"
#include "hwrec/store.h"
#include "store/change_watch.h"

namespace hwrec::internal {

// Makes the reader on first use, failing with kSchemaMismatch, naming the
// fix, when the store is older than the recommendation tables; re-reads its
// settings when `watch` (polled in this snapshot) has them pending, and marks
// them applied. Throws on an engine failure (call inside Guarded).
Result<RecommendationReader*> KeptReader(const Store& store,
                                         std::unique_ptr<RecommendationReader>* reader,
                                         store::ChangeWatch& watch);

}  // namespace hwrec::internal
