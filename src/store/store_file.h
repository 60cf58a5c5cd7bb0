// Private to the store: what a path given as a store holds, found without
// writing to it, and what to tell the user when SQLite cannot open it.
#pragma once

#include <SQLiteCpp/SQLiteCpp.h>

#include <optional>
#include <string>

#include "hwrec/status.h"

namespace hwrec::internal {

// Refuses a directory, and a missing or empty file unless `create` (only
// `hwrec init` and explicit creation may make a store).
Status CheckStorePath(const std::string& path, bool create);

enum class DatabaseKind { kStore, kEmpty };
// Reads only sqlite_master, user_version and schema_migrations' columns:
// kStore for an hwrec store, kEmpty for a database that holds nothing, and a
// kInvalidArgument Status naming what was found for any other database.
Result<DatabaseKind> RecognizeStore(SQLite::Database& db, const std::string& path);

// For a read-write open: refuses, before anything is written, a store file or
// directory this user cannot write (SQLite would open it read-only and fail
// at the first write).
Status CheckCanWrite(SQLite::Database& db, const std::string& path);

// What went wrong and what to do, for SQLite's `extended_code` while opening
// `path`. `disk_full` says the file system has no room left.
Status DescribeOpenFailure(const std::string& path, int extended_code,
                           const std::string& sqlite_text, bool disk_full);
// Same, finding out whether the disk holding `path` is full.
Status DescribeOpenFailure(const std::string& path, const SQLite::Exception& error);

// Whether a read-only open that failed with `extended_code` may retry with
// `immutable=1`: the file is there but its WAL index cannot be made.
bool MayOpenImmutable(int extended_code);
// Why an immutable open of `path` would mislead, or nullopt when it is safe:
// a hot rollback journal (a killed writer's pages are in the main file) or a
// -wal holding committed changes the main file does not have yet.
std::optional<std::string> ImmutableWouldMislead(const std::string& path);
// Why a read-only open fell back to immutable, for `hwrec status`.
std::string ImmutableReason(const std::string& path, const std::string& sqlite_text);
// "file:PATH?immutable=1", with the characters a URI reserves escaped.
std::string ImmutableUri(const std::string& path);

}  // namespace hwrec::internal
