// Small text helpers used across src/: case folding, token splitting and edit
// distance for "did you mean" suggestions.
#pragma once

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
// "a", "a or b", "a, b or c"
std::string JoinOr(const std::vector<std::string>& items);

}  // namespace hwrec::internal
