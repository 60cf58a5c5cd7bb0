// The chart of one (workload, hardware key) in the backtest report: a panel
// per figure with the observed values over time, the figure as the replay
// gave it (a step line) and its bounds (a band), overruns, OOMs and cold
// executions marked; one shared time axis in UTC. Inline SVG, no script.
#include "backtest/report_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <optional>

#include "base/time.h"
#include "recommend/estimator.h"

namespace hwrec::internal {

namespace {

// Geometry, in viewBox units; the page scales the chart to its width.
constexpr double kWidth = 1000;
constexpr double kLegendHeight = 34;
constexpr double kPanelHeight = 196;
constexpr double kPlotLeft = 76;  // 0..16 stays empty: the chart's own band
constexpr double kPlotRight = 984;
constexpr double kPlotTop = 28;  // within a panel
constexpr double kPlotHeight = 130;

// Colours, shared with the page's legend and the screenshot test.
constexpr const char* kChartBackground = "#eef2f8";
constexpr const char* kObservedColour = "#4d4d4d";
constexpr const char* kFigureColour = "#1f6fd1";
constexpr const char* kOverrunColour = "#d62728";
constexpr const char* kOomColour = "#7b1fa2";
constexpr const char* kColdColour = "#8a8a8a";
constexpr const char* kTransferColour = "#00897b";

template <typename... Args>
void Append(std::string* out, fmt::format_string<Args...> format, Args&&... args) {
  fmt::format_to(std::back_inserter(*out), format, std::forward<Args>(args)...);
}

// A round step so that about `target` of them span `range`: 1, 2, 2.5 or 5 × 10^k.
double NiceStep(double range, double target) {
  const double raw = range / target;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 2.5, 5.0}) {
    if (m * magnitude >= raw) return m * magnitude;
  }
  return 10 * magnitude;
}

// Decimals a tick label needs at `step`.
int DecimalsFor(double step) {
  int decimals = 0;
  while (decimals < 6 && std::fabs(step * std::pow(10.0, decimals) -
                                   std::round(step * std::pow(10.0, decimals))) > 1e-6) {
    ++decimals;
  }
  return decimals;
}

// Time ticks: the smallest round step that gives at most 7 ticks.
double TimeStep(double range) {
  constexpr double kHour = 3600, kDay = 86400;
  for (double step : {60.0, 300.0, 900.0, 1800.0, kHour, 3 * kHour, 6 * kHour, 12 * kHour, kDay,
                      2 * kDay, 7 * kDay, 14 * kDay, 30 * kDay, 91 * kDay, 365 * kDay}) {
    if (range / step <= 7) return step;
  }
  return std::ceil(range / 7 / (365 * kDay)) * 365 * kDay;
}

std::string TimeLabel(double t, double step) {
  std::string text = FormatRfc3339(t);  // 2026-11-28T08:41:23Z
  if (text.size() < 16) return text;
  if (step >= 86400) return text.substr(0, 10);
  return text.substr(5, 5) + " " + text.substr(11, 5);
}

// Points every panel draws however many it has: overruns, OOMs, transfers.
bool AlwaysDrawn(const BacktestPoint& p) { return p.overrun || p.oom || p.transferred; }

// The executions a panel draws: all of them, or when there are too many,
// every overrun, OOM and transferred figure and an even spread of the rest.
std::vector<const BacktestPoint*> DrawnPoints(const std::vector<BacktestPoint>& points) {
  std::vector<const BacktestPoint*> drawn;
  const auto marked =
      static_cast<std::size_t>(std::count_if(points.begin(), points.end(), AlwaysDrawn));
  const std::size_t others = points.size() - marked;
  const std::size_t budget = kMaxPointsPerPanel > marked ? kMaxPointsPerPanel - marked : 0;
  std::size_t other = 0;
  for (const BacktestPoint& p : points) {
    if (AlwaysDrawn(p) || points.size() <= kMaxPointsPerPanel) {
      drawn.push_back(&p);
      continue;
    }
    // Keeps `budget` of the `others`, evenly: the j-th when j·budget/others steps.
    if ((other * budget) / others != ((other + 1) * budget) / others) drawn.push_back(&p);
    ++other;
  }
  return drawn;
}

struct TimeAxis {
  double start = 0;
  double end = 1;
  double x(double t) const {
    return kPlotLeft + (t - start) / (end - start) * (kPlotRight - kPlotLeft);
  }
};

struct ValueAxis {
  double top = 1;  // the value at the top of the plot
  double step = 0.25;
  double scale = 1;
  double plot_y = 0;  // the plot's top edge in the chart
  double y(double raw) const {
    return plot_y + kPlotHeight - std::clamp(raw * scale / top, 0.0, 1.0) * kPlotHeight;
  }
};

ValueAxis AxisFor(const BacktestSeries& series, double plot_y) {
  const FigureDisplay& display = DisplayOf(series.figure);
  double high = 0;
  for (const BacktestPoint& p : series.points) {
    high = std::max({high, p.observed, p.recommended.value_or(0), p.upper.value_or(0)});
  }
  ValueAxis axis;
  axis.scale = display.scale;
  axis.plot_y = plot_y;
  const double top = std::isfinite(high) && high > 0 ? high * display.scale * 1.08 : 1;
  axis.step = NiceStep(top, 4);
  axis.top = std::ceil(top / axis.step - 1e-9) * axis.step;
  return axis;
}

// A step line through (x, value) pairs, each value held until the next x;
// the last to `x_end`. Empty values break the line.
std::string StepPath(const std::vector<std::pair<double, std::optional<double>>>& steps,
                     double x_end) {
  std::string path;
  bool open = false;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const auto& [x, y] = steps[i];
    if (!y) {
      open = false;
      continue;
    }
    const double next = i + 1 < steps.size() ? steps[i + 1].first : x_end;
    if (!open) {
      Append(&path, "M{:.1f} {:.1f}", x, *y);
    } else {
      Append(&path, "V{:.1f}", *y);
    }
    Append(&path, "H{:.1f}", std::max(next, x + 1.5));
    open = true;
  }
  return path;
}

// The band between lower and upper bounds, one closed shape per run of
// executions that have both.
std::string BandPath(const std::vector<const BacktestPoint*>& drawn, const TimeAxis& time,
                     const ValueAxis& value, double x_end) {
  std::string path;
  std::size_t i = 0;
  while (i < drawn.size()) {
    if (!drawn[i]->lower || !drawn[i]->upper) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < drawn.size() && drawn[j]->lower && drawn[j]->upper) ++j;
    std::string lower_back;
    for (std::size_t k = i; k < j; ++k) {
      const double x0 = time.x(drawn[k]->started_at);
      const double x1 =
          std::max(k + 1 < drawn.size() ? time.x(drawn[k + 1]->started_at) : x_end, x0 + 1.5);
      const double up = value.y(*drawn[k]->upper);
      const double low = value.y(*drawn[k]->lower);
      Append(&path, "{}{:.1f} {:.1f}L{:.1f} {:.1f}", k == i ? "M" : "L", x0, up, x1, up);
      lower_back.insert(0, fmt::format("L{:.1f} {:.1f}L{:.1f} {:.1f}", x1, low, x0, low));
    }
    path += lower_back + "Z";
    i = j;
  }
  return path;
}

// The legend across the top of a chart: each mark with its words, laid out
// left to right (about 7 units per character at this size).
void AppendLegend(std::string* out) {
  constexpr double y = 20;
  struct Entry {
    const char* mark;  // an SVG element at x = 0, translated into place
    double mark_width;
    const char* words;
  };
  const std::string dot =
      fmt::format("<circle cx=\"3\" cy=\"{}\" r=\"3\" fill=\"{}\"/>", y - 4, kObservedColour);
  const std::string line =
      fmt::format("<path d=\"M0 {}h22\" stroke=\"{}\" stroke-width=\"2\"/>", y - 4, kFigureColour);
  const std::string band =
      fmt::format("<rect y=\"{}\" width=\"22\" height=\"10\" fill=\"{}\" fill-opacity=\"0.18\"/>",
                  y - 9, kFigureColour);
  const std::string overrun =
      fmt::format("<circle cx=\"4.5\" cy=\"{}\" r=\"4.5\" fill=\"{}\"/>", y - 4, kOverrunColour);
  const std::string oom = fmt::format(
      "<path d=\"M0 {}l9 9m0 -9l-9 9\" stroke=\"{}\" stroke-width=\"2.5\"/>", y - 8.5, kOomColour);
  const std::string cold = fmt::format(
      "<circle cx=\"4\" cy=\"{}\" r=\"3.5\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\"/>",
      y - 4, kColdColour);
  const std::string transferred = fmt::format(
      "<path d=\"M5 {}l5 5l-5 5l-5 -5z\" fill=\"none\" stroke=\"{}\" "
      "stroke-width=\"1.5\"/>",
      y - 9, kTransferColour);
  const Entry entries[] = {
      {dot.c_str(), 6, "observed"},
      {line.c_str(), 22, "figure as replayed"},
      {band.c_str(), 22, "bounds"},
      {overrun.c_str(), 9, "overrun: used more than the figure"},
      {oom.c_str(), 9, "OOM"},
      {cold.c_str(), 8, "cold: no figure yet"},
      {transferred.c_str(), 10, "transferred"},
  };
  Append(out, "<g class=\"legend\" font-size=\"12\">");
  double x = 24;
  for (const Entry& e : entries) {
    Append(out, "<g transform=\"translate({:.0f} 0)\">{}</g><text x=\"{:.0f}\" y=\"{}\">{}</text>",
           x, e.mark, x + e.mark_width + 6, y, e.words);
    x += e.mark_width + 6 + 7.0 * static_cast<double>(std::string_view(e.words).size()) + 16;
  }
  Append(out, "</g>");
}

std::string PanelSummary(const BacktestSeries& series, std::size_t drawn) {
  const BacktestTotals& t = series.totals;
  std::string text = fmt::format("{} scored · {} cold · {} overrun{}", t.scored, t.cold, t.overruns,
                                 t.overruns == 1 ? "" : "s");
  if (t.scored > 0) {
    text +=
        fmt::format(" ({:.1f} %) · mean slack {:.1f} %", t.overrun_share * 100, t.mean_slack * 100);
  }
  if (t.new_card > 0) {
    text += fmt::format(" · {} first on this {}", t.new_card,
                        IsGpuFigure(series.figure) ? "card" : "instance type");
    if (t.transferred > 0) text += fmt::format(" ({} transferred)", t.transferred);
  }
  const auto executions = static_cast<std::size_t>(t.scored + t.cold);
  if (drawn < executions) {
    text += fmt::format(" · {} of {} executions drawn (every overrun and OOM)", drawn, executions);
  }
  return text;
}

void AppendAxes(const BacktestSeries& series, const TimeAxis& time, const ValueAxis& value,
                std::string* out) {
  const FigureDisplay& display = DisplayOf(series.figure);
  const double bottom = value.plot_y + kPlotHeight;
  Append(out,
         "<rect x=\"{}\" y=\"{:.1f}\" width=\"{}\" height=\"{}\" fill=\"#ffffff\" "
         "stroke=\"#c9d1dd\"/>",
         kPlotLeft, value.plot_y, kPlotRight - kPlotLeft, kPlotHeight);
  const int decimals = DecimalsFor(value.step);
  Append(out, "<g font-size=\"11\" fill=\"#333333\">");
  for (double v = 0; v <= value.top + value.step / 2; v += value.step) {
    const double y = value.y(v / value.scale);
    Append(out, "<path d=\"M{} {:.1f}H{}\" stroke=\"#e3e7ee\"/>", kPlotLeft, y, kPlotRight);
    Append(out, "<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{:.{}f}</text>", kPlotLeft - 6,
           y + 4, v, decimals);
  }
  const double step = TimeStep(time.end - time.start);
  for (double t = std::ceil(time.start / step) * step; t <= time.end; t += step) {
    const double x = time.x(t);
    Append(out, "<path d=\"M{:.1f} {:.1f}v5\" stroke=\"#666666\"/>", x, bottom);
    Append(out, "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>", x, bottom + 17,
           TimeLabel(t, step));
  }
  Append(out, "<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">start (UTC)</text>", kPlotRight,
         bottom + 31);
  Append(out,
         "<text transform=\"translate(30 {:.1f}) rotate(-90)\" text-anchor=\"middle\">{}"
         "</text></g>",
         value.plot_y + kPlotHeight / 2, EscapeHtml(display.unit));
}

void AppendMarks(const std::vector<const BacktestPoint*>& drawn, const BacktestSeries& series,
                 const TimeAxis& time, const ValueAxis& value, std::string* out) {
  const FigureDisplay& display = DisplayOf(series.figure);
  std::string fits, cold;
  for (const BacktestPoint* p : drawn) {
    const double x = time.x(p->started_at);
    const double y = value.y(p->observed);
    if (!p->recommended) {
      Append(&cold, "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\"/>", x, y);
    } else if (!p->overrun && !p->oom) {
      Append(&fits, "M{:.1f} {:.1f}h0", x, y);
    }
  }
  // Fitting executions as one path of round dots: small even with 2000 of them.
  Append(out, "<path d=\"{}\" stroke=\"{}\" stroke-width=\"4.5\" stroke-linecap=\"round\"/>", fits,
         kObservedColour);
  Append(out, "<g fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\">{}</g>", kColdColour, cold);
  // A transferred figure's execution: a diamond around it, saying from where.
  for (const BacktestPoint* p : drawn) {
    if (!p->transferred || !p->recommended) continue;
    Append(out,
           "<path class=\"transferred\" d=\"M{:.1f} {:.1f}l7 7l-7 7l-7 -7z\" fill=\"none\" "
           "stroke=\"{}\" stroke-width=\"1.5\"><title>{} at {}: figure {} {} transferred from "
           "the workload's history on other hardware</title></path>",
           time.x(p->started_at), value.y(p->observed) - 7, kTransferColour,
           EscapeHtml(p->execution_id), FormatRfc3339(p->started_at),
           ValueText(*p->recommended * display.scale), EscapeHtml(display.unit));
  }
  for (const BacktestPoint* p : drawn) {
    if (!p->overrun && !p->oom) continue;
    const double x = time.x(p->started_at);
    const double y = value.y(p->observed);
    const std::string tip = fmt::format(
        "{} at {}: {} {} {}{}{}", EscapeHtml(p->execution_id), FormatRfc3339(p->started_at),
        // An OOM's value is the need its request bumped to, not a measured use.
        p->oom ? "needed" : "used", ValueText(p->observed * display.scale),
        EscapeHtml(display.unit),
        p->recommended ? fmt::format(", figure {} {}", ValueText(*p->recommended * display.scale),
                                     EscapeHtml(display.unit))
                       : std::string(),
        p->oom ? " (an OOM: its request bumped)" : "");
    if (p->oom) {
      Append(out,
             "<path class=\"oom\" d=\"M{:.1f} {:.1f}l9 9m0 -9l-9 9\" stroke=\"{}\" "
             "stroke-width=\"2.5\"><title>{}</title></path>",
             x - 4.5, y - 4.5, kOomColour, tip);
    } else {
      Append(out,
             "<circle class=\"overrun\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4.5\" fill=\"{}\">"
             "<title>{}</title></circle>",
             x, y, kOverrunColour, tip);
    }
  }
}

void AppendPanel(const BacktestSeries& series, const TimeAxis& time, double top, bool* thinned,
                 std::string* out) {
  const FigureDisplay& display = DisplayOf(series.figure);
  const std::vector<const BacktestPoint*> drawn = DrawnPoints(series.points);
  if (drawn.size() < static_cast<std::size_t>(series.totals.scored + series.totals.cold)) {
    *thinned = true;
  }
  Append(out,
         "<g class=\"panel\"><text x=\"{}\" y=\"{:.1f}\" font-size=\"13\"><tspan "
         "font-weight=\"bold\">{} ({})</tspan> <tspan fill=\"#555555\">{} · {}</tspan></text>",
         kPlotLeft, top + 18, EscapeHtml(display.title), EscapeHtml(display.unit),
         ToString(series.figure), EscapeHtml(PanelSummary(series, drawn.size())));
  const ValueAxis value = AxisFor(series, top + kPlotTop);
  AppendAxes(series, time, value, out);
  if (series.points.empty()) {
    Append(out,
           "<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"middle\" fill=\"#555555\">no "
           "executions kept: the backtest ran without its points</text></g>",
           (kPlotLeft + kPlotRight) / 2, value.plot_y + kPlotHeight / 2);
    return;
  }
  std::vector<std::pair<double, std::optional<double>>> steps;
  steps.reserve(drawn.size());
  for (const BacktestPoint* p : drawn) {
    steps.emplace_back(time.x(p->started_at), p->recommended
                                                  ? std::optional<double>(value.y(*p->recommended))
                                                  : std::nullopt);
  }
  Append(out, "<path d=\"{}\" fill=\"{}\" fill-opacity=\"0.18\"/>",
         BandPath(drawn, time, value, kPlotRight), kFigureColour);
  Append(out, "<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>",
         StepPath(steps, kPlotRight), kFigureColour);
  AppendMarks(drawn, series, time, value, out);
  Append(out, "</g>");
}

TimeAxis TimeAxisOf(const std::vector<const BacktestSeries*>& series) {
  std::optional<double> first, last;
  for (const BacktestSeries* s : series) {
    for (const BacktestPoint& p : s->points) {
      if (!std::isfinite(p.started_at)) continue;
      first = std::min(first.value_or(p.started_at), p.started_at);
      last = std::max(last.value_or(p.started_at), p.started_at);
    }
  }
  TimeAxis axis;
  axis.start = first.value_or(0);
  axis.end = last.value_or(0);
  const double pad = std::max((axis.end - axis.start) * 0.02, 60.0);
  axis.start -= pad;
  axis.end += pad;
  return axis;
}

}  // namespace

std::string RenderChart(const std::vector<const BacktestSeries*>& series, bool* thinned) {
  const TimeAxis time = TimeAxisOf(series);
  const double height = kLegendHeight + static_cast<double>(series.size()) * kPanelHeight + 8;
  std::string out;
  Append(&out,
         "<svg class=\"chart\" viewBox=\"0 0 {} {}\" role=\"img\" "
         "font-family=\"DejaVu Sans, Verdana, sans-serif\">",
         kWidth, height);
  Append(&out, "<rect width=\"{}\" height=\"{}\" fill=\"{}\"/>", kWidth, height, kChartBackground);
  AppendLegend(&out);
  for (std::size_t i = 0; i < series.size(); ++i) {
    AppendPanel(*series[i], time, kLegendHeight + static_cast<double>(i) * kPanelHeight, thinned,
                &out);
  }
  out += "</svg>";
  return out;
}

}  // namespace hwrec::internal
