// Store: one hwrec database file (SQLite in WAL mode) and its schema.
// Opening first recognises the file as an hwrec store without writing to it,
// then applies and checks the connection settings. Only an open with
// create_if_missing (what `hwrec init` does) makes a new store, at the latest
// schema. An existing store is never migrated as a side effect of opening:
// call Migrate() (or `hwrec migrate`) explicitly.
// A Store is one connection: use it from one thread at a time. Open one Store
// per thread; SQLite's busy timeout arbitrates writers across processes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hwrec/export.h"
#include "hwrec/status.h"

struct sqlite3;

namespace hwrec {

struct HWREC_EXPORT StoreOptions {
  // Open with SQLITE_OPEN_READONLY; writes fail. When the directory cannot be
  // written (no WAL index can be made), the file is opened immutable.
  bool read_only = false;
  // Make a new store when the path is missing or an empty file; the only way
  // to create one. ":memory:" is accepted only with this set.
  bool create_if_missing = false;  // ignored when read_only
  int busy_timeout_ms = 5000;      // how long a writer waits for another
  // With read_only: never write the file, not even to roll back an
  // interrupted write or to restore WAL journaling (`--read-only`).
  bool no_repair = false;
  // With read_only: open a store whose schema is newer or whose applied
  // migration changed, for inspection; StoreStatus::schema_problem says what.
  bool inspect_schema = false;
  // SQLite's page cache for this store, in MiB (PRAGMA cache_size), filled only
  // as pages are read. SQLite's own 2 MiB re-reads a large store's indexes from
  // the OS on every batch; 64 MiB holds a million observations' key index.
  // 0 keeps SQLite's default. PostgreSQL stores ignore it.
  int cache_mib = 64;
};

// One migration as this build knows it, and whether the store has it.
struct HWREC_EXPORT MigrationInfo {
  int version = 0;
  std::string name;      // e.g. "hardware_keyed"
  std::string checksum;  // SHA-256 hex of the migration's SQL
  bool applied = false;
  std::string applied_at;  // RFC 3339, empty when not applied
};

struct HWREC_EXPORT TableCount {
  std::string table;
  std::int64_t rows = 0;
};

// What `hwrec status` shows.
struct HWREC_EXPORT StoreStatus {
  std::string engine;      // "sqlite" or "postgresql"
  std::string path;        // the file, or the URI without its password
  int schema_version = 0;  // PRAGMA user_version
  int latest_schema_version = 0;
  std::string hp_version;    // "hp:v2" when hardware-keyed, "hp:v1" for a legacy store
  std::string journal_mode;  // "wal" unless read-only on a rollback-journal file
  std::int64_t file_size_bytes = 0;
  std::int64_t wal_size_bytes = 0;
  std::vector<TableCount> tables;
  // How the store was opened: "read-write", "read-only", or "read-only
  // (immutable: ...)" when the directory could not be written.
  std::string opened;
  bool immutable = false;
  // Empty unless opened with inspect_schema and the schema is not one this
  // build can use: then what is wrong, as Open would have refused it.
  std::string schema_problem;
};

class HWREC_EXPORT Store {
 public:
  // Opens the store at `path` (creates it only with create_if_missing). Fails
  // with kNotFound for a missing or empty file, kInvalidArgument for a file
  // that is not an hwrec store (left byte-identical), kSchemaMismatch when the
  // store is newer than this build or an applied migration was altered, and
  // an actionable kIoError/kReadOnly when SQLite cannot open the file.
  static Result<std::unique_ptr<Store>> Open(const std::string& path,
                                             const StoreOptions& options = {});

  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;
  ~Store();

  const std::string& path() const;
  bool read_only() const;

  int schema_version() const;
  static int LatestSchemaVersion();
  // Every migration this build knows, marked applied or pending.
  Result<std::vector<MigrationInfo>> Migrations() const;
  // Applies pending migrations in one transaction, each with its
  // schema_migrations row and user_version, and rebuilds in it what a
  // migration changes the meaning of (the aggregates, at schema 13). Returns
  // the versions applied. Defined with MigrateStore, which it runs without
  // consent to move legacy rows.
  // A store holding legacy site-keyed rows is refused (kSchemaMismatch) with
  // what the hp:v2 bump does: moving them needs consent, given through
  // MigrateStore (hwrec/legacy_migration.h) or `hwrec migrate --accept-hp-v2`.
  Result<std::vector<int>> Migrate();
  // OK when the store is at the latest schema, holds no legacy rows and is
  // writable; otherwise a Status saying what to do (`hwrec migrate`, the
  // hp:v2 consent, or open read-write).
  Status CheckWritable() const;

  Result<StoreStatus> GetStatus() const;

  // The full schema as `schema/schema.sql` holds it: every table, index,
  // view and trigger, ordered by type and name.
  Result<std::string> DumpSchema() const;

  // How many times this store's connection has waited for the database
  // server since it was opened: statements, transaction boundaries,
  // statement preparations and connections. Always 0 on SQLite, where
  // nothing crosses a network. A metric for a replica: a kept
  // RecommendationQuery or PlacementEvaluator answers in one while nothing
  // it holds has changed (docs/scaling.md).
  std::int64_t RoundTrips() const;

  // The SQLite connection under a store file, for instrumentation hwrec
  // does not offer itself (sqlite3_trace_v2, the session extension, a
  // backup); nullptr on a PostgreSQL store. It stays the Store's: do not
  // close it. Writing through it bypasses hwrec's validation and leaves its
  // aggregates and recommendations to `hwrec check` to find.
  sqlite3* SqliteHandle() const;

  // The library's side of a Store; opaque to its users.
  struct Impl;

 private:
  explicit Store(std::unique_ptr<Impl> impl);

  std::unique_ptr<Impl> impl_;
};

}  // namespace hwrec
