// Copying a whole store into an empty one: from a SQLite file to PostgreSQL
// and back, or from one file to another (`hwrec copy SRC DST`). Every row of
// every table but schema_migrations (each engine keeps its own checksums) is
// written in one destination transaction, exactly (integers, doubles, text,
// blobs and NULLs as they are), and committed only when each table's count
// equals the source's and the aggregates equal both the source's and a
// rebuild from the copied observations; on any failure the destination is
// left as it was. Not thread-safe: the two stores are used from the caller's
// thread, like every Store.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "hwrec/export.h"
#include "hwrec/status.h"
#include "hwrec/store.h"

namespace hwrec {

struct HWREC_EXPORT CopyOptions {
  std::size_t max_problems = 5;  // aggregate differences named in a refusal
};

struct HWREC_EXPORT CopySummary {
  std::string source;  // Store::path() of each: a URI without its password
  std::string destination;
  std::vector<TableCount> tables;       // every table copied, in the order written
  std::int64_t rows = 0;                // their sum
  std::int64_t aggregates_checked = 0;  // each equal to a rebuild from the observations
};

// Copies `source` into `destination`. The source must be at the latest
// schema and hold no legacy site-keyed rows (migrate the file first); the
// destination must be writable, at the latest schema and empty of data (a
// fresh `hwrec init`: its seeded catalog, router and config rows are replaced
// by the source's). Fails with kInvalidArgument for the same store twice,
// kSchemaMismatch for a source that must be migrated, kConflict for a
// destination that holds data, kInternal when a count or an aggregate
// differs after writing, and the engine's error otherwise; in every failure
// the destination is unchanged.
HWREC_EXPORT Result<CopySummary> CopyStore(const Store& source, Store& destination,
                                           const CopyOptions& options = {});

}  // namespace hwrec
