#include "ingest/observation_writer.h"

#include <cstring>
#include <stdexcept>

namespace hwrec::internal {

namespace {

constexpr const char* kInsertObservation =
    "INSERT INTO observations (execution_id, workload_id, finished_at, site_id, node_pool_id, "
    "status, duration_s, instance_type, architecture, cpu_millicores, memory_bytes, gpu_count, "
    "gpu_mode, gpu_total, gpu_brand, gpu_model, hp_v1, hp_v2, sent_profile_id, "
    "profile_id_mismatch, gpu_compute_fraction, fraction_source, gpu_utilization, "
    "gpu_memory_peak_gb, cpu_millicores_avg, cpu_millicores_p95, cpu_millicores_max, "
    "memory_peak_bytes, requested_cpu_millicores, requested_memory_bytes, "
    "requested_gpu_memory_gb, requested_gpu_compute_fraction, content_hash, ingested_at) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, "
    "?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33, ?34) "
    "ON CONFLICT (execution_id) DO NOTHING";

// Binds without copying: every statement here is stepped before its values change.
void BindText(SQLite::Statement& statement, int index, const std::optional<std::string>& value) {
  if (value) {
    statement.bindNoCopy(index, *value);
  } else {
    statement.bind(index);
  }
}

void BindText(SQLite::Statement& statement, int index, const std::string& value) {
  statement.bindNoCopy(index, value);
}

template <typename T>
void BindNumber(SQLite::Statement& statement, int index, const std::optional<T>& value) {
  if (value) {
    statement.bind(index, *value);
  } else {
    statement.bind(index);
  }
}

}  // namespace

AggregateInput AggregateInputOf(const ObservationRow& row, std::int64_t workload_id) {
  const Observation& o = row.observation;
  const HardwareProfile& h = row.resolved.hardware;
  auto as_double = [](const std::optional<std::int64_t>& v) -> std::optional<double> {
    if (!v) return std::nullopt;
    return static_cast<double>(*v);
  };
  AggregateInput in;
  in.workload_id = workload_id;
  in.finished_at = o.finished_at;
  in.status = o.status;
  in.gpu_brand = h.gpu_brand.value_or("");
  in.gpu_model = h.gpu_model.value_or("");
  in.instance_type = h.instance_type.value_or("");
  in.has_gpu = h.gpu_count.value_or(0) > 0 || h.gpu_mode.has_value();
  in.instance_memory_bytes = as_double(h.memory_bytes);
  in.card_memory_gb = row.resolved.card_memory_gb;
  in.cpu_avg = o.cpu_millicores_avg;
  in.cpu_p95 = o.cpu_millicores_p95;
  in.cpu_max = o.cpu_millicores_max;
  in.memory_peak_bytes = as_double(o.memory_peak_bytes);
  in.gpu_memory_peak_gb = o.gpu_memory_peak_gb;
  in.gpu_compute_fraction = row.gpu_compute_fraction;
  in.gpu_utilization = o.gpu_utilization;
  in.requested_memory_bytes = as_double(o.requested.memory_bytes);
  in.requested_gpu_memory_gb = o.requested.gpu_memory_gb;
  return in;
}

ObservationWriter::ObservationWriter(SQLite::Database& db, std::string source)
    : db_(db),
      source_(std::move(source)),
      insert_observation_(db, kInsertObservation),
      stored_hash_(db, "SELECT content_hash FROM observations WHERE execution_id = ?1"),
      insert_workload_(db, "INSERT OR IGNORE INTO workloads (image) VALUES (?1)"),
      select_workload_(db, "SELECT id FROM workloads WHERE image = ?1"),
      insert_reject_(db,
                     "INSERT INTO ingest_rejects (source, line, execution_id, field, reason, "
                     "record, rejected_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"),
      insert_conflict_(db,
                       "INSERT INTO ingest_conflicts (execution_id, source, line, record, "
                       "seen_at) VALUES (?1, ?2, ?3, ?4, ?5)") {}

InsertOutcome ObservationWriter::Insert(const ObservationRow& row) {
  const Observation& o = row.observation;
  std::int64_t workload_id = 0;
  if (auto cached = workload_ids_.find(o.action_image); cached != workload_ids_.end()) {
    workload_id = cached->second;
  } else {
    // A re-sent record must not create a workload: look for the execution first.
    if (auto stored = CompareStored(o.execution_id, row.content_hash)) return *stored;
    workload_id = CreateWorkload(o.action_image);
  }
  BindObservation(row, workload_id);
  if (insert_observation_.exec() == 1) {
    last_workload_id_ = workload_id;
    return InsertOutcome::kInserted;
  }
  if (auto stored = CompareStored(o.execution_id, row.content_hash)) return *stored;
  throw std::logic_error("observation " + o.execution_id + " was neither inserted nor found");
}

std::int64_t ObservationWriter::CreateWorkload(const std::string& image) {
  std::int64_t id = 0;
  insert_workload_.reset();
  BindText(insert_workload_, 1, image);
  if (insert_workload_.exec() == 1) {
    id = db_.getLastInsertRowid();
  } else {
    select_workload_.reset();
    BindText(select_workload_, 1, image);
    if (!select_workload_.executeStep()) {
      throw std::logic_error("workload " + image + " was neither inserted nor found");
    }
    id = select_workload_.getColumn(0).getInt64();
  }
  workload_ids_.emplace(image, id);
  return id;
}

std::optional<InsertOutcome> ObservationWriter::CompareStored(const std::string& execution_id,
                                                              const Sha256Digest& hash) {
  stored_hash_.reset();
  BindText(stored_hash_, 1, execution_id);
  if (!stored_hash_.executeStep()) return std::nullopt;
  const SQLite::Column stored = stored_hash_.getColumn(0);
  const bool same = static_cast<std::size_t>(stored.getBytes()) == hash.size() &&
                    std::memcmp(stored.getBlob(), hash.data(), hash.size()) == 0;
  return same ? InsertOutcome::kDuplicate : InsertOutcome::kConflict;
}

void ObservationWriter::BindObservation(const ObservationRow& row, std::int64_t workload_id) {
  const Observation& o = row.observation;
  const HardwareProfile& h = row.resolved.hardware;
  SQLite::Statement& s = insert_observation_;
  s.reset();
  BindText(s, 1, o.execution_id);
  s.bind(2, workload_id);
  s.bind(3, o.finished_at);
  BindText(s, 4, o.site_id);
  BindText(s, 5, o.node_pool_id);
  s.bind(6, std::string(ToString(o.status)));
  BindNumber(s, 7, o.duration_s);
  BindText(s, 8, h.instance_type);
  BindText(s, 9, h.architecture);
  BindNumber(s, 10, h.cpu_millicores);
  BindNumber(s, 11, h.memory_bytes);
  BindNumber(s, 12, h.gpu_count);
  BindText(s, 13, h.gpu_mode);
  BindNumber(s, 14, h.gpu_total);
  BindText(s, 15, h.gpu_brand);
  BindText(s, 16, h.gpu_model);
  BindText(s, 17, row.resolved.hp_v1);
  BindText(s, 18, row.resolved.hp_v2);
  BindText(s, 19, o.hardware_profile_id);
  s.bind(20, row.profile_id_mismatch ? 1 : 0);
  BindNumber(s, 21, row.gpu_compute_fraction);
  s.bind(22, std::string(ToString(row.fraction_source)));
  BindNumber(s, 23, o.gpu_utilization);
  BindNumber(s, 24, o.gpu_memory_peak_gb);
  BindNumber(s, 25, o.cpu_millicores_avg);
  BindNumber(s, 26, o.cpu_millicores_p95);
  BindNumber(s, 27, o.cpu_millicores_max);
  BindNumber(s, 28, o.memory_peak_bytes);
  BindNumber(s, 29, o.requested.cpu_millicores);
  BindNumber(s, 30, o.requested.memory_bytes);
  BindNumber(s, 31, o.requested.gpu_memory_gb);
  BindNumber(s, 32, o.requested.gpu_compute_fraction);
  s.bindNoCopy(33, row.content_hash.data(), static_cast<int>(row.content_hash.size()));
  s.bind(34, now_);
}

void ObservationWriter::RecordReject(std::int64_t line, const std::string& execution_id,
                                     const FieldError& error, const std::string& record) {
  SQLite::Statement& s = insert_reject_;
  s.reset();
  BindText(s, 1, source_);
  s.bind(2, line);
  if (execution_id.empty()) {
    s.bind(3);
  } else {
    BindText(s, 3, execution_id);
  }
  BindText(s, 4, error.field);
  BindText(s, 5, error.reason);
  BindText(s, 6, record);
  s.bind(7, now_);
  s.exec();
}

void ObservationWriter::RecordConflict(std::int64_t line, const std::string& execution_id,
                                       const std::string& record) {
  SQLite::Statement& s = insert_conflict_;
  s.reset();
  BindText(s, 1, execution_id);
  BindText(s, 2, source_);
  s.bind(3, line);
  BindText(s, 4, record);
  s.bind(5, now_);
  s.exec();
}

}  // namespace hwrec::internal
