# Embeds migrations/NNNN_name.sql (SQLite) and migrations/postgresql/NNNN_name.sql
# into a generated C++ source so that the library carries its own schema
# history for each engine; re-generated when a file changes.
function(hwrec_embed_migrations out_var)
  file(GLOB migration_files CONFIGURE_DEPENDS
       "${PROJECT_SOURCE_DIR}/migrations/[0-9][0-9][0-9][0-9]_*.sql")
  file(GLOB pg_migration_files CONFIGURE_DEPENDS
       "${PROJECT_SOURCE_DIR}/migrations/postgresql/[0-9][0-9][0-9][0-9]_*.sql")
  list(SORT migration_files)
  list(SORT pg_migration_files)
  set(generated "${CMAKE_CURRENT_BINARY_DIR}/embedded_migrations.cpp")
  add_custom_command(
    OUTPUT "${generated}"
    COMMAND "${CMAKE_COMMAND}" -DOUTPUT=${generated}
            "-DINPUTS=${migration_files}" "-DPG_INPUTS=${pg_migration_files}"
            -P "${PROJECT_SOURCE_DIR}/cmake/GenerateMigrations.cmake"
    DEPENDS ${migration_files} ${pg_migration_files}
            "${PROJECT_SOURCE_DIR}/cmake/GenerateMigrations.cmake"
    COMMENT "Embedding ${CMAKE_CURRENT_LIST_DIR} migrations"
    VERBATIM)
  set(${out_var} "${generated}" PARENT_SCOPE)
endfunction()
