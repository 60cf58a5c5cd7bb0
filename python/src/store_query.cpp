// Store.recommend, Store.place and Store.placements. Candidate dicts are read
// field by field through the C API: a place over 100 pools must cost little
// more in Python than in C++.
#include <pybind11/stl.h>

#include <array>
#include <cstring>
#include <ctime>

#include "binding.h"
#include "hwrec/backtest.h"
#include "hwrec/backtest_report.h"
#include "hwrec/catalog.h"
#include "hwrec/config.h"
#include "hwrec/node_pool.h"
#include "hwrec/placement_json.h"
#include "hwrec/placement_record.h"
#include "hwrec/remedy.h"
#include "hwrec/store_location.h"
#include "placement_view.h"

namespace hwrec::python {

namespace {

[[noreturn]] void BadArgument(const std::string& message) {
  ThrowStatus(Status::InvalidArgument(message));
}

std::string CandidateName(std::size_t index) { return "candidates[" + std::to_string(index) + "]"; }

// A free capacity that is not a plain int in range: an int subclass, or an error.
std::int64_t OtherCapacity(PyObject* value, std::size_t index, const char* field) {
  const std::string what = CandidateName(index) + "." + field + ": ";
  if (!PyLong_Check(value) || PyBool_Check(value)) {
    BadArgument(what + "expected a whole number (or None for no known limit)");
  }
  int overflow = 0;
  const long long n = PyLong_AsLongLongAndOverflow(value, &overflow);
  if (overflow != 0) BadArgument(what + "the number is out of range");
  if (n < 0) BadArgument(what + "must not be negative");
  return n;
}

// A free capacity: a non-negative whole number, or None for no known limit.
inline std::optional<std::int64_t> FreeCapacity(PyObject* value, std::size_t index,
                                                const char* field) {
  if (value == Py_None) return std::nullopt;
  if (PyLong_CheckExact(value)) {
    int overflow = 0;
    const long long n = PyLong_AsLongLongAndOverflow(value, &overflow);
    if (overflow == 0 && n >= 0) return n;
  }
  return OtherCapacity(value, index, field);
}

constexpr std::array<const char*, 5> kCandidateFields{"node_pool_id", "free_partitions",
                                                      "free_cpu_millicores", "free_memory_bytes",
                                                      "free_gpu_shares"};

// free_gpu_shares: a list of numbers (each GPU's free share, checked in [0, 1]
// with the other candidate rules); None: not given.
std::vector<double> FreeGpuShares(PyObject* value, std::size_t index) {
  if (value == Py_None) return {};
  if (PyList_Check(value) || PyTuple_Check(value)) {
    std::vector<double> out;
    bool numbers = true;
    for (const py::handle share : py::reinterpret_borrow<py::sequence>(value)) {
      if (PyBool_Check(share.ptr()) || !(PyFloat_Check(share.ptr()) || PyLong_Check(share.ptr()))) {
        numbers = false;
        break;
      }
      const double free = PyFloat_AsDouble(share.ptr());
      if (free == -1.0 && PyErr_Occurred() != nullptr) {  // an int too large for a double
        PyErr_Clear();
        BadArgument(CandidateName(index) + ".free_gpu_shares[" + std::to_string(out.size()) +
                    "]: the number is out of range: each GPU's free share is in [0, 1]");
      }
      out.push_back(free);
    }
    if (numbers) return out;
  }
  BadArgument(CandidateName(index) +
              ".free_gpu_shares: expected a list of each GPU's free share, in [0, 1], e.g. "
              "[1, 0.4]");
}

// The key objects last seen for each candidate field. Keys written as literals
// are interned and json.loads gives every record of a document the same key
// objects, so after the first dict nearly every key matches by pointer.
struct KeyCache {
  std::array<PyObject*, 5> seen{};  // borrowed: the dicts hold them during the call
};

// Which candidate field `key` is, or -1.
int FieldOf(PyObject* key, KeyCache& cache) {
  for (std::size_t f = 0; f < kCandidateFields.size(); ++f) {
    if (key == cache.seen[f]) return static_cast<int>(f);
  }
  if (!PyUnicode_Check(key)) return -1;
  for (std::size_t f = 0; f < kCandidateFields.size(); ++f) {
    if (PyUnicode_CompareWithASCIIString(key, kCandidateFields[f]) == 0) {
      cache.seen[f] = key;
      return static_cast<int>(f);
    }
  }
  return -1;
}

[[noreturn]] void UnknownCandidateKey(PyObject* key, std::size_t index) {
  if (!PyUnicode_Check(key)) BadArgument(CandidateName(index) + ": keys must be strings");
  BadArgument(CandidateName(index) + ": '" + py::str(key).cast<std::string>() +
              "' is not a candidate field: use node_pool_id, free_partitions, "
              "free_cpu_millicores, free_memory_bytes, free_gpu_shares");
}

// Reads one candidate dict; messages are built only when a field is wrong.
PlacementCandidate ReadCandidateDict(PyObject* dict, std::size_t index, KeyCache& cache) {
  PlacementCandidate c;
  PyObject* key = nullptr;
  PyObject* value = nullptr;
  Py_ssize_t pos = 0;
  while (PyDict_Next(dict, &pos, &key, &value)) {
    switch (FieldOf(key, cache)) {
      case 0: {
        if (!PyUnicode_Check(value)) {
          BadArgument(CandidateName(index) + ".node_pool_id: expected a string");
        }
        c.node_pool_id = Utf8(value, [&] { return CandidateName(index) + ".node_pool_id"; });
        break;
      }
      case 1:
        c.free_partitions = FreeCapacity(value, index, kCandidateFields[1]);
        break;
      case 2:
        c.free_cpu_millicores = FreeCapacity(value, index, kCandidateFields[2]);
        break;
      case 3:
        c.free_memory_bytes = FreeCapacity(value, index, kCandidateFields[3]);
        break;
      case 4:
        c.free_gpu_shares = FreeGpuShares(value, index);
        break;
      default:
        UnknownCandidateKey(key, index);
    }
  }
  if (c.node_pool_id.empty()) BadArgument(CandidateName(index) + ".node_pool_id: required");
  return c;
}

std::vector<PlacementCandidate> ReadCandidates(const py::handle& candidates) {
  if (py::isinstance<py::str>(candidates) || py::isinstance<py::dict>(candidates) ||
      !py::hasattr(candidates, "__iter__")) {
    throw py::type_error("candidates: expected a list of dicts or node_pool_id strings");
  }
  const py::object items = py::reinterpret_steal<py::object>(
      PySequence_Fast(candidates.ptr(), "candidates: expected a list"));
  if (!items) throw py::error_already_set();
  const Py_ssize_t count = PySequence_Fast_GET_SIZE(items.ptr());
  PyObject** item = PySequence_Fast_ITEMS(items.ptr());
  std::vector<PlacementCandidate> out;
  out.reserve(static_cast<std::size_t>(count));
  KeyCache cache;
  for (std::size_t i = 0; i < static_cast<std::size_t>(count); ++i) {
    if (PyUnicode_Check(item[i])) {
      out.push_back({Utf8(item[i], [&] { return CandidateName(i); }), {}, {}, {}});
    } else if (PyDict_Check(item[i])) {
      out.push_back(ReadCandidateDict(item[i], i, cache));
    } else {
      throw py::type_error(CandidateName(i) + ": expected a dict or a node_pool_id string");
    }
  }
  return out;
}

std::optional<DeclaredResources> ReadDeclared(PyObject* value, const char* what) {
  if (value == nullptr || value == Py_None) return std::nullopt;
  if (!PyDict_Check(value)) throw py::type_error(std::string(what) + ": expected a dict");
  if (PyDict_Size(value) == 0) return DeclaredResources{};
  const std::string json = ToJson(value, what);
  return Unwrap(ParseDeclaredResources(json, what));
}

ExecutionToPlace ReadExecution(const py::handle& execution) {
  if (!PyDict_Check(execution.ptr())) throw py::type_error("execution: expected a dict");
  ExecutionToPlace out;
  const OomRetryFloor* retry_of = nullptr;  // given as a RetryFloor
  PyObject* key = nullptr;
  PyObject* value = nullptr;
  Py_ssize_t pos = 0;
  while (PyDict_Next(execution.ptr(), &pos, &key, &value)) {
    if (!PyUnicode_Check(key)) {
      BadArgument("execution: the key " + py::repr(key).cast<std::string>() +
                  " is not text: use image, declared, retry_floor");
    }
    const std::string name = Utf8(key, [] { return "execution key"; });
    if (name == "image") {
      if (!PyUnicode_Check(value)) BadArgument("execution.image: expected the action image");
      out.workload = Utf8(value, [] { return "execution.image"; });
    } else if (name == "declared") {
      out.declared = ReadDeclared(value, "execution.declared").value_or(DeclaredResources{});
    } else if (name == "retry_floor") {
      if (py::isinstance<OomRetryFloor>(value)) {
        retry_of = &py::cast<const OomRetryFloor&>(value);
        out.retry_floor = retry_of->floor;
      } else {
        out.retry_floor = ReadDeclared(value, "execution.retry_floor");
      }
    } else {
      BadArgument("execution: '" + name + "' is not understood: use image, declared, retry_floor");
    }
  }
  if (out.workload.empty()) BadArgument("execution.image: required (the action image)");
  if (retry_of != nullptr && retry_of->workload != out.workload) {
    BadArgument("execution.retry_floor: the floor of execution " + retry_of->execution_id +
                ", which ran " + retry_of->workload + ", not execution.image " + out.workload +
                ": give the floor of an execution of this image");
  }
  return out;
}

// The hardware key of a registered pool, named instead of a key.
HardwareKey PoolKeyOf(PyStore& s, const std::string& pool,
                      const std::optional<std::string>& gpu_brand,
                      const std::optional<std::string>& gpu_model,
                      const std::optional<std::string>& instance_type, bool cpu_only) {
  if (gpu_brand || gpu_model || instance_type || cpu_only) {
    BadArgument(
        "pool: give a pool or a hardware key (gpu_brand, gpu_model, instance_type, "
        "cpu_only), not both");
  }
  Result<std::optional<NodePool>> found = [&] {
    py::gil_scoped_release release;
    return FindNodePool(*s.store, pool);
  }();
  const std::optional<NodePool> node_pool = Unwrap(std::move(found));
  if (!node_pool) {
    ThrowStatus(Status::NotFound("pool: no node pool '" + pool +
                                 "' is registered: register it with " +
                                 RemedyText(Remedy::kPoolsImport)));
  }
  return HardwareKey::Of(*node_pool);
}

Recommendation Recommend(PyStore& s, const std::string& image,
                         const std::optional<std::string>& pool,
                         const std::optional<std::string>& gpu_brand,
                         const std::optional<std::string>& gpu_model,
                         const std::optional<std::string>& instance_type, bool cpu_only,
                         const py::object& as_of, bool explain,
                         const std::optional<std::int64_t>& width) {
  const std::optional<double> when = EpochSeconds(as_of, "as_of");
  const Explain why = explain ? Explain::kYes : Explain::kNo;
  Claim claim(s);
  // A named key is resolved and answered in one read of the store; a pool's
  // key is its hardware's.
  const std::optional<HardwareKey> pool_key =
      pool ? std::optional<HardwareKey>(
                 PoolKeyOf(s, *pool, gpu_brand, gpu_model, instance_type, cpu_only))
           : std::nullopt;
  Result<Recommendation> rec = [&] {
    py::gil_scoped_release release;
    if (!s.query) {
      auto opened = RecommendationQuery::Open(*s.store);
      if (!opened.ok()) return Result<Recommendation>(opened.status());
      s.query = std::move(opened).value();
    }
    if (pool_key) return s.query->Recommend(image, *pool_key, when, why, width);
    return s.query->RecommendNamed(image, {gpu_brand, gpu_model, instance_type, cpu_only}, when,
                                   why, width);
  }();
  return Unwrap(std::move(rec));
}

PlacementView Place(PyStore& s, const py::object& execution, const py::object& candidates,
                    const std::string& policy_name, const py::object& as_of,
                    const std::optional<std::string>& record) {
  const std::optional<PlacementPolicy> policy = ParsePlacementPolicy(policy_name);
  if (!policy)
    BadArgument("policy: '" + policy_name +
                "' is not a policy: use best_fit, first_fit or fragmentation");
  const ExecutionToPlace to_place = ReadExecution(execution);
  const std::vector<PlacementCandidate> pools = ReadCandidates(candidates);
  const std::optional<double> when = EpochSeconds(as_of, "as_of");
  Claim claim(s);
  PlacementView view;
  Status status = [&]() -> Status {
    py::gil_scoped_release release;
    if (!s.evaluator) {
      Result<std::unique_ptr<PlacementEvaluator>> opened = PlacementEvaluator::Open(*s.store);
      if (!opened.ok()) return opened.status();
      s.evaluator = std::move(opened).value();
    }
    Result<PlacementResult> result = s.evaluator->Evaluate(to_place, pools, *policy, when);
    if (!result.ok()) return result.status();
    view.result = std::make_shared<const PlacementResult>(std::move(result).value());
    // Nothing fits: the answer is every candidate's reason, and nothing is
    // recorded (as `hwrec place --record`, which exits 5).
    if (!record || view.result->chosen_evaluation() == nullptr) return Status::Ok();
    Result<std::int64_t> id = RecordPlacement(*s.store, *record, *view.result);
    if (!id.ok()) return id.status();
    view.placement_id = *id;
    return Status::Ok();
  }();
  Check(status);
  return view;
}

// Backtest settings: config keys to values, each as the text `hwrec config set`
// takes; a number or a bool is written as that text (0.2 -> "0.2", True -> "true").
std::vector<std::pair<std::string, std::string>> SettingsOf(const py::object& settings) {
  if (!py::isinstance(settings, py::module_::import("collections.abc").attr("Mapping"))) {
    BadArgument(std::string("settings is a ") + Py_TYPE(settings.ptr())->tp_name +
                ": give a dict of config keys to values, e.g. {'memory.margin': 0.2}");
  }
  std::vector<std::pair<std::string, std::string>> out;
  for (const py::handle item : settings.attr("items")()) {
    const auto pair = py::reinterpret_borrow<py::tuple>(item);
    const py::object key = pair[0];
    const py::object value = pair[1];
    if (!py::isinstance<py::str>(key)) {
      BadArgument("settings: the key " + py::repr(key).cast<std::string>() +
                  " is not text: use config keys such as 'memory.margin'");
    }
    std::string name = Utf8(key, "settings: a key");
    std::string text = ConfigValueText(value, "settings['" + name + "']");
    // Checked here so that the error names the key as the caller wrote it.
    if (const Status valid = CheckConfigValue(name, text); !valid.ok()) {
      const std::string& why = valid.message();
      const std::string field = "settings['" + name + "']";
      BadArgument(why.rfind(name + " ", 0) == 0 ? field + why.substr(name.size())
                                                : field + ": " + why);
    }
    out.emplace_back(std::move(name), std::move(text));
  }
  return out;
}

// The replay's options from backtest()'s and report()'s arguments.
BacktestOptions BacktestOptionsOf(const std::optional<std::string>& image,
                                  const std::optional<std::string>& gpu_model,
                                  const std::optional<std::string>& instance_type,
                                  const std::optional<std::string>& figure,
                                  const py::object& settings,
                                  const std::vector<std::string>& presets) {
  BacktestOptions options;
  options.image = image;
  options.gpu_model = gpu_model;
  options.instance_type = instance_type;
  if (figure) {
    options.figure = ParseFigureKind(*figure);
    if (!options.figure) {
      BadArgument("figure: '" + *figure +
                  "' is not a figure: use cpu_request_millicores, cpu_limit_millicores, "
                  "memory_bytes, gpu_memory_gb or gpu_compute_fraction");
    }
  }
  if (!settings.is_none()) options.overrides = SettingsOf(settings);
  options.presets = presets;
  return options;
}

// Store.backtest: the replay.
BacktestResult Backtest(PyStore& s, const std::optional<std::string>& image,
                        const std::optional<std::string>& gpu_model,
                        const std::optional<std::string>& instance_type,
                        const std::optional<std::string>& figure, const py::object& settings,
                        const std::vector<std::string>& presets) {
  const BacktestOptions options =
      BacktestOptionsOf(image, gpu_model, instance_type, figure, settings, presets);
  Claim claim(s);
  Result<BacktestResult> result = [&] {
    py::gil_scoped_release release;
    return hwrec::Backtest(*s.store, options);
  }();
  return Unwrap(std::move(result));
}

// Store.report: the backtest as the HTML page `hwrec report --html` writes.
std::string Report(PyStore& s, const std::optional<std::string>& image,
                   const std::optional<std::string>& gpu_model,
                   const std::optional<std::string>& instance_type,
                   const std::optional<std::string>& figure, const py::object& settings,
                   const std::vector<std::string>& presets) {
  BacktestOptions options =
      BacktestOptionsOf(image, gpu_model, instance_type, figure, settings, presets);
  options.keep_points = true;
  options.points_per_series = kReportPointsPerPanel;
  Claim claim(s);
  std::string page;
  const Status status = [&]() -> Status {
    py::gil_scoped_release release;
    Result<BacktestResult> result = hwrec::Backtest(*s.store, options);
    if (!result.ok()) return result.status();
    BacktestReportOptions report;
    report.store = PrintableLocation(s.path);
    report.generated_at = static_cast<double>(std::time(nullptr));
    page = RenderBacktestReport(*result, report);
    return Status::Ok();
  }();
  Check(status);
  return page;
}

}  // namespace

std::string ConfigValueText(const py::handle& value, const std::string& what) {
  PyObject* v = value.ptr();
  if (PyBool_Check(v)) return v == Py_True ? "true" : "false";
  if (PyUnicode_Check(v)) return Utf8(value, what);
  if (PyFloat_Check(v)) return py::str(value).cast<std::string>();
  if (PyIndex_Check(v)) {
    const auto whole = py::reinterpret_steal<py::object>(PyNumber_Index(v));
    if (!whole) throw py::error_already_set();
    return py::str(whole).cast<std::string>();
  }
  ThrowStatus(Status::InvalidArgument(
      what + " is a " + Py_TYPE(v)->tp_name +
      ": give a number, True or False, or the text `hwrec config set` takes"));
}

void DefineQueryMethods(py::class_<PyStore, std::shared_ptr<PyStore>>& cls) {
  cls.def("recommend", &Recommend, py::arg("image"), py::arg("pool") = py::none(),
          py::arg("gpu_brand") = py::none(), py::arg("gpu_model") = py::none(),
          py::arg("instance_type") = py::none(), py::arg("cpu_only").noconvert() = false,
          py::arg("as_of") = py::none(), py::arg("explain").noconvert() = false,
          py::arg("width") = py::none(),
          "What `image` should request on a hardware key, or on a registered pool's key; with "
          "`explain`, each figure's `reason` says why it is what it is; with `width` (GPUs held "
          "per execution), gpu_memory_gb per GPU of executions that held that many.")
      .def("place", &Place, py::arg("execution"), py::arg("candidates"),
           py::arg("policy") = "best_fit", py::arg("as_of") = py::none(),
           py::arg("record") = py::none(),
           "Evaluates the candidate pools for one execution and chooses one; with `record`, "
           "writes the chosen request for that execution_id. When nothing fits, the result "
           "says why of each candidate (chosen is None) and nothing is recorded.")
      .def(
          "retry_floor",
          [](PyStore& s, const std::string& execution_id,
             const std::optional<std::vector<std::string>>& pools) {
            Claim claim(s);
            Result<OomRetryFloor> floor = [&] {
              py::gil_scoped_release release;
              return RetryFloorAfterOom(claim.store(), execution_id,
                                        pools.value_or(std::vector<std::string>()));
            }();
            return Unwrap(std::move(floor));
          },
          py::arg("execution_id"), py::arg("pools") = py::none(),
          "The OOM-retry floor of a stored execution that ran out of memory (hwrec retry-floor): "
          "max(requested, observed) x oom_bump_factor, and whether each of `pools` holds it. "
          "Give it to place() as execution['retry_floor'].")
      .def("backtest", &Backtest, py::kw_only(), py::arg("image") = py::none(),
           py::arg("gpu_model") = py::none(), py::arg("instance_type") = py::none(),
           py::arg("figure") = py::none(), py::arg("settings") = py::none(),
           py::arg("presets") = std::vector<std::string>(),
           "Replays the store's history (hwrec backtest): each execution sized as of its start "
           "by the figure the store would have given then, with `settings` (config keys to "
           "values: text, numbers or bools) over "
           "the store's, beside each preset (intelliscale, vpa, autopilot): the totals "
           "`hwrec backtest` shows, per run, figure and series. Writes nothing.")
      .def("report", &Report, py::kw_only(), py::arg("image") = py::none(),
           py::arg("gpu_model") = py::none(), py::arg("instance_type") = py::none(),
           py::arg("figure") = py::none(), py::arg("settings") = py::none(),
           py::arg("presets") = std::vector<std::string>{"intelliscale", "vpa", "autopilot"},
           "The backtest as one self-contained HTML page (`hwrec report`), as text to write "
           "where it is wanted: a chart per workload and hardware key, then the runs side by "
           "side. By default beside all three presets; writes nothing to the store.")
      .def(
          "placements",
          [](PyStore& s, const std::string& execution_id) {
            Claim claim(s);
            Result<std::vector<PlacementRecord>> records = [&] {
              py::gil_scoped_release release;
              return ListPlacements(*s.store, execution_id);
            }();
            return Unwrap(std::move(records));
          },
          py::arg("execution_id"));
}

}  // namespace hwrec::python
