#include "bench/aggregate_check.h"

#include <fmt/format.h>

#include "check/findings.h"
#include "store/database.h"
#include "store/inspection.h"

namespace hwrec::bench {
namespace {

// The store's own connection seen as the read-only file the checks expect:
// only connection() is used by the derived checks.
class OpenStoreInspection final : public store::Inspection {
 public:
  explicit OpenStoreInspection(Store& store) : db_(store::ConnectionOf(store)) {}
  bool has_bookkeeping() const override { return true; }
  store::Connection& connection() override { return db_; }
  Status CheckMigrations() override { return Status::Ok(); }

 private:
  store::Connection& db_;
};

}  // namespace

CheckResult CheckAggregatesOf(Store& store) {
  CheckResult result;
  result.name = "aggregates";
  internal::Findings findings(&result, 20);
  OpenStoreInspection inspection(store);
  try {
    store::ReadSnapshot snapshot(inspection.connection());
    internal::CheckAggregates(inspection, &result, &findings);
  } catch (const std::exception& e) {
    findings.Add(fmt::format("could not finish: {}", e.what()));
  }
  result.state = findings.empty() ? CheckState::kOk : CheckState::kProblem;
  return result;
}

}  // namespace hwrec::bench
