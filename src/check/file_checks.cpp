// The schema check: the applied migrations are this build's, the recorded
// version agrees with them, and the store has what they create. What an
// engine keeps of its schema, and how its storage is checked, is its own
// (store::Inspection).
#include <fmt/format.h>

#include "check/findings.h"
#include "hwrec/store.h"

namespace hwrec::internal {

void CheckSchema(store::Inspection& file, CheckResult*, Findings* findings) {
  store::Connection& db = file.connection();
  if (Status s = file.CheckMigrations(); !s.ok()) findings->Add(s.message());
  const int version = file.SchemaVersion();
  const auto applied =
      db.Prepare("SELECT count(*), coalesce(max(version), 0) FROM schema_migrations");
  applied->Step();
  if (applied->Int(1) != version || applied->Int(0) != version) {
    findings->Add(fmt::format("{} is {}, but schema_migrations records {} migration(s) up to {}",
                              file.SchemaVersionName(), version, applied->Int(0), applied->Int(1)));
  }
  if (version != Store::LatestSchemaVersion()) return;
  file.CompareSchemaObjects([&](std::string problem) { findings->Add(std::move(problem)); });
}

void CheckStorage(store::Inspection& file, store::StorageCheck check, Findings* findings) {
  file.Run(check, [&](std::string problem) { findings->Add(std::move(problem)); });
}

}  // namespace hwrec::internal
