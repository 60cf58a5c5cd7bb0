// Shared plumbing of the hwrec CLI: output formats, options, opening stores
// and the mapping from library Status to messages on stderr (exit codes,
// dispatch, tables and sizes come from tools/common/).
#pragma once

#include <iosfwd>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/dispatch.h"
#include "common/exit_codes.h"
#include "common/human_bytes.h"
#include "common/program_options_fwd.h"
#include "common/store_argument.h"
#include "common/terminal_text.h"
#include "common/text_table.h"
#include "hwrec/catalog.h"
#include "hwrec/runner.h"
#include "hwrec/status.h"
#include "hwrec/store.h"

namespace hwrec::cli {

namespace po = boost::program_options;

// The tools' shared pieces, under the names the commands use.
using tools::ExitCode;
using tools::HumanBytes;
using tools::kExitDamaged;
using tools::kExitError;
using tools::kExitNoFit;
using tools::kExitNotLaunched;
using tools::kExitOk;
using tools::kExitPartial;
using tools::kExitStopped;
using tools::kExitUsage;
using tools::Table;
using tools::TerminalFormat;
using tools::TerminalSafe;
using tools::UsageError;
using Command = tools::Subcommand;

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

// The command line of one command: its options in the order --help lists
// them, its positional arguments (STORE first when it has one), the parse.
class CommandLine {
 public:
  explicit CommandLine(std::string usage);
  ~CommandLine();
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;
  // Adds options of the command's own, in place.
  po::options_description_easy_init Add();
  // --store, the first positional argument (tools/common/store_argument.h).
  CommandLine& Store(std::string* path = nullptr, const char* help = tools::kStoreArgumentHelp);
  // Makes the option `name` (added already) the next positional argument.
  CommandLine& Positional(const char* name);
  CommandLine& Format(std::string* text);  // AddFormatOption
  CommandLine& ReadOnly(bool* strict);     // AddReadOnlyOption
  CommandLine& From(std::string* text);    // AddFromOption
  CommandLine& Epilog(std::string text);   // printed after the options in --help
  // ParseArgs: false when --help was asked and printed; throws UsageError.
  bool Parse(const std::vector<std::string>& args, po::variables_map* vm) const;

 private:
  std::string usage_;
  std::string epilog_;
  std::unique_ptr<po::options_description> options_;
  std::unique_ptr<po::positional_options_description> positional_;
};

// The help of a STORE (a file path or a PostgreSQL URI), and the store it
// names: UsageError kStoreRequired when none was given.
inline constexpr const char* kStorePathHelp = "the store: a file path or a PostgreSQL location";
inline constexpr const char* kStoreRequired =
    "the STORE (a file path or a PostgreSQL location) is required";
std::string RequiredStore(const po::variables_map& vm);

// A command of one STORE and --format (`hwrec check`, `hwrec pools list`).
struct StoreAndFormat {
  std::string store;
  Format format = Format::kTable;
};
// Parses `args` for it: nullopt after --help. Throws UsageError `missing`
// without a STORE and ParseFormat's for a bad --format; with `format_first`
// (how `pools list` and `route config show` always read their line) the
// format is checked first and an empty STORE is refused too.
std::optional<StoreAndFormat> ParseStoreAndFormat(const std::vector<std::string>& args,
                                                  const char* usage, const char* store_help,
                                                  const char* missing, bool format_first);

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

// The rest of a command that lists what a store holds (`hwrec config list`,
// `hwrec pools list`): opens `parsed`'s store read-only, prints `list(store)`
// in its format. kExitOk after --help (no `parsed`); Fail when a step fails.
template <typename List, typename Print>
int RunListing(const std::optional<StoreAndFormat>& parsed, List list, Print print) {
  if (!parsed) return kExitOk;
  auto store = OpenStore(parsed->store, ReadingStoreOptions(false));
  if (!store) return kExitError;
  auto listed = list(*store);
  if (!listed.ok()) return Fail(listed.status());
  print(*listed, parsed->format);
  return kExitOk;
}

// The exit code of an import (catalog, pools) once its summary is printed:
// kExitPartial when some records were rejected; Fail when it did not run.
template <typename Summary>
int ImportExitCode(const Result<Summary>& summary, Format format,
                   void (*print)(const Summary&, Format)) {
  if (!summary.ok()) return Fail(summary.status());
  print(*summary, format);
  return summary->errors.empty() ? kExitOk : kExitPartial;
}

// Reads a whole file, or stdin for "-". Throws std::runtime_error naming the file.
std::string ReadInput(const std::string& path);

// The help of --as-of, and its value in `vm` as epoch seconds (an RFC 3339
// time or epoch seconds): nullopt when not given; throws UsageError when bad.
inline constexpr const char* kAsOfHelp =
    "RFC 3339 time or epoch seconds the answer is stamped with (default: now); figures and "
    "confidence read the same at any time";
std::optional<double> ReadAsOf(const po::variables_map& vm);

}  // namespace hwrec::cli
