// The options `hwrec backtest` and `hwrec report` share: which executions are
// scored (--image, --gpu-model, --instance-type, --figure), the overrides of
// the store's settings (--set) and the presets replayed beside them.
#pragma once

#include <string>

#include "cli.h"
#include "hwrec/backtest.h"

namespace hwrec::cli {

void AddBacktestOptions(CommandLine* line);
// The presets with their rules and sources, for --help.
std::string BacktestPresetsHelp();
// Throws UsageError for a malformed --set or an unknown --preset or --figure;
// an unknown --gpu-model is an error naming the closest catalog models.
Result<BacktestOptions> ReadBacktestOptions(const po::variables_map& vm, const Store& store);

}  // namespace hwrec::cli
