// The backtest (hwrec/backtest.h): each execution sized as of its start from
// what had finished by then, overruns and slack counted per key and figure,
// presets as estimator settings, nothing written; and on the public GenAI
// trace, agreement with an independent computation of the same rules.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "hwrec/backtest.h"
#include "hwrec/backtest_report.h"
#include "hwrec/config.h"
#include "hwrec/ingest.h"
#include "hwrec/node_pool.h"
#include "hwrec/observation.h"
#include "hwrec/recommend.h"
#include "store/database.h"
#include "test_support.h"

namespace hwrec::test {
namespace {

NodePool GpuPool(const std::string& id, const std::string& instance_type,
                 const std::string& model) {
  NodePool pool;
  pool.node_pool_id = id;
  pool.site_id = "site-a";
  pool.name = id;
  pool.hardware.instance_type = instance_type;
  pool.hardware.architecture = "x86_64";
  pool.hardware.cpu_millicores = 64000;
  pool.hardware.memory_bytes = 512LL << 30;
  pool.hardware.gpu_count = 1;
  pool.hardware.gpu_total = 1;
  pool.hardware.gpu_brand = "NVIDIA";
  pool.hardware.gpu_model = model;
  pool.hardware.gpu_mode = "full";
  return pool;
}

struct Fixture {
  Fixture() : location(NewStoreLocation(dir, "backtest.hwrec")), store(OpenStoreOrFail(location)) {
    for (const NodePool& pool : {GpuPool("h100", "a3-highgpu-1g", "H100 80GB"),
                                 GpuPool("a100", "a2-ultragpu-1g", "A100 80GB")}) {
      const Status s = RegisterNodePool(*store, pool);
      INFO(s.ToString());
      REQUIRE(s.ok());
    }
  }

  void Ingest(const std::vector<Observation>& batch) {
    const auto ingestor = Ingestor::Open(*store).value();
    auto summary = ingestor->Ingest(batch);
    INFO(summary.status().ToString());
    REQUIRE(summary.ok());
    for (const auto& r : summary->rejects) UNSCOPED_INFO(r.field << ": " << r.reason);
    REQUIRE(summary->rejected == 0);
  }

  BacktestResult Run(const BacktestOptions& options) {
    auto result = Backtest(*store, options);
    INFO(result.status().ToString());
    REQUIRE(result.ok());
    return *result;
  }

  TempDir dir;
  std::string location;
  std::unique_ptr<Store> store;
};

constexpr double kT0 = 1795000000;

// An execution of `image` on `pool` that ran `duration` seconds until `finished_at`.
Observation Run(const std::string& id, const std::string& image, const std::string& pool,
                double finished_at, std::optional<double> duration, double gpu_memory_gb) {
  Observation o;
  o.execution_id = id;
  o.action_image = image;
  o.node_pool_id = pool;
  o.finished_at = finished_at;
  o.duration_s = duration;
  o.gpu_memory_peak_gb = gpu_memory_gb;
  return o;
}

const BacktestSeries& OnlySeries(const BacktestRun& run) {
  REQUIRE(run.series.size() == 1);
  return run.series.front();
}

}  // namespace

TEST_CASE("backtest: each execution is sized as of its start from what had finished by then",
          "[backtest][engine]") {
  Fixture f;
  // a finishes at T0; b starts at T0 (sees a); c starts before b finished (sees a only);
  // d has no duration (sized at its finish, from a, b and c but not itself).
  f.Ingest({Run("a", "train:1", "h100", kT0, 600, 10),
            Run("b", "train:1", "h100", kT0 + 600, 600, 12),
            Run("c", "train:1", "h100", kT0 + 900, 600, 11),
            Run("d", "train:1", "h100", kT0 + 2000, std::nullopt, 20)});
  BacktestOptions options;
  options.figure = FigureKind::kGpuMemoryGb;
  options.keep_points = true;
  const BacktestResult result = f.Run(options);
  CHECK(result.executions == 4);
  REQUIRE(result.runs.size() == 1);
  const BacktestSeries& s = OnlySeries(result.runs[0]);
  CHECK(s.workload == "train:1");
  CHECK(Describe(s.hardware) == "NVIDIA H100 80GB on a3-highgpu-1g");
  REQUIRE(s.points.size() == 4);
  CHECK(s.points[0].execution_id == "a");
  CHECK_FALSE(s.points[0].recommended);  // cold: nothing had finished
  // b and c: max of {10} + 10 % = 11: b (12) overruns, c (11) fits exactly.
  CHECK(s.points[1].execution_id == "b");
  CHECK(*s.points[1].recommended == Approx(11));
  CHECK(s.points[1].overrun);
  CHECK(s.points[2].execution_id == "c");
  CHECK(*s.points[2].recommended == Approx(11));
  CHECK_FALSE(s.points[2].overrun);
  // d: max of {10, 12, 11} + 10 % = 13.2, and d used 20.
  CHECK(s.points[3].execution_id == "d");
  CHECK(*s.points[3].recommended == Approx(13.2));
  CHECK(s.points[3].overrun);
  CHECK(s.totals.scored == 3);
  CHECK(s.totals.cold == 1);
  CHECK(s.totals.overruns == 2);
  CHECK(s.totals.overrun_share == Approx(2.0 / 3));
  CHECK(s.totals.mean_slack == Approx(0));
  CHECK(s.totals.with_duration == 1);
  CHECK(s.totals.over_provisioned == Approx(0));
  CHECK(result.runs[0].total.scored == 3);
}

TEST_CASE("backtest: a duration stored beyond a year places the execution at its finish",
          "[backtest][engine]") {
  Fixture f;
  f.Ingest(
      {Run("a", "train:1", "h100", kT0, 600, 10), Run("b", "train:1", "h100", kT0 + 600, 60, 12)});
  // A store written before ingest bounded duration_s may hold any number.
  hwrec::store::ConnectionOf(*f.store).Execute(
      "UPDATE observations SET duration_s = 1e18 WHERE execution_id = 'b'");
  BacktestOptions options;
  options.figure = FigureKind::kGpuMemoryGb;
  options.keep_points = true;
  const BacktestResult result = f.Run(options);
  const BacktestSeries& s = OnlySeries(result.runs[0]);
  REQUIRE(s.points.size() == 2);
  CHECK(s.points[1].execution_id == "b");
  CHECK(s.points[1].started_at == kT0 + 600);
  CHECK(s.totals.with_duration == 0);
}

TEST_CASE("backtest: slack, over-provisioning and an OOM of its request", "[backtest][engine]") {
  Fixture f;
  std::vector<Observation> batch;
  for (int i = 0; i < 5; ++i) {
    batch.push_back(Run(fmt::format("r{}", i), "serve:1", "h100", kT0 + i * 3600.0, 1800, 20));
  }
  // Ran out of the 30 GB it asked for: any figure no larger than that would
  // have run out too, whatever peak it reported.
  Observation oom = Run("oom-small", "serve:1", "h100", kT0 + 6 * 3600.0, 1800, 15);
  oom.status = ExecutionStatus::kGpuOom;
  oom.requested.gpu_memory_gb = 30;
  batch.push_back(oom);
  f.Ingest(batch);
  BacktestOptions options;
  options.figure = FigureKind::kGpuMemoryGb;
  options.keep_points = true;
  const BacktestResult result = f.Run(options);  // outlives the series read from it
  const BacktestSeries& s = OnlySeries(result.runs[0]);
  REQUIRE(s.points.size() == 6);
  // r1..r4 fit a figure of 22 GB with 2 GB to spare for half an hour each.
  CHECK(s.totals.scored == 5);
  CHECK(s.totals.cold == 1);
  CHECK(s.totals.with_duration == 4);
  CHECK(s.totals.over_provisioned == Approx(4 * 2 * 0.5));
  CHECK(s.totals.mean_slack == Approx(2.0 / 22));
  // The OOM asked for 30 GB and ran out: a figure of 22 GB would have too.
  CHECK(s.points[5].oom);
  CHECK(s.points[5].overrun);
  CHECK(s.totals.overruns == 1);
  CHECK(s.totals.overrun_share == Approx(0.2));
}

TEST_CASE("backtest: filters score one key while the history elsewhere still feeds fallback",
          "[backtest][engine]") {
  Fixture f;
  f.Ingest({Run("on-a100", "mixed:1", "a100", kT0, 600, 30),
            Run("on-h100", "mixed:1", "h100", kT0 + 3600, 600, 31),
            Run("other", "other:1", "h100", kT0 + 3600, 600, 5)});
  BacktestOptions options;
  options.gpu_model = "H100 80GB";
  options.figure = FigureKind::kGpuMemoryGb;
  options.keep_points = true;
  BacktestResult result = f.Run(options);
  REQUIRE(result.runs[0].series.size() == 2);
  const BacktestSeries& mixed = result.runs[0].series[0];
  CHECK(mixed.workload == "mixed:1");
  REQUIRE(mixed.points.size() == 1);
  // Learned on the A100 only (GPU memory falls back to any hardware): 30 × 1.1.
  CHECK(*mixed.points[0].recommended == Approx(33));
  CHECK_FALSE(mixed.points[0].overrun);
  options.image = "other:1";
  result = f.Run(options);
  REQUIRE(result.runs[0].series.size() == 1);
  CHECK(result.runs[0].series[0].totals.cold == 1);
  CHECK(result.executions == 1);
}

TEST_CASE("backtest: presets and overrides are estimator settings; bad ones are refused",
          "[backtest][engine]") {
  Fixture f;
  std::vector<Observation> batch;
  for (int i = 0; i < 30; ++i) {
    batch.push_back(
        Run(fmt::format("p{}", i), "train:1", "h100", kT0 + i * 600.0, 300, 10 + (i % 10)));
  }
  f.Ingest(batch);
  BacktestOptions options;
  options.presets = {"vpa", "autopilot", "intelliscale"};
  options.overrides = {{"gpu_memory.margin", "0.5"}};
  const BacktestResult result = f.Run(options);
  REQUIRE(result.runs.size() == 4);
  CHECK(result.runs[0].name == "store");
  CHECK(result.runs[1].name == "vpa");
  CHECK(result.runs[2].name == "autopilot");
  CHECK(result.runs[3].name == "intelliscale");
  const auto setting = [](const BacktestRun& run, const std::string& key) {
    for (const auto& [k, v] : run.settings) {
      if (k == key) return v;
    }
    return std::string("(absent)");
  };
  CHECK(setting(result.runs[0], "gpu_memory.margin") == "0.5");
  CHECK(setting(result.runs[1], "gpu_memory.statistic") == "p90");
  CHECK(setting(result.runs[1], "half_life_hours") == "24");
  CHECK(setting(result.runs[2], "memory.statistic") == "p98");
  CHECK(setting(result.runs[2], "half_life_hours") == "48");
  CHECK(setting(result.runs[3], "gpu_memory.margin") == "0.10");
  // Same executions scored by every run; a larger margin overruns less.
  for (const BacktestRun& run : result.runs) {
    CHECK(run.total.scored == result.runs[0].total.scored);
    CHECK(run.total.overrun_share >= 0);
    CHECK(run.total.overrun_share <= 1);
  }
  const auto gpu = [](const BacktestRun& run) {
    for (const auto& [kind, t] : run.figures) {
      if (kind == FigureKind::kGpuMemoryGb) return t;
    }
    return BacktestTotals{};
  };
  CHECK(gpu(result.runs[0]).overruns <= gpu(result.runs[3]).overruns);
  CHECK(gpu(result.runs[0]).mean_slack > gpu(result.runs[3]).mean_slack);

  BacktestOptions bad;
  bad.presets = {"karpenter"};
  auto refused = Backtest(*f.store, bad);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.status().code() == StatusCode::kInvalidArgument);
  CHECK_THAT(refused.status().message(),
             Catch::Contains("karpenter") && Catch::Contains("intelliscale, vpa, autopilot"));
  bad.presets.clear();
  bad.overrides = {{"gpu_memory.statistic", "p50"}};
  refused = Backtest(*f.store, bad);
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.status().message(),
             Catch::StartsWith("overrides['gpu_memory.statistic']: gpu_memory.statistic must be") &&
                 Catch::Contains("p90, p95, p98, p99, avg, max"));
  // The library's messages name the setting, not a command-line flag.
  CHECK_THAT(refused.status().message(), !Catch::Contains("--set"));

  // A GPU model is checked against the catalog: a misspelling is refused
  // with the closest spellings, not silently scored as nothing.
  BacktestOptions misspelt;
  misspelt.gpu_model = "H100-80";
  refused = Backtest(*f.store, misspelt);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.status().code() == StatusCode::kInvalidArgument);
  CHECK_THAT(refused.status().message(),
             Catch::StartsWith("gpu_model: GPU model 'H100-80' is not in the catalog") &&
                 Catch::Contains("H100 80GB"));
  misspelt.gpu_model = "qqqqqqqqqqqq";
  refused = Backtest(*f.store, misspelt);
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.status().message(),
             !Catch::Contains("did you mean") && Catch::Contains("`hwrec catalog list`"));

  // A preset named twice is replayed once.
  BacktestOptions twice;
  twice.presets = {"vpa", "vpa"};
  CHECK(f.Run(twice).runs.size() == 2);
}

TEST_CASE("backtest: points kept for a report are bounded, every overrun kept, totals whole",
          "[backtest]") {
  Fixture f;
  std::vector<Observation> batch;
  // 1,000 executions; every 50th uses twice the usual, so overruns the figure.
  for (int i = 0; i < 1000; ++i) {
    batch.push_back(Run(fmt::format("p{}", i), "train:1", "h100", kT0 + i * 600.0, 300,
                        i % 50 == 49 ? 40 : 10 + (i % 7)));
  }
  f.Ingest(batch);
  BacktestOptions all;
  all.figure = FigureKind::kGpuMemoryGb;
  all.keep_points = true;
  const BacktestResult whole = f.Run(all);
  BacktestOptions bounded = all;
  bounded.points_per_series = 100;
  const BacktestResult thinned = f.Run(bounded);

  const BacktestSeries& every = OnlySeries(whole.runs.front());
  const BacktestSeries& kept = OnlySeries(thinned.runs.front());
  REQUIRE(every.points.size() == 1000);
  CHECK(kept.totals.scored == every.totals.scored);
  CHECK(kept.totals.overruns == every.totals.overruns);
  CHECK(kept.totals.mean_slack == every.totals.mean_slack);
  const auto marked = [](const std::vector<BacktestPoint>& points) {
    std::vector<std::string> ids;
    for (const BacktestPoint& p : points) {
      if (p.overrun || p.oom) ids.push_back(p.execution_id);
    }
    return ids;
  };
  REQUIRE(every.totals.overruns >= 20);
  CHECK(marked(kept.points) == marked(every.points));
  const std::size_t plain = kept.points.size() - marked(kept.points).size();
  CHECK(plain >= 100);
  CHECK(plain <= 200);
  // Still in start order, and the kept ones are the replay's own points.
  CHECK(std::is_sorted(
      kept.points.begin(), kept.points.end(),
      [](const BacktestPoint& a, const BacktestPoint& b) { return a.started_at < b.started_at; }));
  std::map<std::string, double> figure_of;
  for (const BacktestPoint& p : every.points)
    figure_of[p.execution_id] = p.recommended.value_or(-1);
  for (const BacktestPoint& p : kept.points) {
    CHECK(figure_of.at(p.execution_id) == p.recommended.value_or(-1));
  }
}

TEST_CASE("backtest: replaying writes nothing and works on a read-only store", "[backtest]") {
  TempDir dir;
  const std::string path = dir.File("history.hwrec");
  {
    auto store = OpenStoreOrFail(path);
    REQUIRE(RegisterNodePool(*store, GpuPool("h100", "a3-highgpu-1g", "H100 80GB")).ok());
    const auto ingestor = Ingestor::Open(*store).value();
    REQUIRE(ingestor
                ->Ingest(
                    {Run("a", "t:1", "h100", kT0, 60, 5), Run("b", "t:1", "h100", kT0 + 60, 60, 6)})
                .ok());
  }
  const std::string before = ReadFile(path);
  StoreOptions read_only;
  read_only.read_only = true;
  read_only.no_repair = true;
  auto store = OpenStoreOrFail(path, read_only);
  BacktestOptions options;
  options.presets = {"vpa"};
  auto result = Backtest(*store, options);
  INFO(result.status().ToString());
  REQUIRE(result.ok());
  CHECK(result->runs[0].total.scored > 0);
  store.reset();
  CHECK(ReadFile(path) == before);
}

TEST_CASE("hwrec backtest: table and JSON totals, presets side by side", "[backtest][cli]") {
  TempDir dir;
  const std::string store = ExampleStore(dir);
  const CommandResult table =
      RunCli("backtest " + ShellQuote(store) + " --preset vpa --preset autopilot");
  INFO(table.err);
  REQUIRE(table.exit_code == 0);
  CHECK_THAT(table.out, Catch::Contains("per workload, hardware key and figure") &&
                            Catch::Contains("vpa") && Catch::Contains("autopilot") &&
                            Catch::Contains("overrun %"));
  const CommandResult json =
      RunCli("backtest " + ShellQuote(store) + " --preset vpa --format json");
  INFO(json.err);
  REQUIRE(json.exit_code == 0);
  const auto out = nlohmann::json::parse(json.out);
  const auto& runs = out.at("runs");
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].at("name") == "store");
  CHECK(runs[1].at("name") == "vpa");
  const auto check_totals = [](const nlohmann::json& t) {
    for (const char* field : {"scored", "cold", "overruns", "overrun_share", "mean_slack"}) {
      INFO(field << " in " << t.dump());
      REQUIRE(t.contains(field));
    }
    CHECK(t.at("overrun_share").get<double>() >= 0);
    CHECK(t.at("overrun_share").get<double>() <= 1);
    CHECK(t.at("mean_slack").get<double>() >= 0);
    CHECK(t.at("mean_slack").get<double>() <= 1);
  };
  for (const auto& run : runs) {
    check_totals(run.at("total"));
    for (const auto& [name, totals] : run.at("figures").items()) check_totals(totals);
    REQUIRE_FALSE(run.at("series").empty());
    for (const auto& s : run.at("series")) check_totals(s);
  }

  const CommandResult unknown = RunCli("backtest " + ShellQuote(store) + " --preset karpenter");
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.err, Catch::Contains("got 'karpenter'") &&
                              Catch::Contains("intelliscale, vpa or autopilot"));
  const CommandResult bad_set =
      RunCli("backtest " + ShellQuote(store) + " --set gpu_memory.margin");
  CHECK(bad_set.exit_code == 2);
  CHECK_THAT(bad_set.err, Catch::Contains("KEY=VALUE"));
  const CommandResult bad_figure = RunCli("backtest " + ShellQuote(store) + " --figure gpu");
  CHECK(bad_figure.exit_code == 2);
  CHECK_THAT(bad_figure.err, Catch::Contains("gpu_memory_gb"));
  const CommandResult no_model =
      RunCli("backtest " + ShellQuote(store) + " --gpu-model zzzzzzzzzz");
  CHECK(no_model.exit_code == 1);
  CHECK_THAT(no_model.err,
             Catch::Contains("--gpu-model: GPU model 'zzzzzzzzzz' is not in the catalog") &&
                 !Catch::Contains("did you mean"));
  const CommandResult no_image =
      RunCli("backtest " + ShellQuote(store) + " --image ghcr.io/acme/nosuch:1");
  CHECK(no_image.exit_code == 0);
  CHECK_THAT(no_image.out, Catch::Contains("no execution of workload 'ghcr.io/acme/nosuch:1'"));
}

namespace {

// One pod's executions: (window end, peak GB), one per 15-minute window.
using Windows = std::vector<std::pair<double, double>>;

// The GenAI trace's GPU-memory series, one execution per 15-minute window
// of each pod (its peak), for pods with at least an hour (4 windows) of
// samples; empty when the shared data folder is absent.
std::map<std::string, Windows> GenAiWindows() {
  const std::string archive =
      SharedDataPath("alibaba-genai-v2026/pod_gpu_memory_used_bytes_anon.tar.gz");
  if (!std::ifstream(archive).good()) return {};
  FILE* pipe = popen(("tar -xzOf " + ShellQuote(archive)).c_str(), "r");
  if (pipe == nullptr) return {};
  std::map<std::string, std::map<long long, double>> peaks;
  char buffer[512];
  bool header = true;
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) {
    if (std::exchange(header, false)) continue;
    double t = 0;
    double v = 0;
    char pod[128] = {0};
    if (std::sscanf(buffer, "%lf,%lf,%127s", &t, &v, pod) != 3) continue;
    double& peak = peaks[pod][static_cast<long long>(std::floor(t / 900))];
    peak = std::max(peak, v / 1e9);
  }
  pclose(pipe);
  std::map<std::string, Windows> pods;
  for (const auto& [pod, windows] : peaks) {
    if (windows.size() < 4) continue;
    Windows& w = pods[pod];
    for (const auto& [index, peak] : windows) {
      w.emplace_back(static_cast<double>(index + 1) * 900.0, peak);
    }
  }
  return pods;
}

// What DESIGN §6 says a percentile of a decayed history is, written out
// here independently of MetricState: weights halve every half-life; values
// fall into buckets 5 % wider each (the first ends at 0.01 GB); the answer is
// the upper edge of the bucket where the cumulative weight reaches q, never
// above the largest value. (Kubernetes VPA's histogram answers the same way.)
double BucketedPercentile(const Windows& history, double q, double half_life_s) {
  std::map<int, double> buckets;
  double total = 0;
  double largest = 0;
  const double newest = history.back().first;
  for (const auto& [t, v] : history) {
    const double w = std::exp2((t - newest) / half_life_s);
    const int b =
        v > 0.01 ? static_cast<int>(std::floor(std::log(v / 0.01) / std::log(1.05))) + 1 : 0;
    buckets[b] += w;
    total += w;
    largest = std::max(largest, v);
  }
  double cumulative = 0;
  for (const auto& [b, w] : buckets) {
    cumulative += w;
    if (cumulative >= q * total * (1 - 1e-12)) return std::min(0.01 * std::pow(1.05, b), largest);
  }
  return largest;
}

// The exact weighted percentile, for the note beside the check.
double ExactPercentile(const Windows& history, double q, double half_life_s) {
  std::vector<std::pair<double, double>> weighted;
  double total = 0;
  const double newest = history.back().first;
  for (const auto& [t, v] : history) {
    weighted.emplace_back(v, std::exp2((t - newest) / half_life_s));
    total += weighted.back().second;
  }
  std::sort(weighted.begin(), weighted.end());
  double cumulative = 0;
  for (const auto& [v, w] : weighted) {
    cumulative += w;
    if (cumulative >= q * total * (1 - 1e-12)) return v;
  }
  return weighted.back().first;
}

struct Expected {
  std::int64_t scored = 0;
  std::int64_t overruns = 0;
  double slack = 0;
  std::int64_t fits = 0;
  double overrun_share() const {
    return static_cast<double>(overruns) / static_cast<double>(scored);
  }
  double mean_slack() const { return slack / static_cast<double>(fits); }
};

// The rule replayed over every pod: each window sized by the windows that
// ended by its start, the figure rounded up to 0.01 GB.
template <typename Rule>
Expected Replay(const std::map<std::string, Windows>& pods, Rule rule) {
  Expected e;
  for (const auto& [pod, windows] : pods) {
    for (std::size_t i = 1; i < windows.size(); ++i) {
      const Windows history(windows.begin(), windows.begin() + static_cast<std::ptrdiff_t>(i));
      const double figure = std::ceil(rule(history) * 100 - 1e-9) / 100;
      const double used = windows[i].second;
      ++e.scored;
      if (used > figure) {
        ++e.overruns;
      } else {
        ++e.fits;
        e.slack += (figure - used) / figure;
      }
    }
  }
  return e;
}

}  // namespace

TEST_CASE("backtest: on the GenAI trace, the presets agree with an independent replay",
          "[backtest][real-data]") {
  const auto pods = GenAiWindows();
  if (pods.empty()) {
    WARN("skipped: ../shared/data/alibaba-genai-v2026 is absent");
    return;
  }
  // Each pod is one workload; the hardware key (an H100 80GB pool) is
  // assigned by this test and synthetic: the trace has no GPU model column.
  Fixture f;
  std::vector<Observation> batch;
  std::size_t windows = 0;
  int p = 0;
  for (const auto& [pod, series] : pods) {
    for (std::size_t i = 0; i < series.size(); ++i) {
      batch.push_back(Run(fmt::format("genai-{}-{}", p, i), "genai/pod-" + pod.substr(0, 12),
                          "h100", series[i].first, 900, series[i].second));
    }
    windows += series.size();
    ++p;
  }
  f.Ingest(batch);
  BacktestOptions options;
  options.figure = FigureKind::kGpuMemoryGb;
  options.presets = {"intelliscale", "vpa", "autopilot"};
  const BacktestResult result = f.Run(options);
  REQUIRE(result.runs.size() == 4);
  CHECK(result.executions == static_cast<std::int64_t>(windows));

  const Expected expected[] = {
      Replay(pods,
             [](const Windows& h) {
               double m = 0;
               for (std::size_t i = h.size() > 10 ? h.size() - 10 : 0; i < h.size(); ++i) {
                 m = std::max(m, h[i].second);
               }
               return m * 1.10;
             }),
      Replay(pods,
             [](const Windows& h) { return BucketedPercentile(h, 0.90, 24 * 3600.0) * 1.15; }),
      Replay(pods,
             [](const Windows& h) { return BucketedPercentile(h, 0.98, 48 * 3600.0) * 1.10; }),
  };
  const Expected exact_vpa =
      Replay(pods, [](const Windows& h) { return ExactPercentile(h, 0.90, 24 * 3600.0) * 1.15; });
  const Expected exact_autopilot =
      Replay(pods, [](const Windows& h) { return ExactPercentile(h, 0.98, 48 * 3600.0) * 1.10; });
  std::string table =
      fmt::format("{} pods, {} executions (15-minute windows)\n", pods.size(), windows);
  for (std::size_t r = 1; r < result.runs.size(); ++r) {
    const BacktestTotals& t = result.runs[r].total;
    const Expected& e = expected[r - 1];
    table += fmt::format(
        "{:<13} scored {:>6} overruns {:>5} ({:.2f} %) mean slack {:.2f} %   independent: "
        "{:.2f} % / {:.2f} %\n",
        result.runs[r].name, t.scored, t.overruns, t.overrun_share * 100, t.mean_slack * 100,
        e.overrun_share() * 100, e.mean_slack() * 100);
    INFO(table);
    CHECK(t.scored == e.scored);
    CHECK(t.cold == static_cast<std::int64_t>(pods.size()));
    CHECK(std::fabs(t.overrun_share - e.overrun_share()) <= 0.005);
    CHECK(std::fabs(t.mean_slack - e.mean_slack()) <= 0.005);
  }
  table += fmt::format(
      "exact percentiles instead of buckets: vpa {:.2f} % / {:.2f} %, autopilot {:.2f} % / "
      "{:.2f} %\n",
      exact_vpa.overrun_share() * 100, exact_vpa.mean_slack() * 100,
      exact_autopilot.overrun_share() * 100, exact_autopilot.mean_slack() * 100);
  // The store's own settings are today's defaults: the intelliscale preset.
  CHECK(result.runs[0].total.overruns == result.runs[1].total.overruns);
  WARN(table);
}

TEST_CASE("backtest: a compute share held without utilisation sizes as it does live",
          "[backtest][engine]") {
  Fixture f;
  // a and b held a whole card and reported no utilisation; c was measured.
  Observation c = Run("c", "share:1", "h100", kT0 + 1200, 300, 10);
  c.gpu_utilization = 0.4;
  f.Ingest({Run("a", "share:1", "h100", kT0, 300, 10),
            Run("b", "share:1", "h100", kT0 + 300, 300, 10), c});
  BacktestOptions options;
  options.figure = FigureKind::kGpuComputeFraction;
  options.keep_points = true;
  const BacktestResult result = f.Run(options);
  const BacktestSeries& s = OnlySeries(result.runs[0]);
  REQUIRE(s.points.size() == 1);  // only c says what it used
  CHECK(s.points[0].execution_id == "c");
  REQUIRE(s.points[0].recommended.has_value());
  CHECK(*s.points[0].recommended == Approx(1.0));  // the share a and b held
}

}  // namespace hwrec::test

namespace hwrec::test {
namespace {

// Five workloads seen on both cards use half the share on an H100 that they
// use of an A100, and a fifth more GPU memory; new:1 ran on the A100.
void IngestNewCardHistory(Fixture& f) {
  std::vector<Observation> batch;
  for (int w = 0; w < 5; ++w) {
    const std::string image = fmt::format("job-{}:1", w);
    const double a100_use = 0.3 + 0.1 * w;
    const double a100_memory = 10 + 2 * w;
    for (int i = 0; i < 4; ++i) {
      Observation a =
          Run(fmt::format("{}-a-{}", image, i), image, "a100", kT0 + i * 600, 300, a100_memory);
      a.gpu_utilization = a100_use;
      Observation h = Run(fmt::format("{}-h-{}", image, i), image, "h100", kT0 + i * 600, 300,
                          a100_memory * 1.2);
      h.gpu_utilization = a100_use * 0.5 * (1 + 0.02 * (w - 2));
      batch.push_back(a);
      batch.push_back(h);
    }
  }
  for (int i = 0; i < 4; ++i) {
    Observation a = Run(fmt::format("new-a-{}", i), "new:1", "a100", kT0 + i * 600, 300, 20);
    a.gpu_utilization = 0.8;
    batch.push_back(a);
  }
  f.Ingest(batch);
}

// Then three times on the H100 at once (each sized before any finished),
// using 0.4 of it and 24 GiB.
void IngestNewCardRuns(Fixture& f) {
  std::vector<Observation> batch;
  for (int i = 0; i < 3; ++i) {
    Observation h = Run(fmt::format("new-h-{}", i), "new:1", "h100", kT0 + 7200 + i * 100, 600, 24);
    h.gpu_utilization = 0.4;
    batch.push_back(h);
  }
  f.Ingest(batch);
}

std::size_t Count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// new_card, new_card_scored, transferred, new_card_overruns.
std::vector<std::int64_t> NewCardCounts(const BacktestTotals& t) {
  return {t.new_card, t.new_card_scored, t.transferred, t.new_card_overruns};
}

const BacktestSeries& SeriesOn(const BacktestRun& run, const std::string& model) {
  for (const BacktestSeries& s : run.series) {
    if (s.hardware.gpu_model == model) return s;
  }
  FAIL("no series on " << model);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE(
    "backtest: a workload's first executions on a new card count apart, transferred "
    "when allowed",
    "[backtest][transfer][engine]") {
  Fixture f;
  IngestNewCardHistory(f);
  // What Recommend gives new:1 on the H100 before it ran there: the figures
  // the replay must give its first executions there.
  const HardwareKey h100{"NVIDIA", "H100 80GB", "a3-highgpu-1g", false};
  const Recommendation live =
      RecommendationQuery::Open(*f.store).value()->Recommend("new:1", h100).value();
  IngestNewCardRuns(f);
  BacktestOptions options;
  options.image = "new:1";
  options.figure = FigureKind::kGpuComputeFraction;
  options.keep_points = true;

  // With transfer off a share is never carried to another card: the three are cold.
  options.overrides = {{"gpu_compute.transfer", "false"}};
  const BacktestResult before = f.Run(options);
  const BacktestSeries& cold = SeriesOn(before.runs[0], "H100 80GB");
  CHECK(cold.totals.cold == 3);
  CHECK(NewCardCounts(cold.totals) == std::vector<std::int64_t>{3, 0, 0, 0});
  // Its first executions of all, on the A100, had no history anywhere: cold,
  // but not new to a card.
  const BacktestSeries& first = SeriesOn(before.runs[0], "A100 80GB");
  CHECK(first.totals.cold == 1);
  CHECK(first.totals.new_card == 0);

  options.overrides = {{"gpu_compute.transfer", "true"}};
  const BacktestResult after = f.Run(options);
  const BacktestSeries& moved = SeriesOn(after.runs[0], "H100 80GB");
  CHECK(NewCardCounts(moved.totals) == std::vector<std::int64_t>{3, 3, 3, 0});
  REQUIRE(moved.points.size() == 3);
  for (const BacktestPoint& p : moved.points) {
    INFO(p.execution_id);
    CHECK(p.transferred);
    REQUIRE(p.recommended.has_value());
    // 0.8 of an A100 x 0.5, with the margin and the spread's: above the
    // 0.4 used, and not far; what Recommend gave before it ran there.
    CHECK(*p.recommended >= 0.4);
    CHECK(*p.recommended <= 0.6);
    CHECK(p.recommended == live.figure(FigureKind::kGpuComputeFraction).value);
  }
  CHECK(moved.totals.new_card_mean_slack > 0);
  CHECK(moved.totals.new_card_mean_slack < 0.35);
  // The A100 series is as before: transfer never touches a key with history.
  const BacktestSeries& same = SeriesOn(after.runs[0], "A100 80GB");
  CHECK(same.totals.scored == first.totals.scored);
  CHECK(same.totals.overruns == first.totals.overruns);
  const auto figure_totals = after.runs[0].figures.front().second;
  CHECK(figure_totals.new_card == 3);
  CHECK(figure_totals.transferred == 3);

  // GPU memory: the A100's figure stood for the H100 (any hardware); the
  // transfer replaces it, by default, with what Recommend gave.
  REQUIRE(live.figure(FigureKind::kGpuMemoryGb).provenance == Provenance::kTransferred);
  options.figure = FigureKind::kGpuMemoryGb;
  options.overrides = {{"gpu_memory.transfer", "false"}};
  const BacktestResult any_hardware = f.Run(options);
  const BacktestSeries& copied = SeriesOn(any_hardware.runs[0], "H100 80GB");
  CHECK(NewCardCounts(copied.totals) == std::vector<std::int64_t>{3, 3, 0, 3});  // 22 GiB < 24
  options.overrides.clear();
  const BacktestResult memory = f.Run(options);
  const BacktestSeries& scaled = SeriesOn(memory.runs[0], "H100 80GB");
  CHECK(NewCardCounts(scaled.totals) == std::vector<std::int64_t>{3, 3, 3, 0});
  for (const BacktestPoint& p : scaled.points) {
    CHECK(p.recommended == live.figure(FigureKind::kGpuMemoryGb).value);
    CHECK(*p.recommended > *copied.points.front().recommended);
  }

  // The report marks them and counts them apart.
  const std::string page = RenderBacktestReport(after, {});
  CHECK(Count(page, "class=\"transferred\"") == 3);
  CHECK_THAT(page, Catch::Contains("First on a new card") &&
                       Catch::Contains("3 first on this card (3 transferred)"));
  // So do the JSON and the CLI's table.
  const auto json = nlohmann::json::parse(BacktestJson(after));
  CHECK(json.at("runs")[0].at("total").at("transferred") == 3);
  CHECK(json.at("runs")[0].at("total").at("new_card") == 3);
  const CommandResult table = RunCli("backtest " + ShellQuote(f.location) +
                                     " --image new:1 --set gpu_compute.transfer=true");
  INFO(table.err);
  REQUIRE(table.exit_code == 0);
  CHECK_THAT(table.out, Catch::Contains("first on a new card"));
}

TEST_CASE("backtest: a run on the new card that reported no GPU memory leaves the next first",
          "[backtest][transfer][engine]") {
  Fixture f;
  IngestNewCardHistory(f);
  // It reported its share of the card, not its GPU memory: for GPU memory
  // the three after it are still the first on the H100.
  Observation silent = Run("new-h-silent", "new:1", "h100", kT0 + 6000, 300, 0);
  silent.gpu_memory_peak_gb.reset();
  silent.gpu_utilization = 0.4;
  f.Ingest({silent});
  IngestNewCardRuns(f);
  BacktestOptions options;
  options.image = "new:1";
  options.figure = FigureKind::kGpuMemoryGb;
  const BacktestResult result = f.Run(options);
  const BacktestSeries& s = SeriesOn(result.runs[0], "H100 80GB");
  CHECK(NewCardCounts(s.totals) == std::vector<std::int64_t>{3, 3, 3, 0});
}

}  // namespace hwrec::test
