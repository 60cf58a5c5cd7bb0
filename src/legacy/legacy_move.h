// The move of a legacy migration: the streaming of every legacy row into observations or
// the quarantine inside the caller's write transaction.
#pragma once

#include <cstdint>

#include "hwrec/legacy_migration.h"
#include "hwrec/status.h"
#include "hwrec/store.h"
#include "store/database.h"

namespace hwrec::internal {

// Streams every legacy row into observations or quarantine, feeding the
// aggregates as it goes, registers the pools the options give, rebuilds the
// recommendations and records the migration. Returns what loading the catalog
// or the pools returns; throws on any other failure (the counts not adding up
// is a StatusError, kInternal): the caller's transaction rolls back.
Status MoveLegacyRows(Store& store, const LegacyMigrationOptions& options, std::int64_t legacy_rows,
                      LegacyMigrationReport* report);

}  // namespace hwrec::internal
