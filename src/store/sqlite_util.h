// The SQLite engine's own plumbing, private to src/store/: a Store's SQLiteCpp
// connection (for opening, migrations, backups) and how SQLite reports
// damage. The layers above reach the database through store/database.h.
#pragma once

#include <SQLiteCpp/SQLiteCpp.h>

#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "base/time.h"
#include "hwrec/status.h"
#include "hwrec/store.h"
#include "store/database.h"
#include "store/guarded.h"

namespace hwrec::internal {

struct StoreAccess {
  static SQLite::Database& Db(Store& store);
  static SQLite::Database& Db(const Store& store);  // read paths only
  static store::Connection& Connection(const Store& store);
};

// True when SQLite says the file is damaged (SQLITE_CORRUPT) or no longer
// reads as a database (SQLITE_NOTADB).
bool IsDamage(const std::exception& e);

// What a command says when SQLite finds the store damaged: what happened,
// and to run `hwrec check STORE` and restore the newest backup. `store_path`
// may be empty when the caller does not know it; `what` names the action.
std::string DamagedStoreMessage(const std::string& store_path, const std::string& what,
                                const std::exception& e);

}  // namespace hwrec::internal
