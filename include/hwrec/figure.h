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

// Every figure of one workload on one hardware key.
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

}  // namespace hwrec
