#include "hwrec/legacy_migration.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <utility>

#include "aggregate/aggregator.h"
#include "aggregate/settings.h"
#include "hwrec/store.h"
#include "legacy/legacy_move.h"
#include "recommend/materialize.h"
#include "store/backup.h"
#include "store/bulk_write.h"
#include "store/database.h"
#include "store/guarded.h"
#include "store/legacy_history.h"
#include "store/migration.h"
#include "store/migrator.h"
#include "store/row_values.h"

namespace hwrec {

namespace {

// Schema versions that change how observations feed the aggregates: a
// migration that applies one rebuilds them from the observations in its own
// transaction (13: a compute share held without utilisation is kept apart;
// 14: GPU memory per GPU is also kept per width, the GPUs executions held).
constexpr int kAggregatesRebuiltAt[] = {13, 14};

bool RebuildsAggregates(const std::vector<int>& applied) {
  for (int version : applied) {
    if (std::find(std::begin(kAggregatesRebuiltAt), std::end(kAggregatesRebuiltAt), version) !=
        std::end(kAggregatesRebuiltAt))
      return true;
  }
  return false;
}

std::vector<LegacyMigrationRecord> ReadHistory(store::Connection& db) {
  std::vector<LegacyMigrationRecord> history;
  if (!db.HasTable("legacy_migrations")) return history;
  const auto query = db.Prepare(
      "SELECT migrated_at, from_version, legacy_rows, migrated, quarantined, "
      "coalesce(backup_path, '') FROM legacy_migrations ORDER BY id");
  while (query->Step()) {
    LegacyMigrationRecord& r = history.emplace_back();
    store::ReadRow(*query, &r.migrated_at, &r.from_version, &r.legacy_rows, &r.migrated,
                   &r.quarantined, &r.backup_path);
  }
  return history;
}

}  // namespace

std::string LegacyConsentMessage(const std::string& path, std::int64_t legacy_rows) {
  return internal::LegacyConsentText(path, legacy_rows);
}

Result<LegacyMigrationReport> MigrateStore(Store& store, const LegacyMigrationOptions& options) {
  if (store.read_only()) {
    return Status::ReadOnly(fmt::format(
        "{}: the store was opened read-only: open it read-write to migrate it", store.path()));
  }
  return internal::Guarded(store.path(), [&]() -> Result<LegacyMigrationReport> {
    store::Connection& db = store::ConnectionOf(store);
    internal::Migrator migrator(store);
    if (Status s = migrator.Check(); !s.ok()) {
      return Status::SchemaMismatch(store.path() + ": " + s.message());
    }
    LegacyMigrationReport report;
    report.from_version = store.schema_version();
    report.to_version = report.from_version;
    const std::int64_t legacy_rows = internal::LegacyRowCount(db);
    if (legacy_rows == 0 && migrator.Pending().empty()) {
      report.nothing_to_do = true;
      report.history = ReadHistory(db);
      return report;
    }
    if (legacy_rows > 0 && !options.accept_hp_v2) {
      return Status::SchemaMismatch(LegacyConsentMessage(store.path(), legacy_rows));
    }
    const bool write_backup = legacy_rows > 0 && options.backup && store.path() != ":memory:";
    if (write_backup) {  // WriteBackup refuses a damaged store first
      auto backup = internal::WriteBackup(store, "hp-v1-backup", internal::BackupStamp());
      if (!backup.ok()) return backup.status();
      report.backup_path = std::move(backup).value();
    } else {
      if (Status s = internal::RefuseIfDamaged(store, "the migration"); !s.ok()) return s;
      // No backup now: what a killed earlier one left is not kept either.
      internal::RemoveStaleBackupPartials(store, "hp-v1-backup");
    }
    migrator.EnsureBookkeeping();
    store::BulkWriteMode bulk(db);
    store::WriteTransaction tx(db);
    report.applied = migrator.ApplyPendingInCallerTransaction();
    if (RebuildsAggregates(report.applied)) {
      internal::RebuildAggregates(db, internal::LoadSettings(db));
      report.recommendations = internal::RefreshAllRecommendations(db);
    }
    // Counted again inside the transaction: a writer may have added rows since.
    const std::int64_t rows = internal::LegacyRowCount(db);
    if (rows > 0 && !options.accept_hp_v2) {
      return Status::SchemaMismatch(LegacyConsentMessage(store.path(), rows));
    }
    if (rows > 0) {
      if (Status moved = internal::MoveLegacyRows(store, options, rows, &report); !moved.ok())
        return moved;
    }
    tx.Commit();
    report.to_version = store.schema_version();
    report.history = ReadHistory(db);
    return report;
  });
}

Result<std::vector<int>> Store::Migrate() {
  auto report = MigrateStore(*this, LegacyMigrationOptions());
  if (!report.ok()) return report.status();
  return std::move(report->applied);
}

}  // namespace hwrec
