// Private parts of the query layer shared by RecommendationQuery, ingest's
// refresh of materialised recommendations, and `hwrec refresh`.
#pragma once

#include <SQLiteCpp/SQLiteCpp.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <tuple>

#include "hwrec/recommend.h"
#include "recommend/settings.h"

namespace hwrec::internal {

// Reads recommendations with prepared statements kept for its lifetime; the
// settings are read once, when it is made.
class RecommendationReader {
 public:
  explicit RecommendationReader(SQLite::Database& db);

  std::optional<std::int64_t> WorkloadId(const std::string& image);
  // workload_id 0: a workload with no history (every figure `none`).
  Recommendation Read(std::int64_t workload_id, const std::string& workload,
                      const HardwareKey& hardware, double as_of);
  const RecommenderSettings& settings() const { return settings_; }

 private:
  SQLite::Database& db_;
  RecommenderSettings settings_;
  SQLite::Statement workload_;
  SQLite::Statement aggregates_;
};

// (workload_id, gpu_brand, gpu_model, instance_type, cpu_only), "" for unknown parts.
using MaterialKey = std::tuple<std::int64_t, std::string, std::string, std::string, bool>;

// Writes the recommendations of `keys` as of `as_of`; call inside a transaction.
void MaterializeRecommendations(SQLite::Database& db, const std::set<MaterialKey>& keys,
                                double as_of);

// The key a materialised row stands for ("" parts are unknown).
HardwareKey KeyOf(const MaterialKey& key);

}  // namespace hwrec::internal
