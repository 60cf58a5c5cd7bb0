// The backtest as one self-contained HTML page (`hwrec report --html`):
// inline SVG and CSS, no script, no font or image from the network, so it
// opens from a file in any browser and can be mailed or archived as is.
#pragma once

#include <cstddef>
#include <string>

#include "hwrec/backtest.h"
#include "hwrec/export.h"

namespace hwrec {

// At most this many executions are drawn in a panel: every overrun and OOM,
// and an even spread of the rest. Replay with it as points_per_series.
inline constexpr std::size_t kReportPointsPerPanel = 2000;

struct HWREC_EXPORT BacktestReportOptions {
  std::string title = "hwrec backtest";
  std::string store;        // the store's path or URI without its password, shown in the header
  double generated_at = 0;  // epoch seconds, shown in the header
};

// The page for `result`, whose runs were made with keep_points: first an
// overview of every (workload, hardware key) of the first run, worst first
// (the larger overrun share over all its figures, then the more mean slack),
// each row linking to its chart (a section with a stable id, "key-" and the
// workload and key slugged); then one chart per (workload, hardware key) of
// the first run's series, a panel per figure with the observed values over
// time, the figure and its bounds as the replay gave them, overruns and OOMs
// marked; then the table of the runs (the store's settings and each preset)
// side by side.
HWREC_EXPORT std::string RenderBacktestReport(const BacktestResult& result,
                                              const BacktestReportOptions& options);

// How many charts that page has: the (workload, hardware key) pairs of the
// first run's series.
HWREC_EXPORT std::size_t CountReportCharts(const BacktestResult& result);

}  // namespace hwrec
