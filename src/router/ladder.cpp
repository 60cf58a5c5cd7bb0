// BuildLadder: the provisioning ladder of one dispatch, a pure function of the
// request and a RouterSnapshot (DESIGN §8): the request checked and mapped to
// a machine width, then its rungs built by LadderBuilder (ladder_builder.h).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/enum_names.h"
#include "base/text.h"
#include "hwrec/ladder.h"
#include "hwrec/remedy.h"
#include "hwrec/router.h"
#include "hwrec/router_config.h"
#include "router/ladder_builder.h"

namespace hwrec {

// The longest run a plan is made for: a year of 366 days, as ingest's
// longest duration_s.
constexpr double kMaxLengthHours = 366 * 24;

// Names of the plan's enums (constexpr: internal to this file).
constexpr internal::EnumName<Backend> kBackendNames[] = {
    {Backend::kGcp, "gcp"}, {Backend::kSlurm, "slurm"}, {Backend::kRunPod, "runpod"}};

std::string_view ToString(Backend backend) {
  return internal::NameOf(kBackendNames, backend, "gcp");
}

constexpr internal::EnumName<LengthClass> kLengthClassNames[] = {
    {LengthClass::kShort, "short"},
    {LengthClass::kLong, "long"},
    {LengthClass::kVeryLong, "very_long"}};

std::string_view ToString(LengthClass length_class) {
  return internal::NameOf(kLengthClassNames, length_class, "short");
}

namespace internal {

std::set<int> MachineWidthsOf(const RouterConfig& config) {
  std::set<int> widths = {1};
  for (const GcpMachineType& m : config.machines) widths.insert(m.gpu_count);
  return widths;
}

}  // namespace internal

namespace {

using internal::JoinOr;
using internal::LadderBuilder;
using internal::MachineWidthsOf;

// The widest machine width that does not exceed `width` (>= 1).
int MachineWidthAtMost(const std::set<int>& widths, int width) {
  auto it = widths.upper_bound(width);
  return *std::prev(it);
}

Status CheckRequest(const Intent& intent, const RouteRequest& r, const std::set<int>& widths,
                    int planned) {
  if (r.width < 1) {
    return Status::InvalidArgument(
        fmt::format("width {} is not a number of GPUs: ask for 1 or more", r.width));
  }
  // The narrowest machine width the intent runs on (the config check keeps
  // min_width within the widest machine).
  const auto least = widths.lower_bound(intent.min_width);
  const int least_width = least == widths.end() ? intent.min_width : *least;
  if (r.width < intent.min_width) {
    return Status::InvalidArgument(
        fmt::format("width {} is below intent {}'s minimum width {}: "
                    "ask for {} or more",
                    r.width, intent.intent, intent.min_width, least_width));
  }
  if (planned < intent.min_width) {
    return Status::InvalidArgument(fmt::format(
        "width {} maps down to machine width {}, below intent {}'s minimum width {}: ask for a "
        "machine width of {} or more",
        r.width, planned, intent.intent, intent.min_width, least_width));
  }
  if (!(r.length_hours > 0) || !std::isfinite(r.length_hours)) {
    return Status::InvalidArgument(
        "length: the expected length must be a positive duration, e.g. 6h");
  }
  if (r.length_hours > kMaxLengthHours) {
    return Status::InvalidArgument(fmt::format(
        "length: {} h is longer than any run the ladder plans for: give at most a year ({}h)",
        r.length_hours, kMaxLengthHours));
  }
  return Status::Ok();
}

LengthClass ClassOf(const RouterSettings& settings, double hours) {
  if (hours > settings.flex_start_max_hours) return LengthClass::kVeryLong;
  if (hours < settings.short_job_max_hours) return LengthClass::kShort;
  return LengthClass::kLong;
}

}  // namespace

Result<RoutePlan> BuildLadder(const RouterSnapshot& snapshot, const RouteRequest& request) {
  const RouterConfig& config = snapshot.config;
  const Intent* intent = config.FindIntent(request.intent);
  if (intent == nullptr) {
    std::vector<std::string> names;
    for (const Intent& i : config.intents) names.push_back(i.intent);
    return Status::NotFound(fmt::format("unknown intent '{}': use {} or add it with {}",
                                        request.intent, JoinOr(names),
                                        RemedyText(Remedy::kRouteConfigImport)));
  }
  if (config.FindMachine(intent->legacy_machine) == nullptr) {
    return Status::Internal(fmt::format("intent {}: legacy machine {} is missing", intent->intent,
                                        intent->legacy_machine));
  }
  const std::set<int> widths = MachineWidthsOf(config);
  const int planned = MachineWidthAtMost(widths, std::max(1, request.width));
  if (Status s = CheckRequest(*intent, request, widths, planned); !s.ok()) return s;
  if (!request.sharded && intent->min_width > 1) {
    return Status::InvalidArgument(fmt::format(
        "intent {} runs on at least {} GPUs, so its launch command must shard the work: "
        "declare a sharded launch command (--sharded)",
        intent->intent, intent->min_width));
  }
  RoutePlan plan;
  plan.intent = intent->intent;
  plan.requested_width = request.width;
  plan.planned_width = planned;
  plan.sharded = request.sharded;
  // To the whole second (at least one): finer says nothing about a job, and a
  // length a fraction of a second past a bound would be classed past it yet
  // read as on it.
  const double seconds = request.length_hours * 3600.0;
  plan.length_hours =
      std::isfinite(seconds) ? std::max(1.0, std::round(seconds)) / 3600.0 : request.length_hours;
  plan.length_class = ClassOf(config.settings, plan.length_hours);
  if (planned != request.width) {
    plan.notes.push_back(fmt::format(
        "width {} is no machine width: planned at {}, the widest machine width not above it",
        request.width, planned));
  }
  // Room for every rung and pruned rung of a typical ladder at once.
  plan.ladder.reserve(24);
  plan.pruned.reserve(32);
  LadderBuilder builder(snapshot, *intent, &plan);
  if (!request.sharded && planned > 1) {
    plan.notes.push_back(fmt::format(
        "no sharded launch command: the wide rungs are refused and width {} downsizes to 1",
        request.width));
  }
  for (int width = planned; width >= 2 && width >= intent->min_width;
       width = MachineWidthAtMost(widths, width / 2)) {
    builder.AddGcpWidth(width);
  }
  builder.AddLegacyChain();
  builder.AddUnusedFigureNotes();
  if (plan.ladder.empty()) plan.no_fit = builder.NoFitMessage();
  return plan;
}

}  // namespace hwrec
