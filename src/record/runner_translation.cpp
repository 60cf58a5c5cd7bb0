#include "record/runner_translation.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

#include "base/json_fields.h"

namespace hwrec::internal {

namespace {

using Json = nlohmann::json;

// A whole number spelt in decimal digits in a string ("8589934592", "-3"), as
// protobuf's JSON printing writes 64-bit integers; nothing else (no hex, no
// exponent, no spaces).
std::optional<double> NumberInString(const Json& value) {
  if (!value.is_string()) return std::nullopt;
  const std::string& text = value.get_ref<const std::string&>();
  const std::size_t first = !text.empty() && text[0] == '-' ? 1 : 0;
  if (text.size() == first || text.size() > 20) return std::nullopt;
  for (std::size_t i = first; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
  }
  return std::strtod(text.c_str(), nullptr);
}

}  // namespace

void RunnerFieldNames::Set(std::string hwrec_field, std::string runner_field) {
  for (auto& [from, to] : names_) {
    if (from == hwrec_field) {
      to = std::move(runner_field);
      return;
    }
  }
  names_.emplace_back(std::move(hwrec_field), std::move(runner_field));
}

std::string RunnerFieldNames::RunnerName(const std::string& hwrec_field) const {
  for (const auto& [from, to] : names_) {
    if (from == hwrec_field) return to;
  }
  return hwrec_field;
}

RecordError RunnerFieldNames::Renamed(RecordError error) const {
  error.field = RunnerName(error.field);
  return error;
}

// The value at `key` when present and not null.
const Json* Member(const Json& object, std::string_view key) {
  auto it = object.find(std::string(key));
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

// Reads a non-negative number of `unit` at `key`; errors name `prefix` + key
// and the unit. Absent or null leaves `out` unset.
std::optional<RecordError> ReadNumber(const Json& object, const std::string& prefix,
                                      std::string_view key, std::string_view unit,
                                      std::optional<double>* out) {
  const Json* value = Member(object, key);
  if (value == nullptr) return std::nullopt;
  Json holder = Json::object();
  holder[std::string(key)] = *value;
  if (auto number = NumberInString(*value)) holder[std::string(key)] = *number;
  std::optional<RecordError> error = JsonFields(holder, prefix).Double(key, out);
  if (error) error->reason += fmt::format(" (in {})", unit);
  return error;
}

// A whole number of `unit`: counts must be whole; bytes are rounded.
std::optional<RecordError> ReadWhole(const Json& object, const std::string& prefix,
                                     std::string_view key, std::string_view unit, bool round,
                                     std::optional<std::int64_t>* out) {
  std::optional<double> number;
  if (auto error = ReadNumber(object, prefix, key, unit, &number)) return error;
  if (!number) return std::nullopt;
  const std::string path = prefix + std::string(key);
  if (*number > kMaxWhole) {
    return RecordError{path, fmt::format("is {}: too large for {}", *number, unit)};
  }
  if (!round && std::floor(*number) != *number) {
    return RecordError{path, fmt::format("must be a whole number of {}, got {}", unit, *number)};
  }
  *out = std::llround(*number);
  return std::nullopt;
}

void Put(RunnerTranslation* t, const std::string& to, Json value) {
  const auto dot = to.find('.');
  if (dot == std::string::npos) {
    t->hwrec[to] = std::move(value);
  } else {
    t->hwrec[to.substr(0, dot)][to.substr(dot + 1)] = std::move(value);
  }
}

// Copies `key` as sent into hwrec's field `to` ("hardware.gpu_mode" nests);
// hwrec's parser then judges it, and its errors are renamed back.
void Copy(const Json& from, std::string_view key, const std::string& to, RunnerTranslation* t,
          const std::string& prefix) {
  t->names.Set(to, prefix + std::string(key));
  if (const Json* value = Member(from, key)) Put(t, to, *value);
}

// Cores as millicores, rounded to the nearest one.
void CoresToMillicores(const Json& from, const std::string& prefix, std::string_view key,
                       const std::string& to, bool whole, RunnerTranslation* t) {
  t->names.Set(to, prefix + std::string(key));
  std::optional<double> cores;
  if (auto error = ReadNumber(from, prefix, key, "cores", &cores)) {
    return t->errors.push_back(std::move(*error));
  }
  if (!cores) return;
  if (*cores > kMaxWhole / 1000) {
    return t->errors.push_back(
        RecordError{prefix + std::string(key), fmt::format("is {}: too many cores", *cores)});
  }
  const double millicores = *cores * 1000;
  if (whole) return Put(t, to, std::llround(millicores));
  Put(t, to, millicores);
}

void Whole(const Json& from, const std::string& prefix, std::string_view key, std::string_view unit,
           bool round, const std::string& to, RunnerTranslation* t) {
  t->names.Set(to, prefix + std::string(key));
  std::optional<std::int64_t> value;
  if (auto error = ReadWhole(from, prefix, key, unit, round, &value)) {
    return t->errors.push_back(std::move(*error));
  }
  if (value) Put(t, to, *value);
}

}  // namespace hwrec::internal
