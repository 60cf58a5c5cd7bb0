// Private parts of the query layer shared by RecommendationQuery, ingest's
// refresh of materialised recommendations, and `hwrec refresh`.
#pragma once

#include <SQLiteCpp/SQLiteCpp.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "hwrec/recommend.h"
#include "aggregate/aggregator.h"
#include "aggregate/settings.h"

namespace hwrec::internal {

inline constexpr std::size_t kScopeCount = 4;  // Scope's values, most specific first

// The aggregates one batch of reads has read, by row: hardware keys that share a
// GPU model or an instance type share rows, and every key shares `any`. Valid
// while the store is not written, e.g. within one ReadSnapshot.
using AggregateMemo =
    std::unordered_map<AggregateKey, std::optional<KeyAggregate>, AggregateKeyHash>;

// Reads recommendations with prepared statements kept for its lifetime; the
// settings are read when it is made and again by RefreshSettings.
class RecommendationReader {
 public:
  explicit RecommendationReader(SQLite::Database& db);

  // Re-reads the settings if the config table changed since they were read.
  // A reader kept across writes to the store calls it before each batch of reads.
  void RefreshSettings();
  int SchemaVersion();  // PRAGMA user_version, as of now
  // True when the store may have changed since the last call: another
  // connection committed (PRAGMA data_version) or this one wrote rows.
  // The first call returns true.
  bool StoreMayHaveChanged();
  std::optional<std::int64_t> WorkloadId(const std::string& image);
  // workload_id 0: a workload with no history (every figure `none`).
  Recommendation Read(std::int64_t workload_id, const std::string& workload,
                      const HardwareKey& hardware, double as_of);
  // Reads into `memo`, in one pass over the workload's aggregates, every row a
  // Read of one of `keys` needs; a row the store lacks is kept as absent.
  void ReadAggregates(std::int64_t workload_id, const std::vector<const HardwareKey*>& keys,
                      AggregateMemo* memo);
  // The same figures as Read above, from the rows in `memo`; those it lacks
  // are read into it first.
  Recommendation Read(std::int64_t workload_id, const std::string& workload,
                      const HardwareKey& hardware, double as_of, AggregateMemo* memo);
  const RecommenderSettings& settings() const { return settings_; }

 private:
  using ScopeAggregates = std::array<const KeyAggregate*, kScopeCount>;  // null: no row

  bool ConfigChanged();
  Recommendation Estimate(const std::string& workload, const HardwareKey& hardware, double as_of,
                          const ScopeAggregates& by_scope) const;

  SQLite::Database& db_;
  RecommenderSettings settings_;
  SQLite::Statement workload_;
  SQLite::Statement aggregates_;
  std::optional<SQLite::Statement> schema_version_;                    // prepared on first use
  std::optional<SQLite::Statement> data_version_;                      // prepared on first use
  std::optional<std::pair<std::int64_t, std::int64_t>> seen_version_;  // (data_version, changes)
  std::optional<SQLite::Statement> workload_rows_;  // a workload's rows; prepared on first use
  std::optional<SQLite::Statement> config_;         // prepared by the first RefreshSettings
  std::optional<std::vector<std::pair<std::string, std::string>>> config_rows_;
};

// The reader a query object keeps across calls: fails, naming the fix, when
// the store is older than the recommendation tables; else makes the reader on
// first use and refreshes its settings. Throws SQLite::Exception.
Result<RecommendationReader*> KeptReader(const Store& store,
                                         std::unique_ptr<RecommendationReader>* reader);

// One read transaction over a batch of reads: they see one state of the store
// and take the WAL read lock once. Does nothing inside an open transaction.
class ReadSnapshot {
 public:
  explicit ReadSnapshot(SQLite::Database& db);
  ReadSnapshot(const ReadSnapshot&) = delete;
  ReadSnapshot& operator=(const ReadSnapshot&) = delete;
  ~ReadSnapshot();  // ends the transaction; never throws

 private:
  SQLite::Database& db_;
  bool began_ = false;
};

// (workload_id, gpu_brand, gpu_model, instance_type, cpu_only), "" for unknown parts.
using MaterialKey = std::tuple<std::int64_t, std::string, std::string, std::string, bool>;

// Writes the recommendations of `keys` as of `as_of`; call inside a transaction.
void MaterializeRecommendations(SQLite::Database& db, const std::set<MaterialKey>& keys,
                                double as_of);

// The key a materialised row stands for ("" parts are unknown).
HardwareKey KeyOf(const MaterialKey& key);
// Materialises anew, as of now, every (workload, hardware key) with history,
// already materialised, or offered by a registered pool. Returns the rows
// written. Inside the caller's transaction.
std::int64_t RefreshAllRecommendations(SQLite::Database& db);

}  // namespace hwrec::internal
