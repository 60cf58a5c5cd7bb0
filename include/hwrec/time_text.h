// Times and durations as hwrec reads and writes them: epoch seconds (double)
// inside, RFC 3339 UTC text outside, durations as operators type them. The
// CLI, the Python module and the Runner's records read them the same way.
// Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "hwrec/export.h"
#include "hwrec/status.h"

namespace hwrec {

// Epoch seconds of "2026-11-29T16:02:37Z" or "2026-11-29T17:02:37.5+01:00"
// (RFC 3339; also a lowercase t/z or a space between date and time); nullopt
// for any other text.
HWREC_EXPORT std::optional<double> ParseTime(std::string_view text);

// RFC 3339 UTC text with a trailing Z, the fraction only when there is one.
HWREC_EXPORT std::string FormatTime(double epoch_seconds);

// The UTC day of `epoch_seconds`, "2026-07-08": the day under which the
// width router keeps its per-day state (RouterDayState::day).
HWREC_EXPORT std::string UtcDay(double epoch_seconds);

// Noon UTC of a "YYYY-MM-DD" day, so that every reading of it falls on that
// day; nullopt when `day` is not of that shape, not a calendar date
// (2026-02-30) or before 1970.
HWREC_EXPORT std::optional<double> ParseUtcDay(std::string_view day);

// "90m", "6h", "2d", "1h30m", "1w", "45s" as hours. Returns kInvalidArgument,
// with an example, for anything else and for a length that is not above zero.
HWREC_EXPORT Result<double> ParseDurationHours(std::string_view text);

// Hours as hwrec's messages and reports print them: at most four decimals,
// no trailing zeros ("6", "1.5", "0.0833").
HWREC_EXPORT std::string FormatHours(double hours);

}  // namespace hwrec
