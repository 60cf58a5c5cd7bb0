// hwrec backtest: how the figures would have done on the store's own history.
#include <fmt/format.h>
#include <boost/program_options.hpp>

#include <cmath>
#include <iostream>

#include "backtest_options.h"
#include "cli.h"
#include "commands.h"
#include "hwrec/backtest.h"

namespace hwrec::cli {

namespace {

std::string Percent(double share) { return fmt::format("{:.2f}", share * 100); }

std::string Amount(const BacktestTotals& t, FigureKind kind) {
  if (t.with_duration == 0) return "-";
  return fmt::format("{:.1f} {}", t.over_provisioned, OverProvisionedUnit(kind));
}

std::vector<std::string> TotalsCells(const BacktestTotals& t, FigureKind kind) {
  return {std::to_string(t.scored), std::to_string(t.cold), std::to_string(t.overruns),
          Percent(t.overrun_share), Percent(t.mean_slack),  Amount(t, kind)};
}

// The executions sized with history on other hardware only, when any was.
void PrintNewCards(const BacktestResult& result) {
  Table table({"settings", "figure", "executions", "scored", "transferred", "overruns", "overrun %",
               "mean slack %"});
  for (const BacktestRun& run : result.runs) {
    for (const auto& [kind, t] : run.figures) {
      if (t.new_card == 0) continue;
      const bool scored = t.new_card_scored > 0;
      table.AddRow({run.name, std::string(ToString(kind)), std::to_string(t.new_card),
                    std::to_string(t.new_card_scored), std::to_string(t.transferred),
                    std::to_string(t.new_card_overruns),
                    scored ? Percent(static_cast<double>(t.new_card_overruns) /
                                     static_cast<double>(t.new_card_scored))
                           : "-",
                    scored ? Percent(t.new_card_mean_slack) : "-"});
    }
  }
  if (table.rows() == 0) return;
  std::cout << "\nfirst on a new card (sized with history on other hardware only; for CPU and "
               "memory,\na new instance type), counted in the totals above too:\n";
  table.Print(std::cout);
}

void PrintTable(const BacktestResult& result, const BacktestOptions& options) {
  std::cout << fmt::format("executions replayed: {}\n", result.executions);
  const BacktestRun& own = result.runs.front();
  if (result.executions == 0 && options.image) {
    std::cout << TerminalFormat(
        "nothing to score: the store holds no execution of workload '{}' (an image is "
        "matched as spelled, tag included)\n",
        *options.image);
    return;
  }
  if (own.series.empty()) {
    std::cout << "nothing to score: no execution of the selection has an observed value\n";
    return;
  }
  std::cout << "\nper workload, hardware key and figure (the store's settings):\n";
  Table keys({"workload", "hardware", "figure", "scored", "cold", "overruns", "overrun %",
              "mean slack %", "over-provisioned"});
  for (const BacktestSeries& s : own.series) {
    std::vector<std::string> row = {s.workload, Describe(s.hardware),
                                    std::string(ToString(s.figure))};
    for (std::string& cell : TotalsCells(s.totals, s.figure)) row.push_back(std::move(cell));
    keys.AddRow(row);
  }
  keys.Print(std::cout);
  std::cout << "\nin total:\n";
  Table totals({"settings", "figure", "scored", "cold", "overruns", "overrun %", "mean slack %",
                "over-provisioned"});
  for (const BacktestRun& run : result.runs) {
    for (const auto& [kind, t] : run.figures) {
      if (t.scored + t.cold == 0) continue;
      std::vector<std::string> row = {run.name, std::string(ToString(kind))};
      for (std::string& cell : TotalsCells(t, kind)) row.push_back(std::move(cell));
      totals.AddRow(row);
    }
  }
  totals.Print(std::cout);
  PrintNewCards(result);
  std::cout << "\noverrun: used more than the figure (memory, GPU memory: an OOM; CPU: "
               "throttling;\n         compute share: a slower run)\nslack:   (figure - used) / "
               "figure, over the executions that fit\n";
}

}  // namespace

int RunBacktest(const std::vector<std::string>& args) {
  std::string format_text;
  CommandLine line(
      "hwrec backtest STORE [--image IMG] [--gpu-model M] [--instance-type T] [--figure F] "
      "[--set KEY=VALUE ...] [--preset NAME ...] [--format table|json]");
  line.Store(nullptr, kStorePathHelp);
  AddBacktestOptions(line, PresetDefault::kNone);
  bool strict_read_only = false;
  po::variables_map vm;
  line.Epilog(BacktestPresetsHelp());
  if (!line.ReadOnly(&strict_read_only).Format(&format_text).Parse(args, &vm)) return kExitOk;
  const std::string path = RequiredStore(vm);
  const Format format = ParseFormat(format_text);
  auto store = OpenStore(path, ReadingStoreOptions(strict_read_only));
  if (!store) return kExitError;
  BacktestOptions options = ReadBacktestOptions(vm, PresetDefault::kNone);
  auto result = Backtest(*store, options);
  if (!result.ok()) return Fail(result.status());
  if (format == Format::kJson) {
    std::cout << BacktestJson(*result) << "\n";
  } else {
    PrintTable(*result, options);
  }
  return kExitOk;
}

}  // namespace hwrec::cli
