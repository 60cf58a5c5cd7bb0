// Store's reports on itself: `hwrec status` (GetStatus) and the schema as
// the migrations made it (DumpSchema), on either engine.
#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>

#include <string>

#include "hwrec/store.h"
#include "store/guarded.h"
#include "store/pg_schema.h"
#include "store/sqlite_util.h"
#include "store/store_impl_internal.h"

namespace hwrec {

namespace {

std::string QuoteIdentifier(const std::string& name) {
  std::string quoted = "\"";
  for (char c : name) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

}  // namespace

Result<StoreStatus> Store::GetStatus() const {
  return internal::Guarded(impl_->path, [&]() -> Result<StoreStatus> {
    store::Connection& db = *impl_->connection;
    store::ReadSnapshot snapshot(db);  // the counts of one state of the store
    const store::Connection::Footprint footprint = db.ReadFootprint();
    StoreStatus status;
    status.engine = footprint.engine;
    status.path = impl_->path;
    status.schema_version = schema_version();
    status.latest_schema_version = LatestSchemaVersion();
    status.hp_version = status.schema_version >= 2 ? "hp:v2" : "hp:v1";
    status.journal_mode = footprint.journal_mode;
    status.immutable = !impl_->immutable_reason.empty();
    status.opened = !read_only()       ? "read-write"
                    : status.immutable ? "read-only (immutable: " + impl_->immutable_reason + ")"
                                       : "read-only";
    status.schema_problem = impl_->schema_problem;
    status.file_size_bytes = footprint.bytes;
    status.wal_size_bytes = footprint.log_bytes;
    for (const std::string& table : db.TableNames()) {
      // Identifiers cannot be bound; the names come from the engine's catalog, quoted.
      const auto rows = db.QueryInt64("SELECT count(*) FROM " + QuoteIdentifier(table));
      status.tables.push_back({table, rows.value_or(0)});
    }
    return status;
  });
}

Result<std::string> Store::DumpSchema() const {
  return internal::Guarded(impl_->path, [&]() -> Result<std::string> {
    std::string out = fmt::format(
        "-- hwrec schema {}: generated from migrations/ by the `schema` build target.\n"
        "-- Do not edit; change migrations/ and rebuild.\n\n",
        schema_version());
    store::Connection& connection = *impl_->connection;
    if (connection.engine() == store::Engine::kPostgresql) {
      return out + internal::DumpPostgresqlSchema(connection);
    }
    SQLite::Statement query(internal::StoreAccess::Db(*this),
                            "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL "
                            "AND name NOT LIKE 'sqlite_%' ORDER BY CASE type "
                            "WHEN 'table' THEN 0 WHEN 'index' THEN 1 WHEN 'view' THEN 2 "
                            "ELSE 3 END, name");
    while (query.executeStep()) {
      out += query.getColumn(0).getString();
      out += ";\n\n";
    }
    out.pop_back();
    return out;
  });
}

}  // namespace hwrec
