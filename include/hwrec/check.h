// Checking a store for damage: SQLite's own integrity and foreign-key checks,
// and hwrec's invariants (the schema is what the migrations made, every
// aggregate equals a rebuild from the observations, recommendations name
// workloads that exist). A check only reads: it never changes the store.
// Thread-safe: each call opens its own read-only connection. On a
// PostgreSQL store the invariants are checked the same way; integrity and
// foreign_keys are skipped (the server checks its pages and enforces every
// reference itself).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hwrec/export.h"
#include "hwrec/status.h"

namespace hwrec {

enum class CheckState {
  kOk,       // the check ran and found nothing wrong
  kProblem,  // the check found damage or a broken invariant
  kSkipped,  // the check could not apply to this store (e.g. an older schema)
};

// "ok", "problem" or "skipped".
HWREC_EXPORT std::string_view ToString(CheckState state);

// One check of a store and what it found.
struct HWREC_EXPORT CheckResult {
  std::string name;     // integrity, foreign_keys, schema, aggregates, recommendations
  std::string summary;  // what was checked, or what was found
  CheckState state = CheckState::kOk;
  std::vector<std::string> problems;  // what and where, at most StoreCheckOptions::max_problems
  std::int64_t problem_count = 0;     // every problem found, listed or not
  std::string fix;                    // what to do about a problem; empty when ok
};

struct HWREC_EXPORT StoreCheckReport {
  std::string path;           // a URI's password is "***"
  std::string newest_backup;  // the newest STORE.hp-v1-backup-*, empty when none (or a URI)
  std::vector<CheckResult> checks;

  // True when no check found a problem.
  bool sound() const;
};

struct HWREC_EXPORT StoreCheckOptions {
  std::size_t max_problems = 20;  // problems listed per check; all are counted
  // The checks to run, by CheckResult::name; empty runs every check. Only
  // these are in the report, in the order every check runs.
  std::vector<std::string> only;
};

// Runs every check on the store at `path` (a file, or a postgresql:// URI,
// which fails as Store::Open does when it cannot be opened). A damaged store is a report with
// problems, not an error: the Status fails only when the checks could not
// run: kNotFound when there is no such file, kReadOnly when an interrupted
// write left a journal that must be rolled back first, kInvalidArgument for
// a file that is not an hwrec store or a name in `only` that is no check,
// kIoError (or kReadOnly, kNotFound as Store::Open describes them) when it
// cannot be opened or read.
HWREC_EXPORT Result<StoreCheckReport> CheckStore(const std::string& path,
                                                 const StoreCheckOptions& options = {});

}  // namespace hwrec
