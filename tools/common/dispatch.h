// Subcommand dispatch shared by hwrec and hwrec-bench: a table of name,
// one-line summary and handler; the lookup; the help listing; and the one
// place that turns a handler's exception into a message and an exit code.
#pragma once

#include <iosfwd>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace hwrec::tools {

struct ExitCodeMeaning;

// A command-line mistake: reported with a hint to --help, exit 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Takes the arguments after the subcommand's name; returns the exit code.
using HandlerFunction = int(const std::vector<std::string>& args);
using Handler = HandlerFunction*;

struct Subcommand {
  const char* name;
  const char* summary;
  Handler run;
};

// The entry named `name`, or nullptr.
const Subcommand* FindSubcommand(const std::vector<Subcommand>& table, std::string_view name);

// One line "  <name padded to width> <summary>" per entry.
std::string SubcommandList(const std::vector<Subcommand>& table, int width);

// What a tool's --help says: "<program> <version>: <summary>", the usage
// lines, the subcommands (`noun`s, under `heading`, names padded to
// `width`), the global options and the exit codes.
struct ToolHelp {
  const char* program;
  const char* summary;
  const char* noun;     // "command"
  const char* heading;  // "Commands"
  int width;
};
std::string HelpText(const ToolHelp& tool, const std::vector<Subcommand>& table,
                     const std::vector<ExitCodeMeaning>& exit_codes);

// How messages are shown (hwrec passes TerminalSafe; hwrec-bench the identity).
using MessageFilter = std::string (*)(std::string_view);
std::string Unfiltered(std::string_view text);

// Runs `subcommand` with `args`. A UsageError or a Boost.Program_options error
// prints "<program> <name>: <what>" and "Try `<program> <name> --help`." to
// stderr and returns kExitUsage; any other std::exception prints
// "<program> <name>: <what>" and returns kExitError. Every message printed
// has the secrets of each PostgreSQL location among `args` masked
// (RedactedMessage).
int RunSubcommand(const char* program, const Subcommand& subcommand,
                  const std::vector<std::string>& args, MessageFilter filter);

// `message` with the secrets of every PostgreSQL location among the running
// subcommand's arguments masked (RedactedMessage): what the tools print of any
// message that may quote one. Not thread-safe: for the tool's main thread.
std::string WithoutSecrets(std::string_view message);

// The second level of a command with subcommands of its own (`hwrec pools
// import`): `help` is printed for -h/--help (and the word help when
// `help_word`). Without a subcommand, or with one not in `table`, a
// UsageError names the `choices` ("list or import"): in the kUse style
// "missing subcommand: use <choices>" and "unknown subcommand '<name>': use
// <choices>"; in the kExpected style "expected a subcommand: <choices>".
struct NestedCommands {
  enum Style { kUse, kExpected };
  std::vector<Subcommand> table;
  const char* help;
  const char* choices;
  Style style = kUse;
  bool help_word = true;
};
int RunNested(const NestedCommands& commands, const std::vector<std::string>& args);

}  // namespace hwrec::tools
