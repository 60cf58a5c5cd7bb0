// The replay of one workload (replay_internal.h): its executions sized in
// order, each from in-memory aggregates of the executions that had finished
// by its start, and scored against what it used. Nothing is written.
#include "backtest/replay_internal.h"

#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>

#include "hwrec/observation.h"
#include "recommend/estimator.h"
#include "recommend/recommendation_reader.h"

namespace hwrec::internal {

namespace {

constexpr double kBytesPerGiB = 1024.0 * 1024.0 * 1024.0;

// Where a figure's over-provisioning is counted: GiB, cores or cards per unit.
double AmountPerUnit(FigureKind kind) {
  switch (kind) {
    case FigureKind::kCpuRequestMillicores:
    case FigureKind::kCpuLimitMillicores:
      return 1.0 / 1000;
    case FigureKind::kMemoryBytes:
      return 1.0 / kBytesPerGiB;
    case FigureKind::kGpuMemoryGb:
    case FigureKind::kGpuComputeFraction:
      return 1.0;
  }
  return 1.0;
}

// Whether an execution with `observed` (and its status) overran `recommended`.
// An OOM ran out of what it requested: under a figure no larger than that
// request it would have run out too; under a larger one its need is what
// the aggregates learn from it (the bumped peak), compared like any other.
bool Overran(FigureKind kind, const AggregateInput& in, double observed, double recommended,
             bool oom) {
  if (oom) {
    const std::optional<double>& requested =
        kind == FigureKind::kMemoryBytes ? in.requested_memory_bytes : in.requested_gpu_memory_gb;
    if (!requested || recommended <= *requested) return true;
  }
  return observed > recommended;
}

// Whether `aggregate` holds any value `kind` is learned from.
bool HasHistory(FigureKind kind, const KeyAggregate& aggregate,
                const RecommenderSettings& settings) {
  if (FigureStatistic(kind, aggregate.metric(kind), settings)) return true;
  return kind == FigureKind::kGpuComputeFraction && !aggregate.metrics[kHeldShareMetric].empty();
}

bool IsOom(FigureKind kind, ExecutionStatus status) {
  return (kind == FigureKind::kMemoryBytes && status == ExecutionStatus::kOom) ||
         (kind == FigureKind::kGpuMemoryGb && status == ExecutionStatus::kGpuOom);
}

}  // namespace

std::vector<Event> ReplayOrder(const std::vector<Execution>& executions) {
  std::vector<Event> events;
  events.reserve(executions.size() * 2);
  for (std::size_t i = 0; i < executions.size(); ++i) {
    const Execution& e = executions[i];
    if (e.scored) events.push_back({e.started_at, 1, i});
    events.push_back({e.input.finished_at, e.started_at < e.input.finished_at ? 0 : 2, i});
  }
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    return std::tie(a.time, a.order, a.index) < std::tie(b.time, b.order, b.index);
  });
  return events;
}

void ReplayWorkload(const std::vector<Execution>& executions, const std::vector<Event>& events,
                    const RecommenderSettings& settings, const std::vector<FigureKind>& figures,
                    bool keep_points, std::size_t points_per_series, TransferSource* transfer,
                    WorkloadTallies* tallies) {
  std::unordered_map<AggregateKey, KeyAggregate, AggregateKeyHash> aggregates;
  const auto scope_key = [](const AggregateInput& in, Scope scope) {
    AggregateKey key;
    key.workload_id = in.workload_id;
    key.scope = scope;
    if (scope == Scope::kExact || scope == Scope::kGpuModel) {
      key.gpu_brand = in.gpu_brand;
      key.gpu_model = in.gpu_model;
    }
    if (scope == Scope::kExact || scope == Scope::kInstanceType) {
      key.instance_type = in.instance_type;
    }
    return key;
  };
  // Each execution's four aggregates, found once (node addresses are stable).
  std::vector<std::array<KeyAggregate*, internal::kScopeCount>> rows(executions.size());
  for (std::size_t i = 0; i < executions.size(); ++i) {
    for (std::size_t s = 0; s < internal::kScopeCount; ++s) {
      rows[i][s] = &aggregates[scope_key(executions[i].input, static_cast<Scope>(s))];
    }
  }

  // Only the metrics of the figures scored are kept: a figure reads its own.
  std::vector<std::array<std::optional<double>, internal::kMetricCount>> values;
  values.reserve(executions.size());
  for (const Execution& e : executions) {
    values.push_back(internal::MetricValues(e.input, settings));
  }
  // The transfer of `kind` to `e`'s card or instance type: the workload's
  // figures on its other keys as of now, times the factors of the others.
  // Kept by (figure, key) until the next finish changes the figures.
  std::map<std::pair<FigureKind, std::string>, std::optional<FigureTransfer>> transfers;
  const auto transferred = [&](FigureKind kind, const Execution& e,
                               const std::string& target) -> std::optional<FigureTransfer> {
    const auto kept = transfers.find({kind, target});
    if (kept != transfers.end()) return kept->second;
    const Scope scope = IsGpuFigure(kind) ? Scope::kGpuModel : Scope::kInstanceType;
    std::map<std::string, double> own;
    for (const auto& [key, aggregate] : aggregates) {
      if (key.scope != scope || aggregate.samples == 0) continue;
      const auto name = TransferKey(kind, key.gpu_brand, key.gpu_model, key.instance_type);
      const auto value = FigureStatistic(kind, aggregate.metric(kind), settings);
      if (name && value && *value > 0) own[*name] = *value;
    }
    const auto estimate =
        transfer->Table(kind, settings).Estimate(e.input.workload_id, own, target);
    std::optional<FigureTransfer> answer;
    if (estimate) answer = FigureTransferOf(kind, *estimate);
    transfers.emplace(std::make_pair(kind, target), answer);
    return answer;
  };
  for (const Event& event : events) {
    const Execution& e = executions[event.index];
    const auto& value = values[event.index];
    if (event.order != 1) {
      transfers.clear();
      for (KeyAggregate* aggregate : rows[event.index]) {
        const auto add = [&](std::size_t m) {
          if (!value[m]) return;
          aggregate->metrics[m].Add(*value[m], e.input.finished_at, settings.half_life_s(),
                                    settings.max_range_samples);
        };
        for (FigureKind kind : figures) {
          add(static_cast<std::size_t>(kind));
          // The compute share also reads the shares held without utilisation.
          if (kind == FigureKind::kGpuComputeFraction) add(internal::kHeldShareMetric);
        }
        ++aggregate->samples;
      }
      continue;
    }
    internal::ScopeAggregates by_scope{};
    for (std::size_t s = 0; s < internal::kScopeCount; ++s) {
      KeyAggregate* aggregate = rows[event.index][s];
      by_scope[s] = aggregate->samples > 0 ? aggregate : nullptr;
    }
    for (FigureKind kind : figures) {
      const auto& observed = value[static_cast<std::size_t>(kind)];
      if (!observed) continue;
      SeriesTally& series = (*tallies)[{e.key_index, kind}];
      Figure figure = internal::EstimateFromScopes(kind, e.hardware, by_scope, settings);
      // Sized with history on other hardware only, for this figure: the
      // workload's first on this card (GPU figures) or instance type (CPU,
      // memory). Transfer is asked for as Recommend asks for it.
      const bool elsewhere = !figure.value || figure.provenance == Provenance::kWorkloadAnyHardware;
      const KeyAggregate* any = by_scope[static_cast<std::size_t>(Scope::kAny)];
      const std::string& key_name = IsGpuFigure(kind) ? e.input.gpu_model : e.input.instance_type;
      const bool new_card =
          elsewhere && !key_name.empty() && any != nullptr && HasHistory(kind, *any, settings);
      if (new_card && transfer != nullptr && WantsTransfer(figure, e.hardware, settings)) {
        const std::optional<std::string> key = TransferKey(kind, e.hardware);
        if (const auto t = key ? transferred(kind, e, *key) : std::nullopt) {
          figure = TransferredFigure(kind, *t, settings, false);
        }
      }
      const bool oom = IsOom(kind, e.input.status);
      BacktestPoint point;
      point.observed = *observed;
      point.oom = oom;
      point.transferred = figure.provenance == Provenance::kTransferred;
      if (figure.value) point.overrun = Overran(kind, e.input, *observed, *figure.value, oom);
      series.tally.all.Count(figure.value, *observed, point.overrun);
      if (new_card) series.tally.new_card.Count(figure.value, *observed, point.overrun);
      if (point.transferred) ++series.tally.transferred;
      if (figure.value && !point.overrun && e.duration_s && *e.duration_s >= 0) {
        ++series.tally.with_duration;
        series.tally.over_provisioned +=
            (*figure.value - *observed) * AmountPerUnit(kind) * *e.duration_s / 3600.0;
      }
      if (keep_points) {
        point.execution_id = e.execution_id;
        point.started_at = e.started_at;
        point.recommended = figure.value;
        point.lower = figure.lower;
        point.upper = figure.upper;
        series.Keep(std::move(point), points_per_series);
      }
    }
  }
}

}  // namespace hwrec::internal
