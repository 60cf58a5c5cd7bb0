// The rungs of a plan's ladder (LadderBuilder): the GCP rungs of each machine
// width in the order the job's length tries their provisioning models, and the
// legacy chain (the intent's single-GPU machine, SLURM lanes, RunPod), each
// rung left out for the first reason that applies.
#include "router/ladder_builder.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "base/text.h"
#include "hwrec/ladder.h"
#include "hwrec/router.h"
#include "hwrec/router_config.h"

namespace hwrec::internal {

namespace {

// Provisioning as spelt in rung ids: its name in lower case, '_' as '-'
// ("flex-start"). Spelt once: every rung id is built with it.
std::string_view Slug(Provisioning provisioning) {
  static const std::array<std::string, 3> kSlugs = [] {
    std::array<std::string, 3> slugs;
    for (Provisioning p :
         {Provisioning::kSpot, Provisioning::kFlexStart, Provisioning::kStandard}) {
      std::string slug = internal::ToLower(ToString(p));
      std::replace(slug.begin(), slug.end(), '_', '-');
      slugs[static_cast<std::size_t>(p)] = std::move(slug);
    }
    return slugs;
  }();
  return kSlugs[static_cast<std::size_t>(provisioning)];
}

// A GCP rung's id, "gcp/<machine type>/<slug>": built for every rung of every
// ladder, so joined directly rather than through a format string.
std::string GcpRungId(const GcpMachineType& m, Provisioning p) {
  const std::string_view slug = Slug(p);
  std::string id;
  id.reserve(5 + m.machine_type.size() + slug.size());
  id.append("gcp/").append(m.machine_type).append(1, '/').append(slug);
  return id;
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

}  // namespace

std::string LadderBuilder::OfferReason(const GcpMachineType& m, Provisioning p) const {
  if (Offered(m, p)) return {};
  if (!m.Allows(p))
    return fmt::format("{} is offered with {} only", m.machine_type, AllowedList(m));
  return fmt::format("FLEX_START runs at most {} h; this job is expected to run {} h",
                     s_.config.settings.flex_start_max_hours,
                     internal::HoursText(plan_.length_hours));
}

// Whether some provisioning model of `m` is offered for this job and admitted
// by its quota: a request at `m`'s width would build a rung of it.
bool LadderBuilder::Admits(const GcpMachineType& m) const {
  for (const Provisioning p :
       {Provisioning::kSpot, Provisioning::kFlexStart, Provisioning::kStandard}) {
    if (!Offered(m, p)) continue;
    const GpuQuota* quota = s_.config.FindQuota(m.gpu_model, QuotaClassOf(p));
    if (quota != nullptr && quota->gpus >= m.gpu_count) return true;
  }
  return false;
}

bool LadderBuilder::WidthOneMayHold() const {
  std::vector<std::string> models = {LegacyModel(), s_.config.runpod.gpu_model};
  for (const SlurmLane& lane : s_.config.lanes) models.push_back(lane.gpu_model);
  return std::any_of(models.begin(), models.end(), [&](const std::string& model) {
    const std::optional<ShardFit>& fit = FitAt(model, 1);
    return !fit || fit->fits();
  });
}

void LadderBuilder::AddGcpRung(const GcpMachineType& m, Provisioning p) {
  const std::string id = GcpRungId(m, p);
  if (std::string reason = OfferReason(m, p); !reason.empty()) {
    PruneHeld(id, m.gpu_model, std::move(reason));
    return;
  }
  const GpuQuota* quota = s_.config.FindQuota(m.gpu_model, QuotaClassOf(p));
  if (quota == nullptr || quota->gpus < m.gpu_count) {
    PruneHeld(id, m.gpu_model,
              fmt::format("quota {} admits {} GPU(s); {} needs {}",
                          quota ? quota->metric
                                : m.gpu_model + " " + std::string(ToString(QuotaClassOf(p))),
                          quota ? quota->gpus : 0, m.machine_type, m.gpu_count));
    return;
  }
  // Saturate or downsize: a launch command that does not shard would leave all
  // but one GPU of a wide rung idle.
  if (m.gpu_count > 1 && !plan_.sharded) {
    unsharded_models_.insert(m.gpu_model);
    plan_.pruned.push_back(
        {id, fmt::format("width {} needs a sharded launch command: declare one that splits the "
                         "work across the GPUs it gets (--sharded){}",
                         m.gpu_count, WidthOneMayHold() ? ", or ask for width 1" : "")});
    return;
  }
  if (!FitOn(m)) KeepUnpruned(m.gpu_model, m.gpu_count);
  plan_.ladder.push_back(Rung{id, Backend::kGcp, m.machine_type, m.gpu_model, m.gpu_count, p});
}

// Each provisioning model of a card too small for one shard: pruned for the
// first reason that applies (offer, FLEX_START length, then the shard).
void LadderBuilder::PruneTooSmall(const GcpMachineType& m) {
  const ShardFit fit = *FitOn(m);
  for (Provisioning p : ProvisioningOrder(plan_.length_class)) {
    const std::string id = GcpRungId(m, p);
    if (std::string reason = OfferReason(m, p); !reason.empty()) {
      plan_.pruned.push_back({id, std::move(reason)});
    } else {
      PruneShard(id, fit);
    }
  }
}

void LadderBuilder::AddGcpRungs(int width, const std::vector<std::string>& models) {
  for (Provisioning p : ProvisioningOrder(plan_.length_class)) {
    for (const std::string& model : models) {
      ForEachMachine(model, width, [&](const GcpMachineType& m) { AddGcpRung(m, p); });
    }
  }
}

// The rungs of one width: the cards that hold a shard (or may) in the length's
// provisioning order, then the cards too small for one, pruned. Each rung is
// checked in full (AddGcpRung) before a wide one is refused for an unsharded
// launch command, so the reason a rung is left out is the first that applies.
void LadderBuilder::AddGcpWidth(int width) {
  const Eligible eligible = EligibleModels(width);
  AddGcpRungs(width, eligible.models);
  for (const GcpMachineType* m : eligible.too_small) PruneTooSmall(*m);
}

bool LadderBuilder::PruneFixedRung(const std::string& id, std::string_view what,
                                   const std::string& model, int max_gpus, int width) {
  const std::optional<ShardFit>& fit = FitAt(model, width);
  const bool may_hold = !fit || fit->fits();
  if (max_gpus < width) {
    std::string reason = fmt::format("{} grants at most {} GPU(s); {} needs {}", what, max_gpus,
                                     intent_.intent, width);
    if (may_hold) {
      PruneHeld(id, model, std::move(reason));
    } else {
      plan_.pruned.push_back({id, std::move(reason)});
    }
    return true;
  }
  if (!may_hold) {
    PruneShard(id, *fit);
    return true;
  }
  return false;
}

void LadderBuilder::AddLanes(int width, double legacy_memory) {
  for (const SlurmLane& lane : s_.config.lanes) {
    const std::string id = "slurm/" + lane.lane;
    if (PruneFixedRung(id, "lane", lane.gpu_model, lane.max_gpus, width)) continue;
    if (CardMemory(lane.gpu_model) < legacy_memory) {
      PruneHeld(
          id, lane.gpu_model,
          fmt::format("{} ({:g} GiB) is smaller than {}'s card {} ({:g} GiB)", lane.gpu_model,
                      CardMemory(lane.gpu_model), intent_.intent, LegacyModel(), legacy_memory));
      continue;
    }
    if (!FitAt(lane.gpu_model, width)) KeepUnpruned(lane.gpu_model, width);
    plan_.ladder.push_back(
        Rung{id, Backend::kSlurm, lane.partition, lane.gpu_model, width, std::nullopt});
  }
}

void LadderBuilder::AddRunPod(int width) {
  const RunPodRung& r = s_.config.runpod;
  const std::string id = "runpod/" + r.name;
  if (PruneFixedRung(id, "RunPod rung", r.gpu_model, r.max_gpus, width)) return;
  if (!FitAt(r.gpu_model, width)) KeepUnpruned(r.gpu_model, width);
  plan_.ladder.push_back(Rung{id, Backend::kRunPod, r.gpu_type, r.gpu_model, width, std::nullopt});
}

// The legacy chain: the intent's single-GPU machine, SLURM, RunPod last. Any
// of them whose card cannot hold one shard is pruned.
void LadderBuilder::AddLegacyChain() {
  const int width = std::max(1, intent_.min_width);
  if (width == 1) {
    const GcpMachineType& legacy = *s_.config.FindMachine(intent_.legacy_machine);
    const std::optional<ShardFit>& fit = FitOn(legacy);
    if (fit && !fit->fits()) {
      PruneTooSmall(legacy);
    } else {  // the intent's own machine, whatever else offers its card
      for (Provisioning p : ProvisioningOrder(plan_.length_class)) AddGcpRung(legacy, p);
    }
  }
  AddLanes(width, CardMemory(LegacyModel()));
  AddRunPod(width);
}

// The card models the workload fits at `width` (or may: no figure of that
// width), best first: cards it has run on before cards whose figure is
// transferred, then the smaller card, then the intent's legacy card. Without
// history, the legacy card alone.
LadderBuilder::Eligible LadderBuilder::EligibleModels(int width) {
  auto needs = s_.needs.find(intent_.intent);
  if (needs == s_.needs.end()) {
    if (width == plan_.planned_width) {
      plan_.notes.push_back(fmt::format("no GPU-memory history for {}: only the legacy card {}",
                                        intent_.workload_image, LegacyModel()));
    }
    return {{LegacyModel()}, {}};
  }
  struct Candidate {
    int rank;
    double memory;
    bool not_legacy;
    std::string model;
  };
  std::vector<Candidate> fits;
  Eligible eligible;
  std::set<std::string> seen;
  for (const GcpMachineType& m : s_.config.machines) {
    if (m.gpu_count != width || !seen.insert(m.gpu_model).second) continue;
    const CardNeed* need = NeedOn(m);
    if (need == nullptr || CardMemory(m.gpu_model) <= 0) continue;
    const bool on_card =
        need->provenance == Provenance::kExact || need->provenance == Provenance::kGpuModel;
    const std::optional<ShardFit>& fit = FitOn(m);
    if (fit && width == plan_.planned_width) {
      plan_.notes.push_back(fmt::format(
          "{}: needs {:.1f} GiB per GPU ({}); card holds {:g} GiB: {}", m.gpu_model, fit->need_gb,
          fit->Learned(), fit->card_gb, fit->fits() ? "fits" : "does not fit"));
    }
    if (fit && !fit->fits()) {
      ForEachMachine(m.gpu_model, width,
                     [&](const GcpMachineType& same) { eligible.too_small.push_back(&same); });
      continue;
    }
    const int rank = on_card ? 0 : 1;
    fits.push_back({rank, CardMemory(m.gpu_model), m.gpu_model != LegacyModel(), m.gpu_model});
  }
  std::sort(fits.begin(), fits.end(), [](const Candidate& a, const Candidate& b) {
    return std::tie(a.rank, a.memory, a.not_legacy, a.model) <
           std::tie(b.rank, b.memory, b.not_legacy, b.model);
  });
  for (const Candidate& c : fits) eligible.models.push_back(c.model);
  return eligible;
}

}  // namespace hwrec::internal
