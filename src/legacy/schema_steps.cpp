#include "legacy/schema_steps.h"

#include <fmt/format.h>

#include <stdexcept>

#include "store/migration.h"
#include "store/migrator.h"

namespace hwrec::internal {

std::vector<int> PendingVersions(SQLite::Database& db) {
  const int current = db.execAndGet("PRAGMA user_version").getInt();
  std::vector<int> pending;
  for (const Migration& m : EmbeddedMigrations()) {
    if (m.version > current) pending.push_back(m.version);
  }
  return pending;
}

std::vector<int> ApplyPendingInTransaction(SQLite::Database& db) {
  std::vector<int> applied;
  for (const Migration& m : EmbeddedMigrations()) {
    if (m.version <= db.execAndGet("PRAGMA user_version").getInt()) continue;
    try {
      db.exec(m.sql);
    } catch (const SQLite::Exception& e) {
      throw std::runtime_error(
          fmt::format("migration {:04d}_{} failed: {}", m.version, m.name, e.what()));
    }
    SQLite::Statement record(db,
                             "INSERT INTO schema_migrations (version, name, checksum, applied_at) "
                             "VALUES (?, ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))");
    record.bind(1, m.version);
    record.bind(2, m.name);
    record.bind(3, MigrationChecksum(m));
    record.exec();
    // PRAGMA takes no bound parameters; the version is an integer from the build.
    db.exec(fmt::format("PRAGMA user_version = {:d}", m.version));
    applied.push_back(m.version);
  }
  return applied;
}

}  // namespace hwrec::internal
