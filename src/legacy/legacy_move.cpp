// MoveLegacyRows: the legacy rows into observations or the quarantine, in
// batches through a three-stage pipeline, then the counts checked.
#include "legacy/legacy_move.h"

#include <fmt/format.h>

#include <functional>
#include <future>
#include <memory>
#include <thread>
#include <utility>

#include "aggregate/aggregator.h"
#include "aggregate/settings.h"
#include "base/status_error.h"
#include "base/time.h"
#include "hwrec/catalog.h"
#include "hwrec/store.h"
#include "legacy/legacy_mover.h"
#include "legacy/legacy_pools.h"
#include "legacy/legacy_resolver.h"
#include "legacy/legacy_row.h"
#include "recommend/materialize.h"
#include "store/database.h"
#include "store/legacy_history.h"
#include "store/row_values.h"

namespace hwrec::internal {

namespace {

constexpr std::int64_t kProgressEvery = 8192;

std::int64_t RowCount(store::Connection& db, const char* table) {
  // Identifiers cannot be bound; `table` is a constant of this file.
  return db.QueryInt64(fmt::format("SELECT count(*) FROM {}", table)).value_or(0);
}

// Rows per batch of the move. Large enough to amortise the hand-over to the
// worker, small enough that three batches stay a few MiB.
constexpr std::size_t kBatchRows = 4096;

// One batch of the move: legacy rows as read, and as prepared.
struct MoveBatch {
  std::vector<LegacyRow> rows = std::vector<LegacyRow>(kBatchRows);
  std::vector<PreparedLegacyRow> prepared = std::vector<PreparedLegacyRow>(kBatchRows);
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
  LegacyMove(store::Connection& db, const std::string& store_path, LegacyResolver& resolver,
             double now, const RecommenderSettings& settings)
      : resolver_(resolver),
        bounds_{now, settings.max_clock_skew_hours},
        aggregates_(db, settings, StoredAggregates::kMergeOnFlush),
        writer_(db, now, store_path),
        rows_(db.Prepare(
            fmt::format("SELECT {} FROM site_observations ORDER BY id", kLegacyColumns))),
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
      if (!rows_->Step()) {
        exhausted_ = true;
        break;
      }
      ReadLegacyRow(*rows_, 0, &batch->rows[batch->size++]);
    }
  }

  void Prepare(MoveBatch* batch) {
    for (std::size_t i = 0; i < batch->size; ++i) {
      const LegacyRow& row = batch->rows[i];
      PrepareLegacyRow(row, resolver_.Resolve(row), bounds_, &batch->prepared[i], &scratch_);
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

  LegacyResolver& resolver_;  // worker's while the move runs
  const LegacyRowBounds bounds_;
  AggregateWriter aggregates_;
  LegacyBatchWriter writer_;
  std::unique_ptr<store::Statement> rows_;
  const bool parallel_;
  bool exhausted_ = false;
  std::string scratch_;  // worker's
  std::int64_t done_ = 0, migrated_ = 0, quarantined_ = 0;
};

}  // namespace

// Streams every legacy row into observations or quarantine, feeding the
// aggregates as it goes, then checks that the counts add up. Throws on any
// failure: the caller's transaction rolls back.
Status MoveLegacyRows(Store& store, const LegacyMigrationOptions& options, std::int64_t legacy_rows,
                      LegacyMigrationReport* report) {
  store::Connection& db = store::ConnectionOf(store);
  auto catalog = GpuCatalog::Load(store);
  if (!catalog.ok()) return catalog.status();
  auto resolver = PrepareLegacyPools(store, std::move(catalog).value(), options.pools,
                                     &report->pools_registered);
  if (!resolver.ok()) return resolver.status();
  const std::int64_t observations_before = RowCount(db, "observations");
  const std::int64_t quarantine_before = RowCount(db, "legacy_quarantine");
  const double now = NowEpochSeconds();
  const RecommenderSettings settings = LoadSettings(db);
  std::int64_t done = 0;
  {
    LegacyMove move(db, store.path(), **resolver, now, settings);
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
  db.Execute("DELETE FROM site_observations");
  const std::int64_t migrated = RowCount(db, "observations") - observations_before;
  const std::int64_t quarantined = RowCount(db, "legacy_quarantine") - quarantine_before;
  if (done != legacy_rows || migrated != report->migrated || quarantined != report->quarantined ||
      migrated + quarantined != legacy_rows || LegacyRowCount(db) != 0) {
    throw StatusError(Status::Internal(fmt::format(
        "{}: the counts do not add up ({} legacy rows, {} read, {} migrated, {} quarantined): the "
        "migration was rolled back and nothing changed; report this with the store",
        store.path(), legacy_rows, done, migrated, quarantined)));
  }
  report->legacy_rows = legacy_rows;
  report->recommendations = RefreshAllRecommendations(db);
  const auto record = db.Prepare(
      "INSERT INTO legacy_migrations (migrated_at, from_version, legacy_rows, "
      "migrated, quarantined, backup_path) VALUES (?, ?, ?, ?, ?, ?)");
  store::BindRow(*record, now, report->from_version, legacy_rows, migrated, quarantined,
                 report->backup_path.empty() ? std::nullopt : std::optional(report->backup_path));
  record->Run();
  if (options.progress) options.progress(legacy_rows, legacy_rows);
  return Status::Ok();
}

}  // namespace hwrec::internal
