// The schema half of a legacy migration: applies every pending embedded
// migration inside the caller's transaction (each with its schema_migrations
// row and user_version), so that the schema bump and the move of legacy rows
// commit together or not at all.
#pragma once

#include <SQLiteCpp/SQLiteCpp.h>

#include <vector>

namespace hwrec::internal {

// Versions applied, in order. Throws SQLite::Exception; the caller rolls back.
std::vector<int> ApplyPendingInTransaction(SQLite::Database& db);

// Versions this build would apply to `db`.
std::vector<int> PendingVersions(SQLite::Database& db);

}  // namespace hwrec::internal
