#include "legacy/legacy_row.h"

#include <fmt/format.h>

#include <cmath>
#include <string>

#include "base/decimal.h"
#include "base/text.h"

namespace hwrec::internal {

const char* const kLegacyColumns =
    "id, execution_id, site_id, action_image, node_pool_id, finished_at, status, duration_s, "
    "hardware_profile_id, instance_type, architecture, cpu_millicores, memory_bytes, gpu_count, "
    "gpu_mode, gpu_total, node_pool_gpu, gpu_compute_fraction, gpu_utilization, "
    "gpu_memory_peak_gb, cpu_millicores_avg, cpu_millicores_p95, cpu_millicores_max, "
    "memory_peak_bytes, requested_cpu_millicores, requested_memory_bytes, "
    "requested_gpu_memory_gb, requested_gpu_compute_fraction";

std::vector<std::string> ColumnListNames(const std::string& list) {
  std::vector<std::string> names;
  std::size_t start = 0;
  while (start < list.size()) {
    std::size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    std::size_t first = list.find_first_not_of(' ', start);
    names.push_back(list.substr(first, end - first));
    start = end + 1;
  }
  return names;
}

namespace {

// The legacy column names, by index in kLegacyColumns.
const std::vector<std::string>& ColumnNames() {
  static const std::vector<std::string> names = ColumnListNames(kLegacyColumns);
  return names;
}

// How to mend a value of the wrong type, wherever the row is.
constexpr const char* kMendTypedValue =
    "write it in site_observations before migrating, or in legacy_quarantine (sqlite3) and "
    "then `hwrec quarantine resolve`";

// Reads the current row column by column, text into the row's own buffers:
// the migration reads a million rows. A number column is read by the type of
// its value, so that a value SQLite kept as another type is refused (and
// kept as read) rather than converted.
class ColumnReader {
 public:
  ColumnReader(const store::Statement& statement, int first, LegacyRow* row)
      : s_(statement), first_(first), i_(first), row_(row) {
    row_->mistyped.clear();
  }
  bool Null() const { return s_.IsNull(i_); }
  void Skip() { ++i_; }
  void Text(std::string* out) { s_.AssignText(i_++, out); }

  std::optional<std::int64_t> OptionalInt() {
    switch (s_.Kind(i_)) {
      case store::ValueKind::kNull:
        ++i_;
        return std::nullopt;
      case store::ValueKind::kInteger:
        return s_.Int64(i_++);
      case store::ValueKind::kReal:
        KeepReal();
        return 0;
      default:
        KeepBytes("not a whole number");
        return 0;
    }
  }

  std::optional<double> OptionalReal() {
    switch (s_.Kind(i_)) {
      case store::ValueKind::kNull:
        ++i_;
        return std::nullopt;
      case store::ValueKind::kInteger:
      case store::ValueKind::kReal:
        return s_.Double(i_++);
      default:
        KeepBytes("not a number");
        return 0;
    }
  }

  std::int64_t Int() { return OptionalInt().value_or(0); }
  double Real() { return OptionalReal().value_or(0); }

 private:
  MistypedValue& Mistyped(store::ValueKind kind) {
    MistypedValue& m = row_->mistyped.emplace_back();
    m.column = i_ - first_;
    m.kind = kind;
    m.error.field = ColumnNames()[static_cast<std::size_t>(m.column)];
    return m;
  }
  // SQLite keeps a REAL in a whole-number column only when no integer holds it.
  void KeepReal() {
    MistypedValue& m = Mistyped(store::ValueKind::kReal);
    m.real = s_.Double(i_++);
    const bool whole = std::isfinite(m.real) && std::floor(m.real) == m.real;
    m.error.reason = whole ? fmt::format("is {}, beyond the whole numbers a store keeps ({}): {}",
                                         m.real, kWholeInt64Range, kMendTypedValue)
                           : fmt::format("is {}, not a whole number: {}", m.real, kMendTypedValue);
  }
  void KeepBytes(const char* what) {
    const store::ValueKind kind = s_.Kind(i_);
    MistypedValue& m = Mistyped(kind);
    m.bytes = kind == store::ValueKind::kBlob ? std::string(s_.Blob(i_)) : s_.String(i_);
    ++i_;
    m.error.reason =
        kind == store::ValueKind::kBlob
            ? fmt::format("holds a blob of {} bytes, {}: {}", m.bytes.size(), what, kMendTypedValue)
            : fmt::format("holds the text '{}', {}: {}",
                          ReplaceInvalidUtf8(Utf8Prefix(m.bytes, 80)), what, kMendTypedValue);
  }

  const store::Statement& s_;
  const int first_;
  int i_;
  LegacyRow* row_;
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

void ReadLegacyFields(ColumnReader& r, LegacyRow* row) {
  row->id = r.Int();
  r.Text(&row->execution_id);
  r.Text(&row->site_id);
  r.Text(&row->action_image);
  ReadText(r, &row->node_pool_id);
  row->finished_at = r.Real();
  r.Text(&row->status);
  row->duration_s = r.OptionalReal();
  ReadText(r, &row->hardware_profile_id);
  HardwareProfile& h = row->hardware;
  ReadText(r, &h.instance_type);
  ReadText(r, &h.architecture);
  h.cpu_millicores = r.OptionalInt();
  h.memory_bytes = r.OptionalInt();
  h.gpu_count = r.OptionalInt();
  ReadText(r, &h.gpu_mode);
  h.gpu_total = r.OptionalInt();
  ReadText(r, &row->node_pool_gpu);
  row->measured.gpu_compute_fraction = r.OptionalReal();
  row->measured.gpu_utilization = r.OptionalReal();
  row->measured.gpu_memory_peak_gb = r.OptionalReal();
  row->measured.cpu_millicores_avg = r.OptionalReal();
  row->measured.cpu_millicores_p95 = r.OptionalReal();
  row->measured.cpu_millicores_max = r.OptionalReal();
  row->measured.memory_peak_bytes = r.OptionalInt();
  row->measured.requested.cpu_millicores = r.OptionalInt();
  row->measured.requested.memory_bytes = r.OptionalInt();
  row->measured.requested.gpu_memory_gb = r.OptionalReal();
  row->measured.requested.gpu_compute_fraction = r.OptionalReal();
}

}  // namespace

void ReadLegacyRow(const store::Statement& statement, int first, LegacyRow* row) {
  ColumnReader reader(statement, first, row);
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
  *v++ = SqlValue::Real(row.measured.gpu_compute_fraction);
  *v++ = SqlValue::Real(row.measured.gpu_utilization);
  *v++ = SqlValue::Real(row.measured.gpu_memory_peak_gb);
  *v++ = SqlValue::Real(row.measured.cpu_millicores_avg);
  *v++ = SqlValue::Real(row.measured.cpu_millicores_p95);
  *v++ = SqlValue::Real(row.measured.cpu_millicores_max);
  *v++ = SqlValue::Integer(row.measured.memory_peak_bytes);
  *v++ = SqlValue::Integer(row.measured.requested.cpu_millicores);
  *v++ = SqlValue::Integer(row.measured.requested.memory_bytes);
  *v++ = SqlValue::Real(row.measured.requested.gpu_memory_gb);
  *v++ = SqlValue::Real(row.measured.requested.gpu_compute_fraction);
  for (const MistypedValue& m : row.mistyped) {  // as read, not as converted
    SqlValue& value = values[m.column];
    if (m.kind == store::ValueKind::kReal) {
      value = SqlValue::Real(m.real);
    } else if (m.kind == store::ValueKind::kBlob) {
      value = SqlValue::Blob(m.bytes.data(), m.bytes.size());
    } else {
      value = SqlValue::Text(m.bytes);
    }
  }
}

std::optional<Observation> ToValidObservation(const LegacyRow& row, std::vector<FieldError>* errors,
                                              Observation* read) {
  if (!row.mistyped.empty()) {
    for (const MistypedValue& m : row.mistyped) errors->push_back(m.error);
    return std::nullopt;
  }
  const std::size_t errors_before = errors->size();
  const std::optional<ExecutionStatus> status = ParseExecutionStatus(row.status);
  if (!status) {
    errors->push_back(
        FieldError{"status", fmt::format("'{}' is not an execution status: hwrec knows "
                                         "success, oom, gpu_oom, failed and cancelled",
                                         row.status)});
  }
  Observation o = row.measured;
  o.execution_id = row.execution_id;
  o.action_image = row.action_image;
  o.finished_at = row.finished_at;
  o.site_id = row.site_id;
  o.node_pool_id = row.node_pool_id;
  if (status) o.status = *status;
  // Stored history keeps its row: a wall time beyond a year (a unit mistake
  // or an unset start) is dropped rather than quarantining what was measured.
  if (!row.duration_s || !(*row.duration_s > kMaxDurationSeconds)) o.duration_s = row.duration_s;
  o.hardware = row.hardware;
  o.hardware_profile_id = row.hardware_profile_id;
  for (FieldError& problem : ObservationProblems(o)) errors->push_back(std::move(problem));
  if (errors->size() == errors_before) return o;
  if (read != nullptr) *read = std::move(o);
  return std::nullopt;
}

}  // namespace hwrec::internal
