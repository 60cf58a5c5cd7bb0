// The pieces of the backtest report (report_html.cpp): how a figure is shown
// (its unit and scale), hardware keys and numbers as text, HTML escaping, and
// the inline SVG chart of one (workload, hardware key). Pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "hwrec/backtest.h"
#include "hwrec/backtest_report.h"

namespace hwrec::internal {

// At most this many executions are drawn per panel; overruns and OOMs always are.
inline constexpr std::size_t kMaxPointsPerPanel = kReportPointsPerPanel;

// How one figure is shown: values times `scale`, in `unit`.
struct FigureDisplay {
  const char* title;            // "GPU memory"
  const char* unit;             // "GiB"
  double scale;                 // 1 / 2^30 for bytes to GiB
  const char* over_unit;        // what over_provisioned is in: "GiB·h"
  const char* overrun_meaning;  // what an overrun is for this figure, in words
};
const FigureDisplay& DisplayOf(FigureKind kind);

// `text` as HTML character data or a quoted attribute value: markup
// characters as entities, control characters and invalid UTF-8 as U+FFFD,
// characters that are invisible or reorder text (bidirectional overrides,
// zero-width spaces) as `\u202e`, as the CLI shows them.
std::string EscapeHtml(std::string_view text);

// A number for a label: up to 4 significant digits, no exponent for
// everyday sizes ("35.2", "0.35", "1200").
std::string ValueText(double value);

// One chart: the series of one workload on one hardware key (the same
// workload and key, one figure each), as an <svg class="chart">. `thinned`
// is set when some panel drew fewer executions than it has.
std::string RenderChart(const std::vector<const BacktestSeries*>& series, bool* thinned);

}  // namespace hwrec::internal
