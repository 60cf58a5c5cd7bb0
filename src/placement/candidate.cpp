#include "placement/candidate.h"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/decimal.h"
#include "base/units.h"
#include "hwrec/remedy.h"
#include "placement/gpu_cards.h"

namespace hwrec::internal {

namespace {

constexpr double kEpsilon = 1e-9;
// Waste scores are kept to the precision ranking compares them at (1e-6), so
// 0.5 - 0.3 is stored and printed as 0.2, not 0.19999999999999996.
constexpr int kWastePlaces = 6;

struct Chosen {
  std::optional<double> value;
  FigureOrigin origin;
};

// Pinned beats the recommendation, the recommendation beats the declared
// value, and nothing goes below the OOM-retry floor.
Chosen ChooseFigure(const Figure* recommended, std::optional<double> declared, bool pinned,
                    std::optional<double> floor) {
  Chosen chosen;
  if (pinned && declared) {
    chosen = {declared, {FigureSource::kPinned, Provenance::kNone, 0}};
  } else if (recommended != nullptr && recommended->value) {
    chosen = {recommended->value,
              {FigureSource::kRecommendation, recommended->provenance, recommended->samples,
               recommended->held_share}};
  } else if (declared) {
    chosen = {declared, {FigureSource::kDeclared, Provenance::kNone, 0}};
  }
  if (floor && (!chosen.value || *floor > *chosen.value + kEpsilon)) {
    chosen = {floor, {FigureSource::kRetryFloor, Provenance::kNone, 0}};
  }
  return chosen;
}

template <typename T>
std::optional<double> AsDouble(const std::optional<T>& v) {
  return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
}

std::optional<std::int64_t> CeilInt(const std::optional<double>& v) {
  if (!v) return std::nullopt;
  return static_cast<std::int64_t>(std::ceil(*v - kEpsilon));
}

const DeclaredResources* Floor(const ExecutionFacts& e) {
  return e.execution->retry_floor ? &*e.execution->retry_floor : nullptr;
}

// CPU request and limit, memory: learned per instance type, checked against the pool.
void ChooseHostFigures(const ExecutionFacts& e, const Recommendation* r, EffectiveRequest* out) {
  const DeclaredResources& d = e.execution->declared;
  const DeclaredResources* floor = Floor(e);
  auto fig = [&](FigureKind kind) { return r ? &r->figure(kind) : nullptr; };
  const auto cpu_floor = floor ? AsDouble(floor->cpu_millicores) : std::nullopt;
  const auto memory_floor = floor ? AsDouble(floor->memory_bytes) : std::nullopt;
  Chosen request = ChooseFigure(fig(FigureKind::kCpuRequestMillicores), AsDouble(d.cpu_millicores),
                                e.pin_cpu, cpu_floor);
  Chosen limit = ChooseFigure(fig(FigureKind::kCpuLimitMillicores), AsDouble(d.cpu_millicores),
                              e.pin_cpu, cpu_floor);
  if (request.value && (!limit.value || *limit.value < *request.value)) limit = request;
  Chosen memory = ChooseFigure(fig(FigureKind::kMemoryBytes), AsDouble(d.memory_bytes),
                               e.pin_memory, memory_floor);
  // A chosen pool always carries a CPU and a memory request.
  const FigureOrigin by_default{FigureSource::kDefault, Provenance::kNone, 0};
  if (!request.value) request = {e.default_cpu_millicores, by_default};
  if (!limit.value) limit = request;
  if (!memory.value) memory = {e.default_memory_bytes, by_default};
  out->cpu_request_millicores = CeilInt(request.value);
  out->cpu_limit_millicores = CeilInt(limit.value);
  out->memory_bytes = CeilInt(memory.value);
  out->origins[static_cast<std::size_t>(FigureKind::kCpuRequestMillicores)] = request.origin;
  out->origins[static_cast<std::size_t>(FigureKind::kCpuLimitMillicores)] = limit.origin;
  out->origins[static_cast<std::size_t>(FigureKind::kMemoryBytes)] = memory.origin;
}

// GPU memory and compute share needed per GPU, before rounding to a partition.
PlacementNeeds ChooseGpuNeeds(const ExecutionFacts& e, const Recommendation* r,
                              EffectiveRequest* out) {
  PlacementNeeds needs;
  if (e.shape.gpu_count == 0) return needs;
  const DeclaredResources& d = e.execution->declared;
  const DeclaredResources* floor = Floor(e);
  auto fig = [&](FigureKind kind) { return r ? &r->figure(kind) : nullptr; };
  const Chosen memory = ChooseFigure(fig(FigureKind::kGpuMemoryGb), d.gpu_memory_gb,
                                     e.pin_gpu_memory, floor ? floor->gpu_memory_gb : std::nullopt);
  const Chosen share =
      ChooseFigure(fig(FigureKind::kGpuComputeFraction), d.gpu_compute_fraction, e.pin_compute,
                   floor ? floor->gpu_compute_fraction : std::nullopt);
  needs.gpu_memory_gb = memory.value;
  needs.gpu_compute_fraction = share.value;
  out->origins[static_cast<std::size_t>(FigureKind::kGpuMemoryGb)] = memory.origin;
  out->origins[static_cast<std::size_t>(FigureKind::kGpuComputeFraction)] = share.origin;
  return needs;
}

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
  if (c.free_partitions && c.free_gpu_shares.empty() && n > *c.free_partitions) {
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

// A MIG partition is given whole: shares of a card apply to whole cards only
// (and to cards whose partitioning is not recorded).
bool SplitByMig(const PoolFacts& pool) {
  return pool.partition != nullptr && pool.partition->compute_fraction < 1 - kEpsilon;
}

bool SharesCards(const ExecutionFacts& e, const PoolFacts& pool, const PlacementCandidate& c) {
  return e.shape.gpu_count > 0 && !c.free_gpu_shares.empty() &&
         pool.pool.hardware.gpu_count.value_or(0) > 0 && !SplitByMig(pool);
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
    out->notes.push_back("free_gpu_shares not used: this pool gives whole " + pool.partition_words +
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
    const bool elsewhere =
        r.origin(FigureKind::kGpuMemoryGb).provenance == Provenance::kWorkloadAnyHardware;
    problems->Add(FMT_COMPILE("needs {:.1f} GiB GPU memory{}; this pool offers {}"),
                  *needs.gpu_memory_gb, elsewhere ? " (learned on other GPU models)" : "",
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
  if (!c.free_gpu_shares.empty()) {
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
  if (!c.free_gpu_shares.empty()) request = RequestOnCards(e, pool, out->needs);
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

Result<ExecutionFacts> ResolveExecution(const ExecutionToPlace& execution) {
  ExecutionFacts facts;
  facts.execution = &execution;
  const DeclaredResources& d = execution.declared;
  struct Pin {
    const char* field;
    bool* flag;
    bool has_value;
  };
  const Pin pins[] = {
      {"cpu_millicores", &facts.pin_cpu, d.cpu_millicores.has_value()},
      {"memory_bytes", &facts.pin_memory, d.memory_bytes.has_value()},
      {"gpu_memory_gb", &facts.pin_gpu_memory, d.gpu_memory_gb.has_value()},
      {"gpu_compute_fraction", &facts.pin_compute, d.gpu_compute_fraction.has_value()}};
  for (const std::string& field : d.pinned) {
    const auto pin = std::find_if(std::begin(pins), std::end(pins),
                                  [&](const Pin& p) { return field == p.field; });
    if (pin == std::end(pins)) {
      return Status::InvalidArgument(fmt::format(
          "pinned '{}' is not a figure that can be pinned: use cpu_millicores, memory_bytes, "
          "gpu_memory_gb or gpu_compute_fraction",
          field));
    }
    if (!pin->has_value) {
      return Status::InvalidArgument(
          fmt::format("pinned '{}' has no declared value: declare {} too", field, field));
    }
    *pin->flag = true;
  }
  ExecutionShape& shape = facts.shape;
  const bool declares_gpu = d.gpu_brand || d.gpu_model || d.gpu_memory_gb || d.gpu_compute_fraction;
  if (d.gpu_count || declares_gpu) {
    shape.gpu_count = d.gpu_count.value_or(1);
    shape.gpu_count_source = ShapeSource::kDeclared;
  }
  if (d.architecture) {
    shape.architectures = {*d.architecture};
    shape.architecture_source = ShapeSource::kDeclared;
  }
  return facts;
}

bool ShapeNeedsHistory(const ExecutionFacts& facts) {
  return facts.shape.gpu_count_source == ShapeSource::kNone ||
         facts.shape.architecture_source == ShapeSource::kNone;
}

namespace {

// "its last execution that ran", "its last 7 executions that ran".
std::string LastExecutions(std::int64_t n) {
  return n == 1 ? "its last execution that ran" : fmt::format("its last {} executions that ran", n);
}

// "its last execution that ran", "3 of its last 7 executions that ran".
std::string SomeOfLastExecutions(std::int64_t some, std::int64_t n) {
  return n == 1 ? LastExecutions(n) : fmt::format("{} of {}", some, LastExecutions(n));
}

// GPUs when at least half of the recent executions used them: as many as the
// most any of them held (gpu_count_held), or one when none said how many it
// held (hardware.gpu_count is the node's, never read as the execution's).
// Returns the note.
std::string GpuCountFromHistory(const WorkloadHistory& history, ExecutionFacts* facts) {
  ExecutionShape& shape = facts->shape;
  const bool uses_gpus = 2 * history.gpu_executions >= history.executions;
  shape.gpu_count = !uses_gpus ? 0 : history.held_executions > 0 ? history.most_gpus_held : 1;
  shape.gpu_count_source = ShapeSource::kHistory;
  std::string used;
  if (history.executions == 1) {
    used = history.gpu_executions == 1 ? "its last execution used GPUs"
                                       : "its last execution used no GPU";
  } else if (history.gpu_executions == 0) {
    used = fmt::format("none of {} used GPUs", LastExecutions(history.executions));
  } else {
    used = fmt::format("{} of {} used GPUs", history.gpu_executions,
                       LastExecutions(history.executions));
  }
  if (uses_gpus && history.held_executions > 0) {
    used += history.held_executions == 1
                ? fmt::format("; the one that said how many GPUs it held had {}",
                              history.most_gpus_held)
                : fmt::format("; the {} that said how many GPUs they held had at most {}",
                              history.held_executions, history.most_gpus_held);
  }
  return fmt::format("gpu_count {} from history: {}", shape.gpu_count, used);
}

// "architecture x86_64 from history: recorded by 3 of its last 5 executions
// that ran" (the others did not record theirs).
std::string ArchitectureFromHistory(const WorkloadHistory& history, ExecutionFacts* facts) {
  ExecutionShape& shape = facts->shape;
  shape.architectures = history.architectures;
  shape.architecture_source = ShapeSource::kHistory;
  for (const std::string& architecture : shape.architectures) {
    if (!facts->architecture_words.empty()) facts->architecture_words += ", ";
    facts->architecture_words += architecture;
  }
  facts->architecture_history_words =
      SomeOfLastExecutions(history.architecture_executions, history.executions);
  return fmt::format("{} {} from history: recorded by {}",
                     shape.architectures.size() == 1 ? "architecture" : "architectures",
                     facts->architecture_words, facts->architecture_history_words);
}

// A retry floor's gpu_count raises the count; GPU figures in a floor without
// one mean the execution ran out on a GPU: at least one, unless the author
// declared gpu_count 0, which wins. Returns the note, or "".
std::string GpuCountFromRetryFloor(const DeclaredResources& floor, ExecutionShape* shape) {
  const bool declared = shape->gpu_count_source == ShapeSource::kDeclared;
  if (floor.gpu_count) {
    if (*floor.gpu_count <= shape->gpu_count) return "";
    const std::int64_t before = shape->gpu_count;
    shape->gpu_count = *floor.gpu_count;
    shape->gpu_count_source = ShapeSource::kRetryFloor;
    return declared ? fmt::format("gpu_count {} from the retry floor, above the declared {}",
                                  shape->gpu_count, before)
                    : fmt::format("gpu_count {} from the retry floor", shape->gpu_count);
  }
  if (shape->gpu_count > 0 || !(floor.gpu_memory_gb || floor.gpu_compute_fraction)) return "";
  const char* fields = !floor.gpu_compute_fraction ? "gpu_memory_gb"
                       : !floor.gpu_memory_gb      ? "gpu_compute_fraction"
                                                   : "gpu_memory_gb and gpu_compute_fraction";
  if (declared) {
    return fmt::format("the retry floor's {} {} ignored: gpu_count 0 is declared", fields,
                       floor.gpu_memory_gb && floor.gpu_compute_fraction ? "are" : "is");
  }
  shape->gpu_count = 1;
  shape->gpu_count_source = ShapeSource::kRetryFloor;
  return fmt::format("gpu_count 1 from the retry floor: it sets {}", fields);
}

}  // namespace

// The shape's notes (every candidate's begin with them) say where what was not
// declared came from: the GPU count, the architectures, and (a count of 1 from
// history) how to ask for more; or that no execution in the window ran.
void CompleteShape(const WorkloadHistory& history, ExecutionFacts* facts) {
  ExecutionShape& shape = facts->shape;
  const ExecutionToPlace& execution = *facts->execution;
  std::string gpu_note;
  std::string architecture_note;
  if (ShapeNeedsHistory(*facts) && history.executions > 0) {
    shape.history_executions = history.executions;
    shape.gpu_executions = history.gpu_executions;
    if (shape.gpu_count_source == ShapeSource::kNone) {
      gpu_note = GpuCountFromHistory(history, facts);
    }
    if (shape.architecture_source == ShapeSource::kNone && !history.architectures.empty()) {
      architecture_note = ArchitectureFromHistory(history, facts);
    }
  }
  if (execution.retry_floor) {
    std::string floor_note = GpuCountFromRetryFloor(*execution.retry_floor, &shape);
    if (!floor_note.empty()) gpu_note = std::move(floor_note);
  }
  std::vector<std::string>& notes = shape.notes;
  if (ShapeNeedsHistory(*facts) && history.executions == 0 && history.passed_over > 0) {
    const bool count = shape.gpu_count_source == ShapeSource::kNone;
    const bool architecture = shape.architecture_source == ShapeSource::kNone;
    notes.push_back(fmt::format(
        "no execution that ran ({} failed/cancelled passed over): declare {}", history.passed_over,
        count && architecture ? "gpu_count and architecture"
        : count               ? "gpu_count"
                              : "architecture"));
  }
  for (std::string* note : {&gpu_note, &architecture_note}) {
    if (!note->empty()) notes.push_back(std::move(*note));
  }
  if (shape.gpu_count_source == ShapeSource::kHistory && shape.gpu_count == 1 &&
      history.held_executions == 0) {
    notes.emplace_back(
        "history asks for 1 GPU: none of its executions said how many GPUs it held "
        "(gpu_count_held; an observation's hardware.gpu_count is its node's): declare gpu_count "
        "when the execution uses more than one");
  }
}

ChosenFigures ChooseFigures(const ExecutionFacts& e, const Recommendation* recommendation) {
  ChosenFigures chosen;
  chosen.request.gpu_count = e.shape.gpu_count;
  ChooseHostFigures(e, recommendation, &chosen.request);
  chosen.needs = ChooseGpuNeeds(e, recommendation, &chosen.request);
  return chosen;
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
