#include "hwrec/figure.h"

#include "base/enum_names.h"

namespace hwrec {

namespace {

constexpr internal::EnumName<FigureKind> kFigureKindNames[] = {
    {FigureKind::kCpuRequestMillicores, "cpu_request_millicores"},
    {FigureKind::kCpuLimitMillicores, "cpu_limit_millicores"},
    {FigureKind::kMemoryBytes, "memory_bytes"},
    {FigureKind::kGpuMemoryGb, "gpu_memory_gb"},
    {FigureKind::kGpuComputeFraction, "gpu_compute_fraction"}};

constexpr internal::EnumName<Provenance> kProvenanceNames[] = {
    {Provenance::kExact, "exact"},
    {Provenance::kGpuModel, "gpu_model"},
    {Provenance::kInstanceType, "instance_type"},
    {Provenance::kTransferred, "transferred"},
    {Provenance::kWorkloadAnyHardware, "workload_any_hardware"},
    {Provenance::kNone, "none"}};

constexpr internal::EnumName<FigureReason::Source> kReasonSourceNames[] = {
    {FigureReason::Source::kMaxOfRecent, "max_of_recent"},
    {FigureReason::Source::kPercentile, "percentile"},
    {FigureReason::Source::kAverage, "average"},
    {FigureReason::Source::kTransferred, "transferred"}};

}  // namespace

std::string_view ToString(FigureReason::Source source) {
  return internal::NameOf(kReasonSourceNames, source);
}

std::string_view ToString(FigureKind kind) { return internal::NameOf(kFigureKindNames, kind); }

std::optional<FigureKind> ParseFigureKind(std::string_view text) {
  return internal::ValueOf(kFigureKindNames, text);
}

std::string_view ToString(Provenance provenance) {
  return internal::NameOf(kProvenanceNames, provenance, "none");
}

}  // namespace hwrec
