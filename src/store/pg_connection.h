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

// Whether `location` names a PostgreSQL store ("postgresql://…" or
// "postgres://…", libpq's URI forms) rather than a SQLite file.
bool IsPostgresqlUri(std::string_view location);

// `uri` with any password replaced by "***": the one form hwrec prints.
std::string RedactedUri(std::string_view uri);

// Connects; throws EngineError ("08001") naming the redacted URI and what
// libpq said when the server cannot be reached or refuses the login. With
// `read_only`, every transaction of every session it makes is READ ONLY.
std::unique_ptr<Connection> ConnectPostgresql(const std::string& uri, bool read_only = false);

}  // namespace hwrec::store
