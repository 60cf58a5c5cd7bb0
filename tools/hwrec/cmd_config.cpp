// hwrec config list|get|set and hwrec refresh: estimator settings and the
// materialised recommendations.
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "cli.h"
#include "commands.h"
#include "hwrec/config.h"
#include "hwrec/recommend.h"
#include "hwrec/refresh.h"
#include "terminal_text.h"

namespace hwrec::cli {

namespace {

int ConfigList(const std::vector<std::string>& args) {
  po::options_description options("Options");
  std::string format_text;
  options.add_options()("store", po::value<std::string>(), "path of the store");
  AddFormatOption(options, &format_text);
  po::positional_options_description positional;
  positional.add("store", 1);
  po::variables_map vm;
  if (!ParseArgs(args, "hwrec config list STORE [--format table|json]", options, positional, &vm)) {
    return kExitOk;
  }
  if (vm.count("store") == 0) throw UsageError("the STORE path is required");
  const Format format = ParseFormat(format_text);
  StoreOptions read_only;
  read_only.read_only = true;
  auto store = OpenStore(vm["store"].as<std::string>(), read_only);
  if (!store) return kExitError;
  auto entries = ListConfig(*store);
  if (!entries.ok()) return Fail(entries.status());
  if (format == Format::kJson) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const ConfigEntry& e : *entries) {
      out.push_back({{"key", e.key},
                     {"value", e.value},
                     {"default", e.default_value},
                     {"description", e.description}});
    }
    std::cout << DumpJson(out) << "\n";
    return kExitOk;
  }
  Table table({"key", "value", "default", "description"});
  for (const ConfigEntry& e : *entries) {
    table.AddRow({e.key, e.value, e.default_value, e.description});
  }
  table.Print(std::cout);
  return kExitOk;
}

int ConfigGetOrSet(const std::vector<std::string>& args, bool set) {
  po::options_description options("Options");
  options.add_options()("store", po::value<std::string>(), "path of the store")(
      "key", po::value<std::string>(), "config key")("value", po::value<std::string>(),
                                                     "new value");
  po::positional_options_description positional;
  positional.add("store", 1).add("key", 1);
  if (set) positional.add("value", 1);
  po::variables_map vm;
  const std::string usage = set ? "hwrec config set STORE KEY VALUE" : "hwrec config get STORE KEY";
  if (!ParseArgs(args, usage, options, positional, &vm)) return kExitOk;
  if (vm.count("store") == 0 || vm.count("key") == 0 || (set && vm.count("value") == 0)) {
    throw UsageError(fmt::format("expected: {}", usage));
  }
  const std::string key = vm["key"].as<std::string>();
  if (!set) {
    StoreOptions read_only;
    read_only.read_only = true;
    auto store = OpenStore(vm["store"].as<std::string>(), read_only);
    if (!store) return kExitError;
    auto entry = GetConfig(*store, key);
    if (!entry.ok()) return Fail(entry.status());
    std::cout << TerminalSafe(entry->value) << "\n";
    return kExitOk;
  }
  auto store = OpenWritableStore(vm["store"].as<std::string>());
  if (!store) return kExitError;
  if (Status s = SetConfig(*store, key, vm["value"].as<std::string>()); !s.ok()) return Fail(s);
  std::cout << TerminalFormat("{} = {} (recommendations refreshed)\n", key,
                              vm["value"].as<std::string>());
  return kExitOk;
}

}  // namespace

int RunConfig(const std::vector<std::string>& args) {
  const std::string sub = args.empty() ? "" : args.front();
  const std::vector<std::string> rest(args.begin() + (args.empty() ? 0 : 1), args.end());
  if (sub == "list") return ConfigList(rest);
  if (sub == "get") return ConfigGetOrSet(rest, false);
  if (sub == "set") return ConfigGetOrSet(rest, true);
  if (sub == "--help" || sub == "-h") {
    std::cout << "Usage: hwrec config list STORE [--format table|json]\n"
                 "       hwrec config get STORE KEY\n"
                 "       hwrec config set STORE KEY VALUE\n";
    return kExitOk;
  }
  throw UsageError("expected a subcommand: list, get or set");
}

int RunRefresh(const std::vector<std::string>& args) {
  po::options_description options("Options");
  options.add_options()("store", po::value<std::string>(), "path of the store")(
      "rebuild", po::bool_switch(), "rebuild the aggregates from the observations first");
  po::positional_options_description positional;
  positional.add("store", 1);
  po::variables_map vm;
  if (!ParseArgs(args, "hwrec refresh STORE [--rebuild]", options, positional, &vm)) {
    return kExitOk;
  }
  if (vm.count("store") == 0) throw UsageError("the STORE path is required");
  auto store = OpenWritableStore(vm["store"].as<std::string>());
  if (!store) return kExitError;
  const bool rebuild = vm["rebuild"].as<bool>();
  auto rows = rebuild ? RebuildRecommendations(*store) : RefreshRecommendations(*store);
  if (!rows.ok()) return Fail(rows.status());
  std::cout << TerminalFormat("{}refreshed {} recommendation row(s)\n",
                              rebuild ? "rebuilt aggregates; " : "", *rows);
  return kExitOk;
}

}  // namespace hwrec::cli
