// One schema migration as embedded in the library (see cmake/GenerateMigrations.cmake).
#pragma once

#include <string>
#include <vector>

#include "store/database.h"

namespace hwrec::internal {

struct Migration {
  int version;
  const char* name;
  const char* sql;
};

// Every migrations/NNNN_name.sql (SQLite's dialect), in version order.
const std::vector<Migration>& EmbeddedMigrations();
// The same numbers and names in each engine's dialect: migrations/ for
// SQLite, migrations/postgresql/ for PostgreSQL.
const std::vector<Migration>& EmbeddedMigrations(store::Engine engine);

}  // namespace hwrec::internal
