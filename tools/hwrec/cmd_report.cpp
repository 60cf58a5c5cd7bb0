// hwrec report: the backtest as one self-contained HTML page.
#include <fmt/format.h>
#include <boost/program_options.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <system_error>

#include "backtest_options.h"
#include "cli.h"
#include "commands.h"
#include "common/plain_text.h"
#include "hwrec/backtest_report.h"
#include "hwrec/store_location.h"
#include "hwrec/time_text.h"

namespace hwrec::cli {

namespace {

// Writes `text` to `path` whole or not at all: a temporary file beside it,
// then renamed over it, so a reader never sees half a page.
Status WriteAtomically(const std::string& path, const std::string& text) {
  const std::filesystem::path target(path);
  std::filesystem::path temporary = target;
  temporary += fmt::format(".tmp-{}", static_cast<long long>(tools::NowEpochSeconds() * 1e6));
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) {
      std::error_code ignored;
      std::filesystem::remove(temporary, ignored);
      return Status::IoError(fmt::format(
          "--html {}: cannot write the page there: check that its folder exists and is writable",
          path));
    }
  }
  std::error_code error;
  std::filesystem::rename(temporary, target, error);
  if (error) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    return Status::IoError(
        fmt::format("--html {}: cannot replace it with the page: {}", path, error.message()));
  }
  return Status::Ok();
}

}  // namespace

int RunReport(const std::vector<std::string>& args) {
  CommandLine line(
      "hwrec report STORE --html FILE [--image IMG] [--gpu-model M] [--instance-type T] "
      "[--figure F] [--set KEY=VALUE ...] [--preset NAME ...] [--read-only]\n\n"
      "Replays the store's history as `hwrec backtest` does and draws it as one HTML page\n"
      "that opens in any browser, offline: per workload and hardware key, each figure's\n"
      "observed values over time with the figure and its bounds as the replay gave them,\n"
      "overruns and OOMs marked; then the runs (the store's settings and each preset) side\n"
      "by side. No script, and nothing fetched from the network. The store is only read.");
  line.Store(nullptr, kStorePathHelp)
      .Add()("html", po::value<std::string>(), "the page to write (replaced whole, atomically)");
  AddBacktestOptions(line);
  line.Epilog(BacktestPresetsHelp());
  bool strict_read_only = false;
  po::variables_map vm;
  if (!line.ReadOnly(&strict_read_only).Parse(args, &vm)) return kExitOk;
  const std::string path = RequiredStore(vm);
  if (vm.count("html") == 0 || vm["html"].as<std::string>().empty()) {
    throw UsageError("--html FILE is required: the page to write, e.g. --html report.html");
  }
  const std::string html = vm["html"].as<std::string>();
  auto store = OpenStore(path, ReadingStoreOptions(strict_read_only));
  if (!store) return kExitError;
  BacktestOptions options = ReadBacktestOptions(vm);
  options.keep_points = true;
  options.points_per_series = kReportPointsPerPanel;
  auto result = Backtest(*store, options);
  if (!result.ok()) return Fail(result.status());
  BacktestReportOptions report;
  report.store = PrintableLocation(path);
  report.generated_at = tools::NowEpochSeconds();
  const Status written = WriteAtomically(html, RenderBacktestReport(*result, report));
  if (!written.ok()) return Fail(written);
  const std::size_t charts = CountReportCharts(*result);
  std::cout << TerminalFormat(
      "wrote {}: {} chart{} (one per workload and hardware key), {} run{}"
      "{}\n",
      html, charts, charts == 1 ? "" : "s", result->runs.size(),
      result->runs.size() == 1 ? "" : "s", charts == 0 ? ": nothing matched the filters" : "");
  return kExitOk;
}

}  // namespace hwrec::cli
