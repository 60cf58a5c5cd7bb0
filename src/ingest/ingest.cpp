#include "hwrec/ingest.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "aggregate/aggregator.h"
#include "aggregate/materialize.h"
#include "aggregate/settings.h"
#include "base/line_reader.h"
#include "base/text.h"
#include "base/time.h"
#include "hwrec/catalog.h"
#include "hwrec/node_pool.h"
#include "hwrec/store.h"
#include "ingest/hardware_resolver.h"
#include "ingest/observation_encoding.h"
#include "ingest/observation_writer.h"
#include "ingest/record_bounds.h"
#include "record/runner_records.h"
#include "store/database.h"
#include "store/guarded.h"

namespace hwrec {

namespace {

using internal::HardwareResolver;
using internal::InsertOutcome;
using internal::ObservationWriter;
using internal::ResolvedHardware;

// Every problem of a record as one error: the first field, and a reason that
// lists each problem ("field: reason; field: reason") when there are several.
FieldError Combined(const std::vector<FieldError>& errors) {
  if (errors.size() == 1) return errors.front();
  std::string reason;
  for (const FieldError& e : errors) {
    reason += (reason.empty() ? "" : "; ") + e.field + ": " + e.reason;
  }
  return FieldError{errors.front().field, std::move(reason)};
}

// How far a line is over the limit, and how to raise the limit.
FieldError LineTooLong(std::size_t length, std::size_t max_line_bytes) {
  return FieldError{
      "json", fmt::format("the line is {} bytes, {} bytes over the limit of {}: send one record "
                          "per line, or raise the limit (hwrec ingest --max-line-bytes, "
                          "IngestOptions::max_line_bytes)",
                          length, length - max_line_bytes, max_line_bytes)};
}

// A line read before its batch's transaction begins.
struct PendingLine {
  std::int64_t line = 0;
  std::string text;        // at most max_line_bytes bytes
  std::size_t length = 0;  // bytes of the whole line, its ending excluded
  bool truncated = false;  // longer than max_line_bytes
};

// One Ingest call: the catalog, pools and statements it loads once, and the
// summary it builds. Transactions are opened by the caller around each chunk.
class IngestRun {
 public:
  IngestRun(store::Connection& db, const IngestOptions& options, HardwareResolver resolver,
            internal::RecommenderSettings settings)
      : strict_(options.strict),
        form_(options.form),
        max_line_bytes_(options.max_line_bytes),
        db_(db),
        resolver_(std::move(resolver)),
        writer_(db, options.source),
        settings_(std::move(settings)),
        aggregates_(db, settings_) {}

  static Result<std::unique_ptr<IngestRun>> Start(Store& store, const IngestOptions& options);

  void BeginChunk() {
    now_ = internal::NowEpochSeconds();
    writer_.set_now(now_);
  }
  // Writes what the chunk's records derive: aggregates and the recommendations
  // of the keys they touched. Inside the chunk's transaction, before commit.
  void FinishChunk();
  // `raw` is the line as received, or nullptr for a record built in C++.
  void Add(std::int64_t line, const Observation& observation, const std::string* raw);
  void Reject(std::int64_t line, const std::string& execution_id, const FieldError& error,
              const std::string& record);
  void Reject(std::int64_t line, const std::string& execution_id,
              const std::vector<FieldError>& errors, const std::string& record);
  void Warn(std::int64_t line, const std::string& execution_id,
            const std::vector<FieldError>& warnings);
  // Parses one JSON line as read and adds or rejects it.
  void AddLine(const PendingLine& pending);

  // Reports a commit through `line` to the caller's callback, if any, once per line reached.
  void Committed(const IngestOptions& options, std::int64_t line);

  IngestSummary& summary() { return summary_; }

 private:
  bool strict_;
  RecordForm form_;
  bool runner_record_ = false;  // the record being added was in the Runner's form
  std::size_t max_line_bytes_;
  store::Connection& db_;
  HardwareResolver resolver_;
  ObservationWriter writer_;
  internal::RecommenderSettings settings_;
  internal::AggregateWriter aggregates_;
  IngestSummary summary_;
  std::string content_key_;  // reused for every record
  double now_ = 0;           // the store's clock for this chunk
  std::int64_t batches_ = 0;
  std::int64_t reported_line_ = 0;
};

Result<std::unique_ptr<IngestRun>> IngestRun::Start(Store& store, const IngestOptions& options) {
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
  if (Status writable = store.CheckWritable(); !writable.ok()) return writable;
  auto catalog = GpuCatalog::Load(store);
  if (!catalog.ok()) return catalog.status();
  auto pools = ListNodePools(store);
  if (!pools.ok()) return pools.status();
  store::Connection& db = store::ConnectionOf(store);
  internal::RecommenderSettings settings = internal::LoadSettings(db);
  HardwareResolver resolver(std::move(catalog).value(), *pools, settings.total_compute_slices);
  return std::make_unique<IngestRun>(db, options, std::move(resolver), std::move(settings));
}

void IngestRun::FinishChunk() {
  aggregates_.Flush();
  std::set<internal::MaterialKey> touched;
  for (auto& key : aggregates_.TakeTouched()) touched.insert(key);
  internal::MaterializeRecommendations(db_, touched, internal::NowEpochSeconds());
}

// The one path of an accepted record: resolve, hash, insert, count.
void IngestRun::Add(std::int64_t line, const Observation& o, const std::string* raw) {
  auto record_text = [&] { return raw != nullptr ? *raw : internal::ObservationToJson(o); };
  FieldError error;
  const ResolvedHardware* resolved = resolver_.Resolve(o, &error);
  std::optional<FieldError> implausible;
  if (resolved != nullptr) {
    implausible = internal::CheckFinishedAt(o.finished_at, now_, settings_.max_clock_skew_hours);
    if (!implausible) implausible = internal::CheckWithinHardware(o, *resolved);
  }
  if (resolved == nullptr || implausible) {
    Reject(line, o.execution_id, implausible.value_or(error), record_text());
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
  switch (writer_.Insert(row)) {
    case InsertOutcome::kInserted:
      // Whatever derives from an accepted record is written here, in this transaction.
      aggregates_.Add(AggregateInputOf(row, writer_.last_workload_id()));
      ++summary_.accepted;
      if (row.profile_id_mismatch) ++summary_.profile_id_mismatches;
      if (resolved->pool_unregistered) ++summary_.unresolved_hardware;
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
      IngestReject{line, execution_id, errors.front().field, errors.front().reason, errors});
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
    constexpr std::size_t kKeptBytes = 1024;
    Reject(line, "", LineTooLong(pending.length, max_line_bytes_),
           fmt::format("{}... [line {}: {} bytes, only the first {} kept]",
                       text.substr(0, kKeptBytes), line, pending.length, kKeptBytes));
    return;
  }
  RecordForm read_as = RecordForm::kHwrec;
  ObservationParse parsed = internal::ParseObservationRecord(text, form_, strict_, &read_as);
  if (!parsed.errors.empty()) {
    Reject(line, parsed.execution_id, parsed.errors, text);
    return;
  }
  // Warnings are for records kept: one that Add rejects has its reject instead.
  const std::int64_t rejected_before = summary_.rejected;
  runner_record_ = read_as == RecordForm::kRunner;
  Add(line, *parsed.observation, &text);
  runner_record_ = false;
  if (summary_.rejected == rejected_before) Warn(line, parsed.execution_id, parsed.warnings);
}

// A batch's lines in memory stop at this size even before batch_size records,
// so that a batch of long lines cannot exhaust memory.
constexpr std::size_t kMaxBatchBytes = std::size_t{64} << 20;

// Reads the next batch's lines, before its transaction begins, so that no
// write lock is held while input is awaited: up to batch_size records, fewer
// when the input pauses for commit_after_idle_ms with records in hand. Blank
// lines advance `*line` only. False once the input has ended.
bool ReadBatch(internal::LineReader& reader, const IngestOptions& options,
               std::vector<PendingLine>* batch, std::int64_t* line) {
  batch->clear();
  std::size_t bytes = 0;
  std::string text;
  while (batch->size() < options.batch_size && bytes < kMaxBatchBytes) {
    const int wait_ms = batch->empty() ? -1 : options.commit_after_idle_ms;
    const internal::LineReader::Outcome read = reader.NextWithin(&text, wait_ms);
    if (read == internal::LineReader::Outcome::kPaused) return true;
    if (read == internal::LineReader::Outcome::kEnd) return false;
    ++*line;
    if (!reader.truncated() && internal::Trim(text).empty()) continue;
    bytes += text.size();
    batch->push_back(PendingLine{*line, std::move(text), reader.length(), reader.truncated()});
    text = std::string();
  }
  return true;
}

Status StoppedAt(const IngestOptions& options, std::int64_t chunk_first_line,
                 const std::exception& e) {
  return Status::IoError(fmt::format(
      "{}: ingest stopped in the batch starting at line {}: {}: the batches before it are "
      "stored; fix the cause and ingest again (stored records are recognised as duplicates)",
      options.source, chunk_first_line, e.what()));
}

// The JSON-lines loop of both IngestJsonLines overloads: each batch is read
// whole, then written in one transaction.
Result<IngestSummary> IngestLines(Store& store, const IngestOptions& options,
                                  internal::LineReader& reader) {
  return internal::Guarded(store, "ingest " + options.source, [&]() -> Result<IngestSummary> {
    auto run = IngestRun::Start(store, options);
    if (!run.ok()) return run.status();
    store::Connection& db = store::ConnectionOf(store);
    std::vector<PendingLine> batch;
    std::int64_t line = 0;
    bool more = true;
    while (more) {
      more = ReadBatch(reader, options, &batch, &line);
      if (!batch.empty()) {
        try {
          store::WriteTransaction transaction(db);
          (*run)->BeginChunk();
          for (const PendingLine& pending : batch) (*run)->AddLine(pending);
          (*run)->FinishChunk();
          transaction.Commit();
        } catch (const std::exception& e) {
          if (internal::IsDamage(e)) throw;  // said by Guarded, with `hwrec check`
          return StoppedAt(options, batch.front().line, e);
        }
      }
      (*run)->Committed(options, line);  // blank lines alone need no transaction
    }
    if (reader.failed()) {
      return Status::IoError(
          fmt::format("{}: reading failed after line {}: the lines before "
                      "it are stored; check the input and ingest again",
                      options.source, line));
    }
    return std::move((*run)->summary());
  });
}

}  // namespace

IngestSummary& IngestSummary::operator+=(const IngestSummary& other) {
  accepted += other.accepted;
  duplicates += other.duplicates;
  conflicts += other.conflicts;
  rejected += other.rejected;
  profile_id_mismatches += other.profile_id_mismatches;
  unresolved_hardware += other.unresolved_hardware;
  rejects.insert(rejects.end(), other.rejects.begin(), other.rejects.end());
  warnings.insert(warnings.end(), other.warnings.begin(), other.warnings.end());
  conflict_execution_ids.insert(conflict_execution_ids.end(), other.conflict_execution_ids.begin(),
                                other.conflict_execution_ids.end());
  return *this;
}

struct Ingestor::Impl {
  Store& store;
  IngestOptions options;
};

Ingestor::Ingestor(Store& store, IngestOptions options)
    : impl_(std::make_unique<Impl>(Impl{store, std::move(options)})) {}

Ingestor::~Ingestor() = default;

Result<IngestSummary> Ingestor::Ingest(const std::vector<Observation>& observations) {
  const IngestOptions& options = impl_->options;
  const std::string what = "ingest " + options.source;
  return internal::Guarded(impl_->store, what, [&]() -> Result<IngestSummary> {
    auto run = IngestRun::Start(impl_->store, options);
    if (!run.ok()) return run.status();
    store::Connection& db = store::ConnectionOf(impl_->store);
    const std::size_t total = observations.size();
    for (std::size_t first = 0; first < total; first += options.batch_size) {
      const std::size_t end = std::min(total, first + options.batch_size);
      try {
        store::WriteTransaction transaction(db);
        (*run)->BeginChunk();
        for (std::size_t i = first; i < end; ++i) {
          const auto line = static_cast<std::int64_t>(i + 1);
          const std::vector<FieldError> problems = ObservationProblems(observations[i]);
          if (!problems.empty()) {
            (*run)->Reject(line, observations[i].execution_id, problems,
                           internal::ObservationToJson(observations[i]));
          } else {
            (*run)->Add(line, observations[i], nullptr);
          }
        }
        (*run)->FinishChunk();
        transaction.Commit();
      } catch (const std::exception& e) {
        if (internal::IsDamage(e)) throw;  // said by Guarded, with `hwrec check`
        return StoppedAt(options, static_cast<std::int64_t>(first + 1), e);
      }
      (*run)->Committed(options, static_cast<std::int64_t>(end));
    }
    return std::move((*run)->summary());
  });
}

Result<IngestSummary> Ingestor::IngestJsonLines(std::istream& in) {
  internal::LineReader reader(in, impl_->options.max_line_bytes);
  return IngestLines(impl_->store, impl_->options, reader);
}

Result<IngestSummary> Ingestor::IngestJsonLines(int fd) {
  internal::LineReader reader(fd, impl_->options.max_line_bytes);
  return IngestLines(impl_->store, impl_->options, reader);
}

}  // namespace hwrec
