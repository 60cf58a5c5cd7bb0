// Time in hwrec: epoch seconds (double) inside, RFC 3339 UTC text outside.
#pragma once

#include <optional>
#include <string_view>

#include "hwrec/status.h"

namespace hwrec::internal {

// Seconds since the epoch, now.
double NowEpochSeconds();

// OK for an absent time or epoch seconds of a real date (years 1970 to 9999);
// otherwise InvalidArgument naming `what` ("as_of", "now") and the fix.
Status CheckEpochSeconds(std::optional<double> seconds, std::string_view what);

}  // namespace hwrec::internal
