// Judging one candidate pool for one execution (EvaluateCandidate): the hard
// limits it breaks, the GPU part of its request, the cards it takes of a node
// whose GPUs are shared, and its waste and fragmentation scores.
#include "placement/candidate.h"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/decimal.h"
#include "base/units.h"
#include "hardware/gpu_mode.h"
#include "hwrec/remedy.h"
#include "placement/gpu_cards.h"

namespace hwrec::internal {

namespace {

// Waste scores are kept to the precision ranking compares them at (1e-6), so
// 0.5 - 0.3 is stored and printed as 0.2, not 0.19999999999999996.
constexpr int kWastePlaces = 6;

// Every hard limit a candidate breaks, in words, joined by ". " as found:
// formatted (by formats compiled with FMT_COMPILE) into one stack buffer,
// copied out once.
class Problems {
 public:
  template <typename Format, typename... Args>
  void Add(const Format& format, const Args&... args) {
    if (text_.size() != 0) text_.append(std::string_view(". "));
    fmt::format_to(fmt::appender(text_), format, args...);
  }
  bool empty() const { return text_.size() == 0; }
  std::string Take() const { return fmt::to_string(text_); }

 private:
  fmt::memory_buffer text_;
};

const char* GpuWord(std::int64_t n) { return n == 1 ? "GPU" : "GPUs"; }

// Declared brand, model and architecture must be what the pool records.
void CheckDeclaredHardware(const DeclaredResources& d, const HardwareProfile& h, bool has_gpus,
                           Problems* problems) {
  auto check = [&](const char* field, const std::optional<std::string>& want,
                   const std::optional<std::string>& have) {
    if (!want) return;
    if (!have) {
      problems->Add(FMT_COMPILE("declares {} {}; this pool's {} is not recorded"), field, *want,
                    field);
    } else if (*have != *want) {
      problems->Add(FMT_COMPILE("declares {} {}; this pool has {}"), field, *want, *have);
    }
  };
  if (has_gpus) {
    check("gpu_brand", d.gpu_brand, h.gpu_brand);
    check("gpu_model", d.gpu_model, h.gpu_model);
  }
  check("architecture", d.architecture, h.architecture);
}

// Architectures from history: a pool on one the workload never ran on is
// refused (its image may not run there); one whose architecture is not
// recorded is not judged.
void CheckHistoryArchitecture(const ExecutionFacts& e, const HardwareProfile& h,
                              CandidateEvaluation* out, Problems* problems) {
  const ExecutionShape& shape = e.shape;
  if (shape.architecture_source != ShapeSource::kHistory) return;
  if (!h.architecture) {
    out->notes.push_back(
        fmt::format("architecture not recorded: the workload ran only on {}; not judged",
                    e.architecture_words));
    return;
  }
  if (std::find(shape.architectures.begin(), shape.architectures.end(), *h.architecture) !=
      shape.architectures.end()) {
    return;
  }
  problems->Add(FMT_COMPILE("ran only on {} (recorded by {}); this pool is {}: declare "
                            "architecture {} to place it here"),
                e.architecture_words, e.architecture_history_words, *h.architecture,
                *h.architecture);
}

// A MIG partition is given whole: shares of a card apply to whole cards only
// (and to cards whose partitioning is not recorded). A MIG mode of a card
// the catalog does not know still gives its partitions whole.
bool SplitByMig(const PoolFacts& pool) {
  if (pool.partition != nullptr) return pool.partition->compute_fraction < 1 - kEpsilon;
  const std::optional<std::string>& mode = pool.pool.hardware.gpu_mode;
  return mode && internal::MigComputeSlices(*mode).has_value();
}

// Whether free_gpu_shares place the execution on this pool's cards (else
// free_partitions counts what is free).
bool SharesCards(const ExecutionFacts& e, const PoolFacts& pool, const PlacementCandidate& c) {
  return e.shape.gpu_count > 0 && !c.free_gpu_shares.empty() &&
         pool.pool.hardware.gpu_count.value_or(0) > 0 && !SplitByMig(pool);
}

void CheckGpuCount(const ExecutionFacts& e, const PoolFacts& pool, const PlacementCandidate& c,
                   Problems* problems) {
  if (e.shape.gpu_count == 0) return;
  const std::int64_t n = e.shape.gpu_count;
  if (pool.pool.hardware.gpu_count.value_or(0) == 0) {
    problems->Add(FMT_COMPILE("needs {} {}; this pool has none"), n, GpuWord(n));
    return;
  }
  if (pool.partitions_per_node && n > *pool.partitions_per_node) {
    problems->Add(FMT_COMPILE("needs {} {}; a node of this pool has {} of {}"), n, GpuWord(n),
                  *pool.partitions_per_node, pool.pool.hardware.gpu_mode.value_or("unknown mode"));
  }
  if (c.free_partitions && !SharesCards(e, pool, c) && n > *c.free_partitions) {
    problems->Add(FMT_COMPILE("needs {} {}; this pool has {} free"), n, GpuWord(n),
                  *c.free_partitions);
  }
}

// What the execution takes of cards shared by share: a share of one card when
// it asks for one GPU and a known compute share below a whole card (the larger
// of that and its GPU memory's share of the card, when the card is known);
// otherwise whole cards.
CardRequest RequestOnCards(const ExecutionFacts& e, const PoolFacts& pool,
                           const PlacementNeeds& needs) {
  const auto& compute = needs.gpu_compute_fraction;
  if (e.shape.gpu_count != 1 || !compute || *compute >= 1 - kEpsilon) {
    return {e.shape.gpu_count, 1};
  }
  double share = *compute;
  if (pool.card != nullptr && pool.card->memory_gb > 0 && needs.gpu_memory_gb) {
    share = std::max(share, *needs.gpu_memory_gb / pool.card->memory_gb);
  }
  return {1, share < 1 - kEpsilon ? share : 1};
}

// The share of one card the execution is given when it goes on a card others
// share; nullopt when it asks for whole cards or the cards are not shared.
std::optional<double> ShareOfSharedCard(const ExecutionFacts& e, const PoolFacts& pool,
                                        const PlacementCandidate& c, const PlacementNeeds& needs) {
  if (!SharesCards(e, pool, c)) return std::nullopt;
  const CardRequest request = RequestOnCards(e, pool, needs);
  if (request.share >= 1) return std::nullopt;
  return request.share;
}

// free_gpu_shares, when given, lists every GPU of a node: the pool's gpu_count.
bool CheckShareCount(const PoolFacts& pool, const PlacementCandidate& c, Problems* problems) {
  const auto listed = static_cast<std::int64_t>(c.free_gpu_shares.size());
  const std::int64_t gpus = pool.pool.hardware.gpu_count.value_or(0);
  if (listed == 0 || listed == gpus) return true;
  problems->Add(FMT_COMPILE("free_gpu_shares lists {} {}; a node of this pool has {} {}: give "
                            "one free share per GPU"),
                listed, GpuWord(listed), gpus, GpuWord(gpus));
  return false;
}

// With free_gpu_shares: the cards the request goes on (the tightest that
// hold it), or the limit it breaks.
void ChooseCards(const ExecutionFacts& e, const PoolFacts& pool, const PlacementCandidate& c,
                 CandidateEvaluation* out, Problems* problems) {
  if (e.shape.gpu_count > 0 && !c.free_gpu_shares.empty() && SplitByMig(pool)) {
    const std::string& words = pool.partition_words.empty()
                                   ? pool.pool.hardware.gpu_mode.value_or("")
                                   : pool.partition_words;
    out->notes.push_back("free_gpu_shares not used: this pool gives whole " + words +
                         " partitions, not shares of a card");
  }
  if (!SharesCards(e, pool, c)) return;
  const std::vector<double>& shares = c.free_gpu_shares;
  const CardRequest request = RequestOnCards(e, pool, out->needs);
  out->gpu_cards = TightestCards(shares, request);
  if (!out->gpu_cards.empty()) return;
  if (request.share < 1) {
    problems->Add(FMT_COMPILE("needs {:.2f} of a card; the most free on one card of this pool "
                              "is {:.2f}"),
                  request.share, *std::max_element(shares.begin(), shares.end()));
    return;
  }
  const auto whole =
      std::count_if(shares.begin(), shares.end(), [](double s) { return s >= 1 - kEpsilon; });
  problems->Add(FMT_COMPILE("needs {} whole {}; this pool has {} whole {} free"), request.count,
                GpuWord(request.count), whole, GpuWord(whole));
}

// The tighter of the pool's node size and its free capacity, with words for it.
struct Capacity {
  std::optional<std::int64_t> amount;
  const char* words = "";
};

Capacity CapacityOf(std::optional<std::int64_t> node, std::optional<std::int64_t> free) {
  if (free && (!node || *free <= *node)) return {free, "free"};
  return {node, "on a node"};
}

void CheckHost(const EffectiveRequest& r, const PoolFacts& pool, const PlacementCandidate& c,
               Problems* problems) {
  const Capacity cpu = CapacityOf(pool.pool.hardware.cpu_millicores, c.free_cpu_millicores);
  if (r.cpu_request_millicores && cpu.amount && *r.cpu_request_millicores > *cpu.amount) {
    problems->Add(FMT_COMPILE("needs {} CPU millicores; this pool has {} {}"),
                  *r.cpu_request_millicores, *cpu.amount, cpu.words);
  }
  const Capacity memory = CapacityOf(pool.pool.hardware.memory_bytes, c.free_memory_bytes);
  if (r.memory_bytes && memory.amount && *r.memory_bytes > *memory.amount) {
    problems->Add(FMT_COMPILE("needs {:.1f} GiB memory; this pool has {:.1f} GiB {}"),
                  static_cast<double>(*r.memory_bytes) / kGiB,
                  static_cast<double>(*memory.amount) / kGiB, memory.words);
  }
}

// A card's worth a partition gives: the larger of its memory and compute shares.
double CardsGiven(const GpuModel& card, const GpuPartition& p) {
  return std::max(p.memory_gb / card.memory_gb, p.compute_fraction);
}

// Whether a compute share needed uses all a partition gives: then no card
// waste, whatever the GPU memory needed.
bool ShareFillsPartition(const std::optional<double>& share, const GpuModel& card,
                         const GpuPartition& p) {
  return share && *share >= CardsGiven(card, p) - kEpsilon;
}

// GPU memory is hard; compute share is soft (noted, scored). Fills the GPU part
// of the request: the partition's figures, its share of a card others share,
// or the needs on an unknown-size pool.
void JudgeGpu(const ExecutionFacts& e, const PoolFacts& pool, const PlacementCandidate& c,
              CandidateEvaluation* out, Problems* problems) {
  if (e.shape.gpu_count == 0 || pool.pool.hardware.gpu_count.value_or(0) == 0) return;
  EffectiveRequest& r = out->request;
  const PlacementNeeds& needs = out->needs;
  const GpuPartition* p = pool.partition;
  if (p == nullptr) {
    r.gpu_memory_gb = needs.gpu_memory_gb;
    r.gpu_compute_fraction = needs.gpu_compute_fraction;
    out->notes.push_back(pool.card == nullptr
                             ? "GPU model not recorded: the pool is of unknown size, not judged "
                               "small"
                             : "GPU partitioning (gpu_mode) not recorded: the pool is of unknown "
                               "size, not judged small");
    return;
  }
  r.gpu_config_id = p->gpu_config_id;
  r.gpu_memory_gb = p->memory_gb;
  // 3/7 is asked for as 0.428571, the precision the scores are kept at.
  r.gpu_compute_fraction = RoundToDecimals(p->compute_fraction, kWastePlaces);
  if (needs.gpu_memory_gb && *needs.gpu_memory_gb > p->memory_gb + kEpsilon) {
    const Provenance learned = r.origin(FigureKind::kGpuMemoryGb).provenance;
    problems->Add(FMT_COMPILE("needs {:.1f} GiB GPU memory{}; this pool offers {}"),
                  *needs.gpu_memory_gb,
                  learned == Provenance::kWorkloadAnyHardware ? " (learned on other GPU models)"
                  : learned == Provenance::kTransferred ? " (transferred from another GPU model)"
                                                        : "",
                  pool.partition_words);
  }
  if (const auto share = ShareOfSharedCard(e, pool, c, needs); share && pool.card != nullptr) {
    // Given its share of the card and no more (ScoreWaste): nothing to note.
    r.gpu_compute_fraction = RoundToDecimals(*share, kWastePlaces);
    r.gpu_memory_gb = RoundToDecimals(*share * pool.card->memory_gb, kWastePlaces);
    return;
  }
  if (!needs.gpu_memory_gb &&
      (pool.card == nullptr || !ShareFillsPartition(needs.gpu_compute_fraction, *pool.card, *p))) {
    out->notes.push_back(
        "GPU memory needed is unknown (no history of it, none declared): card waste and score "
        "unknown, ranked after every pool with a known score; declare gpu_memory_gb to score it");
  }
  if (!needs.gpu_compute_fraction && p->compute_fraction < 1 - kEpsilon) {
    out->notes.push_back(fmt::format(
        "compute share needed on {} is unknown (no history on it, none declared): "
        "ranked after every pool with a known score; declare gpu_compute_fraction to score it",
        p->model));
  }
  if (needs.gpu_compute_fraction && *needs.gpu_compute_fraction > p->compute_fraction + kEpsilon) {
    out->notes.push_back(
        fmt::format("short of compute: needs {:.2f} of a card; {} gives {:.2f} "
                    "(runs slower)",
                    *needs.gpu_compute_fraction, pool.partition_words, p->compute_fraction));
  }
}

double IdleShare(std::optional<std::int64_t> used, Capacity capacity) {
  if (!capacity.amount || *capacity.amount <= 0) return 1;
  const double left = static_cast<double>(*capacity.amount - used.value_or(0));
  return RoundToDecimals(std::max(0.0, left / static_cast<double>(*capacity.amount)), kWastePlaces);
}

// The score terms (docs/PLACEMENT.md "Score"): cards' worth given but not
// needed, cards' worth of compute share needed but not given, and their
// weighted sum; a term that cannot be known is left absent (an unknown GPU
// memory need leaves the card waste unknown: it is not "no memory needed").
void ScoreWaste(const ExecutionFacts& e, const PoolFacts& pool, const PlacementCandidate& c,
                CandidateEvaluation* out) {
  PlacementWaste& w = out->waste;
  w.cpu = IdleShare(out->request.cpu_request_millicores,
                    CapacityOf(pool.pool.hardware.cpu_millicores, c.free_cpu_millicores));
  w.memory = IdleShare(out->request.memory_bytes,
                       CapacityOf(pool.pool.hardware.memory_bytes, c.free_memory_bytes));
  if (ShareOfSharedCard(e, pool, c, out->needs)) {
    // A share of a card others share: it is given its share, no more.
    w.card = 0;
    w.compute_shortfall = 0;
    w.score = 0;
    return;
  }
  if (e.shape.gpu_count == 0) {
    w.card = 0;
    w.compute_shortfall = 0;
    w.score = 0;
    return;
  }
  if (pool.partition == nullptr || pool.card == nullptr) return;  // unknown size
  const GpuPartition& p = *pool.partition;
  const double gpus = static_cast<double>(e.shape.gpu_count);
  const std::optional<double>& share = out->needs.gpu_compute_fraction;
  if (share) {
    w.compute_shortfall =
        RoundToDecimals(gpus * std::max(0.0, *share - p.compute_fraction), kWastePlaces);
  } else if (p.compute_fraction >= 1 - kEpsilon) {
    w.compute_shortfall = 0;  // a whole card's compute is never short
  }
  const std::optional<double>& memory = out->needs.gpu_memory_gb;
  if (!memory) {
    // A share of all the partition gives leaves nothing of it unused,
    // whatever the memory; otherwise unknown (noted by JudgeGpu).
    if (ShareFillsPartition(share, *pool.card, p)) w.card = 0;
  } else {
    const double given = CardsGiven(*pool.card, p);
    const double used = std::max(*memory / pool.card->memory_gb, share.value_or(0));
    w.card = RoundToDecimals(gpus * std::max(0.0, given - std::min(used, given)), kWastePlaces);
  }
  if (w.card && w.compute_shortfall) {
    w.score = RoundToDecimals(*w.card + w.shortfall_weight * *w.compute_shortfall, kWastePlaces);
  }
}

// The node's free GPU as cards' shares: free_gpu_shares, or free_partitions
// of whole cards (the pool's count: at most one node's cards); nullopt when
// not known. A pool without GPUs has none.
std::optional<FreeGpu> FreeGpuOf(const PoolFacts& pool, const PlacementCandidate& c) {
  FreeGpu free;
  free.cpu_millicores = CapacityOf(pool.pool.hardware.cpu_millicores, c.free_cpu_millicores).amount;
  const std::int64_t node_cards = pool.pool.hardware.gpu_count.value_or(0);
  if (node_cards == 0) return free;
  // Shares of a card say what is free where cards are shared by share; a MIG
  // pool gives partitions whole, and the shares listed go unused.
  if (!c.free_gpu_shares.empty() && !SplitByMig(pool)) {
    free.shares = c.free_gpu_shares;
  } else if (c.free_partitions && pool.partition != nullptr &&
             pool.partition->compute_fraction >= 1 - kEpsilon) {
    free.shares.assign(static_cast<std::size_t>(std::min(*c.free_partitions, node_cards)), 1.0);
  } else {
    return std::nullopt;
  }
  return free;
}

// gpu_left, and with a demand mix the fragmentation term (choosing, on shared
// cards, the card that fragments least).
void ScoreCards(const ExecutionFacts& e, const PoolFacts& pool, const PlacementCandidate& c,
                const std::vector<DemandShape>* mix, CandidateEvaluation* out) {
  const std::optional<FreeGpu> free = FreeGpuOf(pool, c);
  if (!free) return;
  CardRequest request{e.shape.gpu_count, 1};
  if (free->shares.empty()) request.count = 0;
  if (!c.free_gpu_shares.empty() && !SplitByMig(pool)) {
    request = RequestOnCards(e, pool, out->needs);
  }
  double total = 0;
  for (const double s : free->shares) total += s;
  out->waste.gpu_left = RoundToDecimals(
      std::max(0.0, total - static_cast<double>(request.count) * request.share), kWastePlaces);
  if (mix == nullptr) return;
  std::vector<DemandShape> own;
  if (mix->empty()) own.push_back({request.count, request.share, 0, 1});
  const auto choice = LeastFragmentingCards(
      *free, request, out->request.cpu_request_millicores.value_or(0), mix->empty() ? own : *mix);
  if (!choice) return;
  out->waste.fragmentation = RoundToDecimals(choice->increase, kWastePlaces);
  if (!out->gpu_cards.empty()) out->gpu_cards = choice->cards;
}

}  // namespace

std::string PartitionWords(const GpuPartition& p) {
  if (p.mode == "full") return fmt::format("a whole {} ({:g} GiB)", p.model, p.memory_gb);
  return fmt::format("{} ({:g} GiB)", p.mode.substr(4), p.memory_gb);
}

CandidateEvaluation EvaluateCandidate(const ExecutionFacts& e, const PlacementCandidate& c,
                                      std::size_t index, const PoolFacts* pool,
                                      const ChosenFigures& chosen,
                                      const std::vector<DemandShape>* mix) {
  CandidateEvaluation out;
  out.candidate = index;
  out.node_pool_id = c.node_pool_id;
  out.request = chosen.request;
  out.needs = chosen.needs;
  if (!e.shape.notes.empty()) {
    out.notes.reserve(e.shape.notes.size() + 2);  // room for this pool's own, as a rule
    out.notes = e.shape.notes;
  }
  if (pool == nullptr) {
    out.reason = fmt::format("node pool '{}' is not registered: register it with {}",
                             c.node_pool_id, RemedyText(Remedy::kPoolsImport));
    return out;
  }
  Problems problems;
  const bool has_gpus = pool->pool.hardware.gpu_count.value_or(0) > 0;
  CheckDeclaredHardware(e.execution->declared, pool->pool.hardware, has_gpus, &problems);
  CheckGpuCount(e, *pool, c, &problems);
  if (CheckShareCount(*pool, c, &problems)) ChooseCards(e, *pool, c, &out, &problems);
  CheckHistoryArchitecture(e, pool->pool.hardware, &out, &problems);
  JudgeGpu(e, *pool, c, &out, &problems);
  CheckHost(out.request, *pool, c, &problems);
  ScoreWaste(e, *pool, c, &out);
  if (problems.empty()) ScoreCards(e, *pool, c, mix, &out);
  out.feasible = problems.empty();
  out.reason = out.feasible ? "fits" : problems.Take();
  if (!out.feasible) out.gpu_cards.clear();  // the caller takes no card of a pool it cannot use
  return out;
}

}  // namespace hwrec::internal
