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
  totals.def_readonly("scored", &BacktestTotals::scored)
      .def_readonly("cold", &BacktestTotals::cold)
      .def_readonly("overruns", &BacktestTotals::overruns)
      .def_readonly("overrun_share", &BacktestTotals::overrun_share)
      .def_readonly("mean_slack", &BacktestTotals::mean_slack)
      .def_property_readonly("over_provisioned",
                             [](const BacktestTotals& t) -> std::optional<double> {
                               if (t.with_duration == 0) return std::nullopt;
                               return t.over_provisioned;
                             })
      .def_readonly("with_duration", &BacktestTotals::with_duration);
  AddDictAndRepr(totals);

  py::class_<BacktestPoint> point(
      m, "BacktestPoint", "One execution as the replay sized it (Store.report draws them).");
  point.def_readonly("execution_id", &BacktestPoint::execution_id)
      .def_readonly("started_at", &BacktestPoint::started_at)
      .def_readonly("observed", &BacktestPoint::observed)
      .def_readonly("recommended", &BacktestPoint::recommended)
      .def_readonly("lower", &BacktestPoint::lower)
      .def_readonly("upper", &BacktestPoint::upper)
      .def_readonly("overrun", &BacktestPoint::overrun)
      .def_readonly("oom", &BacktestPoint::oom);
  AddDictAndRepr(point);

  py::class_<BacktestSeries> series(m, "BacktestSeries",
                                    "One (workload, hardware key, figure) of a run.");
  series.def_readonly("workload", &BacktestSeries::workload)
      .def_property_readonly("hardware",
                             [](const BacktestSeries& s) { return HardwareKeyDict(s.hardware); })
      .def_property_readonly("figure",
                             [](const BacktestSeries& s) { return Name(ToString(s.figure)); })
      .def_readonly("totals", &BacktestSeries::totals)
      .def_readonly("points", &BacktestSeries::points);
  AddDictAndRepr(series);

  py::class_<BacktestRun> run(
      m, "BacktestRun", "One replay: the store's settings (with the overrides), or a preset.");
  run.def_readonly("name", &BacktestRun::name)
      .def_property_readonly("settings",
                             [](const BacktestRun& r) {
                               py::dict out;
                               for (const auto& [key, value] : r.settings)
                                 out[py::str(key)] = value;
                               return out;
                             })
      .def_readonly("total", &BacktestRun::total)
      .def_property_readonly("figures",
                             [](const py::object& self) {
                               return PairsDict(self, self.cast<const BacktestRun&>().figures,
                                                [](FigureKind k) { return Name(ToString(k)); });
                             })
      .def_readonly("series", &BacktestRun::series);
  AddDictAndRepr(run);

  py::class_<BacktestResult> result(
      m, "BacktestResult",
      "The replay of the store's history (hwrec backtest): the store's run first, then each "
      "preset's, on the same executions.");
  result.def_readonly("executions", &BacktestResult::executions)
      .def_readonly("runs", &BacktestResult::runs);
  AddDictAndRepr(result);
}

}  // namespace hwrec::python
