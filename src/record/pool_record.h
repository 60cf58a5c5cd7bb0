// One node pool line in either form (hwrec's, or the Runner's RunnerNodePool,
// docs/RUNNER.md): the pool, or the first bad field under the name the line
// used, and the warnings of a Runner line. Pool import and the public
// ParseNodePoolRecord read lines through it. Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "hwrec/node_pool.h"
#include "hwrec/record_error.h"
#include "hwrec/runner.h"
#include "record/runner_records.h"

namespace hwrec::internal {

struct PoolRecord {
  NodePool pool;                           // meaningful when `error` is unset
  std::optional<RecordError> error;        // the first bad field, as the line names it
  std::optional<RunnerFieldNames> runner;  // set for a line in the Runner's form
  std::vector<RecordError> warnings;       // unknown Runner fields, ignored

  // `error`'s field under the name the line used (for errors found later,
  // e.g. against the catalog).
  RecordError Named(const RecordError& found) const {
    return runner ? runner->Renamed(found) : found;
  }
};

// Reads one pool line in `form`. A pool in the Runner's form is translated
// into hwrec's and judged by the same rules.
PoolRecord ReadPoolRecord(const std::string& line, RecordForm form);

}  // namespace hwrec::internal
