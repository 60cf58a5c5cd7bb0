// What the JSON record parser and the field readers share: the markers that
// stand for bare NaN / Infinity tokens, and how a value's type is described
// in messages ("a string", "an array").
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <string_view>

namespace hwrec::internal {

// Markers as parsed, and as written into the JSON text (control characters escaped).
inline constexpr std::string_view kNanMarker = "\x01hwrec-nan\x01";
inline constexpr std::string_view kInfMarker = "\x01hwrec-inf\x01";
inline constexpr std::string_view kNanToken = R"("\u0001hwrec-nan\u0001")";
inline constexpr std::string_view kInfToken = R"("\u0001hwrec-inf\u0001")";

// "a string", "a boolean", "an object", "an array", "a fractional number", "a number".
std::string Describe(const nlohmann::json& value);

// Whether `value` is the string `marker`.
bool IsMarker(const nlohmann::json& value, std::string_view marker);

}  // namespace hwrec::internal
