#include "hwrec/placement_result.h"

#include <tuple>

#include "base/enum_names.h"

namespace hwrec {

namespace {

constexpr internal::EnumName<PlacementPolicy> kPolicyNames[] = {
    {PlacementPolicy::kBestFit, "best_fit"},
    {PlacementPolicy::kFirstFit, "first_fit"},
    {PlacementPolicy::kFragmentation, "fragmentation"}};
// Sources other than a recommendation, whose name is its provenance's.
constexpr internal::EnumName<FigureSource> kSourceNames[] = {
    {FigureSource::kDeclared, "declared"},
    {FigureSource::kPinned, "pinned"},
    {FigureSource::kRetryFloor, "retry_floor"},
    {FigureSource::kDefault, "default"},
    {FigureSource::kNone, "none"}};
constexpr internal::EnumName<ShapeSource> kShapeSourceNames[] = {
    {ShapeSource::kDeclared, "declared"},
    {ShapeSource::kRetryFloor, "retry_floor"},
    {ShapeSource::kHistory, "history"},
    {ShapeSource::kNone, "none"}};

}  // namespace

std::string_view ToString(PlacementPolicy policy) {
  return internal::NameOf(kPolicyNames, policy, "best_fit");
}

std::optional<PlacementPolicy> ParsePlacementPolicy(std::string_view text) {
  return internal::ValueOf(kPolicyNames, text);
}

std::string_view ToString(ShapeSource source) {
  return internal::NameOf(kShapeSourceNames, source, "none");
}

std::optional<ShapeSource> ParseShapeSource(std::string_view text) {
  return internal::ValueOf(kShapeSourceNames, text);
}

std::string_view ToString(const FigureOrigin& origin) {
  if (origin.source == FigureSource::kRecommendation) return ToString(origin.provenance);
  return internal::NameOf(kSourceNames, origin.source, "none");
}

std::optional<FigureOrigin> ParseFigureOrigin(std::string_view name, std::int64_t samples) {
  FigureOrigin origin;
  origin.samples = samples;
  if (const auto named = internal::ValueOf(kSourceNames, name)) {
    origin.source = *named;
    return origin;
  }
  for (Provenance p : {Provenance::kExact, Provenance::kGpuModel, Provenance::kInstanceType,
                       Provenance::kTransferred, Provenance::kWorkloadAnyHardware}) {
    if (name == ToString(p)) {
      origin.source = FigureSource::kRecommendation;
      origin.provenance = p;
      return origin;
    }
  }
  return std::nullopt;
}

bool FigureOrigin::operator==(const FigureOrigin& o) const {
  return source == o.source && provenance == o.provenance && samples == o.samples &&
         held_share == o.held_share;
}

bool DeclaredResources::operator==(const DeclaredResources& o) const {
  return std::tie(gpu_count, gpu_brand, gpu_model, architecture, gpu_memory_gb,
                  gpu_compute_fraction, cpu_millicores, memory_bytes, pinned) ==
         std::tie(o.gpu_count, o.gpu_brand, o.gpu_model, o.architecture, o.gpu_memory_gb,
                  o.gpu_compute_fraction, o.cpu_millicores, o.memory_bytes, o.pinned);
}

bool EffectiveRequest::operator==(const EffectiveRequest& o) const {
  return std::tie(cpu_request_millicores, cpu_limit_millicores, memory_bytes, gpu_count,
                  gpu_config_id, gpu_memory_gb, gpu_compute_fraction, origins) ==
         std::tie(o.cpu_request_millicores, o.cpu_limit_millicores, o.memory_bytes, o.gpu_count,
                  o.gpu_config_id, o.gpu_memory_gb, o.gpu_compute_fraction, o.origins);
}

bool PlacementNeeds::operator==(const PlacementNeeds& o) const {
  return gpu_memory_gb == o.gpu_memory_gb && gpu_compute_fraction == o.gpu_compute_fraction;
}

bool PlacementWaste::operator==(const PlacementWaste& o) const {
  return std::tie(card, compute_shortfall, cpu, memory, shortfall_weight, score, gpu_left,
                  fragmentation) == std::tie(o.card, o.compute_shortfall, o.cpu, o.memory,
                                             o.shortfall_weight, o.score, o.gpu_left,
                                             o.fragmentation);
}

bool ExecutionShape::operator==(const ExecutionShape& o) const {
  return std::tie(gpu_count, gpu_count_source, architectures, architecture_source,
                  history_executions, gpu_executions, notes) ==
         std::tie(o.gpu_count, o.gpu_count_source, o.architectures, o.architecture_source,
                  o.history_executions, o.gpu_executions, o.notes);
}

bool CandidateEvaluation::operator==(const CandidateEvaluation& o) const {
  return std::tie(candidate, node_pool_id, feasible, reason, notes, request, needs, waste,
                  gpu_cards) == std::tie(o.candidate, o.node_pool_id, o.feasible, o.reason, o.notes,
                                         o.request, o.needs, o.waste, o.gpu_cards);
}

bool PlacementResult::operator==(const PlacementResult& o) const {
  return std::tie(workload, policy, as_of, shape, evaluations, chosen) ==
         std::tie(o.workload, o.policy, o.as_of, o.shape, o.evaluations, o.chosen);
}

}  // namespace hwrec
