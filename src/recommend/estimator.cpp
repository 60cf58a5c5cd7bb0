#include "recommend/estimator.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "base/decimal.h"

namespace hwrec::internal {

namespace {

double ProvenanceFactor(Provenance provenance) {
  switch (provenance) {
    case Provenance::kExact:
      return 1.0;
    case Provenance::kGpuModel:
    case Provenance::kInstanceType:
      return 0.8;
    case Provenance::kTransferred:
    case Provenance::kWorkloadAnyHardware:
      return 0.5;
    case Provenance::kNone:
      return 0.0;
  }
  return 0.0;
}

std::string StatisticLabel(const Statistic& statistic, std::size_t max_range) {
  if (statistic.kind == Statistic::Kind::kMax) {
    return fmt::format("max of last {}", max_range);
  }
  return statistic.kind == Statistic::Kind::kAverage ? "decayed avg" : statistic.name;
}

std::optional<double> Raw(const MetricState& metric, const Statistic& statistic,
                          std::size_t max_range) {
  switch (statistic.kind) {
    case Statistic::Kind::kPercentile:
      return metric.Percentile(statistic.quantile);
    case Statistic::Kind::kAverage:
      return metric.DecayedAverage();
    case Statistic::Kind::kMax:
      return metric.MaxOfRecent(max_range);
  }
  return std::nullopt;
}

// Units a request is expressed in: whole millicores and bytes, GiB to 0.01.
double Finish(FigureKind kind, double value, double ladder_step) {
  switch (kind) {
    case FigureKind::kCpuRequestMillicores:
    case FigureKind::kCpuLimitMillicores:
    case FigureKind::kMemoryBytes:
      return std::ceil(value - 1e-9);
    case FigureKind::kGpuMemoryGb:
      return std::ceil(value * 100 - 1e-9) / 100;
    case FigureKind::kGpuComputeFraction:
      return RoundToLadder(value, ladder_step);
  }
  return value;
}

std::string RoundingOf(FigureKind kind, double ladder_step) {
  switch (kind) {
    case FigureKind::kCpuRequestMillicores:
    case FigureKind::kCpuLimitMillicores:
      return "up to a whole millicore";
    case FigureKind::kMemoryBytes:
      return "up to a whole byte";
    case FigureKind::kGpuMemoryGb:
      return "up to 0.01 GiB";
    case FigureKind::kGpuComputeFraction:
      return fmt::format("up to the {:g} step", ladder_step);
  }
  return "";
}

}  // namespace

double RoundToLadder(double share, double step) {
  const double steps = std::ceil(share / step - 1e-9);
  // steps * step alone is off the decimal (7 * 0.05 = 0.35000000000000003).
  const double rung = RoundToDecimals(steps * step, DecimalPlaces(step));
  return std::clamp(rung, step, 1.0);
}

Figure EmptyFigure(FigureKind kind, const RecommenderSettings& settings) {
  const FigureSettings& fs = settings.figure(kind);
  Figure figure;
  figure.kind = kind;
  figure.statistic = StatisticLabel(fs.statistic, settings.max_range_samples);
  figure.margin = fs.margin;
  figure.half_life_hours = settings.half_life_hours;
  return figure;
}

Figure EstimateFigure(FigureKind kind, const MetricState& metric,
                      const RecommenderSettings& settings, Provenance provenance) {
  Figure figure = EmptyFigure(kind, settings);
  const FigureSettings& fs = settings.figure(kind);
  const auto raw = Raw(metric, fs.statistic, settings.max_range_samples);
  if (!raw) return figure;
  const double scale = 1 + fs.margin;
  const double step = settings.compute_ladder_step;
  figure.provenance = provenance;
  figure.samples = metric.count();
  figure.value = Finish(kind, *raw * scale, step);
  const double median = metric.Percentile(0.5).value_or(*raw);
  const double recent_max = metric.MaxOfRecent(settings.max_range_samples).value_or(*raw);
  figure.lower = std::min(*figure.value, Finish(kind, median * scale, step));
  figure.upper = std::max(*figure.value, Finish(kind, recent_max * scale, step));
  figure.last_seen = metric.LastSeen();
  const double evidence = metric.EffectiveSamples();
  figure.confidence = evidence / (evidence + kConfidenceHalfWeight) * ProvenanceFactor(provenance);
  return figure;
}

std::optional<double> FigureStatistic(FigureKind kind, const MetricState& metric,
                                      const RecommenderSettings& settings) {
  return Raw(metric, settings.figure(kind).statistic, settings.max_range_samples);
}

Figure TransferredFigure(FigureKind kind, const FigureTransfer& transfer,
                         const RecommenderSettings& settings, bool explain) {
  Figure figure = EmptyFigure(kind, settings);
  const FigureSettings& fs = settings.figure(kind);
  const double step = settings.compute_ladder_step;
  const double for_spread = std::exp(settings.transfer_spread_margin * transfer.spread);
  const double scale = (1 + fs.margin) * for_spread;
  figure.provenance = Provenance::kTransferred;
  figure.value = Finish(kind, transfer.estimate * scale, step);
  figure.lower = std::min(*figure.value, Finish(kind, transfer.estimate * (1 + fs.margin), step));
  figure.upper = figure.value;
  figure.margin = scale - 1;
  figure.statistic = "transferred " + figure.statistic;
  const auto workloads = static_cast<double>(transfer.workloads);
  figure.confidence = workloads / (workloads + kConfidenceHalfWeight) * std::exp(-transfer.spread) *
                      ProvenanceFactor(Provenance::kTransferred);
  figure.transfer = transfer;
  if (explain) {
    FigureReason reason;
    reason.source = FigureReason::Source::kTransferred;
    reason.statistic = figure.statistic;
    reason.statistic_value = transfer.estimate;
    reason.margin = figure.margin;
    reason.with_margin = transfer.estimate * scale;
    reason.rounding = RoundingOf(kind, step);
    reason.value = *figure.value;
    figure.reason = std::move(reason);
  }
  return figure;
}

std::optional<FigureReason> ExplainFigure(FigureKind kind, const MetricState& metric,
                                          const RecommenderSettings& settings,
                                          std::optional<RecentValue>* set_by) {
  const FigureSettings& fs = settings.figure(kind);
  set_by->reset();
  const auto raw = Raw(metric, fs.statistic, settings.max_range_samples);
  if (!raw) return std::nullopt;
  FigureReason reason;
  reason.statistic = StatisticLabel(fs.statistic, settings.max_range_samples);
  reason.statistic_value = *raw;
  switch (fs.statistic.kind) {
    case Statistic::Kind::kMax:
      reason.source = FigureReason::Source::kMaxOfRecent;
      *set_by = metric.MaxOfRecentEntry(settings.max_range_samples);
      break;
    case Statistic::Kind::kPercentile:
      reason.source = FigureReason::Source::kPercentile;
      if (const auto bucket = metric.BucketOfPercentile(fs.statistic.quantile)) {
        reason.bucket_lower = bucket->lower;
        reason.bucket_upper = bucket->upper;
        reason.share_at_or_below = bucket->share_at_or_below;
      }
      break;
    case Statistic::Kind::kAverage:
      reason.source = FigureReason::Source::kAverage;
      break;
  }
  reason.margin = fs.margin;
  reason.with_margin = *raw * (1 + fs.margin);
  reason.rounding = RoundingOf(kind, settings.compute_ladder_step);
  reason.value = Finish(kind, reason.with_margin, settings.compute_ladder_step);
  return reason;
}

}  // namespace hwrec::internal
