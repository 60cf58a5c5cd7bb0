#include "store/legacy_history.h"

#include <fmt/format.h>

#include "hwrec/remedy.h"
#include "hwrec/store.h"

namespace hwrec::internal {

std::int64_t LegacyRowCount(store::Connection& db) {
  if (!db.HasTable("site_observations")) return 0;
  return db.QueryInt64("SELECT count(*) FROM site_observations").value_or(0);
}

std::string LegacyConsentText(const std::string& path, std::int64_t legacy_rows) {
  return fmt::format(
      "{}: the store holds {} rows of legacy site-keyed history with hp:v1 ids, which do not "
      "tell one GPU model from another. Migrating to schema {} re-keys that history by hardware "
      "(GPU brand, GPU model, instance type) with hp:v2 ids: every row moves into observations "
      "with its old hp:v1 id kept beside the new hp:v2 id; rows whose GPU model cannot be "
      "resolved from their node pool or their own GPU name are quarantined with a reason, never "
      "dropped ({}); aggregates and recommendations are rebuilt from the "
      "moved rows, and a backup of the store is written next to it first. This is a decision, "
      "not a side effect: preview the plan with {}, then run {}. Until then the store is "
      "read-only",
      path, legacy_rows, Store::LatestSchemaVersion(), RemedyText(Remedy::kQuarantineList, path),
      RemedyText(Remedy::kMigrateDryRun, path), RemedyText(Remedy::kMigrateAccept, path));
}

}  // namespace hwrec::internal
