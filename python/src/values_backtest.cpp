// Result values of the backtest: the replay's totals per run, figure and
// (workload, hardware key, figure) series.
#include <pybind11/stl.h>

#include "binding.h"
#include "hwrec/backtest.h"
#include "values.h"

namespace hwrec::python {

namespace {

// A list of pairs keyed by name as a dict; values referenced inside `self`.
template <typename Pairs, typename Name>
py::dict PairsDict(const py::object& self, const Pairs& pairs, Name&& name) {
  py::dict out;
  for (const auto& [key, value] : pairs) {
    out[py::str(name(key))] = py::cast(&value, py::return_value_policy::reference_internal, self);
  }
  return out;
}

}  // namespace

void RegisterBacktestValues(py::module_& m) {
  py::class_<BacktestTotals> totals(
      m, "BacktestTotals",
      "What one replay counted over a set of executions: shares as fractions; "
      "over_provisioned in GiB·h (memory_bytes, gpu_memory_gb), core·h (CPU) or card·h "
      "(gpu_compute_fraction) over the fitting executions whose duration is known (None "
      "when none is; a run's total, which mixes figures, leaves it 0).");
  DefineValues(totals, Field{"scored", &BacktestTotals::scored},
               Field{"cold", &BacktestTotals::cold}, Field{"overruns", &BacktestTotals::overruns},
               Field{"overrun_share", &BacktestTotals::overrun_share},
               Field{"mean_slack", &BacktestTotals::mean_slack},
               Field{"over_provisioned",
                     [](const BacktestTotals& t) -> std::optional<double> {
                       if (t.with_duration == 0) return std::nullopt;
                       return t.over_provisioned;
                     }},
               Field{"with_duration", &BacktestTotals::with_duration},
               Field{"new_card", &BacktestTotals::new_card,
                     "executions sized with history on other hardware only (the first on a "
                     "new card; for CPU and memory, a new instance type)"},
               Field{"new_card_scored", &BacktestTotals::new_card_scored},
               Field{"new_card_overruns", &BacktestTotals::new_card_overruns},
               Field{"new_card_mean_slack", &BacktestTotals::new_card_mean_slack},
               Field{"transferred", &BacktestTotals::transferred,
                     "scored executions whose figure was transferred from other hardware"});

  py::class_<BacktestPoint> point(
      m, "BacktestPoint", "One execution as the replay sized it (Store.report draws them).");
  DefineValues(
      point, Field{"execution_id", &BacktestPoint::execution_id},
      Field{"started_at", &BacktestPoint::started_at}, Field{"observed", &BacktestPoint::observed},
      Field{"recommended", &BacktestPoint::recommended}, Field{"lower", &BacktestPoint::lower},
      Field{"upper", &BacktestPoint::upper}, Field{"overrun", &BacktestPoint::overrun},
      Field{"oom", &BacktestPoint::oom}, Field{"transferred", &BacktestPoint::transferred});

  py::class_<BacktestSeries> series(m, "BacktestSeries",
                                    "One (workload, hardware key, figure) of a run.");
  DefineValues(
      series, Field{"workload", &BacktestSeries::workload},
      Field{"hardware", [](const BacktestSeries& s) { return HardwareKeyDict(s.hardware); }},
      Field{"figure", [](const BacktestSeries& s) { return Name(ToString(s.figure)); }},
      Field{"totals", &BacktestSeries::totals}, Field{"points", &BacktestSeries::points});

  py::class_<BacktestRun> run(
      m, "BacktestRun", "One replay: the store's settings (with the overrides), or a preset.");
  DefineValues(run, Field{"name", &BacktestRun::name},
               Field{"settings",
                     [](const BacktestRun& r) {
                       py::dict out;
                       for (const auto& [key, value] : r.settings) out[py::str(key)] = value;
                       return out;
                     }},
               Field{"total", &BacktestRun::total},
               Field{"figures",
                     [](const py::object& self) {
                       return PairsDict(self, self.cast<const BacktestRun&>().figures,
                                        [](FigureKind k) { return Name(ToString(k)); });
                     }},
               Field{"series", &BacktestRun::series});

  py::class_<BacktestResult> result(
      m, "BacktestResult",
      "The replay of the store's history (hwrec backtest): the store's run first, then each "
      "preset's, on the same executions.");
  DefineValues(result, Field{"executions", &BacktestResult::executions},
               Field{"runs", &BacktestResult::runs});
}

}  // namespace hwrec::python
