// The pieces every check of `hwrec check` shares: where a check gathers its
// problems (Findings) and the bodies of the checks, each reading one store
// file through a read-only store::Inspection. A body throws when it cannot
// finish; RunChecks says so as one of its problems.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "hwrec/check.h"
#include "store/inspection.h"

namespace hwrec::internal {

// Gathers one check's problems: all are counted, the first few are kept.
class Findings {
 public:
  Findings(CheckResult* result, std::size_t max_problems)
      : result_(result), max_problems_(max_problems) {}
  void Add(std::string problem) {
    if (result_->problems.size() < max_problems_) result_->problems.push_back(std::move(problem));
    ++result_->problem_count;
  }
  bool empty() const { return result_->problem_count == 0; }

 private:
  CheckResult* result_;
  std::size_t max_problems_;
};

using CheckBody =
    std::function<void(store::Inspection& file, CheckResult* result, Findings* findings)>;

// A storage check as the store's engine makes it (file_checks.cpp).
void CheckStorage(store::Inspection& file, store::StorageCheck check, Findings* findings);
// The applied migrations are this build's and the store has what they create.
void CheckSchema(store::Inspection& file, CheckResult* result, Findings* findings);
// Every aggregate equals a rebuild from the observations (derived_checks.cpp).
// The comparison itself, on any connection (`hwrec copy` runs it inside its
// write transaction): adds a problem per aggregate that differs, is missing or
// has no observations; returns how many aggregates the rebuild holds.
std::size_t CompareAggregatesWithRebuild(store::Connection& db, Findings* findings);
void CheckAggregates(store::Inspection& file, CheckResult* result, Findings* findings);
// Recommendations name workloads and count no more executions than they have.
void CheckRecommendations(store::Inspection& file, CheckResult* result, Findings* findings);

}  // namespace hwrec::internal
