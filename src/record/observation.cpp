#include "hwrec/observation.h"

#include <date/date.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "record/observation_json.h"
#include "base/json_fields.h"
#include "base/text.h"

namespace hwrec {

namespace {

using internal::JsonFields;
using internal::Sign;

constexpr std::array<std::pair<ExecutionStatus, std::string_view>, 5> kStatusNames = {{
    {ExecutionStatus::kSuccess, "success"},
    {ExecutionStatus::kOom, "oom"},
    {ExecutionStatus::kGpuOom, "gpu_oom"},
    {ExecutionStatus::kFailed, "failed"},
    {ExecutionStatus::kCancelled, "cancelled"},
}};

constexpr std::string_view kValidStatuses = "success, oom, gpu_oom, failed or cancelled";

// ---- RFC 3339 -------------------------------------------------------------

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool DigitsAt(std::string_view text, std::size_t pos, std::size_t count) {
  if (pos + count > text.size()) return false;
  for (std::size_t i = pos; i < pos + count; ++i) {
    if (!IsDigit(text[i])) return false;
  }
  return true;
}

// Checks the RFC 3339 shape `YYYY-MM-DDThh:mm:ss[.f+](Z|±hh:mm)` and rewrites it
// as `YYYY-MM-DDThh:mm:ss[.ffffff]±hh:mm` for date::parse, which does the
// calendar checks and the offset arithmetic. Fractions beyond microseconds are
// dropped: a double holds no more at today's epoch.
std::optional<std::string> NormaliseRfc3339(std::string_view text) {
  const bool shape = DigitsAt(text, 0, 4) && text.size() > 19 && text[4] == '-' &&
                     DigitsAt(text, 5, 2) && text[7] == '-' && DigitsAt(text, 8, 2) &&
                     (text[10] == 'T' || text[10] == 't' || text[10] == ' ') &&
                     DigitsAt(text, 11, 2) && text[13] == ':' && DigitsAt(text, 14, 2) &&
                     text[16] == ':' && DigitsAt(text, 17, 2);
  if (!shape) return std::nullopt;
  std::string out(text.substr(0, 19));
  out[10] = 'T';
  std::size_t pos = 19;
  if (text[pos] == '.') {
    std::size_t end = pos + 1;
    while (end < text.size() && IsDigit(text[end])) ++end;
    if (end == pos + 1) return std::nullopt;
    out += text.substr(pos, std::min<std::size_t>(end - pos, 7));
    pos = end;
  }
  const std::string_view zone = text.substr(pos);
  if (zone == "Z" || zone == "z") return out + "+00:00";
  const bool offset = zone.size() == 6 && (zone[0] == '+' || zone[0] == '-') &&
                      DigitsAt(zone, 1, 2) && zone[3] == ':' && DigitsAt(zone, 4, 2);
  if (!offset) return std::nullopt;
  // RFC 3339: time-numoffset hours 00-23, minutes 00-59.
  const bool in_range = (zone[1] < '2' || (zone[1] == '2' && zone[2] <= '3')) && zone[4] <= '5';
  if (!in_range) return std::nullopt;
  return out + std::string(zone);
}

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
    for (const FieldError& e : errors) {
      if (e.field == field) return;
    }
    errors.push_back(FieldError{std::string(field), std::move(reason)});
  }

  std::vector<FieldError> errors;
};

void CheckHardware(const HardwareProfile& h, Checker& check) {
  check.Text("hardware.instance_type", h.instance_type);
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

void CheckIdentity(const Observation& o, Checker& check) {
  check.Required("execution_id", o.execution_id);
  check.Required("action_image", o.action_image);
  check.NonNegative("finished_at", std::optional<double>(o.finished_at));
  check.Text("site_id", o.site_id);
  check.Text("node_pool_id", o.node_pool_id);
  check.NonNegative("duration_s", o.duration_s);
  if (ToString(o.status).empty()) {
    check.Fail("status", fmt::format("is not a status: use {}", kValidStatuses));
  }
}

void CheckProfileId(const std::optional<std::string>& id, Checker& check) {
  if (!id || ProfileIdVersionOf(*id)) return;
  check.Fail("hardware_profile_id",
             fmt::format("'{}' is not a hardware profile id: expected hp:v1:<16 hex digits> or "
                         "hp:v2:<16 hex digits> (`hwrec hardware-id` prints them)",
                         *id));
}

// ---- JSON -------------------------------------------------------------------

using Errors = std::vector<FieldError>;

void Note(Errors* errors, std::optional<FieldError> error) {
  if (error) errors->push_back(std::move(*error));
}

const std::initializer_list<std::string_view> kHardwareFields = {
    "instance_type", "architecture", "cpu_millicores", "memory_bytes", "gpu_count",
    "gpu_mode",      "gpu_total",    "gpu_brand",      "gpu_model"};
const std::initializer_list<std::string_view> kRequestedFields = {
    "cpu_millicores", "memory_bytes", "gpu_memory_gb", "gpu_compute_fraction"};
const std::initializer_list<std::string_view> kTopFields = {"execution_id",
                                                            "action_image",
                                                            "finished_at",
                                                            "site_id",
                                                            "node_pool_id",
                                                            "status",
                                                            "duration_s",
                                                            "hardware",
                                                            "hardware_profile_id",
                                                            "gpu_compute_fraction",
                                                            "gpu_utilization",
                                                            "gpu_memory_peak_gb",
                                                            "cpu_millicores_avg",
                                                            "cpu_millicores_p95",
                                                            "cpu_millicores_max",
                                                            "memory_peak_bytes",
                                                            "requested"};

// A nested object's reader: nullopt when absent, an error when not an object.
std::optional<JsonFields> Nested(const JsonFields& top, std::string_view key, std::string_view what,
                                 Errors* errors, Errors* unknown,
                                 std::initializer_list<std::string_view> known) {
  const nlohmann::json* object = top.Get(key);
  if (object == nullptr) return std::nullopt;
  if (!object->is_object()) {
    errors->push_back(FieldError{std::string(key), fmt::format("must be an object with {}", what)});
    return std::nullopt;
  }
  JsonFields fields(*object, std::string(key) + ".");
  for (FieldError& e : fields.UnknownFields(known)) unknown->push_back(std::move(e));
  return fields;
}

void ReadHardware(const JsonFields& top, HardwareProfile* h, Errors* errors, Errors* unknown) {
  auto f = Nested(top, "hardware", "the pool's hardware fields", errors, unknown, kHardwareFields);
  if (!f) return;
  Note(errors, f->String("instance_type", &h->instance_type));
  Note(errors, f->String("architecture", &h->architecture));
  Note(errors, f->Int64("cpu_millicores", &h->cpu_millicores));
  Note(errors, f->Int64("memory_bytes", &h->memory_bytes));
  Note(errors, f->Int64("gpu_count", &h->gpu_count));
  Note(errors, f->String("gpu_mode", &h->gpu_mode));
  Note(errors, f->Int64("gpu_total", &h->gpu_total));
  Note(errors, f->String("gpu_brand", &h->gpu_brand));
  Note(errors, f->String("gpu_model", &h->gpu_model));
}

void ReadRequested(const JsonFields& top, RequestedResources* r, Errors* errors, Errors* unknown) {
  auto f =
      Nested(top, "requested", "what the execution was given", errors, unknown, kRequestedFields);
  if (!f) return;
  Note(errors, f->Int64("cpu_millicores", &r->cpu_millicores));
  Note(errors, f->Int64("memory_bytes", &r->memory_bytes));
  Note(errors, f->Double("gpu_memory_gb", &r->gpu_memory_gb));
  Note(errors, f->Double("gpu_compute_fraction", &r->gpu_compute_fraction));
}

std::optional<FieldError> ReadFinishedAt(const JsonFields& top, double* out) {
  const nlohmann::json* value = top.Get("finished_at");
  if (value != nullptr && value->is_string()) {
    const auto& text = value->get_ref<const std::string&>();
    if (auto seconds = ParseRfc3339(text)) {
      *out = *seconds;
      return std::nullopt;
    }
    // JsonFields reads bare NaN / Infinity tokens as marker strings that start
    // with \x01; Double below names them. Any other string is a bad timestamp.
    if (text.empty() || text[0] != '\x01') {
      return FieldError{"finished_at", fmt::format("'{}' is not an RFC 3339 timestamp: send e.g. "
                                                   "2026-11-29T16:02:37Z (offsets up to ±23:59) "
                                                   "or epoch seconds",
                                                   text)};
    }
  }
  if (value != nullptr && !value->is_number() && !value->is_string()) {
    return FieldError{"finished_at", "must be an RFC 3339 timestamp string or epoch seconds"};
  }
  std::optional<double> seconds;
  std::optional<FieldError> error = top.Double("finished_at", &seconds);
  if (!error && seconds) *out = *seconds;
  return error;
}

std::optional<FieldError> ReadStatus(const JsonFields& top, ExecutionStatus* out) {
  std::optional<std::string> text;
  if (auto error = top.String("status", &text)) return error;
  if (!text) return std::nullopt;
  if (auto status = ParseExecutionStatus(*text)) {
    *out = *status;
    return std::nullopt;
  }
  return FieldError{"status", fmt::format("'{}' is not a status: use {}", *text, kValidStatuses)};
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
}

}  // namespace

std::string_view ToString(ExecutionStatus status) {
  for (const auto& [value, name] : kStatusNames) {
    if (value == status) return name;
  }
  return {};
}

std::optional<ExecutionStatus> ParseExecutionStatus(std::string_view text) {
  for (const auto& [value, name] : kStatusNames) {
    if (name == text) return value;
  }
  return std::nullopt;
}

std::string_view ToString(FractionSource source) {
  switch (source) {
    case FractionSource::kNone:
      return "none";
    case FractionSource::kStamped:
      return "stamped";
    case FractionSource::kCatalog:
      return "catalog";
    case FractionSource::kAssumed:
      return "assumed";
  }
  return "none";
}

bool RequestedResources::operator==(const RequestedResources& o) const {
  return cpu_millicores == o.cpu_millicores && memory_bytes == o.memory_bytes &&
         gpu_memory_gb == o.gpu_memory_gb && gpu_compute_fraction == o.gpu_compute_fraction;
}

bool Observation::operator==(const Observation& o) const {
  return execution_id == o.execution_id && action_image == o.action_image &&
         finished_at == o.finished_at && site_id == o.site_id && node_pool_id == o.node_pool_id &&
         status == o.status && duration_s == o.duration_s && hardware == o.hardware &&
         hardware_profile_id == o.hardware_profile_id &&
         gpu_compute_fraction == o.gpu_compute_fraction && gpu_utilization == o.gpu_utilization &&
         gpu_memory_peak_gb == o.gpu_memory_peak_gb && cpu_millicores_avg == o.cpu_millicores_avg &&
         cpu_millicores_p95 == o.cpu_millicores_p95 && cpu_millicores_max == o.cpu_millicores_max &&
         memory_peak_bytes == o.memory_peak_bytes && requested == o.requested;
}

ObservationParse ParseObservationJson(std::string_view json, bool strict) {
  auto parsed = internal::ParseJsonRecord(json);
  if (auto* error = std::get_if<FieldError>(&parsed)) {
    ObservationParse result;
    result.errors.push_back(std::move(*error));
    return result;
  }
  return internal::ParseObservationObject(std::get<nlohmann::json>(parsed), strict);
}

ObservationParse internal::ParseObservationObject(const nlohmann::json& object, bool strict) {
  ObservationParse result;
  const JsonFields fields(object);
  Observation o;
  Errors unknown = fields.UnknownFields(kTopFields);
  ReadIdentity(fields, &o, &result.errors);
  ReadHardware(fields, &o.hardware, &result.errors, &unknown);
  ReadMeasurements(fields, &o, &result.errors);
  ReadRequested(fields, &o.requested, &result.errors, &unknown);
  result.execution_id = o.execution_id;
  // Fields already refused while reading are not judged again.
  for (FieldError& problem : ObservationProblems(o)) {
    const auto same = [&](const FieldError& e) { return e.field == problem.field; };
    if (std::none_of(result.errors.begin(), result.errors.end(), same)) {
      result.errors.push_back(std::move(problem));
    }
  }
  Errors& unknown_goes_to = strict ? result.errors : result.warnings;
  for (FieldError& e : unknown) {
    if (strict) e.reason += " (strict mode refuses unknown fields)";
    unknown_goes_to.push_back(std::move(e));
  }
  if (result.errors.empty()) result.observation = std::move(o);
  return result;
}

std::vector<FieldError> ObservationProblems(const Observation& observation) {
  Checker check;
  CheckIdentity(observation, check);
  CheckProfileId(observation.hardware_profile_id, check);
  CheckHardware(observation.hardware, check);
  CheckMeasurements(observation, check);
  return std::move(check.errors);
}

std::optional<FieldError> ValidateObservation(const Observation& observation) {
  std::vector<FieldError> problems = ObservationProblems(observation);
  if (problems.empty()) return std::nullopt;
  return std::move(problems.front());
}

std::optional<double> ParseRfc3339(std::string_view text) {
  const auto normalised = NormaliseRfc3339(text);
  if (!normalised) return std::nullopt;
  std::istringstream in(*normalised);
  date::sys_time<std::chrono::microseconds> time;
  in >> date::parse("%FT%T%Ez", time);
  if (in.fail() || in.peek() != std::char_traits<char>::eof()) return std::nullopt;
  return static_cast<double>(time.time_since_epoch().count()) / 1e6;
}

std::string FormatRfc3339(double epoch_seconds) {
  // Beyond ±10^12 s (±31,000 years) there is no calendar date worth printing.
  if (!std::isfinite(epoch_seconds) || std::fabs(epoch_seconds) > 1e12) return "invalid-time";
  using std::chrono::microseconds;
  const microseconds since_epoch{std::llround(epoch_seconds * 1e6)};
  const date::sys_time<microseconds> time{since_epoch};
  if (since_epoch.count() % 1000000 == 0) {
    return date::format("%FT%TZ", date::floor<std::chrono::seconds>(time));
  }
  std::string text = date::format("%FT%T", time);  // six fraction digits
  while (text.back() == '0') text.pop_back();
  return text + "Z";
}

}  // namespace hwrec
