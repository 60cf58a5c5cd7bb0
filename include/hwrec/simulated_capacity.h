// SimulatedCapacity: a simulated backend for dry runs of the ladder walk
// (`hwrec route --simulate CAPACITY.json`). Plain values and pure functions;
// thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hwrec/export.h"
#include "hwrec/ladder_walk.h"
#include "hwrec/status.h"

namespace hwrec {

// Which rungs have capacity and which fail otherwise.
struct HWREC_EXPORT SimulatedCapacity {
  std::vector<std::string> available;                           // rung id patterns ('*' globs)
  std::vector<std::pair<std::string, LaunchOutcome>> failures;  // pattern -> outcome
  std::optional<double> now;                                    // from "day": "YYYY-MM-DD"
};
// Reads {"available": [...], "failures": {pattern: outcome}, "day": "YYYY-MM-DD"};
// returns kInvalidArgument, starting with `what` (e.g. the file name), for
// bad JSON, an unknown field or outcome, or a bad day.
HWREC_EXPORT Result<SimulatedCapacity> ParseSimulatedCapacity(std::string_view json,
                                                              const std::string& what);
// The first failure pattern matching the rung's id wins, then any available
// pattern launches it; otherwise a capacity miss.
HWREC_EXPORT LaunchResult SimulateLaunch(const SimulatedCapacity& capacity, const Rung& rung);

}  // namespace hwrec
