// `hwrec route`: the provisioning ladder of one dispatch, optionally walked
// against a simulated capacity file or recorded from the outcomes a dispatcher
// saw (--record); `hwrec route config …` shows and edits
// the router's data (machine types, quotas, lanes, RunPod, intents, settings).
#include <fmt/format.h>
#include <boost/program_options.hpp>

#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "cli.h"
#include "commands.h"
#include "common/json_object.h"
#include "common/plain_text.h"
#include "common/terminal_text.h"
#include "hwrec/ladder.h"
#include "hwrec/ladder_walk.h"
#include "hwrec/router.h"
#include "hwrec/router_config.h"
#include "hwrec/simulated_capacity.h"
#include "hwrec/time_text.h"
#include "route_outcomes.h"

namespace hwrec::cli {

namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kRouteUsage =
    "hwrec route STORE --intent I --width N --length DURATION [--sharded] [--explain]\n"
    "                  [--simulate CAPACITY.json | --record [--outcomes FILE] [--day YYYY-MM-DD]]\n"
    "                  [--format table|json]\n"
    "       hwrec route config show|day|set|import … (see `hwrec route config --help`)";

// The exit codes `hwrec route` uses, after its options in --help.
std::string RouteExitCodes() {
  return tools::ExitCodesHelp({
      {kExitOk, "the ladder was built (and, with --simulate or --record, a walk launched a rung)"},
      {kExitError,
       "error: the store, the intent, the configuration, or --record outcomes the walk cannot "
       "have made; the message says why"},
      {kExitUsage, "usage: the command line is wrong"},
      {kExitNoFit, "no fit: no GPU rung can hold one shard; the message says what would fit"},
      {kExitNotLaunched,
       "not launched: every rung the walk tried missed capacity, or it ended on a rung with no "
       "recorded outcome"},
      {kExitStopped, "stopped: the walk met a failure that is not a capacity miss"},
  });
}

int WalkExitCode(const RouteResult& r) {
  if (r.selected) return kExitOk;
  return r.stopped ? kExitStopped : kExitNotLaunched;
}

// The --record outcomes: from --outcomes FILE, or stdin.
RecordedOutcomes ReadOutcomes(const std::string& path) {
  return RecordedOutcomes::Parse(ReadInput(path.empty() ? "-" : path),
                                 path.empty() ? "stdin" : path);
}

// --day as epoch seconds (noon UTC); nullopt for today.
std::optional<double> DayOption(const std::string& day) {
  if (day.empty()) return std::nullopt;
  auto noon = ParseUtcDay(day);
  if (!noon)
    throw UsageError("--day must be a UTC calendar day YYYY-MM-DD from 1970 on, not '" + day + "'");
  return noon;
}

// --record: walks `plan` with the recorded outcomes in one transaction,
// writing the day's state (at `now`, default now). Writes nothing, and throws
// naming each line, when an outcome is not on the ladder or comes after the
// rung that ended the walk.
Result<RouteResult> RecordWalk(Store& store, const RoutePlan& plan,
                               const RecordedOutcomes& recorded, std::optional<double> now) {
  recorded.CheckAgainst(plan);
  WalkOptions walk;
  walk.now = now;
  walk.recorded = true;
  std::string refused;
  walk.accept = [&](const RouteResult& result) {
    const std::vector<std::string> unused = recorded.Unused(result);
    if (unused.empty()) return Status::Ok();
    refused = "nothing was recorded: ";
    for (const std::string& line : unused) refused += line + "; ";
    refused +=
        "a walk tries no rung after the one that launched or stopped it, or after one not tried: "
        "give the outcomes of the rungs up to that one, in ladder order";
    return Status::InvalidArgument(refused);
  };
  auto walked = WalkLadder(
      store, plan, [&](const Rung& rung) { return recorded.Launch(rung); }, walk);
  if (!walked.ok() && !refused.empty()) throw std::runtime_error(refused);
  return walked;
}

// --simulate: a dry run of `plan` against `capacity`.
Result<RouteResult> SimulateWalk(Store& store, const RoutePlan& plan,
                                 const SimulatedCapacity& capacity) {
  WalkOptions walk;
  walk.dry_run = true;
  walk.now = capacity.now;
  return WalkLadder(
      store, plan, [&](const Rung& rung) { return SimulateLaunch(capacity, rung); }, walk);
}

// The --simulate file as a SimulatedCapacity; a bad file stops the command
// before the store is opened.
SimulatedCapacity ReadCapacity(const std::string& path) {
  auto capacity = ParseSimulatedCapacity(ReadInput(path), path);
  if (!capacity.ok()) throw std::runtime_error(capacity.status().message());
  return std::move(capacity).value();
}

Json RungJson(const Rung& r) {
  Json j;
  j["id"] = r.id;
  j["backend"] = ToString(r.backend);
  j["machine_type"] = r.machine_type;
  j["gpu_model"] = r.gpu_model;
  j["width"] = r.width;
  j["provisioning"] = r.provisioning ? Json(ToString(*r.provisioning)) : Json(nullptr);
  return j;
}

Json PlanJson(const RoutePlan& plan, const RouterSettings& settings, bool explain) {
  Json out;
  out["requested_width"] = plan.requested_width;
  if (plan.planned_width != plan.requested_width) out["planned_width"] = plan.planned_width;
  out["intent"] = plan.intent;
  out["length_hours"] = plan.length_hours;
  out["length_class"] = ToString(plan.length_class);
  out["ladder"] = Json::array();
  for (const Rung& r : plan.ladder) out["ladder"].push_back(RungJson(r));
  out["pruned"] = Json::array();
  for (const PrunedRung& p : plan.pruned) {
    out["pruned"].push_back({{"id", p.id}, {"reason", p.reason}});
  }
  if (!plan.no_fit.empty()) out["no_fit"] = plan.no_fit;
  out["sharded"] = plan.sharded;
  if (explain) {
    out["notes"] = plan.notes;
    out["settings"] = {{"short_job_max_hours", settings.short_job_max_hours},
                       {"flex_start_max_hours", settings.flex_start_max_hours},
                       {"gcp_daily_attempt_cap", settings.gcp_daily_attempt_cap}};
  }
  return out;
}

void AddResultJson(const RouteResult& r, Json* out) {
  (*out)["selected"] = r.selected ? Json(r.selected->id) : Json(nullptr);
  (*out)["realized_width"] = r.realized_width;
  (*out)["degraded"] = r.degraded;
  (*out)["stopped"] = r.stopped;
  (*out)["counted_gcp_attempt"] = r.counted_gcp_attempt;
  (*out)["attempts"] = Json::array();
  for (const RouteAttempt& a : r.attempts) {
    (*out)["attempts"].push_back(
        {{"id", a.rung.id}, {"outcome", ToString(a)}, {"detail", a.detail}});
  }
  (*out)["event"] =
      r.backend_selected_event.empty() ? Json(nullptr) : Json::parse(r.backend_selected_event);
}

void PrintPlanTable(const RoutePlan& plan, const RouterSettings& settings, bool explain) {
  const std::string planned = plan.planned_width == plan.requested_width
                                  ? ""
                                  : fmt::format(" (planned width {})", plan.planned_width);
  std::cout << TerminalFormat("intent {}, requested width {}{}, length {} h ({})\n\n", plan.intent,
                              plan.requested_width, planned, FormatHours(plan.length_hours),
                              ToString(plan.length_class));
  Table ladder({"#", "rung", "machine_type", "gpu_model", "width", "provisioning"});
  for (std::size_t i = 0; i < plan.ladder.size(); ++i) {
    const Rung& r = plan.ladder[i];
    ladder.AddRow({std::to_string(i + 1), r.id, r.machine_type, r.gpu_model,
                   std::to_string(r.width),
                   r.provisioning ? std::string(ToString(*r.provisioning)) : "-"});
  }
  if (plan.ladder.empty()) {
    std::cout << "no rung is left: each was pruned\n";
  } else {
    ladder.Print(std::cout);
  }
  if (!plan.pruned.empty()) {
    std::cout << "\npruned:\n";
    Table pruned({"rung", "reason"});
    for (const PrunedRung& p : plan.pruned) pruned.AddRow({p.id, p.reason});
    pruned.Print(std::cout);
  }
  if (explain) {
    std::cout << TerminalFormat(
        "\nshort jobs are under {} h (SPOT leads); FLEX_START runs at most {} h; "
        "GCP attempt cap {} per UTC day\n",
        settings.short_job_max_hours, settings.flex_start_max_hours,
        settings.gcp_daily_attempt_cap);
    for (const std::string& note : plan.notes) std::cout << "note: " << TerminalSafe(note) << "\n";
  }
}

void PrintResultTable(const RouteResult& r) {
  std::cout << "\nattempts:\n";
  Table attempts({"#", "rung", "outcome", "detail"});
  for (std::size_t i = 0; i < r.attempts.size(); ++i) {
    const RouteAttempt& a = r.attempts[i];
    attempts.AddRow({std::to_string(i + 1), a.rung.id, std::string(ToString(a)), a.detail});
  }
  attempts.Print(std::cout);
  if (!r.selected) {
    std::cout << (r.stopped ? "\nstopped: the failure is not a capacity miss, so the walk does "
                              "not cascade\n"
                            : "\nno rung launched\n");
    return;
  }
  std::cout << TerminalFormat("\nselected {}: realized width {} of {}{}\nevent: {}\n",
                              r.selected->id, r.realized_width, r.requested_width,
                              r.degraded ? " (degraded)" : "", r.backend_selected_event);
}

constexpr const char* kConfigHelp =
    "Usage: hwrec route config <subcommand> [options]\n\n"
    "Subcommands:\n"
    "  show STORE [--format table|json]   machine types, quotas, lanes, RunPod, intents,\n"
    "                                     settings (and, as a table, the day's state)\n"
    "  day STORE [--day YYYY-MM-DD]       the day's GCP attempts and quota blocks, which\n"
    "      [--format table|json]          walks and `hwrec route --record` write\n"
    "  set STORE KEY VALUE                one setting: short_job_max_hours,\n"
    "                                     flex_start_max_hours, gcp_daily_attempt_cap\n"
    "  import STORE FILE.json             merge entries by key (\"remove\": true deletes);\n"
    "                                     the whole result is validated, or nothing is written\n";

// "day 2026-07-08 (UTC): 1 GCP attempt(s)", then each quota block.
void PrintDay(const RouterDayState& day) {
  std::cout << TerminalFormat("day {} (UTC): {} GCP attempt(s)\n", day.day, day.gcp_attempts);
  for (const std::string& q : day.exhausted_quotas)
    std::cout << "exhausted: " << TerminalSafe(q) << "\n";
}

void PrintRoute(Format format, const RoutePlan& plan, const RouterSettings& settings, bool explain,
                const std::optional<RouteResult>& result) {
  if (format == Format::kJson) {
    Json out = PlanJson(plan, settings, explain);
    if (result) AddResultJson(*result, &out);
    std::cout << tools::DumpJson(out) << "\n";
    return;
  }
  PrintPlanTable(plan, settings, explain);
  if (result) PrintResultTable(*result);
}

void PrintConfigTables(const RouterConfig& c, const RouterDayState& day) {
  Table machines({"machine_type", "gpu_model", "gpus", "vcpus", "memory_gb", "provisioning"});
  for (const GcpMachineType& m : c.machines) {
    std::string allowed;
    for (Provisioning p :
         {Provisioning::kSpot, Provisioning::kFlexStart, Provisioning::kStandard}) {
      if (m.Allows(p)) allowed += (allowed.empty() ? "" : ",") + std::string(ToString(p));
    }
    machines.AddRow({m.machine_type, m.gpu_model, std::to_string(m.gpu_count),
                     std::to_string(m.vcpus), fmt::format("{:g}", m.memory_gb), allowed});
  }
  machines.Print(std::cout);
  Table quotas({"gpu_model", "class", "metric", "gpus"});
  for (const GpuQuota& q : c.quotas) {
    quotas.AddRow(
        {q.gpu_model, std::string(ToString(q.quota_class)), q.metric, std::to_string(q.gpus)});
  }
  std::cout << "\n";
  quotas.Print(std::cout);
  Table lanes({"rung", "partition", "gpu_model", "max_gpus"});
  for (const SlurmLane& l : c.lanes) {
    lanes.AddRow({"slurm/" + l.lane, l.partition, l.gpu_model, std::to_string(l.max_gpus)});
  }
  lanes.AddRow({"runpod/" + c.runpod.name, c.runpod.gpu_type, c.runpod.gpu_model,
                std::to_string(c.runpod.max_gpus)});
  std::cout << "\n";
  lanes.Print(std::cout);
  Table intents({"intent", "workload_image", "legacy_machine", "min_width"});
  for (const Intent& i : c.intents) {
    intents.AddRow({i.intent, i.workload_image, i.legacy_machine, std::to_string(i.min_width)});
  }
  std::cout << "\n";
  intents.Print(std::cout);
  std::cout << TerminalFormat(
      "\nshort_job_max_hours {}, flex_start_max_hours {}, gcp_daily_attempt_cap {}\n",
      c.settings.short_job_max_hours, c.settings.flex_start_max_hours,
      c.settings.gcp_daily_attempt_cap);
  PrintDay(day);
}

// The day's state as `route config day --format json` prints it (the same
// fields as Python's RouterDayState.to_dict()).
Json DayJson(const RouterDayState& day) {
  Json out;
  out["day"] = day.day;
  out["gcp_attempts"] = day.gcp_attempts;
  out["exhausted_quotas"] = day.exhausted_quotas;
  out["quota_blocks"] = Json::array();
  for (const QuotaBlock& b : day.quota_blocks) {
    out["quota_blocks"].push_back({{"gpu_model", b.gpu_model},
                                   {"quota_class", ToString(b.quota_class)},
                                   {"gpus", b.gpus},
                                   {"reason", b.reason}});
  }
  return out;
}

// `route config show` (the configuration, and as a table the day's state) or
// `route config day` (the day's state only).
int ConfigShowOrDay(const std::vector<std::string>& args, bool day_only) {
  std::string store_path, day_text, format_text;
  CommandLine line(
      fmt::format("hwrec route config {} STORE [--day YYYY-MM-DD] [--format table|json]",
                  day_only ? "day" : "show"));
  line.Store(&store_path)
      .Add()("day", po::value<std::string>(&day_text),
             "the UTC day whose GCP attempts and quota blocks are shown (default today)");
  po::variables_map vm;
  if (!line.Format(&format_text).Parse(args, &vm)) return kExitOk;
  const Format format = ParseFormat(format_text);
  if (store_path.empty()) throw UsageError(kStoreRequired);
  const std::optional<double> day_time = DayOption(day_text);
  auto store = OpenStore(store_path, ReadingStoreOptions(false));
  if (!store) return kExitError;
  std::optional<RouterConfig> config;
  if (!day_only) {
    auto loaded = LoadRouterConfig(*store);
    if (!loaded.ok()) return Fail(loaded.status());
    config = std::move(loaded).value();
    if (format == Format::kJson) {  // the form `route config import` reads
      std::cout << RouterConfigToJson(*config) << "\n";
      return kExitOk;
    }
  }
  auto day = ReadRouterDayState(*store, day_time);
  if (!day.ok()) return Fail(day.status());
  if (config) {
    PrintConfigTables(*config, *day);
  } else if (format == Format::kJson) {
    std::cout << DayJson(*day).dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
  } else {
    PrintDay(*day);
  }
  return kExitOk;
}

int ConfigShow(const std::vector<std::string>& args) { return ConfigShowOrDay(args, false); }
int ConfigDay(const std::vector<std::string>& args) { return ConfigShowOrDay(args, true); }

int ConfigSetOrImport(const std::vector<std::string>& args, bool import) {
  const std::string usage = import ? "hwrec route config import STORE FILE.json"
                                   : "hwrec route config set STORE KEY VALUE";
  CommandLine line(usage);
  line.Store().Add()("key", po::value<std::string>(),
                     "setting, or the JSON file to import (positional)")(
      "value", po::value<std::string>(), "new value (positional)");
  line.Positional("key");
  if (!import) line.Positional("value");
  po::variables_map vm;
  if (!line.Parse(args, &vm)) return kExitOk;
  if (vm.count("store") == 0 || vm.count("key") == 0 || (!import && vm.count("value") == 0)) {
    throw UsageError("expected: " + usage);
  }
  const std::string key = vm["key"].as<std::string>();
  const std::string text = import ? ReadInput(key) : "";
  auto store = OpenWritableStore(vm["store"].as<std::string>());
  if (!store) return kExitError;
  const Status s = import ? ImportRouterConfig(*store, text)
                          : SetRouterSetting(*store, key, vm["value"].as<std::string>());
  if (!s.ok()) return Fail(s);
  std::cout << (import ? TerminalFormat("imported {}\n", key)
                       : TerminalFormat("{} = {}\n", key, vm["value"].as<std::string>()));
  return kExitOk;
}

int RouteConfigSet(const std::vector<std::string>& args) { return ConfigSetOrImport(args, false); }
int ConfigImport(const std::vector<std::string>& args) { return ConfigSetOrImport(args, true); }

}  // namespace

int RunRouteConfig(const std::vector<std::string>& args) {
  static const tools::NestedCommands kRouteConfig = {{{"show", "", ConfigShow},
                                                      {"day", "", ConfigDay},
                                                      {"set", "", RouteConfigSet},
                                                      {"import", "", ConfigImport}},
                                                     kConfigHelp,
                                                     "show, day, set or import",
                                                     tools::NestedCommands::kExpected};
  return tools::RunNested(kRouteConfig, args);
}

int RunRoute(const std::vector<std::string>& args) {
  if (!args.empty() && args.front() == "config") {
    return RunRouteConfig(std::vector<std::string>(args.begin() + 1, args.end()));
  }
  std::string store_path, intent, length, simulate, outcomes, day, format_text;
  int width = 1;
  CommandLine line(kRouteUsage);
  line.Epilog(RouteExitCodes())
      .Store(&store_path)
      .Add()("intent", po::value<std::string>(&intent), "dispatch intent, e.g. capture-7b")(
          "width", po::value<int>(&width)->default_value(1), "GPUs the work shards across")(
          "length", po::value<std::string>(&length), "expected wall time: 90m, 6h, 2d, 1h30m")(
          "sharded", po::bool_switch(),
          "the launch command splits the work across the GPUs it gets; width N > 1 needs it")(
          "explain", po::bool_switch(), "show settings and how GPU models were chosen")(
          "simulate", po::value<std::string>(&simulate),
          "walk the ladder against CAPACITY.json (never changes the store)")(
          "record", po::bool_switch(),
          "walk the ladder with the outcomes a dispatcher saw (JSON lines on stdin) and write "
          "the day's GCP attempt and quota blocks into the store")(
          "outcomes", po::value<std::string>(&outcomes), "--record: read the outcomes from FILE")(
          "day", po::value<std::string>(&day),
          "--record: the UTC day of the walk (default today; not a future day)");
  bool strict_read_only = false;
  po::variables_map vm;
  if (!line.ReadOnly(&strict_read_only).Format(&format_text).Parse(args, &vm)) return kExitOk;
  const Format format = ParseFormat(format_text);
  if (store_path.empty() || intent.empty() || length.empty()) {
    throw UsageError("give the STORE, --intent and --length");
  }
  const bool explain = vm["explain"].as<bool>();
  const bool record = vm["record"].as<bool>();
  if (record && (!simulate.empty() || strict_read_only)) {
    throw UsageError("--record writes the walk into the store: drop --simulate and --read-only");
  }
  if (!record && (!outcomes.empty() || !day.empty())) {
    throw UsageError("--outcomes and --day go with --record");
  }
  auto hours = ParseDurationHours(length);
  if (!hours.ok()) throw UsageError("--length: " + hours.status().message());
  std::optional<double> record_time = DayOption(day);
  if (record_time) {
    const double now = tools::NowEpochSeconds();
    if (UtcDay(*record_time) > UtcDay(now)) {
      throw UsageError("--day " + day +
                       " is in the future: --record records a walk already made, today (the "
                       "default) or on an earlier UTC day");
    }
    if (UtcDay(*record_time) == UtcDay(now)) record_time = now;
  }
  const std::optional<SimulatedCapacity> capacity =
      simulate.empty() ? std::nullopt : std::optional<SimulatedCapacity>(ReadCapacity(simulate));
  const std::optional<RecordedOutcomes> recorded =
      record ? std::optional<RecordedOutcomes>(ReadOutcomes(outcomes)) : std::nullopt;
  auto store = record ? OpenWritableStore(store_path)
                      : OpenStore(store_path, ReadingStoreOptions(strict_read_only));
  if (!store) return kExitError;
  auto snapshot = RouterSnapshot::Load(*store);
  if (!snapshot.ok()) return Fail(snapshot.status());
  auto plan = BuildLadder(*snapshot, RouteRequest{intent, width, *hours, vm["sharded"].as<bool>()});
  if (!plan.ok()) return Fail(plan.status());
  if (!plan->no_fit.empty()) {  // nothing to walk: the plan says why each rung was pruned
    PrintRoute(format, *plan, snapshot->config.settings, explain, std::nullopt);
    std::cerr << "hwrec: " << TerminalSafe(plan->no_fit) << "\n";
    return kExitNoFit;
  }
  std::optional<RouteResult> result;
  if (recorded || capacity) {
    auto walked = recorded ? RecordWalk(*store, *plan, *recorded, record_time)
                           : SimulateWalk(*store, *plan, *capacity);
    if (!walked.ok()) return Fail(walked.status());
    result = std::move(walked).value();
  }
  PrintRoute(format, *plan, snapshot->config.settings, explain, result);
  return result ? WalkExitCode(*result) : kExitOk;
}

}  // namespace hwrec::cli
