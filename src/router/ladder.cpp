// BuildLadder: the provisioning ladder of one dispatch, a pure function of the
// request and a RouterSnapshot (DESIGN §8).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "base/enum_names.h"
#include "base/text.h"
#include "hwrec/ladder.h"
#include "hwrec/router.h"

namespace hwrec {

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

namespace {

using internal::JoinOr;

// Provisioning as spelt in rung ids: its name in lower case, '_' as '-'
// ("flex-start").
std::string Slug(Provisioning provisioning) {
  std::string slug = internal::ToLower(ToString(provisioning));
  std::replace(slug.begin(), slug.end(), '_', '-');
  return slug;
}

// The provisioning models in the order a job of this length tries them. A very
// long job lists FLEX_START last only so that its pruning is reported.
std::vector<Provisioning> ProvisioningOrder(LengthClass length_class) {
  switch (length_class) {
    case LengthClass::kShort:
      return {Provisioning::kSpot, Provisioning::kFlexStart, Provisioning::kStandard};
    case LengthClass::kLong:
      return {Provisioning::kFlexStart, Provisioning::kStandard, Provisioning::kSpot};
    case LengthClass::kVeryLong:
      return {Provisioning::kStandard, Provisioning::kSpot, Provisioning::kFlexStart};
  }
  return {};
}

std::string AllowedList(const GcpMachineType& m) {
  std::vector<std::string> names;
  for (Provisioning p : {Provisioning::kSpot, Provisioning::kFlexStart, Provisioning::kStandard}) {
    if (m.Allows(p)) names.emplace_back(ToString(p));
  }
  return JoinOr(names);
}

class LadderBuilder {
 public:
  LadderBuilder(const RouterSnapshot& snapshot, const Intent& intent, RoutePlan* plan)
      : s_(snapshot), intent_(intent), plan_(*plan) {}

  void AddGcpWidth(int width, const std::vector<std::string>& models);
  void RefuseUnsharded(int width, const std::vector<std::string>& models);
  void AddLegacyChain();
  std::vector<std::string> EligibleModels(int width);

 private:
  void AddGcpRung(const GcpMachineType& m, Provisioning p);
  void AddLanes(int width, double legacy_memory);
  double CardMemory(const std::string& model) const {
    auto it = s_.card_memory_gb.find(model);
    return it == s_.card_memory_gb.end() ? 0 : it->second;
  }
  const GcpMachineType* MachineOf(const std::string& model, int width) const {
    for (const GcpMachineType& m : s_.config.machines) {
      if (m.gpu_model == model && m.gpu_count == width) return &m;
    }
    return nullptr;
  }
  const std::string& LegacyModel() const {
    return s_.config.FindMachine(intent_.legacy_machine)->gpu_model;
  }

  const RouterSnapshot& s_;
  const Intent& intent_;
  RoutePlan& plan_;
};

void LadderBuilder::AddGcpRung(const GcpMachineType& m, Provisioning p) {
  const std::string id = fmt::format("gcp/{}/{}", m.machine_type, Slug(p));
  if (!m.Allows(p)) {
    plan_.pruned.push_back(
        {id, fmt::format("{} is offered with {} only", m.machine_type, AllowedList(m))});
    return;
  }
  if (p == Provisioning::kFlexStart && plan_.length_class == LengthClass::kVeryLong) {
    plan_.pruned.push_back(
        {id, fmt::format("FLEX_START runs at most {:g} h; this job is expected to run {:g} h",
                         s_.config.settings.flex_start_max_hours, plan_.length_hours)});
    return;
  }
  const GpuQuota* quota = s_.config.FindQuota(m.gpu_model, QuotaClassOf(p));
  if (quota == nullptr || quota->gpus < m.gpu_count) {
    plan_.pruned.push_back(
        {id, fmt::format(
                 "quota {} admits {} GPU(s); {} needs {}",
                 quota ? quota->metric : m.gpu_model + " " + std::string(ToString(QuotaClassOf(p))),
                 quota ? quota->gpus : 0, m.machine_type, m.gpu_count)});
    return;
  }
  plan_.ladder.push_back(Rung{id, Backend::kGcp, m.machine_type, m.gpu_model, m.gpu_count, p});
}

void LadderBuilder::AddGcpWidth(int width, const std::vector<std::string>& models) {
  for (Provisioning p : ProvisioningOrder(plan_.length_class)) {
    for (const std::string& model : models) {
      if (const GcpMachineType* m = MachineOf(model, width)) AddGcpRung(*m, p);
    }
  }
}

// Saturate or downsize: a launch command that does not shard would leave all
// but one GPU of a wide rung idle, so each of them is pruned, with the reason.
void LadderBuilder::RefuseUnsharded(int width, const std::vector<std::string>& models) {
  for (Provisioning p : ProvisioningOrder(plan_.length_class)) {
    for (const std::string& model : models) {
      const GcpMachineType* m = MachineOf(model, width);
      if (m == nullptr) continue;
      plan_.pruned.push_back(
          {fmt::format("gcp/{}/{}", m->machine_type, Slug(p)),
           fmt::format("width {} needs a sharded launch command: declare one that splits the "
                       "work across the GPUs it gets (--sharded), or ask for width 1",
                       width)});
    }
  }
}

void LadderBuilder::AddLanes(int width, double legacy_memory) {
  for (const SlurmLane& lane : s_.config.lanes) {
    const std::string id = "slurm/" + lane.lane;
    if (lane.max_gpus < width) {
      plan_.pruned.push_back({id, fmt::format("lane grants at most {} GPU(s); {} needs {}",
                                              lane.max_gpus, intent_.intent, width)});
    } else if (CardMemory(lane.gpu_model) < legacy_memory) {
      plan_.pruned.push_back({id, fmt::format("{} ({:g} GB) is smaller than {}'s card {} ({:g} GB)",
                                              lane.gpu_model, CardMemory(lane.gpu_model),
                                              intent_.intent, LegacyModel(), legacy_memory)});
    } else {
      plan_.ladder.push_back(
          Rung{id, Backend::kSlurm, lane.partition, lane.gpu_model, width, std::nullopt});
    }
  }
}

// The legacy chain: the intent's single-GPU machine, SLURM, RunPod last.
void LadderBuilder::AddLegacyChain() {
  const int width = std::max(1, intent_.min_width);
  if (width == 1) AddGcpWidth(1, {LegacyModel()});
  AddLanes(width, CardMemory(LegacyModel()));
  const RunPodRung& r = s_.config.runpod;
  const std::string id = "runpod/" + r.name;
  if (r.max_gpus < width) {
    plan_.pruned.push_back({id, fmt::format("RunPod rung grants at most {} GPU(s); {} needs {}",
                                            r.max_gpus, intent_.intent, width)});
  } else {
    plan_.ladder.push_back(
        Rung{id, Backend::kRunPod, r.gpu_type, r.gpu_model, width, std::nullopt});
  }
}

// The card models the workload fits at `width`, best first: cards it has run
// on before cards whose figure is transferred, then the smaller card, then the
// intent's legacy card. Without history, the legacy card alone.
std::vector<std::string> LadderBuilder::EligibleModels(int width) {
  auto needs = s_.needs.find(intent_.intent);
  if (needs == s_.needs.end()) {
    if (width == plan_.requested_width) {
      plan_.notes.push_back(fmt::format("no GPU-memory history for {}: only the legacy card {}",
                                        intent_.workload_image, LegacyModel()));
    }
    return {LegacyModel()};
  }
  struct Candidate {
    int rank;
    double memory;
    bool not_legacy;
    std::string model;
  };
  std::vector<Candidate> fits;
  std::set<std::string> seen;
  for (const GcpMachineType& m : s_.config.machines) {
    if (m.gpu_count != width || !seen.insert(m.gpu_model).second) continue;
    auto need = needs->second.find(m.machine_type);
    if (need == needs->second.end() || !need->second.gpu_memory_gb) continue;
    const double gb = *need->second.gpu_memory_gb;
    const double card = CardMemory(m.gpu_model);
    const Provenance from = need->second.provenance;
    const bool fit = gb <= card;
    if (width == plan_.requested_width) {
      plan_.notes.push_back(
          fmt::format("{}: needs {:.1f} GB per GPU ({} history); card holds {:g} GB: {}",
                      m.gpu_model, gb, ToString(from), card, fit ? "fits" : "does not fit"));
    }
    if (!fit) continue;
    const int rank = (from == Provenance::kExact || from == Provenance::kGpuModel) ? 0 : 1;
    fits.push_back({rank, card, m.gpu_model != LegacyModel(), m.gpu_model});
  }
  std::sort(fits.begin(), fits.end(), [](const Candidate& a, const Candidate& b) {
    return std::tie(a.rank, a.memory, a.not_legacy, a.model) <
           std::tie(b.rank, b.memory, b.not_legacy, b.model);
  });
  std::vector<std::string> models;
  for (const Candidate& c : fits) models.push_back(c.model);
  return models;
}

Status CheckRequest(const RouterConfig& config, const Intent& intent, const RouteRequest& r) {
  std::set<int> widths = {1};
  for (const GcpMachineType& m : config.machines) widths.insert(m.gpu_count);
  if (widths.count(r.width) == 0) {
    std::vector<std::string> names;
    for (int w : widths) names.push_back(std::to_string(w));
    return Status::InvalidArgument(
        fmt::format("width {} is not a GCP machine width: use {} (shard the work to one of them)",
                    r.width, JoinOr(names)));
  }
  if (r.width < intent.min_width) {
    return Status::InvalidArgument(
        fmt::format("width {} is below intent {}'s minimum width {}: "
                    "ask for {} or more",
                    r.width, intent.intent, intent.min_width, intent.min_width));
  }
  if (!(r.length_hours > 0) || !std::isfinite(r.length_hours)) {
    return Status::InvalidArgument("the expected length must be a positive duration, e.g. 6h");
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
    return Status::NotFound(
        fmt::format("unknown intent '{}': use {} or add it with `hwrec route "
                    "config import`",
                    request.intent, JoinOr(names)));
  }
  if (config.FindMachine(intent->legacy_machine) == nullptr) {
    return Status::Internal(fmt::format("intent {}: legacy machine {} is missing", intent->intent,
                                        intent->legacy_machine));
  }
  if (Status s = CheckRequest(config, *intent, request); !s.ok()) return s;
  if (!request.sharded && intent->min_width > 1) {
    return Status::InvalidArgument(fmt::format(
        "intent {} runs on at least {} GPUs, so its launch command must shard the work: "
        "declare a sharded launch command (--sharded)",
        intent->intent, intent->min_width));
  }
  RoutePlan plan;
  plan.intent = intent->intent;
  plan.requested_width = request.width;
  plan.sharded = request.sharded;
  plan.length_hours = request.length_hours;
  plan.length_class = ClassOf(config.settings, request.length_hours);
  LadderBuilder builder(snapshot, *intent, &plan);
  if (!request.sharded && request.width > 1) {
    plan.notes.push_back(fmt::format(
        "no sharded launch command: the wide rungs are refused and width {} downsizes to 1",
        request.width));
  }
  for (int width = request.width; width >= 2 && width >= intent->min_width; width /= 2) {
    if (request.sharded) {
      builder.AddGcpWidth(width, builder.EligibleModels(width));
    } else {
      builder.RefuseUnsharded(width, builder.EligibleModels(width));
    }
  }
  builder.AddLegacyChain();
  return plan;
}

}  // namespace hwrec
