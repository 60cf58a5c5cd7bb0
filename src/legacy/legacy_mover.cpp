#include "legacy/legacy_mover.h"

#include <fmt/format.h>

#include <set>

#include "ingest/observation_encoding.h"
#include "recommend/recommend_internal.h"
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

std::optional<double> AsDouble(const std::optional<std::int64_t>& v) {
  if (!v) return std::nullopt;
  return static_cast<double>(*v);
}

// The aggregates' view of one stored row (as ingest builds it).
AggregateInput AggregateInputOf(const ObservationRow& row, std::int64_t workload_id) {
  const Observation& o = row.observation;
  const HardwareProfile& h = row.resolved.hardware;
  AggregateInput in;
  in.workload_id = workload_id;
  in.finished_at = o.finished_at;
  in.status = o.status;
  in.gpu_brand = h.gpu_brand.value_or("");
  in.gpu_model = h.gpu_model.value_or("");
  in.instance_type = h.instance_type.value_or("");
  in.has_gpu = h.gpu_count.value_or(0) > 0 || h.gpu_mode.has_value();
  in.instance_memory_bytes = AsDouble(h.memory_bytes);
  in.card_memory_gb = row.resolved.card_memory_gb;
  in.cpu_avg = o.cpu_millicores_avg;
  in.cpu_p95 = o.cpu_millicores_p95;
  in.cpu_max = o.cpu_millicores_max;
  in.memory_peak_bytes = AsDouble(o.memory_peak_bytes);
  in.gpu_memory_peak_gb = o.gpu_memory_peak_gb;
  in.gpu_compute_fraction = row.gpu_compute_fraction;
  in.gpu_utilization = o.gpu_utilization;
  in.requested_memory_bytes = AsDouble(o.requested.memory_bytes);
  in.requested_gpu_memory_gb = o.requested.gpu_memory_gb;
  return in;
}

}  // namespace

LegacyMover::LegacyMover(SQLite::Database& db, double now, AggregateWriter* aggregates)
    : db_(db),
      now_(now),
      aggregates_(aggregates),
      writer_(db, "legacy-migration"),
      insert_quarantine_(db, InsertQuarantineSql()) {
  writer_.set_now(now);
}

bool LegacyMover::TryStore(const LegacyRow& row, const LegacyResolution& resolution,
                           std::string* code, std::string* reason) {
  if (resolution.route == LegacyRoute::kQuarantine) {
    *code = resolution.reason_code;
    *reason = resolution.reason;
    return false;
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
    *code = kInvalidField;
    *reason = fmt::format("{}: {}", error.field, error.reason);
    return false;
  }
  const ResolvedHardware& resolved = resolution.resolved;
  const bool stamped = o->gpu_compute_fraction.has_value();
  const bool mismatch = o->hardware_profile_id &&
                        ProfileIdVersionOf(*o->hardware_profile_id) == ProfileIdVersion::kV1 &&
                        *o->hardware_profile_id != resolved.hp_v1;
  const Sha256Digest hash = ContentHash(*o, &scratch_);
  const ObservationRow stored{*o,
                              resolved,
                              stamped ? o->gpu_compute_fraction : resolved.mode_fraction,
                              stamped ? FractionSource::kStamped : resolved.mode_source,
                              mismatch,
                              hash};
  if (writer_.Insert(stored) != InsertOutcome::kInserted) {
    *code = kAlreadyStored;
    *reason = fmt::format(
        "execution '{}' is already stored as an observation: compare the two "
        "and delete the one that is wrong",
        row.execution_id);
    return false;
  }
  if (aggregates_ != nullptr)
    aggregates_->Add(AggregateInputOf(stored, writer_.last_workload_id()));
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

std::int64_t RefreshAllRecommendations(SQLite::Database& db) {
  std::set<MaterialKey> keys;
  SQLite::Statement seen(db,
                         "SELECT workload_id, gpu_brand, gpu_model, instance_type, "
                         "gpu_brand = '' AND gpu_model = '' FROM aggregates WHERE scope = 'exact' "
                         "UNION SELECT w.id, coalesce(p.gpu_brand, ''), "
                         "coalesce(p.gpu_model, ''), coalesce(p.instance_type, ''), "
                         "p.gpu_count = 0 FROM workloads w CROSS JOIN node_pools p");
  while (seen.executeStep()) {
    keys.emplace(seen.getColumn(0).getInt64(), seen.getColumn(1).getString(),
                 seen.getColumn(2).getString(), seen.getColumn(3).getString(),
                 seen.getColumn(4).getInt() != 0);
  }
  db.exec("DELETE FROM recommendations");
  MaterializeRecommendations(db, keys, NowEpochSeconds());
  return static_cast<std::int64_t>(keys.size());
}

}  // namespace hwrec::internal
