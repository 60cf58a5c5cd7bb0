// Figures: what an execution of a workload should request on one kind of
// hardware, one resource at a time, with where each figure was learned from
// (Figure), and the five of them for one hardware key (Recommendation). Plain
// values, read by RecommendationQuery (hwrec/recommend.h) and materialised by
// ingest; safe to copy between threads.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "hwrec/export.h"
#include "hwrec/hardware_key.h"

namespace hwrec {

enum class FigureKind {
  kCpuRequestMillicores,
  kCpuLimitMillicores,
  kMemoryBytes,
  kGpuMemoryGb,
  kGpuComputeFraction,
};
inline constexpr std::size_t kFigureCount = 5;
HWREC_EXPORT std::string_view ToString(FigureKind kind);  // "cpu_request_millicores", …
// Parses what ToString prints; nullopt for anything else.
HWREC_EXPORT std::optional<FigureKind> ParseFigureKind(std::string_view text);

// Which history a figure was learned from, most specific first.
enum class Provenance {
  kExact,                // this workload on this (brand, model, instance type)
  kGpuModel,             // this workload on this GPU model, any instance type
  kInstanceType,         // this workload on this instance type, any GPU
  kTransferred,          // this workload on another key, times a learned factor (Figure::transfer)
  kWorkloadAnyHardware,  // this workload on any hardware (GPU memory, CPU, memory only)
  kNone,                 // no history: no value
};
HWREC_EXPORT std::string_view ToString(Provenance provenance);

// Why a figure is what it is: the statistic and what set it, then the margin
// and the rounding that reach the figure's value. Filled only when asked for
// (RecommendationQuery::Recommend with Explain::kYes). Amounts are in the
// figure's unit (millicores, bytes, GiB, share of one card).
struct HWREC_EXPORT FigureReason {
  // kTransferred: the statistic is the workload's on another key times a
  // factor (Figure::transfer); no execution or bucket is named.
  enum class Source { kMaxOfRecent, kPercentile, kAverage, kTransferred };
  Source source = Source::kMaxOfRecent;
  std::string statistic;       // as Figure::statistic: "max of last 10", "p98", "decayed avg"
  double statistic_value = 0;  // the statistic, before the margin

  // Max of last N: the execution that set the max. execution_id is empty when
  // its observation is no longer stored.
  std::string execution_id;
  std::optional<double> finished_at;  // epoch seconds
  std::string status;                 // "success", "oom", "gpu_oom", …; "" when unknown
  // When that execution ran out of memory (oom for memory_bytes, gpu_oom for
  // gpu_memory_gb), the bump its synthetic peak got: oom_factor × oom_base,
  // where oom_base is what it requested or, when larger, what it was seen to use.
  std::optional<double> oom_factor;  // 1.2
  std::string oom_applied_to;        // "requested" or "observed"
  std::optional<double> oom_base;

  // Percentiles: the histogram bucket that holds the percentile, and the
  // decayed share of the history in it and beneath it (0..1).
  std::optional<double> bucket_lower, bucket_upper;
  std::optional<double> share_at_or_below;

  double margin = 0;       // 0.10 for +10 %
  double with_margin = 0;  // statistic_value × (1 + margin)
  std::string rounding;    // "up to 0.01 GiB", "up to a whole byte", "up to the 0.05 step"
  double value = 0;        // with_margin rounded: the figure's value
  std::string text;        // the same in one line for a person
};
HWREC_EXPORT std::string_view ToString(
    FigureReason::Source source);  // "max_of_recent", "percentile", "average", "transferred"

// How a transferred figure was reached: the workload's figure on the key it
// ran on, times the factor between the two keys learned from the workloads
// seen on both (the median of their ratios, or the mean ratio of the
// workloads nearest to this one by their ratios to its other keys).
// Example: 0.62 of an A100 80GB x 0.50, 14 workloads, spread 0.12.
struct HWREC_EXPORT FigureTransfer {
  // The source: a card (gpu_brand, gpu_model) for GPU figures, an instance
  // type for CPU and memory; the other fields of the key are empty.
  HardwareKey source;
  double source_value = 0;      // the workload's statistic there, before margin
  double factor = 1;            // target / source
  std::int64_t workloads = 0;   // workloads seen on both keys
  std::int64_t neighbours = 0;  // how many of them set the factor; 0: the median of all
  std::int64_t sources = 1;     // keys of the workload that gave an estimate (combined)
  // Standard deviation of the estimate's log: the factor's spread. The
  // figure's margin grows with it (config transfer.spread_margin).
  double spread = 0;
  double estimate = 0;  // the transferred value before margin and rounding
};

struct HWREC_EXPORT Figure {
  FigureKind kind = FigureKind::kCpuRequestMillicores;
  std::optional<double> value;  // with margin (and ladder rounding for compute share)
  Provenance provenance = Provenance::kNone;
  std::int64_t samples = 0;  // executions behind the figure
  // 0..1: n / (n + 5) for the effective number n of executions behind the
  // figure (Kish's (Σw)² / Σw² of the decayed weights), times a factor for
  // borrowed provenance. It does not shrink as the history ages: see last_seen.
  double confidence = 0;
  std::optional<double> last_seen;  // epoch seconds of the newest sample behind the figure
  std::optional<double> lower;      // median of the same history, with margin
  std::optional<double> upper;      // largest recent value, with margin
  std::string statistic;            // "p95", "max of last 10", …
  double margin = 0;                // 0.15 for +15 %
  double half_life_hours = 0;
  // GPU compute share only: true when no execution behind the figure
  // reported its GPU utilisation, so the value is the share the executions
  // held (what they used is at most that), learned only because no measured
  // share exists on the figure's fallback chain; false when it is the share
  // they were measured to use (share held × utilisation).
  bool held_share = false;
  // GPU memory only: the GPUs each execution behind the figure held, when
  // the figure was learned from executions of one width (see
  // Recommendation::width); absent when learned from executions of every
  // width, or of a width not recorded (gpu_count_held absent).
  std::optional<std::int64_t> learned_width;
  // Provenance kTransferred only: where the figure was transferred from.
  std::optional<FigureTransfer> transfer;
  // What produced the value; only when asked for and the figure has a value.
  std::optional<FigureReason> reason;
};

// Every figure of one workload on one hardware key.
struct HWREC_EXPORT Recommendation {
  std::string workload;
  HardwareKey hardware;
  // Epoch seconds the answer is stamped with. Decay weighs samples against
  // each other, so figures and confidence read the same at any as_of; history
  // newer than it is not left out.
  double as_of = 0;
  // The width (GPUs held per execution) the GPU memory figure answers for,
  // as asked; absent: executions of every width, as one population. With a
  // width, gpu_memory_gb is learned from executions that held that many GPUs
  // on the card, else on any card, else at the nearest width the workload
  // ran at (unscaled: its learned_width says which), else from executions of
  // unknown width (no learned_width).
  std::optional<std::int64_t> width;
  std::array<Figure, kFigureCount> figures;

  const Figure& figure(FigureKind kind) const { return figures[static_cast<std::size_t>(kind)]; }
};

}  // namespace hwrec
