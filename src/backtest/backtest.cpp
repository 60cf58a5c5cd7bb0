#include "hwrec/backtest.h"

namespace hwrec {

Result<BacktestResult> Backtest(const Store&, const BacktestOptions&) {
  return Status::Internal("backtest: the replay is being written");
}

std::optional<FigureKind> FigureKindNamed(const std::string&) { return std::nullopt; }

}  // namespace hwrec
