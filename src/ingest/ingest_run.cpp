#include "ingest/ingest_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "base/text.h"
#include "hardware/node_pool_table.h"
#include "hwrec/catalog.h"
#include "hwrec/node_pool.h"
#include "ingest/observation_encoding.h"
#include "ingest/record_bounds.h"
#include "recommend/materialize.h"
#include "record/runner_records.h"

namespace hwrec::internal {

namespace {

// Every problem of a record as one error: the first field, and a reason that
// lists each problem ("field: reason; field: reason") when there are several.
FieldError Combined(const std::vector<FieldError>& errors) {
  if (errors.size() == 1) return errors.front();
  return FieldError{errors.front().field, internal::JoinedReasons(errors)};
}

// How far a line is over the limit, and how to raise the limit.
FieldError LineTooLong(std::size_t length, std::size_t max_line_bytes) {
  return FieldError{
      "json", fmt::format("the line is {} bytes, {} bytes over the limit of {}: send one record "
                          "per line, or raise the limit (hwrec ingest --max-line-bytes, "
                          "IngestOptions::max_line_bytes)",
                          length, length - max_line_bytes, max_line_bytes)};
}

}  // namespace

Result<std::unique_ptr<IngestRun>> IngestRun::Start(Store& store, const IngestOptions& options,
                                                    KeptInputs* kept) {
  if (options.batch_size == 0) {
    return Status::InvalidArgument("ingest batch_size is 0: give at least 1 record per batch");
  }
  if (options.max_line_bytes == 0) {
    return Status::InvalidArgument("ingest max_line_bytes is 0: give the longest line to accept");
  }
  if (options.commit_after_idle_ms < 0) {
    return Status::InvalidArgument(
        "ingest commit_after_idle_ms is negative: give 0 or more milliseconds");
  }
  store::Connection& db = store::ConnectionOf(store);
  {
    // One read transaction for the change poll and the checks.
    store::ReadSnapshot snapshot(db);
    if (!kept->watch) kept->watch = std::make_unique<store::ChangeWatch>(db);
    const store::StoreChanges changed = kept->watch->Poll();
    // A store as this Ingestor's last transaction left it (by the version the
    // poll read) was writable then: its schema and legacy rows (a fifth of a
    // single-record call) are not read again.
    if (store.read_only() || !kept->aggregates.CurrentAt(kept->watch->version())) {
      if (Status writable = store.CheckWritable(); !writable.ok()) return writable;
    }
    if (!kept->catalog || changed(store::ChangeArea::kCatalog)) {
      auto catalog = GpuCatalog::Load(store);
      if (!catalog.ok()) return catalog.status();
      kept->resolver.reset();  // it refers to the catalog
      kept->catalog = std::move(catalog).value();
      kept->watch->Applied(store::ChangeArea::kCatalog);
    }
    if (!kept->settings || changed(store::ChangeArea::kSettings)) {
      kept->resolver.reset();  // made with the settings' compute slices
      kept->settings = internal::LoadSettings(db);
      kept->watch->Applied(store::ChangeArea::kSettings);
    }
    if (changed(store::ChangeArea::kPools)) {
      kept->resolver.reset();
      kept->watch->Applied(store::ChangeArea::kPools);
    }
  }
  const GpuCatalog& catalog = *kept->catalog;
  internal::RecommenderSettings settings = *kept->settings;
  internal::UnknownHardwareBounds unknown;
  double largest_card_gb = 0;
  for (const GpuModel& card : catalog.models()) {
    largest_card_gb = std::max(largest_card_gb, card.memory_gb);
  }
  if (largest_card_gb > 0) {
    unknown.gpu_memory_gb = largest_card_gb * settings.unknown_gpu_memory_factor;
  }
  unknown.cpu_millicores = settings.unknown_max_cpu_cores * 1000.0;
  unknown.memory_bytes = settings.unknown_max_memory_gib * 1073741824.0;
  if (!kept->resolver) {
    kept->resolver.emplace(
        catalog,
        [&db](const std::string& id) -> std::optional<HardwareProfile> {
          std::optional<NodePool> pool = internal::LoadNodePool(db, id);
          if (!pool) return std::nullopt;
          return std::move(pool->hardware);
        },
        settings.total_compute_slices);
  }
  auto run = std::make_unique<IngestRun>(db, options, *kept->resolver, std::move(settings),
                                         &kept->aggregates);
  run->watch_ = kept->watch.get();
  run->unknown_ = unknown;
  return run;
}

IngestRun::SummaryMark IngestRun::Mark() const {
  SummaryMark mark;
  mark.counts.accepted = summary_.accepted;
  mark.counts.duplicates = summary_.duplicates;
  mark.counts.conflicts = summary_.conflicts;
  mark.counts.rejected = summary_.rejected;
  mark.counts.profile_id_mismatches = summary_.profile_id_mismatches;
  mark.counts.unresolved_hardware = summary_.unresolved_hardware;
  mark.rejects = summary_.rejects.size();
  mark.warnings = summary_.warnings.size();
  mark.conflict_ids = summary_.conflict_execution_ids.size();
  return mark;
}

void IngestRun::AbandonChunk() {
  deferred_.clear();
  // A transaction that never began (its BEGIN found the connection lost)
  // left nothing to undo: the mark is still the last committed chunk's end.
  if (!chunk_open_) return;
  chunk_open_ = false;
  if (kept_aggregates_ != nullptr) kept_aggregates_->Clear();
  const SummaryMark& mark = chunk_start_;
  summary_.accepted = mark.counts.accepted;
  summary_.duplicates = mark.counts.duplicates;
  summary_.conflicts = mark.counts.conflicts;
  summary_.rejected = mark.counts.rejected;
  summary_.profile_id_mismatches = mark.counts.profile_id_mismatches;
  summary_.unresolved_hardware = mark.counts.unresolved_hardware;
  ++summary_.retried_batches;  // not undone: the batch runs again
  summary_.rejects.resize(mark.rejects);
  summary_.warnings.resize(mark.warnings);
  summary_.conflict_execution_ids.resize(mark.conflict_ids);
  aggregates_.Discard();
  writer_.ForgetUncommitted();
}

void IngestRun::FinishChunk() {
  InsertDeferred();
  writer_.WriteHeldRecords();
  // The figures are made from the states as written, not read back.
  internal::AggregateMemo written;
  aggregates_.Flush(&written);
  std::set<internal::MaterialKey> touched;
  for (auto& key : aggregates_.TakeTouched()) touched.insert(key);
  // What the run read still stands, as the transaction sees it under the
  // locks the merge took: else the chunk is written again by a run that
  // reads it (a stream that waited for its first line, a config set that
  // rebuilt the aggregates meanwhile).
  if (watch_ != nullptr) {
    const store::StoreChanges changed = watch_->Poll();
    if (changed(store::ChangeArea::kSettings) || changed(store::ChangeArea::kCatalog) ||
        changed(store::ChangeArea::kPools)) {
      throw InputsMoved{};
    }
  }
  internal::MaterializeRecommendations(db_, touched, internal::NowEpochSeconds(), &settings_,
                                       &written);
  aggregates_.Keep(&written);
  if (kept_aggregates_ != nullptr) kept_aggregates_->Sealed(db_);  // nothing is written after
}

void IngestRun::Continue(IngestRun& earlier) {
  summary_ = std::move(earlier.summary_);
  batches_ = earlier.batches_;
  reported_line_ = earlier.reported_line_;
}

void IngestRun::ChunkCommitted() {
  chunk_open_ = false;
  if (kept_aggregates_ != nullptr) kept_aggregates_->Written();
}

IngestRun::~IngestRun() {
  if (chunk_open_ && kept_aggregates_ != nullptr) kept_aggregates_->Clear();
}

// The one path of an accepted record: resolve, hash, insert, count.
void IngestRun::Add(std::int64_t line, const Observation& o, const std::string* raw) {
  auto record_text = [&] { return raw != nullptr ? *raw : ObservationToJson(o); };
  FieldError error;
  const ResolvedHardware* resolved = resolver_.Resolve(o, &error);
  // Every bad field is named: the hardware, the time, each figure above its bound.
  std::vector<FieldError> errors =
      internal::BoundsErrors(o, resolved, now_, settings_.max_clock_skew_hours, unknown_);
  if (resolved == nullptr) errors.insert(errors.begin(), std::move(error));
  if (!errors.empty()) {
    Reject(line, o.execution_id, errors, record_text());
    return;
  }
  const internal::Sha256Digest hash = internal::ContentHash(o, &content_key_);
  const bool stamped = o.gpu_compute_fraction.has_value();
  const std::string* recomputed_id = nullptr;
  if (o.hardware_profile_id) {
    const auto version = ProfileIdVersionOf(*o.hardware_profile_id);
    recomputed_id = version == ProfileIdVersion::kV1 ? &resolved->hp_v1 : &resolved->hp_v2;
  }
  const internal::ObservationRow row{
      o,
      *resolved,
      stamped ? o.gpu_compute_fraction : resolved->mode_fraction,
      stamped ? FractionSource::kStamped : resolved->mode_source,
      recomputed_id != nullptr && *recomputed_id != *o.hardware_profile_id,
      hash};
  if (defer_inserts_) {
    deferred_.push_back(DeferredRow{
        line, o, *resolved, row.gpu_compute_fraction, row.fraction_source, row.profile_id_mismatch,
        hash, raw != nullptr ? std::optional<std::string>(*raw) : std::nullopt, runner_record_});
    return;
  }
  const InsertOutcome outcome = writer_.Insert(row);
  Counted(line, row, outcome, writer_.last_workload_id(), writer_.last_observation_id(),
          record_text);
}

void IngestRun::InsertDeferred() {
  if (deferred_.empty()) return;
  std::vector<std::size_t> order(deferred_.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto by = [this](auto field) {
    return [this, field](std::size_t a, std::size_t b) {
      const Observation& x = deferred_[a].observation;
      const Observation& y = deferred_[b].observation;
      return std::tie(x.*field, a) < std::tie(y.*field, b);
    };
  };
  struct Stored {
    std::optional<InsertOutcome> outcome;  // known before the insert: stored already
    std::int64_t workload_id = 0;
    std::int64_t observation_id = 0;
  };
  std::vector<Stored> stored(deferred_.size());
  std::sort(order.begin(), order.end(), by(&Observation::action_image));
  for (const std::size_t i : order) writer_.ResolveWorkload(deferred_[i].Row(), &stored[i].outcome);
  std::sort(order.begin(), order.end(), by(&Observation::execution_id));
  for (const std::size_t i : order) {
    if (stored[i].outcome) continue;
    stored[i].outcome = writer_.Insert(deferred_[i].Row());
    stored[i].workload_id = writer_.last_workload_id();
    stored[i].observation_id = writer_.last_observation_id();
  }
  for (std::size_t i = 0; i < deferred_.size(); ++i) {
    const DeferredRow& d = deferred_[i];
    runner_record_ = d.runner_record;
    Counted(d.line, d.Row(), *stored[i].outcome, stored[i].workload_id, stored[i].observation_id,
            [&d] { return d.raw ? *d.raw : ObservationToJson(d.observation); });
  }
  runner_record_ = false;
  deferred_.clear();
}

void IngestRun::Counted(std::int64_t line, const ObservationRow& row, InsertOutcome outcome,
                        std::int64_t workload_id, std::int64_t observation_id,
                        const std::function<std::string()>& record_text) {
  const Observation& o = row.observation;
  switch (outcome) {
    case InsertOutcome::kInserted:
      // Whatever derives from an accepted record is written here, in this transaction.
      aggregates_.Add(AggregateInputOf(row, workload_id, observation_id));
      ++summary_.accepted;
      if (row.profile_id_mismatch) ++summary_.profile_id_mismatches;
      if (row.resolved.pool_unregistered) ++summary_.unresolved_hardware;
      break;
    case InsertOutcome::kDuplicate:
      ++summary_.duplicates;
      break;
    case InsertOutcome::kConflict:
      ++summary_.conflicts;
      summary_.conflict_execution_ids.push_back(o.execution_id);
      writer_.RecordConflict(line, o.execution_id, record_text());
      break;
  }
}

void IngestRun::Committed(const IngestOptions& options, std::int64_t line) {
  if (line <= reported_line_) return;  // a batch of nothing but trailing blank lines
  reported_line_ = line;
  ++batches_;
  if (options.on_batch_committed) options.on_batch_committed({line, batches_, &summary_});
}

void IngestRun::Reject(std::int64_t line, const std::string& execution_id, const FieldError& error,
                       const std::string& record) {
  Reject(line, execution_id, std::vector<FieldError>{error}, record);
}

void IngestRun::Reject(std::int64_t line, const std::string& execution_id,
                       const std::vector<FieldError>& given, const std::string& record) {
  std::vector<FieldError> errors = given;
  if (runner_record_) {  // found after parsing: named as the Runner's record names them
    for (FieldError& e : errors) e = internal::RunnerObservationError(std::move(e));
  }
  writer_.RecordReject(line, execution_id, Combined(errors), record);
  ++summary_.rejected;
  summary_.rejects.push_back(
      IngestReject{{line, errors.front().field, errors.front().reason}, execution_id, errors});
}

void IngestRun::RejectRefused(std::int64_t line, const std::string& execution_id,
                              std::vector<FieldError> errors, const PartialObservation* partial,
                              bool runner_names, const std::string& record) {
  if (partial != nullptr) {
    const Observation& o = partial->observation;
    FieldError unresolved;
    const ResolvedHardware* resolved = nullptr;
    const bool hardware_read = !partial->Refused("node_pool_id") && !partial->Refused("hardware");
    if (hardware_read) resolved = resolver_.Resolve(o, &unresolved);
    std::vector<FieldError> more =
        internal::BoundsErrors(o, resolved, now_, settings_.max_clock_skew_hours, unknown_);
    if (hardware_read && resolved == nullptr) more.insert(more.begin(), std::move(unresolved));
    for (FieldError& e : more) {
      if (partial->Refused(e.field)) continue;
      errors.push_back(runner_names ? internal::RunnerObservationError(std::move(e))
                                    : std::move(e));
    }
  }
  Reject(line, execution_id, errors, record);
}

void IngestRun::Warn(std::int64_t line, const std::string& execution_id,
                     const std::vector<FieldError>& warnings) {
  for (const FieldError& w : warnings) {
    summary_.warnings.push_back(IngestWarning{line, execution_id, w.field, w.reason});
  }
}

void IngestRun::AddLine(const PendingLine& pending) {
  const std::int64_t line = pending.line;
  const std::string& text = pending.text;
  if (pending.truncated) {
    // Only the first bytes are kept as the rejected record, with its line and
    // length, so that two long lines alike in their first bytes stay two rejects.
    // Cut where no UTF-8 character is split.
    const std::string_view kept = internal::Utf8Prefix(text, 1024);
    Reject(line, "", LineTooLong(pending.length, max_line_bytes_),
           fmt::format("{}... [line {}: {} bytes, only the first {} kept]", kept, line,
                       pending.length, kept.size()));
    return;
  }
  RecordForm read_as = RecordForm::kHwrec;
  std::optional<PartialObservation> partial;
  ObservationParse parsed =
      internal::ParseObservationRecord(text, form_, strict_, &read_as, &partial);
  if (!parsed.errors.empty()) {
    RejectRefused(line, parsed.execution_id, std::move(parsed.errors),
                  partial ? &*partial : nullptr, read_as == RecordForm::kRunner, text);
    return;
  }
  // Warnings are for records kept: one that Add rejects has its reject instead.
  const std::int64_t rejected_before = summary_.rejected;
  runner_record_ = read_as == RecordForm::kRunner;
  Add(line, *parsed.observation, &text);
  runner_record_ = false;
  if (summary_.rejected == rejected_before) Warn(line, parsed.execution_id, parsed.warnings);
}

}  // namespace hwrec::internal
