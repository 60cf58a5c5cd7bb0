// The backtest as one HTML page: a header saying what was replayed, an
// overview of every (workload, hardware key) worst first, linked to its chart,
// then a chart per key of the first run with the runs' totals for that key
// beneath it, then every run's totals side by side and what each run is.
// Inline CSS and SVG only: no script, font, image or address to fetch.
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <set>
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
td.key a{color:#1f6fd1}
td.key{text-align:left;white-space:normal;overflow-wrap:anywhere}
td.key span{display:block;color:#44505f}
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

// `text` as a fragment of an id: ASCII letters (lower case) and digits, every
// run of anything else one '-', none at either end.
std::string Slug(const std::string& text) {
  std::string slug;
  for (const char c : text) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (plain || (c >= 'A' && c <= 'Z')) {
      slug += plain ? c : static_cast<char>(c - 'A' + 'a');
    } else if (!slug.empty() && slug.back() != '-') {
      slug += '-';
    }
  }
  if (!slug.empty() && slug.back() == '-') slug.pop_back();
  return slug;
}

// Each chart's id, "key-<workload>--<hardware>" slugged: the same for the same
// result, and distinct (a name that slugs as an earlier one's gets "-2", "-3" …).
std::vector<std::string> KeyAnchors(const std::vector<std::vector<const BacktestSeries*>>& groups) {
  std::vector<std::string> anchors;
  std::set<std::string> used;
  for (const auto& group : groups) {
    const BacktestSeries& first = *group.front();
    const std::string base = "key-" + Slug(first.workload) + "--" + Slug(Describe(first.hardware));
    std::string anchor = base;
    for (int n = 2; used.count(anchor) > 0; ++n) anchor = fmt::format("{}-{}", base, n);
    used.insert(anchor);
    anchors.push_back(anchor);
  }
  return anchors;
}

// One key of the overview: its figures' totals of the first run together.
struct KeyOverview {
  const BacktestSeries* first = nullptr;
  std::string anchor;
  std::int64_t executions = 0;                   // the most any one figure scored
  BacktestTotals pooled;                         // every figure: each (execution, figure) pair once
  const BacktestSeries* most_overrun = nullptr;  // the figure with the largest share, if any
};

KeyOverview OverviewOf(const std::vector<const BacktestSeries*>& group, std::string anchor) {
  KeyOverview key{group.front(), std::move(anchor), 0, {}, nullptr};
  double slack = 0;
  for (const BacktestSeries* s : group) {
    const BacktestTotals& t = s->totals;
    key.executions = std::max(key.executions, t.scored);
    key.pooled.scored += t.scored;
    key.pooled.cold += t.cold;
    key.pooled.overruns += t.overruns;
    slack += t.mean_slack * static_cast<double>(t.scored - t.overruns);
    if (t.overruns > 0 &&
        (key.most_overrun == nullptr || t.overrun_share > key.most_overrun->totals.overrun_share)) {
      key.most_overrun = s;
    }
  }
  const std::int64_t fits = key.pooled.scored - key.pooled.overruns;
  if (key.pooled.scored > 0) {
    key.pooled.overrun_share =
        static_cast<double>(key.pooled.overruns) / static_cast<double>(key.pooled.scored);
  }
  if (fits > 0) key.pooled.mean_slack = slack / static_cast<double>(fits);
  return key;
}

// The overview: a row per key, worst first (the larger overrun share, then the
// more slack; keys with nothing scored last), each linking to its chart.
void AppendOverview(const std::vector<std::vector<const BacktestSeries*>>& groups,
                    const std::vector<std::string>& anchors, const std::string& run,
                    std::string* out) {
  std::vector<KeyOverview> keys;
  for (std::size_t i = 0; i < groups.size(); ++i) keys.push_back(OverviewOf(groups[i], anchors[i]));
  std::stable_sort(keys.begin(), keys.end(), [](const KeyOverview& a, const KeyOverview& b) {
    const BacktestTotals &x = a.pooled, &y = b.pooled;
    if ((x.scored > 0) != (y.scored > 0)) return x.scored > 0;
    if (x.overrun_share != y.overrun_share) return x.overrun_share > y.overrun_share;
    return x.mean_slack > y.mean_slack;
  });
  Append(out,
         "<section class=\"overview\"><h2>Every key, worst first</h2><p class=\"meta\">A key is "
         "worse the larger its overrun share: of its executions' scored figures (every figure "
         "together, in the run <code>{}</code>), the share the execution used more of: for "
         "memory and GPU memory an OOM, for CPU throttling, for compute share a slower run. "
         "Between equal shares the larger mean slack (what the executions that fit left "
         "unused of the figure) comes first, and keys with nothing scored yet come last. "
         "Executions scored is the most that any one figure of the key scored; each workload "
         "links to its key's chart.</p>",
         EscapeHtml(run));
  *out +=
      "<div class=\"wrap\"><table><tr><th>#</th><th class=\"name\">workload on hardware key</th>"
      "<th>executions scored</th><th>overruns</th>"
      "<th>overrun share</th><th>mean slack</th><th class=\"name\">most overruns in</th></tr>";
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const KeyOverview& key = keys[i];
    const bool scored = key.pooled.scored > 0;
    const BacktestSeries* most = key.most_overrun;
    Append(out,
           "<tr><td>{}</td><td class=\"key\"><a href=\"#{}\">{}</a><span>{}</span></td>"
           "<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"name\">{}</td></tr>",
           i + 1, EscapeHtml(key.anchor), EscapeHtml(key.first->workload),
           EscapeHtml(Describe(key.first->hardware)), key.executions, key.pooled.overruns,
           scored ? Percent(key.pooled.overrun_share) : "–",
           scored ? Percent(key.pooled.mean_slack) : "–",
           most == nullptr ? std::string("–")
                           : fmt::format("{} ({})", EscapeHtml(DisplayOf(most->figure).title),
                                         Percent(most->totals.overrun_share)));
  }
  *out += "</table></div></section>";
}

void AppendChartSection(const std::vector<const BacktestSeries*>& group, const std::string& anchor,
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
  Append(out, "<section class=\"key\" id=\"{}\"><h2>{}</h2><p class=\"hw\">{}", EscapeHtml(anchor),
         EscapeHtml(first.workload), EscapeHtml(Describe(first.hardware)));
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

// The executions sized with history on other hardware only, per run and
// figure, when any was: what transfer buys shows run against run.
void AppendNewCardTable(const BacktestResult& result, std::string* out) {
  std::string rows;
  for (std::size_t f = 0; f < kFigureCount; ++f) {
    const auto kind = static_cast<FigureKind>(f);
    bool first = true;
    for (const BacktestRun& run : result.runs) {
      for (const auto& [figure, t] : run.figures) {
        if (figure != kind || t.new_card == 0) continue;
        const bool scored = t.new_card_scored > 0;
        Append(&rows,
               "<tr{}><td class=\"name\">{}</td><td class=\"name\">{}</td><td>{}</td>"
               "<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
               first ? " class=\"first\"" : "", first ? FigureCell(kind) : "", EscapeHtml(run.name),
               t.new_card, t.new_card_scored, t.transferred, t.new_card_overruns,
               scored ? Percent(static_cast<double>(t.new_card_overruns) /
                                static_cast<double>(t.new_card_scored))
                      : "–",
               scored ? Percent(t.new_card_mean_slack) : "–");
        first = false;
      }
    }
  }
  if (rows.empty()) return;
  Append(out,
         "<section class=\"new-card\"><h2>First on a new card</h2><p class=\"meta\">The "
         "executions sized while their workload had history on other hardware only: its "
         "first on a card (CPU and memory: on an instance type), counted in the tables above "
         "too. A figure whose setting allows transfer (<code>&lt;figure&gt;.transfer</code>) "
         "is transferred there from the workload's figures on its other keys (marked "
         "&#9671; in the charts); otherwise it falls back as without transfer, or stays "
         "cold.</p><div class=\"wrap\"><table><tr><th class=\"name\">figure</th>"
         "<th class=\"name\">run</th><th>executions</th><th>scored</th><th>transferred</th>"
         "<th>overruns</th><th>overrun share</th><th>mean slack</th></tr>{}</table></div>"
         "</section>",
         rows);
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
  const std::vector<std::string> anchors = KeyAnchors(groups);
  for (std::size_t i = 0; i < groups.size(); ++i) {
    AppendChartSection(groups[i], anchors[i], result, index, &thinned, &body);
  }
  if (groups.empty()) {
    body +=
        "<p class=\"empty\">Nothing to show: the backtest has no execution to chart for the "
        "filters given (no workload on the hardware keys asked for, or no observed value of "
        "the figures asked for).</p>";
  }
  if (!result.runs.empty()) {
    AppendRunsTable(result, &body);
    AppendNewCardTable(result, &body);
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
  if (!groups.empty()) AppendOverview(groups, anchors, result.runs.front().name, &page);
  page += body;
  page += "</main></body></html>\n";
  return page;
}

}  // namespace hwrec
