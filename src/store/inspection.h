// A read-only look at a store as it is, for `hwrec check`. A file is opened
// without the store's pragmas, migrations or recovery (a check never writes),
// so that a damaged file can still be read as far as it goes; a PostgreSQL
// store (a postgresql:// URI) is a Store opened read-only for inspection.
// One thread at a time, like any connection.
#pragma once

#include <memory>
#include <string>

#include "hwrec/status.h"
#include "store/database.h"

namespace hwrec::store {

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
};

}  // namespace hwrec::store
