// Turns one metric's history into a Figure: the configured statistic, the
// margin, ladder rounding for compute share, bounds and a confidence.
#pragma once

#include <cstdint>
#include <optional>

#include "aggregate/metric_state.h"
#include "aggregate/settings.h"
#include "hwrec/figure.h"

namespace hwrec::internal {

// Confidence of a figure: n / (n + kConfidenceHalfWeight) for the effective
// number of executions n behind it (MetricState::EffectiveSamples), scaled down
// for figures borrowed from a wider population. It measures evidence, not age:
// the figure's last_seen tells how old that evidence is.
inline constexpr double kConfidenceHalfWeight = 5.0;

Figure EstimateFigure(FigureKind kind, const MetricState& metric,
                      const RecommenderSettings& settings, Provenance provenance);

// What produced EstimateFigure's value for the same arguments: the
// statistic, the margin and the rounding (FigureReason without the execution,
// the OOM bump or the text, which ExplainedExecution and DescribeReason add).
// `*set_by` receives the recent value that set a max of last N. Nullopt when
// the figure has no value. Apart from EstimateFigure so that the estimate
// stays as cheap as it is.
std::optional<FigureReason> ExplainFigure(FigureKind kind, const MetricState& metric,
                                          const RecommenderSettings& settings,
                                          std::optional<RecentValue>* set_by);

// The figure's configured statistic of `metric`, before margin and rounding
// (what EstimateFigure scales); nullopt when the metric has no history.
std::optional<double> FigureStatistic(FigureKind kind, const MetricState& metric,
                                      const RecommenderSettings& settings);

// A figure of provenance kTransferred: transfer.estimate times the figure's
// margin and exp(transfer_spread_margin x transfer.spread), rounded as any
// figure; confidence workloads / (workloads + kConfidenceHalfWeight) x
// exp(-spread), halved as a borrowed figure. With `explain`, the reason's
// numbers (its text is DescribeTransfer's, figure_reason.h).
Figure TransferredFigure(FigureKind kind, const FigureTransfer& transfer,
                         const RecommenderSettings& settings, bool explain);

// GPU memory and compute share: figures of a card, not of an instance type.
inline bool IsGpuFigure(FigureKind kind) {
  return kind == FigureKind::kGpuMemoryGb || kind == FigureKind::kGpuComputeFraction;
}

// A figure with no history.
Figure EmptyFigure(FigureKind kind, const RecommenderSettings& settings);

// Rounds a compute share up to the ladder step, within (0, 1].
double RoundToLadder(double share, double step);

}  // namespace hwrec::internal
