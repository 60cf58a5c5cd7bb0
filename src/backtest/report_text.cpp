// How the backtest report shows a figure (its title, unit and scale), numbers
// as labels and text as HTML (report_chart.h): what the page and its charts
// share. Pure functions.
#include "backtest/report_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/text.h"

namespace hwrec::internal {

namespace {

constexpr std::array<FigureDisplay, kFigureCount> kDisplays = {{
    {"CPU request", "cores", 1e-3, "core·h", "throttled: used more CPU than requested"},
    {"CPU limit", "cores", 1e-3, "core·h", "throttled: used more CPU than the limit"},
    {"memory", "GiB", 1.0 / (1024.0 * 1024.0 * 1024.0), "GiB·h",
     "an OOM: used more memory than requested"},
    {"GPU memory", "GiB", 1, "GiB·h", "an OOM: used more GPU memory than requested"},
    {"GPU compute share", "of a card", 1, "card·h", "ran slower: used more of the card"},
}};

}  // namespace

const FigureDisplay& DisplayOf(FigureKind kind) {
  return kDisplays[std::min(static_cast<std::size_t>(kind), kDisplays.size() - 1)];
}

namespace {

// The code point of the well-formed UTF-8 sequence of `length` bytes at `at`.
char32_t CodePointAt(std::string_view text, std::size_t at, std::size_t length) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[at + k]); };
  static constexpr unsigned char kLeadMask[] = {0, 0x7F, 0x1F, 0x0F, 0x07};
  char32_t value = byte(0) & kLeadMask[length];
  for (std::size_t k = 1; k < length; ++k) value = (value << 6) | (byte(k) & 0x3Fu);
  return value;
}

// Characters a reader cannot see, or that reorder what they see: C1 controls,
// bidirectional marks, embeddings, overrides and isolates, line and paragraph
// separators, zero-width spaces and joiners, the word joiner, the byte order
// mark. The page shows them as `\u202e`, as the CLI does, so that a name
// reads as what it holds.
bool IsInvisible(char32_t c) {
  return (c >= 0x80 && c <= 0x9F) || c == 0x061C || (c >= 0x200B && c <= 0x200F) ||
         (c >= 0x2028 && c <= 0x202E) || (c >= 0x2060 && c <= 0x2069) || c == 0xFEFF;
}

}  // namespace

std::string EscapeHtml(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    const auto byte = static_cast<unsigned char>(c);
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        if (byte >= 0x80) {
          // A well-formed sequence is kept whole; each byte of a broken one
          // becomes U+FFFD.
          const std::size_t length = internal::Utf8SequenceAt(text, i);
          if (length > 0) {
            const char32_t code_point = CodePointAt(text, i, length);
            if (IsInvisible(code_point)) {
              out += fmt::format("\\u{:04x}", static_cast<std::uint32_t>(code_point));
            } else {
              out.append(text.substr(i, length));
            }
            i += length;
            continue;
          }
          out += "\xEF\xBF\xBD";
        } else if (byte < 0x20 || byte == 0x7f) {
          out += "\xEF\xBF\xBD";  // U+FFFD
        } else {
          out += c;
        }
    }
    ++i;
  }
  return out;
}

std::string ValueText(double value) {
  if (!std::isfinite(value)) return "-";
  if (std::fabs(value) >= 1e4) return fmt::format("{:.0f}", value);
  return fmt::format("{:.4g}", value);
}

}  // namespace hwrec::internal
