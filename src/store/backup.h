// Backups of a store: a complete copy written beside it (VACUUM INTO) that
// appears under its final name only once it is whole and on disk. The copy is
// created exclusively with the store's permission bits, never through a
// symlink, and never in a directory other users may tamper with.
#pragma once

#include <string>
#include <string_view>

#include "hwrec/status.h"

namespace SQLite {
class Database;
}

namespace hwrec {
class Store;
}

namespace hwrec::internal {

// Copies the database `db` (opened on `store_path`) to a new file named
// `<store_path>.<label>-<stamp>` (or with `-2`, `-3` … appended when taken)
// and returns that name. The copy is written to a temporary name in the same
// directory, fsynced, then linked to its final name, which is never
// overwritten or followed. A failed backup leaves no file behind, and a
// temporary file left by a killed earlier backup of the same store is
// removed. Refuses (kInvalidArgument, naming the fix) a directory that
// others can write without the sticky bit, and a store that fails
// PRAGMA quick_check (RefuseIfDamaged); any other failure is kIoError.
Result<std::string> WriteBackup(SQLite::Database& db, const std::string& store_path,
                                std::string_view label, std::string_view stamp);

// The same for an open Store, for the layers above src/store/.
Result<std::string> WriteBackup(const Store& store, std::string_view label, std::string_view stamp);

// Removes the temporary copies a killed earlier backup of `store` left
// (`<store>.<label>-….partial-<pid>`, this user's, their process gone), as
// WriteBackup does: for a run that writes no backup. No-op for a store that
// is no file.
void RemoveStaleBackupPartials(const Store& store, std::string_view label);
Status RefuseIfDamaged(const Store& store, std::string_view action);

// The newest complete backup of the store (`<store_path>.<label>-*`, by
// modification time), or "" when there is none.
std::string NewestBackup(const std::string& store_path, std::string_view label = "hp-v1-backup");

// Runs PRAGMA quick_check on `db` (opened on `store_path`). A damaged store is
// refused with kIoError before `action` (e.g. "the migration") changes
// anything: the message says to run `hwrec check` and restore a backup.
Status RefuseIfDamaged(SQLite::Database& db, const std::string& store_path,
                       std::string_view action);

// The current UTC time as a backup stamp: 20261129T160237Z.
std::string BackupStamp();

}  // namespace hwrec::internal
