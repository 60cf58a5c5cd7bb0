#include "base/json_fields.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <vector>

#include "base/enum_names.h"
#include "base/json_values.h"
#include "base/text.h"

namespace hwrec::internal {

namespace {

constexpr EnumName<Sign> kSignWords[] = {
    {Sign::kPositive, "greater than zero"},
    {Sign::kNonNegative, "zero or more"},
    {Sign::kAny, ""},
};

std::string_view SignWords(Sign sign) { return NameOf(kSignWords, sign, ""); }

}  // namespace

JsonFields::JsonFields(const nlohmann::json& object, std::string prefix)
    : object_(object), prefix_(std::move(prefix)) {}

const nlohmann::json* JsonFields::Get(std::string_view key) const {
  auto it = object_.find(key);
  if (it == object_.end() || it->is_null()) return nullptr;
  return &*it;
}

bool JsonFields::Has(std::string_view key) const { return Get(key) != nullptr; }

std::vector<RecordError> JsonFields::UnknownFields(
    std::initializer_list<std::string_view> known) const {
  return UnknownFields(std::vector<std::string_view>(known));
}

std::vector<RecordError> JsonFields::UnknownFields(
    const std::vector<std::string_view>& names) const {
  std::vector<RecordError> unknown;
  for (auto it = object_.begin(); it != object_.end(); ++it) {
    if (std::find(names.begin(), names.end(), it.key()) != names.end()) continue;
    const auto closest = ClosestSpelling(it.key(), names);
    unknown.push_back(RecordError{
        Path(it.key()), closest ? fmt::format("is not a known field: did you mean `{}`?", *closest)
                                : std::string("is not a known field: check its spelling")});
  }
  return unknown;
}

std::optional<RecordError> JsonFields::RejectUnknown(
    std::initializer_list<std::string_view> known) const {
  std::vector<RecordError> unknown = UnknownFields(known);
  if (unknown.empty()) return std::nullopt;
  return std::move(unknown.front());
}

std::optional<RecordError> JsonFields::Required(std::string_view key) const {
  if (Has(key)) return std::nullopt;
  return RecordError{Path(key), "is missing: it is required"};
}

std::optional<RecordError> JsonFields::String(std::string_view key, std::optional<std::string>* out,
                                              bool allow_empty) const {
  const nlohmann::json* value = Get(key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_string() || IsMarker(*value, kNanMarker) || IsMarker(*value, kInfMarker)) {
    return RecordError{Path(key), fmt::format("must be a string, got {}", Describe(*value))};
  }
  const auto& text = value->get_ref<const std::string&>();
  if (allow_empty) {
    *out = text;
    return std::nullopt;
  }
  if (Trim(text).empty()) {
    return RecordError{Path(key), text.empty() ? "is empty: give a value or leave the field out"
                                               : "is only whitespace: give a value or leave the "
                                                 "field out"};
  }
  if (auto problem = TextProblem(text)) return RecordError{Path(key), std::move(*problem)};
  *out = text;
  return std::nullopt;
}

std::optional<RecordError> JsonFields::Double(std::string_view key, std::optional<double>* out,
                                              Sign sign) const {
  const nlohmann::json* value = Get(key);
  if (value == nullptr) return std::nullopt;
  if (IsMarker(*value, kNanMarker)) return RecordError{Path(key), "is NaN: send a number"};
  if (IsMarker(*value, kInfMarker))
    return RecordError{Path(key), "is infinite: send a finite number"};
  if (!value->is_number()) {
    return RecordError{Path(key), fmt::format("must be a number, got {}", Describe(*value))};
  }
  const double number = value->get<double>();
  if (!std::isfinite(number)) return RecordError{Path(key), "is not finite: send a finite number"};
  if ((sign == Sign::kNonNegative && number < 0) || (sign == Sign::kPositive && number <= 0)) {
    return RecordError{Path(key), fmt::format("is {}: it must be {}", number, SignWords(sign))};
  }
  *out = number;
  return std::nullopt;
}

std::optional<RecordError> JsonFields::Int64(std::string_view key, std::optional<std::int64_t>* out,
                                             Sign sign) const {
  const nlohmann::json* value = Get(key);
  if (value == nullptr) return std::nullopt;
  if (IsMarker(*value, kNanMarker)) return RecordError{Path(key), "is NaN: send a whole number"};
  if (IsMarker(*value, kInfMarker)) {
    return RecordError{Path(key), "is infinite: send a whole number"};
  }
  std::int64_t number = 0;
  if (value->is_number_integer()) {
    if (value->is_number_unsigned() &&
        value->get<std::uint64_t>() >
            static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      return RecordError{Path(key), "is too large for a 64-bit integer"};
    }
    number = value->get<std::int64_t>();
  } else if (value->is_number_float()) {
    const double d = value->get<double>();
    if (!std::isfinite(d) || std::floor(d) != d || std::fabs(d) > 9.0e18) {
      return RecordError{Path(key), fmt::format("must be a whole number, got {}", d)};
    }
    number = static_cast<std::int64_t>(d);
  } else {
    return RecordError{Path(key), fmt::format("must be a whole number, got {}", Describe(*value))};
  }
  if ((sign == Sign::kNonNegative && number < 0) || (sign == Sign::kPositive && number <= 0)) {
    return RecordError{Path(key), fmt::format("is {}: it must be {}", number, SignWords(sign))};
  }
  *out = number;
  return std::nullopt;
}

}  // namespace hwrec::internal
