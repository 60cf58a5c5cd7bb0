// The PostgreSQL engine behind store::Connection, through libpq. Engine
// private: only src/store/ includes it.
//
// SQL arrives in the dialect the layers share (`?` parameters) and is sent as
// a named prepared statement with `$n` parameters, one per parameter-type
// signature, reused for the life of the connection. Write transactions are
// SERIALIZABLE (store::RunWrite retries the ones PostgreSQL cancels); read
// snapshots are REPEATABLE READ. A connection the server dropped is made
// again at the next transaction.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "store/database.h"

namespace hwrec::store {

// Whether `location` names a PostgreSQL store rather than a SQLite file: it
// starts with postgresql:// or postgres:// (any case), or it is a libpq
// key=value string naming host, hostaddr, dbname or service, as
// PQconninfoParse reads it, or one setting a secret that libpq cannot read
// (pg_location.cpp).
bool IsPostgresqlUri(std::string_view location);

// `location` as libpq takes it: the URI scheme in lower case.
std::string LibpqConninfo(std::string_view location);

// `uri` with every secret libpq knows (password, sslpassword, ...) replaced
// by "***", however it is written: the one form hwrec prints.
std::string RedactedUri(std::string_view uri);

// `text` (a message that may quote `location`, or libpq's words about it)
// with `location` shown redacted and every secret of it masked: as written,
// percent-decoded, unquoted, and in the pieces libpq splits a URI's user
// info into. `text` unchanged when `location` is not PostgreSQL's.
std::string RedactedText(std::string_view text, std::string_view location);

// Connects; throws EngineError ("08001") naming the redacted URI and what
// libpq said when the server cannot be reached or refuses the login. With
// `read_only`, every transaction of every session it makes is READ ONLY.
std::unique_ptr<Connection> ConnectPostgresql(const std::string& uri, bool read_only = false);

}  // namespace hwrec::store
