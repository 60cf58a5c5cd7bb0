#include "base/time.h"

#include <fmt/format.h>

#include <chrono>

namespace hwrec::internal {

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

}  // namespace hwrec::internal
