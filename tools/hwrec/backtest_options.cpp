#include "backtest_options.h"

#include <fmt/format.h>

#include "hwrec/catalog.h"
#include "hwrec/store.h"

namespace hwrec::cli {

namespace {

std::string FigureNames() {
  std::string names;
  for (std::size_t f = 0; f < kFigureCount; ++f) {
    names += (names.empty() ? "" : ", ") + std::string(ToString(static_cast<FigureKind>(f)));
  }
  return names;
}

std::string PresetNames() {
  std::string names;
  for (const BacktestPreset& p : BacktestPresets()) names += (names.empty() ? "" : ", ") + p.name;
  return names;
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

void AddBacktestOptions(CommandLine* line) {
  line->Add()("image", po::value<std::string>(), "only this workload (action image)")(
      "gpu-model", po::value<std::string>(),
      "only executions on this catalog GPU model, e.g. \"A100 80GB\"; `unknown` for those whose "
      "model is not recorded")("instance-type", po::value<std::string>(),
                               "only executions on this instance type")(
      "figure", po::value<std::string>(), "only this figure, e.g. gpu_memory_gb")(
      "set", po::value<std::vector<std::string>>()->composing(),
      "KEY=VALUE: replay the store's settings with this config key changed (repeatable; "
      "`hwrec config list` shows the keys)")(
      "preset", po::value<std::vector<std::string>>()->composing(),
      "replay this rule beside the store's settings, on the same executions (repeatable): "
      "intelliscale, vpa or autopilot");
}

std::string BacktestPresetsHelp() {
  std::string help = "\nPresets (estimator settings; keys they leave out keep the store's):\n";
  for (const BacktestPreset& p : BacktestPresets()) {
    help += fmt::format("  {:<13}{}\n{:<15}{}\n", p.name, Wrapped(p.description, 15, 79), "",
                        Wrapped("source: " + p.source, 15, 79));
  }
  return help;
}

Result<BacktestOptions> ReadBacktestOptions(const po::variables_map& vm, const Store& store) {
  BacktestOptions options;
  if (vm.count("image") != 0) options.image = vm["image"].as<std::string>();
  if (vm.count("instance-type") != 0) {
    options.instance_type = vm["instance-type"].as<std::string>();
  }
  if (vm.count("figure") != 0) {
    const std::string name = vm["figure"].as<std::string>();
    options.figure = FigureKindNamed(name);
    if (!options.figure) {
      throw UsageError(
          fmt::format("--figure '{}' is not a figure: use one of {}", name, FigureNames()));
    }
  }
  if (vm.count("set") != 0) {
    for (const std::string& pair : vm["set"].as<std::vector<std::string>>()) {
      const auto eq = pair.find('=');
      if (eq == std::string::npos || eq == 0) {
        throw UsageError(
            fmt::format("--set '{}' must be KEY=VALUE, e.g. --set gpu_memory.margin=0.2", pair));
      }
      options.overrides.emplace_back(pair.substr(0, eq), pair.substr(eq + 1));
    }
  }
  if (vm.count("preset") != 0) {
    for (const std::string& name : vm["preset"].as<std::vector<std::string>>()) {
      if (FindBacktestPreset(name) == nullptr) {
        throw UsageError(
            fmt::format("--preset '{}' is not a preset: use one of {}", name, PresetNames()));
      }
      options.presets.push_back(name);
    }
  }
  if (vm.count("gpu-model") != 0) {
    const std::string model = vm["gpu-model"].as<std::string>();
    if (model == "unknown") {
      options.gpu_model = model;
    } else {
      auto found = CatalogModelNamed(store, std::nullopt, model, "--gpu-model",
                                     "`unknown` for executions whose model is not recorded");
      if (!found.ok()) return found.status();
      options.gpu_model = found->model;
    }
  }
  return options;
}

}  // namespace hwrec::cli
