// The part of a figure's explanation that needs the execution behind it: the
// OOM bump it got, and the one line a person reads. The statistic, margin and
// rounding come from ExplainFigure (recommend/estimator.h).
#pragma once

#include <optional>
#include <string>

#include "aggregate/metric_state.h"
#include "aggregate/settings.h"
#include "hwrec/figure.h"
#include "hwrec/observation.h"

namespace hwrec::internal {

// The execution that set a figure's max, as the observations table holds it.
struct ExplainedExecution {
  std::string execution_id;
  double finished_at = 0;
  ExecutionStatus status = ExecutionStatus::kSuccess;
  // Of the figure's resource (memory bytes, GPU memory GiB); nullopt when not recorded.
  std::optional<double> requested;
  std::optional<double> observed;
};

// Whether an execution of `status` had its `kind` value bumped as an OOM.
bool BumpedAsOom(FigureKind kind, ExecutionStatus status);

// Fills in `reason` (from ExplainFigure) the execution that set its max
// (`execution`, nullopt when it is no longer stored; `set_by` is the recent
// value it set) with its OOM bump, then the text.
void CompleteReason(FigureKind kind, const RecommenderSettings& settings,
                    const std::optional<RecentValue>& set_by,
                    const std::optional<ExplainedExecution>& execution, FigureReason* reason);

// The text of a transferred figure's reason (TransferredFigure with
// `explain`): where it was learned, the factor and the workloads behind it,
// the margin for the factor's spread, the rounding. `hardware` is the key
// asked for; the text names its card (GPU figures) or instance type.
void DescribeTransfer(FigureKind kind, const HardwareKey& hardware, const FigureTransfer& transfer,
                      FigureReason* reason);

// "NVIDIA A100 80GB" for a card, the instance type for an instance type.
std::string KeyText(const HardwareKey& key);

}  // namespace hwrec::internal
