// The process exit codes of hwrec and hwrec-bench, one table for both: each
// tool documents the ones it uses in its --help (ExitCodesHelp).
#pragma once

#include <string>
#include <vector>

namespace hwrec::tools {

enum ExitCode : int {
  kExitOk = 0,
  kExitError = 1,    // nothing or not everything was done; the message says why
  kExitUsage = 2,    // the command line is wrong
  kExitPartial = 3,  // done, but some records were rejected
  kExitDamaged = 4,  // `hwrec check` found a problem in the store
  // Not errors: the command worked and its answer is "no". The output still
  // says why each option was refused.
  kExitNoFit = 5,        // place: no candidate pool fits; route: no GPU rung holds a shard
  kExitNotLaunched = 6,  // route --simulate/--record: every rung missed capacity, or not tried
  kExitStopped = 7,      // route --simulate/--record: a failure that is not a capacity miss
};

// What one exit code means to one tool, as its --help says it.
struct ExitCodeMeaning {
  ExitCode code;
  const char* meaning;
};

// "Exit codes:\n" and a line "  <code>  <meaning>" per entry.
std::string ExitCodesHelp(const std::vector<ExitCodeMeaning>& meanings);

}  // namespace hwrec::tools
