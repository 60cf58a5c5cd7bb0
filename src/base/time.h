// Time in hwrec, all of it, on one mechanism (Howard Hinnant's date over
// std::chrono): epoch seconds (double) inside, RFC 3339 UTC text outside,
// UTC days for per-day state, and the durations operators type. Pure
// functions (but the clock); thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "hwrec/status.h"

namespace hwrec::internal {

// Seconds since the epoch, now.
double NowEpochSeconds();

// OK for an absent time or epoch seconds of a real date (years 1970 to 9999);
// otherwise InvalidArgument naming `what` ("as_of", "now") and the fix.
Status CheckEpochSeconds(std::optional<double> seconds, std::string_view what);

// Parses "2026-11-29T16:02:37Z", "2026-11-29T17:02:37.5+01:00" (RFC 3339;
// also a lowercase t/z or a space between date and time); nullopt otherwise.
std::optional<double> ParseRfc3339(std::string_view text);
// Formats epoch seconds as RFC 3339 UTC with a trailing Z and the fraction
// only when there is one; "invalid-time" beyond any calendar date.
std::string FormatRfc3339(double epoch_seconds);

// The UTC day of `epoch_seconds`, "YYYY-MM-DD".
std::string UtcDay(double epoch_seconds);
// Noon UTC of a "YYYY-MM-DD" day, so that the day is the same in every reading
// of it; nullopt when `day` is not of that shape, not a calendar date
// (2026-02-30) or before 1970.
std::optional<double> UtcNoonOfDay(const std::string& day);
// `epoch_seconds` as "YYYYMMDDThhmmssZ", for file names.
std::string CompactUtcStamp(double epoch_seconds);

// "90m", "6h", "2d", "1h30m", "1w", "45s" as hours. Returns kInvalidArgument
// for anything else, and for a duration that is not longer than zero.
Result<double> ParseDurationHours(std::string_view text);

}  // namespace hwrec::internal
