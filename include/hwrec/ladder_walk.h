// WalkLadder: walks a RoutePlan with a caller-supplied launcher and classifies
// each outcome (DESIGN §8). A capacity miss moves to the next rung; an
// exhausted quota skips, for the rest of the UTC day, the rungs that need at
// least as many GPUs of it as the launch that found it exhausted; a
// configuration, permission or workload failure stops the walk. One walk
// counts once against the per-day GCP attempt cap, whatever its length: the
// first GCP rung takes the unit before it is launched, and gives it back when
// the launcher did not try it (kNotTried), since no GCP launch was made. The
// per-day state lives in the store; a dry run reads it and writes nothing.
// Uses the Store's connection: one thread at a time.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hwrec/export.h"
#include "hwrec/ladder.h"
#include "hwrec/status.h"

namespace hwrec {

class Store;

// What a launcher reports for one rung.
enum class LaunchOutcome {
  kLaunched,
  kCapacityMiss,     // no capacity now: try the next rung
  kQuotaExceeded,    // the rung's quota is used up: skip its rungs this wide or wider today
  kConfigError,      // the request is wrong: stop
  kPermissionError,  // not allowed: stop
  kWorkloadFailure,  // the workload itself failed: stop, do not cascade
  kNotTried,         // the launcher did not try the rung: the walk ends here
};
HWREC_EXPORT std::string_view ToString(LaunchOutcome outcome);  // "launched", "capacity_miss", …
// Parses what ToString prints; nullopt for anything else.
HWREC_EXPORT std::optional<LaunchOutcome> ParseLaunchOutcome(std::string_view text);

struct HWREC_EXPORT LaunchResult {
  LaunchOutcome outcome = LaunchOutcome::kLaunched;
  std::string detail;  // the backend's words, kept in the attempt
};

using Launcher = std::function<LaunchResult(const Rung&)>;

// Why the walk passed a rung over, by the day's state, without a launch.
enum class RungSkip {
  kQuotaExhausted,  // its quota was found exhausted at this width or narrower today
  kDailyCap,        // the day's GCP attempt cap is used up
};

// One rung the walk reached: launched, a failure, or passed over.
struct HWREC_EXPORT RouteAttempt {
  Rung rung;
  // The launcher's outcome; kNotTried for a rung the walk passed over
  // (`skipped` says why) or the launcher did not try.
  LaunchOutcome outcome = LaunchOutcome::kCapacityMiss;
  std::optional<RungSkip> skipped;
  std::string detail;
};
// The attempt as the CLI and JSON name it: its outcome ("capacity_miss", …),
// or, passed over, "skipped_quota_exhausted" or "skipped_daily_cap".
HWREC_EXPORT std::string_view ToString(const RouteAttempt& attempt);

struct HWREC_EXPORT RouteResult {
  std::string intent;
  int requested_width = 1;
  std::optional<Rung> selected;      // the launched rung, if any
  int realized_width = 0;            // the selected rung's width; 0 when none
  bool degraded = false;             // launched narrower than requested
  bool stopped = false;              // a non-capacity failure ended the walk
  bool counted_gcp_attempt = false;  // this walk used one unit of the day's cap
  std::vector<RouteAttempt> attempts;
  // {"event":"backend-selected",…,"requested_width":N,"realized_width":M,
  // "degraded":…,"sharded":…}: what a workload needs to re-shard; empty when
  // nothing launched.
  std::string backend_selected_event;
};

struct HWREC_EXPORT WalkOptions {
  std::optional<double> now;  // epoch seconds that fix the UTC day; default now
  bool dry_run = false;       // read the day's state, write nothing
  // The launcher replays outcomes already known (a walk a dispatcher made and
  // now records): the whole walk, its reads and writes of the day's state,
  // runs in one write transaction, so it is recorded whole or not at all. The
  // launcher is asked about every rung the walk reaches, also one the day's
  // state skips: kNotTried keeps the skip, any other outcome is what happened
  // (a GCP attempt made past the cap counts; the attempt's detail says the
  // rung was tried although skipped). The launcher must not block, and may be
  // called again for the same rung when PostgreSQL retries the transaction.
  // Not with dry_run.
  bool recorded = false;
  // With `recorded` only: sees the finished walk before it commits; a failed
  // Status rolls the walk back and is what WalkLadder returns. Runs again
  // when the transaction is retried.
  std::function<Status(const RouteResult&)> accept;
};

// Walks `plan` in order. Writes the day's state unless dry_run (the store must
// then be writable). Launch failures are results; returns kReadOnly when the
// walk would write a read-only store, kInvalidArgument for a bad `now` or
// options that do not go together (accept without recorded, recorded with
// dry_run),
// kIoError when the store fails.
HWREC_EXPORT Result<RouteResult> WalkLadder(Store& store, const RoutePlan& plan,
                                            const Launcher& launcher,
                                            const WalkOptions& options = {});

}  // namespace hwrec
