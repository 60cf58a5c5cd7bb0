// WalkLadder: tries the rungs of a plan in order with the caller's launcher,
// classifying each outcome (DESIGN §8).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "aggregate/config_table.h"
#include "hwrec/router.h"
#include "router/router_internal.h"
#include "store/sqlite_util.h"

namespace hwrec {

namespace {

struct OutcomeName {
  LaunchOutcome outcome;
  const char* name;
};
constexpr OutcomeName kLaunchOutcomes[] = {
    {LaunchOutcome::kLaunched, "launched"},
    {LaunchOutcome::kCapacityMiss, "capacity_miss"},
    {LaunchOutcome::kQuotaExceeded, "quota_exceeded"},
    {LaunchOutcome::kConfigError, "config_error"},
    {LaunchOutcome::kPermissionError, "permission_error"},
    {LaunchOutcome::kWorkloadFailure, "workload_failure"},
};

AttemptOutcome AttemptOf(LaunchOutcome outcome) {
  switch (outcome) {
    case LaunchOutcome::kLaunched:
      return AttemptOutcome::kLaunched;
    case LaunchOutcome::kCapacityMiss:
      return AttemptOutcome::kCapacityMiss;
    case LaunchOutcome::kQuotaExceeded:
      return AttemptOutcome::kQuotaExceeded;
    case LaunchOutcome::kConfigError:
      return AttemptOutcome::kConfigError;
    case LaunchOutcome::kPermissionError:
      return AttemptOutcome::kPermissionError;
    case LaunchOutcome::kWorkloadFailure:
      return AttemptOutcome::kWorkloadFailure;
  }
  return AttemptOutcome::kConfigError;
}

int DailyCap(store::Connection& db) {
  RouterSettings settings;
  const std::string key = "gcp_daily_attempt_cap";
  if (auto value =
          internal::ReadConfigValue(db, std::string(internal::kRouterConfigPrefix) + key)) {
    internal::ApplySetting(&settings, key, *value).ok();
  }
  return settings.gcp_daily_attempt_cap;
}

std::string BackendSelectedEvent(const RouteResult& r) {
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
  return event.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

// Walks the rungs; `ledger` holds the day's state.
void Walk(const RoutePlan& plan, const Launcher& launcher, internal::DayLedger& ledger, int cap,
          double now, RouteResult* result) {
  bool taken = false;
  bool capped = false;
  for (const Rung& rung : plan.ladder) {
    const bool gcp = rung.backend == Backend::kGcp && rung.provisioning.has_value();
    const QuotaClass quota_class = gcp ? QuotaClassOf(*rung.provisioning) : QuotaClass::kOnDemand;
    if (gcp && ledger.QuotaBlocked(rung.gpu_model, quota_class)) {
      result->attempts.push_back({rung, AttemptOutcome::kSkippedQuotaExhausted,
                                  fmt::format("{} {} quota was found exhausted today",
                                              rung.gpu_model, ToString(quota_class))});
      continue;
    }
    if (gcp && !taken && !capped) (ledger.TryTakeGcpAttempt(cap) ? taken : capped) = true;
    if (gcp && capped) {
      result->attempts.push_back(
          {rung, AttemptOutcome::kSkippedDailyCap,
           fmt::format("the daily GCP attempt cap ({}) is used up for today", cap)});
      continue;
    }
    const LaunchResult launch = launcher(rung);
    result->attempts.push_back({rung, AttemptOf(launch.outcome), launch.detail});
    if (launch.outcome == LaunchOutcome::kLaunched) {
      result->selected = rung;
      break;
    }
    if (launch.outcome == LaunchOutcome::kCapacityMiss) continue;
    if (launch.outcome == LaunchOutcome::kQuotaExceeded) {
      if (gcp) {
        ledger.BlockQuota(rung.gpu_model, quota_class,
                          launch.detail.empty() ? "quota exceeded on " + rung.id : launch.detail,
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
  for (const OutcomeName& n : kLaunchOutcomes) {
    if (n.outcome == outcome) return n.name;
  }
  return "launched";
}

std::optional<LaunchOutcome> ParseLaunchOutcome(std::string_view text) {
  for (const OutcomeName& n : kLaunchOutcomes) {
    if (text == n.name) return n.outcome;
  }
  return std::nullopt;
}

std::string_view ToString(AttemptOutcome outcome) {
  switch (outcome) {
    case AttemptOutcome::kSkippedQuotaExhausted:
      return "skipped_quota_exhausted";
    case AttemptOutcome::kSkippedDailyCap:
      return "skipped_daily_cap";
    case AttemptOutcome::kLaunched:
      return ToString(LaunchOutcome::kLaunched);
    case AttemptOutcome::kCapacityMiss:
      return ToString(LaunchOutcome::kCapacityMiss);
    case AttemptOutcome::kQuotaExceeded:
      return ToString(LaunchOutcome::kQuotaExceeded);
    case AttemptOutcome::kConfigError:
      return ToString(LaunchOutcome::kConfigError);
    case AttemptOutcome::kPermissionError:
      return ToString(LaunchOutcome::kPermissionError);
    case AttemptOutcome::kWorkloadFailure:
      return ToString(LaunchOutcome::kWorkloadFailure);
  }
  return "capacity_miss";
}

Result<RouteResult> WalkLadder(Store& store, const RoutePlan& plan, const Launcher& launcher,
                               const WalkOptions& options) {
  if (Status time = internal::CheckEpochSeconds(options.now, "now"); !time.ok()) return time;
  if (!options.dry_run) {
    if (Status writable = store.CheckWritable(); !writable.ok()) return writable;
  }
  return internal::Guarded(store, "walk the ladder", [&]() -> Result<RouteResult> {
    SQLite::Database& db = internal::StoreAccess::Db(store);
    const double now = options.now.value_or(internal::NowEpochSeconds());
    internal::DayLedger ledger(db, UtcDay(now), options.dry_run);
    RouteResult result;
    result.intent = plan.intent;
    result.requested_width = plan.requested_width;
    Walk(plan, launcher, ledger, DailyCap(store::ConnectionOf(store)), now, &result);
    if (result.selected) {
      result.realized_width = result.selected->width;
      result.degraded = result.realized_width < result.requested_width;
      result.backend_selected_event = BackendSelectedEvent(result);
    }
    return result;
  });
}

}  // namespace hwrec
