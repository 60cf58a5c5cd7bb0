// RecommendationQuery: what an execution of a workload should request on a
// given kind of hardware, with where each figure comes from. Figures are read
// from per-key aggregates that ingest keeps up to date, so a query costs the
// same at 10 or 10 million observations. A query object uses its Store's
// connection, with statements it keeps prepared between calls: one thread at a
// time, and the Store outlives it. Each call reads history and settings as they
// are then.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "hwrec/hardware_key.h"
#include "hwrec/status.h"

namespace hwrec {

class Store;
enum class FigureKind {
  kCpuRequestMillicores,
  kCpuLimitMillicores,
  kMemoryBytes,
  kGpuMemoryGb,
  kGpuComputeFraction,
};
inline constexpr std::size_t kFigureCount = 5;
std::string_view ToString(FigureKind kind);  // "cpu_request_millicores", …

// Which history a figure was learned from, most specific first.
enum class Provenance {
  kExact,                // this workload on this (brand, model, instance type)
  kGpuModel,             // this workload on this GPU model, any instance type
  kInstanceType,         // this workload on this instance type, any GPU
  kWorkloadAnyHardware,  // this workload on any hardware (GPU memory, CPU, memory only)
  kNone,                 // no history: no value
};
std::string_view ToString(Provenance provenance);

struct Figure {
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
};

struct Recommendation {
  std::string workload;
  HardwareKey hardware;
  // Epoch seconds the answer is stamped with. Decay weighs samples against
  // each other, so figures and confidence read the same at any as_of; history
  // newer than it is not left out.
  double as_of = 0;
  std::array<Figure, kFigureCount> figures;

  const Figure& figure(FigureKind kind) const { return figures[static_cast<std::size_t>(kind)]; }
};

class RecommendationQuery {
 public:
  explicit RecommendationQuery(const Store& store);
  RecommendationQuery(const RecommendationQuery&) = delete;
  RecommendationQuery& operator=(const RecommendationQuery&) = delete;
  ~RecommendationQuery();

  // `as_of` (default now) only stamps the answer (see Recommendation::as_of).
  // An unknown workload yields figures with provenance none.
  Result<Recommendation> Recommend(const std::string& workload, const HardwareKey& hardware,
                                   std::optional<double> as_of = std::nullopt);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Recomputes the materialised `recommendations` table for every workload and
// every hardware key it has history on or a registered node pool offers.
// Returns the number of (workload, hardware key) rows written.
Result<std::int64_t> RefreshRecommendations(Store& store);

// Rebuilds every aggregate from the stored observations with the current
// settings (after a change of half-life, or to repair), then refreshes.
Result<std::int64_t> RebuildRecommendations(Store& store);

}  // namespace hwrec
