// The subcommands of hwrec-bench. Each takes the arguments after its name,
// prints what it measured and returns the process exit code.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace hwrec::bench {

// Documented in `hwrec-bench --help`.
enum ExitCode : int { kExitOk = 0, kExitError = 1, kExitUsage = 2 };

// A command-line mistake: reported with a hint to --help, exit 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// hwrec-bench ingest --observations N [--seed S] [--batch B] [--store PATH] [--format F]
int RunIngestBench(const std::vector<std::string>& args);

// hwrec-bench recommend [--observations N] [--seed S] [--lookups L] [--format F]
int RunRecommendBench(const std::vector<std::string>& args);

// hwrec-bench fixture legacy --rows N [--seed S] STORE
int RunFixtureBench(const std::vector<std::string>& args);
// hwrec-bench migrate --rows N [--seed S] [--backup]
int RunMigrateBench(const std::vector<std::string>& args);

// hwrec-bench route [--iterations N] [--walks W] [--format F]
int RunRouteBench(const std::vector<std::string>& args);

// hwrec-bench place [--iterations N] | --openb DIR [--pods N] [--emit DIR]
int RunPlaceBench(const std::vector<std::string>& args);

// hwrec-bench python [--iterations N] [--python EXE] [--script PATH] [--module-dir DIR]
int RunPythonBench(const std::vector<std::string>& args);

}  // namespace hwrec::bench
