// hwrec-bench targets: every ratio the write path is held to, measured in one
// run. Each figure comes from the subcommand that owns it (this program run
// again with --format json, one after another, so that they do not share the
// CPU), and is printed beside its ceiling or bound, the ratio and the target.
#include <fmt/format.h>
#include <boost/program_options.hpp>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_commands.h"
#include "bench/bench_util.h"

namespace hwrec::bench {
// Named, not anonymous: the bench is a unity build, and its files share names.
namespace targets {

using json = nlohmann::json;

struct TargetsOptions {
  std::int64_t observations = 1000000;  // bulk ingest
  std::int64_t rows = 1000000;          // legacy migration
  std::int64_t recommend_observations = 1000000;
  int iterations = 1000;  // single-record ingest, route builds, placements
  std::optional<std::string> python;
  bool json = false;
};

// One target: `figure` against `bound` (a ceiling or a limit), their ratio
// figure / bound, and whether it is at most (or at least) `target`.
struct TargetRow {
  std::string measure;
  std::string figure;
  std::string bound;
  double ratio = 0;
  double target = 0;
  bool at_least = false;  // true: ratio >= target; false: ratio <= target
  bool met() const { return at_least ? ratio >= target : ratio <= target; }
};

// The targets, in one place (the usage text below says them too).
constexpr double kSingleOverCeiling = 3.0;   // single-record p50 / its raw ceiling, at most
constexpr double kPythonOverCpp = 1.3;       // Python / C++ single-record p50, at most
constexpr double kBulkOfCeiling = 0.7;       // bulk ingest and migration / ceiling, at least
constexpr double kLadderP50Us = 4.6;         // the router's ladder build, at most
constexpr double kLadderP99Us = 20.7;        // ditto, p99
constexpr double kRecommendOverFloor = 1.5;  // recommend p99 / machine floor, at most
constexpr double kPlaceP99Ms = 0.5;          // placement over 1,000 candidates, p99, at most

const char* const kTargetsUsage =
    "hwrec-bench targets [--observations N] [--rows N] [--recommend-observations N]\n"
    "                    [--iterations N] [--python EXE] [--format table|json]\n\n"
    "Runs, one after another, the python, ingest, migrate, route, recommend and place\n"
    "benches and prints each ratio the write path is held to beside its target:\n"
    "single-record ingest against its raw ceiling (<= 3) and Python against C++\n"
    "(<= 1.3), bulk ingest and legacy migration against theirs (>= 0.7 at 1,000,000),\n"
    "the router's ladder build (p50 <= 4.6 us, p99 <= 20.7 us), recommend p99 against\n"
    "the machine floor (<= 1.5) and placement over 1,000 candidates (p99 <= 0.5 ms).\n"
    "These are the write path's targets: route and place print their own, looser\n"
    "ones. Takes a few minutes at the default sizes.";

std::optional<TargetsOptions> ParseOptions(const std::vector<std::string>& args) {
  TargetsOptions o;
  long long observations = o.observations, rows = o.rows, recommend = o.recommend_observations;
  int iterations = o.iterations;
  std::string python, format;
  po::options_description described("Options");
  described.add_options()("observations", po::value(&observations)->default_value(observations),
                          "observations of the bulk ingest")(
      "rows", po::value(&rows)->default_value(rows), "legacy rows of the migration")(
      "recommend-observations", po::value(&recommend)->default_value(recommend),
      "observations of the recommend bench's store (at least 20,000)")(
      "iterations", po::value(&iterations)->default_value(iterations),
      "timed single-record ingests, recommends and placements (at least 100)")(
      "python", po::value(&python), "the Python interpreter of the python bench");
  AddFormatOption(described, &format);
  po::variables_map vm;
  if (!ParseBenchArgs(args, described, kTargetsUsage, &vm)) return std::nullopt;
  if (observations < 1 || rows < 1) throw UsageError("--observations and --rows must be >= 1");
  if (recommend < 20000) throw UsageError("--recommend-observations must be at least 20,000");
  if (iterations < 100) throw UsageError("--iterations must be at least 100");
  o.observations = observations;
  o.rows = rows;
  o.recommend_observations = recommend;
  o.iterations = iterations;
  if (!python.empty()) o.python = python;
  o.json = IsJsonFormat(format);
  return o;
}

// This program run again with `args` and --format json.
json Measure(const std::string& args) {
  std::cerr << "hwrec-bench targets: running hwrec-bench " << args << "\n";
  // Named by its path: in the shell, /proc/self is the shell.
  static const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  return RunForJson(fmt::format("{} {} --format json", ShellQuote(self), args),
                    "hwrec-bench " + args);
}

const json& Call(const json& python, const std::string& name) {
  for (const json& call : python.at("calls")) {
    if (call.at("call") == name) return call;
  }
  throw std::runtime_error("hwrec-bench python printed no row '" + name + "'");
}

std::string Ms(double ms) { return fmt::format("{:.3f} ms", ms); }
std::string Us(double us) { return fmt::format("{:.2f} us", us); }
std::string Rate(double per_s, const char* unit) {
  return fmt::format("{}{}", WithThousands(static_cast<std::int64_t>(per_s)), unit);
}

std::vector<TargetRow> MeasureAll(const TargetsOptions& o) {
  std::vector<TargetRow> rows;
  const json python = Measure(fmt::format("python --iterations {}{}", o.iterations,
                                          o.python ? " --python " + ShellQuote(*o.python) : ""));
  const json& single = python.at("single_record_ceiling");
  const json& ingest_1 = Call(python, "ingest, 1 record per txn");
  const double cpp = ingest_1.at("cpp_p50_ms").get<double>();
  const double ceiling = single.at("ceiling_p50_ms").get<double>();
  rows.push_back({fmt::format("single record p50, C++ / raw ceiling ({:.0f} rows)",
                              single.at("rows_per_record").get<double>()),
                  Ms(cpp), Ms(ceiling), cpp / ceiling, kSingleOverCeiling, false});
  const double py = ingest_1.at("python_p50_ms").get<double>();
  rows.push_back(
      {"single record p50, Python / C++", Ms(py), Ms(cpp), py / cpp, kPythonOverCpp, false});

  const json ingest = Measure(fmt::format("ingest --observations {}", o.observations));
  rows.push_back({fmt::format("bulk ingest of {} observations", WithThousands(o.observations)),
                  Rate(ingest.at("observations_per_s").get<double>(), "/s"),
                  Rate(ingest.at("ceiling").at("observations_per_s").get<double>(), "/s"),
                  ingest.at("ratio").get<double>(), kBulkOfCeiling, true});

  const json migrate = Measure(fmt::format("migrate --rows {}", o.rows));
  rows.push_back({fmt::format("legacy migration of {} rows", WithThousands(o.rows)),
                  Rate(migrate.at("rows_per_s").get<double>(), "/s"),
                  Rate(migrate.at("ceiling").at("rows_per_s").get<double>(), "/s"),
                  migrate.at("ratio").get<double>(), kBulkOfCeiling, true});

  const json route = Measure("route");  // its own 200,000 builds
  const double p50 = route.at("build_p50_us").get<double>();
  const double p99 = route.at("build_p99_us").get<double>();
  rows.push_back(
      {"router ladder build p50", Us(p50), Us(kLadderP50Us), p50 / kLadderP50Us, 1.0, false});
  rows.push_back(
      {"router ladder build p99", Us(p99), Us(kLadderP99Us), p99 / kLadderP99Us, 1.0, false});

  const json recommend = Measure(fmt::format("recommend --observations {} --lookups {}",
                                             o.recommend_observations, o.iterations));
  double worst = 0;
  for (const json& s : recommend.at("series")) {
    worst = std::max(worst, s.at("lookup_p99_us").get<double>());
  }
  const double floor = recommend.at("machine_p99_us_at_lookup_p50").get<double>();
  rows.push_back({"recommend p99 (worst history) / machine floor", Us(worst), Us(floor),
                  worst / floor, kRecommendOverFloor, false});

  const json place = Measure(fmt::format("place --iterations {}", o.iterations));
  for (const json& size : place.at("sizes")) {
    if (size.at("candidates").get<int>() != 1000) continue;
    const double place_p99 = size.at("p99_ms").get<double>();
    rows.push_back({"placement over 1,000 candidates p99", Ms(place_p99), Ms(kPlaceP99Ms),
                    place_p99 / kPlaceP99Ms, 1.0, false});
    return rows;
  }
  throw std::runtime_error("hwrec-bench place printed no size of 1,000 candidates");
}

void PrintTable(const std::vector<TargetRow>& rows, double load_before, double load_after) {
  const unsigned cores = std::max(1U, std::thread::hardware_concurrency());
  std::cout << fmt::format(
      "hwrec-bench targets: the write path's ratios in one run (load average {:.2f} before, "
      "{:.2f} after, {} cores)\n\n",
      load_before, load_after, cores);
  std::cout << fmt::format("{:<48} {:>13} {:>13} {:>7}  {:<8} {}\n", "measure", "figure",
                           "ceiling/bound", "ratio", "target", "verdict");
  for (const TargetRow& r : rows) {
    std::cout << fmt::format(
        "{:<48} {:>13} {:>13} {:>7.2f}  {:<8} {}\n", r.measure, r.figure, r.bound, r.ratio,
        fmt::format("{} {}", r.at_least ? ">=" : "<=", r.target), r.met() ? "met" : "NOT met");
  }
  const auto missed =
      std::count_if(rows.begin(), rows.end(), [](const TargetRow& r) { return !r.met(); });
  std::cout << fmt::format("\n{} of {} targets met{}\n",
                           rows.size() - static_cast<std::size_t>(missed), rows.size(),
                           load_before >= 1.5 ? "; the load was 1.5 or more: measure again on a "
                                                "quieter machine before reading much into it"
                                              : "");
}

void PrintJson(const std::vector<TargetRow>& rows, double load_before, double load_after) {
  json out = {{"command", "targets"},
              {"load_average_before", load_before},
              {"load_average_after", load_after},
              {"targets", json::array()}};
  for (const TargetRow& r : rows) {
    out["targets"].push_back({{"measure", r.measure},
                              {"figure", r.figure},
                              {"bound", r.bound},
                              {"ratio", r.ratio},
                              {"target", r.target},
                              {"at_least", r.at_least},
                              {"met", r.met()}});
  }
  std::cout << out.dump() << "\n";
}

}  // namespace targets

int RunTargetsBench(const std::vector<std::string>& args) {
  const std::optional<targets::TargetsOptions> options = targets::ParseOptions(args);
  if (!options) return kExitOk;
  const double load_before = LoadAverage();
  std::vector<targets::TargetRow> rows;
  try {
    rows = targets::MeasureAll(*options);
  } catch (const std::exception& e) {
    std::cerr << "hwrec-bench targets: " << e.what() << "\n";
    return kExitError;
  }
  const double load_after = LoadAverage();
  if (options->json) {
    targets::PrintJson(rows, load_before, load_after);
  } else {
    targets::PrintTable(rows, load_before, load_after);
  }
  return kExitOk;
}

}  // namespace hwrec::bench
