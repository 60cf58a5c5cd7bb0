// The materialised `recommendations` table: one row of figures per (workload,
// hardware key), written in the transaction that changed what they derive
// from (ingest, `hwrec config set`, a refresh or a migration). Throws on an
// engine failure; the caller's transaction rolls back.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <tuple>

#include "aggregate/settings.h"
#include "hwrec/hardware_key.h"
#include "recommend/recommendation_reader.h"
#include "store/database.h"

namespace hwrec::internal {

// (workload_id, gpu_brand, gpu_model, instance_type, cpu_only), "" for unknown parts.
using MaterialKey = std::tuple<std::int64_t, std::string, std::string, std::string, bool>;

// Writes the recommendations of `keys` as of `as_of`; call inside a transaction.
// `settings`: the store's, when the caller has read them in this transaction.
// `written`: aggregates as the transaction wrote them (AggregateWriter::Flush
// lends them), taken instead of reading them back; the rest are read.
void MaterializeRecommendations(store::Connection& db, const std::set<MaterialKey>& keys,
                                double as_of, const RecommenderSettings* settings = nullptr,
                                AggregateMemo* written = nullptr);

// The key a materialised row stands for ("" parts are unknown).
HardwareKey KeyOf(const MaterialKey& key);

// Materialises anew, as of now, every (workload, hardware key) with history,
// already materialised, or offered by a registered pool. Returns the rows
// written. Inside the caller's transaction.
std::int64_t RefreshAllRecommendations(store::Connection& db);

}  // namespace hwrec::internal
