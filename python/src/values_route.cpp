// Result values of route, walk and router_day.
#include <pybind11/stl.h>

#include "binding.h"
#include "hwrec/ladder.h"
#include "hwrec/ladder_walk.h"
#include "hwrec/router.h"
#include "placement_view.h"
#include "values.h"

namespace hwrec::python {

namespace {

py::object ProvisioningOf(const Rung& r) {
  return r.provisioning ? py::cast(Name(ToString(*r.provisioning))) : py::none();
}

py::object EventOf(const RouteResult& r) {
  if (r.backend_selected_event.empty()) return py::none();
  return py::module_::import("json").attr("loads")(r.backend_selected_event);
}

void RegisterRungs(py::module_& m) {
  py::class_<Rung> rung(m, "Rung", "One step of a provisioning ladder.");
  rung.def_readonly("id", &Rung::id)
      .def_property_readonly("backend", [](const Rung& r) { return Name(ToString(r.backend)); })
      .def_readonly("machine_type", &Rung::machine_type)
      .def_readonly("gpu_model", &Rung::gpu_model)
      .def_readonly("width", &Rung::width)
      .def_property_readonly("provisioning", &ProvisioningOf);
  AddDictAndRepr(rung);

  py::class_<PrunedRung> pruned(m, "PrunedRung", "A rung left out at plan time, and why.");
  pruned.def_readonly("id", &PrunedRung::id).def_readonly("reason", &PrunedRung::reason);
  AddDictAndRepr(pruned);

  py::class_<RouteAttempt> attempt(m, "RouteAttempt", "One rung a walk reached.");
  attempt.def_readonly("rung", &RouteAttempt::rung)
      .def_property_readonly("outcome", [](const RouteAttempt& a) { return Name(ToString(a)); })
      .def_readonly("detail", &RouteAttempt::detail);
  AddDictAndRepr(attempt);
}

}  // namespace

void RegisterRouteValues(py::module_& m) {
  RegisterRungs(m);

  py::class_<RouteResult> result(m, "RouteResult", "What a walk of a ladder did.");
  result.def_readonly("intent", &RouteResult::intent)
      .def_readonly("requested_width", &RouteResult::requested_width)
      .def_readonly("selected", &RouteResult::selected)
      .def_readonly("realized_width", &RouteResult::realized_width)
      .def_readonly("degraded", &RouteResult::degraded)
      .def_readonly("stopped", &RouteResult::stopped)
      .def_readonly("counted_gcp_attempt", &RouteResult::counted_gcp_attempt)
      .def_readonly("attempts", &RouteResult::attempts)
      .def_property_readonly("backend_selected_event", &EventOf);
  AddDictAndRepr(result);

  py::class_<RoutePlanView> plan(m, "RoutePlan", "The ordered provisioning ladder of a dispatch.");
  plan.def_property_readonly("intent", [](const RoutePlanView& v) { return v.plan.intent; })
      .def_property_readonly("requested_width",
                             [](const RoutePlanView& v) { return v.plan.requested_width; })
      .def_property_readonly("sharded", [](const RoutePlanView& v) { return v.plan.sharded; })
      .def_property_readonly("planned_width",
                             [](const RoutePlanView& v) { return v.plan.planned_width; })
      .def_property_readonly("length_hours",
                             [](const RoutePlanView& v) { return v.plan.length_hours; })
      .def_property_readonly(
          "length_class",
          [](const RoutePlanView& v) { return Name(ToString(v.plan.length_class)); })
      .def_property_readonly(
          "ladder",
          [](const RoutePlanView& v) -> const std::vector<Rung>& { return v.plan.ladder; },
          py::return_value_policy::reference_internal)
      .def_property_readonly(
          "pruned",
          [](const RoutePlanView& v) -> const std::vector<PrunedRung>& { return v.plan.pruned; },
          py::return_value_policy::reference_internal)
      .def_property_readonly("notes", [](const RoutePlanView& v) { return v.plan.notes; })
      .def_property_readonly("no_fit",
                             [](const RoutePlanView& v) -> py::object {
                               if (v.plan.no_fit.empty()) return py::none();
                               return py::str(v.plan.no_fit);
                             })
      .def_readonly("walk", &RoutePlanView::walk);
  AddDictAndRepr(plan);

  py::class_<QuotaBlock> block(
      m, "QuotaBlock",
      "A quota found exhausted today: rungs needing `gpus` or more of it are skipped.");
  block.def_readonly("gpu_model", &QuotaBlock::gpu_model)
      .def_property_readonly("quota_class",
                             [](const QuotaBlock& b) { return Name(ToString(b.quota_class)); })
      .def_readonly("gpus", &QuotaBlock::gpus)
      .def_readonly("reason", &QuotaBlock::reason);
  AddDictAndRepr(block);

  py::class_<RouterDayState> day(m, "RouterDayState", "The walker's per-UTC-day state.");
  day.def_readonly("day", &RouterDayState::day)
      .def_readonly("gcp_attempts", &RouterDayState::gcp_attempts)
      .def_readonly("exhausted_quotas", &RouterDayState::exhausted_quotas)
      .def_readonly("quota_blocks", &RouterDayState::quota_blocks);
  AddDictAndRepr(day);
}

}  // namespace hwrec::python
