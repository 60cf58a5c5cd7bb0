#include "base/text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>

namespace hwrec::internal {

namespace {
char LowerAscii(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }
bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }
}  // namespace

std::string ToLower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), LowerAscii);
  return out;
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && IsSpace(text.front())) text.remove_prefix(1);
  while (!text.empty() && IsSpace(text.back())) text.remove_suffix(1);
  return text;
}

std::vector<std::string> SplitWhitespace(std::string_view text) {
  std::vector<std::string> tokens;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && IsSpace(text[i])) ++i;
    const std::size_t start = i;
    while (i < text.size() && !IsSpace(text[i])) ++i;
    if (i > start) tokens.emplace_back(text.substr(start, i - start));
  }
  return tokens;
}

bool ContainsIgnoreCase(std::string_view haystack, std::string_view needle) {
  return ToLower(haystack).find(ToLower(needle)) != std::string::npos;
}

std::size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + cost});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::size_t Utf8SequenceAt(std::string_view text, std::size_t at) {
  const auto lead = static_cast<unsigned char>(text[at]);
  std::size_t length = 0;
  std::uint32_t code = 0;
  if (lead < 0x80) {
    return 1;
  } else if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
    code = lead & 0x1Fu;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    code = lead & 0x0Fu;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    code = lead & 0x07u;
  } else {
    return 0;
  }
  if (at + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k) {
    const auto next = static_cast<unsigned char>(text[at + k]);
    if ((next & 0xC0u) != 0x80u) return 0;
    code = (code << 6) | (next & 0x3Fu);
  }
  const bool overlong = (length == 3 && code < 0x800) || (length == 4 && code < 0x10000);
  if (overlong || (code >= 0xD800 && code <= 0xDFFF) || code > 0x10FFFF) return 0;
  return length;
}

bool IsValidUtf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = Utf8SequenceAt(text, i);
    if (length == 0) return false;
    i += length;
  }
  return true;
}

std::string ReplaceInvalidUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = Utf8SequenceAt(text, i);
    if (length == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
      ++i;
    } else {
      out.append(text, i, length);
      i += length;
    }
  }
  return out;
}

std::string_view Utf8Prefix(std::string_view text, std::size_t max_bytes) {
  const std::string_view prefix = text.substr(0, max_bytes);
  // The last lead byte among the final four, and whether its sequence is cut short.
  for (std::size_t back = 1; back <= 4 && back <= prefix.size(); ++back) {
    const std::size_t at = prefix.size() - back;
    const auto byte = static_cast<unsigned char>(prefix[at]);
    if ((byte & 0xC0u) == 0x80u) continue;  // a continuation byte: look further back
    const std::size_t length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1;
    return length > back ? prefix.substr(0, at) : prefix;
  }
  return prefix;
}

std::string HoursText(double hours) {
  if (!(std::fabs(hours) < 1e9)) return fmt::format("{}", hours);
  std::string text = fmt::format("{:.4f}", hours);
  text.erase(text.find_last_not_of('0') + 1);
  if (text.back() == '.') text.pop_back();
  return text == "-0" ? "0" : text;
}

std::optional<std::string> KeyLengthProblem(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return std::nullopt;
  return fmt::format(
      "is {} bytes, more than the {} hwrec keys its rows by: send at most {} bytes (e.g. a hash "
      "of a longer value)",
      text.size(), max_bytes, max_bytes);
}

std::optional<std::string> TextProblem(std::string_view text) {
  if (!IsValidUtf8(text)) return "is not valid UTF-8: send UTF-8 text";
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7F) {
      char code[8];
      std::snprintf(code, sizeof code, "U+%04X", byte);
      return std::string("holds the control character ") + code +
             ": send printable text (remove it, or spell it out)";
    }
  }
  return std::nullopt;
}

std::optional<std::string> ClosestSpelling(std::string_view word,
                                           const std::vector<std::string_view>& candidates) {
  // Close: at most half the longer spelling differs, or they share a prefix of
  // at least half the candidate ("memory_peak_gib" → "memory_peak_bytes").
  // Ties go to the longer shared prefix: a misspelt unit keeps the name's start.
  // A word that starts a candidate is an abbreviation of it and ranks first.
  std::optional<std::string> best;
  std::size_t best_distance = 0;
  std::size_t best_prefix = 0;
  bool best_abbreviation = false;
  for (std::string_view candidate : candidates) {
    const std::size_t distance = EditDistance(word, candidate);
    std::size_t prefix = 0;
    while (prefix < word.size() && prefix < candidate.size() && word[prefix] == candidate[prefix])
      ++prefix;
    const bool close =
        2 * distance <= std::max(word.size(), candidate.size()) || 2 * prefix >= candidate.size();
    const bool abbreviation = prefix == word.size();
    const bool better =
        !best || (abbreviation && !best_abbreviation) ||
        (abbreviation == best_abbreviation &&
         (distance < best_distance || (distance == best_distance && prefix > best_prefix)));
    if (close && better) {
      best = std::string(candidate);
      best_distance = distance;
      best_prefix = prefix;
      best_abbreviation = abbreviation;
    }
  }
  return best;
}

std::string JoinOr(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += (i + 1 == items.size()) ? " or " : ", ";
    out += items[i];
  }
  return out;
}

}  // namespace hwrec::internal
