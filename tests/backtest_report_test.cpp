// The backtest report page (hwrec::RenderBacktestReport) on hand-built
// results: self-contained, one chart per (workload, hardware key), user text
// escaped, units, legend and marks present, big series thinned.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "backtest_sample.h"
#include "hwrec/backtest_report.h"

using Catch::Contains;
using hwrec::BacktestResult;
using hwrec::RenderBacktestReport;

namespace {

std::size_t Count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

std::string Page(const BacktestResult& result) { return RenderBacktestReport(result, {}); }

}  // namespace

TEST_CASE("report: the page is self-contained: no script, no address, no import",
          "[backtest][report]") {
  const std::string page = Page(hwrec::test::SampleResult(hwrec::test::SampleKeys(3)));
  CHECK_THAT(page, Catch::StartsWith("<!DOCTYPE html>"));
  for (const char* banned : {"http", "<script", "@import", "url(", "<link", "<img", "<iframe",
                             "javascript:", "onload", "onclick", "src="}) {
    INFO(banned);
    CHECK(page.find(banned) == std::string::npos);
  }
}

TEST_CASE("report: one chart per workload and hardware key, a panel per figure it has",
          "[backtest][report]") {
  const auto result = hwrec::test::SampleResult(hwrec::test::SampleKeys(3));
  const std::string page = Page(result);
  CHECK(Count(page, "class=\"chart\"") == 3);
  CHECK(hwrec::CountReportCharts(result) == 3);
  // Two GPU keys with five figures and one CPU-only key with three.
  CHECK(Count(page, "class=\"panel\"") == 13);
  CHECK_THAT(page, Contains("ghcr.io/acme/train-0:1.0"));
  CHECK_THAT(page, Contains("NVIDIA A100 80GB on a2-ultragpu-1g"));
  CHECK_THAT(page, Contains("no GPU on n2-standard-8"));
  CHECK_THAT(page, Contains("NVIDIA GPU of unknown model on on-prem-gpu"));
  CHECK_THAT(page, Contains("3 charts"));
}

TEST_CASE("report: axes carry units: sizes in GiB, CPU in cores, compute share of a card",
          "[backtest][report]") {
  const auto result = hwrec::test::SampleResult(hwrec::test::SampleKeys(1));
  const std::string page = Page(result);
  CHECK_THAT(page, Contains("CPU request (cores)"));
  CHECK_THAT(page, Contains("memory (GiB)"));
  CHECK_THAT(page, Contains("GPU memory (GiB)"));
  CHECK_THAT(page, Contains("GPU compute share (of a card)"));
  CHECK_THAT(page, Contains("start (UTC)"));
  // Memory around 24e9 bytes is drawn on a GiB axis: ticks in tens of GiB, not bytes.
  CHECK(page.find(">24000000000<") == std::string::npos);
  CHECK_THAT(page, Contains(">20</text>"));
  // Dates on the time axis, in UTC: the sample runs from 2025-11-28T08:00Z for
  // 70 hours, so ticks every 12 hours and the whole range above the chart.
  CHECK_THAT(page, Contains(">11-29 00:00</text>"));
  CHECK_THAT(page, Contains("140 executions started from 2025-11-28 08:00 UTC to 2025-12-01 "
                            "05:30 UTC"));
}

TEST_CASE("report: the legend, overruns, OOMs and cold executions are marked",
          "[backtest][report]") {
  const auto result = hwrec::test::SampleResult(hwrec::test::SampleKeys(1));
  const std::string page = Page(result);
  CHECK(Count(page, "class=\"legend\"") == 1);
  for (const char* words : {"observed", "figure as replayed", "bounds", "transferred",
                            "overrun: used more than the figure", "OOM", "cold: no figure yet"}) {
    INFO(words);
    CHECK_THAT(page, Contains(words));
  }
  std::size_t overruns = 0, ooms = 0;
  for (const auto& s : result.runs.front().series) {
    for (const auto& p : s.points) {
      ooms += p.oom ? 1 : 0;
      overruns += p.overrun && !p.oom ? 1 : 0;
    }
  }
  REQUIRE(overruns > 0);
  REQUIRE(ooms > 0);
  CHECK(Count(page, "class=\"overrun\"") == overruns);
  CHECK(Count(page, "class=\"oom\"") == ooms);
  CHECK_THAT(page, Contains("#d62728"));  // overruns in red
  // Each mark names its execution, for the reader hovering over it.
  CHECK_THAT(page, Contains("<title>ghcr.io/acme/train-0:1.0-ex-"));
}

TEST_CASE("report: workload names and settings are escaped, never markup", "[backtest][report]") {
  const std::string evil = "<script>alert('x')</script>&\"img";
  auto result = hwrec::test::SampleResult({{evil, hwrec::test::CpuKey("n2-<b>-8")}}, 20);
  result.runs.front().settings = {{"memory.statistic", "<i>p99</i>"}};
  const std::string page = Page(result);
  CHECK(page.find("<script") == std::string::npos);
  CHECK(page.find("<b>") == std::string::npos);
  CHECK(page.find("<i>") == std::string::npos);
  CHECK_THAT(page, Contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&quot;img"));
  CHECK_THAT(page, Contains("no GPU on n2-&lt;b&gt;-8"));
  CHECK_THAT(page, Contains("memory.statistic=&lt;i&gt;p99&lt;/i&gt;"));
}

TEST_CASE("report: a name with a broken UTF-8 byte keeps its well-formed characters",
          "[backtest][report]") {
  // "café" and "模型" in UTF-8, with a stray continuation byte between them.
  const std::string name = "caf\xC3\xA9-\x80-\xE6\xA8\xA1\xE5\x9E\x8B:1";
  const std::string page = Page(hwrec::test::SampleResult({{name, hwrec::test::CpuKey("n2")}}, 5));
  CHECK_THAT(page, Contains("caf\xC3\xA9-\xEF\xBF\xBD-\xE6\xA8\xA1\xE5\x9E\x8B:1"));
}

TEST_CASE("report: bidirectional overrides and zero-width characters show as escapes",
          "[backtest][report]") {
  // U+202E..U+202C would render "ghcr.io/acme/gnp.exe:1"; U+200B hides in "llm-finetune".
  const std::string reversed =
      "ghcr.io/acme/\xE2\x80\xAE"
      "exe.gnp\xE2\x80\xAC:1";
  const std::string hidden = "llm\xE2\x80\x8B-finetune:2";
  const std::string page = Page(hwrec::test::SampleResult(
      {{reversed, hwrec::test::CpuKey("n2")}, {hidden, hwrec::test::CpuKey("n2")}}, 5));
  CHECK(page.find("\xE2\x80\xAE") == std::string::npos);
  CHECK(page.find("\xE2\x80\x8B") == std::string::npos);
  CHECK_THAT(page, Contains("ghcr.io/acme/\\u202eexe.gnp\\u202c:1"));
  CHECK_THAT(page, Contains("llm\\u200b-finetune:2"));
}

TEST_CASE("report: the runs side by side, with each preset's description and source",
          "[backtest][report]") {
  const auto result = hwrec::test::SampleResult(hwrec::test::SampleKeys(2));
  const std::string page = Page(result);
  CHECK_THAT(page, Contains("The runs side by side"));
  for (const char* column :
       {"scored", "cold", "overruns", "overrun share", "mean slack", "over-provisioned"}) {
    INFO(column);
    CHECK_THAT(page, Contains("<th>" + std::string(column) + "</th>"));
  }
  const hwrec::BacktestPreset* vpa = hwrec::FindBacktestPreset("vpa");
  REQUIRE(vpa != nullptr);
  CHECK_THAT(page, Contains(vpa->description));
  CHECK_THAT(page, Contains("Kubernetes Vertical Pod Autoscaler"));
  CHECK_THAT(page, Contains("The store's own estimator settings"));
  // The store's GPU-memory totals as a row: scored, cold, overruns, share, slack.
  const auto& gpu = result.runs.front().figures[3];
  REQUIRE(gpu.first == hwrec::FigureKind::kGpuMemoryGb);
  CHECK_THAT(page,
             Contains(fmt::format("<td class=\"name\">store</td><td>{}</td><td>{}</td><td>{}"
                                  "</td><td>{:.1f} %</td><td>{:.1f} %</td>",
                                  gpu.second.scored, gpu.second.cold, gpu.second.overruns,
                                  gpu.second.overrun_share * 100, gpu.second.mean_slack * 100)));
  CHECK_THAT(page, Contains("GiB·h"));
  CHECK_THAT(page, Contains("core·h"));
}

TEST_CASE("report: an empty result renders a page that says there is nothing to show",
          "[backtest][report]") {
  for (const bool with_run : {false, true}) {
    INFO(with_run);
    BacktestResult result;
    if (with_run) result.runs.push_back(hwrec::BacktestRun{"store", {}, {}, {}, {}});
    const std::string page = Page(result);
    CHECK_THAT(page, Contains("Nothing to show"));
    CHECK(Count(page, "class=\"chart\"") == 0);
    CHECK(Count(page, "class=\"overview\"") == 0);
    CHECK_THAT(page, Contains("</html>"));
  }
}

TEST_CASE("report: a panel of many executions draws at most 2000, every overrun and OOM kept",
          "[backtest][report]") {
  auto result =
      hwrec::test::SampleResult({{"big", hwrec::test::GpuKey("H100 80GB", "a3-highgpu-8g")}}, 9000);
  auto& series = result.runs.front().series;
  series.resize(4);  // the GPU memory panel last
  series.erase(series.begin(), series.begin() + 3);
  std::size_t marked = 0;
  for (const auto& p : series.front().points) marked += p.overrun || p.oom ? 1 : 0;
  REQUIRE(marked > 0);
  const std::string page = Page(result);
  CHECK(Count(page, "class=\"overrun\"") + Count(page, "class=\"oom\"") == marked);
  // Fitting executions are one path of dots, each "M x y h0".
  const std::size_t dots = Count(page, "h0");
  CHECK(dots + marked <= 2000);
  CHECK(dots + marked >= 1990);
  CHECK_THAT(page, Contains(fmt::format("of 9000 executions drawn")));
  CHECK_THAT(page, Contains("an even spread of the rest"));
}

TEST_CASE("report: a figure that observed nothing has no panel, a key with none no chart",
          "[backtest][report]") {
  auto result = hwrec::test::SampleResult(hwrec::test::SampleKeys(2), 30);
  auto& series = result.runs.front().series;
  // The CPU-only key (the second) also carries an empty GPU-memory series,
  // and a third key carries nothing at all.
  hwrec::BacktestSeries empty{"ghcr.io/acme/train-1:1.0",
                              hwrec::test::CpuKey("n2-standard-8"),
                              hwrec::FigureKind::kGpuMemoryGb,
                              {},
                              {}};
  series.push_back(empty);
  empty.workload = "ghcr.io/acme/idle:1.0";
  series.push_back(empty);
  const std::string page = Page(result);
  CHECK(Count(page, "class=\"chart\"") == 2);
  CHECK(hwrec::CountReportCharts(result) == 2);
  CHECK(Count(page, "class=\"panel\"") == 5 + 3);
  CHECK(page.find("ghcr.io/acme/idle:1.0") == std::string::npos);
}

namespace {

// The first run's series of `workload` all with these totals.
void SetKeyTotals(BacktestResult* result, const std::string& workload, std::int64_t overruns,
                  double mean_slack) {
  for (hwrec::BacktestSeries& s : result->runs.front().series) {
    if (s.workload != workload) continue;
    s.totals.scored = 100;
    s.totals.cold = 2;
    s.totals.overruns = overruns;
    s.totals.overrun_share = static_cast<double>(overruns) / 100;
    s.totals.mean_slack = mean_slack;
  }
}

// The value of each `attribute="…"` in `html`, in order.
std::vector<std::string> AttributeValues(const std::string& html, const std::string& attribute) {
  std::vector<std::string> values;
  const std::string open = " " + attribute + "=\"";
  for (auto at = html.find(open); at != std::string::npos; at = html.find(open, at + 1)) {
    const auto begin = at + open.size();
    values.push_back(html.substr(begin, html.find('"', begin) - begin));
  }
  return values;
}

}  // namespace

TEST_CASE("report: an overview of every key opens the page, worst first, linked to its chart",
          "[backtest][report]") {
  auto result = hwrec::test::SampleResult(hwrec::test::SampleKeys(4), 30);
  // Known order: the larger overrun share first; between equal shares, the more slack.
  SetKeyTotals(&result, "ghcr.io/acme/train-0:1.0", 0, 0.10);
  SetKeyTotals(&result, "ghcr.io/acme/train-1:1.0", 20, 0.10);
  SetKeyTotals(&result, "ghcr.io/acme/train-2:1.0", 5, 0.20);
  SetKeyTotals(&result, "ghcr.io/acme/train-3:1.0", 5, 0.40);
  const std::string page = Page(result);

  const auto overview = page.find("<section class=\"overview\"");
  REQUIRE(overview != std::string::npos);
  const auto first_key = page.find("<section class=\"key\"");
  REQUIRE(first_key != std::string::npos);
  CHECK(overview < first_key);
  CHECK(page.find("<h1>") < overview);
  const std::string table = page.substr(overview, page.find("</section>", overview) - overview);
  CHECK_THAT(table, Contains("worst first"));
  CHECK_THAT(table, Contains("overrun share"));

  // Every key is a row, linked to its chart, worst first.
  const std::vector<std::string> order = {"train-1", "train-3", "train-2", "train-0"};
  const std::vector<std::string> links = AttributeValues(table, "href");
  REQUIRE(links.size() == order.size());
  std::size_t previous = 0;
  for (const std::string& name : order) {
    INFO(name);
    const auto at = table.find("ghcr.io/acme/" + name + ":1.0");
    REQUIRE(at != std::string::npos);
    CHECK(at > previous);
    previous = at;
  }
  CHECK_THAT(table, Contains("20.0 %"));  // train-1's overrun share
  CHECK_THAT(table, Contains("40.0 %"));  // train-3's mean slack

  // Each link's target is the id of exactly one key section, the one it names.
  const std::vector<std::string> ids = AttributeValues(page, "id");
  for (std::size_t i = 0; i < links.size(); ++i) {
    const std::string& link = links[i];
    INFO(link);
    REQUIRE(link.rfind('#', 0) == 0);
    CHECK(std::count(ids.begin(), ids.end(), link.substr(1)) == 1);
    const auto section = page.find("<section class=\"key\" id=\"" + link.substr(1) + "\"");
    REQUIRE(section != std::string::npos);
    CHECK(page.find("ghcr.io/acme/" + order[i] + ":1.0", section) ==
          page.find("<h2>", section) + 4);
  }
  CHECK(ids.size() == std::set<std::string>(ids.begin(), ids.end()).size());
}

TEST_CASE("report: key anchors stay distinct and plain for names that slug alike",
          "[backtest][report]") {
  // Names that differ only in punctuation or in characters outside ASCII.
  const auto result = hwrec::test::SampleResult({{"acme/a:1", hwrec::test::CpuKey("n2")},
                                                 {"acme/a.1", hwrec::test::CpuKey("n2")},
                                                 {"<b>\"x\"</b>", hwrec::test::CpuKey("n2")},
                                                 {"caf\xC3\xA9:1", hwrec::test::CpuKey("n2")},
                                                 {"caf\xC3\xA8:1", hwrec::test::CpuKey("n2")}},
                                                5);
  const std::string page = Page(result);
  const std::vector<std::string> ids = AttributeValues(page, "id");
  CHECK(ids.size() == 5);
  CHECK(std::set<std::string>(ids.begin(), ids.end()).size() == 5);
  for (const std::string& id : ids) {
    INFO(id);
    CHECK(std::all_of(id.begin(), id.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    }));
    CHECK_THAT(page, Contains("href=\"#" + id + "\""));
  }
  CHECK(page.find("<b>") == std::string::npos);
}
