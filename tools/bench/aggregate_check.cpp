#include "bench/aggregate_check.h"

#include <fmt/format.h>

#include "check/findings.h"
#include "store/database.h"

namespace hwrec::bench {

CheckResult CheckAggregatesOf(Store& store) {
  CheckResult result;
  result.name = "aggregates";
  internal::Findings findings(&result, 20);
  try {
    store::Connection& db = store::ConnectionOf(store);
    store::ReadSnapshot snapshot(db);
    const std::size_t compared = internal::CompareAggregatesWithRebuild(db, &findings);
    result.summary =
        fmt::format("{} aggregates, each compared with a rebuild from the observations", compared);
  } catch (const std::exception& e) {
    findings.Add(fmt::format("could not finish: {}", e.what()));
  }
  result.state = findings.empty() ? CheckState::kOk : CheckState::kProblem;
  return result;
}

}  // namespace hwrec::bench
