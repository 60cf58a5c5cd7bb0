#include "legacy/legacy_row.h"

#include <fmt/format.h>

#include "store/sqlite_util.h"

namespace hwrec::internal {

const char* const kLegacyColumns =
    "id, execution_id, site_id, action_image, node_pool_id, finished_at, status, duration_s, "
    "hardware_profile_id, instance_type, architecture, cpu_millicores, memory_bytes, gpu_count, "
    "gpu_mode, gpu_total, node_pool_gpu, gpu_compute_fraction, gpu_utilization, "
    "gpu_memory_peak_gb, cpu_millicores_avg, cpu_millicores_p95, cpu_millicores_max, "
    "memory_peak_bytes, requested_cpu_millicores, requested_memory_bytes, "
    "requested_gpu_memory_gb, requested_gpu_compute_fraction";

namespace {

std::optional<std::int64_t> OptionalInt(const SQLite::Column& column) {
  auto value = ColumnOptionalInt64(column);
  if (!value) return std::nullopt;
  return static_cast<std::int64_t>(*value);
}

template <typename T>
void BindValue(SQLite::Statement& s, int index, const std::optional<T>& value) {
  if (value) {
    s.bind(index, *value);
  } else {
    s.bind(index);
  }
}

}  // namespace

void ReadLegacyRow(const SQLite::Statement& s, int first, LegacyRow* row) {
  int i = first;
  auto col = [&]() { return s.getColumn(i++); };
  row->id = col().getInt64();
  AssignText(col(), &row->execution_id);
  AssignText(col(), &row->site_id);
  AssignText(col(), &row->action_image);
  AssignOptionalText(col(), &row->node_pool_id);
  row->finished_at = col().getDouble();
  AssignText(col(), &row->status);
  row->duration_s = ColumnOptionalDouble(col());
  AssignOptionalText(col(), &row->hardware_profile_id);
  HardwareProfile& h = row->hardware;
  AssignOptionalText(col(), &h.instance_type);
  AssignOptionalText(col(), &h.architecture);
  h.cpu_millicores = OptionalInt(col());
  h.memory_bytes = OptionalInt(col());
  h.gpu_count = OptionalInt(col());
  AssignOptionalText(col(), &h.gpu_mode);
  h.gpu_total = OptionalInt(col());
  AssignOptionalText(col(), &row->node_pool_gpu);
  row->gpu_compute_fraction = ColumnOptionalDouble(col());
  row->gpu_utilization = ColumnOptionalDouble(col());
  row->gpu_memory_peak_gb = ColumnOptionalDouble(col());
  row->cpu_millicores_avg = ColumnOptionalDouble(col());
  row->cpu_millicores_p95 = ColumnOptionalDouble(col());
  row->cpu_millicores_max = ColumnOptionalDouble(col());
  row->memory_peak_bytes = OptionalInt(col());
  row->requested.cpu_millicores = OptionalInt(col());
  row->requested.memory_bytes = OptionalInt(col());
  row->requested.gpu_memory_gb = ColumnOptionalDouble(col());
  row->requested.gpu_compute_fraction = ColumnOptionalDouble(col());
}

void BindLegacyRow(SQLite::Statement& s, int first, const LegacyRow& row) {
  int i = first;
  const HardwareProfile& h = row.hardware;
  s.bind(i++, row.id);
  s.bind(i++, row.execution_id);
  s.bind(i++, row.site_id);
  s.bind(i++, row.action_image);
  BindValue(s, i++, row.node_pool_id);
  s.bind(i++, row.finished_at);
  s.bind(i++, row.status);
  BindValue(s, i++, row.duration_s);
  BindValue(s, i++, row.hardware_profile_id);
  BindValue(s, i++, h.instance_type);
  BindValue(s, i++, h.architecture);
  BindValue(s, i++, h.cpu_millicores);
  BindValue(s, i++, h.memory_bytes);
  BindValue(s, i++, h.gpu_count);
  BindValue(s, i++, h.gpu_mode);
  BindValue(s, i++, h.gpu_total);
  BindValue(s, i++, row.node_pool_gpu);
  BindValue(s, i++, row.gpu_compute_fraction);
  BindValue(s, i++, row.gpu_utilization);
  BindValue(s, i++, row.gpu_memory_peak_gb);
  BindValue(s, i++, row.cpu_millicores_avg);
  BindValue(s, i++, row.cpu_millicores_p95);
  BindValue(s, i++, row.cpu_millicores_max);
  BindValue(s, i++, row.memory_peak_bytes);
  BindValue(s, i++, row.requested.cpu_millicores);
  BindValue(s, i++, row.requested.memory_bytes);
  BindValue(s, i++, row.requested.gpu_memory_gb);
  BindValue(s, i++, row.requested.gpu_compute_fraction);
}

std::optional<Observation> ToObservation(const LegacyRow& row, FieldError* error) {
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
  o.duration_s = row.duration_s;
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
  return o;
}

}  // namespace hwrec::internal
