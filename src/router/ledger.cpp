// DayLedger: the walker's per-UTC-day state (GCP attempt counter, exhausted
// quotas), persisted at once unless the walk is a dry run.
#include <cmath>
#include <ctime>

#include "base/time.h"
#include "hwrec/router.h"
#include "router/router_internal.h"
#include "store/sqlite_util.h"

namespace hwrec {

namespace internal {

DayLedger::DayLedger(SQLite::Database& db, std::string day, bool dry_run)
    : db_(db), day_(std::move(day)), dry_run_(dry_run) {
  SQLite::Statement attempts(db_, "SELECT attempts FROM router_gcp_attempts WHERE day = ?");
  attempts.bind(1, day_);
  if (attempts.executeStep()) gcp_attempts_ = attempts.getColumn(0).getInt64();
  SQLite::Statement blocks(db_, "SELECT gpu_model, class FROM router_quota_blocks WHERE day = ?");
  blocks.bind(1, day_);
  while (blocks.executeStep()) {
    const auto quota_class = ParseQuotaClass(blocks.getColumn(1).getString());
    if (quota_class) blocked_.emplace(blocks.getColumn(0).getString(), *quota_class);
  }
}

bool DayLedger::QuotaBlocked(std::string_view gpu_model, QuotaClass quota_class) const {
  return blocked_.count({std::string(gpu_model), quota_class}) != 0;
}

void DayLedger::BlockQuota(const std::string& gpu_model, QuotaClass quota_class,
                           const std::string& reason, double now) {
  blocked_.emplace(gpu_model, quota_class);
  if (dry_run_) return;
  WriteTransaction tx(db_);
  SQLite::Statement insert(db_,
                           "INSERT OR IGNORE INTO router_quota_blocks "
                           "(day, gpu_model, class, reason, blocked_at) VALUES (?, ?, ?, ?, ?)");
  insert.bind(1, day_);
  insert.bind(2, gpu_model);
  insert.bind(3, std::string(ToString(quota_class)));
  insert.bind(4, reason);
  insert.bind(5, now);
  insert.exec();
  tx.Commit();
}

bool DayLedger::TryTakeGcpAttempt(int cap) {
  if (dry_run_) {
    if (gcp_attempts_ >= cap) return false;
    ++gcp_attempts_;
    return true;
  }
  // Check and increment in one write transaction: concurrent walkers cannot overshoot.
  WriteTransaction tx(db_);
  SQLite::Statement seed(db_,
                         "INSERT OR IGNORE INTO router_gcp_attempts (day, attempts) VALUES (?, 0)");
  seed.bind(1, day_);
  seed.exec();
  SQLite::Statement take(db_,
                         "UPDATE router_gcp_attempts SET attempts = attempts + 1 "
                         "WHERE day = ? AND attempts < ?");
  take.bind(1, day_);
  take.bind(2, cap);
  const bool taken = take.exec() == 1;
  SQLite::Statement read(db_, "SELECT attempts FROM router_gcp_attempts WHERE day = ?");
  read.bind(1, day_);
  if (read.executeStep()) gcp_attempts_ = read.getColumn(0).getInt64();
  tx.Commit();
  return taken;
}

}  // namespace internal

Result<RouterDayState> ReadRouterDayState(const Store& store, std::optional<double> now) {
  if (Status time = internal::CheckEpochSeconds(now, "now"); !time.ok()) return time;
  return internal::Guarded(store, "read the router's day state", [&]() -> Result<RouterDayState> {
    SQLite::Database& db = internal::StoreAccess::Db(store);
    RouterDayState state;
    state.day = internal::UtcDay(now.value_or(internal::NowEpochSeconds()));
    internal::DayLedger ledger(db, state.day, true);
    state.gcp_attempts = ledger.gcp_attempts();
    SQLite::Statement blocks(db,
                             "SELECT gpu_model, class, reason FROM router_quota_blocks "
                             "WHERE day = ? ORDER BY gpu_model, class");
    blocks.bind(1, state.day);
    while (blocks.executeStep()) {
      state.exhausted_quotas.push_back(blocks.getColumn(0).getString() + "/" +
                                       blocks.getColumn(1).getString() + ": " +
                                       blocks.getColumn(2).getString());
    }
    return state;
  });
}

}  // namespace hwrec
