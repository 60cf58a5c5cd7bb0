// hwrec config list|get|set and hwrec refresh: estimator settings and the
// materialised recommendations.
#include <fmt/format.h>
#include <boost/program_options.hpp>

#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli.h"
#include "commands.h"
#include "common/json_object.h"
#include "common/terminal_text.h"
#include "hwrec/config.h"
#include "hwrec/recommend.h"
#include "hwrec/refresh.h"

namespace hwrec::cli {

namespace {

void PrintConfig(const std::vector<ConfigEntry>& entries, Format format) {
  if (format == Format::kJson) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const ConfigEntry& e : entries) {
      out.push_back(tools::JsonObject("key", e.key, "value", e.value, "default", e.default_value,
                                      "description", e.description));
    }
    std::cout << tools::DumpJson(out) << "\n";
    return;
  }
  Table table({"key", "value", "default", "description"});
  for (const ConfigEntry& e : entries) {
    table.AddRow({e.key, e.value, e.default_value, e.description});
  }
  table.Print(std::cout);
}

int ConfigList(const std::vector<std::string>& args) {
  return RunListing(
      ParseStoreAndFormat(args, "hwrec config list STORE [--format table|json]", kStorePathHelp,
                          kStoreRequired, false),
      [](const Store& store) { return ListConfig(store); }, PrintConfig);
}

// `hwrec config get STORE KEY` or, with `set`, `hwrec config set STORE KEY
// VALUE`: the parsed line, or nullopt after --help.
std::optional<po::variables_map> ParseKeyArgs(const std::vector<std::string>& args, bool set) {
  const std::string usage = set ? "hwrec config set STORE KEY VALUE" : "hwrec config get STORE KEY";
  CommandLine line(usage);
  line.Store(nullptr, kStorePathHelp)
      .Add()("key", po::value<std::string>(), "config key")("value", po::value<std::string>(),
                                                            "new value");
  line.Positional("key");
  if (set) line.Positional("value");
  po::variables_map vm;
  if (!line.Parse(args, &vm)) return std::nullopt;
  if (vm.count("store") == 0 || vm.count("key") == 0 || (set && vm.count("value") == 0)) {
    throw UsageError(fmt::format("expected: {}", usage));
  }
  return vm;
}

int ConfigGet(const std::vector<std::string>& args) {
  const auto vm = ParseKeyArgs(args, false);
  if (!vm) return kExitOk;
  auto store = OpenStore((*vm)["store"].as<std::string>(), ReadingStoreOptions(false));
  if (!store) return kExitError;
  auto entry = GetConfig(*store, (*vm)["key"].as<std::string>());
  if (!entry.ok()) return Fail(entry.status());
  std::cout << TerminalSafe(entry->value) << "\n";
  return kExitOk;
}

int ConfigSet(const std::vector<std::string>& args) {
  const auto vm = ParseKeyArgs(args, true);
  if (!vm) return kExitOk;
  const std::string key = (*vm)["key"].as<std::string>();
  const std::string value = (*vm)["value"].as<std::string>();
  auto store = OpenWritableStore((*vm)["store"].as<std::string>());
  if (!store) return kExitError;
  if (Status s = SetConfig(*store, key, value); !s.ok()) return Fail(s);
  std::cout << TerminalFormat("{} = {} (recommendations refreshed)\n", key, value);
  return kExitOk;
}

}  // namespace

int RunConfig(const std::vector<std::string>& args) {
  static const tools::NestedCommands kConfig = {
      {{"list", "", ConfigList}, {"get", "", ConfigGet}, {"set", "", ConfigSet}},
      "Usage: hwrec config list STORE [--format table|json]\n"
      "       hwrec config get STORE KEY\n"
      "       hwrec config set STORE KEY VALUE\n",
      "list, get or set",
      tools::NestedCommands::kExpected,
      false};
  return tools::RunNested(kConfig, args);
}

int RunRefresh(const std::vector<std::string>& args) {
  CommandLine line("hwrec refresh STORE [--rebuild]");
  line.Store(nullptr, kStorePathHelp)
      .Add()("rebuild", po::bool_switch(), "rebuild the aggregates from the observations first");
  po::variables_map vm;
  if (!line.Parse(args, &vm)) return kExitOk;
  auto store = OpenWritableStore(RequiredStore(vm));
  if (!store) return kExitError;
  const bool rebuild = vm["rebuild"].as<bool>();
  auto rows = rebuild ? RebuildRecommendations(*store) : RefreshRecommendations(*store);
  if (!rows.ok()) return Fail(rows.status());
  std::cout << TerminalFormat("{}refreshed {} recommendation row(s)\n",
                              rebuild ? "rebuilt aggregates; " : "", *rows);
  return kExitOk;
}

}  // namespace hwrec::cli
