#include "common/dispatch.h"

#include <fmt/format.h>
#include <boost/program_options/errors.hpp>

#include <iostream>

#include "common/exit_codes.h"
#include "hwrec/store_location.h"
#include "hwrec/version.h"

namespace hwrec::tools {

std::string ExitCodesHelp(const std::vector<ExitCodeMeaning>& meanings) {
  std::string out = "Exit codes:\n";
  for (const ExitCodeMeaning& m : meanings)
    out += fmt::format("  {}  {}\n", int{m.code}, m.meaning);
  return out;
}

const Subcommand* FindSubcommand(const std::vector<Subcommand>& table, std::string_view name) {
  for (const Subcommand& subcommand : table) {
    if (name == subcommand.name) return &subcommand;
  }
  return nullptr;
}

std::string SubcommandList(const std::vector<Subcommand>& table, int width) {
  std::string out;
  for (const Subcommand& subcommand : table) {
    out += fmt::format("  {:<{}} {}\n", subcommand.name, width, subcommand.summary);
  }
  return out;
}

std::string HelpText(const ToolHelp& tool, const std::vector<Subcommand>& table,
                     const std::vector<ExitCodeMeaning>& exit_codes) {
  return fmt::format(
             "{0} {1}: {2}\n\n"
             "Usage: {0} <{3}> [options]\n"
             "       {0} <{3}> --help\n\n"
             "{4}:\n",
             tool.program, Version(), tool.summary, tool.noun, tool.heading) +
         SubcommandList(table, tool.width) +
         "\nOptions:\n"
         "  -h [ --help ]   show this help\n"
         "  --version       print the version\n\n" +
         ExitCodesHelp(exit_codes);
}

std::string Unfiltered(std::string_view text) { return std::string(text); }

namespace {

// The PostgreSQL locations among the running subcommand's arguments (a STORE,
// or --option=STORE), as given.
std::vector<std::string>& LocationsGiven() {
  static std::vector<std::string> locations;
  return locations;
}

}  // namespace

std::string WithoutSecrets(std::string_view message) {
  std::string out(message);
  for (const std::string& location : LocationsGiven()) out = RedactedMessage(out, location);
  return out;
}

int RunSubcommand(const char* program, const Subcommand& subcommand,
                  const std::vector<std::string>& args, MessageFilter filter) {
  LocationsGiven().clear();
  for (const std::string& arg : args) {
    std::string_view value = arg;
    if (value.rfind("--", 0) == 0 && value.find('=') != std::string_view::npos) {
      value.remove_prefix(value.find('=') + 1);
    }
    if (IsPostgresqlLocation(value)) LocationsGiven().emplace_back(value);
  }
  const auto usage = [&](const std::exception& e) {
    std::cerr << program << " " << subcommand.name << ": " << filter(WithoutSecrets(e.what()))
              << "\n"
              << "Try `" << program << " " << subcommand.name << " --help`.\n";
    return kExitUsage;
  };
  try {
    return subcommand.run(args);
  } catch (const UsageError& e) {
    return usage(e);
  } catch (const boost::program_options::error& e) {
    return usage(e);
  } catch (const std::exception& e) {
    std::cerr << program << " " << subcommand.name << ": " << filter(WithoutSecrets(e.what()))
              << "\n";
    return kExitError;
  }
}

int RunNested(const NestedCommands& commands, const std::vector<std::string>& args) {
  const bool use = commands.style == NestedCommands::kUse;
  if (args.empty()) {
    throw UsageError(fmt::format(use ? "missing subcommand: use {}" : "expected a subcommand: {}",
                                 commands.choices));
  }
  const std::string& name = args.front();
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (name == "-h" || name == "--help" || (commands.help_word && name == "help")) {
    std::cout << commands.help;
    return kExitOk;
  }
  if (const Subcommand* subcommand = FindSubcommand(commands.table, name)) {
    return subcommand->run(rest);
  }
  throw UsageError(use ? fmt::format("unknown subcommand '{}': use {}", name, commands.choices)
                       : fmt::format("expected a subcommand: {}", commands.choices));
}

}  // namespace hwrec::tools
