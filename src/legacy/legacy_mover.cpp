#include "legacy/legacy_mover.h"

#include <fmt/format.h>

#include "ingest/observation_encoding.h"
#include "store/sqlite_util.h"

namespace hwrec::internal {

namespace {

std::string InsertQuarantineSql() {
  std::string params;
  for (int i = 1; i <= kLegacyColumnCount + 3; ++i) params += i == 1 ? "?" : ", ?";
  // The legacy id goes to legacy_id; the quarantine numbers its rows itself.
  return fmt::format(
      "INSERT INTO legacy_quarantine (legacy_{}, reason_code, reason, quarantined_at) "
      "VALUES ({})",
      kLegacyColumns, params);
}

}  // namespace

void PrepareLegacyRow(const LegacyRow& row, std::shared_ptr<const LegacyResolution> resolution,
                      PreparedLegacyRow* out, std::string* scratch) {
  out->stored = false;
  out->storable = false;
  out->resolution = std::move(resolution);
  const LegacyResolution& r = *out->resolution;
  if (r.route == LegacyRoute::kQuarantine) {
    out->code = r.reason_code;
    out->reason = r.reason;
    return;
  }
  FieldError error;
  std::optional<Observation> o = ToObservation(row, &error);
  if (o) {
    if (auto invalid = ValidateObservation(*o)) {
      error = *invalid;
      o.reset();
    }
  }
  if (!o) {
    out->code = kInvalidField;
    out->reason = fmt::format("{}: {}", error.field, error.reason);
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
  out->aggregate = AggregateInputOf(
      ObservationRow{obs, r.resolved, out->gpu_compute_fraction, out->fraction_source,
                     out->profile_id_mismatch, out->content_hash},
      0);
  out->storable = true;
}

LegacyMover::LegacyMover(SQLite::Database& db, double now, AggregateWriter* aggregates)
    : db_(db),
      now_(now),
      aggregates_(aggregates),
      writer_(db, "legacy-migration"),
      insert_quarantine_(db, InsertQuarantineSql()) {
  writer_.set_now(now);
}

bool LegacyMover::TryStore(const LegacyRow& row, std::shared_ptr<const LegacyResolution> resolution,
                           std::string* code, std::string* reason) {
  PrepareLegacyRow(row, std::move(resolution), &prepared_, &scratch_);
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
  const ObservationRow row{p->observation,     p->resolution->resolved, p->gpu_compute_fraction,
                           p->fraction_source, p->profile_id_mismatch,  p->content_hash};
  if (writer_.Insert(row) != InsertOutcome::kInserted) {
    p->code = kAlreadyStored;
    p->reason = fmt::format(
        "execution '{}' is already stored as an observation: compare the two "
        "and delete the one that is wrong",
        p->observation.execution_id);
    p->stored = false;
    return false;
  }
  p->aggregate.workload_id = writer_.last_workload_id();
  p->stored = true;
  return true;
}

void LegacyMover::Quarantine(const LegacyRow& row, const std::string& code,
                             const std::string& reason) {
  SQLite::Statement& s = insert_quarantine_;
  s.reset();
  BindLegacyRow(s, 1, row);
  s.bind(kLegacyColumnCount + 1, code);
  s.bind(kLegacyColumnCount + 2, reason);
  s.bind(kLegacyColumnCount + 3, now_);
  s.exec();
}

}  // namespace hwrec::internal
