// Importing node pools in bulk: JSON lines, one pool per line, in hwrec's
// form or the Runner's RunnerNodePool form (docs/RUNNER.md). Good lines are
// registered in one transaction; bad ones are reported with their line.
// One thread at a time per Store, like the Store.
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "hwrec/export.h"
#include "hwrec/node_pool.h"
#include "hwrec/record_error.h"
#include "hwrec/status.h"

namespace hwrec {

class Store;
enum class RecordForm;

// A refused pool line: where and what (RecordError), and which pool.
struct HWREC_EXPORT PoolImportError : RecordError {
  std::string node_pool_id;  // empty when the line could not be read that far
};

struct HWREC_EXPORT PoolImportSummary {
  std::int64_t registered = 0;  // new pools
  std::int64_t updated = 0;     // pools whose registration changed
  std::int64_t unchanged = 0;
  std::vector<PoolImportError> errors;
  // Pools registered with a remark: a RunnerNodePool field hwrec does not
  // know (ignored), with the closest known name in `reason`.
  std::vector<PoolImportError> warnings;
};

// Imports JSON lines (one pool per line; blank lines skipped) in hwrec's
// form. Returns kReadOnly or kSchemaMismatch when the store cannot be written
// (Store::CheckWritable), kIoError when reading `jsonl` or the store fails;
// bad lines are not an error status but `errors` in the summary.
HWREC_EXPORT Result<PoolImportSummary> ImportNodePools(Store& store, std::istream& jsonl);
// The same for pools in `form`: hwrec's, the Runner's RunnerNodePool, or told
// apart per line.
HWREC_EXPORT Result<PoolImportSummary> ImportNodePools(Store& store, std::istream& jsonl,
                                                       RecordForm form);

}  // namespace hwrec
