// The subcommands of hwrec-bench. Each takes the arguments after its name,
// prints what it measured and returns the process exit code.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace boost::program_options {
class options_description;
class variables_map;
}  // namespace boost::program_options

namespace hwrec::bench {

// Documented in `hwrec-bench --help`.
enum ExitCode : int { kExitOk = 0, kExitError = 1, kExitUsage = 2 };

// A command-line mistake: reported with a hint to --help, exit 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads a subcommand's options into `vm`; for --help prints "Usage: <usage>"
// and the options, and returns false (the subcommand then exits 0).
bool ParseBenchArgs(const std::vector<std::string>& args,
                    const boost::program_options::options_description& options, const char* usage,
                    boost::program_options::variables_map* vm);
// Whether --format asks for JSON ("json") or a table ("table"); anything else
// is a UsageError naming it.
bool IsJsonFormat(const std::string& format);

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
