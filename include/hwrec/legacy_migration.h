// Legacy migration: moving site-keyed history (schema 1, hp:v1 ids) to
// hardware keys (hp:v2). Re-keying invalidates the old keying, so it is a
// decision: MigrateStore refuses without accept_hp_v2, backs the store up,
// then in ONE transaction applies the pending schema migrations and moves every
// legacy row into observations (hp:v1 kept beside hp:v2) or into quarantine
// with a reason; migrated + quarantined = legacy rows or nothing changes.
// Rows resolve through their node pool (legacy site_node_pools, registered
// node_pools, or pools given with the migration) or through their own GPU name
// (node_pool_gpu) looked up in the catalog. One thread at a time per Store.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "hwrec/export.h"
#include "hwrec/node_pool.h"
#include "hwrec/status.h"

namespace hwrec {

class Store;

// One site and node pool of the legacy history, and where its rows would go.
struct HWREC_EXPORT LegacyPlanGroup {
  std::string site_id;
  std::string node_pool_id;  // empty when the rows name no pool
  std::int64_t rows = 0;
  std::int64_t via_node_pool = 0;  // hardware from the registered node pool
  std::int64_t via_row_gpu = 0;    // GPU model from the row's own GPU name, via the catalog
  std::int64_t cpu_only = 0;       // no pool, and the row says it had no GPU
  std::map<std::string, std::int64_t> quarantined;  // reason code -> rows
};

struct HWREC_EXPORT LegacyPlan {
  std::string path;
  int from_version = 0;
  int to_version = 0;
  std::vector<int> pending_versions;  // schema migrations the run applies
  std::int64_t legacy_rows = 0;
  std::int64_t migrated = 0;                       // rows that would become observations
  std::int64_t quarantined = 0;                    // rows that would wait in quarantine
  std::vector<LegacyPlanGroup> groups;             // by site, then node pool
  std::map<std::string, std::string> reason_text;  // reason code -> one full reason
  // Of the quarantined: rows of GPU pools with no recorded model
  // (pool_without_gpu_model). Never guessed: once migrated, an operator
  // attaches the model when it is known, or releases them into the shared
  // unknown-model population with `release_unknown_model`, the exact command
  // (empty when there are none; ResolveQuarantine with kUnknownGpuModel).
  std::int64_t unknown_model = 0;
  std::string release_unknown_model;
};

// A finished run, as recorded in the store's legacy_migrations table.
struct HWREC_EXPORT LegacyMigrationRecord {
  double migrated_at = 0;  // epoch seconds
  int from_version = 0;
  std::int64_t legacy_rows = 0;
  std::int64_t migrated = 0;
  std::int64_t quarantined = 0;
  std::string backup_path;  // empty when run without a backup
};

struct HWREC_EXPORT LegacyMigrationOptions {
  bool accept_hp_v2 = false;    // consent to re-key legacy history (required when it has rows)
  bool backup = true;           // VACUUM INTO a file next to the store before moving rows
  std::vector<NodePool> pools;  // registered in the same transaction, and used to resolve rows
  // Called now and then while rows move: (rows done, legacy rows).
  std::function<void(std::int64_t, std::int64_t)> progress;
};

struct HWREC_EXPORT LegacyMigrationReport {
  int from_version = 0;
  int to_version = 0;
  std::vector<int> applied;    // schema versions applied by this run
  bool nothing_to_do = false;  // the store was already at the latest schema with no legacy rows
  std::int64_t legacy_rows = 0;
  std::int64_t migrated = 0;
  std::int64_t quarantined = 0;
  std::int64_t recommendations = 0;   // materialised (workload, hardware key) rows
  std::int64_t pools_registered = 0;  // given pools and resolvable legacy pools
  std::string backup_path;
  std::vector<LegacyMigrationRecord> history;  // earlier and this run, oldest first
};

// Rows in the store's legacy site_observations table (0 when it has none).
// Returns kIoError when the store cannot be read.
HWREC_EXPORT Result<std::int64_t> CountLegacyRows(const Store& store);

// What MigrateStore would do, computed with reads only: the store may be open
// read-only and its file is left byte-identical. `pools` as in the options.
// Returns kInvalidArgument for a given pool that fails validation, kIoError
// when the store cannot be read.
HWREC_EXPORT Result<LegacyPlan> PlanLegacyMigration(const Store& store,
                                                    const std::vector<NodePool>& pools = {});

// Applies pending schema migrations and moves legacy history, as described
// above. Without consent and with legacy rows: kSchemaMismatch with
// LegacyConsentMessage, and the store is unchanged. An empty legacy store
// migrates without consent. A store with nothing pending reports nothing_to_do.
// Also returns kReadOnly for a read-only store, kSchemaMismatch for a store
// newer than this build, kInvalidArgument for a given pool that fails
// validation, kIoError when the store is damaged or cannot be written or
// backed up (nothing changed).
HWREC_EXPORT Result<LegacyMigrationReport> MigrateStore(Store& store,
                                                        const LegacyMigrationOptions& options);

// What the hp:v2 bump does, in words, and how to preview and accept it.
HWREC_EXPORT std::string LegacyConsentMessage(const std::string& path, std::int64_t legacy_rows);

}  // namespace hwrec
