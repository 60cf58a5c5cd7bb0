// The RecommendationReader a query object keeps across calls (a
// RecommendationQuery, a PlacementEvaluator): checked against the store's
// schema when made, and its settings re-read when the caller's
// store::ChangeWatch saw them change.
#pragma once

#include <functional>
#include <memory>

#include "hwrec/status.h"
#include "hwrec/store.h"
#include "recommend/combined_aggregates.h"
#include "recommend/recommendation_reader.h"
#include "store/change_watch.h"

namespace hwrec::internal {

// Makes the reader on first use, failing with kSchemaMismatch, naming the
// fix, when the store is older than the recommendation tables; re-reads its
// settings when `watch` (polled in this snapshot) has them pending, and marks
// them applied. Throws on an engine failure (call inside Guarded).
Result<RecommendationReader*> KeptReader(const Store& store,
                                         std::unique_ptr<RecommendationReader>* reader,
                                         store::ChangeWatch& watch);

// Whether a call may read in one statement (store/combined_read.h) what it
// would read in a snapshot: each statement is a round trip
// (Connection::RoundTripPerStatement), no transaction is open, a reader is
// held (`reader_held`: it has read the settings) and `watch` has seen the
// change counters, with no change pending in the areas the caller holds in
// memory (`held`).
bool MayReadCombined(store::Connection& db, const store::ChangeWatch& watch, bool reader_held,
                     const store::StoreChanges& held);

// Runs `statement`, a read in one statement made of CombinedAggregates'
// arms, the caller's own and ChangeWatch::kCountersArm, bound: gives the
// counters' rows to `watch`, every row to `aggregates` and to `other` (when
// given), then polls. True when the rows stand: no area the caller holds in
// memory (`held`) changed. False when one did, or when the connection was
// lost (a snapshot's BEGIN connects anew): read in a snapshot instead.
// Throws on another engine failure (call inside Guarded).
bool RunCombined(store::Statement& statement, store::ChangeWatch& watch,
                 const store::StoreChanges& held, CombinedAggregates* aggregates,
                 const std::function<void(const store::Statement&)>& other = {});

}  // namespace hwrec::internal
