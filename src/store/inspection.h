// A read-only look at a store as it is, for `hwrec check`. A file is opened
// without the store's pragmas, migrations or recovery (a check never writes),
// so that a damaged file can still be read as far as it goes; a PostgreSQL
// store (a postgresql:// URI) is a Store opened read-only for inspection.
// One thread at a time, like any connection.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "hwrec/status.h"
#include "store/database.h"

namespace hwrec::store {

// A check of the storage itself, which the engine's own tools make.
enum class StorageCheck {
  kIntegrity,    // every page and index
  kForeignKeys,  // every reference
};

// Whether a storage check applies to a store, and what it covers or why not.
struct StorageCheckPlan {
  bool applies = true;
  std::string summary;  // "SQLite's integrity_check: ...", or "skipped: ..."
};

// Receives each problem a check finds, as a line a person can act on.
using ProblemSink = std::function<void(std::string problem)>;

// Each engine's side of `hwrec check`: what its storage checks are, how its
// schema is compared with this build's, how a damaged store is restored.
// The check layer runs the checks without knowing which engine it reads.
class Inspection {
 public:
  // Opens `path` (a file, or a PostgreSQL URI) read-only and reads its schema once, to find out
  // whether it has the migrations' bookkeeping table. Returns what Store::Open says of a file it
  // cannot open or read (kNotFound, kReadOnly, kIoError, …); a damaged schema is not a failure here
  // but for the checks to report.
  static Result<std::unique_ptr<Inspection>> Open(const std::string& path);
  virtual ~Inspection() = default;

  // False when the file is readable but has no schema_migrations table (not
  // an hwrec store); true when it has one or its schema could not be read.
  virtual bool has_bookkeeping() const = 0;

  virtual Connection& connection() = 0;
  // The schema version the store records (SQLite's PRAGMA user_version; the
  // newest applied migration on PostgreSQL).
  virtual int SchemaVersion() = 0;
  // The migrations the file records against this build's: kSchemaMismatch
  // naming the first that differs. Throws on an engine failure.
  virtual Status CheckMigrations() = 0;
  // How the store names its schema version in a message ("PRAGMA
  // user_version").
  virtual std::string SchemaVersionName() const = 0;

  virtual StorageCheckPlan Plan(StorageCheck check) const = 0;
  // Runs a check that applies, each problem to `problem`. Throws when the
  // engine stops at a page it cannot read and cannot say where.
  virtual void Run(StorageCheck check, const ProblemSink& problem) = 0;

  // What the schema check compares, and its problems: the objects a store at
  // this build's schema should have, against what this one has (a file's
  // every table, index, view and trigger, by their SQL; a server's tables
  // and views, its DDL being its own dialect, checksummed by
  // CheckMigrations).
  virtual std::string SchemaCheckSummary() const = 0;
  virtual void CompareSchemaObjects(const ProblemSink& problem) = 0;

  // How to restore the store when its storage or schema is damaged: a
  // fmt pattern, {0} the store, {1} where to restore it from.
  virtual std::string RestoreFix() const = 0;

  // What one check reads in: on a server, a snapshot of its own (others may
  // be writing, and a failed statement ends only that check's transaction);
  // none on a file, read as it is.
  virtual std::unique_ptr<ReadSnapshot> CheckSnapshot() = 0;
};

}  // namespace hwrec::store
