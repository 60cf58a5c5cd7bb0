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

#include "hwrec/catalog.h"
#include "hwrec/node_pool.h"
#include "hwrec/store.h"
#include "ingest/hardware_resolver.h"
#include "ingest/observation_encoding.h"
#include "ingest/observation_writer.h"
#include "recommend/aggregator.h"
#include "recommend/recommend_internal.h"
#include "recommend/settings.h"
#include "store/sqlite_util.h"
#include "util/json_fields.h"
#include "util/text.h"

namespace hwrec {

namespace {

using internal::HardwareResolver;
using internal::InsertOutcome;
using internal::ObservationWriter;
using internal::ResolvedHardware;

// The execution id of a rejected line, when the line is JSON that has one.
std::string ReadableExecutionId(const std::string& line) {
  auto parsed = internal::ParseJsonRecord(line);
  if (const auto* object = std::get_if<nlohmann::json>(&parsed)) {
    auto it = object->find("execution_id");
    if (it != object->end() && it->is_string()) return it->get<std::string>();
  }
  return {};
}

// One Ingest call: the catalog, pools and statements it loads once, and the
// summary it builds. Transactions are opened by the caller around each chunk.
class IngestRun {
 public:
  IngestRun(SQLite::Database& db, const IngestOptions& options, HardwareResolver resolver,
            internal::RecommenderSettings settings)
      : db_(db),
        resolver_(std::move(resolver)),
        writer_(db, options.source),
        settings_(std::move(settings)),
        aggregates_(db, settings_) {}

  static Result<std::unique_ptr<IngestRun>> Start(Store& store, const IngestOptions& options);

  void BeginChunk() { writer_.set_now(internal::NowEpochSeconds()); }
  // Writes what the chunk's records derive: aggregates and the recommendations
  // of the keys they touched. Inside the chunk's transaction, before commit.
  void FinishChunk();
  // `raw` is the line as received, or nullptr for a record built in C++.
  void Add(std::int64_t line, const Observation& observation, const std::string* raw);
  void Reject(std::int64_t line, const std::string& execution_id, const FieldError& error,
              const std::string& record);

  // Reports a commit through `line` to the caller's callback, if any, once per line reached.
  void Committed(const IngestOptions& options, std::int64_t line);

  IngestSummary& summary() { return summary_; }

 private:
  SQLite::Database& db_;
  HardwareResolver resolver_;
  ObservationWriter writer_;
  internal::RecommenderSettings settings_;
  internal::AggregateWriter aggregates_;
  IngestSummary summary_;
  std::string content_key_;  // reused for every record
  std::int64_t batches_ = 0;
  std::int64_t reported_line_ = 0;
};

Result<std::unique_ptr<IngestRun>> IngestRun::Start(Store& store, const IngestOptions& options) {
  if (options.batch_size == 0) {
    return Status::InvalidArgument("ingest batch_size is 0: give at least 1 record per batch");
  }
  if (Status writable = store.CheckWritable(); !writable.ok()) return writable;
  auto catalog = GpuCatalog::Load(store);
  if (!catalog.ok()) return catalog.status();
  auto pools = ListNodePools(store);
  if (!pools.ok()) return pools.status();
  SQLite::Database& db = internal::StoreAccess::Db(store);
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
  if (resolved == nullptr) {
    Reject(line, o.execution_id, error, record_text());
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
  writer_.RecordReject(line, execution_id, error, record);
  ++summary_.rejected;
  summary_.rejects.push_back(IngestReject{line, execution_id, error.field, error.reason});
}

Status StoppedAt(const IngestOptions& options, std::int64_t chunk_first_line,
                 const std::exception& e) {
  return Status::IoError(fmt::format(
      "{}: ingest stopped in the batch starting at line {}: {}: the batches before it are "
      "stored; fix the cause and ingest again (stored records are recognised as duplicates)",
      options.source, chunk_first_line, e.what()));
}

}  // namespace

IngestSummary& IngestSummary::operator+=(const IngestSummary& other) {
  accepted += other.accepted;
  duplicates += other.duplicates;
  conflicts += other.conflicts;
  rejected += other.rejected;
  profile_id_mismatches += other.profile_id_mismatches;
  rejects.insert(rejects.end(), other.rejects.begin(), other.rejects.end());
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
  return internal::Guarded("ingest " + options.source, [&]() -> Result<IngestSummary> {
    auto run = IngestRun::Start(impl_->store, options);
    if (!run.ok()) return run.status();
    SQLite::Database& db = internal::StoreAccess::Db(impl_->store);
    const std::size_t total = observations.size();
    for (std::size_t first = 0; first < total; first += options.batch_size) {
      const std::size_t end = std::min(total, first + options.batch_size);
      try {
        internal::WriteTransaction transaction(db);
        (*run)->BeginChunk();
        for (std::size_t i = first; i < end; ++i) {
          const auto line = static_cast<std::int64_t>(i + 1);
          if (auto error = ValidateObservation(observations[i])) {
            (*run)->Reject(line, observations[i].execution_id, *error,
                           internal::ObservationToJson(observations[i]));
          } else {
            (*run)->Add(line, observations[i], nullptr);
          }
        }
        (*run)->FinishChunk();
        transaction.Commit();
      } catch (const std::exception& e) {
        return StoppedAt(options, static_cast<std::int64_t>(first + 1), e);
      }
      (*run)->Committed(options, static_cast<std::int64_t>(end));
    }
    return std::move((*run)->summary());
  });
}

Result<IngestSummary> Ingestor::IngestJsonLines(std::istream& in) {
  const IngestOptions& options = impl_->options;
  return internal::Guarded("ingest " + options.source, [&]() -> Result<IngestSummary> {
    auto run = IngestRun::Start(impl_->store, options);
    if (!run.ok()) return run.status();
    SQLite::Database& db = internal::StoreAccess::Db(impl_->store);
    std::string text;
    std::int64_t line = 0;
    while (in) {
      const std::int64_t chunk_first_line = line + 1;
      try {
        internal::WriteTransaction transaction(db);
        (*run)->BeginChunk();
        std::size_t records = 0;
        while (records < options.batch_size && std::getline(in, text)) {
          ++line;
          if (!text.empty() && text.back() == '\r') text.pop_back();
          if (internal::Trim(text).empty()) continue;
          ++records;
          auto parsed = ParseObservationJson(text);
          if (auto* error = std::get_if<FieldError>(&parsed)) {
            (*run)->Reject(line, ReadableExecutionId(text), *error, text);
          } else {
            (*run)->Add(line, std::get<Observation>(parsed), &text);
          }
        }
        (*run)->FinishChunk();
        transaction.Commit();
      } catch (const std::exception& e) {
        return StoppedAt(options, chunk_first_line, e);
      }
      (*run)->Committed(options, line);
    }
    if (in.bad()) {
      return Status::IoError(
          fmt::format("{}: reading failed after line {}: the lines before "
                      "it are stored; check the input and ingest again",
                      options.source, line));
    }
    return std::move((*run)->summary());
  });
}

}  // namespace hwrec
