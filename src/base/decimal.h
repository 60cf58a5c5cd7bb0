// Decimal figures as doubles: a value meant to be a decimal (0.35, a multiple
// of a 0.05 step) is returned as the double that decimal's text parses to, so
// it prints as "0.35", never "0.35000000000000003".
#pragma once

#include <cmath>

namespace hwrec::internal {

// The fewest decimal places (at most 12) that write `step` exactly: 0.05 -> 2.
inline int DecimalPlaces(double step) {
  double scale = 1;
  for (int places = 0; places < 12; ++places, scale *= 10) {
    const double scaled = step * scale;
    if (std::abs(scaled - std::round(scaled)) <= 1e-9 * scaled) return places;
  }
  return 12;
}

// `value` rounded to `places` decimals: an integer divided by a power of ten,
// both exact in a double, so the result is the double nearest that decimal.
inline double RoundToDecimals(double value, int places) {
  const double scale = std::pow(10.0, places);
  return std::round(value * scale) / scale;
}

// Whether `value` is a whole number a 64-bit integer holds exactly: what a
// store's whole-number columns keep.
inline bool IsWholeInt64(double value) {
  constexpr double kTwoTo63 = 9223372036854775808.0;
  return value >= -kTwoTo63 && value < kTwoTo63 && value == std::floor(value);
}

// How messages name the range IsWholeInt64 accepts.
inline constexpr const char* kWholeInt64Range = "±9.2e18";

}  // namespace hwrec::internal
