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
  DefineValues(rung, Field{"id", &Rung::id},
               Field{"backend", [](const Rung& r) { return Name(ToString(r.backend)); }},
               Field{"machine_type", &Rung::machine_type}, Field{"gpu_model", &Rung::gpu_model},
               Field{"width", &Rung::width}, Field{"provisioning", &ProvisioningOf});

  py::class_<PrunedRung> pruned(m, "PrunedRung", "A rung left out at plan time, and why.");
  DefineValues(pruned, Field{"id", &PrunedRung::id}, Field{"reason", &PrunedRung::reason});

  py::class_<RouteAttempt> attempt(m, "RouteAttempt", "One rung a walk reached.");
  DefineValues(attempt, Field{"rung", &RouteAttempt::rung},
               Field{"outcome", [](const RouteAttempt& a) { return Name(ToString(a)); }},
               Field{"detail", &RouteAttempt::detail});
}

}  // namespace

void RegisterRouteValues(py::module_& m) {
  RegisterRungs(m);

  py::class_<RouteResult> result(m, "RouteResult", "What a walk of a ladder did.");
  DefineValues(result, Field{"intent", &RouteResult::intent},
               Field{"requested_width", &RouteResult::requested_width},
               Field{"selected", &RouteResult::selected},
               Field{"realized_width", &RouteResult::realized_width},
               Field{"degraded", &RouteResult::degraded}, Field{"stopped", &RouteResult::stopped},
               Field{"counted_gcp_attempt", &RouteResult::counted_gcp_attempt},
               Field{"attempts", &RouteResult::attempts},
               Field{"backend_selected_event", &EventOf});

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
  DefineValues(
      block, Field{"gpu_model", &QuotaBlock::gpu_model},
      Field{"quota_class", [](const QuotaBlock& b) { return Name(ToString(b.quota_class)); }},
      Field{"gpus", &QuotaBlock::gpus}, Field{"reason", &QuotaBlock::reason});

  py::class_<RouterDayState> day(m, "RouterDayState", "The walker's per-UTC-day state.");
  DefineValues(day, Field{"day", &RouterDayState::day},
               Field{"gcp_attempts", &RouterDayState::gcp_attempts},
               Field{"exhausted_quotas", &RouterDayState::exhausted_quotas},
               Field{"quota_blocks", &RouterDayState::quota_blocks});
}

}  // namespace hwrec::python
