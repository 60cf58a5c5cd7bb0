// The options `hwrec backtest` and `hwrec report` share: which executions
// are scored (--image, --gpu-model, --instance-type, --figure), config keys
// set for the store's run (--set KEY=VALUE) and the presets replayed beside
// it (--preset NAME), read into hwrec::BacktestOptions.
#pragma once

#include "cli.h"
#include "hwrec/backtest.h"
#include "hwrec/store.h"

namespace hwrec::cli {

// Which presets run when no --preset is given: every one (`hwrec report`),
// or none, the store's run alone.
enum class PresetDefault { kEvery, kNone };

// The presets with their rules and sources, for --help.
std::string BacktestPresetsHelp();

// Adds the options above to `line`, in the order --help lists them.
void AddBacktestOptions(CommandLine& line, PresetDefault presets = PresetDefault::kEvery);

// The options given (Backtest checks --gpu-model against the store's
// catalog, and names the flag). Without --preset, the `presets` default; `--preset none` for the
// store's run alone. Throws UsageError for an unknown --figure or --preset
// (listing the names), a --set that is not KEY=VALUE or whose key or value
// the config refuses.
BacktestOptions ReadBacktestOptions(const po::variables_map& vm,
                                    PresetDefault presets = PresetDefault::kEvery);

}  // namespace hwrec::cli
