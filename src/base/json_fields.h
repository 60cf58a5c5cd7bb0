// Typed, validating reads of JSON object fields for the record parsers
// (observations, node pools, hardware profiles). Every failure is a RecordError
// that names the field by its path and says what was expected.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "hwrec/record_error.h"

namespace hwrec::internal {

// Parses one JSON text. Bare NaN / Infinity tokens (as some JSON writers emit)
// are not JSON; they are read as a marker so that the field holding one is
// rejected by name ("is NaN") instead of the whole line as malformed. A number
// out of double range, invalid UTF-8 or a raw control character in a string,
// and a key repeated in one object are errors naming the field's path; other
// syntax errors are "json: malformed JSON at byte N".
std::variant<nlohmann::json, RecordError> ParseJsonRecord(std::string_view text);

enum class Sign { kAny, kNonNegative, kPositive };

class JsonFields {
 public:
  // `prefix` is prepended to field names in errors: "hardware." for nested objects.
  JsonFields(const nlohmann::json& object, std::string prefix = "");

  bool Has(std::string_view key) const;  // present and not null
  // Every key of the object not in `known`, each with the closest known name.
  std::vector<RecordError> UnknownFields(std::initializer_list<std::string_view> known) const;
  std::vector<RecordError> UnknownFields(const std::vector<std::string_view>& known) const;
  // First key of the object not in `known`, as an error, or nullopt.
  std::optional<RecordError> RejectUnknown(std::initializer_list<std::string_view> known) const;

  // Each reader leaves `out` untouched when the field is absent or null and
  // returns an error when it is present with the wrong type or value. A string
  // must hold text (not only whitespace, valid UTF-8, no control characters)
  // unless `allow_empty`, which takes any string as sent.
  std::optional<RecordError> String(std::string_view key, std::optional<std::string>* out,
                                    bool allow_empty = false) const;
  std::optional<RecordError> Int64(std::string_view key, std::optional<std::int64_t>* out,
                                   Sign sign = Sign::kNonNegative) const;
  std::optional<RecordError> Double(std::string_view key, std::optional<double>* out,
                                    Sign sign = Sign::kNonNegative) const;
  // Requires presence: "is missing" when absent or null.
  std::optional<RecordError> Required(std::string_view key) const;

  std::string Path(std::string_view key) const { return prefix_ + std::string(key); }
  const nlohmann::json* Get(std::string_view key) const;

 private:
  const nlohmann::json& object_;
  std::string prefix_;
};

}  // namespace hwrec::internal
