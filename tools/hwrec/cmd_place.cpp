// hwrec place: evaluates candidate node pools for one execution, each with its
// own hardware's recommendation, chooses one and optionally records the choice.
#include <fmt/format.h>
#include <boost/program_options.hpp>

#include <iostream>
#include <nlohmann/json.hpp>

#include "cli.h"
#include "commands.h"
#include "common/json_object.h"
#include "common/terminal_text.h"
#include "hwrec/placement.h"
#include "hwrec/placement_json.h"
#include "hwrec/placement_record.h"
#include "hwrec/time_text.h"

namespace hwrec::cli {

namespace {

std::string Usage() {
  return "hwrec place STORE --image IMG --candidates FILE [--declared JSON]\n"
         "                  [--retry-floor JSON | --retry-of EXECUTION_ID]\n"
         "                  [--policy best_fit|first_fit|fragmentation] [--as-of TIME] "
         "[--explain]\n"
         "                  [--record EXECUTION_ID] [--format table|json]\n\n"
         "FILE (or - for stdin) is a JSON array of {\"node_pool_id\": \"...\", "
         "\"free_partitions\": n,\n"
         "\"free_cpu_millicores\": n, \"free_memory_bytes\": n}; a missing free field means no "
         "limit\n"
         "known. --declared and --retry-floor take {\"gpu_count\": n, \"gpu_brand\": \"...\",\n"
         "\"gpu_model\": \"...\", \"architecture\": \"...\", \"gpu_memory_gb\": x, "
         "\"gpu_compute_fraction\": x,\n"
         "\"cpu_millicores\": n, \"memory_bytes\": n, \"pinned\": [\"field\", ...]}, every field "
         "optional.\n"
         "--retry-of takes the floor from a stored execution that ran out of memory (see\n"
         "`hwrec retry-floor`).\n"
         "What is not declared comes from the workload's history: whether it uses a GPU, and the\n"
         "architectures it ran on (docs/PLACEMENT.md).\n\n" +
         tools::ExitCodesHelp(
             {{kExitOk, "a pool was chosen (and recorded with --record)"},
              {kExitError, "error: the message says what and how to fix it"},
              {kExitUsage, "usage"},
              {kExitNoFit,
               "no candidate pool fits: every pool's reason is printed, nothing is recorded"}});
}

std::string Number(const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : "-"; }

std::string GpuMemory(const std::optional<double>& v) {
  return v ? fmt::format("{:.1f} GiB", *v) : "-";
}

std::string Share(const std::optional<double>& v) { return v ? fmt::format("{:.2f}", *v) : "-"; }

std::string Memory(const std::optional<std::int64_t>& v) { return v ? HumanBytes(*v) : "-"; }

// "1, from history (5 of its last 5 executions that ran used GPUs)", "1, declared".
std::string GpuCountWords(const ExecutionShape& shape) {
  const std::string count = std::to_string(shape.gpu_count);
  switch (shape.gpu_count_source) {
    case ShapeSource::kDeclared:
      return count + ", declared";
    case ShapeSource::kRetryFloor:
      return count + ", from the retry floor";
    case ShapeSource::kHistory:
      return fmt::format("{}, from history ({} of its last {} executions that ran used GPUs)",
                         count, shape.gpu_executions, shape.history_executions);
    case ShapeSource::kNone:
      break;
  }
  return count + " (nothing declared, no history)";
}

// Where the GPU count and the architectures came from.
void PrintShape(const ExecutionShape& shape) {
  std::cout << TerminalFormat("gpus:     {}\n", GpuCountWords(shape));
  std::string architectures;
  for (const std::string& a : shape.architectures) {
    architectures += (architectures.empty() ? "" : ", ") + a;
  }
  if (shape.architecture_source == ShapeSource::kHistory) {
    // How many executions recorded it is in the note, on the `note:` lines.
    std::cout << TerminalFormat("arch:     {}, from history\n", architectures);
  } else if (shape.architecture_source == ShapeSource::kDeclared) {
    std::cout << TerminalFormat("arch:     {}, declared\n", architectures);
  } else {
    std::cout << "arch:     any\n";
  }
}

std::string Term(const std::optional<double>& v) {
  return v ? fmt::format("{:.2f}", *v) : "unknown";
}

// --explain: each candidate's score terms, in rank order.
void PrintScores(const PlacementResult& result) {
  std::cout << TerminalFormat(
      "\nscore = card waste + {:g} x compute shortfall (cards' worth; lower is better; an unknown "
      "score ranks after every known one)\n\n",
      result.evaluations.empty() ? PlacementWaste().shortfall_weight
                                 : result.evaluations.front().waste.shortfall_weight);
  Table table(
      {"#", "node pool", "card waste", "compute shortfall", "score", "cpu idle", "memory idle"});
  for (std::size_t i = 0; i < result.evaluations.size(); ++i) {
    const CandidateEvaluation& e = result.evaluations[i];
    table.AddRow({e.feasible ? std::to_string(i + 1) : "-", e.node_pool_id, Term(e.waste.card),
                  Term(e.waste.compute_shortfall), Term(e.waste.score),
                  fmt::format("{:.2f}", e.waste.cpu), fmt::format("{:.2f}", e.waste.memory)});
  }
  table.Print(std::cout);
}

void PrintTable(const PlacementResult& result, bool explain) {
  std::cout << TerminalFormat("workload: {}\npolicy:   {}\nas of:    {}\n", result.workload,
                              ToString(result.policy), FormatTime(result.as_of));
  PrintShape(result.shape);
  // Where the GPU count and the architectures came from: said once, above
  // the pools; every candidate's notes begin with them.
  for (const std::string& note : result.shape.notes) {
    std::cout << TerminalFormat("note:     {}\n", note);
  }
  const std::size_t shared = result.shape.notes.size();
  std::cout << "\n";
  Table table({"#", "node pool", "partition", "fits", "cpu", "memory", "gpu mem", "share", "score",
               "reason"});
  for (std::size_t i = 0; i < result.evaluations.size(); ++i) {
    const CandidateEvaluation& e = result.evaluations[i];
    std::string reason = e.reason;
    for (std::size_t n = shared; n < e.notes.size(); ++n) reason += "; " + e.notes[n];
    table.AddRow({e.feasible ? std::to_string(i + 1) : "-", e.node_pool_id,
                  e.request.gpu_config_id.value_or(e.request.gpu_count > 0 ? "?" : "-"),
                  e.feasible ? "yes" : "no", Number(e.request.cpu_request_millicores),
                  Memory(e.request.memory_bytes), GpuMemory(e.request.gpu_memory_gb),
                  Share(e.request.gpu_compute_fraction), e.feasible ? Term(e.waste.score) : "-",
                  reason});
  }
  table.Print(std::cout);
  if (explain) PrintScores(result);
  const CandidateEvaluation* chosen = result.chosen_evaluation();
  if (chosen == nullptr) return;
  std::cout << TerminalFormat("\nchosen: {}\nprovenance:", chosen->node_pool_id);
  for (std::size_t f = 0; f < kFigureCount; ++f) {
    std::cout << TerminalFormat(" {}={}", ToString(static_cast<FigureKind>(f)),
                                std::string(ToString(chosen->request.origins[f])));
  }
  std::cout << "\n";
}

Result<ExecutionToPlace> ReadExecution(const po::variables_map& vm, const Store& store) {
  ExecutionToPlace execution;
  execution.workload = vm["image"].as<std::string>();
  if (vm.count("declared") != 0) {
    auto declared = ParseDeclaredResources(vm["declared"].as<std::string>(), "--declared");
    if (!declared.ok()) return declared.status();
    execution.declared = std::move(*declared);
  }
  if (vm.count("retry-floor") != 0) {
    auto floor = ParseDeclaredResources(vm["retry-floor"].as<std::string>(), "--retry-floor");
    if (!floor.ok()) return floor.status();
    if (!floor->pinned.empty()) {
      return Status::InvalidArgument("--retry-floor: pinned belongs in --declared: remove it");
    }
    execution.retry_floor = std::move(*floor);
  }
  if (vm.count("retry-of") != 0) {
    if (execution.retry_floor) throw UsageError("give --retry-floor or --retry-of, not both");
    auto floor = RetryFloorAfterOom(store, vm["retry-of"].as<std::string>());
    if (!floor.ok()) return floor.status();
    if (floor->workload != execution.workload) {
      return Status::InvalidArgument(fmt::format(
          "--retry-of: execution {} ran {}, not --image {}: give the id of an execution of {}",
          floor->execution_id, floor->workload, execution.workload, execution.workload));
    }
    execution.retry_floor = std::move(floor->floor);
  }
  return execution;
}

std::string RetryFloorUsage() {
  return "hwrec retry-floor STORE EXECUTION_ID [--pool ID]... [--format table|json]\n\n"
         "The OOM-retry floor of a stored execution that ran out of memory (status oom or\n"
         "gpu_oom): max(requested, observed) x oom_bump_factor, at least +100 MiB of memory or\n"
         "+1 GiB of GPU memory per GPU, and whether each --pool holds it. Its retry gives it to\n"
         "`hwrec place --retry-of EXECUTION_ID` (or the floor as --retry-floor JSON), so the\n"
         "bump is never undone.\n";
}

// The floor in --retry-floor's form.
nlohmann::ordered_json FloorJson(const DeclaredResources& floor) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  if (floor.memory_bytes) j["memory_bytes"] = *floor.memory_bytes;
  if (floor.gpu_memory_gb) j["gpu_memory_gb"] = *floor.gpu_memory_gb;
  return j;
}

}  // namespace

int RunPlace(const std::vector<std::string>& args) {
  std::string format_text;
  std::string policy_text;
  CommandLine line(Usage());
  line.Store(nullptr, kStorePathHelp)
      .Add()("image", po::value<std::string>()->required(), "the workload (action image)")(
          "candidates", po::value<std::string>()->required(),
          "JSON array of candidate pools, - = stdin")("declared", po::value<std::string>(),
                                                      "JSON: the resources the author declared")(
          "retry-floor", po::value<std::string>(), "JSON: the OOM-retry floor, never undone")(
          "retry-of", po::value<std::string>(),
          "the id of a stored execution that ran out of memory: its retry floor")(
          "policy", po::value(&policy_text)->default_value("best_fit"),
          "best_fit, first_fit or fragmentation")("as-of", po::value<std::string>(), kAsOfHelp)(
          "explain", po::bool_switch(), "print each candidate's score terms (table output)")(
          "record", po::value<std::string>(), "record the choice for this execution id");
  bool strict_read_only = false;
  po::variables_map vm;
  if (!line.ReadOnly(&strict_read_only).Format(&format_text).Parse(args, &vm)) return kExitOk;
  const std::string path = RequiredStore(vm);
  const Format format = ParseFormat(format_text);
  const auto policy = ParsePlacementPolicy(policy_text);
  if (!policy)
    throw UsageError(
        fmt::format("--policy is '{}': use best_fit, first_fit or fragmentation", policy_text));
  const std::optional<double> as_of = ReadAsOf(vm);
  std::string candidates_text;
  try {
    candidates_text = ReadInput(vm["candidates"].as<std::string>());
  } catch (const std::runtime_error& e) {
    return Fail(Status::IoError(e.what()));
  }
  auto candidates = ParsePlacementCandidates(candidates_text);
  if (!candidates.ok()) return Fail(candidates.status());
  const bool record = vm.count("record") != 0;
  if (record && strict_read_only) throw UsageError("--record writes the store: drop --read-only");
  auto store =
      record ? OpenWritableStore(path) : OpenStore(path, ReadingStoreOptions(strict_read_only));
  if (!store) return kExitError;
  auto execution = ReadExecution(vm, *store);
  if (!execution.ok()) return Fail(execution.status());
  auto evaluator = PlacementEvaluator::Open(*store);
  if (!evaluator.ok()) return Fail(evaluator.status());
  auto result = (*evaluator)->Evaluate(*execution, *candidates, *policy, as_of);
  if (!result.ok()) return Fail(result.status());
  if (format == Format::kJson) {
    std::cout << PlacementToJson(*result, 2) << "\n";
  } else {
    PrintTable(*result, vm["explain"].as<bool>());
  }
  if (result->chosen_evaluation() == nullptr) {
    std::cerr << TerminalFormat(
        "hwrec: no candidate pool fits {}: see the reason of each of the {} pools\n",
        result->workload, result->evaluations.size());
    return kExitNoFit;
  }
  if (record) {
    const std::string execution_id = vm["record"].as<std::string>();
    auto id = RecordPlacement(*store, execution_id, *result);
    if (!id.ok()) return Fail(id.status());
    std::cerr << TerminalFormat("recorded placement {} of execution {} on {}\n", *id, execution_id,
                                result->chosen_evaluation()->node_pool_id);
  }
  return kExitOk;
}

int RunRetryFloor(const std::vector<std::string>& args) {
  std::string format_text;
  std::string execution_id;
  std::vector<std::string> pools;
  CommandLine line(RetryFloorUsage());
  line.Store(nullptr, kStorePathHelp)
      .Add()("execution-id", po::value(&execution_id), "the execution that ran out of memory")(
          "pool", po::value(&pools)->composing(), "a node pool to check; repeat for more");
  line.Positional("execution-id");
  bool strict_read_only = false;
  po::variables_map vm;
  if (!line.ReadOnly(&strict_read_only).Format(&format_text).Parse(args, &vm)) return kExitOk;
  const std::string path = RequiredStore(vm);
  const Format format = ParseFormat(format_text);
  if (execution_id.empty()) throw UsageError("the EXECUTION_ID is required");
  auto store = OpenStore(path, ReadingStoreOptions(strict_read_only));
  if (!store) return kExitError;
  auto floor = RetryFloorAfterOom(*store, execution_id, pools);
  if (!floor.ok()) return Fail(floor.status());
  if (format == Format::kJson) {
    nlohmann::ordered_json j;
    j["execution_id"] = floor->execution_id;
    j["workload"] = floor->workload;
    j["status"] = std::string(ToString(floor->status));
    j["retry_floor"] = FloorJson(floor->floor);
    j["reason"] = floor->reason;
    j["pools"] = nlohmann::ordered_json::array();
    for (const RetryFloorOnPool& p : floor->pools) {
      j["pools"].push_back(
          {{"node_pool_id", p.node_pool_id}, {"holds", p.holds}, {"reason", p.reason}});
    }
    std::cout << tools::DumpJson(j) << "\n";
    return kExitOk;
  }
  std::cout << TerminalFormat(
      "execution:   {}\nworkload:    {}\nretry floor: {}\nwhy:         {}\n", floor->execution_id,
      floor->workload, FloorJson(floor->floor).dump(), floor->reason);
  if (!floor->pools.empty()) {
    std::cout << "\n";
    Table table({"node pool", "holds", "reason"});
    for (const RetryFloorOnPool& p : floor->pools) {
      table.AddRow({p.node_pool_id, p.holds ? "yes" : "no", p.reason});
    }
    table.Print(std::cout);
  }
  std::cout << TerminalFormat("\nto place its retry: hwrec place {} --image {} --retry-of {} ...\n",
                              path, floor->workload, floor->execution_id);
  return kExitOk;
}

}  // namespace hwrec::cli
