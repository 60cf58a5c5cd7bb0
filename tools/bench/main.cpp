// hwrec-bench: measures hwrec on this machine. Parses the subcommand name,
// then hands the remaining arguments to that subcommand.
#include <fmt/format.h>
#include <boost/program_options.hpp>

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "bench/bench_commands.h"
#include "common/dispatch.h"
#include "common/exit_codes.h"
#include "hwrec/store_location.h"
#include "hwrec/version.h"

namespace hwrec::bench {
namespace {

using tools::Subcommand;

const std::vector<Subcommand>& Subcommands() {
  static const std::vector<Subcommand> kSubcommands = {
      {"ingest", "observations/s of Ingestor::Ingest against the raw SQLite ceiling",
       RunIngestBench},
      {"recommend", "lookup latency at 100, 10,000 and ~1,000,000 observations vs a SQL scan",
       RunRecommendBench},
      {"backtest", "executions/s of the backtest at 10,000 and ~1,000,000 observations",
       RunBacktestBench},
      {"fixture", "writes a legacy site-keyed store (fixture legacy --rows N --seed S STORE)",
       RunFixtureBench},
      {"migrate", "rows/s and peak RSS of the hp:v1 -> hp:v2 legacy migration", RunMigrateBench},
      {"schema-migrate", "schema 13 -> latest at N observations: aggregates rebuilt, then check",
       RunSchemaMigrateBench},
      {"route", "ladder-build latency (p50/p99) and a full simulated walk", RunRouteBench},
      {"place", "placement evaluation latency (p50/p99) for 10/100/1,000 candidates",
       RunPlaceBench},
      {"transfer",
       "compute shares transferred to a card each job never ran on, on Gavel's measured "
       "throughputs",
       RunTransferBench},
      {"python", "the same recommend, place and ingest timed in C++ and through `import hwrec`",
       RunPythonBench},
      {"engines", "ingest, recommend and place on SQLite and PostgreSQL in one run, with ratios",
       RunEnginesBench},
      {"concurrent-ingest",
       "W processes ingesting into one PostgreSQL store at once: total rate, then verified",
       RunConcurrentIngestBench},
      {"targets", "every ratio the write path is held to, measured in one run, with verdicts",
       RunTargetsBench},
  };
  return kSubcommands;
}

void PrintHelp(std::ostream& out) {
  out << tools::HelpText(
      {"hwrec-bench", "measures hwrec on this machine", "subcommand", "Subcommands", 18},
      Subcommands(),
      {
          {kExitOk, "measured (whether or not a target was met)"},
          {kExitError, "error: the measurement could not be made; the message says why"},
          {kExitUsage, "usage: the command line is wrong; see the subcommand's --help"},
      });
}

int Main(int argc, char** argv) {
  // Options before the subcommand's name are hwrec-bench's; the rest are the subcommand's.
  const std::vector<std::string> args(argv + 1, argv + argc);
  const auto name_at = std::find_if(args.begin(), args.end(),
                                    [](const std::string& arg) { return arg.rfind('-', 0) != 0; });
  po::options_description global("Options");
  global.add_options()("help,h", "show this help")("version", "print the version");
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(std::vector<std::string>(args.begin(), name_at))
                  .options(global)
                  .run(),
              vm);
  } catch (const po::error& e) {
    std::cerr << "hwrec-bench: " << e.what() << ". Try `hwrec-bench --help`.\n";
    return kExitUsage;
  }
  if (vm.count("help") != 0) {
    PrintHelp(std::cout);
    return kExitOk;
  }
  if (vm.count("version") != 0) {
    std::cout << "hwrec-bench " << Version() << "\n";
    return kExitOk;
  }
  if (name_at == args.end()) {
    PrintHelp(std::cerr);
    return kExitUsage;
  }
  // Each writer of concurrent-ingest is this program again; not listed in --help.
  static const Subcommand kWorker = {"concurrent-ingest-worker", "", RunConcurrentIngestWorker};
  if (*name_at == kWorker.name) {
    return tools::RunSubcommand("hwrec-bench", kWorker, {name_at + 1, args.end()},
                                tools::Unfiltered);
  }
  if (const Subcommand* subcommand = tools::FindSubcommand(Subcommands(), *name_at)) {
    return tools::RunSubcommand("hwrec-bench", *subcommand, {name_at + 1, args.end()},
                                tools::Unfiltered);
  }
  std::cerr << "hwrec-bench: unknown subcommand '" << PrintableLocation(*name_at)
            << "'. Try `hwrec-bench --help`.\n";
  return kExitUsage;
}

}  // namespace
}  // namespace hwrec::bench

int main(int argc, char** argv) { return hwrec::bench::Main(argc, argv); }
