// The figures a candidate's request starts from (ChooseFigures): CPU, memory
// and the GPU needs, each chosen from a pin, the pool's recommendation, the
// declared value, the OOM-retry floor and the store's defaults.
#include "placement/candidate.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "hwrec/placement_input.h"
#include "hwrec/placement_result.h"
#include "hwrec/recommend.h"

namespace hwrec::internal {

namespace {

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

}  // namespace

ChosenFigures ChooseFigures(const ExecutionFacts& e, const Recommendation* recommendation) {
  ChosenFigures chosen;
  chosen.request.gpu_count = e.shape.gpu_count;
  ChooseHostFigures(e, recommendation, &chosen.request);
  chosen.needs = ChooseGpuNeeds(e, recommendation, &chosen.request);
  return chosen;
}

}  // namespace hwrec::internal
