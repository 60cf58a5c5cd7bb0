#include "hwrec/observation.h"
#include "hwrec/remedy.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>
#include <type_traits>

#include "base/enum_names.h"
#include "base/json_fields.h"
#include "base/text.h"
#include "base/time.h"
#include "record/observation_fields.h"
#include "record/observation_json.h"

namespace hwrec {

namespace {

using internal::JsonFields;
using internal::Sign;

constexpr internal::EnumName<ExecutionStatus> kStatusNames[] = {
    {ExecutionStatus::kSuccess, "success"},     {ExecutionStatus::kOom, "oom"},
    {ExecutionStatus::kGpuOom, "gpu_oom"},      {ExecutionStatus::kFailed, "failed"},
    {ExecutionStatus::kCancelled, "cancelled"},
};

constexpr internal::EnumName<FractionSource> kFractionSourceNames[] = {
    {FractionSource::kNone, "none"},
    {FractionSource::kStamped, "stamped"},
    {FractionSource::kCatalog, "catalog"},
    {FractionSource::kAssumed, "assumed"},
};

// "success, oom, gpu_oom, failed or cancelled"
std::string ValidStatuses() { return internal::JoinOr(internal::NamesOf(kStatusNames)); }

// ---- checks shared by JSON parsing and ValidateObservation ------------------

// Records every problem found, at most one per field.
class Checker {
 public:
  void Required(std::string_view field, const std::string& value) {
    if (value.empty()) return Fail(field, "is missing: it is required");
    Text(field, value);
  }
  void Text(std::string_view field, const std::optional<std::string>& value) {
    if (!value) return;
    if (value->empty()) return Fail(field, "is empty: give a value or leave the field out");
    if (internal::Trim(*value).empty()) {
      return Fail(field, "is only whitespace: give a value or leave the field out");
    }
    if (auto problem = internal::TextProblem(*value)) Fail(field, std::move(*problem));
  }
  // Text that keys the store's rows, at most `max_bytes` (KeyLengthProblem).
  void KeyText(std::string_view field, const std::optional<std::string>& value,
               std::size_t max_bytes) {
    if (!value) return;
    if (auto problem = internal::KeyLengthProblem(*value, max_bytes)) Fail(field, *problem);
  }
  void NonNegative(std::string_view field, const std::optional<std::int64_t>& value) {
    if (value && *value < 0) Fail(field, fmt::format("is {}: it must be zero or more", *value));
  }
  void NonNegative(std::string_view field, const std::optional<double>& value) {
    if (Finite(field, value) && *value < 0) {
      Fail(field, fmt::format("is {}: it must be zero or more", *value));
    }
  }
  // A share in (0, 1], or [0, 1] when `allow_zero`; `what` names the share.
  void Fraction(std::string_view field, const std::optional<double>& value, bool allow_zero,
                std::string_view what) {
    if (!Finite(field, value)) return;
    if (*value > 1 || *value < 0 || (!allow_zero && *value == 0)) {
      Fail(field, fmt::format("is {}: it must be {}, {}", *value, what,
                              allow_zero ? "between 0 and 1" : "greater than 0 and at most 1"));
    }
  }
  // True when present and finite.
  bool Finite(std::string_view field, const std::optional<double>& value) {
    if (!value) return false;
    if (std::isnan(*value)) Fail(field, "is NaN: send a number");
    if (std::isinf(*value)) Fail(field, "is infinite: send a finite number");
    return std::isfinite(*value);
  }
  void Fail(std::string_view field, std::string reason) {
    for (const RecordError& e : errors) {
      if (e.field == field) return;
    }
    errors.push_back(RecordError{std::string(field), std::move(reason)});
  }

  std::vector<RecordError> errors;
};

using internal::kMaxIdBytes;
using internal::kMaxKeyNameBytes;

void CheckHardware(const HardwareProfile& h, Checker& check) {
  check.Text("hardware.instance_type", h.instance_type);
  check.KeyText("hardware.instance_type", h.instance_type, kMaxKeyNameBytes);
  check.KeyText("hardware.gpu_brand", h.gpu_brand, kMaxKeyNameBytes);
  check.KeyText("hardware.gpu_model", h.gpu_model, kMaxKeyNameBytes);
  check.Text("hardware.architecture", h.architecture);
  check.NonNegative("hardware.cpu_millicores", h.cpu_millicores);
  check.NonNegative("hardware.memory_bytes", h.memory_bytes);
  check.NonNegative("hardware.gpu_count", h.gpu_count);
  check.Text("hardware.gpu_mode", h.gpu_mode);
  check.NonNegative("hardware.gpu_total", h.gpu_total);
  check.Text("hardware.gpu_brand", h.gpu_brand);
  check.Text("hardware.gpu_model", h.gpu_model);
  // gpu_total counts the GPUs (whole cards or partitions) a node offers, so it
  // holds at least gpu_count cards; 0 means not recorded.
  if (h.gpu_count && h.gpu_total && *h.gpu_total > 0 && *h.gpu_count > *h.gpu_total) {
    check.Fail("hardware.gpu_count",
               fmt::format("is {}, more than gpu_total {}: gpu_total counts every GPU (or "
                           "partition) of the node, so send gpu_count <= gpu_total",
                           *h.gpu_count, *h.gpu_total));
  }
}

void CheckMeasurements(const Observation& o, Checker& check) {
  check.Fraction("gpu_compute_fraction", o.gpu_compute_fraction, false, "the share of one card");
  check.Fraction("gpu_utilization", o.gpu_utilization, true, "the busy share of what it had");
  check.NonNegative("gpu_memory_peak_gb", o.gpu_memory_peak_gb);
  check.NonNegative("cpu_millicores_avg", o.cpu_millicores_avg);
  check.NonNegative("cpu_millicores_p95", o.cpu_millicores_p95);
  check.NonNegative("cpu_millicores_max", o.cpu_millicores_max);
  check.NonNegative("memory_peak_bytes", o.memory_peak_bytes);
  check.NonNegative("requested.cpu_millicores", o.requested.cpu_millicores);
  check.NonNegative("requested.memory_bytes", o.requested.memory_bytes);
  check.NonNegative("requested.gpu_memory_gb", o.requested.gpu_memory_gb);
  check.Fraction("requested.gpu_compute_fraction", o.requested.gpu_compute_fraction, false,
                 "the share of one card");
}

// The GPUs the execution held: no more than its node has, and none when it
// reports using a GPU. The node's count resolved from its pool is checked at
// ingest (CheckWithinHardware). Reasons name no other field: the Runner's
// form spells them its own way.
void CheckGpusHeld(const Observation& o, Checker& check) {
  const std::optional<std::int64_t>& held = o.gpu_count_held;
  check.NonNegative("gpu_count_held", held);
  if (!held || *held < 0) return;
  if (*held > kMaxGpusHeld) {
    return check.Fail("gpu_count_held",
                      fmt::format("is {}: more GPUs than one node holds (at most {}): send the "
                                  "GPUs the execution itself held",
                                  *held, kMaxGpusHeld));
  }
  if (const std::optional<std::int64_t> node = GpusOfNode(o.hardware); node && *held > *node) {
    return check.Fail("gpu_count_held",
                      fmt::format("is {}, more than the {} GPU(s) its node has: send the GPUs the "
                                  "execution itself held, not the node's",
                                  *held, *node));
  }
  if (*held != 0) return;
  const std::pair<const char*, const std::optional<double>*> used[] = {
      {"a GPU memory peak", &o.gpu_memory_peak_gb},
      {"a GPU utilisation", &o.gpu_utilization},
      {"a GPU compute share", &o.gpu_compute_fraction}};
  for (const auto& [what, value] : used) {
    if (value->has_value() && **value > 0) {
      return check.Fail("gpu_count_held",
                        fmt::format("is 0, but the record reports {} of {}: an execution that "
                                    "held no GPU used none; send the GPUs it held",
                                    what, **value));
    }
  }
  if (o.status == ExecutionStatus::kGpuOom) {
    check.Fail("gpu_count_held",
               "is 0, but the execution ran out of GPU memory: send the GPUs it held");
  }
}

void CheckIdentity(const Observation& o, Checker& check) {
  check.Required("execution_id", o.execution_id);
  check.Required("action_image", o.action_image);
  check.KeyText("execution_id", o.execution_id, kMaxIdBytes);
  check.KeyText("action_image", o.action_image, kMaxIdBytes);
  check.NonNegative("finished_at", std::optional<double>(o.finished_at));
  check.Text("site_id", o.site_id);
  check.Text("node_pool_id", o.node_pool_id);
  check.NonNegative("duration_s", o.duration_s);
  if (o.duration_s && std::isfinite(*o.duration_s) && *o.duration_s > kMaxDurationSeconds) {
    check.Fail("duration_s",
               fmt::format("is {} s, more than a year ({:.0f} s): send the wall time in seconds "
                           "(a value in milliseconds is 1000 times too large)",
                           *o.duration_s, kMaxDurationSeconds));
  }
  if (ToString(o.status).empty()) {
    check.Fail("status", fmt::format("is not a status: use {}", ValidStatuses()));
  }
}

void CheckProfileId(const std::optional<std::string>& id, Checker& check) {
  if (!id || ProfileIdVersionOf(*id)) return;
  check.Fail("hardware_profile_id",
             fmt::format("'{}' is not a hardware profile id: expected hp:v1:<16 hex digits> or "
                         "hp:v2:<16 hex digits> ({} gives them)",
                         *id, RemedyText(Remedy::kHardwareId)));
}

// ---- JSON -------------------------------------------------------------------

using Errors = std::vector<RecordError>;

void Note(Errors* errors, std::optional<RecordError> error) {
  if (error) errors->push_back(std::move(*error));
}

const std::vector<std::string_view>& TopFields() {
  static const auto* const names =
      new std::vector<std::string_view>(internal::ObservationFieldNames(""));
  return *names;
}
const std::vector<std::string_view>& GroupFields(std::string_view group) {
  static const auto* const hardware =
      new std::vector<std::string_view>(internal::ObservationFieldNames("hardware"));
  static const auto* const requested =
      new std::vector<std::string_view>(internal::ObservationFieldNames("requested"));
  return group == "hardware" ? *hardware : *requested;
}

// A nested object's reader: nullopt when absent, an error when not an object.
std::optional<JsonFields> Nested(const JsonFields& top, std::string_view key, std::string_view what,
                                 Errors* errors, Errors* unknown,
                                 const std::vector<std::string_view>& known) {
  const nlohmann::json* object = top.Get(key);
  if (object == nullptr) return std::nullopt;
  if (!object->is_object()) {
    errors->push_back(
        RecordError{std::string(key), fmt::format("must be an object with {}", what)});
    return std::nullopt;
  }
  JsonFields fields(*object, std::string(key) + ".");
  for (RecordError& e : fields.UnknownFields(known)) unknown->push_back(std::move(e));
  return fields;
}

std::optional<RecordError> ReadField(const JsonFields& f, std::string_view key,
                                     std::optional<std::string>* out) {
  return f.String(key, out);
}
std::optional<RecordError> ReadField(const JsonFields& f, std::string_view key,
                                     std::optional<std::int64_t>* out) {
  return f.Int64(key, out);
}
std::optional<RecordError> ReadField(const JsonFields& f, std::string_view key,
                                     std::optional<double>* out) {
  return f.Double(key, out);
}

// Reads the fields of the nested object `group` ("hardware", "requested"),
// in the order of the field list, each by its type.
void ReadGroup(const JsonFields& top, std::string_view group, std::string_view what, Observation* o,
               Errors* errors, Errors* unknown) {
  auto f = Nested(top, group, what, errors, unknown, GroupFields(group));
  if (!f) return;
  const std::string prefix = std::string(group) + ".";
  internal::VisitObservationFields(*o, [&](std::string_view path, auto& field) {
    using Field = std::decay_t<decltype(field)>;
    if constexpr (std::is_same_v<Field, std::optional<std::string>> ||
                  std::is_same_v<Field, std::optional<std::int64_t>> ||
                  std::is_same_v<Field, std::optional<double>>) {
      if (path.substr(0, prefix.size()) != prefix) return;
      Note(errors, ReadField(*f, path.substr(prefix.size()), &field));
    }
  });
}

std::optional<RecordError> ReadFinishedAt(const JsonFields& top, double* out) {
  const nlohmann::json* value = top.Get("finished_at");
  if (value != nullptr && value->is_string()) {
    const auto& text = value->get_ref<const std::string&>();
    if (auto seconds = internal::ParseRfc3339(text)) {
      *out = *seconds;
      return std::nullopt;
    }
    // JsonFields reads bare NaN / Infinity tokens as marker strings that start
    // with \x01; Double below names them. Any other string is a bad timestamp.
    if (text.empty() || text[0] != '\x01') {
      return RecordError{"finished_at", fmt::format("'{}' is not an RFC 3339 timestamp: send e.g. "
                                                    "2026-11-29T16:02:37Z (offsets up to ±23:59) "
                                                    "or epoch seconds",
                                                    text)};
    }
  }
  if (value != nullptr && !value->is_number() && !value->is_string()) {
    return RecordError{"finished_at", "must be an RFC 3339 timestamp string or epoch seconds"};
  }
  std::optional<double> seconds;
  std::optional<RecordError> error = top.Double("finished_at", &seconds);
  if (!error && seconds) *out = *seconds;
  return error;
}

std::optional<RecordError> ReadStatus(const JsonFields& top, ExecutionStatus* out) {
  std::optional<std::string> text;
  if (auto error = top.String("status", &text)) return error;
  if (!text) return std::nullopt;
  if (auto status = ParseExecutionStatus(*text)) {
    *out = *status;
    return std::nullopt;
  }
  return RecordError{"status", fmt::format("'{}' is not a status: use {}", *text, ValidStatuses())};
}

// A required text field: missing, or unreadable, is an error.
void ReadRequiredText(const JsonFields& f, std::string_view key, std::string* out, Errors* errors) {
  if (auto missing = f.Required(key)) return errors->push_back(std::move(*missing));
  std::optional<std::string> text;
  Note(errors, f.String(key, &text));
  if (text) *out = std::move(*text);
}

void ReadIdentity(const JsonFields& f, Observation* o, Errors* errors) {
  ReadRequiredText(f, "execution_id", &o->execution_id, errors);
  ReadRequiredText(f, "action_image", &o->action_image, errors);
  if (auto missing = f.Required("finished_at")) {
    errors->push_back(std::move(*missing));
  } else {
    Note(errors, ReadFinishedAt(f, &o->finished_at));
  }
  Note(errors, f.String("site_id", &o->site_id));
  Note(errors, f.String("node_pool_id", &o->node_pool_id));
  Note(errors, ReadStatus(f, &o->status));
  Note(errors, f.Double("duration_s", &o->duration_s));
  Note(errors, f.String("hardware_profile_id", &o->hardware_profile_id));
}

void ReadMeasurements(const JsonFields& f, Observation* o, Errors* errors) {
  Note(errors, f.Double("gpu_compute_fraction", &o->gpu_compute_fraction));
  Note(errors, f.Double("gpu_utilization", &o->gpu_utilization));
  Note(errors, f.Double("gpu_memory_peak_gb", &o->gpu_memory_peak_gb));
  Note(errors, f.Double("cpu_millicores_avg", &o->cpu_millicores_avg));
  Note(errors, f.Double("cpu_millicores_p95", &o->cpu_millicores_p95));
  Note(errors, f.Double("cpu_millicores_max", &o->cpu_millicores_max));
  Note(errors, f.Int64("memory_peak_bytes", &o->memory_peak_bytes));
  Note(errors, f.Int64("gpu_count_held", &o->gpu_count_held));
}

}  // namespace

std::string_view ToString(ExecutionStatus status) {
  return internal::NameOf(kStatusNames, status, "");
}

std::optional<ExecutionStatus> ParseExecutionStatus(std::string_view text) {
  return internal::ValueOf(kStatusNames, text);
}

std::string_view ToString(FractionSource source) {
  return internal::NameOf(kFractionSourceNames, source, "none");
}

bool RequestedResources::operator==(const RequestedResources& o) const {
  return cpu_millicores == o.cpu_millicores && memory_bytes == o.memory_bytes &&
         gpu_memory_gb == o.gpu_memory_gb && gpu_compute_fraction == o.gpu_compute_fraction;
}

bool Observation::operator==(const Observation& o) const {
  return internal::ObservationFields(*this) == internal::ObservationFields(o);
}

ObservationParse ParseObservationJson(std::string_view json, bool strict) {
  auto parsed = internal::ParseJsonRecord(json);
  if (auto* error = std::get_if<RecordError>(&parsed)) {
    ObservationParse result;
    result.errors.push_back(std::move(*error));
    return result;
  }
  return internal::ParseObservationObject(std::get<nlohmann::json>(parsed), strict);
}

bool internal::PartialObservation::Refused(std::string_view field) const {
  // One name within the other's group: "hardware" and "hardware.gpu_count".
  auto within = [](std::string_view inner, std::string_view group) {
    return inner.size() > group.size() && inner.substr(0, group.size()) == group &&
           inner[group.size()] == '.';
  };
  return std::any_of(refused.begin(), refused.end(), [&](const std::string& r) {
    return r == field || within(r, field) || within(field, r);
  });
}

ObservationParse internal::ParseObservationObject(const nlohmann::json& object, bool strict,
                                                  std::optional<PartialObservation>* partial) {
  ObservationParse result;
  const JsonFields fields(object);
  Observation o;
  Errors unknown = fields.UnknownFields(TopFields());
  ReadIdentity(fields, &o, &result.errors);
  ReadGroup(fields, "hardware", "the pool's hardware fields", &o, &result.errors, &unknown);
  ReadMeasurements(fields, &o, &result.errors);
  ReadGroup(fields, "requested", "what the execution was given", &o, &result.errors, &unknown);
  result.execution_id = o.execution_id;
  // Fields already refused while reading are not judged again.
  for (RecordError& problem : ObservationProblems(o)) {
    const auto same = [&](const RecordError& e) { return e.field == problem.field; };
    if (std::none_of(result.errors.begin(), result.errors.end(), same)) {
      result.errors.push_back(std::move(problem));
    }
  }
  Errors& unknown_goes_to = strict ? result.errors : result.warnings;
  for (RecordError& e : unknown) {
    if (strict) e.reason += " (strict mode refuses unknown fields)";
    unknown_goes_to.push_back(std::move(e));
  }
  if (result.errors.empty()) {
    result.observation = std::move(o);
  } else if (partial != nullptr) {
    std::vector<std::string> refused;
    for (const RecordError& e : result.errors) refused.push_back(e.field);
    *partial = PartialObservation{std::move(o), std::move(refused)};
  }
  return result;
}

std::vector<RecordError> ObservationProblems(const Observation& observation) {
  Checker check;
  CheckIdentity(observation, check);
  CheckProfileId(observation.hardware_profile_id, check);
  CheckHardware(observation.hardware, check);
  CheckMeasurements(observation, check);
  CheckGpusHeld(observation, check);
  return std::move(check.errors);
}

std::optional<std::int64_t> GpusOfNode(const HardwareProfile& hardware) {
  // A node split into MIG partitions offers gpu_total of them.
  const bool partitioned = hardware.gpu_mode && hardware.gpu_mode->rfind("mig-", 0) == 0;
  if (partitioned && hardware.gpu_total.value_or(0) > 0) return hardware.gpu_total;
  if (hardware.gpu_count && *hardware.gpu_count >= 0) return hardware.gpu_count;
  return std::nullopt;
}

std::optional<RecordError> ValidateObservation(const Observation& observation) {
  std::vector<RecordError> problems = ObservationProblems(observation);
  if (problems.empty()) return std::nullopt;
  return std::move(problems.front());
}

}  // namespace hwrec
