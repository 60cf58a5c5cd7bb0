// hwrec-bench python: the same three calls timed in C++ and through the
// Python module, on one store in one run. C++ times RecommendationQuery::
// Recommend, PlacementEvaluator::Evaluate over 100 candidates and Ingestor::
// Ingest of one observation per call (one transaction each); then python/
// bench.py times store.recommend, store.place and store.ingest on the same
// store with the same inputs, written to a file, and prints JSON. The table
// gives p50/p99 of each and the Python/C++ ratios.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "bench/bench_commands.h"
#include "bench/bench_util.h"
#include "bench/build_paths.h"
#include "bench/place_fixture.h"
#include "bench/single_ceiling.h"
#include "fixtures/observation_generator.h"
#include "hwrec/ingest.h"
#include "hwrec/placement.h"
#include "hwrec/recommend.h"
#include "hwrec/store.h"

namespace hwrec::bench {
namespace {

using nlohmann::json;

constexpr int kWarmup = 5;  // calls made before timing, in each language
// Single-record ingests made before the timed ones, in each language: a
// Runner's process has long read the store's pages in; a process just
// started reads them (and grows its heap) over its first few hundred ingests
// (~0.28 ms each here, in C++ as in Python, against ~0.15 ms after).
constexpr int kIngestWarmup = 300;
constexpr std::size_t kCandidates = 100;

const char* const kPythonUsage =
    "hwrec-bench python [--iterations N] [--seed S] [--python EXE] [--script PATH] [--gpus-held]\n"
    "                   [--module-dir DIR] [--format table|json]\n\n"
    "Builds the `place` bench's store (20,000 observations of history, 1,000 pools),\n"
    "times in C++ one recommend, one place over 100 candidates and one ingest of a\n"
    "single observation per transaction, then runs python/bench.py on the same store\n"
    "and inputs through `import hwrec` and prints p50/p99 of both and the ratios\n"
    "(targets on p50: Python/C++ <= 1.5 for recommend and place, <= 1.3 for the\n"
    "single-record ingest).";

struct PythonBenchOptions : TimedBenchOptions {
  std::string python = "/usr/bin/python3";
  std::string script = SourceTreePath("python/bench.py");
  std::string module_dir = BuiltPythonModuleDir();
  bool gpus_held = false;  // the ingested records say they held one GPU
};

std::optional<PythonBenchOptions> ParsePythonOptions(const std::vector<std::string>& args) {
  PythonBenchOptions o;
  std::string format;
  po::options_description described("Options");
  described.add_options()("iterations,n", po::value(&o.iterations)->default_value(200),
                          "timed calls of each kind, per language")(
      "seed,s", po::value(&o.seed)->default_value(1), "generator seed")(
      "python", po::value(&o.python)->default_value(o.python), "the Python interpreter")(
      "script", po::value(&o.script)->default_value(o.script), "the Python side of the bench")(
      "module-dir", po::value(&o.module_dir)->default_value(o.module_dir),
      "the folder holding the built hwrec package (PYTHONPATH)");
  AddGpusHeldOption(described, &o.gpus_held);
  AddFormatOption(described, &format);
  po::variables_map vm;
  if (!ParseBenchArgs(args, described, kPythonUsage, &vm)) return std::nullopt;
  if (o.iterations < 1) throw UsageError("--iterations must be at least 1");
  o.json = IsJsonFormat(format);
  return o;
}

struct Timing {
  double p50_ms = 0;
  double p99_ms = 0;
};

Timing TimingOf(const Stopwatch& stopwatch) {
  return {Percentile(stopwatch.laps(), 50) * 1000, Percentile(stopwatch.laps(), 99) * 1000};
}

template <typename Call>
Timing TimeCalls(int iterations, Call call) {
  Stopwatch stopwatch;
  for (int i = 0; i < iterations + kWarmup; ++i) {
    if (i == kWarmup) stopwatch = Stopwatch();
    stopwatch.Start();
    call(i);
    stopwatch.Stop();
  }
  return TimingOf(stopwatch);
}

// What both languages are given, and what C++ made of it.
struct Inputs {
  ExecutionToPlace execution;
  std::vector<PlacementCandidate> candidates;
  HardwareKey key;
  std::vector<Observation> cpp_records;       // ids bench-cpp-N
  std::vector<Observation> py_records;        // ids bench-py-N
  std::vector<Observation> cpp_json_records;  // ids bench-json-N, ingested as JSON lines
  // kIngestWarmup more records of the same shape, ingested untimed first.
  std::vector<Observation> cpp_warm_records;  // ids bench-cpp-warm-N
  std::vector<Observation> py_warm_records;   // ids bench-py-warm-N
};

Inputs MakeInputs(const fixtures::ObservationGenerator& gen, const PlaceFixture& fixture,
                  int iterations) {
  Inputs inputs{fixture.execution,
                {fixture.candidates.begin(),
                 fixture.candidates.begin() + static_cast<std::ptrdiff_t>(kCandidates)},
                {},
                {},
                {},
                {},
                {},
                {}};
  for (std::size_t i = 0; i < gen.images().size(); ++i) {
    if (gen.images()[i] == inputs.execution.workload) {
      inputs.key = HardwareKey::Of(gen.pools()[gen.image_profiles()[i].pools.front()].pool);
    }
  }
  // Records of the history's shape under new execution ids: new to the store.
  const auto needed = static_cast<std::size_t>(iterations + kWarmup);
  for (std::int64_t index = 0; inputs.py_records.size() < needed; ++index) {
    if (gen.KindOf(index) != fixtures::RecordKind::kValid) continue;
    Observation o = gen.Generate(index);
    o.execution_id = fmt::format("bench-cpp-{}", index);
    inputs.cpp_records.push_back(o);
    o.execution_id = fmt::format("bench-json-{}", index);
    inputs.cpp_json_records.push_back(o);
    o.execution_id = fmt::format("bench-py-{}", index);
    inputs.py_records.push_back(std::move(o));
  }
  for (std::int64_t index = 0; inputs.py_warm_records.size() < kIngestWarmup; ++index) {
    const std::int64_t at = static_cast<std::int64_t>(needed) * 2 + index;  // past the timed ones
    if (gen.KindOf(at) != fixtures::RecordKind::kValid) continue;
    Observation o = gen.Generate(at);
    o.execution_id = fmt::format("bench-cpp-warm-{}", at);
    inputs.cpp_warm_records.push_back(o);
    o.execution_id = fmt::format("bench-py-warm-{}", at);
    inputs.py_warm_records.push_back(std::move(o));
  }
  return inputs;
}

template <typename T>
void SetIf(json& object, const char* key, const std::optional<T>& value) {
  if (value) object[key] = *value;
}

// A record as the Python side ingests it (the ingest JSON format).
json ObservationJson(const Observation& o) { return json::parse(ObservationToJson(o)); }

json InputsJson(const Inputs& inputs, const std::string& store_path, int iterations) {
  json candidates = json::array();
  for (const PlacementCandidate& c : inputs.candidates) {
    json entry = {{"node_pool_id", c.node_pool_id}};
    SetIf(entry, "free_partitions", c.free_partitions);
    SetIf(entry, "free_cpu_millicores", c.free_cpu_millicores);
    SetIf(entry, "free_memory_bytes", c.free_memory_bytes);
    candidates.push_back(entry);
  }
  json records = json::array();
  for (const Observation& o : inputs.py_records) records.push_back(ObservationJson(o));
  json warm_records = json::array();
  for (const Observation& o : inputs.py_warm_records) warm_records.push_back(ObservationJson(o));
  json key = {{"cpu_only", inputs.key.cpu_only}};
  SetIf(key, "gpu_brand", inputs.key.gpu_brand);
  SetIf(key, "gpu_model", inputs.key.gpu_model);
  SetIf(key, "instance_type", inputs.key.instance_type);
  return {{"store", store_path},
          {"iterations", iterations},
          {"warmup", kWarmup},
          {"image", inputs.execution.workload},
          {"hardware", key},
          {"execution",
           {{"image", inputs.execution.workload},
            {"declared", {{"gpu_count", *inputs.execution.declared.gpu_count}}}}},
          {"candidates", candidates},
          {"observations", records},
          {"warm_observations", warm_records}};
}

struct CppFigures {
  Timing recommend, place, place_with_open, ingest, ingest_json;
  std::string chosen;
};

struct Ceiling {
  Timing timing;
  CapturedWrites writes;
};

Ceiling MeasureCeiling(const std::string& store_path, const ScratchDir& scratch,
                       const Inputs& inputs, int iterations) {
  const std::string captured = scratch.File("capture.hwrec");
  const std::string replayed = scratch.File("ceiling.hwrec");
  std::filesystem::copy_file(store_path, captured);
  std::filesystem::copy_file(store_path, replayed);
  Ceiling out;
  {
    const std::unique_ptr<Store> store = OpenBenchStore(captured);
    const auto ingestor = Ingestor::Open(*store).value();
    out.writes = CaptureWrites(*store, iterations + kWarmup, [&](int i) {
      Require(ingestor->Ingest({inputs.cpp_records[static_cast<std::size_t>(i)]}));
    });
  }
  const std::vector<double> laps = ReplayAsPreparedStatements(replayed, out.writes.changesets);
  // The ceiling must have written exactly what hwrec wrote.
  if (const auto differ = TablesThatDiffer(captured, replayed, out.writes.rows_by_table);
      !differ.empty()) {
    throw std::runtime_error(
        fmt::format("the raw ceiling's rows differ from hwrec's in {}", fmt::join(differ, ", ")));
  }
  const std::vector<double> timed(laps.begin() + kWarmup, laps.end());
  out.timing = {Percentile(timed, 50) * 1000, Percentile(timed, 99) * 1000};
  return out;
}

CppFigures TimeCpp(Store& store, const Inputs& inputs, int iterations) {
  CppFigures figures;
  const auto query = Require(RecommendationQuery::Open(store));
  // As store.recommend(image, gpu_brand=…, gpu_model=…, instance_type=…) asks:
  // a key named by its parts, resolved through the catalog on each call.
  figures.recommend = TimeCalls(iterations, [&](int) {
    Require(query->RecommendNamed(inputs.execution.workload, inputs.key));
  });
  const std::unique_ptr<PlacementEvaluator> evaluator = Require(PlacementEvaluator::Open(store));
  figures.place = TimeCalls(iterations, [&](int) {
    const PlacementResult result =
        Require(evaluator->Evaluate(inputs.execution, inputs.candidates));
    const CandidateEvaluation* chosen = result.chosen_evaluation();
    figures.chosen = chosen ? chosen->node_pool_id : "";
  });
  figures.place_with_open = TimeCalls(iterations, [&](int) {
    const std::unique_ptr<PlacementEvaluator> opened = Require(PlacementEvaluator::Open(store));
    Require(opened->Evaluate(inputs.execution, inputs.candidates));
  });
  const auto ingestor_owner = Ingestor::Open(store).value();
  Ingestor& ingestor = *ingestor_owner;
  for (const Observation& record : inputs.cpp_warm_records) Require(ingestor.Ingest({record}));
  figures.ingest = TimeCalls(iterations, [&](int i) {
    const Observation& record = inputs.cpp_records[static_cast<std::size_t>(i)];
    const IngestSummary summary = Require(ingestor.Ingest({record}));
    if (summary.accepted != 1) {
      throw std::runtime_error(
          fmt::format("C++ ingest of {} was not accepted", record.execution_id));
    }
  });
  // The same, from the JSON line a Runner sends (what Python's ingest reads).
  std::vector<std::string> lines;
  for (const Observation& o : inputs.cpp_json_records) lines.push_back(ObservationJson(o).dump());
  figures.ingest_json = TimeCalls(iterations, [&](int i) {
    std::istringstream in(lines[static_cast<std::size_t>(i)]);
    const IngestSummary summary = Require(ingestor.IngestJsonLines(in));
    if (summary.accepted != 1) throw std::runtime_error("C++ ingest of a JSON line was refused");
  });
  return figures;
}

// Before any work: the Python side needs the built package and the script.
void CheckPythonSide(const PythonBenchOptions& o) {
  if (!std::filesystem::exists(std::filesystem::path(o.module_dir) / "hwrec")) {
    throw std::runtime_error(fmt::format(
        "the hwrec Python module is not built in {}: configure with HWREC_PYTHON=ON and build "
        "the _hwrec target, or pass --module-dir",
        o.module_dir));
  }
  if (!std::filesystem::exists(o.script)) {
    throw std::runtime_error(fmt::format("{} not found: pass --script PATH", o.script));
  }
}

json RunPython(const PythonBenchOptions& o, const std::string& inputs_path) {
  const std::string command =
      fmt::format("PYTHONPATH={} {} {} {}", ShellQuote(o.module_dir), ShellQuote(o.python),
                  ShellQuote(o.script), ShellQuote(inputs_path));
  return RunForJson(command, o.python + " " + o.script);
}

struct Row {
  const char* call;
  Timing cpp;
  std::optional<Timing> python;
  std::optional<double> target;  // on the p50 ratio
};

Timing PythonTiming(const json& report, const char* call) {
  const json& entry = report.at(call);
  return {entry.at("p50_ms").get<double>(), entry.at("p99_ms").get<double>()};
}

double Ratio(double python, double cpp) { return cpp > 0 ? python / cpp : 0; }

// The single-record ingest beside its raw ceiling (target: hwrec <= 3x at p50).
constexpr double kCeilingTarget = 3.0;

std::string TableRows(const CapturedWrites& writes) {
  std::string out;
  for (const auto& [table, rows] : writes.rows_by_table) {
    out += fmt::format("{}{} {:.1f}", out.empty() ? "" : ", ", table,
                       static_cast<double>(rows) / static_cast<double>(writes.changesets.size()));
  }
  return out;
}

void PrintCeiling(const Ceiling& ceiling, const Timing& cpp, const Timing& py) {
  const double ratio = Ratio(cpp.p50_ms, ceiling.timing.p50_ms);
  std::cout << fmt::format(
      "\nsingle-record ingest beside its raw ceiling (the rows hwrec wrote for each record, "
      "written again\nas prepared statements in one transaction; the same rows after): {:.1f} "
      "rows per record ({})\n",
      ceiling.writes.rows_per_record, TableRows(ceiling.writes));
  std::cout << fmt::format("{:<28} {:>10} {:>10} {:>9}  {}\n", "writer", "p50", "p99", "x ceiling",
                           "target (p50)");
  std::cout << fmt::format("{:<28} {:>10.4f} {:>10.4f}\n", "raw ceiling", ceiling.timing.p50_ms,
                           ceiling.timing.p99_ms);
  std::cout << fmt::format("{:<28} {:>10.4f} {:>10.4f} {:>9.2f}  <= {} {}\n", "hwrec, C++",
                           cpp.p50_ms, cpp.p99_ms, ratio, kCeilingTarget,
                           ratio <= kCeilingTarget ? "met" : "NOT met");
  std::cout << fmt::format("{:<28} {:>10.4f} {:>10.4f} {:>9.2f}\n", "hwrec, Python", py.p50_ms,
                           py.p99_ms, Ratio(py.p50_ms, ceiling.timing.p50_ms));
}

json CeilingJson(const Ceiling& ceiling, const Timing& cpp, const Timing& py) {
  json tables = json::object();
  for (const auto& [table, rows] : ceiling.writes.rows_by_table) tables[table] = rows;
  const double ratio = Ratio(cpp.p50_ms, ceiling.timing.p50_ms);
  return {{"rows_per_record", ceiling.writes.rows_per_record},
          {"rows_by_table", tables},
          {"ceiling_p50_ms", ceiling.timing.p50_ms},
          {"ceiling_p99_ms", ceiling.timing.p99_ms},
          {"cpp_ratio_p50", ratio},
          {"python_ratio_p50", Ratio(py.p50_ms, ceiling.timing.p50_ms)},
          {"target_ratio_p50", kCeilingTarget},
          {"target_met", ratio <= kCeilingTarget}};
}

void PrintJson(const std::vector<Row>& rows, const json& py, const std::string& chosen,
               int iterations, const json& ceiling) {
  json calls = json::array();
  for (const Row& r : rows) {
    json entry = {{"call", r.call}, {"cpp_p50_ms", r.cpp.p50_ms}, {"cpp_p99_ms", r.cpp.p99_ms}};
    if (r.python) {
      entry["python_p50_ms"] = r.python->p50_ms;
      entry["python_p99_ms"] = r.python->p99_ms;
      entry["ratio_p50"] = Ratio(r.python->p50_ms, r.cpp.p50_ms);
      entry["ratio_p99"] = Ratio(r.python->p99_ms, r.cpp.p99_ms);
    }
    if (r.target) {
      entry["target_ratio_p50"] = *r.target;
      entry["target_met"] = Ratio(r.python->p50_ms, r.cpp.p50_ms) <= *r.target;
    }
    calls.push_back(entry);
  }
  std::cout << json{{"iterations", iterations},
                    {"python", py.at("python")},
                    {"calls", calls},
                    {"chosen", chosen},
                    {"single_record_ceiling", ceiling},
                    {"load_average", LoadAverage()}}
                   .dump(2)
            << "\n";
}

void PrintTable(const std::vector<Row>& rows, const json& py, const std::string& workload,
                const std::string& chosen, int iterations) {
  std::cout << fmt::format(
      "hwrec-bench python: {} ({} observations of history, {} pools, {} iterations, load "
      "{:.2f})\n{}\n\n",
      workload, WithThousands(kPlaceHistory), WithThousands(kPlacePools), iterations, LoadAverage(),
      py.at("python").get<std::string>());
  std::cout << fmt::format("{:<28} {:>10} {:>10} {:>10} {:>10} {:>9} {:>9}  {}\n", "call",
                           "C++ p50", "C++ p99", "Py p50", "Py p99", "ratio50", "ratio99",
                           "target (p50 ratio)");
  for (const Row& r : rows) {
    std::string line =
        fmt::format("{:<28} {:>10.4f} {:>10.4f}", r.call, r.cpp.p50_ms, r.cpp.p99_ms);
    if (r.python) {
      const double ratio = Ratio(r.python->p50_ms, r.cpp.p50_ms);
      line += fmt::format(" {:>10.4f} {:>10.4f} {:>9.2f} {:>9.2f}", r.python->p50_ms,
                          r.python->p99_ms, ratio, Ratio(r.python->p99_ms, r.cpp.p99_ms));
      if (r.target) {
        line += fmt::format("  <= {} {}", *r.target, ratio <= *r.target ? "met" : "NOT met");
      }
    }
    std::cout << line << "\n";
  }
  std::cout << fmt::format(
      "\ningest timed after {} untimed single-record ingests in each process (a Runner's "
      "steady state: a process just started reads the store's pages in over its first few "
      "hundred)\n",
      kIngestWarmup);
  std::cout << fmt::format("\ntimes in ms; both chose {} for the 100-candidate placement\n",
                           chosen);
}

}  // namespace

int RunPythonBench(const std::vector<std::string>& args) {
  const auto options = ParsePythonOptions(args);
  if (!options) return kExitOk;
  CheckPythonSide(*options);
  ScratchDir scratch;
  const std::string store_path = scratch.File("python.hwrec");
  const std::string inputs_path = scratch.File("inputs.json");
  fixtures::ObservationGenerator gen(options->seed, kPlaceHistory);
  CppFigures cpp;
  Inputs inputs;
  const PlaceFixture fixture = SetUpPlaceFixture(*OpenBenchStore(store_path), gen);
  gen.SendGpusHeld(options->gpus_held);  // the records ingested, not the history
  inputs = MakeInputs(gen, fixture, options->iterations);
  // The single-record ingest's raw ceiling: the rows hwrec writes for the C++
  // records, captured on one copy of the store and written again as prepared
  // statements on another.
  const Ceiling ceiling = MeasureCeiling(store_path, scratch, inputs, options->iterations);
  // Both languages time a store just opened, its journal checkpointed on close.
  cpp = TimeCpp(*OpenBenchStore(store_path), inputs, options->iterations);
  std::ofstream(inputs_path) << InputsJson(inputs, store_path, options->iterations).dump();
  const json py = RunPython(*options, inputs_path);
  if (py.at("place_100").at("chosen") != cpp.chosen) {
    throw std::runtime_error(fmt::format("Python chose {} where C++ chose {}",
                                         py.at("place_100").at("chosen").dump(), cpp.chosen));
  }
  const std::vector<Row> rows = {
      {"recommend", cpp.recommend, PythonTiming(py, "recommend"), 1.5},
      {"place, 100 candidates", cpp.place, PythonTiming(py, "place_100"), 1.5},
      {"ingest, 1 record per txn", cpp.ingest, PythonTiming(py, "ingest_1"), 1.3},
      {"ingest, 1 JSON line per txn", cpp.ingest_json, PythonTiming(py, "ingest_1"), std::nullopt},
      {"C++ place incl. Open", cpp.place_with_open, std::nullopt, std::nullopt},
  };
  const Timing py_ingest = PythonTiming(py, "ingest_1");
  if (options->json) {
    PrintJson(rows, py, cpp.chosen, options->iterations,
              CeilingJson(ceiling, cpp.ingest, py_ingest));
  } else {
    PrintTable(rows, py, inputs.execution.workload, cpp.chosen, options->iterations);
    PrintCeiling(ceiling, cpp.ingest, py_ingest);
  }
  return kExitOk;
}

}  // namespace hwrec::bench
