// The migrations engine: applies NNNN_name.sql files in order, each in one
// BEGIN IMMEDIATE transaction together with its schema_migrations row and
// PRAGMA user_version, and refuses stores that are newer or were altered.
// Throws SQLite::Exception on database errors; returns Status for refusals.
#pragma once

#include <memory>
#include <vector>

#include "hwrec/status.h"
#include "hwrec/store.h"
#include "store/database.h"
#include "store/migration.h"

namespace SQLite {
class Database;
}

namespace hwrec::internal {

class Migrator {
 public:
  // On a bare SQLite database (tests and fixtures build stores step by step).
  Migrator(SQLite::Database& db, const std::vector<Migration>& migrations);
  Migrator(store::Connection& db, const std::vector<Migration>& migrations);
  // On the connection of `store`, with this build's migrations for its engine.
  explicit Migrator(const Store& store);

  // Creates schema_migrations when missing (in its own transaction).
  void EnsureBookkeeping();
  // kSchemaMismatch when the store has a version this build does not know, or
  // an applied migration whose checksum differs from this build's.
  Status Check() const;
  int CurrentVersion() const;
  int LatestVersion() const;
  std::vector<MigrationInfo> List() const;
  // Versions this build would apply, in order.
  std::vector<int> Pending() const;
  // Applies every pending migration; each one commits or changes nothing.
  Result<std::vector<int>> ApplyPending();
  // Applies every pending migration inside the write transaction the caller
  // holds, so that the schema bump commits together with the caller's own
  // writes or not at all. Call EnsureBookkeeping() first, outside it.
  // Returns the versions applied; throws std::runtime_error naming the
  // migration that failed, and the caller rolls back.
  std::vector<int> ApplyPendingInCallerTransaction();

 private:
  // CREATE TABLE IF NOT EXISTS schema_migrations, in the current transaction.
  void CreateBookkeeping();
  // One migration with its schema_migrations row and user_version, in the
  // current transaction. Throws std::runtime_error naming the migration.
  void ApplyOne(const Migration& migration);

  std::unique_ptr<store::Connection> owned_;  // with the SQLite::Database constructor
  store::Connection& db_;
  const std::vector<Migration>& migrations_;
};

std::string MigrationChecksum(const Migration& migration);

}  // namespace hwrec::internal
