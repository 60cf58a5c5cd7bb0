// hwrec: the command-line tool for hwrec stores. Parses the command name, then
// hands the rest of the arguments to that command.
#include <iostream>
#include <string>
#include <vector>

#include "cli.h"
#include "commands.h"
#include "common/terminal_text.h"
#include "hwrec/store_location.h"
#include "hwrec/version.h"

namespace hwrec::cli {

const std::vector<Command>& Commands() {
  static const std::vector<Command> kCommands = {
      {"init", "create a store at the latest schema", RunInit},
      {"status", "schema version, hp version, row counts and file size", RunStatus},
      {"check", "whether a store is sound: integrity, foreign keys, schema, aggregates", RunCheck},
      {"copy", "copy a whole store into an empty one (SQLite <-> PostgreSQL), all or nothing",
       RunCopy},
      {"migrate", "apply pending schema migrations (--dry-run to preview)", RunMigrate},
      {"ingest", "ingest execution observations from JSON lines", RunIngest},
      {"recommend", "what a workload should request on one kind of hardware", RunRecommend},
      {"backtest", "how the figures would have done on the store's own history, beside presets",
       RunBacktest},
      {"refresh", "recompute the materialised recommendations (--rebuild: aggregates too)",
       RunRefresh},
      {"config", "list, get and set the estimator settings", RunConfig},
      {"report", "the backtest as one self-contained HTML page (charts and the presets' table)",
       RunReport},
      {"place", "evaluate candidate node pools for one execution and choose one", RunPlace},
      {"retry-floor", "the OOM-retry floor of an execution that ran out of memory", RunRetryFloor},
      {"route", "the provisioning ladder for a (multi-GPU) dispatch", RunRoute},
      {"quarantine", "list and resolve legacy rows held back by the hp:v2 migration",
       RunQuarantine},
      {"catalog", "list, search and extend the GPU catalog", RunCatalog},
      {"pools", "register and list node pools", RunPools},
      {"hardware-id", "print the hp:v1 and hp:v2 ids of a hardware profile", RunHardwareId},
      {"schema", "print a store's full schema (by default a fresh one's: schema/schema.sql)",
       RunSchema},
  };
  return kCommands;
}

namespace {

void PrintHelp(std::ostream& out) {
  out << tools::HelpText(
      {"hwrec", "hardware-keyed resource recommendations for GPU and CPU workloads", "command",
       "Commands", 13},
      Commands(),
      {
          {kExitOk, "success"},
          {kExitError,
           "error: nothing or not everything was done; the message says why and the fix"},
          {kExitUsage, "usage: the command line is wrong; see the command's --help"},
          {kExitPartial, "partial: done, but some records were rejected (ingest, imports)"},
          {kExitDamaged, "damaged: `hwrec check` found a problem in the store"},
          {kExitNoFit, "no fit: no candidate pool (place) or GPU rung (route) can hold the work"},
          {kExitNotLaunched,
           "not launched: every rung the walk tried missed capacity, or it ended on a rung with no "
           "recorded outcome (route)"},
          {kExitStopped, "stopped: the walk met a failure that is not a capacity miss (route)"},
      });
  out << "\nSTORE, in every command, is a PostgreSQL store when it starts with postgresql://\n"
         "or postgres:// (any case: postgresql://user@host:port/db?...) or is a libpq\n"
         "key=value string naming host, hostaddr, dbname or service; anything else is a\n"
         "SQLite file path. hwrec never prints a password or other secret of it.\n"
         "`hwrec copy SRC DST` moves a whole store between the two.\n";
}

}  // namespace

int Main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    PrintHelp(std::cerr);
    return kExitUsage;
  }
  const std::string& name = args.front();
  if (name == "-h" || name == "--help" || name == "help") {
    PrintHelp(std::cout);
    return kExitOk;
  }
  if (name == "--version" || name == "-V") {
    std::cout << "hwrec " << Version() << "\n";
    return kExitOk;
  }
  if (const Command* command = tools::FindSubcommand(Commands(), name)) {
    return tools::RunSubcommand("hwrec", *command, {args.begin() + 1, args.end()}, TerminalSafe);
  }
  std::cerr << "hwrec: unknown command '" << TerminalSafe(PrintableLocation(name))
            << "'. Try `hwrec --help`.\n";
  return kExitUsage;
}

}  // namespace hwrec::cli

int main(int argc, char** argv) { return hwrec::cli::Main(argc, argv); }
