#include "hwrec/ingest.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/line_reader.h"
#include "base/text.h"
#include "ingest/ingest_run.h"
#include "ingest/observation_encoding.h"
#include "store/database.h"
#include "store/guarded.h"

namespace hwrec {

namespace {

using internal::IngestRun;
using internal::InputsMoved;
using internal::PendingLine;

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

// Writes one batch in one transaction, run again when the engine cancels it
// or the connection is lost: `add` adds the batch's records to `run`. Returns
// what stopped the ingest at the batch starting at `first_line`, or OK.
Status WriteChunk(store::Connection& db, IngestRun& run, const IngestOptions& options,
                  std::int64_t first_line, const std::function<void()>& add) {
  try {
    store::RunWrite(
        db,
        [&] {
          store::WriteTransaction transaction(db, store::LockMode::kKeyLocked);
          run.BeginChunk();
          add();
          run.FinishChunk();
          transaction.Commit();
          run.ChunkCommitted();
        },
        [&] { run.AbandonChunk(); }, store::Rerun::kAlsoAfterLostConnection);
  } catch (const std::exception& e) {
    if (internal::IsDamage(e)) throw;  // said by Guarded, with `hwrec check`
    return StoppedAt(options, first_line, e);
  }
  return Status::Ok();
}

// WriteChunk with `*run`, or, when another writer committed new settings,
// catalog or pools since it began, with a new run that reads them and goes
// on from it: `add` adds the batch's records to the run it is given.
Status WriteChunkOnCurrentInputs(Store& store, const IngestOptions& options,
                                 internal::KeptInputs* kept, std::unique_ptr<IngestRun>* run,
                                 std::int64_t first_line,
                                 const std::function<void(IngestRun&)>& add) {
  store::Connection& db = store::ConnectionOf(store);
  for (;;) {
    try {
      return WriteChunk(db, **run, options, first_line, [&] { add(**run); });
    } catch (const InputsMoved&) {
      (*run)->AbandonChunk();  // rolled back: its counts and kept states go
      auto next = IngestRun::Start(store, options, kept);
      if (!next.ok()) return next.status();
      (*next)->Continue(**run);
      *run = std::move(next).value();
    }
  }
}

// The JSON-lines loop of both IngestJsonLines overloads: each batch is read
// whole, then written in one transaction.
Result<IngestSummary> IngestLines(Store& store, const IngestOptions& options,
                                  internal::KeptInputs* kept, internal::LineReader& reader) {
  return internal::Guarded(store, "ingest " + options.source, [&]() -> Result<IngestSummary> {
    auto started = IngestRun::Start(store, options, kept);
    if (!started.ok()) return started.status();
    std::unique_ptr<IngestRun> run = std::move(started).value();
    std::vector<PendingLine> batch;
    std::int64_t line = 0;
    bool more = true;
    while (more) {
      more = ReadBatch(reader, options, &batch, &line);
      if (!batch.empty()) {
        const Status written = WriteChunkOnCurrentInputs(
            store, options, kept, &run, batch.front().line, [&](IngestRun& to) {
              for (const PendingLine& pending : batch) {
                to.AddLine(pending);
              }
            });
        if (!written.ok()) return written;
      }
      run->Committed(options, line);  // blank lines alone need no transaction
    }
    if (reader.failed()) {
      return Status::IoError(
          fmt::format("{}: reading failed after line {}: the lines before "
                      "it are stored; check the input and ingest again",
                      options.source, line));
    }
    return std::move(run->summary());
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
  retried_batches += other.retried_batches;
  rejects.insert(rejects.end(), other.rejects.begin(), other.rejects.end());
  warnings.insert(warnings.end(), other.warnings.begin(), other.warnings.end());
  conflict_execution_ids.insert(conflict_execution_ids.end(), other.conflict_execution_ids.begin(),
                                other.conflict_execution_ids.end());
  return *this;
}

// Hidden, though its class is exported: only the library reaches it.
struct [[gnu::visibility("hidden")]] Ingestor::Impl {
  Store& store;
  IngestOptions options;
  internal::KeptInputs kept;  // the catalog and settings, between calls
};

Ingestor::Ingestor(Store& store, IngestOptions options)
    : impl_(std::make_unique<Impl>(Impl{store, std::move(options), {}})) {}

Ingestor::~Ingestor() = default;

Result<std::unique_ptr<Ingestor>> Ingestor::Open(Store& store, IngestOptions options) {
  return std::unique_ptr<Ingestor>(new Ingestor(store, std::move(options)));
}

Result<IngestSummary> Ingestor::Ingest(const std::vector<Observation>& observations) {
  const IngestOptions& options = impl_->options;
  const std::string what = "ingest " + options.source;
  return internal::Guarded(impl_->store, what, [&]() -> Result<IngestSummary> {
    auto started = IngestRun::Start(impl_->store, options, &impl_->kept);
    if (!started.ok()) return started.status();
    std::unique_ptr<IngestRun> run = std::move(started).value();
    const std::size_t total = observations.size();
    for (std::size_t first = 0; first < total; first += options.batch_size) {
      const std::size_t end = std::min(total, first + options.batch_size);
      const Status written = WriteChunkOnCurrentInputs(
          impl_->store, options, &impl_->kept, &run, static_cast<std::int64_t>(first + 1),
          [&](IngestRun& to) {
            for (std::size_t i = first; i < end; ++i) {
              const auto line = static_cast<std::int64_t>(i + 1);
              std::vector<FieldError> problems = ObservationProblems(observations[i]);
              if (!problems.empty()) {
                internal::PartialObservation partial{observations[i], {}};
                for (const FieldError& p : problems) partial.refused.push_back(p.field);
                to.RejectRefused(line, observations[i].execution_id, std::move(problems), &partial,
                                 false, ObservationToJson(observations[i]));
              } else {
                to.Add(line, observations[i], nullptr);
              }
            }
          });
      if (!written.ok()) return written;
      run->Committed(options, static_cast<std::int64_t>(end));
    }
    return std::move(run->summary());
  });
}

Result<IngestSummary> Ingestor::IngestJsonLines(std::istream& in) {
  internal::LineReader reader(in, impl_->options.max_line_bytes);
  return IngestLines(impl_->store, impl_->options, &impl_->kept, reader);
}

Result<IngestSummary> Ingestor::IngestJsonLines(int fd) {
  internal::LineReader reader(fd, impl_->options.max_line_bytes);
  return IngestLines(impl_->store, impl_->options, &impl_->kept, reader);
}

}  // namespace hwrec
