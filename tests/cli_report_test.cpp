// hwrec report as a user runs it: --help, the options it shares with hwrec
// backtest (tools/hwrec/backtest_options.h) refused with what to type
// instead, and a failed report that leaves FILE as it was.
#include <catch2/catch.hpp>

#include <filesystem>

#include "test_support.h"

using Catch::Contains;
using hwrec::test::RunCli;
using hwrec::test::ShellQuote;

namespace {

struct ReportStore {
  hwrec::test::TempDir dir;
  std::string store = ShellQuote(hwrec::test::ExampleStore(dir));
  std::string html = dir.File("report.html");
};

}  // namespace

TEST_CASE("cli: report --help names the page, its filters and the presets", "[cli][report]") {
  const auto r = RunCli("report --help");
  REQUIRE(r.exit_code == 0);
  for (const char* words :
       {"hwrec report STORE --html FILE", "--gpu-model", "--instance-type", "--figure", "--set",
        "--preset", "intelliscale, vpa (VPA-like) or", "No script"}) {
    INFO(words);
    CHECK_THAT(r.out, Contains(words));
  }
  CHECK_THAT(RunCli("--help").out, Contains("report"));
}

TEST_CASE("cli: report refuses bad options with the fix, before replaying anything",
          "[cli][report]") {
  ReportStore s;
  const std::string line = "report " + s.store + " --html " + ShellQuote(s.html) + " ";
  struct Case {
    std::string args;
    const char* says;
  };
  for (const Case& c : {
           Case{"--preset k8s", "--preset must be intelliscale, vpa or autopilot"},
           Case{"--preset vpa --preset none", "got 'none'"},
           Case{"--set memory.statistic=p97", "memory.statistic must be one of p90"},
           Case{"--set no.such.key=1", "unknown config key 'no.such.key'"},
           Case{"--set memory.margin", "--set takes KEY=VALUE"},
           Case{"--figure gpu", "--figure must be cpu_request_millicores"},
       }) {
    INFO(c.args);
    const auto r = RunCli(line + c.args);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Contains(c.says));
    CHECK_THAT(r.err, Contains("hwrec report --help"));
  }
  const auto no_html = RunCli("report " + s.store);
  CHECK(no_html.exit_code == 2);
  CHECK_THAT(no_html.err, Contains("--html FILE is required"));
  const auto model = RunCli(line + "--gpu-model A100");
  CHECK(model.exit_code == 1);
  CHECK_THAT(model.err,
             Contains("--gpu-model: GPU model") && Contains("did you mean A100 40GB, A100 80GB"));
  CHECK_FALSE(std::filesystem::exists(s.html));
}

TEST_CASE("cli: a report that fails leaves the page it would replace as it was", "[cli][report]") {
  ReportStore s;
  hwrec::test::WriteFile(s.html, "the last page\n");
  const auto r = RunCli("report " + s.store + " --html " + ShellQuote(s.html) + " --preset k8s");
  CHECK(r.exit_code == 2);
  CHECK(hwrec::test::ReadFile(s.html) == "the last page\n");
  for (const auto& entry : std::filesystem::directory_iterator(s.dir.path())) {
    INFO(entry.path());
    CHECK(entry.path().filename().string().find(".tmp-") == std::string::npos);
  }
}

TEST_CASE("cli: report writes one chart per workload and hardware key and says so",
          "[cli][report]") {
  hwrec::test::TempDir dir;
  const std::string store = ShellQuote(dir.File("two-keys.db"));
  REQUIRE(RunCli("init " + store).exit_code == 0);
  REQUIRE(RunCli("ingest " + store + " " +
                 ShellQuote(hwrec::test::TestDataPath("backtest_two_keys.jsonl")))
              .exit_code == 0);
  const std::string html = dir.File("every-key.html");
  const auto every = RunCli("report " + store + " --html " + ShellQuote(html));
  REQUIRE(every.exit_code == 0);
  CHECK_THAT(every.out, Contains("4 charts"));
  CHECK_THAT(every.out, Contains("4 runs"));
  const std::string page = hwrec::test::ReadFile(html);
  std::size_t charts = 0;
  for (auto at = page.find("class=\"chart\""); at != std::string::npos;
       at = page.find("class=\"chart\"", at + 1)) {
    ++charts;
  }
  CHECK(charts == 4);
  CHECK_THAT(page, Contains("NVIDIA A100 80GB on a2-ultragpu-1g"));
  CHECK_THAT(page, Contains("NVIDIA L4 on g2-standard-8"));

  const auto a100 = RunCli("report " + store + " --html " + ShellQuote(dir.File("a100.html")) +
                           " --gpu-model 'A100 80GB' --preset vpa");
  REQUIRE(a100.exit_code == 0);
  CHECK_THAT(a100.out, Contains("2 charts"));
  CHECK_THAT(a100.out, Contains("2 runs"));

  const auto missing =
      RunCli("report " + store + " --html " + ShellQuote(dir.File("no-such-folder/report.html")));
  CHECK(missing.exit_code == 1);
  CHECK_THAT(missing.err, Contains("--html"));
  CHECK_THAT(missing.err, Contains("folder exists"));
}
