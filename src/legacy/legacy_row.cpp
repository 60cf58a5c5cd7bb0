#include "legacy/legacy_row.h"

#include <fmt/format.h>

#include <string>

namespace hwrec::internal {

const char* const kLegacyColumns =
    "id, execution_id, site_id, action_image, node_pool_id, finished_at, status, duration_s, "
    "hardware_profile_id, instance_type, architecture, cpu_millicores, memory_bytes, gpu_count, "
    "gpu_mode, gpu_total, node_pool_gpu, gpu_compute_fraction, gpu_utilization, "
    "gpu_memory_peak_gb, cpu_millicores_avg, cpu_millicores_p95, cpu_millicores_max, "
    "memory_peak_bytes, requested_cpu_millicores, requested_memory_bytes, "
    "requested_gpu_memory_gb, requested_gpu_compute_fraction";

namespace {

// Reads the current row column by column, text into the row's own buffers:
// the migration reads a million rows.
class ColumnReader {
 public:
  ColumnReader(const store::Statement& statement, int first) : s_(statement), i_(first) {}
  bool Null() const { return s_.IsNull(i_); }
  void Skip() { ++i_; }
  std::int64_t Int() { return s_.Int64(i_++); }
  double Real() { return s_.Double(i_++); }
  void Text(std::string* out) { s_.AssignText(i_++, out); }

 private:
  const store::Statement& s_;
  int i_;
};

void ReadText(ColumnReader& r, std::optional<std::string>* out) {
  if (r.Null()) {
    r.Skip();
    out->reset();
    return;
  }
  if (!out->has_value()) out->emplace();
  r.Text(&**out);
}

std::optional<std::int64_t> ReadOptionalInt(ColumnReader& r) {
  if (!r.Null()) return r.Int();
  r.Skip();
  return std::nullopt;
}

std::optional<double> ReadOptionalReal(ColumnReader& r) {
  if (!r.Null()) return r.Real();
  r.Skip();
  return std::nullopt;
}

void ReadLegacyFields(ColumnReader& r, LegacyRow* row) {
  row->id = r.Int();
  r.Text(&row->execution_id);
  r.Text(&row->site_id);
  r.Text(&row->action_image);
  ReadText(r, &row->node_pool_id);
  row->finished_at = r.Real();
  r.Text(&row->status);
  row->duration_s = ReadOptionalReal(r);
  ReadText(r, &row->hardware_profile_id);
  HardwareProfile& h = row->hardware;
  ReadText(r, &h.instance_type);
  ReadText(r, &h.architecture);
  h.cpu_millicores = ReadOptionalInt(r);
  h.memory_bytes = ReadOptionalInt(r);
  h.gpu_count = ReadOptionalInt(r);
  ReadText(r, &h.gpu_mode);
  h.gpu_total = ReadOptionalInt(r);
  ReadText(r, &row->node_pool_gpu);
  row->gpu_compute_fraction = ReadOptionalReal(r);
  row->gpu_utilization = ReadOptionalReal(r);
  row->gpu_memory_peak_gb = ReadOptionalReal(r);
  row->cpu_millicores_avg = ReadOptionalReal(r);
  row->cpu_millicores_p95 = ReadOptionalReal(r);
  row->cpu_millicores_max = ReadOptionalReal(r);
  row->memory_peak_bytes = ReadOptionalInt(r);
  row->requested.cpu_millicores = ReadOptionalInt(r);
  row->requested.memory_bytes = ReadOptionalInt(r);
  row->requested.gpu_memory_gb = ReadOptionalReal(r);
  row->requested.gpu_compute_fraction = ReadOptionalReal(r);
}

}  // namespace

void ReadLegacyRow(const store::Statement& statement, int first, LegacyRow* row) {
  ColumnReader reader(statement, first);
  ReadLegacyFields(reader, row);
}

void LegacyValues(const LegacyRow& row, SqlValue* values) {
  const HardwareProfile& h = row.hardware;
  SqlValue* v = values;
  *v++ = SqlValue::Integer(row.id);
  *v++ = SqlValue::Text(row.execution_id);
  *v++ = SqlValue::Text(row.site_id);
  *v++ = SqlValue::Text(row.action_image);
  *v++ = SqlValue::Text(row.node_pool_id);
  *v++ = SqlValue::Real(row.finished_at);
  *v++ = SqlValue::Text(row.status);
  *v++ = SqlValue::Real(row.duration_s);
  *v++ = SqlValue::Text(row.hardware_profile_id);
  *v++ = SqlValue::Text(h.instance_type);
  *v++ = SqlValue::Text(h.architecture);
  *v++ = SqlValue::Integer(h.cpu_millicores);
  *v++ = SqlValue::Integer(h.memory_bytes);
  *v++ = SqlValue::Integer(h.gpu_count);
  *v++ = SqlValue::Text(h.gpu_mode);
  *v++ = SqlValue::Integer(h.gpu_total);
  *v++ = SqlValue::Text(row.node_pool_gpu);
  *v++ = SqlValue::Real(row.gpu_compute_fraction);
  *v++ = SqlValue::Real(row.gpu_utilization);
  *v++ = SqlValue::Real(row.gpu_memory_peak_gb);
  *v++ = SqlValue::Real(row.cpu_millicores_avg);
  *v++ = SqlValue::Real(row.cpu_millicores_p95);
  *v++ = SqlValue::Real(row.cpu_millicores_max);
  *v++ = SqlValue::Integer(row.memory_peak_bytes);
  *v++ = SqlValue::Integer(row.requested.cpu_millicores);
  *v++ = SqlValue::Integer(row.requested.memory_bytes);
  *v++ = SqlValue::Real(row.requested.gpu_memory_gb);
  *v++ = SqlValue::Real(row.requested.gpu_compute_fraction);
}

std::optional<Observation> ToValidObservation(const LegacyRow& row, FieldError* error) {
  const std::optional<ExecutionStatus> status = ParseExecutionStatus(row.status);
  if (!status) {
    *error = FieldError{"status", fmt::format("'{}' is not an execution status: hwrec knows "
                                              "success, oom, gpu_oom, failed and cancelled",
                                              row.status)};
    return std::nullopt;
  }
  Observation o;
  o.execution_id = row.execution_id;
  o.action_image = row.action_image;
  o.finished_at = row.finished_at;
  o.site_id = row.site_id;
  o.node_pool_id = row.node_pool_id;
  o.status = *status;
  // Stored history keeps its row: a wall time beyond a year (a unit mistake
  // or an unset start) is dropped rather than quarantining what was measured.
  if (!row.duration_s || !(*row.duration_s > kMaxDurationSeconds)) o.duration_s = row.duration_s;
  o.hardware = row.hardware;
  o.hardware_profile_id = row.hardware_profile_id;
  o.gpu_compute_fraction = row.gpu_compute_fraction;
  o.gpu_utilization = row.gpu_utilization;
  o.gpu_memory_peak_gb = row.gpu_memory_peak_gb;
  o.cpu_millicores_avg = row.cpu_millicores_avg;
  o.cpu_millicores_p95 = row.cpu_millicores_p95;
  o.cpu_millicores_max = row.cpu_millicores_max;
  o.memory_peak_bytes = row.memory_peak_bytes;
  o.requested = row.requested;
  if (auto invalid = ValidateObservation(o)) {
    *error = *invalid;
    return std::nullopt;
  }
  return o;
}

}  // namespace hwrec::internal
