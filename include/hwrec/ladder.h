// RoutePlan: the ordered provisioning ladder for one dispatch (intent,
// requested width, expected length), built by a pure function of a
// RouterSnapshot (hwrec/router.h). Plain values; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hwrec/export.h"
#include "hwrec/router.h"
#include "hwrec/router_config.h"
#include "hwrec/status.h"

namespace hwrec {

enum class Backend { kGcp, kSlurm, kRunPod };
HWREC_EXPORT std::string_view ToString(Backend backend);  // "gcp", "slurm", "runpod"

// Which provisioning order a job gets: short (< short_job_max_hours), long, or
// very long (> flex_start_max_hours: no FLEX_START).
enum class LengthClass { kShort, kLong, kVeryLong };
HWREC_EXPORT std::string_view ToString(LengthClass length_class);  // "short", "long", "very_long"

struct HWREC_EXPORT Rung {
  std::string id;  // "gcp/a2-ultragpu-8g/spot", "slurm/a100-80gb", "runpod/h100-80gb"
  Backend backend = Backend::kGcp;
  std::string machine_type;  // GCP machine type, SLURM partition or RunPod GPU type
  std::string gpu_model;
  int width = 1;                             // GPUs the rung provisions
  std::optional<Provisioning> provisioning;  // GCP rungs only
};

struct HWREC_EXPORT PrunedRung {
  std::string id;
  std::string reason;
};

struct HWREC_EXPORT RouteRequest {
  std::string intent;
  int width = 1;            // GPUs the work shards across
  double length_hours = 1;  // expected wall time
  // The dispatch's launch command splits the work across the GPUs a rung
  // gives it, so it runs at any realized width. Width N > 1 requires it
  // (saturate or downsize): without it every wide rung is pruned.
  bool sharded = false;
};

struct HWREC_EXPORT RoutePlan {
  std::string intent;
  int requested_width = 1;  // as asked
  int planned_width = 1;    // the widest machine width not above it: where the ladder starts
  bool sharded = false;     // as requested: whether the launch command shards
  double length_hours = 0;  // as requested, to the whole second (at least one)
  LengthClass length_class = LengthClass::kShort;
  std::vector<Rung> ladder;        // walk in this order
  std::vector<PrunedRung> pruned;  // rungs left out at plan time, and why
  std::vector<std::string> notes;  // how the GPU models were chosen (for --explain)
  // Empty while the ladder has a rung. When every rung was pruned (no card
  // holds one shard, or nothing else is left), the ladder is empty and this
  // says what would fit: the answer is "no", not an error.
  std::string no_fit;
};

// The ladder (DESIGN §8). Width 1 is the legacy ladder: the intent's legacy
// machine with the length's provisioning order, the SLURM lanes, RunPod. Width
// N > 1 puts GCP rungs of width N, N/2, … (not below the intent's minimum)
// over the cards the workload fits before that chain; a width no GCP machine
// offers maps down to the widest one below it (6 -> 4); without a sharded
// launch command the wide rungs are pruned, with the reason, and only the
// chain remains. Every rung whose card cannot hold one shard (the workload's
// `gpu_memory_gb` per GPU) is pruned with the need and the card; when no rung
// is left the plan is still returned, with an empty ladder and `no_fit` set.
// Fails for an unknown intent (kNotFound), a width below 1 or below the
// intent's minimum, an intent whose minimum width is above 1 without a
// sharded launch command, or a length that is not positive: each
// kInvalidArgument, naming the fix.
HWREC_EXPORT Result<RoutePlan> BuildLadder(const RouterSnapshot& snapshot,
                                           const RouteRequest& request);

}  // namespace hwrec
