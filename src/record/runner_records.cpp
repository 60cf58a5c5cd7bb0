#include "record/runner_records.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <variant>

#include "base/enum_names.h"
#include "base/json_fields.h"
#include "base/time.h"
#include "hwrec/runner.h"
#include "record/observation_json.h"
#include "record/runner_translation.h"

namespace hwrec {

namespace {

using internal::Copy;
using internal::CoresToMillicores;
using internal::JsonFields;
using internal::Member;
using internal::Put;
using internal::ReadNumber;
using internal::RunnerTranslation;
using internal::Whole;
using Json = nlohmann::json;

constexpr internal::EnumName<RecordForm> kRecordFormNames[] = {
    {RecordForm::kAuto, "auto"},
    {RecordForm::kHwrec, "hwrec"},
    {RecordForm::kRunner, "runner"},
};

// ---- CompleteExecutionMetric ------------------------------------------------

const std::initializer_list<std::string_view> kTopFields = {"execution_id",
                                                            "action_container_image",
                                                            "site_id",
                                                            "node_pool_id",
                                                            "ended_at",
                                                            "started_at",
                                                            "duration_in_sec",
                                                            "status",
                                                            "hardware_profile_id",
                                                            "instance_type",
                                                            "node_pool_gpu",
                                                            "node_pool_gpu_mode",
                                                            "node_pool_gpu_num_total",
                                                            "gpu_brand",
                                                            "gpu_model",
                                                            "architecture",
                                                            "resources_allocation",
                                                            "metrics",
                                                            "metadata"};
const std::initializer_list<std::string_view> kAllocationFields = {
    "cpu", "memory", "gpu", "gpu_memory_gb", "gpu_compute_fraction"};
const std::initializer_list<std::string_view> kMetricsFields = {"gpu_compute_fraction",
                                                                "gpu_util",
                                                                "gpu_memory_max_mib",
                                                                "cpu_avg",
                                                                "cpu_p95",
                                                                "cpu_max",
                                                                "memory_max"};

// Fields only the Runner's form has, and fields only hwrec's has.
constexpr std::array<std::string_view, 8> kRunnerOnly = {
    "action_container_image",  "ended_at", "node_pool_gpu", "node_pool_gpu_mode",
    "node_pool_gpu_num_total", "metrics",  "metadata",      "resources_allocation"};
constexpr std::array<std::string_view, 4> kHwrecOnly = {"action_image", "finished_at", "hardware",
                                                        "requested"};

constexpr std::array<std::pair<std::string_view, ExecutionStatus>, 6> kRunnerStatuses = {{
    {"Success", ExecutionStatus::kSuccess},
    {"Error", ExecutionStatus::kFailed},
    {"Canceled", ExecutionStatus::kCancelled},
    {"Cancelled", ExecutionStatus::kCancelled},
    {"Stopped", ExecutionStatus::kCancelled},
    {"OOMKilled", ExecutionStatus::kOom},
}};

std::optional<ExecutionStatus> RunnerStatus(std::string_view text) {
  if (text == "GPUOOMKilled") return ExecutionStatus::kGpuOom;
  for (const auto& [name, status] : kRunnerStatuses) {
    if (name == text) return status;
  }
  return ParseExecutionStatus(text);
}

void TranslateStatus(const Json& object, RunnerTranslation* t) {
  t->names.Set("status", "status");
  const Json* value = Member(object, "status");
  if (value == nullptr) return;
  if (!value->is_string()) return Put(t, "status", *value);  // hwrec names the wrong type
  const std::string& text = value->get_ref<const std::string&>();
  if (auto status = RunnerStatus(text)) return Put(t, "status", std::string(ToString(*status)));
  t->errors.push_back(RecordError{
      "status", fmt::format("'{}' is not an execution status: use the Runner's Success, Error, "
                            "Canceled, Cancelled, Stopped, OOMKilled or GPUOOMKilled (or hwrec's "
                            "success, failed, cancelled, oom or gpu_oom)",
                            text)});
}

// A timestamp as RFC 3339 text or epoch seconds; nullopt when absent or unreadable.
std::optional<double> TimeOf(const Json& object, std::string_view key) {
  const Json* value = Member(object, key);
  if (value == nullptr) return std::nullopt;
  if (value->is_number()) return value->get<double>();
  if (value->is_string()) return internal::ParseRfc3339(value->get_ref<const std::string&>());
  return std::nullopt;
}

// Epoch milliseconds from 2000-01-01 up to the year 10000: read as seconds,
// they are thousands of years ahead, so no clock sends them as seconds.
constexpr double kFirstMilliseconds = 946684800000.0;
constexpr double kLastMilliseconds = 253402300800000.0;

// True, with an error naming `key`, when its time is a number of epoch
// milliseconds: the headline is the field in the wrong unit, not the other one.
bool InMilliseconds(const Json& object, std::string_view key, RunnerTranslation* t) {
  const Json* value = Member(object, key);
  if (value == nullptr || !value->is_number()) return false;
  const double ms = value->get<double>();
  if (!(ms >= kFirstMilliseconds && ms < kLastMilliseconds)) return false;
  t->errors.push_back(RecordError{
      std::string(key),
      fmt::format("is {:.0f}, which looks like milliseconds since the epoch ({} once divided "
                  "by 1000): send seconds, or an RFC 3339 timestamp",
                  ms, internal::FormatRfc3339(ms / 1000.0))});
  return true;
}

// duration_in_sec, or else ended_at - started_at. `ended_in_ms`: ended_at was
// refused as milliseconds.
void TranslateDuration(const Json& object, bool ended_in_ms, RunnerTranslation* t) {
  if (Member(object, "duration_in_sec") != nullptr) {
    return Copy(object, "duration_in_sec", "duration_s", t);
  }
  t->names.Set("duration_s", "started_at");
  if (Member(object, "started_at") == nullptr) return;
  if (InMilliseconds(object, "started_at", t) || ended_in_ms) return;
  const std::optional<double> started = TimeOf(object, "started_at");
  if (!started || !std::isfinite(*started)) {
    return t->errors.push_back(
        RecordError{"started_at",
                    "must be an RFC 3339 timestamp (e.g. 2026-11-29T16:02:37Z) or "
                    "epoch seconds"});
  }
  const std::optional<double> ended = TimeOf(object, "ended_at");
  if (!ended || !std::isfinite(*ended)) return;  // ended_at's own error is reported
  if (*ended < *started) {
    return t->errors.push_back(RecordError{
        "started_at",
        fmt::format("is {} s after ended_at: send when the execution started", *started - *ended)});
  }
  if (*ended - *started > kMaxDurationSeconds) {
    return t->errors.push_back(RecordError{
        "started_at", fmt::format("is {:.0f} s before ended_at, more than a year: send when the "
                                  "execution started (an unset timestamp reads as 1970), or "
                                  "duration_in_sec",
                                  *ended - *started)});
  }
  Put(t, "duration_s", *ended - *started);
}

void TranslateIdentity(const Json& object, RunnerTranslation* t) {
  Copy(object, "execution_id", "execution_id", t);
  Copy(object, "action_container_image", "action_image", t);
  Copy(object, "site_id", "site_id", t);
  Copy(object, "node_pool_id", "node_pool_id", t);
  Copy(object, "ended_at", "finished_at", t);
  const bool ended_in_ms = InMilliseconds(object, "ended_at", t);
  Copy(object, "hardware_profile_id", "hardware_profile_id", t);
  TranslateStatus(object, t);
  TranslateDuration(object, ended_in_ms, t);
}

void TranslateHardware(const Json& object, RunnerTranslation* t) {
  Copy(object, "instance_type", "hardware.instance_type", t);
  Whole(object, "", "node_pool_gpu", "GPUs", false, "hardware.gpu_count", t);
  Copy(object, "node_pool_gpu_mode", "hardware.gpu_mode", t);
  Whole(object, "", "node_pool_gpu_num_total", "GPUs", false, "hardware.gpu_total", t);
  Copy(object, "gpu_brand", "hardware.gpu_brand", t);
  Copy(object, "gpu_model", "hardware.gpu_model", t);
  Copy(object, "architecture", "hardware.architecture", t);
}

// The nested object at `key`, its unknown fields noted; nullptr when absent or not an object.
const Json* Nested(const Json& object, std::string_view key, std::string_view what,
                   std::initializer_list<std::string_view> known, RunnerTranslation* t) {
  const Json* nested = Member(object, key);
  if (nested == nullptr) return nullptr;
  if (!nested->is_object()) {
    t->errors.push_back(
        RecordError{std::string(key), fmt::format("must be an object with {}", what)});
    return nullptr;
  }
  if (known.size() == 0) return nested;
  for (RecordError& e : JsonFields(*nested, std::string(key) + ".").UnknownFields(known)) {
    t->unknown.push_back(std::move(e));
  }
  return nested;
}

void TranslateAllocation(const Json& object, RunnerTranslation* t) {
  const Json* a =
      Nested(object, "resources_allocation", "what the execution was given", kAllocationFields, t);
  if (a == nullptr) return;
  const std::string prefix = "resources_allocation.";
  CoresToMillicores(*a, prefix, "cpu", "requested.cpu_millicores", true, t);
  Whole(*a, prefix, "memory", "bytes", true, "requested.memory_bytes", t);
  Whole(*a, prefix, "gpu", "GPUs", false, "gpu_count_held", t);
  Copy(*a, "gpu_memory_gb", "requested.gpu_memory_gb", t, prefix);
  Copy(*a, "gpu_compute_fraction", "requested.gpu_compute_fraction", t, prefix);
}

// gpu_compute_fraction from metrics, or from the metadata Struct; both must agree.
void TranslateFraction(const Json* metrics, const Json* metadata, RunnerTranslation* t) {
  const Json* in_metrics = metrics ? Member(*metrics, "gpu_compute_fraction") : nullptr;
  const Json* in_metadata = metadata ? Member(*metadata, "gpu_compute_fraction") : nullptr;
  if (in_metrics != nullptr && in_metadata != nullptr && *in_metrics != *in_metadata) {
    return t->errors.push_back(RecordError{
        "metadata.gpu_compute_fraction",
        fmt::format("is {} but metrics.gpu_compute_fraction is {}: send one share of the card",
                    in_metadata->dump(), in_metrics->dump())});
  }
  if (in_metrics != nullptr)
    return Copy(*metrics, "gpu_compute_fraction", "gpu_compute_fraction", t, "metrics.");
  if (in_metadata != nullptr) {
    Copy(*metadata, "gpu_compute_fraction", "gpu_compute_fraction", t, "metadata.");
  }
}

// A metric divided into hwrec's unit: percent / 100, MiB / 1024.
void Scaled(const Json& metrics, std::string_view key, std::string_view unit, double divisor,
            std::optional<double> most, const std::string& to, RunnerTranslation* t) {
  const std::string path = "metrics." + std::string(key);
  t->names.Set(to, path);
  std::optional<double> value;
  if (auto error = ReadNumber(metrics, "metrics.", key, unit, &value)) {
    return t->errors.push_back(std::move(*error));
  }
  if (!value) return;
  if (most && *value > *most) {
    return t->errors.push_back(RecordError{
        path, fmt::format("is {}: it must be at most {} (in {})", *value, *most, unit)});
  }
  Put(t, to, *value / divisor);
}

void TranslateMetrics(const Json& object, RunnerTranslation* t) {
  const Json* m = Nested(object, "metrics", "the worker's measurements", kMetricsFields, t);
  const Json* metadata = Nested(object, "metadata", "the execution's metadata", {}, t);
  TranslateFraction(m, metadata, t);
  if (m == nullptr) return;
  Scaled(*m, "gpu_util", "percent, 0-100", 100, 100.0, "gpu_utilization", t);
  Scaled(*m, "gpu_memory_max_mib", "MiB", 1024, std::nullopt, "gpu_memory_peak_gb", t);
  CoresToMillicores(*m, "metrics.", "cpu_avg", "cpu_millicores_avg", false, t);
  CoresToMillicores(*m, "metrics.", "cpu_p95", "cpu_millicores_p95", false, t);
  CoresToMillicores(*m, "metrics.", "cpu_max", "cpu_millicores_max", false, t);
  Whole(*m, "metrics.", "memory_max", "bytes", true, "memory_peak_bytes", t);
}

// hwrec's observation fields and the Runner fields they are usually read from
// (gpu_compute_fraction may also come from metadata), for problems found after
// parsing, when the record's own names are no longer at hand.
constexpr std::array<std::pair<std::string_view, std::string_view>, 25> kObservationNames = {{
    {"gpu_count_held", "resources_allocation.gpu"},
    {"action_image", "action_container_image"},
    {"finished_at", "ended_at"},
    {"duration_s", "duration_in_sec"},
    {"hardware.instance_type", "instance_type"},
    {"hardware.gpu_count", "node_pool_gpu"},
    {"hardware.gpu_mode", "node_pool_gpu_mode"},
    {"hardware.gpu_total", "node_pool_gpu_num_total"},
    {"hardware.gpu_brand", "gpu_brand"},
    {"hardware.gpu_model", "gpu_model"},
    {"hardware.architecture", "architecture"},
    {"requested.cpu_millicores", "resources_allocation.cpu"},
    {"requested.memory_bytes", "resources_allocation.memory"},
    {"requested.gpu_memory_gb", "resources_allocation.gpu_memory_gb"},
    {"requested.gpu_compute_fraction", "resources_allocation.gpu_compute_fraction"},
    {"requested", "resources_allocation"},
    {"gpu_compute_fraction", "metrics.gpu_compute_fraction"},
    {"gpu_utilization", "metrics.gpu_util"},
    {"gpu_memory_peak_gb", "metrics.gpu_memory_max_mib"},
    {"cpu_millicores_avg", "metrics.cpu_avg"},
    {"cpu_millicores_p95", "metrics.cpu_p95"},
    {"cpu_millicores_max", "metrics.cpu_max"},
    {"memory_peak_bytes", "metrics.memory_max"},
    {"execution_id", "execution_id"},
    {"status", "status"},
}};

RunnerTranslation TranslateRunnerObservation(const Json& object) {
  RunnerTranslation t;
  t.unknown = JsonFields(object).UnknownFields(kTopFields);
  TranslateIdentity(object, &t);
  TranslateHardware(object, &t);
  TranslateAllocation(object, &t);
  TranslateMetrics(object, &t);
  return t;
}

// The hwrec field a Runner field becomes (kObservationNames); the name itself
// when it has none.
std::string HwrecName(const std::string& runner_field) {
  for (const auto& [hwrec_field, runner] : kObservationNames) {
    if (runner == runner_field) return std::string(hwrec_field);
  }
  return runner_field;
}

void AddOnce(std::vector<RecordError>* errors, RecordError error) {
  const auto same = [&](const RecordError& e) { return e.field == error.field; };
  if (std::none_of(errors->begin(), errors->end(), same)) errors->push_back(std::move(error));
}

ObservationParse ParseRunnerObservation(const Json& object, bool strict,
                                        std::optional<internal::PartialObservation>* partial) {
  RunnerTranslation t = TranslateRunnerObservation(object);
  ObservationParse parsed = internal::ParseObservationObject(t.hwrec, strict, partial);
  ObservationParse result;
  result.execution_id = parsed.execution_id;
  result.errors = std::move(t.errors);  // the translation's first
  const std::size_t refused_by_translation = result.errors.size();
  for (RecordError& e : parsed.errors) AddOnce(&result.errors, t.names.Renamed(std::move(e)));
  for (RecordError& e : t.unknown) {
    if (!strict) {
      result.warnings.push_back(std::move(e));
      continue;
    }
    e.reason += " (strict mode refuses unknown fields)";
    AddOnce(&result.errors, std::move(e));
  }
  if (result.errors.empty()) {
    result.observation = std::move(parsed.observation);
  } else if (partial != nullptr) {
    // Refused only by the translation, or for unknown fields.
    if (parsed.observation) {
      *partial = internal::PartialObservation{std::move(*parsed.observation), {}};
    }
    // A field the translation refused is missing from the hwrec form: refused too.
    for (std::size_t i = 0; i < refused_by_translation; ++i) {
      (*partial)->refused.push_back(HwrecName(result.errors[i].field));
    }
  }
  return result;
}

std::string JoinFields(const std::vector<std::string_view>& fields) {
  std::string out;
  for (std::string_view f : fields) out += (out.empty() ? "" : ", ") + std::string(f);
  return out;
}

// Which form an observation object is in; an error when it mixes both.
std::variant<RecordForm, RecordError> FormOf(const Json& object) {
  std::vector<std::string_view> runner, hwrec;
  for (std::string_view key : kRunnerOnly) {
    if (object.find(std::string(key)) != object.end()) runner.push_back(key);
  }
  for (std::string_view key : kHwrecOnly) {
    if (object.find(std::string(key)) != object.end()) hwrec.push_back(key);
  }
  if (!runner.empty() && !hwrec.empty()) {
    return RecordError{
        "json", fmt::format("mixes the Runner's fields ({}) with hwrec's ({}): send each record "
                            "in one form (or name the form: --from runner|hwrec, form= in Python)",
                            JoinFields(runner), JoinFields(hwrec))};
  }
  return runner.empty() ? RecordForm::kHwrec : RecordForm::kRunner;
}

std::string ExecutionIdOf(const Json& object) {
  const Json* id = Member(object, "execution_id");
  return id != nullptr && id->is_string() ? id->get<std::string>() : "";
}

}  // namespace

std::string_view ToString(RecordForm form) {
  return internal::NameOf(kRecordFormNames, form, "auto");
}

std::optional<RecordForm> ParseRecordForm(std::string_view text) {
  return internal::ValueOf(kRecordFormNames, text);
}

ObservationParse ParseRunnerObservationJson(std::string_view json, bool strict) {
  return ParseObservationRecord(json, RecordForm::kRunner, strict);
}

ObservationParse ParseObservationRecord(std::string_view json, RecordForm form, bool strict) {
  RecordForm read_as = RecordForm::kHwrec;
  return internal::ParseObservationRecord(json, form, strict, &read_as);
}

namespace internal {

ObservationParse ParseObservationRecord(std::string_view json, RecordForm form, bool strict,
                                        RecordForm* read_as,
                                        std::optional<PartialObservation>* partial) {
  *read_as = RecordForm::kHwrec;
  auto parsed = ParseJsonRecord(json);
  if (auto* error = std::get_if<RecordError>(&parsed)) {
    ObservationParse result;
    result.errors.push_back(std::move(*error));
    return result;
  }
  const Json& object = std::get<Json>(parsed);
  if (form == RecordForm::kAuto) {
    auto detected = FormOf(object);
    if (auto* error = std::get_if<RecordError>(&detected)) {
      ObservationParse result;
      result.execution_id = ExecutionIdOf(object);
      result.errors.push_back(std::move(*error));
      return result;
    }
    form = std::get<RecordForm>(detected);
  }
  if (form == RecordForm::kHwrec) return ParseObservationObject(object, strict, partial);
  *read_as = RecordForm::kRunner;
  return ParseRunnerObservation(object, strict, partial);
}

RecordError RunnerObservationError(RecordError error) {
  for (const auto& [hwrec_field, runner_field] : kObservationNames) {
    if (error.field != hwrec_field) continue;
    if (error.reason.rfind(error.field + " ", 0) == 0) {
      error.reason.replace(0, error.field.size(), runner_field);
    }
    error.field = std::string(runner_field);
    break;
  }
  return error;
}

}  // namespace internal

}  // namespace hwrec
