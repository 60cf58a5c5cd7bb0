// What the placement evaluator answers: per candidate pool, the effective
// request with where each figure came from, the needs before rounding to a
// partition, feasibility and waste, and the execution's shape as resolved;
// ranked, with the one chosen. Plain values; safe to copy and share between
// threads.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hwrec/export.h"
#include "hwrec/placement_input.h"
#include "hwrec/recommend.h"

namespace hwrec {

// Where a figure of the effective request comes from.
enum class FigureSource {
  kRecommendation,  // this pool's recommendation; see `provenance`
  kDeclared,        // the author's value, used where there is no recommendation
  kPinned,          // the author pinned it
  kRetryFloor,      // raised to the OOM-retry floor
  kDefault,         // CPU and memory only: the store's default request (`hwrec config`
                    // default.*), where neither history nor the execution sizes them
  kNone,            // nothing known: no value
};

struct HWREC_EXPORT FigureOrigin {
  FigureSource source = FigureSource::kNone;
  Provenance provenance = Provenance::kNone;  // when source is kRecommendation
  std::int64_t samples = 0;
  // When source is kRecommendation: the compute share was learned from the
  // shares executions held, as none reported utilisation (Figure::held_share).
  bool held_share = false;

  bool operator==(const FigureOrigin& other) const;
};
// "exact", "gpu_model", "instance_type", "workload_any_hardware" for a
// recommendation; otherwise "declared", "pinned", "retry_floor", "default" or
// "none".
HWREC_EXPORT std::string_view ToString(const FigureOrigin& origin);
// Parses what ToString prints, with the samples behind it; nullopt for
// anything else.
HWREC_EXPORT std::optional<FigureOrigin> ParseFigureOrigin(std::string_view text,
                                                           std::int64_t samples);

// What the execution should ask for on one pool. GPU memory and compute share
// are those of the partition the pool offers (rounded up to it); for a share
// of a card others share (free_gpu_shares) that share of the card's compute
// and memory; on a pool of unknown GPU model they are the needs themselves.
// Origins are indexed by FigureKind.
struct HWREC_EXPORT EffectiveRequest {
  std::optional<std::int64_t> cpu_request_millicores;
  std::optional<std::int64_t> cpu_limit_millicores;
  std::optional<std::int64_t> memory_bytes;
  std::int64_t gpu_count = 0;
  std::optional<std::string> gpu_config_id;    // absent: CPU-only, or model unknown
  std::optional<double> gpu_memory_gb;         // per GPU
  std::optional<double> gpu_compute_fraction;  // per GPU, share of one card
  std::array<FigureOrigin, kFigureCount> origins;

  const FigureOrigin& origin(FigureKind kind) const {
    return origins[static_cast<std::size_t>(kind)];
  }
  bool operator==(const EffectiveRequest& other) const;
};

// GPU figures before rounding to a partition, per GPU.
struct HWREC_EXPORT PlacementNeeds {
  std::optional<double> gpu_memory_gb;
  std::optional<double> gpu_compute_fraction;
  bool operator==(const PlacementNeeds& other) const;
};

// The fragmentation policy's score of a placement that adds `increase`
// cards' worth to its node's unusable free GPU (negative: it frees some), as
// FGD scores it: floor(100 * sigmoid(-increase)), from 0 to 100, higher
// first. 50 is "adds nothing"; near zero one point is about 0.04 of a card,
// and the points widen as the increase grows. Placements of one score are
// equal (docs/PLACEMENT.md "Fragmentation" says what decides among them).
// Not a number scores 0.
HWREC_EXPORT int FragmentationScore(double increase);

// How much a placement leaves unused or short; lower is better. Compute
// shortfall is soft: it raises the score and is reported, never makes a pool
// infeasible. An absent term is unknown, never taken as zero.
struct HWREC_EXPORT PlacementWaste {
  // Cards' worth given but not needed; absent: a pool of unknown size, or
  // the GPU memory needed unknown (and the share needed short of the partition).
  std::optional<double> card;
  std::optional<double> compute_shortfall;  // cards' worth of compute share needed but not given;
                                            // absent: the share needed on this card is unknown
  double cpu = 0;                           // share of the pool's free (or node) CPU left idle
  double memory = 0;                        // share of the pool's free (or node) memory left idle
  // What best_fit weighs a card's worth of compute shortfall at, against a
  // card's worth of card waste (docs/PLACEMENT.md "Score").
  double shortfall_weight = 2;
  // card + shortfall_weight × compute_shortfall; absent when either is unknown.
  std::optional<double> score;
  // Cards' worth of GPU left free on the node after the placement (from
  // free_gpu_shares, or free_partitions of whole cards, at most a node's
  // gpu_count of them); absent: unknown.
  std::optional<double> gpu_left;
  // fragmentation policy: how many cards' worth of the node's free GPU the
  // placement adds to what the demand mix cannot use; absent: other
  // policies, or the node's free GPU unknown.
  std::optional<double> fragmentation;
  bool operator==(const PlacementWaste& other) const;
};

// Where the evaluator took the execution's GPU count or architecture from.
enum class ShapeSource {
  kDeclared,    // the author's value (one GPU when only GPU figures are declared)
  kRetryFloor,  // raised to the OOM-retry floor's gpu_count, or 1 for a floor's GPU figures
  kHistory,     // nothing declared: the workload's own recent executions
  kNone,        // nothing declared and no history: no GPU, any architecture
};
HWREC_EXPORT std::string_view ToString(
    ShapeSource source);  // "declared", "retry_floor", "history", "none"
HWREC_EXPORT std::optional<ShapeSource> ParseShapeSource(std::string_view text);

// How many GPUs the execution asks for and where it can run, as resolved
// for every candidate, with where each came from.
struct HWREC_EXPORT ExecutionShape {
  std::int64_t gpu_count = 0;
  ShapeSource gpu_count_source = ShapeSource::kNone;
  std::vector<std::string> architectures;  // sorted; empty: any architecture
  ShapeSource architecture_source = ShapeSource::kNone;
  // Recent executions that ran (success, oom, gpu_oom): the last 50 of the
  // workload's last 500.
  std::int64_t history_executions = 0;
  std::int64_t gpu_executions = 0;  // of those, the ones that used GPUs
  // Where the GPU count and architectures came from, in words; every
  // candidate's notes begin with these.
  std::vector<std::string> notes;
  bool operator==(const ExecutionShape& other) const;
};

struct HWREC_EXPORT CandidateEvaluation {
  std::size_t candidate = 0;  // position in the candidates given
  std::string node_pool_id;
  bool feasible = false;
  std::string reason;              // "fits", or every hard limit it breaks, in words
  std::vector<std::string> notes;  // soft findings (compute shortfall, unknown size, …)
  EffectiveRequest request;
  PlacementNeeds needs;
  PlacementWaste waste;
  // With free_gpu_shares: the cards (positions in that list) the execution
  // goes on; empty otherwise, and whenever the candidate is not feasible.
  std::vector<std::size_t> gpu_cards;
  bool operator==(const CandidateEvaluation& other) const;
};

struct HWREC_EXPORT PlacementResult {
  std::string workload;
  PlacementPolicy policy = PlacementPolicy::kBestFit;
  double as_of = 0;  // epoch seconds the recommendations were read at
  ExecutionShape shape;
  // Ranked: feasible candidates in policy order, then infeasible ones in candidate order.
  std::vector<CandidateEvaluation> evaluations;
  std::optional<std::size_t> chosen;  // index into evaluations; absent: nothing fits

  const CandidateEvaluation* chosen_evaluation() const {
    return chosen ? &evaluations[*chosen] : nullptr;
  }
  bool operator==(const PlacementResult& other) const;
};

}  // namespace hwrec
