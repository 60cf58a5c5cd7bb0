// One schema migration as embedded in the library (see cmake/GenerateMigrations.cmake).
#pragma once

#include <string>
#include <vector>

namespace hwrec::internal {

struct Migration {
  int version;
  const char* name;
  const char* sql;
};

// Every migrations/NNNN_name.sql, in version order.
const std::vector<Migration>& EmbeddedMigrations();

}  // namespace hwrec::internal
