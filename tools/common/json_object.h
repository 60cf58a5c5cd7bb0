// JSON for command output: objects written as one list of keys and values,
// JsonObject("added", 3, "unchanged", 1) is {"added": 3, "unchanged": 1},
// keys kept in the order given (what the output promises); and their text,
// which never fails on text that is not valid UTF-8.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <utility>

namespace hwrec::tools {

namespace detail {
inline void AddFields(nlohmann::ordered_json&) {}

template <typename Value, typename... Rest>
void AddFields(nlohmann::ordered_json& object, const char* key, Value&& value, Rest&&... rest) {
  object[key] = std::forward<Value>(value);
  AddFields(object, std::forward<Rest>(rest)...);
}
}  // namespace detail

// An object of the (key, value) pairs given, in order; a later key replaces
// an earlier one's value in place.
template <typename... KeysAndValues>
nlohmann::ordered_json JsonObject(KeysAndValues&&... keys_and_values) {
  static_assert(sizeof...(KeysAndValues) % 2 == 0, "JsonObject takes keys and values in pairs");
  nlohmann::ordered_json object = nlohmann::ordered_json::object();
  detail::AddFields(object, std::forward<KeysAndValues>(keys_and_values)...);
  return object;
}

// JSON text for output: invalid UTF-8 in stored or given text is replaced
// (U+FFFD) instead of failing the command. `indent` < 0 prints one line.
template <typename Json>
std::string DumpJson(const Json& json, int indent = 2) {
  return json.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace hwrec::tools
