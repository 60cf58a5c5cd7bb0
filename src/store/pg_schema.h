// The schema of a PostgreSQL store as SQL text, read from pg_catalog: what
// `hwrec schema` prints and schema/schema.postgresql.sql holds. Deterministic:
// two stores at the same migration give the same text, whatever their schema
// name, owner or object ids.
#pragma once

#include <string>

#include "store/database.h"

namespace hwrec::internal {

// Every table, index and view of the connection's current schema (the first
// of its search_path), ordered as the SQLite dump is: tables, then indexes,
// then views, each by name. A table is its columns in order (type, identity,
// default, NOT NULL) and then its constraints by name; indexes are those no
// constraint creates; a view is its definition as the server prints it.
// Each statement ends with ";\n", statements are separated by a blank line.
// For reading and diffing, not replaying: a foreign key may name a table
// that comes later. Throws the engine's error; `db` must be a PostgreSQL
// connection.
std::string DumpPostgresqlSchema(store::Connection& db);

}  // namespace hwrec::internal
