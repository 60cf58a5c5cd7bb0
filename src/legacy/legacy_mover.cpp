#include "legacy/legacy_mover.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_set>
#include <vector>

#include "base/status_error.h"
#include "ingest/observation_encoding.h"
#include "ingest/record_bounds.h"
#include "record/observation_json.h"

namespace hwrec::internal {

namespace {

std::string AlreadyStoredReason(const std::string& execution_id) {
  return fmt::format(
      "execution '{}' is already stored as an observation: compare the two "
      "and delete the one that is wrong",
      execution_id);
}

ObservationRow RowOf(const PreparedLegacyRow& p) {
  return ObservationRow{p.observation,     p.resolution->resolved, p.gpu_compute_fraction,
                        p.fraction_source, p.profile_id_mismatch,  p.content_hash};
}

}  // namespace

std::optional<Observation> CheckedLegacyObservation(const LegacyRow& row,
                                                    const ResolvedHardware& resolved,
                                                    const LegacyRowBounds& bounds,
                                                    std::string* reason) {
  std::vector<FieldError> errors;
  PartialObservation read;
  std::optional<Observation> o = ToValidObservation(row, &errors, &read.observation);
  // Ingest's own checks: a row it would reject is not stored (nor aggregated,
  // which a rebuild would then disagree with).
  if (o) {
    errors = BoundsErrors(*o, &resolved, bounds.now, bounds.max_clock_skew_hours);
  } else if (row.mistyped.empty()) {
    // Refused for its values: what its good values break is named too, as
    // ingest does (the hardware only when its pool and hardware values are good).
    for (const FieldError& e : errors) read.refused.push_back(e.field);
    const bool hardware_read = !read.Refused("node_pool_id") && !read.Refused("hardware");
    for (FieldError& e : BoundsErrors(read.observation, hardware_read ? &resolved : nullptr,
                                      bounds.now, bounds.max_clock_skew_hours)) {
      if (!read.Refused(e.field)) errors.push_back(std::move(e));
    }
  }
  if (errors.empty()) return o;
  *reason = JoinedReasons(errors);
  return std::nullopt;
}

void PrepareLegacyRow(const LegacyRow& row, std::shared_ptr<const LegacyResolution> resolution,
                      const LegacyRowBounds& bounds, PreparedLegacyRow* out, std::string* scratch) {
  out->stored = false;
  out->storable = false;
  out->resolution = std::move(resolution);
  const LegacyResolution& r = *out->resolution;
  // A value of the wrong type is named first: the route was found from its
  // converted value.
  if (r.route == LegacyRoute::kQuarantine && row.mistyped.empty()) {
    out->code = r.reason_code;
    out->reason = r.reason;
    return;
  }
  std::optional<Observation> o = CheckedLegacyObservation(row, r.resolved, bounds, &out->reason);
  if (!o) {
    out->code = kInvalidField;
    return;
  }
  out->observation = std::move(*o);
  const Observation& obs = out->observation;
  const bool stamped = obs.gpu_compute_fraction.has_value();
  out->gpu_compute_fraction = stamped ? obs.gpu_compute_fraction : r.resolved.mode_fraction;
  out->fraction_source = stamped ? FractionSource::kStamped : r.resolved.mode_source;
  out->profile_id_mismatch =
      obs.hardware_profile_id &&
      ProfileIdVersionOf(*obs.hardware_profile_id) == ProfileIdVersion::kV1 &&
      *obs.hardware_profile_id != r.resolved.hp_v1;
  out->content_hash = ContentHash(obs, scratch);
  out->aggregate = AggregateInputOf(RowOf(*out), 0, 0);
  out->storable = true;
}

LegacyMover::LegacyMover(store::Connection& db, const LegacyRowBounds& bounds,
                         AggregateWriter* aggregates)
    : aggregates_(aggregates), bounds_(bounds), writer_(db, "legacy-migration") {
  writer_.set_now(bounds.now);
}

bool LegacyMover::TryStore(const LegacyRow& row, std::shared_ptr<const LegacyResolution> resolution,
                           std::string* code, std::string* reason) {
  PrepareLegacyRow(row, std::move(resolution), bounds_, &prepared_, &scratch_);
  const bool stored = prepared_.storable && Store(&prepared_);
  if (!stored) {
    *code = prepared_.code;
    *reason = prepared_.reason;
    return false;
  }
  if (aggregates_ != nullptr) aggregates_->Add(prepared_.aggregate);
  return true;
}

bool LegacyMover::Store(PreparedLegacyRow* p) {
  if (writer_.Insert(RowOf(*p)) != InsertOutcome::kInserted) {
    p->code = kAlreadyStored;
    p->reason = AlreadyStoredReason(p->observation.execution_id);
    p->stored = false;
    return false;
  }
  p->aggregate.workload_id = writer_.last_workload_id();
  p->aggregate.observation_id = writer_.last_observation_id();
  p->stored = true;
  return true;
}

// The batch being written, as the two tables the inserts read: the rows to
// store as observations and the rows to quarantine, each a list of indices
// into the batch in legacy order.
class LegacyBatchWriter::Batch {
 public:
  explicit Batch(double now) : observations(this), quarantine(this), now_(now) {}

  void Reset(const LegacyRow* rows, PreparedLegacyRow* prepared) {
    rows_ = rows;
    prepared_ = prepared;
    observations.index.clear();
    quarantine.index.clear();
  }
  PreparedLegacyRow& prepared(std::size_t i) { return prepared_[i]; }

  struct Observations : RowSource {
    explicit Observations(const Batch* b) : batch(b) {}
    std::size_t RowCount() const override { return index.size(); }
    void Values(std::size_t row, SqlValue* values) const override {
      const PreparedLegacyRow& p = batch->prepared_[index[row]];
      ObservationValues(RowOf(p), p.aggregate.workload_id, batch->now_, values);
    }
    const Batch* batch;
    std::vector<std::size_t> index;
  } observations;

  struct Quarantine : RowSource {
    explicit Quarantine(const Batch* b) : batch(b) {}
    std::size_t RowCount() const override { return index.size(); }
    void Values(std::size_t row, SqlValue* values) const override {
      const std::size_t i = index[row];
      LegacyValues(batch->rows_[i], values);
      const PreparedLegacyRow& p = batch->prepared_[i];
      values[kLegacyColumnCount] = SqlValue::Text(p.code);
      values[kLegacyColumnCount + 1] = SqlValue::Text(p.reason);
      values[kLegacyColumnCount + 2] = SqlValue::Real(batch->now_);
    }
    const Batch* batch;
    std::vector<std::size_t> index;
  } quarantine;

 private:
  const double now_;
  const LegacyRow* rows_ = nullptr;
  PreparedLegacyRow* prepared_ = nullptr;
};

namespace {

constexpr const char* kObservationBatchTable = "hwrec_legacy_batch_observations";
constexpr const char* kQuarantineBatchTable = "hwrec_legacy_batch_quarantine";

std::vector<std::string> QuarantineColumns() {
  std::vector<std::string> names = ColumnListNames(fmt::format("legacy_{}", kLegacyColumns));
  for (const char* name : {"reason_code", "reason", "quarantined_at"}) names.emplace_back(name);
  return names;
}

}  // namespace

LegacyBatchWriter::LegacyBatchWriter(store::Connection& db, double now, std::string store_path)
    : db_(db),
      store_path_(std::move(store_path)),
      batch_(std::make_unique<Batch>(now)),
      writer_(db, "legacy-migration"),
      observation_table_(std::make_unique<RowSourceTable>(
          db, kObservationBatchTable, ColumnListNames(kObservationColumns), &batch_->observations)),
      quarantine_table_(std::make_unique<RowSourceTable>(db, kQuarantineBatchTable,
                                                         QuarantineColumns(), &batch_->quarantine)),
      // `WHERE true` lets SQLite tell the upsert clause from a join's ON.
      insert_observations_(
          db.Prepare(fmt::format("INSERT INTO observations ({0}) SELECT {0} FROM {1} "
                                 "WHERE true ON CONFLICT (execution_id) DO NOTHING",
                                 kObservationColumns, kObservationBatchTable))),
      insert_quarantine_(
          db.Prepare(fmt::format("INSERT INTO legacy_quarantine (legacy_{0}, reason_code, "
                                 "reason, quarantined_at) SELECT * FROM {1}",
                                 kLegacyColumns, kQuarantineBatchTable))),
      last_id_(db.Prepare("SELECT coalesce(max(id), 0) FROM observations")),
      stored_id_(db.Prepare("SELECT id FROM observations WHERE execution_id = ?1")) {
  writer_.set_now(now);
}

LegacyBatchWriter::~LegacyBatchWriter() = default;

std::size_t LegacyBatchWriter::Store(const LegacyRow* rows, PreparedLegacyRow* prepared,
                                     std::size_t n) {
  Batch& batch = *batch_;
  batch.Reset(rows, prepared);
  for (std::size_t i = 0; i < n; ++i) {
    PreparedLegacyRow& p = prepared[i];
    p.stored = false;
    if (!p.storable) {
      batch.quarantine.index.push_back(i);
      continue;
    }
    const std::optional<std::int64_t> workload_id = writer_.WorkloadFor(RowOf(p));
    if (!workload_id) {
      p.code = kAlreadyStored;
      p.reason = AlreadyStoredReason(p.observation.execution_id);
      batch.quarantine.index.push_back(i);
      continue;
    }
    p.aggregate.workload_id = *workload_id;
    batch.observations.index.push_back(i);
  }
  std::size_t stored = 0;
  if (!batch.observations.index.empty()) {
    last_id_->Reset();
    last_id_->Step();
    const std::int64_t last_id_before = last_id_->Int64(0);
    last_id_->Reset();  // no read left open while the insert writes
    const auto inserted = static_cast<std::size_t>(insert_observations_->Run());
    if (inserted == batch.observations.index.size()) {
      // One INSERT ... SELECT under the write lock gives its rows consecutive
      // ids in the order it reads them, the batch's order, ending at the last one.
      std::int64_t id = db_.LastInsertId() - static_cast<std::int64_t>(inserted);
      for (std::size_t i : batch.observations.index) {
        batch.prepared(i).stored = true;
        batch.prepared(i).aggregate.observation_id = ++id;
      }
    } else {
      SortOutAlreadyStored(last_id_before);
    }
    stored = inserted;
    const auto marked = static_cast<std::size_t>(
        std::count_if(prepared, prepared + n, [](const PreparedLegacyRow& p) { return p.stored; }));
    if (marked != inserted) {
      throw StatusError(Status::Internal(
          fmt::format("{}: the legacy batch stored {} observations but {} rows were found stored",
                      store_path_, inserted, marked)));
    }
  }
  if (!batch.quarantine.index.empty()) {
    insert_quarantine_->Run();
  }
  return stored;
}

void LegacyBatchWriter::SortOutAlreadyStored(std::int64_t last_id_before) {
  Batch& batch = *batch_;
  std::unordered_set<std::int64_t> claimed;
  for (std::size_t i : batch.observations.index) {
    PreparedLegacyRow& p = batch.prepared(i);
    stored_id_->Reset();
    stored_id_->BindTextView(1, p.observation.execution_id);
    const std::int64_t id = stored_id_->Step() ? stored_id_->Int64(0) : 0;
    // site_observations holds each execution once, so an id at or below
    // last_id_before was stored before this batch; were an execution repeated,
    // the first row (rows go in in batch order) would hold its id.
    p.stored = id > last_id_before && claimed.insert(id).second;
    if (p.stored) p.aggregate.observation_id = id;
    if (!p.stored) {
      p.code = kAlreadyStored;
      p.reason = AlreadyStoredReason(p.observation.execution_id);
      batch.quarantine.index.push_back(i);
    }
  }
  stored_id_->Reset();
  std::sort(batch.quarantine.index.begin(), batch.quarantine.index.end());
}

}  // namespace hwrec::internal
