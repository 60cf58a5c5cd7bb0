// BuildLadder: the provisioning ladder of one dispatch, a pure function of the
// request and a RouterSnapshot (DESIGN §8).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <iterator>
#include <map>
#include <optional>
#include <set>

#include "base/enum_names.h"
#include "base/text.h"
#include "hwrec/ladder.h"
#include "hwrec/remedy.h"
#include "hwrec/router.h"

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

namespace {

using internal::JoinOr;

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

// The per-shard GPU memory need at one width against one card, when both are
// known, with where and at which width the need was learned (0: unknown).
struct ShardFit {
  double need_gb = 0;
  std::string model;
  double card_gb = 0;
  std::string learned_model;  // a card, or "other cards"
  int learned_width = 1;
  int width = 1;  // of the rungs this is the need of
  bool fits() const { return need_gb <= card_gb; }
  std::string Learned() const {
    if (learned_width == 0) {
      return fmt::format("learned on {}, width unknown: at least that on one GPU", learned_model);
    }
    if (learned_width == width) {
      return fmt::format("learned on {} at width {}", learned_model, learned_width);
    }
    return fmt::format("learned on {} at width {}, the nearest wider width it ran at",
                       learned_model, learned_width);
  }
};

// The widths GCP machine types offer, and 1.
std::set<int> MachineWidthsOf(const RouterConfig& config);

class LadderBuilder {
 public:
  LadderBuilder(const RouterSnapshot& snapshot, const Intent& intent, RoutePlan* plan)
      : s_(snapshot), intent_(intent), plan_(*plan) {}

  void AddGcpWidth(int width);
  void AddLegacyChain();
  // Notes the figures of other widths that were seen and not used to prune.
  void AddUnusedFigureNotes();
  // What would fit, for a plan whose ladder is empty.
  std::string NoFitMessage() const;

 private:
  struct Eligible {
    std::vector<std::string> models;               // fit one shard, best first
    std::vector<const GcpMachineType*> too_small;  // cannot hold one shard
  };
  Eligible EligibleModels(int width);
  void AddGcpRungs(int width, const std::vector<std::string>& models);
  void AddGcpRung(const GcpMachineType& m, Provisioning p);
  // Why rung `m`/`p` cannot be offered at all (provisioning model, FLEX_START
  // on a very long job), or empty.
  std::string OfferReason(const GcpMachineType& m, Provisioning p) const;
  // Whether `m` is offered with `p` for this job: OfferReason says why not.
  bool Offered(const GcpMachineType& m, Provisioning p) const {
    return m.Allows(p) &&
           !(p == Provisioning::kFlexStart && plan_.length_class == LengthClass::kVeryLong);
  }
  bool Admits(const GcpMachineType& m) const;
  void PruneTooSmall(const GcpMachineType& m);
  // Prunes a rung whose card could hold a shard, remembering the card and why.
  void PruneHeld(const std::string& id, const std::string& model, std::string reason);
  // Whether a rung of the width-1 chain may hold one shard.
  bool WidthOneMayHold() const;
  // A width other than the planned one whose rungs would be built and hold a
  // shard: its text for the no-fit message, or empty.
  std::string FitElsewhere() const;
  void AddLanes(int width, double legacy_memory);
  void AddRunPod(int width);
  double CardMemory(const std::string& model) const {
    auto it = s_.card_memory_gb.find(model);
    return it == s_.card_memory_gb.end() ? 0 : it->second;
  }
  const GcpMachineType* MachineOf(const std::string& model, int width) const {
    for (const GcpMachineType& m : s_.config.machines) {
      if (m.gpu_count == width && m.gpu_model == model) return &m;  // cheap test first
    }
    return nullptr;
  }
  const std::string& LegacyModel() const {
    return s_.config.FindMachine(intent_.legacy_machine)->gpu_model;
  }
  // The need of `model` at `width` (null: none known).
  const CardNeed* NeedAt(const std::string& model, int width) const;
  const CardNeed* NeedOn(const GcpMachineType& m) const { return NeedAt(m.gpu_model, m.gpu_count); }
  const std::optional<ShardFit>& FitOn(const GcpMachineType& m) const {
    return FitAt(m.gpu_model, m.gpu_count);
  }
  // FitAt, computed once per (card, width): every rung and lane asks it.
  const std::optional<ShardFit>& FitAt(const std::string& model, int width) const;
  std::optional<ShardFit> ComputeFitAt(const std::string& model, int width) const;
  // Remembers that `model`'s rungs at `width` were kept although a figure of
  // another width was seen (AddUnusedFigureNotes says which).
  void KeepUnpruned(const std::string& model, int width);
  // Records a card too small for one shard: pruned with `id`, and remembered
  // for the no-fit message.
  void PruneShard(const std::string& id, const ShardFit& fit);

  const RouterSnapshot& s_;
  const Intent& intent_;
  RoutePlan& plan_;
  std::optional<ShardFit> largest_short_;  // the largest card too small for a shard
  std::set<std::string> largest_models_;   // every card of that size
  // cards of rungs that hold a shard (or may) pruned for another reason than
  // sharding -> the first such reason
  std::map<std::string, std::string> held_models_;
  std::set<std::string> unsharded_models_;  // cards of wide rungs refused only for sharding
  // card -> widths kept without a figure of their own, in the order first seen
  std::vector<std::pair<std::string, std::vector<int>>> unpruned_;
  // (card, width) -> FitAt's answer. A few entries, searched in order; a
  // deque, so that the references FitAt returns stay valid as it grows.
  struct FitEntry {
    std::string model;
    int width;
    std::optional<ShardFit> fit;
  };
  mutable std::deque<FitEntry> fits_;
};

const CardNeed* LadderBuilder::NeedAt(const std::string& model, int width) const {
  auto needs = s_.needs.find(intent_.intent);
  if (needs == s_.needs.end()) return nullptr;
  auto need = needs->second.find({model, width});
  if (need == needs->second.end() || !need->second.gpu_memory_gb) return nullptr;
  return &need->second;
}

// The per-shard need at `width` on `model` (a GCP rung, a SLURM lane, RunPod):
// the GPU memory per GPU learned at that width (on the card, else on other
// cards: GPU memory transfers between cards). Without history at that width,
// the figure of the nearest wider width the workload ran at, unscaled:
// per-GPU memory never drops when the same work gets fewer GPUs, so it is a
// lower bound of one shard's need here. A figure learned only at fewer GPUs
// is no lower bound at more: it sizes nothing (a note names it). A figure of
// unknown width (its executions did not say what they held) was learned on
// one GPU or more: a lower bound at width 1 only. Nullopt when the card's
// size is unknown or no such figure is.
const std::optional<ShardFit>& LadderBuilder::FitAt(const std::string& model, int width) const {
  for (const FitEntry& entry : fits_) {
    if (entry.width == width && entry.model == model) return entry.fit;
  }
  fits_.push_back({model, width, ComputeFitAt(model, width)});
  return fits_.back().fit;
}

std::optional<ShardFit> LadderBuilder::ComputeFitAt(const std::string& model, int width) const {
  const double card = CardMemory(model);
  const CardNeed* need = NeedAt(model, width);
  if (card <= 0 || need == nullptr) return std::nullopt;
  const int learned = static_cast<int>(need->learned_width.value_or(0));
  const bool lower_bound = learned == 0 ? width == 1 : learned >= width;
  if (!lower_bound) return std::nullopt;
  const bool on_card =
      need->provenance == Provenance::kGpuModel || need->provenance == Provenance::kExact;
  return ShardFit{
      *need->gpu_memory_gb, model, card, on_card ? model : need->learned_on, learned, width};
}

void LadderBuilder::KeepUnpruned(const std::string& model, int width) {
  if (s_.needs.find(intent_.intent) == s_.needs.end()) return;  // no history: nothing was seen
  auto it = std::find_if(unpruned_.begin(), unpruned_.end(),
                         [&](const auto& entry) { return entry.first == model; });
  if (it == unpruned_.end()) it = unpruned_.insert(unpruned_.end(), {model, {}});
  if (std::find(it->second.begin(), it->second.end(), width) == it->second.end()) {
    it->second.push_back(width);
  }
}

// For each card kept at a width without a figure that sizes it: the figure
// seen instead (learned at fewer GPUs, or of unknown width), and that it did
// not prune. Widths that saw the same figure share one note.
void LadderBuilder::AddUnusedFigureNotes() {
  for (const auto& [model, widths] : unpruned_) {
    std::vector<std::pair<std::string, std::vector<std::string>>> seen;  // figure -> widths
    for (int width : widths) {
      const CardNeed* need = NeedAt(model, width);
      // Only a figure that could not size the rungs: learned at fewer GPUs, or
      // of unknown width on more than one (a card of unknown size is not noted).
      if (need == nullptr || (need->learned_width ? *need->learned_width >= width : width == 1)) {
        continue;
      }
      const bool on_card =
          need->provenance == Provenance::kGpuModel || need->provenance == Provenance::kExact;
      const std::string where = on_card ? model : need->learned_on;
      std::string figure =
          need->learned_width
              ? fmt::format(
                    "{:.1f} GiB per GPU, learned on {} at width {}: a shard of more "
                    "GPUs needs at most that",
                    *need->gpu_memory_gb, where, *need->learned_width)
              : fmt::format(
                    "{:.1f} GiB per GPU, learned on {}, width unknown: its executions "
                    "did not say how many GPUs they held",
                    *need->gpu_memory_gb, where);
      auto it = std::find_if(seen.begin(), seen.end(),
                             [&](const auto& entry) { return entry.first == figure; });
      if (it == seen.end()) it = seen.insert(seen.end(), {std::move(figure), {}});
      it->second.push_back(std::to_string(width));
    }
    for (const auto& [figure, at] : seen) {
      plan_.notes.push_back(fmt::format(
          "{}: no per-shard GPU memory figure learned at width {} or wider; the one seen ({}) "
          "was not used to prune those rungs",
          model, JoinOr(at), figure));
    }
  }
}

void LadderBuilder::PruneShard(const std::string& id, const ShardFit& fit) {
  plan_.pruned.push_back(
      {id, fmt::format("needs {:.1f} GiB GPU memory per shard ({}); {} offers {:g} GiB",
                       fit.need_gb, fit.Learned(), fit.model, fit.card_gb)});
  if (!largest_short_ || fit.card_gb > largest_short_->card_gb) {
    largest_short_ = fit;
    largest_models_.clear();
  } else if (fit.card_gb == largest_short_->card_gb && fit.need_gb < largest_short_->need_gb) {
    largest_short_ = fit;  // the smaller need of that card size, with where it was learned
  }
  if (fit.card_gb == largest_short_->card_gb) largest_models_.insert(fit.model);
}

void LadderBuilder::PruneHeld(const std::string& id, const std::string& model, std::string reason) {
  held_models_.emplace(model, reason);
  plan_.pruned.push_back({id, std::move(reason)});
}

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
      if (const GcpMachineType* m = MachineOf(model, width)) AddGcpRung(*m, p);
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

void LadderBuilder::AddLanes(int width, double legacy_memory) {
  for (const SlurmLane& lane : s_.config.lanes) {
    const std::string id = "slurm/" + lane.lane;
    const std::optional<ShardFit>& fit = FitAt(lane.gpu_model, width);
    const bool may_hold = !fit || fit->fits();
    if (lane.max_gpus < width) {
      std::string reason = fmt::format("lane grants at most {} GPU(s); {} needs {}", lane.max_gpus,
                                       intent_.intent, width);
      if (may_hold) {
        PruneHeld(id, lane.gpu_model, std::move(reason));
      } else {
        plan_.pruned.push_back({id, std::move(reason)});
      }
    } else if (!may_hold) {
      PruneShard(id, *fit);
    } else if (CardMemory(lane.gpu_model) < legacy_memory) {
      PruneHeld(
          id, lane.gpu_model,
          fmt::format("{} ({:g} GiB) is smaller than {}'s card {} ({:g} GiB)", lane.gpu_model,
                      CardMemory(lane.gpu_model), intent_.intent, LegacyModel(), legacy_memory));
    } else {
      if (!fit) KeepUnpruned(lane.gpu_model, width);
      plan_.ladder.push_back(
          Rung{id, Backend::kSlurm, lane.partition, lane.gpu_model, width, std::nullopt});
    }
  }
}

void LadderBuilder::AddRunPod(int width) {
  const RunPodRung& r = s_.config.runpod;
  const std::string id = "runpod/" + r.name;
  const std::optional<ShardFit>& fit = FitAt(r.gpu_model, width);
  const bool may_hold = !fit || fit->fits();
  if (r.max_gpus < width) {
    std::string reason = fmt::format("RunPod rung grants at most {} GPU(s); {} needs {}",
                                     r.max_gpus, intent_.intent, width);
    if (may_hold) {
      PruneHeld(id, r.gpu_model, std::move(reason));
    } else {
      plan_.pruned.push_back({id, std::move(reason)});
    }
  } else if (!may_hold) {
    PruneShard(id, *fit);
  } else {
    if (!fit) KeepUnpruned(r.gpu_model, width);
    plan_.ladder.push_back(
        Rung{id, Backend::kRunPod, r.gpu_type, r.gpu_model, width, std::nullopt});
  }
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
    } else {
      AddGcpRungs(1, {LegacyModel()});
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
      eligible.too_small.push_back(&m);
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

// A machine width other than the planned one at which a card whose rungs a
// request of that width builds holds one shard. Narrower widths are in this
// ladder already when the request shards (the width-1 chain always is), so
// only wider ones are suggested then; unsharded, a narrower wide one is too.
std::string LadderBuilder::FitElsewhere() const {
  const int planned = plan_.planned_width;
  for (const GcpMachineType& m : s_.config.machines) {
    const int width = m.gpu_count;
    if (width == planned || width < intent_.min_width || width == 1) continue;
    if (width < planned && plan_.sharded) continue;
    if (NeedOn(m) == nullptr) continue;  // no history on it: a request of that width skips it
    const std::optional<ShardFit>& fit = FitOn(m);
    if (!fit || !fit->fits() || !Admits(m)) continue;
    return fmt::format(
        "; at width {} it fits {} ({}: needs {:.1f} GiB per GPU there, {}), ask for --width {}{}",
        width, m.gpu_model, m.machine_type, fit->need_gb, fit->Learned(), width,
        plan_.sharded ? "" : " with a sharded launch command (--sharded)");
  }
  if (planned == *MachineWidthsOf(s_.config).rbegin()) return {};  // no wider split
  if (largest_short_->width != planned) return {};  // the planned width's shards may fit
  return fmt::format(", or shard the work so that one shard needs at most {:g} GiB",
                     largest_short_->card_gb);
}

// What would fit when no rung is left and some card was too small for one
// shard (whatever pruned the other rungs): a card that holds a shard but whose
// rungs were pruned for another reason, the sharded launch command the wide
// rungs lacked, a card large enough, or another machine width.
std::string LadderBuilder::NoFitMessage() const {
  if (!largest_short_) {
    return fmt::format(
        "no rung is left for {} at width {}: each was pruned (see pruned); change the request "
        "or the configuration ({})",
        intent_.intent, plan_.planned_width, RemedyText(Remedy::kRouteConfigImport));
  }
  const ShardFit& f = *largest_short_;
  const std::string need = fmt::format(
      "{}it needs {:.1f} GiB GPU memory per shard ({}) and the largest card too small "
      "for one ({}) holds {:g} GiB",
      f.width == plan_.planned_width ? "" : fmt::format("at width {} ", f.width), f.need_gb,
      f.Learned(), fmt::join(largest_models_, ", "), f.card_gb);
  std::string sharding;
  if (!unsharded_models_.empty()) {
    sharding = fmt::format(
        "; the wide rungs on {} were refused only because the launch command does not shard: "
        "declare a sharded launch command (--sharded)",
        fmt::join(unsharded_models_, ", "));
  }
  // A card some of whose rungs were refused for sharding is not held back by
  // its other reasons: the sharded launch command is what it lacks.
  auto held = held_models_.end();
  for (auto it = held_models_.begin(); it != held_models_.end(); ++it) {
    if (unsharded_models_.count(it->first) != 0) continue;
    if (held == held_models_.end() || CardMemory(it->first) > CardMemory(held->first)) held = it;
  }
  if (held != held_models_.end()) {
    return fmt::format(
        "no rung is left for {} at width {}: {}; {} could hold one, but its rungs were pruned: {} "
        "(see pruned){}{}",
        intent_.intent, plan_.planned_width, need, held->first, held->second, sharding,
        FitElsewhere());
  }
  if (!sharding.empty()) {
    return fmt::format(
        "no rung is left for {} at width {}: no width-1 rung can hold one shard: {}{}",
        intent_.intent, plan_.planned_width, need, sharding);
  }
  return fmt::format(
      "no GPU rung can hold one shard of {}: it needs {:.1f} GiB GPU memory per shard ({}) and the "
      "largest card offered ({}) holds {:g} GiB; it would fit a card of {:.1f} GiB or more (add a "
      "machine type, SLURM lane or RunPod rung with one: {}){}",
      intent_.intent, f.need_gb, f.Learned(), fmt::join(largest_models_, ", "), f.card_gb,
      f.need_gb, RemedyText(Remedy::kRouteConfigImport), FitElsewhere());
}

std::set<int> MachineWidthsOf(const RouterConfig& config) {
  std::set<int> widths = {1};
  for (const GcpMachineType& m : config.machines) widths.insert(m.gpu_count);
  return widths;
}

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
