#include "hwrec/legacy_migration.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>

#include <filesystem>
#include <functional>
#include <future>
#include <map>
#include <stdexcept>
#include <thread>
#include <utility>

#include "aggregate/aggregator.h"
#include "aggregate/materialize.h"
#include "aggregate/settings.h"
#include "hwrec/catalog.h"
#include "hwrec/store.h"
#include "legacy/legacy_mover.h"
#include "legacy/legacy_pools.h"
#include "legacy/legacy_resolver.h"
#include "legacy/legacy_row.h"
#include "store/backup.h"
#include "store/migration.h"
#include "store/migrator.h"
#include "store/sqlite_util.h"

namespace hwrec {

namespace {

using internal::LegacyResolution;
using internal::LegacyRoute;
using internal::LegacyRow;

constexpr std::int64_t kProgressEvery = 8192;
std::int64_t LegacyRowCount(SQLite::Database& db) {
  if (!db.tableExists("site_observations")) return 0;
  return db.execAndGet("SELECT count(*) FROM site_observations").getInt64();
}

std::int64_t RowCount(SQLite::Database& db, const char* table) {
  // Identifiers cannot be bound; `table` is a constant of this file.
  return db.execAndGet(fmt::format("SELECT count(*) FROM {}", table)).getInt64();
}

std::vector<LegacyMigrationRecord> ReadHistory(SQLite::Database& db) {
  std::vector<LegacyMigrationRecord> history;
  if (!db.tableExists("legacy_migrations")) return history;
  SQLite::Statement query(db,
                          "SELECT migrated_at, from_version, legacy_rows, migrated, quarantined, "
                          "coalesce(backup_path, '') FROM legacy_migrations ORDER BY id");
  while (query.executeStep()) {
    history.push_back({query.getColumn(0).getDouble(), query.getColumn(1).getInt(),
                       query.getColumn(2).getInt64(), query.getColumn(3).getInt64(),
                       query.getColumn(4).getInt64(), query.getColumn(5).getString()});
  }
  return history;
}

// The catalog the migration will resolve with: the store's when it has one,
// else the catalog this build seeds (what the pending migrations will write).
Result<GpuCatalog> PlanCatalog(const Store& store) {
  if (internal::StoreAccess::Db(store).tableExists("gpu_models")) return GpuCatalog::Load(store);
  StoreOptions scratch;
  scratch.create_if_missing = true;
  auto fresh = Store::Open(":memory:", scratch);
  if (!fresh.ok()) return fresh.status();
  return GpuCatalog::Load(**fresh);
}

LegacyPlanGroup& GroupOf(std::map<std::pair<std::string, std::string>, LegacyPlanGroup>* groups,
                         const LegacyRow& row) {
  const std::string pool = row.node_pool_id.value_or("");
  LegacyPlanGroup& group = (*groups)[{row.site_id, pool}];
  group.site_id = row.site_id;
  group.node_pool_id = pool;
  return group;
}

// Where the plan says one row goes: the route, or a quarantine reason.
void PlanRow(const LegacyRow& row, const LegacyResolution& r, SQLite::Statement* stored,
             LegacyPlan* plan, LegacyPlanGroup* group) {
  std::string code = r.reason_code;
  std::string reason = r.reason;
  if (r.route != LegacyRoute::kQuarantine) {
    FieldError invalid;
    if (!internal::ToValidObservation(row, &invalid)) {
      code = internal::kInvalidField;
      reason = fmt::format("{}: {}", invalid.field, invalid.reason);
    } else if (stored != nullptr) {
      stored->reset();
      stored->bind(1, row.execution_id);
      if (stored->executeStep()) {
        code = internal::kAlreadyStored;
        reason =
            fmt::format("execution '{}' is already stored as an observation", row.execution_id);
      }
    }
  }
  ++group->rows;
  if (code.empty()) {
    ++plan->migrated;
    if (r.route == LegacyRoute::kNodePool) ++group->via_node_pool;
    if (r.route == LegacyRoute::kRowGpu) ++group->via_row_gpu;
    if (r.route == LegacyRoute::kCpuOnly) ++group->cpu_only;
    return;
  }
  ++plan->quarantined;
  ++group->quarantined[code];
  plan->reason_text.emplace(code, reason);
}

}  // namespace

Result<std::int64_t> CountLegacyRows(const Store& store) {
  return internal::Guarded(store.path(), [&]() -> Result<std::int64_t> {
    return LegacyRowCount(internal::StoreAccess::Db(store));
  });
}

std::string LegacyConsentMessage(const std::string& path, std::int64_t legacy_rows) {
  return fmt::format(
      "{}: the store holds {} rows of legacy site-keyed history with hp:v1 ids, which do not "
      "tell one GPU model from another. Migrating to schema {} re-keys that history by hardware "
      "(GPU brand, GPU model, instance type) with hp:v2 ids: every row moves into observations "
      "with its old hp:v1 id kept beside the new hp:v2 id; rows whose GPU model cannot be "
      "resolved from their node pool or their own GPU name are quarantined with a reason, never "
      "dropped (`hwrec quarantine list`); aggregates and recommendations are rebuilt from the "
      "moved rows, and a backup of the store is written next to it first. This is a decision, "
      "not a side effect: preview the plan with `hwrec migrate {} --dry-run`, then run `hwrec "
      "migrate {} --accept-hp-v2`. Until then the store is read-only",
      path, legacy_rows, Store::LatestSchemaVersion(), path, path);
}

Status CreateLegacyStore(const std::string& path) {
  if (std::filesystem::exists(path)) {
    return Status::Conflict(
        fmt::format("{}: the file exists: choose a new path for the "
                    "legacy store",
                    path));
  }
  return internal::Guarded(path, [&]() -> Status {
    SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("PRAGMA journal_mode = WAL");
    const std::vector<internal::Migration> first = {internal::EmbeddedMigrations().front()};
    auto applied = internal::Migrator(db, first).ApplyPending();
    return applied.ok() ? Status::Ok() : applied.status();
  });
}

Result<LegacyPlan> PlanLegacyMigration(const Store& store, const std::vector<NodePool>& pools) {
  return internal::Guarded(store.path(), [&]() -> Result<LegacyPlan> {
    SQLite::Database& db = internal::StoreAccess::Db(store);
    LegacyPlan plan;
    plan.path = store.path();
    plan.from_version = store.schema_version();
    plan.pending_versions = internal::Migrator(db, internal::EmbeddedMigrations()).Pending();
    plan.to_version =
        plan.pending_versions.empty() ? plan.from_version : plan.pending_versions.back();
    plan.legacy_rows = LegacyRowCount(db);
    if (plan.legacy_rows == 0) return plan;
    auto catalog = PlanCatalog(store);
    if (!catalog.ok()) return catalog.status();
    auto resolver = internal::MakeLegacyResolver(store, std::move(catalog).value(), pools);
    if (!resolver.ok()) return resolver.status();
    std::optional<SQLite::Statement> stored;
    if (db.tableExists("observations")) {
      stored.emplace(db, "SELECT 1 FROM observations WHERE execution_id = ?");
    }
    std::map<std::pair<std::string, std::string>, LegacyPlanGroup> groups;
    internal::RawQuery rows(
        db, fmt::format("SELECT {} FROM site_observations ORDER BY id", internal::kLegacyColumns));
    LegacyRow row;
    while (rows.Step()) {
      internal::ReadLegacyRow(rows.handle(), 0, &row);
      PlanRow(row, *(*resolver)->Resolve(row), stored ? &*stored : nullptr, &plan,
              &GroupOf(&groups, row));
    }
    for (auto& [key, group] : groups) plan.groups.push_back(std::move(group));
    return plan;
  });
}

namespace {

// Rows per batch of the move. Large enough to amortise the hand-over to the
// worker, small enough that three batches stay a few MiB.
constexpr std::size_t kBatchRows = 4096;

// One batch of the move: legacy rows as read, and as prepared.
struct MoveBatch {
  std::vector<LegacyRow> rows = std::vector<LegacyRow>(kBatchRows);
  std::vector<internal::PreparedLegacyRow> prepared =
      std::vector<internal::PreparedLegacyRow>(kBatchRows);
  std::size_t size = 0;
};

// Moves the legacy rows in batches through three stages: read and store on
// the calling thread (which owns the connection and its write transaction),
// prepare (resolve, validate, hash) and aggregate on a worker, so that batch
// n is stored while batch n+1 is prepared and batch n-1 is added to the
// aggregates. The worker never touches the database: its aggregates are
// merged with the stored ones at Flush, on the calling thread.
class LegacyMove {
 public:
  LegacyMove(SQLite::Database& db, store::Connection& connection,
             internal::LegacyResolver& resolver, double now,
             const internal::RecommenderSettings& settings)
      : resolver_(resolver),
        aggregates_(connection, settings, internal::StoredAggregates::kMergeOnFlush),
        writer_(db, connection, now),
        rows_(db, fmt::format("SELECT {} FROM site_observations ORDER BY id",
                              internal::kLegacyColumns)),
        parallel_(std::thread::hardware_concurrency() > 1) {}

  // Moves every row; `progress` is called on the calling thread after each batch.
  void Run(const std::function<void(std::int64_t)>& progress) {
    MoveBatch batches[3];
    Read(&batches[0]);
    Prepare(&batches[0]);
    MoveBatch* aggregate = nullptr;  // stored, waiting for the aggregates
    for (std::size_t n = 0; batches[n % 3].size > 0; ++n) {
      MoveBatch& current = batches[n % 3];
      MoveBatch& next = batches[(n + 1) % 3];
      Read(&next);
      auto work = [this, &next, aggregate] {
        Prepare(&next);
        if (aggregate != nullptr) Aggregate(*aggregate);
      };
      std::future<void> worker;
      if (parallel_) {
        worker = std::async(std::launch::async, work);
      } else {
        work();
      }
      try {
        Store(&current);
      } catch (...) {
        if (worker.valid()) worker.wait();
        throw;
      }
      if (worker.valid()) worker.get();
      aggregate = &current;
      progress(done_);
    }
    if (aggregate != nullptr) Aggregate(*aggregate);
    aggregates_.Flush();
  }

  std::int64_t done() const { return done_; }
  std::int64_t migrated() const { return migrated_; }
  std::int64_t quarantined() const { return quarantined_; }

 private:
  void Read(MoveBatch* batch) {
    batch->size = 0;
    while (!exhausted_ && batch->size < kBatchRows) {
      if (!rows_.Step()) {
        exhausted_ = true;
        break;
      }
      internal::ReadLegacyRow(rows_.handle(), 0, &batch->rows[batch->size++]);
    }
  }

  void Prepare(MoveBatch* batch) {
    for (std::size_t i = 0; i < batch->size; ++i) {
      const LegacyRow& row = batch->rows[i];
      internal::PrepareLegacyRow(row, resolver_.Resolve(row), &batch->prepared[i], &scratch_);
    }
  }

  void Store(MoveBatch* batch) {
    const std::size_t stored =
        writer_.Store(batch->rows.data(), batch->prepared.data(), batch->size);
    migrated_ += static_cast<std::int64_t>(stored);
    quarantined_ += static_cast<std::int64_t>(batch->size - stored);
    done_ += static_cast<std::int64_t>(batch->size);
  }

  void Aggregate(const MoveBatch& batch) {
    for (std::size_t i = 0; i < batch.size; ++i) {
      if (batch.prepared[i].stored) aggregates_.Add(batch.prepared[i].aggregate);
    }
  }

  internal::LegacyResolver& resolver_;  // worker's while the move runs
  internal::AggregateWriter aggregates_;
  internal::LegacyBatchWriter writer_;
  internal::RawQuery rows_;
  const bool parallel_;
  bool exhausted_ = false;
  std::string scratch_;  // worker's
  std::int64_t done_ = 0, migrated_ = 0, quarantined_ = 0;
};

// Streams every legacy row into observations or quarantine, feeding the
// aggregates as it goes, then checks that the counts add up. Throws on any
// failure: the caller's transaction rolls back.
Status MoveLegacyRows(Store& store, const LegacyMigrationOptions& options, std::int64_t legacy_rows,
                      LegacyMigrationReport* report) {
  SQLite::Database& db = internal::StoreAccess::Db(store);
  auto catalog = GpuCatalog::Load(store);
  if (!catalog.ok()) return catalog.status();
  auto resolver = internal::PrepareLegacyPools(store, std::move(catalog).value(), options.pools,
                                               &report->pools_registered);
  if (!resolver.ok()) return resolver.status();
  const std::int64_t observations_before = RowCount(db, "observations");
  const std::int64_t quarantine_before = RowCount(db, "legacy_quarantine");
  const double now = internal::NowEpochSeconds();
  store::Connection& connection = store::ConnectionOf(store);
  const internal::RecommenderSettings settings = internal::LoadSettings(connection);
  std::int64_t done = 0;
  {
    LegacyMove move(db, connection, **resolver, now, settings);
    std::int64_t reported = 0;
    move.Run([&](std::int64_t n) {
      if (options.progress && n - reported >= kProgressEvery) {
        options.progress(n, legacy_rows);
        reported = n;
      }
    });
    done = move.done();
    report->migrated = move.migrated();
    report->quarantined = move.quarantined();
  }
  db.exec("DELETE FROM site_observations");
  const std::int64_t migrated = RowCount(db, "observations") - observations_before;
  const std::int64_t quarantined = RowCount(db, "legacy_quarantine") - quarantine_before;
  if (done != legacy_rows || migrated != report->migrated || quarantined != report->quarantined ||
      migrated + quarantined != legacy_rows || LegacyRowCount(db) != 0) {
    throw std::runtime_error(fmt::format(
        "the counts do not add up ({} legacy rows, {} read, {} migrated, {} quarantined): the "
        "migration was rolled back and nothing changed; report this with the store",
        legacy_rows, done, migrated, quarantined));
  }
  report->legacy_rows = legacy_rows;
  report->recommendations = internal::RefreshAllRecommendations(connection);
  SQLite::Statement record(db,
                           "INSERT INTO legacy_migrations (migrated_at, from_version, legacy_rows, "
                           "migrated, quarantined, backup_path) VALUES (?, ?, ?, ?, ?, ?)");
  record.bind(1, now);
  record.bind(2, report->from_version);
  record.bind(3, legacy_rows);
  record.bind(4, migrated);
  record.bind(5, quarantined);
  internal::BindOptional(
      record, 6, report->backup_path.empty() ? std::nullopt : std::optional(report->backup_path));
  record.exec();
  if (options.progress) options.progress(legacy_rows, legacy_rows);
  return Status::Ok();
}

// For the move, the store is switched to a rollback journal when this is its
// only connection: the new pages are then written to the file once, where a
// WAL writes them twice (to the WAL, then at checkpoint). Rollback journals
// are as crash-safe as WAL; synchronous = FULL while it lasts. The page cache
// is enlarged to 64 MiB, which keeps the indexes' working pages cached while
// the move writes, and secure_delete is FAST: emptying site_observations would otherwise zero and
// journal every page of it, though every row it held now lives on in
// observations or legacy_quarantine. Everything is restored when the scope
// ends, whatever happened.
class BulkWriteMode {
 public:
  explicit BulkWriteMode(SQLite::Database& db) : db_(db) {
    cache_size_ = db.execAndGet("PRAGMA cache_size").getInt();
    secure_delete_ = db.execAndGet("PRAGMA secure_delete").getInt();
    db.exec("PRAGMA cache_size = -65536");  // 64 MiB
    db.exec("PRAGMA secure_delete = FAST");
    if (db.execAndGet("PRAGMA journal_mode").getString() != "wal") return;
    // Leaving WAL needs the only connection; another one is not waited for.
    const int busy_timeout = db.execAndGet("PRAGMA busy_timeout").getInt();
    db.exec("PRAGMA busy_timeout = 0");
    try {
      rollback_journal_ = db.execAndGet("PRAGMA journal_mode = DELETE").getString() == "delete";
    } catch (const SQLite::Exception&) {
      rollback_journal_ = false;  // another connection has the store open: stay in WAL
    }
    // PRAGMA takes no bound parameters; the timeout is an integer SQLite returned.
    db.exec(fmt::format("PRAGMA busy_timeout = {:d}", busy_timeout));
    if (rollback_journal_) db.exec("PRAGMA synchronous = FULL");
  }
  BulkWriteMode(const BulkWriteMode&) = delete;
  BulkWriteMode& operator=(const BulkWriteMode&) = delete;
  ~BulkWriteMode() {
    try {
      if (rollback_journal_) {
        db_.exec("PRAGMA journal_mode = WAL");
        db_.exec("PRAGMA synchronous = NORMAL");
      }
      // PRAGMA takes no bound parameters; both are integers SQLite returned.
      db_.exec(fmt::format("PRAGMA cache_size = {:d}", cache_size_));
      db_.exec(fmt::format("PRAGMA secure_delete = {:d}", secure_delete_));
    } catch (const SQLite::Exception&) {
      // Store::Open sets WAL again on the next open.
    }
  }

 private:
  SQLite::Database& db_;
  int cache_size_ = 0;
  int secure_delete_ = 0;
  bool rollback_journal_ = false;
};

}  // namespace

Result<LegacyMigrationReport> MigrateStore(Store& store, const LegacyMigrationOptions& options) {
  if (store.read_only()) {
    return Status::ReadOnly(fmt::format(
        "{}: the store was opened read-only: open it read-write to migrate it", store.path()));
  }
  return internal::Guarded(store.path(), [&]() -> Result<LegacyMigrationReport> {
    SQLite::Database& db = internal::StoreAccess::Db(store);
    internal::Migrator migrator(db, internal::EmbeddedMigrations());
    if (Status s = migrator.Check(); !s.ok()) {
      return Status::SchemaMismatch(store.path() + ": " + s.message());
    }
    LegacyMigrationReport report;
    report.from_version = store.schema_version();
    report.to_version = report.from_version;
    const std::int64_t legacy_rows = LegacyRowCount(db);
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
      auto backup =
          internal::WriteBackup(db, store.path(), "hp-v1-backup", internal::BackupStamp());
      if (!backup.ok()) return backup.status();
      report.backup_path = std::move(backup).value();
    } else if (Status s = internal::RefuseIfDamaged(db, store.path(), "the migration"); !s.ok()) {
      return s;
    }
    migrator.EnsureBookkeeping();
    BulkWriteMode bulk(db);
    internal::WriteTransaction tx(db);
    report.applied = migrator.ApplyPendingInCallerTransaction();
    // Counted again inside the transaction: a writer may have added rows since.
    const std::int64_t rows = LegacyRowCount(db);
    if (rows > 0 && !options.accept_hp_v2) {
      return Status::SchemaMismatch(LegacyConsentMessage(store.path(), rows));
    }
    if (rows > 0) {
      if (Status moved = MoveLegacyRows(store, options, rows, &report); !moved.ok()) return moved;
    }
    tx.Commit();
    report.to_version = store.schema_version();
    report.history = ReadHistory(db);
    return report;
  });
}

}  // namespace hwrec
