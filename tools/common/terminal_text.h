// What hwrec's tools show on a terminal: text from a store, an input file or
// the command line passes through TerminalSafe so that no control character,
// escape sequence or invalid UTF-8 byte reaches the terminal raw (JSON
// output: DumpJson, common/json_object.h).
#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>

namespace hwrec::tools {

// `text` with every control character written as an escape: `\n`, `\t`, `\r`,
// other C0 bytes and DEL as `\x1b`; C1 controls, bidirectional overrides and
// line separators as `\u009b`; bytes that are not valid UTF-8 as `\xff`.
// Printable text, including non-ASCII UTF-8, is unchanged.
std::string TerminalSafe(std::string_view text);

// The terminal columns `text` takes: 2 for each East Asian wide or fullwidth
// code point, 0 for combining marks and zero-width characters, 1 for the
// rest (a byte that is not UTF-8 counts 1).
std::size_t DisplayWidth(std::string_view text);

namespace detail {
template <typename T>
using TerminalArg =
    std::conditional_t<std::is_convertible_v<const T&, std::string_view>, std::string, T>;

template <typename T>
decltype(auto) ForTerminal(const T& value) {
  if constexpr (std::is_convertible_v<const T&, std::string_view>) {
    return TerminalSafe(std::string_view(value));
  } else {
    return value;
  }
}
}  // namespace detail

// fmt::format for lines printed to a terminal: every text argument goes
// through TerminalSafe; the format string itself is hwrec's own and kept.
template <typename... Args>
std::string TerminalFormat(fmt::format_string<detail::TerminalArg<std::decay_t<Args>>...> format,
                           const Args&... args) {
  return fmt::vformat(fmt::string_view(format),
                      fmt::make_format_args(detail::ForTerminal(args)...));
}

}  // namespace hwrec::tools
