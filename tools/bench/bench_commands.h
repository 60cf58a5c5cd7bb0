// The subcommands of hwrec-bench. Each takes the arguments after its name,
// prints what it measured and returns the process exit code.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/dispatch.h"
#include "common/exit_codes.h"

namespace boost::program_options {
class options_description;
class variables_map;
class positional_options_description;
}  // namespace boost::program_options

namespace hwrec::bench {

namespace po = boost::program_options;

// Documented in `hwrec-bench --help` (tools/common/).
using tools::kExitError;
using tools::kExitOk;
using tools::kExitUsage;
using tools::UsageError;

// Reads a subcommand's options (and `positional` arguments, when given) into
// `vm`; adds --help/-h to them, and for --help prints "Usage: <usage>" and the options, and returns
// false (the subcommand then exits 0).
bool ParseBenchArgs(
    const std::vector<std::string>& args,
    const boost::program_options::options_description& options, const char* usage,
    boost::program_options::variables_map* vm,
    const boost::program_options::positional_options_description* positional = nullptr);
// The options of a bench that times calls: how many, the generator's seed,
// and --format json.
struct TimedBenchOptions {
  int iterations = 200;
  std::uint64_t seed = 1;
  bool json = false;
};

// Adds --format (table, the default, or json) for `format`.
void AddFormatOption(boost::program_options::options_description& options, std::string* format);
// Adds --gpus-held: the generated GPU records say they held one GPU.
void AddGpusHeldOption(boost::program_options::options_description& options, bool* gpus_held);
// Whether --format asks for JSON ("json") or a table ("table"); anything else
// is a UsageError naming it.
bool IsJsonFormat(const std::string& format);

// hwrec-bench ingest --observations N [--seed S] [--batch B] [--store PATH] [--format F]
int RunIngestBench(const std::vector<std::string>& args);

// hwrec-bench recommend [--observations N] [--seed S] [--lookups L] [--format F]
int RunRecommendBench(const std::vector<std::string>& args);
// Executions/s of the backtest at 10,000 and ~1,000,000 observations.
int RunBacktestBench(const std::vector<std::string>& args);

// hwrec-bench fixture legacy --rows N [--seed S] STORE
int RunFixtureBench(const std::vector<std::string>& args);
// hwrec-bench migrate --rows N [--seed S] [--backup]
int RunMigrateBench(const std::vector<std::string>& args);
int RunSchemaMigrateBench(const std::vector<std::string>& args);

// hwrec-bench route [--iterations N] [--walks W] [--format F]
int RunRouteBench(const std::vector<std::string>& args);

// hwrec-bench place [--iterations N] | --openb DIR [--pods N] [--emit DIR]
int RunPlaceBench(const std::vector<std::string>& args);

// hwrec-bench transfer [--data DIR] [--jobs N] [--observations N] [--seed S] [--format F]
int RunTransferBench(const std::vector<std::string>& args);

// hwrec-bench python [--iterations N] [--python EXE] [--script PATH] [--module-dir DIR]
int RunPythonBench(const std::vector<std::string>& args);

// hwrec-bench engines [--postgresql URI] [--records N] …: SQLite and PostgreSQL in one run
int RunEnginesBench(const std::vector<std::string>& args);
// hwrec-bench targets: every write-path ratio beside its target, in one run.
int RunTargetsBench(const std::vector<std::string>& args);

// hwrec-bench concurrent-ingest [--postgresql URI] [--writers W] [--records N] …
int RunConcurrentIngestBench(const std::vector<std::string>& args);
// The hidden subcommand each of its writers runs (not in --help).
int RunConcurrentIngestWorker(const std::vector<std::string>& args);

}  // namespace hwrec::bench
