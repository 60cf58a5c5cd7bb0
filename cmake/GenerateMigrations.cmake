# Script mode: writes OUTPUT, a C++ file defining hwrec::internal::EmbeddedMigrations()
# from INPUTS (migrations/*.sql, SQLite) and PG_INPUTS (migrations/postgresql/*.sql).
function(hwrec_migration_entries out_var)
  set(body "")
  foreach(input IN LISTS ARGN)
    get_filename_component(name "${input}" NAME_WE)
    string(REGEX MATCH "^([0-9]+)_(.*)$" _ "${name}")
    math(EXPR version "${CMAKE_MATCH_1}")
    set(label "${CMAKE_MATCH_2}")
    file(READ "${input}" sql)
    string(FIND "${sql}" ")hwrec_sql\"" clash)
    if(NOT clash EQUAL -1)
      message(FATAL_ERROR "${input} contains the raw-string delimiter )hwrec_sql\"")
    endif()
    string(APPEND body "      {${version}, \"${label}\", R\"hwrec_sql(${sql})hwrec_sql\"},\n")
  endforeach()
  set(${out_var} "${body}" PARENT_SCOPE)
endfunction()

hwrec_migration_entries(sqlite_body ${INPUTS})
hwrec_migration_entries(pg_body ${PG_INPUTS})
file(WRITE "${OUTPUT}.tmp" "// Generated from migrations/ by cmake/GenerateMigrations.cmake.
#include \"store/migration.h\"

namespace hwrec::internal {

const std::vector<Migration>& EmbeddedMigrations() {
  static const std::vector<Migration> kMigrations = {
${sqlite_body}  };
  return kMigrations;
}

const std::vector<Migration>& EmbeddedMigrations(store::Engine engine) {
  static const std::vector<Migration> kPostgresql = {
${pg_body}  };
  return engine == store::Engine::kPostgresql ? kPostgresql : EmbeddedMigrations();
}

}  // namespace hwrec::internal
")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
