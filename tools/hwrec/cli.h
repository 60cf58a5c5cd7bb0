// Shared plumbing of the hwrec CLI: commands, exit codes, output formats and
// the mapping from library Status to messages on stderr.
#pragma once

#include <boost/program_options.hpp>

#include <iosfwd>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "hwrec/runner.h"
#include "hwrec/status.h"
#include "hwrec/store.h"

namespace hwrec::cli {

namespace po = boost::program_options;

// Documented in `hwrec --help`.
enum ExitCode : int {
  kExitOk = 0,
  kExitError = 1,
  kExitUsage = 2,
  kExitPartial = 3,
  kExitDamaged = 4,  // `hwrec check` found a problem
};

// A usage mistake: printed with a hint to --help, exit 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Command {
  const char* name;
  const char* summary;
  // args excludes "hwrec" and the command name.
  int (*run)(const std::vector<std::string>& args);
};

const std::vector<Command>& Commands();  // defined in main.cpp

enum class Format { kTable, kJson, kJsonLines };

// Adds --format table|json to `options`, storing into `*format_text`.
void AddFormatOption(po::options_description& options, std::string* format_text);
Format ParseFormat(const std::string& text);  // throws UsageError; table or json
// Same, also accepting jsonl (one JSON object per line, as work goes).
Format ParseStreamingFormat(const std::string& text);
// Adds --from auto|hwrec|runner (the records' shape, docs/RUNNER.md).
void AddFromOption(po::options_description& options, std::string* from_text);
RecordForm ParseFromOption(const std::string& text);  // throws UsageError

// Redraws one progress line in place on stderr: "<label> [###...] 42% <detail>",
// or "<label> <detail>" when the share is unknown. `last` ends the line.
void DrawProgressLine(const std::string& label, std::optional<double> share,
                      const std::string& detail, bool last);

// Parses `args` against `options` (+ positionals). Returns false when --help was
// asked (after printing `usage` and options to stdout); throws UsageError.
bool ParseArgs(const std::vector<std::string>& args, const std::string& usage,
               const po::options_description& options,
               const po::positional_options_description& positional, po::variables_map* vm);

// Prints "hwrec: <message>" to stderr and returns kExitError.
int Fail(const Status& status);

// Opens a store or returns nullptr after printing why. ":memory:" is refused:
// a store there would vanish with the command.
std::unique_ptr<Store> OpenStore(const std::string& path, const StoreOptions& options = {});
// A throwaway in-memory store at the latest schema, for commands run without one.
std::unique_ptr<Store> OpenScratchStore();
// Adds --read-only: open the store without writing anything to it, not even
// to roll back an interrupted write or to restore WAL.
void AddReadOnlyOption(po::options_description& options, bool* strict);
// The options of a command that only reads; `strict` is --read-only.
StoreOptions ReadingStoreOptions(bool strict);
// Same, and also requires a writable store at the latest schema.
std::unique_ptr<Store> OpenWritableStore(const std::string& path);

// A plain text table with left-aligned columns, headers underlined. Every cell
// is shown through TerminalSafe (terminal_text.h): callers add raw text.
class Table {
 public:
  explicit Table(std::vector<std::string> headers);
  void AddRow(std::vector<std::string> cells);
  void Print(std::ostream& out) const;
  std::size_t rows() const { return rows_.size(); }

 private:
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
};

// Reads a whole file, or stdin for "-". Throws std::runtime_error naming the file.
std::string ReadInput(const std::string& path);

// "1.5 GiB", "812 KiB"
std::string HumanBytes(std::int64_t bytes);

}  // namespace hwrec::cli
