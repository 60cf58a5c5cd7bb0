// `hwrec check`'s aggregate check (every aggregate equals a rebuild from the
// observations, src/check/derived_checks.cpp) run on an open Store of either
// engine: CheckStore itself opens a SQLite file, and its file checks mean
// nothing on PostgreSQL.
#pragma once

#include "hwrec/check.h"
#include "hwrec/store.h"

namespace hwrec::bench {

// The "aggregates" CheckResult of `store`; a check that could not finish is
// a problem naming why.
CheckResult CheckAggregatesOf(Store& store);

}  // namespace hwrec::bench
