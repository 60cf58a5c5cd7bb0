// The per-key aggregates behind recommendations, kept up to date by ingest in
// the same transaction as the observations (DESIGN §6). Each observation feeds
// four keys of its workload: exact (brand, model, instance type), gpu_model
// (brand, model), instance_type, and any hardware. An unknown GPU model is the
// empty string: the shared unknown population, never a guess. Those keys are
// of width 0: every execution, whatever it held. An execution that says how
// many GPUs it held (N >= 1) also feeds the exact, gpu_model and any keys of
// width N with the GPU memory each GPU needed.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "aggregate/metric_state.h"
#include "aggregate/settings.h"
#include "hwrec/observation.h"
#include "store/database.h"

namespace hwrec::internal {

// The populations an aggregate row stands for, most specific first.
enum class Scope { kExact, kGpuModel, kInstanceType, kAny };
inline constexpr std::size_t kScopeCount = 4;
// "exact", "gpu_model", "instance_type", "any": the aggregates' scope column.
std::string_view ScopeName(Scope scope);
std::optional<Scope> ScopeNamed(std::string_view name);

struct AggregateKey {
  std::int64_t workload_id = 0;
  Scope scope = Scope::kExact;
  std::string gpu_brand;      // "" when unknown or no GPU
  std::string gpu_model;      // "" when unknown or no GPU
  std::string instance_type;  // "" when unknown
  // 0: every execution of the key; N: those that held N GPUs (GPU memory only).
  std::int64_t width = 0;
  bool operator==(const AggregateKey& o) const {
    return std::tie(workload_id, scope, gpu_brand, gpu_model, instance_type, width) ==
           std::tie(o.workload_id, o.scope, o.gpu_brand, o.gpu_model, o.instance_type, o.width);
  }
};

struct AggregateKeyHash {
  std::size_t operator()(const AggregateKey& k) const;
};

// The metrics an aggregate keeps: one per figure, in FigureKind's order, the
// compute share the executions were measured to use (share held ×
// utilisation); then the share held by executions that reported no GPU
// utilisation, which tells only what they held: the compute-share figure
// reads it only where no measured sample exists. A state stores it only when
// it holds a value (states written before schema 13 never do).
inline constexpr std::size_t kMetricCount = kFigureCount + 1;
inline constexpr std::size_t kHeldShareMetric = kFigureCount;
// "cpu_request_millicores", …, "gpu_compute_fraction", "gpu_compute_fraction_held".
std::string_view MetricName(std::size_t metric);

struct KeyAggregate {
  KeyAggregate();
  std::array<MetricState, kMetricCount> metrics;
  std::int64_t samples = 0;
  double last_finished_at = 0;

  std::string Serialize() const;
  bool Deserialize(std::string_view blob);
  // Adds everything `other` holds (see MetricState::Merge).
  void Merge(const KeyAggregate& other, const RecommenderSettings& settings);
  const MetricState& metric(FigureKind kind) const {
    return metrics[static_cast<std::size_t>(kind)];
  }
  const MetricState& held_share() const { return metrics[kHeldShareMetric]; }
};

// One accepted observation, resolved, as the aggregates need it.
struct AggregateInput {
  std::int64_t workload_id = 0;
  std::int64_t observation_id = 0;  // observations.id, kept beside recent values; 0 if unknown
  double finished_at = 0;
  ExecutionStatus status = ExecutionStatus::kSuccess;
  std::string gpu_brand, gpu_model, instance_type;  // "" when unknown
  bool has_gpu = false;
  std::optional<std::int64_t> gpus_held;        // GPUs the execution held; absent: unknown
  std::optional<double> instance_memory_bytes;  // caps an OOM bump
  std::optional<double> card_memory_gb;         // caps a GPU OOM bump
  std::optional<double> cpu_avg, cpu_p95, cpu_max;
  std::optional<double> memory_peak_bytes, gpu_memory_peak_gb;
  std::optional<double> gpu_compute_fraction, gpu_utilization;
  std::optional<double> requested_memory_bytes, requested_gpu_memory_gb;
};

// Whether an execution used a GPU: it held one (gpu_count_held), or, when
// that is not known, its node has GPUs or a GPU mode, or, when the node's GPU
// count is not known either (an unregistered pool), it reports a GPU memory
// peak or share. RebuildAggregates applies the same rule in SQL.
bool UsedGpu(const HardwareProfile& hardware, const std::optional<double>& gpu_memory_peak_gb,
             const std::optional<double>& gpu_compute_fraction,
             const std::optional<std::int64_t>& gpus_held);

// An OOM bump adds at least this much to what ran out.
inline constexpr double kOomMemoryFloorBytes = 100 * 1024.0 * 1024.0;
inline constexpr double kOomGpuFloorGb = 1.0;

// max(requested, observed) × factor, at least + floor: what an execution that
// ran out of memory needed at least (nullopt when neither is known). The
// aggregates cap it at what the hardware held; an OOM-retry floor does not.
std::optional<double> OomBump(std::optional<double> requested, std::optional<double> observed,
                              double factor, double floor);

// The value each metric takes from one input (nullopt: the input says nothing
// about it). OOM executions yield the synthetic bumped peak.
std::array<std::optional<double>, kMetricCount> MetricValues(const AggregateInput& input,
                                                             const RecommenderSettings& settings);

// When an AggregateWriter reads what the store already holds for a key.
enum class StoredAggregates {
  kLoadOnAdd,     // on the key's first Add: Add reads the database
  kMergeOnFlush,  // at Flush, merged into what was added: Add never reads the database
};

// Aggregate states a long-lived writer (an Ingestor) keeps between its
// transactions, so that the next one need not read them again: valid only
// while the store is as that writer's last transaction left it, which
// Check() tells by the connection's data version (another process's commit,
// or another write through the same connection, drops them all). An engine
// without a data version (PostgreSQL) keeps nothing. The version does not
// move for a schema change (DDL) or a backup restored through the same
// connection; hwrec makes neither on a store it writes. At most kMaxStates
// keys (about 3 KiB each): past it, earlier transactions' states are dropped
// and a transaction's own kept only up to the limit.
class KeptAggregates {
 public:
  static constexpr std::size_t kMaxStates = 4096;

  // In a write transaction, before its first Add: drops the states unless the
  // store is as the last Written() left it.
  void Check(store::Connection& db);
  // Last in that write transaction, after its writes: the version the store
  // has once it commits. Read while the transaction holds the write lock, as
  // after the commit another writer's commit could already be in it. (Our own
  // commit moves neither counter of the version.)
  void Sealed(store::Connection& db) { sealed_ = db.DataVersion(); }
  // After the transaction committed: the kept states are the store's, as of
  // the version Sealed() read. Not before: a failed COMMIT rolls back without
  // moving the version either.
  void Written();
  // Whether a store whose data version is `version` (read by the caller, e.g.
  // its store::ChangeWatch) is as the last Written() left it.
  bool CurrentAt(const std::optional<store::Connection::Version>& version) const {
    return version_ && version == version_;
  }
  void Clear() {
    states_.clear();
    version_.reset();
    sealed_.reset();
  }

 private:
  friend class AggregateWriter;
  std::unordered_map<AggregateKey, KeyAggregate, AggregateKeyHash> states_;
  std::optional<store::Connection::Version> version_;
  std::optional<store::Connection::Version> sealed_;  // of the open transaction
};

// Caches the aggregates a transaction touches and writes each once at Flush.
// With `kept`, it takes a key's state from there rather than the store, and
// leaves there what it wrote (kLoadOnAdd only). With kMergeOnFlush, Add touches no database, so it
// may run on another thread than the one that owns the connection (one thread at a time).
class AggregateWriter {
 public:
  AggregateWriter(store::Connection& db, const RecommenderSettings& settings,
                  StoredAggregates stored = StoredAggregates::kLoadOnAdd,
                  KeptAggregates* kept = nullptr);

  void Add(const AggregateInput& input);
  // Writes the touched aggregates; call inside the transaction, before commit.
  // With kMergeOnFlush it first takes the touched workloads' locks
  // (Connection::LockWorkloads: where writers run at once, the states it
  // reads then stay as read until the transaction ends). With `written` (a
  // RecommendationReader's AggregateMemo), the width-0 states written move
  // there, for the figures made from them in the same transaction; with
  // kLoadOnAdd, Keep(written) takes them back afterwards and the others go to
  // the keeper at once.
  void Flush(std::unordered_map<AggregateKey, std::optional<KeyAggregate>, AggregateKeyHash>*
                 written = nullptr);
  // Takes back to the keeper (if any) the states the last Flush moved to
  // `written`, and only those: the rest of `written` may be rows read back.
  void Keep(
      std::unordered_map<AggregateKey, std::optional<KeyAggregate>, AggregateKeyHash>* written);
  // Drops what Add gathered since the last Flush and TakeTouched, and the
  // kept states: the transaction it was for rolled back (to be tried again).
  void Discard() {
    cache_.clear();
    touched_.clear();
    if (kept_ != nullptr) kept_->Clear();
  }
  // (workload, exact key, CPU-only) touched since the last TakeTouched.
  std::set<std::tuple<std::int64_t, std::string, std::string, std::string, bool>> TakeTouched();
  // With kMergeOnFlush: what Add gathered since the last Flush, not merged
  // with what the store holds (an in-memory rebuild, for `hwrec check`).
  const std::unordered_map<AggregateKey, KeyAggregate, AggregateKeyHash>& added() const {
    return cache_;
  }

 private:
  KeyAggregate& Load(const AggregateKey& key);

  store::Connection& db_;
  const RecommenderSettings& settings_;
  const StoredAggregates stored_;
  KeptAggregates* const kept_;
  std::unique_ptr<store::Statement> select_;  // prepared once: ingest reads thousands a batch
  std::unique_ptr<store::Statement> upsert_;
  std::unordered_map<AggregateKey, KeyAggregate, AggregateKeyHash> cache_;
  std::set<std::tuple<std::int64_t, std::string, std::string, std::string, bool>> touched_;
  std::vector<AggregateKey> lent_;  // moved to `written` by the last Flush
};

// Reads one aggregate; nullopt when the key has none. Throws on a corrupt blob.
std::optional<KeyAggregate> ReadAggregate(store::Connection& db, const AggregateKey& key);
// The metrics of an aggregates row's `state` column (samples and
// last_finished_at are left 0). Throws when the blob is corrupt.
KeyAggregate AggregateFromState(std::string_view state);
// The same with a statement prepared from kSelectAggregateSql.
std::optional<KeyAggregate> ReadAggregate(store::Statement& select, const AggregateKey& key);
extern const char* const kSelectAggregateSql;

// Calls `fn` with every observation a rebuild adds to the aggregates, oldest
// first: those that finished no later than now plus ingest.max_clock_skew_hours.
// Only reads the store.
void ForEachRebuildInput(store::Connection& db, const RecommenderSettings& settings,
                         const std::function<void(const AggregateInput&)>& fn);

// What a scan of the observations passes beside each AggregateInput.
struct InputExtras {
  std::int64_t id = 0;  // observations.id
  std::string execution_id;
  std::string image;  // the workload
  std::optional<double> duration_s;
};

struct InputScan {
  std::optional<std::string> image;  // only this workload's observations
  bool by_workload = false;          // ordered by workload, then oldest first; else oldest first
};

// SQL over an observations row `o`: 1 when the execution used a GPU (UsedGpu).
inline constexpr const char* kObservationUsedGpuSql =
    "CASE WHEN o.gpu_count_held IS NOT NULL THEN CASE WHEN o.gpu_count_held > 0 THEN 1 ELSE 0 "
    "END WHEN coalesce(o.gpu_count, 0) > 0 OR o.gpu_mode IS NOT NULL OR (o.gpu_count IS NULL "
    "AND (o.gpu_memory_peak_gb IS NOT NULL OR o.gpu_compute_fraction IS NOT NULL)) THEN 1 "
    "ELSE 0 END";

// The observations ForEachRebuildInput reads (the same rows and values), with
// their ids, workload and duration. Only reads the store.
void ForEachInput(store::Connection& db, const RecommenderSettings& settings, const InputScan& scan,
                  const std::function<void(const AggregateInput&, const InputExtras&)>& fn);

// Deletes every aggregate and rebuilds them from the observations table,
// leaving out rows that finished later than now plus ingest.max_clock_skew_hours.
void RebuildAggregates(store::Connection& db, const RecommenderSettings& settings);

}  // namespace hwrec::internal
