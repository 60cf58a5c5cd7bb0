// Whether a card of a plan's ladder holds one shard (LadderBuilder::FitAt: the
// per-shard GPU memory the workload learned at a width), the pruned cards the
// builder remembers, and the notes and the no-fit message made from them.
#include "router/ladder_builder.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/text.h"
#include "hwrec/ladder.h"
#include "hwrec/remedy.h"
#include "hwrec/router.h"
#include "hwrec/router_config.h"

namespace hwrec::internal {

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
      if (it == seen.end()) it = seen.insert(seen.end(), {figure, {}});
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

}  // namespace hwrec::internal
