// Small text and clock helpers the tools share: lists in messages, blank
// input lines, the time now. (Hours print with hwrec::FormatHours.)
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hwrec::tools {

// "a", "a or b", "a, b or c".
std::string JoinOr(const std::vector<std::string>& items);

// True when `line` holds only spaces, tabs and line ends.
bool IsBlank(std::string_view line);

// Seconds since the epoch, now (the system clock).
double NowEpochSeconds();

}  // namespace hwrec::tools
