// IngestRun: one Ingest call's records, from a parsed or built Observation
// to a stored row, a reject or a conflict, with the aggregates and
// recommendations they derive, counted in its IngestSummary. Takes the
// catalog and settings its Ingestor keeps (read again when they changed) and
// looks pools up as records name them; the caller opens a write transaction
// around each chunk (BeginChunk … FinishChunk). One thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "aggregate/aggregator.h"
#include "aggregate/settings.h"
#include "base/time.h"
#include "hwrec/ingest.h"
#include "hwrec/observation.h"
#include "hwrec/store.h"
#include "ingest/hardware_resolver.h"
#include "ingest/observation_writer.h"
#include "ingest/record_bounds.h"
#include "record/observation_json.h"
#include "store/change_watch.h"
#include "store/database.h"

namespace hwrec::internal {

// What a run reads from the store before it writes, kept by an Ingestor
// between its calls and read again only when a writer (any process) changed
// it since: the catalog and the settings (store::ChangeWatch), the hardware
// each pool resolved to (made again when the pools, the catalog or the
// settings changed), and the aggregate states its last transactions wrote
// (KeptAggregates).
struct KeptInputs {
  std::optional<GpuCatalog> catalog;
  std::optional<internal::RecommenderSettings> settings;
  std::unique_ptr<store::ChangeWatch> watch;
  std::optional<HardwareResolver> resolver;  // refers to `catalog`
  KeptAggregates aggregates;
};

// A line read before its batch's transaction begins.
struct PendingLine {
  std::int64_t line = 0;
  std::string text;        // at most max_line_bytes bytes
  std::size_t length = 0;  // bytes of the whole line, its ending excluded
  bool truncated = false;  // longer than max_line_bytes
};

// Thrown by FinishChunk when another writer committed new settings, catalog
// or pools since the run read them: the chunk's transaction rolls back, and
// the caller abandons the chunk and writes it with a new run (Continue),
// which reads them.
struct InputsMoved {};

// One Ingest call, or the part of one since its inputs last moved: the
// catalog, pools and statements it loads once, and the summary it builds.
// Transactions are opened by the caller around each chunk.
class IngestRun {
 public:
  IngestRun(store::Connection& db, const IngestOptions& options, HardwareResolver& resolver,
            internal::RecommenderSettings settings, KeptAggregates* kept_aggregates)
      : strict_(options.strict),
        form_(options.form),
        max_line_bytes_(options.max_line_bytes),
        defer_inserts_(db.ConcurrentWriters()),
        db_(db),
        resolver_(resolver),
        writer_(db, options.source),
        settings_(std::move(settings)),
        kept_aggregates_(kept_aggregates),
        // Where writers run at once, a batch's states are read under its
        // workloads' locks, at the end (AggregateWriter::Flush), not as it goes.
        aggregates_(db, settings_,
                    defer_inserts_ ? StoredAggregates::kMergeOnFlush : StoredAggregates::kLoadOnAdd,
                    kept_aggregates) {
    writer_.HoldRecords(defer_inserts_);  // written after the observations, in key order
  }

  // `kept`: the inputs of the Ingestor's earlier runs, brought up to date.
  static Result<std::unique_ptr<IngestRun>> Start(Store& store, const IngestOptions& options,
                                                  KeptInputs* kept);

  IngestRun(const IngestRun&) = delete;
  IngestRun& operator=(const IngestRun&) = delete;
  // A chunk begun and never committed (an exception left it) drops the
  // Ingestor's kept states: they may hold what its transaction rolled back.
  ~IngestRun();

  // In the chunk's transaction, before its first record.
  void BeginChunk() {
    chunk_open_ = true;
    if (kept_aggregates_ != nullptr) kept_aggregates_->Check(db_);
    now_ = internal::NowEpochSeconds();
    writer_.set_now(now_);
    chunk_start_ = Mark();
  }
  // Forgets what a chunk whose transaction rolled back added to the summary
  // and the caches, so that it can be run again (store::RunWrite), and
  // counts it in retried_batches; nothing when its transaction never began.
  void AbandonChunk();
  // Writes what the chunk's records derive: aggregates and the recommendations
  // of the keys they touched. Inside the chunk's transaction, last before
  // commit: it reads the store's version under the write lock (and, where
  // writers run at once, under the workloads' locks), and throws InputsMoved
  // when the settings, catalog or pools changed since the run read them.
  void FinishChunk();
  // After the chunk's transaction committed: the kept states are what the
  // store held as FinishChunk left it (a failed COMMIT rolls back without
  // moving the data version, so this is not said before it succeeds).
  void ChunkCommitted();
  // `raw` is the line as received, or nullptr for a record built in C++.
  void Add(std::int64_t line, const Observation& observation, const std::string* raw);
  void Reject(std::int64_t line, const std::string& execution_id, const FieldError& error,
              const std::string& record);
  void Reject(std::int64_t line, const std::string& execution_id,
              const std::vector<FieldError>& errors, const std::string& record);
  // Rejects a record refused for its own fields, naming also what its good
  // fields break (BoundsErrors): finished_at against the clock, and, when its
  // pool and hardware fields are good, its hardware and each figure above it.
  // `runner_names`: `errors` name the Runner's fields, and so will the rest.
  void RejectRefused(std::int64_t line, const std::string& execution_id,
                     std::vector<FieldError> errors, const PartialObservation* partial,
                     bool runner_names, const std::string& record);
  void Warn(std::int64_t line, const std::string& execution_id,
            const std::vector<FieldError>& warnings);
  // Parses one JSON line as read and adds or rejects it.
  void AddLine(const PendingLine& pending);

  // Reports a commit through `line` to the caller's callback, if any, once per line reached.
  void Committed(const IngestOptions& options, std::int64_t line);

  IngestSummary& summary() { return summary_; }
  // Goes on from `earlier`, a run of the same call whose inputs moved: its
  // summary and progress become this run's.
  void Continue(IngestRun& earlier);

 private:
  // An accepted record whose insert waits for the end of its chunk.
  struct DeferredRow {
    std::int64_t line = 0;
    Observation observation;
    ResolvedHardware resolved;
    std::optional<double> gpu_compute_fraction;
    FractionSource fraction_source = FractionSource::kNone;
    bool profile_id_mismatch = false;
    Sha256Digest content_hash;
    std::optional<std::string> raw;  // the line as received; none: built in C++
    bool runner_record = false;
    ObservationRow Row() const {
      return ObservationRow{observation,         resolved,    gpu_compute_fraction, fraction_source,
                            profile_id_mismatch, content_hash};
    }
  };
  // Counts an insert's outcome and adds what derives from it: the aggregates
  // of an accepted record (stored as `workload_id`, `observation_id`), the
  // conflict of a record that differs from the stored one.
  void Counted(std::int64_t line, const ObservationRow& row, InsertOutcome outcome,
               std::int64_t workload_id, std::int64_t observation_id,
               const std::function<std::string()>& record_text);
  // Inserts the chunk's deferred records: first each new workload, in image
  // order, then the observations, in execution id order, then counts them in
  // line order; FinishChunk then writes the chunk's rejects and conflicts,
  // each in the order of its unique key, before merging aggregates under the
  // workloads' locks (orders every writer shares, so that writers running at
  // once never wait for each other in a cycle).
  void InsertDeferred();

  bool strict_;
  RecordForm form_;
  bool runner_record_ = false;  // the record being added was in the Runner's form
  std::size_t max_line_bytes_;
  // Where writers run at once (Connection::ConcurrentWriters): records are
  // inserted at the end of their chunk, in key order (InsertDeferred).
  const bool defer_inserts_;
  std::vector<DeferredRow> deferred_;
  store::Connection& db_;
  HardwareResolver& resolver_;  // the Ingestor's
  ObservationWriter writer_;
  internal::RecommenderSettings settings_;
  store::ChangeWatch* watch_ = nullptr;  // the Ingestor's, polled again before materialising
  // What a record may report where its hardware's size is unknown.
  internal::UnknownHardwareBounds unknown_;
  KeptAggregates* kept_aggregates_;  // the Ingestor's, or nullptr
  internal::AggregateWriter aggregates_;
  IngestSummary summary_;
  // The summary's counts and list lengths when the chunk began.
  struct SummaryMark {
    IngestSummary counts;  // without its lists
    std::size_t rejects = 0, warnings = 0, conflict_ids = 0;
  };
  SummaryMark Mark() const;
  SummaryMark chunk_start_;
  std::string content_key_;  // reused for every record
  double now_ = 0;           // the store's clock for this chunk
  std::int64_t batches_ = 0;
  bool chunk_open_ = false;  // between BeginChunk and ChunkCommitted
  std::int64_t reported_line_ = 0;
};

}  // namespace hwrec::internal
