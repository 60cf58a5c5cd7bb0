#include "util/json_fields.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

namespace hwrec::internal {

namespace {

// Markers as parsed, and as written into the JSON text (control characters escaped).
constexpr std::string_view kNanMarker = "\x01hwrec-nan\x01";
constexpr std::string_view kInfMarker = "\x01hwrec-inf\x01";
constexpr std::string_view kNanToken = R"("\u0001hwrec-nan\u0001")";
constexpr std::string_view kInfToken = R"("\u0001hwrec-inf\u0001")";

// Replaces bare NaN/Infinity/-Infinity tokens outside strings by marker strings.
std::optional<std::string> QuoteNonFiniteTokens(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 16);
  bool in_string = false;
  bool replaced = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) {
        out += text[++i];
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
      out += c;
      continue;
    }
    auto token_at = [&](std::string_view token) { return text.substr(i, token.size()) == token; };
    if (token_at("NaN")) {
      out += kNanToken;
      i += 2;
      replaced = true;
    } else if (token_at("-Infinity")) {
      out += kInfToken;
      i += 8;
      replaced = true;
    } else if (token_at("Infinity")) {
      out += kInfToken;
      i += 7;
      replaced = true;
    } else {
      out += c;
    }
  }
  if (!replaced) return std::nullopt;
  return out;
}

std::string Describe(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::string:
      return "a string";
    case nlohmann::json::value_t::boolean:
      return "a boolean";
    case nlohmann::json::value_t::object:
      return "an object";
    case nlohmann::json::value_t::array:
      return "an array";
    case nlohmann::json::value_t::number_float:
      return "a fractional number";
    default:
      return "a number";
  }
}

bool IsMarker(const nlohmann::json& value, std::string_view marker) {
  return value.is_string() && value.get_ref<const std::string&>() == marker;
}

const char* SignWords(Sign sign) {
  switch (sign) {
    case Sign::kPositive:
      return "greater than zero";
    case Sign::kNonNegative:
      return "zero or more";
    case Sign::kAny:
      return "";
  }
  return "";
}

}  // namespace

std::variant<nlohmann::json, FieldError> ParseJsonRecord(std::string_view text) {
  auto parsed = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  if (parsed.is_discarded()) {
    if (auto quoted = QuoteNonFiniteTokens(text)) {
      parsed = nlohmann::json::parse(*quoted, nullptr, false);
    }
  }
  if (parsed.is_discarded()) {
    try {
      const auto reparsed = nlohmann::json::parse(text.begin(), text.end());
      static_cast<void>(reparsed);
    } catch (const nlohmann::json::parse_error& e) {
      return FieldError{"json", fmt::format("malformed JSON at byte {}: fix the line so that it "
                                            "is one JSON object",
                                            e.byte)};
    }
    return FieldError{"json", "malformed JSON: fix the line so that it is one JSON object"};
  }
  if (!parsed.is_object()) {
    return FieldError{"json", fmt::format("expected a JSON object, got {}", Describe(parsed))};
  }
  return parsed;
}

JsonFields::JsonFields(const nlohmann::json& object, std::string prefix)
    : object_(object), prefix_(std::move(prefix)) {}

const nlohmann::json* JsonFields::Get(std::string_view key) const {
  auto it = object_.find(key);
  if (it == object_.end() || it->is_null()) return nullptr;
  return &*it;
}

bool JsonFields::Has(std::string_view key) const { return Get(key) != nullptr; }

std::optional<FieldError> JsonFields::RejectUnknown(
    std::initializer_list<std::string_view> known) const {
  for (auto it = object_.begin(); it != object_.end(); ++it) {
    bool found = false;
    for (std::string_view k : known) found = found || it.key() == k;
    if (!found) {
      return FieldError{Path(it.key()), "is not a known field: check its spelling"};
    }
  }
  return std::nullopt;
}

std::optional<FieldError> JsonFields::Required(std::string_view key) const {
  if (Has(key)) return std::nullopt;
  return FieldError{Path(key), "is missing: it is required"};
}

std::optional<FieldError> JsonFields::String(std::string_view key, std::optional<std::string>* out,
                                             bool allow_empty) const {
  const nlohmann::json* value = Get(key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_string() || IsMarker(*value, kNanMarker) || IsMarker(*value, kInfMarker)) {
    return FieldError{Path(key), fmt::format("must be a string, got {}", Describe(*value))};
  }
  const auto& text = value->get_ref<const std::string&>();
  if (!allow_empty && text.empty()) {
    return FieldError{Path(key), "is empty: give a value or leave the field out"};
  }
  *out = text;
  return std::nullopt;
}

std::optional<FieldError> JsonFields::Double(std::string_view key, std::optional<double>* out,
                                             Sign sign) const {
  const nlohmann::json* value = Get(key);
  if (value == nullptr) return std::nullopt;
  if (IsMarker(*value, kNanMarker)) return FieldError{Path(key), "is NaN: send a number"};
  if (IsMarker(*value, kInfMarker))
    return FieldError{Path(key), "is infinite: send a finite number"};
  if (!value->is_number()) {
    return FieldError{Path(key), fmt::format("must be a number, got {}", Describe(*value))};
  }
  const double number = value->get<double>();
  if (!std::isfinite(number)) return FieldError{Path(key), "is not finite: send a finite number"};
  if ((sign == Sign::kNonNegative && number < 0) || (sign == Sign::kPositive && number <= 0)) {
    return FieldError{Path(key), fmt::format("is {}: it must be {}", number, SignWords(sign))};
  }
  *out = number;
  return std::nullopt;
}

std::optional<FieldError> JsonFields::Int64(std::string_view key, std::optional<std::int64_t>* out,
                                            Sign sign) const {
  const nlohmann::json* value = Get(key);
  if (value == nullptr) return std::nullopt;
  if (IsMarker(*value, kNanMarker)) return FieldError{Path(key), "is NaN: send a whole number"};
  if (IsMarker(*value, kInfMarker)) {
    return FieldError{Path(key), "is infinite: send a whole number"};
  }
  std::int64_t number = 0;
  if (value->is_number_integer()) {
    if (value->is_number_unsigned() &&
        value->get<std::uint64_t>() >
            static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      return FieldError{Path(key), "is too large for a 64-bit integer"};
    }
    number = value->get<std::int64_t>();
  } else if (value->is_number_float()) {
    const double d = value->get<double>();
    if (!std::isfinite(d) || std::floor(d) != d || std::fabs(d) > 9.0e18) {
      return FieldError{Path(key), fmt::format("must be a whole number, got {}", d)};
    }
    number = static_cast<std::int64_t>(d);
  } else {
    return FieldError{Path(key), fmt::format("must be a whole number, got {}", Describe(*value))};
  }
  if ((sign == Sign::kNonNegative && number < 0) || (sign == Sign::kPositive && number <= 0)) {
    return FieldError{Path(key), fmt::format("is {}: it must be {}", number, SignWords(sign))};
  }
  *out = number;
  return std::nullopt;
}

}  // namespace hwrec::internal
