// Result values of recommend and place: read from the C++ results they wrap,
// attribute by attribute, when Python asks for them.
#include <pybind11/stl.h>

#include "binding.h"
#include "hwrec/placement_json.h"
#include "hwrec/placement_record.h"
#include "hwrec/placement_runner.h"
#include "placement_view.h"
#include "values.h"

namespace hwrec::python {

namespace {

// "" (not known, or not applicable) as None.
py::object TextOrNone(const std::string& text) {
  return text.empty() ? py::object(py::none()) : py::object(py::str(text));
}

py::dict ReasonDict(const FigureReason& r) {
  py::dict d;
  d["source"] = Name(ToString(r.source));
  d["statistic"] = r.statistic;
  d["statistic_value"] = r.statistic_value;
  d["execution_id"] = TextOrNone(r.execution_id);
  d["finished_at"] = Opt(r.finished_at);
  d["status"] = TextOrNone(r.status);
  d["oom_factor"] = Opt(r.oom_factor);
  d["oom_applied_to"] = TextOrNone(r.oom_applied_to);
  d["oom_base"] = Opt(r.oom_base);
  d["bucket_lower"] = Opt(r.bucket_lower);
  d["bucket_upper"] = Opt(r.bucket_upper);
  d["share_at_or_below"] = Opt(r.share_at_or_below);
  d["margin"] = r.margin;
  d["with_margin"] = r.with_margin;
  d["rounding"] = r.rounding;
  d["value"] = r.value;
  d["text"] = r.text;
  return d;
}

py::dict FigureDict(const Figure& f) {
  py::dict d;
  d["kind"] = Name(ToString(f.kind));
  d["value"] = Opt(f.value);
  d["provenance"] = Name(ToString(f.provenance));
  d["held_share"] = f.held_share;
  d["learned_width"] = Opt(f.learned_width);
  d["samples"] = f.samples;
  d["confidence"] = f.confidence;
  d["last_seen"] = Opt(f.last_seen);
  d["lower"] = Opt(f.lower);
  d["upper"] = Opt(f.upper);
  d["statistic"] = f.statistic;
  d["margin"] = f.margin;
  d["half_life_hours"] = f.half_life_hours;
  d["reason"] = f.reason ? py::object(ReasonDict(*f.reason)) : py::object(py::none());
  return d;
}

py::dict KeyDict(const HardwareKey& k) {
  py::dict d;
  d["gpu_brand"] = Opt(k.gpu_brand);
  d["gpu_model"] = Opt(k.gpu_model);
  d["instance_type"] = Opt(k.instance_type);
  d["cpu_only"] = k.cpu_only;
  return d;
}

py::dict RecommendationDict(const Recommendation& r) {
  py::dict d, figures;
  for (const Figure& f : r.figures) figures[py::str(Name(ToString(f.kind)))] = FigureDict(f);
  d["workload"] = r.workload;
  d["hardware"] = KeyDict(r.hardware);
  d["as_of"] = r.as_of;
  d["width"] = Opt(r.width);
  d["figures"] = figures;
  return d;
}

py::dict OriginsDict(const EffectiveRequest& r) {
  py::dict d;
  for (std::size_t i = 0; i < kFigureCount; ++i) {
    d[py::str(Name(ToString(static_cast<FigureKind>(i))))] = r.origins[i].Name();
  }
  return d;
}

py::dict RequestDict(const EffectiveRequest& r) {
  py::dict d;
  d["cpu_request_millicores"] = Opt(r.cpu_request_millicores);
  d["cpu_limit_millicores"] = Opt(r.cpu_limit_millicores);
  d["memory_bytes"] = Opt(r.memory_bytes);
  d["gpu_count"] = r.gpu_count;
  d["gpu_config_id"] = Opt(r.gpu_config_id);
  d["gpu_memory_gb"] = Opt(r.gpu_memory_gb);
  d["gpu_compute_fraction"] = Opt(r.gpu_compute_fraction);
  d["origins"] = OriginsDict(r);
  return d;
}

py::dict NeedsDict(const PlacementNeeds& n) {
  py::dict d;
  d["gpu_memory_gb"] = Opt(n.gpu_memory_gb);
  d["gpu_compute_fraction"] = Opt(n.gpu_compute_fraction);
  return d;
}

py::dict WasteDict(const PlacementWaste& w) {
  py::dict d;
  d["card"] = Opt(w.card);
  d["compute_shortfall"] = Opt(w.compute_shortfall);
  d["score"] = Opt(w.score);
  d["cpu"] = w.cpu;
  d["memory"] = w.memory;
  d["gpu_left"] = Opt(w.gpu_left);
  d["fragmentation"] = Opt(w.fragmentation);
  return d;
}

py::dict ShapeDict(const ExecutionShape& s) {
  py::dict d;
  d["gpu_count"] = s.gpu_count;
  d["gpu_count_source"] = Name(ToString(s.gpu_count_source));
  d["architectures"] = py::cast(s.architectures);
  d["architecture_source"] = Name(ToString(s.architecture_source));
  d["history_executions"] = s.history_executions;
  d["gpu_executions"] = s.gpu_executions;
  d["notes"] = py::cast(s.notes);
  return d;
}

py::dict CandidateDict(const CandidateEvaluation& c) {
  py::dict d;
  d["node_pool_id"] = c.node_pool_id;
  d["feasible"] = c.feasible;
  d["reason"] = c.reason;
  d["notes"] = py::cast(c.notes);
  d["request"] = RequestDict(c.request);
  d["needs"] = NeedsDict(c.needs);
  d["waste"] = WasteDict(c.waste);
  d["gpu_cards"] = py::cast(c.gpu_cards);
  return d;
}

py::dict PlacementDict(const PlacementView& p) {
  const PlacementResult& r = *p.result;
  const CandidateEvaluation* chosen = r.chosen_evaluation();
  py::dict d;
  d["workload"] = r.workload;
  d["policy"] = Name(ToString(r.policy));
  d["as_of"] = r.as_of;
  d["shape"] = ShapeDict(r.shape);
  d["chosen"] = chosen ? py::cast(chosen->node_pool_id) : py::none();
  d["chosen_request"] = chosen ? py::object(RequestDict(chosen->request)) : py::none();
  d["placement_id"] = Opt(p.placement_id);
  d["candidates"] = DictList(r.evaluations, CandidateDict);
  return d;
}

py::dict RecordDict(const PlacementRecord& r) {
  py::dict d;
  d["id"] = r.id;
  d["execution_id"] = r.execution_id;
  d["workload"] = r.workload;
  d["node_pool_id"] = r.node_pool_id;
  d["policy"] = Name(ToString(r.policy));
  d["request"] = RequestDict(r.request);
  d["placed_at"] = r.placed_at;
  return d;
}

// A retry floor in the form place()'s execution["retry_floor"] takes.
py::dict FloorDict(const DeclaredResources& d) {
  py::dict out;
  if (d.memory_bytes) out["memory_bytes"] = *d.memory_bytes;
  if (d.gpu_memory_gb) out["gpu_memory_gb"] = *d.gpu_memory_gb;
  return out;
}

py::dict FloorOnPoolDict(const RetryFloorOnPool& p) {
  py::dict d;
  d["node_pool_id"] = p.node_pool_id;
  d["holds"] = p.holds;
  d["reason"] = p.reason;
  return d;
}

py::dict RetryFloorDict(const OomRetryFloor& f) {
  py::dict d;
  d["execution_id"] = f.execution_id;
  d["workload"] = f.workload;
  d["status"] = Name(ToString(f.status));
  d["retry_floor"] = FloorDict(f.floor);
  d["reason"] = f.reason;
  py::list pools;
  for (const RetryFloorOnPool& p : f.pools) pools.append(FloorOnPoolDict(p));
  d["pools"] = pools;
  return d;
}

void RegisterRetryFloor(py::module_& m) {
  py::class_<RetryFloorOnPool> on_pool(m, "RetryFloorOnPool",
                                       "Whether a node of one pool holds a retry floor.");
  on_pool.def_readonly("node_pool_id", &RetryFloorOnPool::node_pool_id)
      .def_readonly("holds", &RetryFloorOnPool::holds)
      .def_readonly("reason", &RetryFloorOnPool::reason);
  AddDictAndRepr(on_pool, "RetryFloorOnPool", FloorOnPoolDict);

  py::class_<OomRetryFloor> floor(
      m, "RetryFloor",
      "The OOM-retry floor of an execution that ran out of memory: give it to place() as "
      "execution['retry_floor'] (the object or its retry_floor dict).");
  floor.def_readonly("execution_id", &OomRetryFloor::execution_id)
      .def_readonly("workload", &OomRetryFloor::workload)
      .def_property_readonly("status",
                             [](const OomRetryFloor& f) { return Name(ToString(f.status)); })
      .def_property_readonly("retry_floor",
                             [](const OomRetryFloor& f) { return FloorDict(f.floor); })
      .def_readonly("reason", &OomRetryFloor::reason)
      .def_readonly("pools", &OomRetryFloor::pools);
  AddDictAndRepr(floor, "RetryFloor", RetryFloorDict);
}

void RegisterRecommendation(py::module_& m) {
  py::class_<FigureReason> reason(
      m, "FigureReason",
      "Why a figure is what it is: its statistic and what set it, the margin and the rounding.");
  reason
      .def_property_readonly("source",
                             [](const FigureReason& r) { return Name(ToString(r.source)); })
      .def_readonly("statistic", &FigureReason::statistic)
      .def_readonly("statistic_value", &FigureReason::statistic_value)
      .def_property_readonly("execution_id",
                             [](const FigureReason& r) { return TextOrNone(r.execution_id); })
      .def_readonly("finished_at", &FigureReason::finished_at)
      .def_property_readonly("status", [](const FigureReason& r) { return TextOrNone(r.status); })
      .def_readonly("oom_factor", &FigureReason::oom_factor)
      .def_property_readonly("oom_applied_to",
                             [](const FigureReason& r) { return TextOrNone(r.oom_applied_to); })
      .def_readonly("oom_base", &FigureReason::oom_base)
      .def_readonly("bucket_lower", &FigureReason::bucket_lower)
      .def_readonly("bucket_upper", &FigureReason::bucket_upper)
      .def_readonly("share_at_or_below", &FigureReason::share_at_or_below)
      .def_readonly("margin", &FigureReason::margin)
      .def_readonly("with_margin", &FigureReason::with_margin)
      .def_readonly("rounding", &FigureReason::rounding)
      .def_readonly("value", &FigureReason::value)
      .def_readonly("text", &FigureReason::text);
  AddDictAndRepr(reason, "FigureReason", ReasonDict);

  py::class_<Figure> figure(m, "Figure", "One recommended figure and where it comes from.");
  figure.def_property_readonly("kind", [](const Figure& f) { return Name(ToString(f.kind)); })
      .def_readonly("value", &Figure::value)
      .def_property_readonly("provenance",
                             [](const Figure& f) { return Name(ToString(f.provenance)); })
      .def_readonly("held_share", &Figure::held_share,
                    "Compute share only: True when no execution behind it reported GPU "
                    "utilisation, so it is the share held (the share used is at most that).")
      .def_readonly("learned_width", &Figure::learned_width,
                    "GPU memory only: the GPUs each execution behind it held, when learned from "
                    "executions of one width; None: every width, or a width not recorded.")
      .def_readonly("samples", &Figure::samples)
      .def_readonly("confidence", &Figure::confidence)
      .def_readonly("last_seen", &Figure::last_seen)
      .def_readonly("lower", &Figure::lower)
      .def_readonly("upper", &Figure::upper)
      .def_readonly("statistic", &Figure::statistic)
      .def_readonly("margin", &Figure::margin)
      .def_readonly("half_life_hours", &Figure::half_life_hours)
      .def_readonly("reason", &Figure::reason);
  AddDictAndRepr(figure, "Figure", FigureDict);

  py::class_<Recommendation> rec(m, "Recommendation",
                                 "What a workload should request on one hardware key.");
  rec.def_readonly("workload", &Recommendation::workload)
      .def_property_readonly("hardware",
                             [](const Recommendation& r) { return KeyDict(r.hardware); })
      .def_readonly("as_of", &Recommendation::as_of)
      .def_readonly("width", &Recommendation::width,
                    "The GPUs held per execution the GPU memory figure answers for; None: every "
                    "width.")
      .def_property_readonly("figures", [](py::object self) {
        const auto& r = self.cast<const Recommendation&>();
        py::dict figures;
        for (const Figure& f : r.figures) {
          figures[py::str(Name(ToString(f.kind)))] =
              py::cast(&f, py::return_value_policy::reference_internal, self);
        }
        return figures;
      });
  AddDictAndRepr(rec, "Recommendation", RecommendationDict);
}

void RegisterCandidate(py::module_& m) {
  py::class_<EffectiveRequest> request(
      m, "EffectiveRequest",
      "What an execution should ask for on one pool: memory_bytes in bytes, gpu_memory_gb in GiB.");
  request.def_readonly("cpu_request_millicores", &EffectiveRequest::cpu_request_millicores)
      .def_readonly("cpu_limit_millicores", &EffectiveRequest::cpu_limit_millicores)
      .def_readonly("memory_bytes", &EffectiveRequest::memory_bytes)
      .def_readonly("gpu_count", &EffectiveRequest::gpu_count)
      .def_readonly("gpu_config_id", &EffectiveRequest::gpu_config_id)
      .def_readonly("gpu_memory_gb", &EffectiveRequest::gpu_memory_gb)
      .def_readonly("gpu_compute_fraction", &EffectiveRequest::gpu_compute_fraction)
      .def_property_readonly("origins", OriginsDict);
  AddDictAndRepr(request, "EffectiveRequest", RequestDict);

  py::class_<PlacementNeeds> needs(m, "PlacementNeeds",
                                   "GPU figures before partition rounding: gpu_memory_gb in GiB.");
  needs.def_readonly("gpu_memory_gb", &PlacementNeeds::gpu_memory_gb)
      .def_readonly("gpu_compute_fraction", &PlacementNeeds::gpu_compute_fraction);
  AddDictAndRepr(needs, "PlacementNeeds", NeedsDict);

  py::class_<PlacementWaste> waste(m, "PlacementWaste", "What a placement leaves unused.");
  waste.def_readonly("card", &PlacementWaste::card)
      .def_readonly("compute_shortfall", &PlacementWaste::compute_shortfall)
      .def_readonly("score", &PlacementWaste::score)
      .def_readonly("cpu", &PlacementWaste::cpu)
      .def_readonly("memory", &PlacementWaste::memory)
      .def_readonly("gpu_left", &PlacementWaste::gpu_left)
      .def_readonly("fragmentation", &PlacementWaste::fragmentation);
  AddDictAndRepr(waste, "PlacementWaste", WasteDict);

  py::class_<ExecutionShape> shape(
      m, "ExecutionShape",
      "How many GPUs the execution asks for and where it can run, with where each came from.");
  shape.def_readonly("gpu_count", &ExecutionShape::gpu_count)
      .def_property_readonly(
          "gpu_count_source",
          [](const ExecutionShape& s) { return Name(ToString(s.gpu_count_source)); })
      .def_readonly("architectures", &ExecutionShape::architectures)
      .def_property_readonly(
          "architecture_source",
          [](const ExecutionShape& s) { return Name(ToString(s.architecture_source)); })
      .def_readonly("history_executions", &ExecutionShape::history_executions)
      .def_readonly("gpu_executions", &ExecutionShape::gpu_executions)
      .def_readonly("notes", &ExecutionShape::notes);
  AddDictAndRepr(shape, "ExecutionShape", ShapeDict);

  py::class_<CandidateEvaluation> candidate(m, "CandidateEvaluation",
                                            "One candidate pool, evaluated.");
  candidate.def_readonly("node_pool_id", &CandidateEvaluation::node_pool_id)
      .def_readonly("feasible", &CandidateEvaluation::feasible)
      .def_readonly("reason", &CandidateEvaluation::reason)
      .def_readonly("notes", &CandidateEvaluation::notes)
      .def_readonly("request", &CandidateEvaluation::request)
      .def_readonly("needs", &CandidateEvaluation::needs)
      .def_readonly("waste", &CandidateEvaluation::waste)
      .def_readonly("gpu_cards", &CandidateEvaluation::gpu_cards);
  AddDictAndRepr(candidate, "CandidateEvaluation", CandidateDict);
}

// The chosen request in the Runner's resources_allocation form, or None.
py::object ChosenRunnerAllocation(const PlacementView& p) {
  const CandidateEvaluation* chosen = p.result->chosen_evaluation();
  if (chosen == nullptr) return py::none();
  const RunnerAllocation a = ToRunnerAllocation(chosen->request);
  py::dict d;
  if (a.cpu) d["cpu"] = *a.cpu;
  if (a.memory) d["memory"] = *a.memory;
  d["gpu"] = a.gpu;
  if (a.gpu_memory_gb) d["gpu_memory_gb"] = *a.gpu_memory_gb;
  if (a.gpu_compute_fraction) d["gpu_compute_fraction"] = *a.gpu_compute_fraction;
  return std::move(d);
}

py::object ChosenRequest(py::object self) {
  const auto& p = self.cast<const PlacementView&>();
  const CandidateEvaluation* chosen = p.result->chosen_evaluation();
  if (chosen == nullptr) return py::none();
  return py::cast(&chosen->request, py::return_value_policy::reference_internal, self);
}

void RegisterPlacement(py::module_& m) {
  py::class_<PlacementView> placement(m, "Placement", "Where an execution should run, and why.");
  placement
      .def_property_readonly("workload", [](const PlacementView& p) { return p.result->workload; })
      .def_property_readonly(
          "policy", [](const PlacementView& p) { return Name(ToString(p.result->policy)); })
      .def_property_readonly("as_of", [](const PlacementView& p) { return p.result->as_of; })
      .def_property_readonly(
          "shape", [](const PlacementView& p) -> const ExecutionShape& { return p.result->shape; },
          py::return_value_policy::reference_internal)
      .def_property_readonly("chosen",
                             [](const PlacementView& p) -> py::object {
                               const auto* c = p.result->chosen_evaluation();
                               return c ? py::cast(c->node_pool_id) : py::none();
                             })
      .def_property_readonly("chosen_request", ChosenRequest)
      .def_property_readonly("runner_allocation", ChosenRunnerAllocation,
                             "The chosen request as the Runner's resources_allocation: cpu in "
                             "cores, memory in bytes, gpu, gpu_memory_gb (GiB per GPU), "
                             "gpu_compute_fraction (per GPU; both left out where the pool's "
                             "partitioning is not recorded); None when nothing fits.")
      .def_property_readonly(
          "compute_fraction",
          [](const PlacementView& p) -> std::optional<double> {
            const CandidateEvaluation* chosen = p.result->chosen_evaluation();
            return chosen != nullptr ? StampedComputeFraction(*chosen) : std::nullopt;
          },
          "The share of one card the chosen pool gives the execution (its partition's, 3/7 "
          "for an A100 mig-3g.40gb, or its share of a whole card others share): what the "
          "Runner stamps on StartExecutionV2's metadata. None when nothing fits, it holds no "
          "GPU, or the pool's GPU model or partitioning is not recorded.")
      .def_readonly("placement_id", &PlacementView::placement_id)
      .def_property_readonly(
          "candidates",
          [](const PlacementView& p) -> const std::vector<CandidateEvaluation>& {
            return p.result->evaluations;
          },
          py::return_value_policy::reference_internal)
      .def(
          "to_payload",
          [](const PlacementView& p) {
            return py::module_::import("json").attr("loads")(PlacementToJson(*p.result));
          },
          "The hwrec.placement/v1 payload as a dict.")
      .def(
          "to_json",
          [](const PlacementView& p, std::optional<int> indent) {
            return PlacementToJson(*p.result, indent.value_or(-1));
          },
          py::arg("indent") = py::none(), "The hwrec.placement/v1 payload as JSON text.");
  AddDictAndRepr(placement, "Placement", PlacementDict);

  py::class_<PlacementRecord> record(m, "PlacementRecord",
                                     "A placement recorded for an execution.");
  record.def_readonly("id", &PlacementRecord::id)
      .def_readonly("execution_id", &PlacementRecord::execution_id)
      .def_readonly("workload", &PlacementRecord::workload)
      .def_readonly("node_pool_id", &PlacementRecord::node_pool_id)
      .def_property_readonly("policy",
                             [](const PlacementRecord& r) { return Name(ToString(r.policy)); })
      .def_readonly("request", &PlacementRecord::request)
      .def_readonly("placed_at", &PlacementRecord::placed_at);
  AddDictAndRepr(record, "PlacementRecord", RecordDict);
}

}  // namespace

void RegisterPlacementValues(py::module_& m) {
  RegisterRecommendation(m);
  RegisterCandidate(m);
  RegisterPlacement(m);
  RegisterRetryFloor(m);
}

}  // namespace hwrec::python
