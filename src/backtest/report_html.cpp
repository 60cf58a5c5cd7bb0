// The backtest as one HTML page: a header saying what was replayed, a chart
// per (workload, hardware key) of the first run with the runs' totals for that
// key beneath it, then every run's totals side by side and what each run is.
// Inline CSS and SVG only: no script, font, image or address to fetch.
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "backtest/report_chart.h"
#include "base/time.h"
#include "hwrec/backtest_report.h"

namespace hwrec {

namespace {

using internal::DisplayOf;
using internal::EscapeHtml;

constexpr const char* kStyle = R"(
body{margin:0;background:#ffffff;color:#1b1f24;font:15px/1.45 "DejaVu Sans",Verdana,sans-serif}
main{max-width:1100px;margin:0 auto;padding:16px 20px 40px}
h1{font-size:24px;margin:8px 0 4px}
h2{font-size:18px;margin:28px 0 2px;overflow-wrap:anywhere}
.meta,.hw{color:#44505f;margin:2px 0}
.note{background:#fff7e0;border-left:4px solid #e0a800;padding:6px 10px}
.empty{font-size:18px;padding:24px 0}
.wrap{overflow-x:auto}
svg.chart{display:block;width:100%;min-width:560px;height:auto;margin:8px 0}
table{border-collapse:collapse;margin:8px 0;font-size:14px}
th,td{padding:3px 10px;border-bottom:1px solid #dde3ea;text-align:right;white-space:nowrap}
th{background:#f3f5f8}
td.name,th.name{text-align:left}
tr.first td{border-top:2px solid #b8c2cf}
dt{font-weight:bold;margin-top:10px}
dd{margin:2px 0 0 18px}
code{font-size:13px;overflow-wrap:anywhere}
)";

template <typename... Args>
void Append(std::string* out, fmt::format_string<Args...> format, Args&&... args) {
  fmt::format_to(std::back_inserter(*out), format, std::forward<Args>(args)...);
}

std::string UtcText(double epoch_seconds) {
  std::string text = internal::FormatRfc3339(epoch_seconds);
  if (text.size() >= 16 && text[10] == 'T') text = text.substr(0, 10) + " " + text.substr(11, 5);
  return text + " UTC";
}

std::string Percent(double share) { return fmt::format("{:.1f} %", share * 100); }

// One row of totals: what `run` counted for `figure` (nullopt: every figure).
void AppendTotalsRow(const std::string& figure_cell, const std::string& run,
                     const BacktestTotals& t, const char* over_unit, bool first, std::string* out) {
  const bool scored = t.scored > 0;
  Append(out,
         "<tr{}><td class=\"name\">{}</td><td class=\"name\">{}</td><td>{}</td><td>{}</td>"
         "<td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
         first ? " class=\"first\"" : "", figure_cell, EscapeHtml(run), t.scored, t.cold,
         t.overruns, scored ? Percent(t.overrun_share) : "–", scored ? Percent(t.mean_slack) : "–",
         over_unit != nullptr && t.with_duration > 0
             ? fmt::format("{} {}", internal::ValueText(t.over_provisioned), over_unit)
             : std::string("–"));
}

constexpr const char* kTotalsHead =
    "<div class=\"wrap\"><table><tr><th class=\"name\">figure</th><th class=\"name\">run</th>"
    "<th>scored</th><th>cold</th><th>overruns</th><th>overrun share</th><th>mean slack</th>"
    "<th>over-provisioned</th></tr>";

std::string FigureCell(FigureKind kind) {
  return fmt::format("{} <code>{}</code>", EscapeHtml(DisplayOf(kind).title), ToString(kind));
}

// Identifies one (workload, hardware key, figure) across runs.
using SeriesId = std::tuple<std::string, std::optional<std::string>, std::optional<std::string>,
                            std::optional<std::string>, bool, int>;
SeriesId IdOf(const BacktestSeries& s) {
  return {s.workload,           s.hardware.gpu_brand,
          s.hardware.gpu_model, s.hardware.instance_type,
          s.hardware.cpu_only,  static_cast<int>(s.figure)};
}

// Every run's series, by id, for the tables beneath the charts.
std::vector<std::map<SeriesId, const BacktestSeries*>> IndexRuns(const BacktestResult& result) {
  std::vector<std::map<SeriesId, const BacktestSeries*>> index(result.runs.size());
  for (std::size_t r = 0; r < result.runs.size(); ++r) {
    for (const BacktestSeries& s : result.runs[r].series) index[r].emplace(IdOf(s), &s);
  }
  return index;
}

// The series of the first run, grouped by (workload, hardware key) in order;
// a series that observed nothing (a GPU figure on a CPU-only key) has no panel.
std::vector<std::vector<const BacktestSeries*>> ChartGroups(const BacktestRun& run) {
  std::vector<std::vector<const BacktestSeries*>> groups;
  for (const BacktestSeries& s : run.series) {
    if (s.points.empty() && s.totals.scored == 0 && s.totals.cold == 0) continue;
    if (groups.empty() || groups.back().front()->workload != s.workload ||
        !(groups.back().front()->hardware == s.hardware)) {
      groups.emplace_back();
    }
    groups.back().push_back(&s);
  }
  return groups;
}

void AppendChartSection(const std::vector<const BacktestSeries*>& group,
                        const BacktestResult& result,
                        const std::vector<std::map<SeriesId, const BacktestSeries*>>& index,
                        bool* thinned, std::string* out) {
  const BacktestSeries& first = *group.front();
  std::optional<double> from, to;
  std::size_t executions = 0;
  for (const BacktestSeries* s : group) {
    executions = std::max(executions, s->points.size());
    for (const BacktestPoint& p : s->points) {
      from = std::min(from.value_or(p.started_at), p.started_at);
      to = std::max(to.value_or(p.started_at), p.started_at);
    }
  }
  Append(out, "<section class=\"key\"><h2>{}</h2><p class=\"hw\">{}", EscapeHtml(first.workload),
         EscapeHtml(Describe(first.hardware)));
  if (from) {
    Append(out, " · {} execution{} started from {} to {}", executions, executions == 1 ? "" : "s",
           UtcText(*from), UtcText(*to));
  }
  *out += "</p>";
  Append(out, "<div class=\"wrap\">{}</div>", internal::RenderChart(group, thinned));
  if (result.runs.size() > 1) {
    *out += kTotalsHead;
    for (const BacktestSeries* s : group) {
      for (std::size_t r = 0; r < result.runs.size(); ++r) {
        const auto found = index[r].find(IdOf(*s));
        if (found == index[r].end()) continue;
        AppendTotalsRow(r == 0 ? FigureCell(s->figure) : "", result.runs[r].name,
                        found->second->totals, DisplayOf(s->figure).over_unit, r == 0, out);
      }
    }
    *out += "</table></div>";
  }
  *out += "</section>";
}

void AppendRunsTable(const BacktestResult& result, std::string* out) {
  Append(out,
         "<section class=\"runs\"><h2>The runs side by side</h2><p class=\"meta\">Over "
         "every chart above: shares of the scored executions; mean slack over those that "
         "fit; over-provisioned over those whose duration is known.</p>");
  *out += kTotalsHead;
  for (std::size_t f = 0; f < kFigureCount; ++f) {
    const auto kind = static_cast<FigureKind>(f);
    bool first = true;
    for (const BacktestRun& run : result.runs) {
      for (const auto& [figure, totals] : run.figures) {
        if (figure != kind) continue;
        AppendTotalsRow(first ? FigureCell(kind) : "", run.name, totals, DisplayOf(kind).over_unit,
                        first, out);
        first = false;
      }
    }
  }
  bool first = true;
  for (const BacktestRun& run : result.runs) {
    AppendTotalsRow(first ? "every figure" : "", run.name, run.total, nullptr, first, out);
    first = false;
  }
  *out += "</table></div></section>";
}

void AppendRunDescriptions(const BacktestResult& result, std::string* out) {
  *out += "<section class=\"about\"><h2>What each run is</h2><dl>";
  for (const BacktestRun& run : result.runs) {
    Append(out, "<dt>{}</dt>", EscapeHtml(run.name));
    if (const BacktestPreset* preset = FindBacktestPreset(run.name)) {
      Append(out, "<dd>{}</dd><dd>Source: {}</dd>", EscapeHtml(preset->description),
             EscapeHtml(preset->source));
    } else {
      *out +=
          "<dd>The store's own estimator settings (<code>hwrec config list</code>), with "
          "the overrides given.</dd>";
    }
    if (!run.settings.empty()) {
      *out += "<dd>Settings: <code>";
      for (std::size_t i = 0; i < run.settings.size(); ++i) {
        Append(out, "{}{}={}", i == 0 ? "" : ", ", EscapeHtml(run.settings[i].first),
               EscapeHtml(run.settings[i].second));
      }
      *out += "</code></dd>";
    }
  }
  *out += "</dl></section>";
}

}  // namespace

std::size_t CountReportCharts(const BacktestResult& result) {
  return result.runs.empty() ? 0 : ChartGroups(result.runs.front()).size();
}

std::string RenderBacktestReport(const BacktestResult& result,
                                 const BacktestReportOptions& options) {
  std::string body;
  const auto groups = result.runs.empty() ? std::vector<std::vector<const BacktestSeries*>>()
                                          : ChartGroups(result.runs.front());
  bool thinned = false;
  const auto index = IndexRuns(result);
  for (const auto& group : groups) AppendChartSection(group, result, index, &thinned, &body);
  if (groups.empty()) {
    body +=
        "<p class=\"empty\">Nothing to show: the backtest has no execution to chart for the "
        "filters given (no workload on the hardware keys asked for, or no observed value of "
        "the figures asked for).</p>";
  }
  if (!result.runs.empty()) {
    AppendRunsTable(result, &body);
    AppendRunDescriptions(result, &body);
  }

  std::string page;
  Append(&page,
         "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta "
         "name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{0}</title>"
         "<style>{1}</style></head><body><main><h1>{0}</h1>",
         EscapeHtml(options.title), kStyle);
  std::string runs;
  for (const BacktestRun& run : result.runs) runs += (runs.empty() ? "" : ", ") + run.name;
  Append(&page, "<p class=\"meta\">{}{} executions replayed · {} chart{} · runs: {}{}</p>",
         options.store.empty() ? "" : "Store " + EscapeHtml(options.store) + " · ",
         result.executions, groups.size(), groups.size() == 1 ? "" : "s",
         runs.empty() ? "none" : EscapeHtml(runs),
         options.generated_at > 0 ? " · generated " + UtcText(options.generated_at) : "");
  Append(&page,
         "<p class=\"meta\">Each execution is sized by the figure the store would have "
         "given for its hardware key as of its start, from the executions that had "
         "finished by then. Sizes in GiB, CPU in cores, compute share as a fraction of "
         "one card; times in UTC.</p>");
  if (thinned) {
    Append(&page,
           "<p class=\"note\">Some panels have more than {} executions: they draw every "
           "overrun and OOM and an even spread of the rest (their headings say how many); "
           "the totals count them all.</p>",
           internal::kMaxPointsPerPanel);
  }
  page += body;
  page += "</main></body></html>\n";
  return page;
}

}  // namespace hwrec
