// Store.route, Store.walk and Store.router_day: the width router's ladder and
// the dispatcher's walk with a Python launcher.
#include <pybind11/stl.h>

#include <exception>

#include "binding.h"
#include "hwrec/ladder.h"
#include "hwrec/ladder_walk.h"
#include "hwrec/router.h"
#include "hwrec/simulated_capacity.h"
#include "hwrec/time_text.h"
#include "placement_view.h"

namespace hwrec::python {

namespace {

double LengthHours(const py::handle& length) {
  if (PyBool_Check(length.ptr())) {  // an int to Python, never a length
    throw py::type_error("length: a bool is not a duration: give one such as \"6h\" or hours");
  }
  if (py::isinstance<py::str>(length)) {
    Result<double> hours = ParseDurationHours(Utf8(length, "length"));
    if (!hours.ok()) ThrowStatus(Status::InvalidArgument("length: " + hours.status().message()));
    return *hours;
  }
  if (py::isinstance<py::int_>(length) || py::isinstance<py::float_>(length)) {
    return length.cast<double>();
  }
  throw py::type_error("length: expected a duration such as \"6h\" or a number of hours");
}

SimulatedCapacity ReadCapacity(const py::handle& simulate) {
  if (!py::isinstance<py::dict>(simulate)) {
    throw py::type_error("simulate: expected a dict with available, failures and day");
  }
  const std::string json = ToJson(simulate, "simulate");
  return Unwrap(ParseSimulatedCapacity(json, "simulate"));
}

RoutePlanView Route(PyStore& s, const std::string& intent, int width, const py::object& length,
                    const py::object& simulate, const py::object& as_of, bool sharded) {
  const double hours = LengthHours(length);
  const std::optional<SimulatedCapacity> capacity =
      simulate.is_none() ? std::nullopt : std::optional<SimulatedCapacity>(ReadCapacity(simulate));
  const std::optional<double> when = EpochSeconds(as_of, "as_of");
  Claim claim(s);
  RoutePlanView view;
  const Status status = [&]() -> Status {
    py::gil_scoped_release release;
    Result<RouterSnapshot> snapshot = RouterSnapshot::Load(*s.store, when);
    if (!snapshot.ok()) return snapshot.status();
    Result<RoutePlan> plan = BuildLadder(*snapshot, RouteRequest{intent, width, hours, sharded});
    if (!plan.ok()) return plan.status();
    view.plan = std::move(plan).value();
    if (!capacity) return Status::Ok();
    WalkOptions walk;
    walk.dry_run = true;
    walk.now = capacity->now;
    Result<RouteResult> walked = WalkLadder(
        *s.store, view.plan, [&](const Rung& rung) { return SimulateLaunch(*capacity, rung); },
        walk);
    if (!walked.ok()) return walked.status();
    view.walk = std::move(walked).value();
    return Status::Ok();
  }();
  Check(status);
  return view;
}

// What a launcher returned: an outcome name, or (outcome, detail).
LaunchResult ReadLaunch(const py::object& returned) {
  py::object outcome = returned;
  LaunchResult out;
  if (py::isinstance<py::tuple>(returned) && py::len(returned) == 2) {
    outcome = returned.cast<py::tuple>()[0];
    const py::object detail = returned.cast<py::tuple>()[1];
    if (!py::isinstance<py::str>(detail)) {
      ThrowStatus(
          Status::InvalidArgument("launcher: returned (outcome, detail) with a detail of type " +
                                  std::string(Py_TYPE(detail.ptr())->tp_name) +
                                  ": the detail is text, e.g. "
                                  "(\"capacity_miss\", \"zone us-central1-a has no A100\")"));
    }
    out.detail = Utf8(detail, "launcher: the detail it returned");
  }
  const std::optional<LaunchOutcome> parsed =
      py::isinstance<py::str>(outcome)
          ? ParseLaunchOutcome(Utf8(outcome, "launcher: the outcome it returned"))
          : std::nullopt;
  if (!parsed) {
    ThrowStatus(Status::InvalidArgument(
        "launcher: returned " + py::repr(returned).cast<std::string>() +
        ": return launched, capacity_miss, quota_exceeded, config_error, permission_error, "
        "workload_failure or not_tried, or a tuple (outcome, detail)"));
  }
  out.outcome = *parsed;
  return out;
}

RouteResult Walk(PyStore& s, const RoutePlanView& plan, const py::function& launcher, bool dry_run,
                 const py::object& now) {
  WalkOptions options;
  options.dry_run = dry_run;
  options.now = EpochSeconds(now, "now");
  Claim claim(s);
  // An exception from the launcher stops the walk (as a failure that does not
  // cascade) and is raised again once the walk has returned.
  std::exception_ptr raised;
  const Launcher call = [&](const Rung& rung) -> LaunchResult {
    py::gil_scoped_acquire gil;
    try {
      return ReadLaunch(launcher(rung));
    } catch (...) {
      raised = std::current_exception();
      return {LaunchOutcome::kConfigError, "the launcher raised an exception"};
    }
  };
  Result<RouteResult> result = [&] {
    py::gil_scoped_release release;
    return WalkLadder(*s.store, plan.plan, call, options);
  }();
  if (raised) std::rethrow_exception(raised);
  return Unwrap(std::move(result));
}

}  // namespace

void DefineRouteMethods(py::class_<PyStore, std::shared_ptr<PyStore>>& cls) {
  cls.def("route", &Route, py::arg("intent"), py::arg("width"), py::arg("length"),
          py::arg("simulate") = py::none(), py::arg("as_of") = py::none(),
          py::arg("sharded").noconvert() = false,
          "The provisioning ladder for one dispatch; width > 1 needs sharded=True (the launch "
          "command splits the work across the GPUs it gets). With `simulate` (a capacity dict "
          "like the CLI's --simulate file) also walked as a dry run.")
      .def("walk", &Walk, py::arg("plan"), py::arg("launcher"),
           py::arg("dry_run").noconvert() = false, py::arg("now") = py::none(),
           "Walks `plan`, calling launcher(rung) for each rung tried, and records the day's "
           "GCP attempt and quota blocks in the store (unless dry_run).")
      .def(
          "router_day",
          [](PyStore& s, const py::object& now) {
            const std::optional<double> when = EpochSeconds(now, "now");
            Claim claim(s);
            Result<RouterDayState> day = [&] {
              py::gil_scoped_release release;
              return ReadRouterDayState(*s.store, when);
            }();
            return Unwrap(std::move(day));
          },
          py::arg("now") = py::none());
}

}  // namespace hwrec::python
