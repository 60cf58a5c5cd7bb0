#include "base/json_entry.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

#include "base/status_error.h"

namespace hwrec::internal {

JsonEntry::JsonEntry(const nlohmann::ordered_json& object, std::string where)
    : object_(object), where_(std::move(where)) {}

void JsonEntry::Fail(std::string_view key, std::string_view what) const {
  throw StatusError(Status::InvalidArgument(fmt::format("{}: {} {}", where_, key, what)));
}

bool JsonEntry::Has(std::string_view key) const {
  const auto it = object_.find(std::string(key));
  return it != object_.end() && !it->is_null();
}

const nlohmann::ordered_json& JsonEntry::Field(std::string_view key) const {
  const auto it = object_.find(std::string(key));
  if (it == object_.end() || it->is_null()) Fail(key, "is missing: it is required");
  return *it;
}

std::string JsonEntry::String(std::string_view key) const {
  const nlohmann::ordered_json& v = Field(key);
  if (!v.is_string()) Fail(key, "must be a string");
  return v.get<std::string>();
}

std::optional<std::string> JsonEntry::OptionalString(std::string_view key) const {
  if (!Has(key)) return std::nullopt;
  return String(key);
}

std::int64_t JsonEntry::Int64(std::string_view key) const {
  const nlohmann::ordered_json& v = Field(key);
  if (!v.is_number_integer()) Fail(key, "must be a whole number");
  return v.get<std::int64_t>();
}

int JsonEntry::Int(std::string_view key) const {
  const nlohmann::ordered_json& v = Field(key);
  if (!v.is_number_integer()) Fail(key, "must be a whole number");
  return v.get<int>();
}

std::optional<std::int64_t> JsonEntry::OptionalInt64(std::string_view key) const {
  if (!Has(key)) return std::nullopt;
  return Int64(key);
}

double JsonEntry::Number(std::string_view key) const {
  const nlohmann::ordered_json& v = Field(key);
  if (!v.is_number()) Fail(key, "must be a number");
  return v.get<double>();
}

std::optional<double> JsonEntry::OptionalNumber(std::string_view key) const {
  if (!Has(key)) return std::nullopt;
  return Number(key);
}

const nlohmann::ordered_json& JsonEntry::Object(std::string_view key) const {
  const nlohmann::ordered_json& v = Field(key);
  if (!v.is_object()) Fail(key, "must be an object");
  return v;
}

const nlohmann::ordered_json& JsonEntry::Array(std::string_view key) const {
  const nlohmann::ordered_json& v = Field(key);
  if (!v.is_array()) Fail(key, "must be an array");
  return v;
}

void JsonEntry::OnlyKnown(std::initializer_list<std::string_view> known,
                          std::initializer_list<std::string_view> also_allowed) const {
  for (auto it = object_.begin(); it != object_.end(); ++it) {
    const std::string& key = it.key();
    const auto is_key = [&](std::string_view k) { return k == key; };
    if (std::none_of(known.begin(), known.end(), is_key) &&
        std::none_of(also_allowed.begin(), also_allowed.end(), is_key)) {
      throw StatusError(Status::InvalidArgument(
          fmt::format("{}: '{}' is not a known field: check its spelling", where_, key)));
    }
  }
}

}  // namespace hwrec::internal
