// Private: PlacementEvaluator's state (its Impl), shared by the files of the
// evaluator: the registered pools with their catalog facts (PoolIndex), the
// kept readers and change watch, and the reads and the ranking of one
// evaluation (evaluator.cpp, evaluator_rank.cpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "hwrec/catalog.h"
#include "hwrec/hardware_key.h"
#include "hwrec/node_pool.h"
#include "hwrec/placement.h"
#include "hwrec/placement_input.h"
#include "hwrec/placement_result.h"
#include "hwrec/recommend.h"
#include "hwrec/status.h"
#include "hwrec/store.h"
#include "placement/candidate.h"
#include "placement/history.h"
#include "recommend/recommendation_reader.h"
#include "store/change_watch.h"
#include "store/database.h"

namespace hwrec {

// The registered pools, each with its facts from the catalog it was added
// with (the facts point into it), indexed by id and by hardware key.
struct PoolIndex {
  std::vector<internal::PoolFacts> pools;
  std::unordered_map<std::string, std::size_t> pool_by_id;
  std::vector<HardwareKey> keys;  // distinct hardware keys of the pools

  void Add(NodePool pool, const GpuCatalog& catalog);
};

// Hidden, though its class is exported: only the library reaches it.
struct [[gnu::visibility("hidden")]] PlacementEvaluator::Impl {
  explicit Impl(const Store& s) : store(s), watch(store::ConnectionOf(s)) {}
  const Store& store;
  // Tells, in each evaluation's snapshot, whether the pools, the catalog or
  // the settings changed since the last one, by this process or another.
  store::ChangeWatch watch;
  // Kept across evaluations with its prepared statements; settings re-read when changed.
  std::unique_ptr<internal::RecommendationReader> reader;
  std::unique_ptr<internal::WorkloadHistoryReader> history_reader;  // made on first use
  GpuCatalog catalog;
  PoolIndex index;               // its facts point into `catalog`
  std::vector<DemandShape> mix;  // normalised; empty: each execution's own request

  // Re-reads the catalog and the pools when the watch has them pending (a
  // pool's facts point into the catalog: a new catalog re-reads the pools
  // too), all or nothing: on failure the evaluator is as it was and the
  // change stays pending.
  Status Sync();
  // Each candidate's registered pool (null: not in the snapshot), checking the
  // candidate rules on the way (CheckPlacementCandidates, duplicates found by
  // the pools' index instead of hashing every id again).
  Status LookUp(const std::vector<PlacementCandidate>& candidates,
                std::vector<const internal::PoolFacts*>* found);
  // Where each candidate of the last evaluation was found in `index.pools`
  // (a Runner asks again and again over the same pools, in the same order):
  // tried first, by comparing the id, before the id is hashed. Emptied when
  // the pools are read again.
  std::vector<std::size_t> last_found;
  // What a read in one statement gave, in place of a snapshot's reads.
  struct Held {
    std::int64_t workload_id = 0;
    internal::WorkloadHistory history;
    internal::AggregateMemo memo;
  };
  // The reads in one statement, without and with the workload's history;
  // made on first use.
  std::array<std::unique_ptr<store::Statement>, 2> combined;
  // In the steady state, where each statement is a round trip
  // (internal::MayReadCombined): the workload's id, aggregates for the keys
  // of `pools` and (`with_history`) recent executions, in one statement that
  // also reads the change counters. nullopt: read them in a snapshot (the
  // pools, catalog or settings changed, or the connection was lost).
  std::optional<Held> ReadCombined(const std::string& workload,
                                   const std::vector<const internal::PoolFacts*>& pools,
                                   bool with_history);
  // The distinct hardware keys of `pools`.
  std::vector<const HardwareKey*> KeysOf(const std::vector<const internal::PoolFacts*>& pools)
      const;
  // Also completes `facts` from the workload's history, in the same read:
  // `held`'s, or the snapshot's the watch was polled in (call inside it).
  Result<std::vector<const Recommendation*>> RecommendationsFor(
      const std::string& workload, const std::vector<const internal::PoolFacts*>& pools,
      double as_of, internal::ExecutionFacts* facts,
      std::vector<std::optional<Recommendation>>* cache, Held* held);
  void Rank(PlacementResult * result, PlacementPolicy policy, std::int64_t gpu_count,
            const std::vector<const internal::PoolFacts*>& pools_given) const;
};

}  // namespace hwrec
