// DayLedger: the walker's per-UTC-day state (GCP attempt counter, exhausted
// quotas), persisted at once unless the walk is a dry run, or in the caller's
// transaction for a recorded walk.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ctime>

#include "base/time.h"
#include "hwrec/router.h"
#include "router/router_internal.h"
#include "store/database.h"
#include "store/guarded.h"

namespace hwrec {

namespace internal {

DayLedger::DayLedger(store::Connection& db, std::string day, Writes writes)
    : db_(db), day_(std::move(day)), writes_(writes) {
  const auto attempts = db_.Prepare("SELECT attempts FROM router_gcp_attempts WHERE day = ?");
  attempts->Bind(1, day_);
  if (attempts->Step()) gcp_attempts_ = attempts->Int64(0);
  const auto blocks =
      db_.Prepare("SELECT gpu_model, class, gpus FROM router_quota_blocks WHERE day = ?");
  blocks->Bind(1, day_);
  while (blocks->Step()) {
    const auto quota_class = ParseQuotaClass(blocks->String(1));
    if (quota_class) {
      blocked_[{blocks->String(0), *quota_class}] = static_cast<int>(blocks->Int64(2));
    }
  }
}

std::optional<int> DayLedger::QuotaBlocked(std::string_view gpu_model, QuotaClass quota_class,
                                           int gpus) const {
  auto it = blocked_.find({std::string(gpu_model), quota_class});
  if (it == blocked_.end() || it->second > gpus) return std::nullopt;
  return it->second;
}

void DayLedger::BlockQuota(const std::string& gpu_model, QuotaClass quota_class, int gpus,
                           const std::string& reason, double now) {
  auto [it, added] = blocked_.try_emplace({gpu_model, quota_class}, gpus);
  if (!added) it->second = std::min(it->second, gpus);
  if (writes_ == Writes::kNone) return;
  // Another walker may have blocked the same quota: the block at fewer GPUs
  // stands, with its reason.
  Write([&] {
    const auto upsert = db_.Prepare(
        "INSERT INTO router_quota_blocks (day, gpu_model, class, reason, blocked_at, gpus) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (day, gpu_model, class) DO UPDATE SET "
        "reason = excluded.reason, blocked_at = excluded.blocked_at, gpus = excluded.gpus "
        "WHERE excluded.gpus < router_quota_blocks.gpus");
    upsert->Bind(1, day_);
    upsert->Bind(2, gpu_model);
    upsert->Bind(3, std::string(ToString(quota_class)));
    upsert->Bind(4, reason);
    upsert->Bind(5, now);
    upsert->Bind(6, static_cast<std::int64_t>(gpus));
    upsert->Run();
  });
}

void DayLedger::Write(const std::function<void()>& write) {
  if (writes_ == Writes::kCallersTransaction) {
    write();
    return;
  }
  store::RunWrite(db_, [&] {
    store::WriteTransaction tx(db_);
    write();
    tx.Commit();
  });
}

bool DayLedger::TryTakeGcpAttempt(int cap) {
  if (writes_ == Writes::kNone) {
    if (gcp_attempts_ >= cap) return false;
    ++gcp_attempts_;
    return true;
  }
  // Check and increment in one write transaction: concurrent walkers cannot
  // overshoot, and one PostgreSQL cancelled runs again from the start.
  bool taken = false;
  Write([&] {
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
    gcp_attempts_ = ReadAttempts();
  });
  return taken;
}

void DayLedger::ForceTakeGcpAttempt() {
  if (writes_ == Writes::kNone) {
    ++gcp_attempts_;
    return;
  }
  Write([&] {
    const auto take = db_.Prepare(
        "INSERT INTO router_gcp_attempts (day, attempts) VALUES (?, 1) "
        "ON CONFLICT (day) DO UPDATE SET attempts = router_gcp_attempts.attempts + 1");
    take->Bind(1, day_);
    take->Run();
    gcp_attempts_ = ReadAttempts();
  });
}

void DayLedger::ReturnGcpAttempt() {
  if (writes_ == Writes::kNone) {
    if (gcp_attempts_ > 0) --gcp_attempts_;
    return;
  }
  Write([&] {
    const auto give_back = db_.Prepare(
        "UPDATE router_gcp_attempts SET attempts = attempts - 1 WHERE day = ? AND attempts > 0");
    give_back->Bind(1, day_);
    give_back->Run();
    gcp_attempts_ = ReadAttempts();
  });
}

std::int64_t DayLedger::ReadAttempts() {
  const auto read = db_.Prepare("SELECT attempts FROM router_gcp_attempts WHERE day = ?");
  read->Bind(1, day_);
  return read->Step() ? read->Int64(0) : 0;
}

}  // namespace internal

Result<RouterDayState> ReadRouterDayState(const Store& store, std::optional<double> now) {
  if (Status time = internal::CheckEpochSeconds(now, "now"); !time.ok()) return time;
  return internal::Guarded(store, "read the router's day state", [&]() -> Result<RouterDayState> {
    store::Connection& db = store::ConnectionOf(store);
    RouterDayState state;
    state.day = internal::UtcDay(now.value_or(internal::NowEpochSeconds()));
    internal::DayLedger ledger(db, state.day, internal::DayLedger::Writes::kNone);
    state.gcp_attempts = ledger.gcp_attempts();
    const auto blocks = db.Prepare(
        "SELECT gpu_model, class, reason, gpus FROM router_quota_blocks "
        "WHERE day = ? ORDER BY gpu_model, class");
    blocks->Bind(1, state.day);
    while (blocks->Step()) {
      const auto quota_class = internal::ParseQuotaClass(blocks->String(1));
      if (!quota_class) continue;  // the table's CHECK admits no other class
      QuotaBlock block{blocks->String(0), *quota_class, static_cast<int>(blocks->Int64(3)),
                       blocks->String(2)};
      state.exhausted_quotas.push_back(fmt::format("{}/{}, rungs of {} or more GPUs: {}",
                                                   block.gpu_model, ToString(block.quota_class),
                                                   block.gpus, block.reason));
      state.quota_blocks.push_back(std::move(block));
    }
    return state;
  });
}

}  // namespace hwrec
