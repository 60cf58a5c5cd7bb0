// Where a store lives, as a STORE argument names it. One rule decides: a
// STORE is PostgreSQL's when it starts with postgresql:// or postgres:// (in
// any case), or when it is a libpq key=value string naming host, hostaddr,
// dbname or service ("host=db1 dbname=hwrec user=runner"), as libpq's
// PQconninfoParse reads it, or one setting a secret (password=...) that libpq
// cannot read, so that a password is never taken for a file name; anything
// else is a SQLite file path. Tools use it to tell the two apart before
// opening, and to print a location, or a message about one, without its
// secrets. Thread-safe: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "hwrec/export.h"

namespace hwrec {

// Whether `location` names a PostgreSQL store rather than a file path.
HWREC_EXPORT bool IsPostgresqlLocation(std::string_view location);

// `location` as hwrec prints it: a file path unchanged; a PostgreSQL location
// with the value of every option libpq keeps secret (password, sslpassword,
// ...) replaced by "***", however it was written: in a URI's user info (up to
// its last '@', so that a password holding an unescaped '/', '?' or '@' is
// hidden whole), as a percent-encoded query key, or quoted in key=value form.
HWREC_EXPORT std::string PrintableLocation(std::string_view location);

// `message` as hwrec prints it when it may quote `location` or libpq's words
// about it: `location` shown as PrintableLocation shows it, and each of its
// secrets masked wherever it appears, as written, decoded, or in the pieces
// libpq quotes ("could not translate host name ..."). The one redactor of the
// CLI, the Python module and the bench. `message` unchanged for a file path.
HWREC_EXPORT std::string RedactedMessage(std::string_view message, std::string_view location);

// PostgreSQL location `uri` (either form) with its sessions' search_path set to
// `schema` (libpq's `options`, appended), so that the store it names lives in
// that schema: several stores in one database. `schema` is an unquoted
// identifier (letters, digits, underscores; PostgreSQL folds it to lower
// case); any other byte is encoded (percent-encoded in a URI, escaped in
// key=value form), never interpreted.
HWREC_EXPORT std::string PostgresqlLocationInSchema(std::string_view uri, std::string_view schema);

}  // namespace hwrec
