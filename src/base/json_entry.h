// JsonEntry: typed reads of one entry of a settings document (the router
// configuration, `hwrec config import`), whose errors name the entry and the
// field: "<where>: <key> must be a whole number". Unlike JsonFields (records,
// every problem collected), a settings document stops at its first problem:
// each reader throws StatusError with kInvalidArgument, which
// store/guarded.h returns unchanged at the public boundary.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace hwrec::internal {

class JsonEntry {
 public:
  // `where` names the entry in errors ("gcp_machines[2]", "settings").
  JsonEntry(const nlohmann::ordered_json& object, std::string where);

  bool Has(std::string_view key) const;  // present and not null
  // "<where>: <key> is missing: it is required" when absent or null.
  const nlohmann::ordered_json& Field(std::string_view key) const;
  std::string String(std::string_view key) const;  // "... must be a string"
  std::optional<std::string> OptionalString(std::string_view key) const;
  int Int(std::string_view key) const;             // "... must be a whole number"
  std::int64_t Int64(std::string_view key) const;  // the same
  std::optional<std::int64_t> OptionalInt64(std::string_view key) const;
  double Number(std::string_view key) const;  // "... must be a number"
  std::optional<double> OptionalNumber(std::string_view key) const;
  const nlohmann::ordered_json& Object(std::string_view key) const;  // "... must be an object"
  const nlohmann::ordered_json& Array(std::string_view key) const;   // "... must be an array"
  // "<where>: '<key>' is not a known field: check its spelling" for the first
  // key in neither `known` nor `also_allowed`.
  void OnlyKnown(std::initializer_list<std::string_view> known,
                 std::initializer_list<std::string_view> also_allowed = {}) const;

  const std::string& where() const { return where_; }

 private:
  [[noreturn]] void Fail(std::string_view key, std::string_view what) const;

  const nlohmann::ordered_json& object_;
  std::string where_;
};

}  // namespace hwrec::internal
