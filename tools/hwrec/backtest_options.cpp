#include "backtest_options.h"

#include <fmt/format.h>
#include <boost/program_options.hpp>

#include <string>
#include <vector>

#include "common/plain_text.h"
#include "hwrec/catalog.h"
#include "hwrec/config.h"

namespace hwrec::cli {

namespace {

std::vector<std::string> PresetNames() {
  std::vector<std::string> names;
  for (const BacktestPreset& preset : BacktestPresets()) names.push_back(preset.name);
  return names;
}

std::vector<std::string> FigureNames() {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < kFigureCount; ++i) {
    names.emplace_back(ToString(static_cast<FigureKind>(i)));
  }
  return names;
}

std::vector<std::string> Strings(const po::variables_map& vm, const char* name) {
  return vm.count(name) != 0 ? vm[name].as<std::vector<std::string>>() : std::vector<std::string>();
}

// --set KEY=VALUE, checked as `hwrec config set` checks a value.
std::pair<std::string, std::string> ReadOverride(const std::string& text) {
  const auto equals = text.find('=');
  if (equals == std::string::npos || equals == 0) {
    throw UsageError(fmt::format(
        "--set takes KEY=VALUE (a key of `hwrec config list`), e.g. --set memory.statistic=p99; "
        "got '{}'",
        text));
  }
  std::pair<std::string, std::string> setting{text.substr(0, equals), text.substr(equals + 1)};
  const Status valid = CheckConfigValue(setting.first, setting.second);
  if (!valid.ok()) throw UsageError("--set " + valid.message());
  return setting;
}

// `text` in lines of at most `width` columns after an indent of `indent`
// (the first line's indent is the caller's).
std::string Wrapped(const std::string& text, std::size_t indent, std::size_t width) {
  std::string out;
  std::size_t column = indent;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    if (column > indent && column + 1 + word.size() > width) {
      out += "\n" + std::string(indent, ' ');
      column = indent;
    } else if (column > indent) {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
    start = end + 1;
  }
  return out;
}

}  // namespace

std::string BacktestPresetsHelp() {
  std::string help = "\nPresets (estimator settings; keys they leave out keep the store's):\n";
  for (const BacktestPreset& p : BacktestPresets()) {
    help += fmt::format("  {:<13}{}\n{:<15}{}\n", p.name, Wrapped(p.description, 15, 79), "",
                        Wrapped("source: " + p.source, 15, 79));
  }
  return help;
}

void AddBacktestOptions(CommandLine& line, PresetDefault presets) {
  line.Add()("image", po::value<std::string>(), "only this workload (action image)")(
      "gpu-model", po::value<std::string>(),
      "only this catalog GPU model, e.g. \"A100 80GB\"; `unknown` for pools whose model is not "
      "recorded")("instance-type", po::value<std::string>(), "only this instance type")(
      "figure", po::value<std::string>(),
      "only this figure: cpu_request_millicores, cpu_limit_millicores, memory_bytes, "
      "gpu_memory_gb or gpu_compute_fraction (default: every figure)")(
      "set", po::value<std::vector<std::string>>()->composing(),
      "KEY=VALUE: a config key (`hwrec config list`) set for the store's own run; repeatable")(
      "preset", po::value<std::vector<std::string>>()->composing(),
      presets == PresetDefault::kEvery
          ? "a rule replayed beside the store's settings: intelliscale, vpa (VPA-like) or "
            "autopilot; "
            "repeatable (default: all three; `none`: the store's run alone)"
          : "a rule replayed beside the store's settings: intelliscale, vpa (VPA-like) or "
            "autopilot; "
            "repeatable (default: none, the store's run alone)");
}

BacktestOptions ReadBacktestOptions(const po::variables_map& vm, PresetDefault preset_default) {
  BacktestOptions options;
  if (vm.count("image") != 0) options.image = vm["image"].as<std::string>();
  if (vm.count("instance-type") != 0) {
    options.instance_type = vm["instance-type"].as<std::string>();
  }
  if (vm.count("figure") != 0) {
    const std::string name = vm["figure"].as<std::string>();
    options.figure = ParseFigureKind(name);
    if (!options.figure) {
      throw UsageError(
          fmt::format("--figure must be {}; got '{}'", tools::JoinOr(FigureNames()), name));
    }
  }
  for (const std::string& text : Strings(vm, "set"))
    options.overrides.push_back(ReadOverride(text));
  const std::vector<std::string> presets = Strings(vm, "preset");
  if (presets.empty() && preset_default == PresetDefault::kEvery) options.presets = PresetNames();
  for (const std::string& name : presets) {
    if (name == "none" && presets.size() == 1) continue;
    if (FindBacktestPreset(name) == nullptr) {
      throw UsageError(fmt::format("--preset must be {} (or none alone); got '{}'",
                                   tools::JoinOr(PresetNames()), name));
    }
    options.presets.push_back(name);
  }
  // Backtest checks the model against the store's catalog, naming the flag.
  if (vm.count("gpu-model") != 0) options.gpu_model = vm["gpu-model"].as<std::string>();
  options.gpu_model_field = "--gpu-model";
  return options;
}

}  // namespace hwrec::cli
