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

py::dict OriginsDict(const EffectiveRequest& r) {
  py::dict d;
  for (std::size_t i = 0; i < kFigureCount; ++i) {
    d[py::str(Name(ToString(static_cast<FigureKind>(i))))] = std::string(ToString(r.origins[i]));
  }
  return d;
}

// A retry floor in the form place()'s execution["retry_floor"] takes.
py::dict FloorDict(const DeclaredResources& d) {
  py::dict out;
  if (d.memory_bytes) out["memory_bytes"] = *d.memory_bytes;
  if (d.gpu_memory_gb) out["gpu_memory_gb"] = *d.gpu_memory_gb;
  return out;
}

void RegisterRetryFloor(py::module_& m) {
  py::class_<RetryFloorOnPool> on_pool(m, "RetryFloorOnPool",
                                       "Whether a node of one pool holds a retry floor.");
  DefineValues(on_pool, Field{"node_pool_id", &RetryFloorOnPool::node_pool_id},
               Field{"holds", &RetryFloorOnPool::holds},
               Field{"reason", &RetryFloorOnPool::reason});

  py::class_<OomRetryFloor> floor(
      m, "RetryFloor",
      "The OOM-retry floor of an execution that ran out of memory: give it to place() as "
      "execution['retry_floor'] (the object or its retry_floor dict).");
  DefineValues(floor, Field{"execution_id", &OomRetryFloor::execution_id},
               Field{"workload", &OomRetryFloor::workload},
               Field{"status", [](const OomRetryFloor& f) { return Name(ToString(f.status)); }},
               Field{"retry_floor", [](const OomRetryFloor& f) { return FloorDict(f.floor); }},
               Field{"reason", &OomRetryFloor::reason}, Field{"pools", &OomRetryFloor::pools});
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
  AddDictAndRepr(reason);

  py::class_<FigureTransfer> transfer(
      m, "FigureTransfer",
      "Where a transferred figure came from: the workload's figure on another key times a "
      "factor learned from the workloads seen on both.");
  DefineValues(
      transfer, Field{"source", [](const FigureTransfer& t) { return HardwareKeyDict(t.source); }},
      Field{"source_value", &FigureTransfer::source_value},
      Field{"factor", &FigureTransfer::factor}, Field{"workloads", &FigureTransfer::workloads},
      Field{"neighbours", &FigureTransfer::neighbours,
            "How many of the workloads set the factor, "
            "the nearest to this one; 0: the median of "
            "all."},
      Field{"sources", &FigureTransfer::sources}, Field{"spread", &FigureTransfer::spread},
      Field{"estimate", &FigureTransfer::estimate});

  py::class_<Figure> figure(m, "Figure", "One recommended figure and where it comes from.");
  DefineValues(figure, Field{"kind", [](const Figure& f) { return Name(ToString(f.kind)); }},
               Field{"value", &Figure::value},
               Field{"provenance", [](const Figure& f) { return Name(ToString(f.provenance)); }},
               Field{"held_share", &Figure::held_share,
                     "Compute share only: True when no execution behind it reported GPU "
                     "utilisation, so it is the share held (the share used is at most that)."},
               Field{"learned_width", &Figure::learned_width,
                     "GPU memory only: the GPUs each execution behind it held, when learned from "
                     "executions of one width; None: every width, or a width not recorded."},
               Field{"samples", &Figure::samples}, Field{"confidence", &Figure::confidence},
               Field{"last_seen", &Figure::last_seen}, Field{"lower", &Figure::lower},
               Field{"upper", &Figure::upper}, Field{"statistic", &Figure::statistic},
               Field{"margin", &Figure::margin}, Field{"half_life_hours", &Figure::half_life_hours},
               Field{"transfer", &Figure::transfer}, Field{"reason", &Figure::reason});

  py::class_<Recommendation> rec(m, "Recommendation",
                                 "What a workload should request on one hardware key.");
  DefineValues(
      rec, Field{"workload", &Recommendation::workload},
      Field{"hardware", [](const Recommendation& r) { return HardwareKeyDict(r.hardware); }},
      Field{"as_of", &Recommendation::as_of},
      Field{"width", &Recommendation::width,
            "The GPUs held per execution the GPU memory figure answers for; None: every "
            "width."},
      Field{"figures", [](py::object self) {
              const auto& r = self.cast<const Recommendation&>();
              py::dict figures;
              for (const Figure& f : r.figures) {
                figures[py::str(Name(ToString(f.kind)))] =
                    py::cast(&f, py::return_value_policy::reference_internal, self);
              }
              return figures;
            }});
}

void RegisterCandidate(py::module_& m) {
  py::class_<EffectiveRequest> request(
      m, "EffectiveRequest",
      "What an execution should ask for on one pool: memory_bytes in bytes, gpu_memory_gb in GiB.");
  DefineValues(request, Field{"cpu_request_millicores", &EffectiveRequest::cpu_request_millicores},
               Field{"cpu_limit_millicores", &EffectiveRequest::cpu_limit_millicores},
               Field{"memory_bytes", &EffectiveRequest::memory_bytes},
               Field{"gpu_count", &EffectiveRequest::gpu_count},
               Field{"gpu_config_id", &EffectiveRequest::gpu_config_id},
               Field{"gpu_memory_gb", &EffectiveRequest::gpu_memory_gb},
               Field{"gpu_compute_fraction", &EffectiveRequest::gpu_compute_fraction},
               Field{"origins", OriginsDict});

  py::class_<PlacementNeeds> needs(m, "PlacementNeeds",
                                   "GPU figures before partition rounding: gpu_memory_gb in GiB.");
  DefineValues(needs, Field{"gpu_memory_gb", &PlacementNeeds::gpu_memory_gb},
               Field{"gpu_compute_fraction", &PlacementNeeds::gpu_compute_fraction});

  py::class_<PlacementWaste> waste(m, "PlacementWaste", "What a placement leaves unused.");
  DefineValues(waste, Field{"card", &PlacementWaste::card},
               Field{"compute_shortfall", &PlacementWaste::compute_shortfall},
               Field{"score", &PlacementWaste::score}, Field{"cpu", &PlacementWaste::cpu},
               Field{"memory", &PlacementWaste::memory},
               Field{"gpu_left", &PlacementWaste::gpu_left},
               Field{"fragmentation", &PlacementWaste::fragmentation});

  py::class_<ExecutionShape> shape(
      m, "ExecutionShape",
      "How many GPUs the execution asks for and where it can run, with where each came from.");
  DefineValues(shape, Field{"gpu_count", &ExecutionShape::gpu_count},
               Field{"gpu_count_source",
                     [](const ExecutionShape& s) { return Name(ToString(s.gpu_count_source)); }},
               Field{"architectures", &ExecutionShape::architectures},
               Field{"architecture_source",
                     [](const ExecutionShape& s) { return Name(ToString(s.architecture_source)); }},
               Field{"history_executions", &ExecutionShape::history_executions},
               Field{"gpu_executions", &ExecutionShape::gpu_executions},
               Field{"notes", &ExecutionShape::notes});

  py::class_<CandidateEvaluation> candidate(m, "CandidateEvaluation",
                                            "One candidate pool, evaluated.");
  DefineValues(
      candidate, Field{"node_pool_id", &CandidateEvaluation::node_pool_id},
      Field{"feasible", &CandidateEvaluation::feasible},
      Field{"reason", &CandidateEvaluation::reason}, Field{"notes", &CandidateEvaluation::notes},
      Field{"request", &CandidateEvaluation::request}, Field{"needs", &CandidateEvaluation::needs},
      Field{"waste", &CandidateEvaluation::waste},
      Field{"gpu_cards", &CandidateEvaluation::gpu_cards});
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
  AddDictAndRepr(placement);

  py::class_<PlacementRecord> record(m, "PlacementRecord",
                                     "A placement recorded for an execution.");
  DefineValues(record, Field{"id", &PlacementRecord::id},
               Field{"execution_id", &PlacementRecord::execution_id},
               Field{"workload", &PlacementRecord::workload},
               Field{"node_pool_id", &PlacementRecord::node_pool_id},
               Field{"policy", [](const PlacementRecord& r) { return Name(ToString(r.policy)); }},
               Field{"request", &PlacementRecord::request},
               Field{"placed_at", &PlacementRecord::placed_at});
}

}  // namespace

void RegisterPlacementValues(py::module_& m) {
  RegisterRecommendation(m);
  RegisterCandidate(m);
  RegisterPlacement(m);
  RegisterRetryFloor(m);
}

}  // namespace hwrec::python
