// Where a store lives, as a STORE argument names it: a SQLite file path, or a
// PostgreSQL URI ("postgresql://user@host:port/db?…" or "postgres://…", the
// forms libpq reads). Tools use it to tell the two apart before opening and to
// print a location without its password. Thread-safe: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace hwrec {

// Whether `location` is a PostgreSQL URI rather than a file path.
bool IsPostgresqlLocation(std::string_view location);

// `location` as hwrec prints it: a file path unchanged, a URI with any
// password (in the authority or a password= parameter) replaced by "***".
std::string PrintableLocation(std::string_view location);

// PostgreSQL URI `uri` with its sessions' search_path set to `schema` (libpq's
// `options` parameter, appended), so that the store it names lives in that
// schema: several stores in one database. `schema` is an unquoted identifier
// (letters, digits, underscores; PostgreSQL folds it to lower case); any other
// byte is percent-encoded, never interpreted.
std::string PostgresqlLocationInSchema(std::string_view uri, std::string_view schema);

}  // namespace hwrec
