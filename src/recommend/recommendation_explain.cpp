// Why RecommendationReader's figures are what they are (Read with
// `explain`, recommendation_reader.h): the reason of each figure from the
// aggregate of the scope its provenance names, and the execution that set it.
#include "recommend/recommendation_reader.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "hwrec/observation.h"
#include "recommend/estimator.h"
#include "recommend/figure_reason.h"
#include "recommend/recommendation_reader_internal.h"

namespace hwrec::internal {

namespace {

// The scope whose aggregate a figure of `provenance` was learned from.
Scope ScopeOfProvenance(Provenance provenance) {
  for (std::size_t s = 0; s < kScopeCount; ++s) {
    if (kProvenanceOfScope[s] == provenance) return static_cast<Scope>(s);
  }
  return Scope::kAny;
}

}  // namespace

void RecommendationReader::Explain(std::int64_t workload_id, const ScopeAggregates& by_scope,
                                   Recommendation* out) {
  for (std::size_t f = 0; f < kFigureCount; ++f) {
    const auto kind = static_cast<FigureKind>(f);
    Figure& figure = out->figures[f];
    if (figure.provenance == Provenance::kNone || !figure.value) continue;
    if (figure.provenance == Provenance::kTransferred) continue;  // explained as transferred
    const Scope scope = ScopeOfProvenance(figure.provenance);
    const KeyAggregate* aggregate = by_scope[static_cast<std::size_t>(scope)];
    if (aggregate == nullptr) continue;
    std::optional<RecentValue> set_by;
    const MetricState& metric =
        figure.held_share ? aggregate->held_share() : aggregate->metric(kind);
    figure.reason = ExplainFigure(kind, metric, settings_, &set_by);
    if (!figure.reason) continue;
    std::optional<ExplainedExecution> execution;
    if (set_by) execution = FindExecution(kind, workload_id, out->hardware, scope, *set_by);
    CompleteReason(kind, settings_, set_by, execution, &*figure.reason);
    if (figure.held_share) {
      figure.reason->text.insert(0,
                                 "of the shares held, as no execution reported its GPU "
                                 "utilisation (the share used is at most this): ");
    }
  }
}

namespace {
// The columns FindExecution reads, both lookups alike.
constexpr const char* kExecutionColumns =
    "SELECT execution_id, finished_at, status, requested_memory_bytes, memory_peak_bytes, "
    "requested_gpu_memory_gb, gpu_memory_peak_gb FROM observations ";

// The execution `lookup` finds (bound, not yet stepped), then resets it.
std::optional<ExplainedExecution> StepExecution(FigureKind kind, store::Statement& lookup) {
  std::optional<ExplainedExecution> found;
  if (lookup.Step()) {
    ExplainedExecution e;
    lookup.AssignText(0, &e.execution_id);
    e.finished_at = lookup.Double(1);
    e.status = ParseExecutionStatus(lookup.Text(2)).value_or(ExecutionStatus::kSuccess);
    const int column = kind == FigureKind::kGpuMemoryGb ? 5 : 3;
    e.requested = lookup.OptionalDouble(column);
    e.observed = lookup.OptionalDouble(column + 1);
    found = std::move(e);
  }
  lookup.Reset();  // an unfinished statement would hold its read transaction open
  return found;
}

}  // namespace

std::optional<ExplainedExecution> RecommendationReader::FindExecution(FigureKind kind,
                                                                      std::int64_t workload_id,
                                                                      const HardwareKey& hardware,
                                                                      Scope scope,
                                                                      const RecentValue& recent) {
  if (recent.observation_id > 0) {
    if (!execution_by_id_) {
      execution_by_id_ = db_.Prepare(std::string(kExecutionColumns) + "WHERE id = ?");
    }
    execution_by_id_->Reset();
    execution_by_id_->Bind(1, recent.observation_id);
    auto found = StepExecution(kind, *execution_by_id_);
    // An id of another store's numbering (rows renumbered since) is not trusted.
    if (found && found->finished_at == recent.time) return found;
  }
  // A state stored before format 3: the first execution of the workload on
  // the aggregate's key that finished then (observations_by_workload).
  if (!execution_by_time_) {
    execution_by_time_ = db_.Prepare(
        std::string(kExecutionColumns) +
        "WHERE workload_id = ? AND finished_at = ? "
        "AND (? = 0 OR coalesce(gpu_brand, '') = ?) AND (? = 0 OR coalesce(gpu_model, '') = ?) "
        "AND (? = 0 OR coalesce(instance_type, '') = ?) ORDER BY id LIMIT 1");
  }
  const AggregateKey key = KeyAt(workload_id, scope, hardware);
  const std::int64_t gpu = scope == Scope::kExact || scope == Scope::kGpuModel ? 1 : 0;
  const std::int64_t instance = scope == Scope::kExact || scope == Scope::kInstanceType ? 1 : 0;
  store::Statement& lookup = *execution_by_time_;
  lookup.Reset();
  int i = 1;
  lookup.Bind(i++, workload_id);
  lookup.Bind(i++, recent.time);
  lookup.Bind(i++, gpu);
  lookup.BindTextView(i++, key.gpu_brand);
  lookup.Bind(i++, gpu);
  lookup.BindTextView(i++, key.gpu_model);
  lookup.Bind(i++, instance);
  lookup.BindTextView(i++, key.instance_type);
  return StepExecution(kind, lookup);
}

}  // namespace hwrec::internal
