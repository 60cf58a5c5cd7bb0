// RecommendationReader: the figures of one workload on one hardware key, read
// from the aggregates with the estimator settings of the config table. Used by
// RecommendationQuery and placement (through recommend/kept_reader.h) and by
// the materialisation of recommendations that ingest and `hwrec config set`
// run. One thread at a time, like the connection it reads.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "aggregate/aggregator.h"
#include "aggregate/settings.h"
#include "hwrec/figure.h"
#include "recommend/figure_reason.h"
#include "recommend/transfer_source.h"
#include "store/database.h"

namespace hwrec::internal {

// The aggregates one batch of reads has read, by row: hardware keys that share a
// GPU model or an instance type share rows, and every key shares `any`. Valid
// while the store is not written, e.g. within one store::ReadSnapshot.
using AggregateMemo =
    std::unordered_map<AggregateKey, std::optional<KeyAggregate>, AggregateKeyHash>;

// The aggregates of one hardware key at each scope, in Scope's order; null: no row.
using ScopeAggregates = std::array<const KeyAggregate*, kScopeCount>;

// The rows a read for `keys` wants (RecommendationReader::ReadAggregates):
// each scope's row of each key, less those `memo` has; absent until kept.
AggregateMemo WantedAggregates(std::int64_t workload_id,
                               const std::vector<const HardwareKey*>& keys,
                               const AggregateMemo& memo);
// Where a statement gives an aggregate row's key and state.
struct AggregateColumns {
  int scope, gpu_brand, gpu_model, instance_type, width, state;
};
// Keeps the aggregate row `row` holds (of the workload `key->workload_id`;
// the rest of `key` is scratch) in `wanted` when it is wanted there, or when
// it is of a width and `memo` lacks it (kept for a Read at a width).
void KeepAggregateRow(const store::Statement& row, const AggregateColumns& columns,
                      AggregateKey* key, AggregateMemo* wanted, const AggregateMemo& memo);

// One figure of `hardware` from its aggregates: the first scope of the
// figure's fallback chain (DESIGN §3, §6) that has history, or no value.
Figure EstimateFromScopes(FigureKind kind, const HardwareKey& hardware,
                          const ScopeAggregates& by_scope, const RecommenderSettings& settings);

// Reads recommendations with prepared statements kept for its lifetime; the
// settings are read when it is made and again by ReloadSettings.
class RecommendationReader {
 public:
  explicit RecommendationReader(store::Connection& db);
  // With settings the caller read in the same transaction (an ingest's).
  RecommendationReader(store::Connection& db, RecommenderSettings settings);

  // Re-reads the settings: a reader kept across calls does when its
  // store::ChangeWatch saw them change.
  void ReloadSettings() {
    settings_ = LoadSettings(db_);
    transfer_.Drop();  // read with the statistics and evidence the settings named
  }
  // For a reader kept across calls: called first in each call's read
  // snapshot with the store's data version then (store::ChangeWatch::
  // version()). While it stays the same, the workload ids and the decoded
  // aggregates of Read (without a memo) read before are used again, and no
  // row is read for them; a version that moved or is absent (PostgreSQL)
  // drops them. At most kMaxKeptKeys of each are kept.
  void KeepWhile(std::optional<store::Connection::Version> version);
  static constexpr std::size_t kMaxKeptKeys = 256;
  // A memo for ReadAggregates and Read with a memo (placement's) of
  // `workload_id`'s rows, kept on the same terms while the calls ask for that
  // workload (a memo holds one workload's rows: a Read at a width scans them
  // all), at most about kMaxKeptRows rows; nullptr when the reader keeps
  // nothing (the caller's own memo then serves one call).
  AggregateMemo* KeptMemo(std::int64_t workload_id) {
    if (!kept_version_) return nullptr;
    if (workload_id != kept_memo_workload_ || kept_memo_.size() >= kMaxKeptRows) {
      kept_memo_.clear();
      kept_memo_workload_ = workload_id;
    }
    return &kept_memo_;
  }
  static constexpr std::size_t kMaxKeptRows = 2048;
  std::optional<std::int64_t> WorkloadId(const std::string& image);
  // workload_id 0: a workload with no history (every figure `none`). With
  // `explain`, each figure with a value carries its reason, the execution
  // that set a max looked up with one query per figure. With `width`, GPU
  // memory answers for executions that held that many GPUs
  // (Recommendation::width), read with one more query.
  Recommendation Read(std::int64_t workload_id, const std::string& workload,
                      const HardwareKey& hardware, double as_of, bool explain = false,
                      std::optional<std::int64_t> width = std::nullopt);
  // Reads into `memo`, in one pass over the workload's aggregates, every row a
  // Read of one of `keys` needs; a row the store lacks is kept as absent.
  void ReadAggregates(std::int64_t workload_id, const std::vector<const HardwareKey*>& keys,
                      AggregateMemo* memo);
  // The same figures as Read above, from the rows in `memo`; those it lacks
  // are read into it first (with the workload's rows of every width).
  Recommendation Read(std::int64_t workload_id, const std::string& workload,
                      const HardwareKey& hardware, double as_of, AggregateMemo* memo,
                      std::optional<std::int64_t> width = std::nullopt);
  // GPU memory per GPU at each width the workload's executions said they
  // held, learned on `every_width.hardware`'s key, else its card, else any
  // card (the figure's provenance says which): width -> figure, ascending.
  // When `every_width` (Read's answer for the key, of every width) holds a
  // transferred GPU memory figure, the card has no history of its own: the
  // figures are those of each width its source card ran at, transferred as
  // a Read at that width transfers them. Empty when no execution said what
  // it held. From the rows in `memo`, read into it first when it lacks them
  // (one query).
  std::map<std::int64_t, Figure> GpuMemoryByWidth(std::int64_t workload_id,
                                                  const Recommendation& every_width,
                                                  AggregateMemo* memo);
  const RecommenderSettings& settings() const { return settings_; }
  // Whether a figure with no history on its key may be transferred from the
  // workload's history on other keys (per figure, the config's
  // <figure>.transfer). Query readers do; the materialisation of ingest does
  // not (transferred figures are read-time only).
  void AllowTransfer(bool allow) { transfer_allowed_ = allow; }

 private:
  Recommendation Estimate(const std::string& workload, const HardwareKey& hardware, double as_of,
                          const ScopeAggregates& by_scope) const;
  // Replaces each figure with no history on `hardware`'s own card or instance
  // type (no value, or learned on any hardware) by its transfer, where the
  // figure's setting allows it and a factor has the evidence.
  void Transfer(std::int64_t workload_id, bool explain, Recommendation* out);
  // Adds to each figure the reason it is what it is (Read with `explain`),
  // from the aggregate of the scope its provenance names.
  void Explain(std::int64_t workload_id, const ScopeAggregates& by_scope, Recommendation* out);
  // A workload's aggregates of one width or more for one hardware key: the
  // key's own (scope exact), its card's and every card's (scope any), by width.
  struct WidthAggregates {
    std::map<std::int64_t, const KeyAggregate*> on_key, on_card, on_any;
    // Other cards' rows (scope gpu_model), by (brand, model): a figure
    // transferred from one is of the width it was learned at.
    std::map<std::pair<std::string, std::string>, std::map<std::int64_t, const KeyAggregate*>>
        on_other_cards;
    struct At {
      const KeyAggregate* aggregate;
      Scope scope;
    };
    void Add(const AggregateKey& key, const KeyAggregate& aggregate, const HardwareKey& hardware);
    // The widths with GPU memory history, on any card, ascending.
    std::vector<std::int64_t> Widths() const;
    At MostSpecificAt(std::int64_t width) const;
  };
  // The width rows of `workload_id` in `memo` that answer for `hardware`.
  static WidthAggregates WidthAggregatesIn(const AggregateMemo& memo, std::int64_t workload_id,
                                           const HardwareKey& hardware);
  // Replaces the GPU memory figure by the one learned at `width` (or the
  // nearest width the workload ran at) and sets out->width; the first reads
  // the workload's rows (ReadAggregates).
  void AnswerForWidth(std::int64_t workload_id, std::int64_t width, bool explain,
                      Recommendation* out);
  void AnswerForWidth(std::int64_t workload_id, std::int64_t width, bool explain,
                      const WidthAggregates& by_width, Recommendation* out);
  // A GPU memory figure transferred from every width of its source card made
  // one of `width` (or the nearest width the workload ran at there): the
  // source's figure at that width times the same factor. Left as it is when
  // the source card has no row of a width.
  void TransferAtWidth(std::int64_t width, bool explain, const WidthAggregates& by_width,
                       Recommendation* out) const;
  // The observation behind a recent value: by its id, or by workload, key and
  // finish time when the state predates ids (format 1 and 2).
  std::optional<ExplainedExecution> FindExecution(FigureKind kind, std::int64_t workload_id,
                                                  const HardwareKey& hardware, Scope scope,
                                                  const RecentValue& recent);

  using ScopeStates = std::array<std::optional<KeyAggregate>, kScopeCount>;
  // Reads the width-0 aggregates of `hardware`'s scopes (one query).
  void ReadScopes(std::int64_t workload_id, const HardwareKey& hardware, ScopeStates* out);
  // ReadScopes, kept while the version KeepWhile was given stays.
  const ScopeStates& KeptScopes(std::int64_t workload_id, const HardwareKey& hardware);

  store::Connection& db_;
  RecommenderSettings settings_;
  bool transfer_allowed_ = false;
  TransferSource transfer_;
  std::optional<store::Connection::Version> kept_version_;  // nullopt: keep nothing
  std::map<std::string, std::optional<std::int64_t>, std::less<>> kept_ids_;
  std::map<std::tuple<std::int64_t, std::string, std::string, std::string>, ScopeStates>
      kept_scopes_;
  AggregateMemo kept_memo_;
  std::int64_t kept_memo_workload_ = 0;
  std::unique_ptr<store::Statement> workload_;
  std::unique_ptr<store::Statement> aggregates_;
  std::unique_ptr<store::Statement> workload_rows_;      // a workload's rows; prepared on first use
  std::unique_ptr<store::Statement> execution_by_id_;    // prepared on first use
  std::unique_ptr<store::Statement> execution_by_time_;  // prepared on first use
};

}  // namespace hwrec::internal
