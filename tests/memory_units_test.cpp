// One unit for memory wherever hwrec prints a figure: GiB (2^30 bytes) for
// host and GPU memory alike, in the backtest (text and JSON), the report page
// and its charts, `recommend --explain`, and the place and route tables. A
// bare "GB" is left only inside card names ("A100 80GB") and field names
// (gpu_memory_gb); host memory in GiB is bytes / 2^30.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "hwrec/backtest.h"
#include "test_support.h"

using hwrec::test::RunCli;
using hwrec::test::ShellQuote;

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr const char* kEtl = "ghcr.io/acme/units-etl:1.0";

// A CPU-only workload that runs an hour each time, its memory peaks in whole
// quarters of a GiB, the last one (8 GiB) above any figure the others give;
// and capture-7b (a routed intent) peaking at 79 GiB on one A100 80GB.
std::string UnitsRecords() {
  std::ostringstream lines;
  const double peaks_gib[] = {4, 4.5, 5, 4.25, 4.75, 5, 4.5, 8};
  for (int i = 0; i < 8; ++i) {
    lines << fmt::format(R"({{"execution_id":"units-etl-{}","action_image":"{}","finished_at":{},)"
                         R"("site_id":"site-a","node_pool_id":"sitea-arm-cpu","status":"success",)"
                         R"("duration_s":3600,"cpu_millicores_avg":2000,"cpu_millicores_p95":3000,)"
                         R"("cpu_millicores_max":3500,"memory_peak_bytes":{:.0f}}})",
                         i, kEtl, 1796000000 + 7200 * i, peaks_gib[i] * kGiB)
          << "\n";
  }
  for (int i = 0; i < 3; ++i) {
    lines
        << fmt::format(
               R"({{"execution_id":"units-capture-{}","action_image":"ghcr.io/acme/capture-7b:1.0",)"
               R"("finished_at":{},"site_id":"site-a","node_pool_id":"sitea-a100-80gb",)"
               R"("status":"success","duration_s":600,"gpu_memory_peak_gb":79}})",
               i, 1796000000 + 600 * i)
        << "\n";
  }
  return lines.str();
}

// Every "<number> <unit>" of memory in `text` is in GiB (or a smaller binary
// unit), every number just before "memory" or "GPU memory" carries GiB, and
// no bare "GB" is left.
void CheckUnits(const std::string& what, const std::string& text) {
  INFO(what << ":\n" << text);
  static const std::regex bare_gb("(^|[^0-9A-Za-z_])GB([^0-9A-Za-z_]|$)");
  std::smatch m;
  CHECK_FALSE(std::regex_search(text, m, bare_gb));
  static const std::regex sized("[0-9]+(\\.[0-9]+)? ([KMGT]i?B|[kK]B)(?![A-Za-z])");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), sized);
       it != std::sregex_iterator(); ++it) {
    INFO((*it)[0].str());
    const std::string unit = (*it)[2].str();
    CHECK((unit == "GiB" || unit == "MiB" || unit == "KiB" || unit == "TiB"));
  }
  static const std::regex before_memory("[0-9]+(\\.[0-9]+)? ([A-Za-z]+) (GPU )?memory\\b");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), before_memory);
       it != std::sregex_iterator(); ++it) {
    INFO((*it)[0].str());
    CHECK(((*it)[2].str() == "GiB" || (*it)[2].str() == "MiB"));
  }
}

}  // namespace

TEST_CASE("units: every printed memory figure is in GiB; host memory is bytes / 2^30",
          "[units][cli]") {
  hwrec::test::TempDir dir;
  const std::string path = hwrec::test::ExampleStore(dir);
  const std::string store = ShellQuote(path);
  const std::string records = dir.File("units.jsonl");
  hwrec::test::WriteFile(records, UnitsRecords());
  const auto ingested = RunCli("ingest " + store + " " + ShellQuote(records));
  INFO(ingested.out << ingested.err);
  REQUIRE(ingested.exit_code == 0);

  const auto backtest = RunCli("backtest " + store);
  REQUIRE(backtest.exit_code == 0);
  CheckUnits("backtest", backtest.out);
  const auto backtest_json = RunCli("backtest " + store + " --format json");
  REQUIRE(backtest_json.exit_code == 0);
  CheckUnits("backtest --format json", backtest_json.out);
  const std::string html = dir.File("report.html");
  REQUIRE(RunCli("report " + store + " --html " + ShellQuote(html)).exit_code == 0);
  const std::string page = hwrec::test::ReadFile(html);
  CheckUnits("report", page);
  const auto explain = RunCli("recommend " + store +
                              " --image ghcr.io/acme/resnet-infer:1.8 --pool sitea-a30-mig "
                              "--as-of 2026-11-29T12:00:00Z --explain");
  REQUIRE(explain.exit_code == 0);
  CheckUnits("recommend --explain", explain.out);
  const std::string candidates = dir.File("candidates.json");
  hwrec::test::WriteFile(candidates, R"([{"node_pool_id": "sitea-a30-mig"},
    {"node_pool_id": "siteb-a100-40gb-mig"}, {"node_pool_id": "sitea-a100-80gb"}])");
  const auto place =
      RunCli("place " + store + " --image ghcr.io/acme/resnet-infer:1.8 --candidates " +
             ShellQuote(candidates));
  REQUIRE(place.exit_code == 0);
  CheckUnits("place", place.out + place.err);
  // The GPU memory column as the host memory one: each figure with its unit.
  CHECK(std::regex_search(place.out, std::regex("sitea-a30-mig .* GiB +12\\.0 GiB ")));
  for (const char* route : {" --intent capture-7b --width 1 --length 2d",
                            " --intent capture-7b --width 8 --length 2d --sharded"}) {
    const auto routed = RunCli("route " + store + route);
    CheckUnits(std::string("route") + route, routed.out + routed.err);
    CHECK_THAT(routed.out + routed.err, Catch::Contains("GiB"));
  }

  // Host memory over-provisioned, by hand: each fitting execution ran an
  // hour, so (figure - peak) / 2^30 GiB·h.
  auto opened = hwrec::test::OpenStoreOrFail(path);
  hwrec::BacktestOptions options;
  options.image = kEtl;
  options.figure = hwrec::FigureKind::kMemoryBytes;
  options.keep_points = true;
  const auto result = hwrec::Backtest(*opened, options);
  REQUIRE(result.ok());
  REQUIRE(result->runs.front().series.size() == 1);
  double expected = 0;
  bool overran = false;
  for (const hwrec::BacktestPoint& p : result->runs.front().series.front().points) {
    if (p.recommended && !p.overrun) expected += (*p.recommended - p.observed) / kGiB;
    overran = overran || p.overrun;
  }
  REQUIRE(overran);
  REQUIRE(expected > 1);
  const auto json = nlohmann::json::parse(
      RunCli("backtest " + store + " --image " + kEtl + " --figure memory_bytes --format json")
          .out);
  const auto& memory = json["runs"][0]["figures"]["memory_bytes"];
  CHECK(memory["over_provisioned"].get<double>() == Approx(expected).margin(1e-3));
  CHECK(memory["over_provisioned_unit"] == "GiB·h");
  CHECK_THAT(backtest.out, Catch::Contains(fmt::format("{:.1f} GiB·h", expected)));
  // The 8 GiB peak that overran is drawn and named at 8 GiB.
  CHECK_THAT(page, Catch::Contains("used 8 GiB, figure"));
  CHECK_THAT(page, Catch::Contains("memory (GiB)"));
}
