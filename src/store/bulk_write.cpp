#include "store/bulk_write.h"

#include <SQLiteCpp/Exception.h>
#include <fmt/format.h>

namespace hwrec::store {

// SQLite: a rollback journal writes the new pages to the file once, where a
// WAL writes them twice (to the WAL, then at checkpoint); rollback journals
// are as crash-safe as WAL with synchronous = FULL. A 64 MiB page cache keeps
// the indexes' working pages cached, and secure_delete = FAST spares zeroing
// and journaling every page a bulk move empties. A PostgreSQL server tunes
// its own writes: there the mode does nothing.
BulkWriteMode::BulkWriteMode(Connection& db) : db_(db), sqlite_(db.engine() == Engine::kSqlite) {
  if (!sqlite_) return;
  cache_size_ = db.QueryInt64("PRAGMA cache_size").value_or(0);
  secure_delete_ = db.QueryInt64("PRAGMA secure_delete").value_or(0);
  // At least 64 MiB: a store opened with a larger cache keeps it.
  if (cache_size_ > -65536) db.Execute("PRAGMA cache_size = -65536");
  db.Execute("PRAGMA secure_delete = FAST");
  if (db.QueryText("PRAGMA journal_mode").value_or("") != "wal") return;
  // Leaving WAL needs the only connection; another one is not waited for.
  const std::int64_t busy_timeout = db.QueryInt64("PRAGMA busy_timeout").value_or(0);
  db.Execute("PRAGMA busy_timeout = 0");
  try {
    rollback_journal_ = db.QueryText("PRAGMA journal_mode = DELETE").value_or("") == "delete";
  } catch (const SQLite::Exception&) {
    rollback_journal_ = false;  // another connection has the store open: stay in WAL
  }
  // PRAGMA takes no bound parameters; the timeout is an integer SQLite returned.
  db.Execute(fmt::format("PRAGMA busy_timeout = {:d}", busy_timeout));
  if (rollback_journal_) db.Execute("PRAGMA synchronous = FULL");
}

BulkWriteMode::~BulkWriteMode() {
  if (!sqlite_) return;
  try {
    if (rollback_journal_) {
      db_.Execute("PRAGMA journal_mode = WAL");
      db_.Execute("PRAGMA synchronous = NORMAL");
    }
    // PRAGMA takes no bound parameters; both are integers SQLite returned.
    db_.Execute(fmt::format("PRAGMA cache_size = {:d}", cache_size_));
    db_.Execute(fmt::format("PRAGMA secure_delete = {:d}", secure_delete_));
  } catch (const SQLite::Exception&) {
    // Store::Open sets WAL again on the next open.
  }
}

}  // namespace hwrec::store
