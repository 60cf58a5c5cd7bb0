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

py::dict RungDict(const Rung& r) {
  py::dict d;
  d["id"] = r.id;
  d["backend"] = Name(ToString(r.backend));
  d["machine_type"] = r.machine_type;
  d["gpu_model"] = r.gpu_model;
  d["width"] = r.width;
  d["provisioning"] = ProvisioningOf(r);
  return d;
}

py::dict PrunedDict(const PrunedRung& p) {
  py::dict d;
  d["id"] = p.id;
  d["reason"] = p.reason;
  return d;
}

py::dict AttemptDict(const RouteAttempt& a) {
  py::dict d;
  d["rung"] = RungDict(a.rung);
  d["outcome"] = Name(ToString(a.outcome));
  d["detail"] = a.detail;
  return d;
}

py::object EventOf(const RouteResult& r) {
  if (r.backend_selected_event.empty()) return py::none();
  return py::module_::import("json").attr("loads")(r.backend_selected_event);
}

py::dict ResultDict(const RouteResult& r) {
  py::dict d;
  d["intent"] = r.intent;
  d["requested_width"] = r.requested_width;
  d["selected"] = r.selected ? py::object(RungDict(*r.selected)) : py::none();
  d["realized_width"] = r.realized_width;
  d["degraded"] = r.degraded;
  d["stopped"] = r.stopped;
  d["counted_gcp_attempt"] = r.counted_gcp_attempt;
  d["attempts"] = DictList(r.attempts, AttemptDict);
  d["backend_selected_event"] = EventOf(r);
  return d;
}

py::dict PlanDict(const RoutePlanView& v) {
  const RoutePlan& p = v.plan;
  py::dict d;
  d["intent"] = p.intent;
  d["requested_width"] = p.requested_width;
  d["sharded"] = p.sharded;
  d["planned_width"] = p.planned_width;
  d["length_hours"] = p.length_hours;
  d["length_class"] = Name(ToString(p.length_class));
  d["ladder"] = DictList(p.ladder, RungDict);
  d["pruned"] = DictList(p.pruned, PrunedDict);
  d["notes"] = py::cast(p.notes);
  d["no_fit"] = p.no_fit.empty() ? py::object(py::none()) : py::str(p.no_fit);
  d["walk"] = v.walk ? py::object(ResultDict(*v.walk)) : py::none();
  return d;
}

py::dict QuotaBlockDict(const QuotaBlock& b) {
  py::dict d;
  d["gpu_model"] = b.gpu_model;
  d["quota_class"] = Name(ToString(b.quota_class));
  d["gpus"] = b.gpus;
  d["reason"] = b.reason;
  return d;
}

py::dict DayDict(const RouterDayState& s) {
  py::dict d;
  d["day"] = s.day;
  d["gcp_attempts"] = s.gcp_attempts;
  d["exhausted_quotas"] = py::cast(s.exhausted_quotas);
  d["quota_blocks"] = DictList(s.quota_blocks, QuotaBlockDict);
  return d;
}

void RegisterRungs(py::module_& m) {
  py::class_<Rung> rung(m, "Rung", "One step of a provisioning ladder.");
  rung.def_readonly("id", &Rung::id)
      .def_property_readonly("backend", [](const Rung& r) { return Name(ToString(r.backend)); })
      .def_readonly("machine_type", &Rung::machine_type)
      .def_readonly("gpu_model", &Rung::gpu_model)
      .def_readonly("width", &Rung::width)
      .def_property_readonly("provisioning", &ProvisioningOf);
  AddDictAndRepr(rung, "Rung", RungDict);

  py::class_<PrunedRung> pruned(m, "PrunedRung", "A rung left out at plan time, and why.");
  pruned.def_readonly("id", &PrunedRung::id).def_readonly("reason", &PrunedRung::reason);
  AddDictAndRepr(pruned, "PrunedRung", PrunedDict);

  py::class_<RouteAttempt> attempt(m, "RouteAttempt", "One rung a walk reached.");
  attempt.def_readonly("rung", &RouteAttempt::rung)
      .def_property_readonly("outcome",
                             [](const RouteAttempt& a) { return Name(ToString(a.outcome)); })
      .def_readonly("detail", &RouteAttempt::detail);
  AddDictAndRepr(attempt, "RouteAttempt", AttemptDict);
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
  AddDictAndRepr(result, "RouteResult", ResultDict);

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
  AddDictAndRepr(plan, "RoutePlan", PlanDict);

  py::class_<QuotaBlock> block(
      m, "QuotaBlock",
      "A quota found exhausted today: rungs needing `gpus` or more of it are skipped.");
  block.def_readonly("gpu_model", &QuotaBlock::gpu_model)
      .def_property_readonly("quota_class",
                             [](const QuotaBlock& b) { return Name(ToString(b.quota_class)); })
      .def_readonly("gpus", &QuotaBlock::gpus)
      .def_readonly("reason", &QuotaBlock::reason);
  AddDictAndRepr(block, "QuotaBlock", QuotaBlockDict);

  py::class_<RouterDayState> day(m, "RouterDayState", "The walker's per-UTC-day state.");
  day.def_readonly("day", &RouterDayState::day)
      .def_readonly("gcp_attempts", &RouterDayState::gcp_attempts)
      .def_readonly("exhausted_quotas", &RouterDayState::exhausted_quotas)
      .def_readonly("quota_blocks", &RouterDayState::quota_blocks);
  AddDictAndRepr(day, "RouterDayState", DayDict);
}

}  // namespace hwrec::python
