// WalkLadder: tries the rungs of a plan in order with the caller's launcher,
// classifying each outcome (DESIGN §8).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <utility>

#include "aggregate/config_table.h"
#include "base/enum_names.h"
#include "base/time.h"
#include "hwrec/ladder.h"
#include "hwrec/ladder_walk.h"
#include "hwrec/router.h"
#include "router/router_internal.h"
#include "store/database.h"
#include "store/guarded.h"

namespace hwrec {

namespace {

// Every outcome's name. A launch outcome is named as the attempt it makes.
constexpr internal::EnumName<LaunchOutcome> kLaunchOutcomes[] = {
    {LaunchOutcome::kLaunched, "launched"},
    {LaunchOutcome::kCapacityMiss, "capacity_miss"},
    {LaunchOutcome::kQuotaExceeded, "quota_exceeded"},
    {LaunchOutcome::kConfigError, "config_error"},
    {LaunchOutcome::kPermissionError, "permission_error"},
    {LaunchOutcome::kWorkloadFailure, "workload_failure"},
    {LaunchOutcome::kNotTried, "not_tried"},
};

constexpr internal::EnumName<RungSkip> kRungSkips[] = {
    {RungSkip::kQuotaExhausted, "skipped_quota_exhausted"},
    {RungSkip::kDailyCap, "skipped_daily_cap"},
};

int DailyCap(store::Connection& db) {
  RouterSettings settings;
  const std::string key = "gcp_daily_attempt_cap";
  if (auto value =
          internal::ReadConfigValue(db, std::string(internal::kRouterConfigPrefix) + key)) {
    internal::ApplySetting(&settings, key, *value).ok();
  }
  return settings.gcp_daily_attempt_cap;
}

std::string BackendSelectedEvent(const RouteResult& r, const RoutePlan& plan) {
  const Rung& rung = *r.selected;
  nlohmann::ordered_json event;
  event["event"] = "backend-selected";
  event["intent"] = r.intent;
  event["rung"] = rung.id;
  event["backend"] = ToString(rung.backend);
  event["machine_type"] = rung.machine_type;
  event["gpu_model"] = rung.gpu_model;
  event["provisioning"] =
      rung.provisioning ? nlohmann::ordered_json(ToString(*rung.provisioning)) : nullptr;
  event["requested_width"] = r.requested_width;
  event["realized_width"] = r.realized_width;
  event["degraded"] = r.degraded;
  event["sharded"] = plan.sharded;
  return event.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

// What the day's state says of a rung before it is launched: skipped, and why.
struct Skip {
  RungSkip reason;
  std::string why;
};

// Walks the rungs; `ledger` holds the day's state. A recorded walk asks the
// launcher about a rung the day's state skips too: the dispatcher may have
// tried it anyway, and what happened is recorded (a GCP attempt past the cap
// counts, a quota found exhausted again keeps the block at the fewer GPUs).
void Walk(const RoutePlan& plan, const Launcher& launcher, internal::DayLedger& ledger, int cap,
          double now, bool recorded, RouteResult* result) {
  bool taken = false;
  bool capped = false;
  bool gcp_launched = false;  // a GCP rung was tried, whatever came of it
  for (const Rung& rung : plan.ladder) {
    const bool gcp = rung.backend == Backend::kGcp && rung.provisioning.has_value();
    const QuotaClass quota_class = gcp ? QuotaClassOf(*rung.provisioning) : QuotaClass::kOnDemand;
    std::optional<Skip> skip;
    if (const std::optional<int> blocked =
            gcp ? ledger.QuotaBlocked(rung.gpu_model, quota_class, rung.width) : std::nullopt) {
      skip = Skip{RungSkip::kQuotaExhausted,
                  fmt::format("{} {} quota was found exhausted today at {} GPU(s); this rung "
                              "needs {}",
                              rung.gpu_model, ToString(quota_class), *blocked, rung.width)};
    } else {
      if (gcp && !taken && !capped) (ledger.TryTakeGcpAttempt(cap) ? taken : capped) = true;
      if (gcp && !taken && capped) {
        skip = Skip{RungSkip::kDailyCap,
                    fmt::format("the daily GCP attempt cap ({}) is used up for today", cap)};
      }
    }
    if (skip && !recorded) {
      result->attempts.push_back({rung, LaunchOutcome::kNotTried, skip->reason, skip->why});
      continue;
    }
    LaunchResult launch = launcher(rung);
    const std::string backend_words = launch.detail;  // a quota block's reason
    if (skip) {
      if (launch.outcome == LaunchOutcome::kNotTried) {  // the dispatcher skipped it too
        result->attempts.push_back({rung, LaunchOutcome::kNotTried, skip->reason, skip->why});
        continue;
      }
      if (gcp && !taken) {  // it was tried: the attempt counts, past the cap if need be
        if (!ledger.TryTakeGcpAttempt(cap)) ledger.ForceTakeGcpAttempt();
        taken = true;
      }
      launch.detail += (launch.detail.empty() ? "" : " ") + ("(tried although " + skip->why + ")");
    }
    result->attempts.push_back({rung, launch.outcome, std::nullopt, launch.detail});
    if (launch.outcome == LaunchOutcome::kNotTried) {  // the launcher ended the walk
      if (taken && !gcp_launched) {
        ledger.ReturnGcpAttempt();  // no GCP launch was made after all
        taken = false;
      }
      break;
    }
    gcp_launched = gcp_launched || gcp;
    if (launch.outcome == LaunchOutcome::kLaunched) {
      result->selected = rung;
      break;
    }
    if (launch.outcome == LaunchOutcome::kCapacityMiss) continue;
    if (launch.outcome == LaunchOutcome::kQuotaExceeded) {
      if (gcp) {
        ledger.BlockQuota(rung.gpu_model, quota_class, rung.width,
                          backend_words.empty() ? "quota exceeded on " + rung.id : backend_words,
                          now);
      }
      continue;
    }
    result->stopped = true;  // not a capacity matter: another rung would fail alike
    break;
  }
  result->counted_gcp_attempt = taken;
}

}  // namespace

std::string_view ToString(LaunchOutcome outcome) {
  return internal::NameOf(kLaunchOutcomes, outcome, "launched");
}

std::optional<LaunchOutcome> ParseLaunchOutcome(std::string_view text) {
  return internal::ValueOf(kLaunchOutcomes, text);
}

std::string_view ToString(const RouteAttempt& attempt) {
  if (attempt.skipped) return internal::NameOf(kRungSkips, *attempt.skipped, "skipped");
  return ToString(attempt.outcome);
}

Result<RouteResult> WalkLadder(Store& store, const RoutePlan& plan, const Launcher& launcher,
                               const WalkOptions& options) {
  if (Status time = internal::CheckEpochSeconds(options.now, "now"); !time.ok()) return time;
  if (options.accept && !options.recorded) {
    return Status::InvalidArgument("WalkOptions.accept checks a recorded walk: set recorded too");
  }
  if (options.recorded && options.dry_run) {
    return Status::InvalidArgument(
        "a recorded walk writes what happened: leave dry_run unset (a dry run is a walk with no "
        "outcomes recorded)");
  }
  if (!options.dry_run) {
    if (Status writable = store.CheckWritable(); !writable.ok()) return writable;
  }
  const auto walk = [&](internal::DayLedger::Writes writes) {
    store::Connection& db = store::ConnectionOf(store);
    const double now = options.now.value_or(internal::NowEpochSeconds());
    internal::DayLedger ledger(db, internal::UtcDay(now), writes);
    RouteResult result;
    result.intent = plan.intent;
    result.requested_width = plan.requested_width;
    Walk(plan, launcher, ledger, DailyCap(db), now, options.recorded, &result);
    if (result.selected) {
      result.realized_width = result.selected->width;
      result.degraded = result.realized_width < result.requested_width;
      result.backend_selected_event = BackendSelectedEvent(result, plan);
    }
    return result;
  };
  using Writes = internal::DayLedger::Writes;
  return internal::Guarded(store, "walk the ladder", [&]() -> Result<RouteResult> {
    if (options.dry_run) return walk(Writes::kNone);
    if (!options.recorded) return walk(Writes::kOwnTransactions);
    store::Connection& db = store::ConnectionOf(store);
    return store::RunWrite(db, [&]() -> Result<RouteResult> {
      store::WriteTransaction tx(db);
      RouteResult result = walk(Writes::kCallersTransaction);
      if (options.accept) {
        if (Status accepted = options.accept(result); !accepted.ok()) return accepted;
      }
      tx.Commit();
      return result;
    });
  });
}

}  // namespace hwrec
