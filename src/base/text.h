// Small text helpers used across src/: case folding, token splitting and edit
// distance for "did you mean" suggestions.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hwrec::internal {

std::string ToLower(std::string_view text);
std::string_view Trim(std::string_view text);
// Splits on runs of ASCII whitespace; no empty tokens.
std::vector<std::string> SplitWhitespace(std::string_view text);
// True when `haystack` contains `needle`, ASCII case-insensitively.
bool ContainsIgnoreCase(std::string_view haystack, std::string_view needle);
// Levenshtein distance over bytes.
std::size_t EditDistance(std::string_view a, std::string_view b);
// True when `text` is well-formed UTF-8 (no overlong forms, surrogates or
// code points past U+10FFFF).
bool IsValidUtf8(std::string_view text);
// The length in bytes of the well-formed UTF-8 sequence that starts at byte
// `at` (< text.size()) of `text`, or 0 when none does.
std::size_t Utf8SequenceAt(std::string_view text, std::size_t at);
// `text` with each byte that starts no well-formed UTF-8 sequence replaced by
// U+FFFD: text that every engine stores (PostgreSQL refuses invalid UTF-8).
std::string ReplaceInvalidUtf8(std::string_view text);
// The first `max_bytes` of `text` (all of it when shorter) without a UTF-8
// character cut short at the end: for keeping the start of a text that may
// itself have been cut.
std::string_view Utf8Prefix(std::string_view text, std::size_t max_bytes);
// A number of hours for people: to 4 decimals (a second is 0.0003 h), without
// trailing zeros ("24", "0.1667", "168.0003"); past a billion hours as "{}" does.
std::string HoursText(double hours);
// Why `text` cannot be stored as an id, image or other text field: invalid
// UTF-8, or a control character (U+0000-U+001F, U+007F); nullopt when fine.
std::optional<std::string> TextProblem(std::string_view text);

// The most bytes of a text that keys the store's rows (a PostgreSQL index
// entry holds 2704 bytes at most): one over-long id must be its own record's
// or line's error, not the failure of the batch it is written in.
inline constexpr std::size_t kMaxIdBytes = 1024;      // an execution id, an image
inline constexpr std::size_t kMaxKeyNameBytes = 256;  // a pool's ids, a hardware key's names
// Why `text` is too long to key the store's rows, or nullopt.
std::optional<std::string> KeyLengthProblem(std::string_view text, std::size_t max_bytes);
// The entry of `candidates` closest to `word` by edit distance, when close
// enough to be a likely misspelling; nullopt otherwise.
std::optional<std::string> ClosestSpelling(std::string_view word,
                                           const std::vector<std::string_view>& candidates);
// "a", "a or b", "a, b or c"
std::string JoinOr(const std::vector<std::string>& items);

}  // namespace hwrec::internal
