// The SQLite engine behind store/database.h. Private to src/store/.
#pragma once

#include <memory>

#include "store/database.h"

struct sqlite3;

namespace hwrec::store {

// A Connection on an open SQLite handle the caller keeps open for its life.
std::unique_ptr<Connection> MakeSqliteConnection(sqlite3* handle);

// The SQLite handle behind a Connection MakeSqliteConnection made, for the
// store's own engine-level code (virtual tables, backups).
sqlite3* SqliteHandleOf(Connection& connection);

}  // namespace hwrec::store
