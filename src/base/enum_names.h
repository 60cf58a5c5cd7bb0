// Enum names from one table per enum: the table is the only place a name is
// spelled, and ToString, parsing and "one of: …" messages all read it.
//
//   constexpr EnumName<Provenance> kProvenanceNames[] = {
//       {Provenance::kExact, "exact"}, {Provenance::kNone, "none"}};
//   std::string_view ToString(Provenance p) { return NameOf(kProvenanceNames, p); }
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hwrec::internal {

template <typename E>
struct EnumName {
  E value;
  std::string_view name;
};

// The name of `value`; `fallback` for a value missing from the table.
template <typename E, std::size_t N>
constexpr std::string_view NameOf(const EnumName<E> (&table)[N], E value,
                                  std::string_view fallback = "unknown") {
  for (const auto& entry : table) {
    if (entry.value == value) return entry.name;
  }
  return fallback;
}

// The value named `name` (exact spelling), if any.
template <typename E, std::size_t N>
constexpr std::optional<E> ValueOf(const EnumName<E> (&table)[N], std::string_view name) {
  for (const auto& entry : table) {
    if (entry.name == name) return entry.value;
  }
  return std::nullopt;
}

// Every name, in table order, joined by `separator` ("success, failed, oom").
template <typename E, std::size_t N>
std::string JoinNames(const EnumName<E> (&table)[N], std::string_view separator = ", ") {
  std::string out;
  for (const auto& entry : table) {
    if (!out.empty()) out += separator;
    out += entry.name;
  }
  return out;
}

// Every name, in table order, for JoinOr ("success, oom or failed").
template <typename E, std::size_t N>
std::vector<std::string> NamesOf(const EnumName<E> (&table)[N]) {
  std::vector<std::string> names;
  for (const auto& entry : table) names.emplace_back(entry.name);
  return names;
}

}  // namespace hwrec::internal
