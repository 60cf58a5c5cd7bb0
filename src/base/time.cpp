#include "base/time.h"

#include "base/text.h"

#include "hwrec/time_text.h"

#include <date/date.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

namespace hwrec::internal {

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool DigitsAt(std::string_view text, std::size_t pos, std::size_t count) {
  if (pos + count > text.size()) return false;
  for (std::size_t i = pos; i < pos + count; ++i) {
    if (!IsDigit(text[i])) return false;
  }
  return true;
}

// Checks the RFC 3339 shape `YYYY-MM-DDThh:mm:ss[.f+](Z|±hh:mm)` and rewrites it
// as `YYYY-MM-DDThh:mm:ss[.ffffff]±hh:mm` for date::parse, which does the
// calendar checks and the offset arithmetic. Fractions beyond microseconds are
// dropped: a double holds no more at today's epoch.
std::optional<std::string> NormaliseRfc3339(std::string_view text) {
  const bool shape = DigitsAt(text, 0, 4) && text.size() > 19 && text[4] == '-' &&
                     DigitsAt(text, 5, 2) && text[7] == '-' && DigitsAt(text, 8, 2) &&
                     (text[10] == 'T' || text[10] == 't' || text[10] == ' ') &&
                     DigitsAt(text, 11, 2) && text[13] == ':' && DigitsAt(text, 14, 2) &&
                     text[16] == ':' && DigitsAt(text, 17, 2);
  if (!shape) return std::nullopt;
  std::string out(text.substr(0, 19));
  out[10] = 'T';
  std::size_t pos = 19;
  if (text[pos] == '.') {
    std::size_t end = pos + 1;
    while (end < text.size() && IsDigit(text[end])) ++end;
    if (end == pos + 1) return std::nullopt;
    out += text.substr(pos, std::min<std::size_t>(end - pos, 7));
    pos = end;
  }
  const std::string_view zone = text.substr(pos);
  if (zone == "Z" || zone == "z") return out + "+00:00";
  const bool offset = zone.size() == 6 && (zone[0] == '+' || zone[0] == '-') &&
                      DigitsAt(zone, 1, 2) && zone[3] == ':' && DigitsAt(zone, 4, 2);
  if (!offset) return std::nullopt;
  // RFC 3339: time-numoffset hours 00-23, minutes 00-59.
  const bool in_range = (zone[1] < '2' || (zone[1] == '2' && zone[2] <= '3')) && zone[4] <= '5';
  if (!in_range) return std::nullopt;
  return out + std::string(zone);
}

std::optional<double> UnitHours(char unit) {
  switch (unit) {
    case 's':
      return 1.0 / 3600;
    case 'm':
      return 1.0 / 60;
    case 'h':
      return 1.0;
    case 'd':
      return 24.0;
    case 'w':
      return 168.0;
    default:
      return std::nullopt;
  }
}

}  // namespace

double NowEpochSeconds() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

Status CheckEpochSeconds(std::optional<double> seconds, std::string_view what) {
  constexpr double kLastSecondOf9999 = 253402300799.0;
  if (!seconds || (*seconds >= 0 && *seconds <= kLastSecondOf9999)) return Status::Ok();
  return Status::InvalidArgument(
      fmt::format("{} is {}: give epoch seconds between 0 and {:.0f} (the years 1970 to 9999)",
                  what, *seconds, kLastSecondOf9999));
}

// GCC 12 warns, through inlining, that date::parse's seconds field may be read
// uninitialised; date.h sets it before every read (a false positive).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
std::optional<double> ParseRfc3339(std::string_view text) {
  const auto normalised = NormaliseRfc3339(text);
  if (!normalised) return std::nullopt;
  std::istringstream in(*normalised);
  date::sys_time<std::chrono::microseconds> time;
  in >> date::parse("%FT%T%Ez", time);
  if (in.fail() || in.peek() != std::char_traits<char>::eof()) return std::nullopt;
  return static_cast<double>(time.time_since_epoch().count()) / 1e6;
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

std::string FormatRfc3339(double epoch_seconds) {
  // Beyond ±10^12 s (±31,000 years) there is no calendar date worth printing.
  if (!std::isfinite(epoch_seconds) || std::fabs(epoch_seconds) > 1e12) return "invalid-time";
  using std::chrono::microseconds;
  const microseconds since_epoch{std::llround(epoch_seconds * 1e6)};
  const date::sys_time<microseconds> time{since_epoch};
  if (since_epoch.count() % 1000000 == 0) {
    return date::format("%FT%TZ", date::floor<std::chrono::seconds>(time));
  }
  std::string text = date::format("%FT%T", time);  // six fraction digits
  while (text.back() == '0') text.pop_back();
  return text + "Z";
}

std::string UtcDay(double epoch_seconds) {
  const date::sys_seconds time{std::chrono::seconds{std::llround(std::floor(epoch_seconds))}};
  return date::format("%F", date::floor<date::days>(time));
}

std::optional<double> UtcNoonOfDay(const std::string& day) {
  if (day.size() != 10 || day[4] != '-' || day[7] != '-') return std::nullopt;
  for (const std::size_t i : {0u, 1u, 2u, 3u, 5u, 6u, 8u, 9u}) {
    if (!std::isdigit(static_cast<unsigned char>(day[i]))) return std::nullopt;
  }
  const auto number = [&](std::size_t at, std::size_t digits) {
    return std::stoi(day.substr(at, digits));
  };
  const date::year_month_day ymd{date::year{number(0, 4)},
                                 date::month{static_cast<unsigned>(number(5, 2))},
                                 date::day{static_cast<unsigned>(number(8, 2))}};
  if (!ymd.ok() || ymd.year() < date::year{1970}) return std::nullopt;
  const date::sys_seconds noon = date::sys_days{ymd} + std::chrono::hours{12};
  return static_cast<double>(noon.time_since_epoch().count());
}

std::string CompactUtcStamp(double epoch_seconds) {
  const date::sys_seconds time{std::chrono::seconds{std::llround(std::floor(epoch_seconds))}};
  return date::format("%Y%m%dT%H%M%SZ", time);
}

Result<double> ParseDurationHours(std::string_view text) {
  const auto bad = [&] {
    return Status::InvalidArgument(fmt::format(
        "duration '{}' is not understood: use a number with a unit (s, m, h, d, w), e.g. 90m, "
        "6h, 2d or 1h30m",
        text));
  };
  if (text.empty()) return bad();
  const std::string owned(text);
  double hours = 0;
  std::size_t i = 0;
  while (i < owned.size()) {
    const char* start = owned.c_str() + i;
    char* end = nullptr;
    if (!std::isdigit(static_cast<unsigned char>(*start)) && *start != '.') return bad();
    const double value = std::strtod(start, &end);
    if (end == start || *end == '\0') return bad();
    const auto unit = UnitHours(*end);
    if (!unit || !std::isfinite(value)) return bad();
    // strtod also reads hexadecimal (0x10): a duration is written in decimal.
    if (std::string_view(start, static_cast<std::size_t>(end - start)).find_first_of("xX") !=
        std::string_view::npos) {
      return bad();
    }
    hours += value * *unit;
    i = static_cast<std::size_t>(end - owned.c_str()) + 1;
  }
  if (!std::isfinite(hours)) return bad();  // each part finite, the sum beyond any length
  if (!(hours > 0)) {
    return Status::InvalidArgument(
        fmt::format("duration '{}' must be longer than zero: e.g. 6h", text));
  }
  return hours;
}

}  // namespace hwrec::internal

namespace hwrec {

std::optional<double> ParseTime(std::string_view text) { return internal::ParseRfc3339(text); }

std::string FormatTime(double epoch_seconds) { return internal::FormatRfc3339(epoch_seconds); }

std::string UtcDay(double epoch_seconds) { return internal::UtcDay(epoch_seconds); }

std::optional<double> ParseUtcDay(std::string_view day) {
  return internal::UtcNoonOfDay(std::string(day));
}

Result<double> ParseDurationHours(std::string_view text) {
  return internal::ParseDurationHours(text);
}

std::string FormatHours(double hours) { return internal::HoursText(hours); }

}  // namespace hwrec
