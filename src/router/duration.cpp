// ParseDurationHours: "90m", "6h", "2d", "1h30m", "1w", "45s" as hours.
#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string>

#include "hwrec/ladder.h"

namespace hwrec {

namespace {

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
    hours += value * *unit;
    i = static_cast<std::size_t>(end - owned.c_str()) + 1;
  }
  if (!(hours > 0)) {
    return Status::InvalidArgument(
        fmt::format("duration '{}' must be longer than zero: e.g. 6h", text));
  }
  return hours;
}

}  // namespace hwrec
