// DayLedger: the walker's per-UTC-day state (GCP attempt counter, exhausted
// quotas), persisted at once unless the walk is a dry run.
#include <cmath>
#include <ctime>

#include "base/time.h"
#include "hwrec/router.h"
#include "router/router_internal.h"
#include "store/database.h"
#include "store/guarded.h"

namespace hwrec {

namespace internal {

DayLedger::DayLedger(store::Connection& db, std::string day, bool dry_run)
    : db_(db), day_(std::move(day)), dry_run_(dry_run) {
  const auto attempts = db_.Prepare("SELECT attempts FROM router_gcp_attempts WHERE day = ?");
  attempts->Bind(1, day_);
  if (attempts->Step()) gcp_attempts_ = attempts->Int64(0);
  const auto blocks = db_.Prepare("SELECT gpu_model, class FROM router_quota_blocks WHERE day = ?");
  blocks->Bind(1, day_);
  while (blocks->Step()) {
    const auto quota_class = ParseQuotaClass(blocks->String(1));
    if (quota_class) blocked_.emplace(blocks->String(0), *quota_class);
  }
}

bool DayLedger::QuotaBlocked(std::string_view gpu_model, QuotaClass quota_class) const {
  return blocked_.count({std::string(gpu_model), quota_class}) != 0;
}

void DayLedger::BlockQuota(const std::string& gpu_model, QuotaClass quota_class,
                           const std::string& reason, double now) {
  blocked_.emplace(gpu_model, quota_class);
  if (dry_run_) return;
  // Another walker may have blocked the same quota first: that row stands.
  store::RunWrite(db_, [&] {
    store::WriteTransaction tx(db_);
    const auto insert = db_.Prepare(
        "INSERT INTO router_quota_blocks (day, gpu_model, class, reason, blocked_at) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING");
    insert->Bind(1, day_);
    insert->Bind(2, gpu_model);
    insert->Bind(3, std::string(ToString(quota_class)));
    insert->Bind(4, reason);
    insert->Bind(5, now);
    insert->Run();
    tx.Commit();
  });
}

bool DayLedger::TryTakeGcpAttempt(int cap) {
  if (dry_run_) {
    if (gcp_attempts_ >= cap) return false;
    ++gcp_attempts_;
    return true;
  }
  // Check and increment in one write transaction: concurrent walkers cannot
  // overshoot, and one PostgreSQL cancelled runs again from the start.
  bool taken = false;
  store::RunWrite(db_, [&] {
    store::WriteTransaction tx(db_);
    const auto seed = db_.Prepare(
        "INSERT INTO router_gcp_attempts (day, attempts) VALUES (?, 0) ON CONFLICT DO NOTHING");
    seed->Bind(1, day_);
    seed->Run();
    const auto take = db_.Prepare(
        "UPDATE router_gcp_attempts SET attempts = attempts + 1 "
        "WHERE day = ? AND attempts < ?");
    take->Bind(1, day_);
    take->Bind(2, cap);
    taken = take->Run() == 1;
    const auto read = db_.Prepare("SELECT attempts FROM router_gcp_attempts WHERE day = ?");
    read->Bind(1, day_);
    const std::int64_t attempts = read->Step() ? read->Int64(0) : gcp_attempts_;
    tx.Commit();
    gcp_attempts_ = attempts;  // only what committed
  });
  return taken;
}

}  // namespace internal

Result<RouterDayState> ReadRouterDayState(const Store& store, std::optional<double> now) {
  if (Status time = internal::CheckEpochSeconds(now, "now"); !time.ok()) return time;
  return internal::Guarded(store, "read the router's day state", [&]() -> Result<RouterDayState> {
    store::Connection& db = store::ConnectionOf(store);
    RouterDayState state;
    state.day = internal::UtcDay(now.value_or(internal::NowEpochSeconds()));
    internal::DayLedger ledger(db, state.day, true);
    state.gcp_attempts = ledger.gcp_attempts();
    const auto blocks = db.Prepare(
        "SELECT gpu_model, class, reason FROM router_quota_blocks "
        "WHERE day = ? ORDER BY gpu_model, class");
    blocks->Bind(1, state.day);
    while (blocks->Step()) {
      state.exhausted_quotas.push_back(blocks->String(0) + "/" + blocks->String(1) + ": " +
                                       blocks->String(2));
    }
    return state;
  });
}

}  // namespace hwrec
