#include "ingest/observation_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>

#include "base/text.h"

namespace hwrec::internal {

namespace {

std::string InsertObservationSql() {
  std::string sql = "INSERT INTO observations (" + std::string(kObservationColumns) + ") VALUES (";
  for (int i = 1; i <= kObservationColumnCount; ++i) sql += (i == 1 ? "?" : ", ?");
  return sql + ") ON CONFLICT (execution_id) DO NOTHING";
}

// Binds without copying: every statement here is stepped before its values change.
void BindText(store::Statement& statement, int index, const std::string& value) {
  statement.BindTextView(index, value);
}

}  // namespace

AggregateInput AggregateInputOf(const ObservationRow& row, std::int64_t workload_id,
                                std::int64_t observation_id) {
  const Observation& o = row.observation;
  const HardwareProfile& h = row.resolved.hardware;
  auto as_double = [](const std::optional<std::int64_t>& v) -> std::optional<double> {
    if (!v) return std::nullopt;
    return static_cast<double>(*v);
  };
  AggregateInput in;
  in.workload_id = workload_id;
  in.observation_id = observation_id;
  in.finished_at = o.finished_at;
  in.status = o.status;
  in.gpu_brand = h.gpu_brand.value_or("");
  in.gpu_model = h.gpu_model.value_or("");
  in.instance_type = h.instance_type.value_or("");
  in.has_gpu = UsedGpu(h, o.gpu_memory_peak_gb, row.gpu_compute_fraction, o.gpu_count_held);
  in.gpus_held = o.gpu_count_held;
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

void ObservationValues(const ObservationRow& row, std::int64_t workload_id, double ingested_at,
                       SqlValue* values) {
  const Observation& o = row.observation;
  const HardwareProfile& h = row.resolved.hardware;
  SqlValue* v = values;
  *v++ = SqlValue::Text(o.execution_id);
  *v++ = SqlValue::Integer(workload_id);
  *v++ = SqlValue::Real(o.finished_at);
  *v++ = SqlValue::Text(o.site_id);
  *v++ = SqlValue::Text(o.node_pool_id);
  *v++ = SqlValue::Text(ToString(o.status));
  *v++ = SqlValue::Real(o.duration_s);
  *v++ = SqlValue::Text(h.instance_type);
  *v++ = SqlValue::Text(h.architecture);
  *v++ = SqlValue::Integer(h.cpu_millicores);
  *v++ = SqlValue::Integer(h.memory_bytes);
  *v++ = SqlValue::Integer(h.gpu_count);
  *v++ = SqlValue::Text(h.gpu_mode);
  *v++ = SqlValue::Integer(h.gpu_total);
  *v++ = SqlValue::Text(h.gpu_brand);
  *v++ = SqlValue::Text(h.gpu_model);
  *v++ = SqlValue::Text(row.resolved.hp_v1);
  *v++ = SqlValue::Text(row.resolved.hp_v2);
  *v++ = SqlValue::Text(o.hardware_profile_id);
  *v++ = SqlValue::Integer(row.profile_id_mismatch ? 1 : 0);
  *v++ = SqlValue::Real(row.gpu_compute_fraction);
  *v++ = SqlValue::Text(ToString(row.fraction_source));
  *v++ = SqlValue::Real(o.gpu_utilization);
  *v++ = SqlValue::Real(o.gpu_memory_peak_gb);
  *v++ = SqlValue::Real(o.cpu_millicores_avg);
  *v++ = SqlValue::Real(o.cpu_millicores_p95);
  *v++ = SqlValue::Real(o.cpu_millicores_max);
  *v++ = SqlValue::Integer(o.memory_peak_bytes);
  *v++ = SqlValue::Integer(o.requested.cpu_millicores);
  *v++ = SqlValue::Integer(o.requested.memory_bytes);
  *v++ = SqlValue::Real(o.requested.gpu_memory_gb);
  *v++ = SqlValue::Real(o.requested.gpu_compute_fraction);
  *v++ = SqlValue::Blob(row.content_hash.data(), row.content_hash.size());
  *v++ = SqlValue::Real(ingested_at);
  *v++ = SqlValue::Integer(o.gpu_count_held);
}

ObservationWriter::ObservationWriter(store::Connection& db, const std::string& source)
    : db_(db),
      source_(internal::ReplaceInvalidUtf8(source)),  // a file name need not be UTF-8
      insert_observation_(db.PrepareInsert(InsertObservationSql(), "id")),
      stored_hash_(db.Prepare("SELECT content_hash FROM observations WHERE execution_id = ?")),
      insert_workload_(
          db.Prepare("INSERT INTO workloads (image) VALUES (?) ON CONFLICT (image) DO NOTHING")),
      select_workload_(db.Prepare("SELECT id FROM workloads WHERE image = ?")),
      // A record rejected again for the same field stays one row, showing its latest rejection.
      insert_reject_(db.Prepare(
          fmt::format("INSERT INTO ingest_rejects (source, line, execution_id, field, reason, "
                      "record, rejected_at) VALUES (?, ?, ?, ?, ?, ?, ?) "
                      "ON CONFLICT ({}, field) DO UPDATE SET source = excluded.source, "
                      "line = excluded.line, execution_id = excluded.execution_id, "
                      "reason = excluded.reason, rejected_at = excluded.rejected_at",
                      db.LongTextKey("record")))),
      // The same re-sent record seen again stays one row, showing when it was last seen.
      insert_conflict_(db.Prepare(
          fmt::format("INSERT INTO ingest_conflicts (execution_id, source, line, record, "
                      "seen_at) VALUES (?, ?, ?, ?, ?) "
                      "ON CONFLICT (execution_id, {}) DO UPDATE SET source = "
                      "excluded.source, line = excluded.line, seen_at = excluded.seen_at",
                      db.LongTextKey("record")))) {}

std::optional<std::int64_t> ObservationWriter::WorkloadFor(const ObservationRow& row) {
  std::optional<InsertOutcome> stored;
  return ResolveWorkload(row, &stored);
}

std::optional<std::int64_t> ObservationWriter::ResolveWorkload(
    const ObservationRow& row, std::optional<InsertOutcome>* stored) {
  const Observation& o = row.observation;
  if (auto cached = workload_ids_.find(o.action_image); cached != workload_ids_.end()) {
    return cached->second;
  }
  // A re-sent record must not create a workload: look for the execution first.
  *stored = CompareStored(o.execution_id, row.content_hash);
  if (*stored) return std::nullopt;
  return CreateWorkload(o.action_image);
}

InsertOutcome ObservationWriter::Insert(const ObservationRow& row) {
  const Observation& o = row.observation;
  std::optional<InsertOutcome> stored;
  const std::optional<std::int64_t> workload_id = ResolveWorkload(row, &stored);
  if (!workload_id) return *stored;
  BindObservation(row, *workload_id);
  // An id: inserted; none: the execution is stored already.
  if (const std::optional<std::int64_t> id = db_.RunInsert(*insert_observation_)) {
    last_workload_id_ = *workload_id;
    last_observation_id_ = *id;
    return InsertOutcome::kInserted;
  }
  stored = CompareStored(o.execution_id, row.content_hash);
  if (stored) return *stored;
  throw std::logic_error("observation " + o.execution_id + " was neither inserted nor found");
}

std::int64_t ObservationWriter::CreateWorkload(const std::string& image) {
  std::int64_t id = 0;
  insert_workload_->Reset();
  BindText(*insert_workload_, 1, image);
  if (insert_workload_->Run() == 1) {
    id = db_.LastInsertId();
  } else {
    select_workload_->Reset();
    BindText(*select_workload_, 1, image);
    if (!select_workload_->Step()) {
      throw std::logic_error("workload " + image + " was neither inserted nor found");
    }
    id = select_workload_->Int64(0);
    select_workload_->Reset();  // no read left open while the caller writes
  }
  workload_ids_.emplace(image, id);
  return id;
}

std::optional<InsertOutcome> ObservationWriter::CompareStored(const std::string& execution_id,
                                                              const Sha256Digest& hash) {
  stored_hash_->Reset();
  BindText(*stored_hash_, 1, execution_id);
  if (!stored_hash_->Step()) return std::nullopt;
  const std::string_view stored = stored_hash_->Blob(0);
  const bool same =
      stored.size() == hash.size() && std::memcmp(stored.data(), hash.data(), hash.size()) == 0;
  stored_hash_->Reset();  // no read left open while the caller writes
  return same ? InsertOutcome::kDuplicate : InsertOutcome::kConflict;
}

void ObservationWriter::BindObservation(const ObservationRow& row, std::int64_t workload_id) {
  store::Statement& s = *insert_observation_;
  s.Reset();
  SqlValue values[kObservationColumnCount];
  ObservationValues(row, workload_id, now_, values);
  for (int column = 0; column < kObservationColumnCount; ++column) {
    BindValue(s, column + 1, values[column]);
  }
}

void ObservationWriter::RecordReject(std::int64_t line, const std::string& execution_id,
                                     const FieldError& error, const std::string& record) {
  // A reject's text is what was sent, which need not be UTF-8: stored with
  // invalid bytes as U+FFFD, so that the reject is kept on either engine.
  Reject reject{line,
                execution_id.empty()
                    ? std::nullopt
                    : std::optional<std::string>(internal::ReplaceInvalidUtf8(execution_id)),
                internal::ReplaceInvalidUtf8(error.field),
                internal::ReplaceInvalidUtf8(error.reason),
                internal::ReplaceInvalidUtf8(record),
                now_};
  if (hold_records_) {
    held_rejects_.push_back(std::move(reject));
  } else {
    Write(reject);
  }
}

void ObservationWriter::RecordConflict(std::int64_t line, const std::string& execution_id,
                                       const std::string& record) {
  Conflict conflict{line, execution_id, record, now_};  // parsed: valid UTF-8 already
  if (hold_records_) {
    held_conflicts_.push_back(std::move(conflict));
  } else {
    Write(conflict);
  }
}

void ObservationWriter::WriteHeldRecords() {
  std::sort(held_rejects_.begin(), held_rejects_.end(), [](const Reject& a, const Reject& b) {
    return std::tie(a.record, a.field, a.line) < std::tie(b.record, b.field, b.line);
  });
  for (const Reject& reject : held_rejects_) Write(reject);
  held_rejects_.clear();
  std::sort(held_conflicts_.begin(), held_conflicts_.end(),
            [](const Conflict& a, const Conflict& b) {
              return std::tie(a.execution_id, a.record, a.line) <
                     std::tie(b.execution_id, b.record, b.line);
            });
  for (const Conflict& conflict : held_conflicts_) Write(conflict);
  held_conflicts_.clear();
}

void ObservationWriter::Write(const Reject& reject) {
  store::Statement& s = *insert_reject_;
  s.Reset();
  BindText(s, 1, source_);
  s.Bind(2, reject.line);
  if (reject.execution_id) {
    BindText(s, 3, *reject.execution_id);
  } else {
    s.BindNull(3);
  }
  BindText(s, 4, reject.field);
  BindText(s, 5, reject.reason);
  BindText(s, 6, reject.record);
  s.Bind(7, reject.at);
  s.Run();
}

void ObservationWriter::Write(const Conflict& conflict) {
  store::Statement& s = *insert_conflict_;
  s.Reset();
  BindText(s, 1, conflict.execution_id);
  BindText(s, 2, source_);
  s.Bind(3, conflict.line);
  BindText(s, 4, conflict.record);
  s.Bind(5, conflict.at);
  s.Run();
}

}  // namespace hwrec::internal
