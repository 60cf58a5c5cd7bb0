// Private: LadderBuilder, which builds the ladder of one plan for BuildLadder
// (ladder.cpp): the rungs of each width and of the legacy chain
// (ladder_rungs.cpp), and what the workload's learned GPU memory says each
// card holds of one shard, with the notes and the no-fit message that follow
// from it (ladder_fit.cpp).
#pragma once

#include <fmt/format.h>

#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hwrec/ladder.h"
#include "hwrec/router.h"
#include "hwrec/router_config.h"

namespace hwrec::internal {

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
  // Prunes a rung of fixed grant (a SLURM lane, RunPod) that cannot run
  // `width` GPUs of `model`: it grants fewer (`what` names it in the reason),
  // or the card cannot hold a shard. Returns whether it was pruned.
  bool PruneFixedRung(const std::string& id, std::string_view what, const std::string& model,
                      int max_gpus, int width);
  void AddLanes(int width, double legacy_memory);
  void AddRunPod(int width);
  double CardMemory(const std::string& model) const {
    auto it = s_.card_memory_gb.find(model);
    return it == s_.card_memory_gb.end() ? 0 : it->second;
  }
  // Calls `fn` with every machine type of `width` cards of `model`, in the
  // configuration's order: each is a rung of its own.
  template <typename Fn>
  void ForEachMachine(const std::string& model, int width, Fn&& fn) const {
    for (const GcpMachineType& m : s_.config.machines) {
      if (m.gpu_count == width && m.gpu_model == model) fn(m);  // cheap test first
    }
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

}  // namespace hwrec::internal
