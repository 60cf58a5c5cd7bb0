// hwrec-bench: measures hwrec on this machine. Parses the subcommand name,
// then hands the remaining arguments to that subcommand.
#include <fmt/format.h>
#include <boost/program_options.hpp>

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "bench/bench_commands.h"
#include "hwrec/version.h"

namespace hwrec::bench {
namespace {

namespace po = boost::program_options;

struct Subcommand {
  const char* name;
  const char* summary;
  int (*run)(const std::vector<std::string>& args);
};

const std::vector<Subcommand>& Subcommands() {
  static const std::vector<Subcommand> kSubcommands = {
      {"ingest", "observations/s of Ingestor::Ingest against the raw SQLite ceiling",
       RunIngestBench},
      {"recommend", "lookup latency at 100, 10,000 and ~1,000,000 observations vs a SQL scan",
       RunRecommendBench},
      {"fixture", "writes a legacy site-keyed store (fixture legacy --rows N --seed S STORE)",
       RunFixtureBench},
      {"migrate", "rows/s and peak RSS of the hp:v1 -> hp:v2 legacy migration", RunMigrateBench},
      {"route", "ladder-build latency (p50/p99) and a full simulated walk", RunRouteBench},
      {"place", "placement evaluation latency (p50/p99) for 10/100/1,000 candidates",
       RunPlaceBench},
      {"python", "the same recommend, place and ingest timed in C++ and through `import hwrec`",
       RunPythonBench},
  };
  return kSubcommands;
}

void PrintHelp(std::ostream& out) {
  out << "hwrec-bench " << Version() << ": measures hwrec on this machine\n\n"
      << "Usage: hwrec-bench <subcommand> [options]\n"
         "       hwrec-bench <subcommand> --help\n\n"
         "Subcommands:\n";
  for (const Subcommand& subcommand : Subcommands()) {
    out << fmt::format("  {:<10} {}\n", subcommand.name, subcommand.summary);
  }
  out << "\nOptions:\n"
         "  -h [ --help ]   show this help\n"
         "  --version       print the version\n\n"
         "Exit codes:\n"
         "  0  measured (whether or not a target was met)\n"
         "  1  error: the measurement could not be made; the message says why\n"
         "  2  usage: the command line is wrong; see the subcommand's --help\n";
}

int RunSubcommand(const Subcommand& subcommand, const std::vector<std::string>& args) {
  try {
    return subcommand.run(args);
  } catch (const UsageError& e) {
    std::cerr << "hwrec-bench " << subcommand.name << ": " << e.what() << "\n"
              << "Try `hwrec-bench " << subcommand.name << " --help`.\n";
    return kExitUsage;
  } catch (const po::error& e) {
    std::cerr << "hwrec-bench " << subcommand.name << ": " << e.what() << "\n"
              << "Try `hwrec-bench " << subcommand.name << " --help`.\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "hwrec-bench " << subcommand.name << ": " << e.what() << "\n";
    return kExitError;
  }
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
  for (const Subcommand& subcommand : Subcommands()) {
    if (*name_at == subcommand.name) {
      return RunSubcommand(subcommand, std::vector<std::string>(name_at + 1, args.end()));
    }
  }
  std::cerr << "hwrec-bench: unknown subcommand '" << *name_at << "'. Try `hwrec-bench --help`.\n";
  return kExitUsage;
}

}  // namespace
}  // namespace hwrec::bench

int main(int argc, char** argv) { return hwrec::bench::Main(argc, argv); }
