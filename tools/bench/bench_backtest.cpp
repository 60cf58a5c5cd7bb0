// hwrec-bench backtest: executions replayed per second by hwrec::Backtest, on
// 10,000 executions of one workload (one figure, then every figure with the
// three presets) and on ~1,000,000 observations of 100 workloads, beside the
// ceiling of merely reading the same rows in the same order with SQLite.
#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>

#include <boost/program_options.hpp>
#include <iostream>
#include <stdexcept>
#include <vector>

#include "bench/bench_commands.h"
#include "bench/bench_history.h"
#include "bench/bench_util.h"
#include "hwrec/backtest.h"
#include "hwrec/node_pool.h"
#include "hwrec/store.h"

namespace hwrec::bench {

namespace {

constexpr int kWideWorkloads = 100;

struct Case {
  std::string label;
  BacktestOptions options;
  std::int64_t executions = 0;  // replayed per run
  std::vector<double> seconds;
};

void Time(const Store& store, Case* c, int repeat) {
  for (int i = 0; i < repeat; ++i) {
    Stopwatch watch;
    watch.Start();
    auto result = Backtest(store, c->options);
    watch.Stop();
    if (!result.ok()) throw std::runtime_error(result.status().message());
    c->executions = result->executions;
    c->seconds.push_back(watch.seconds());
  }
}

// Reading the rows a backtest of everything reads, in its order, and nothing
// else: the floor under its time.
double ReadCeilingSeconds(const std::string& path, std::int64_t* rows) {
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  SQLite::Statement scan(
      db,
      "SELECT o.workload_id, o.finished_at, o.status, o.gpu_brand, o.gpu_model, "
      "o.instance_type, o.gpu_count, o.memory_bytes, m.memory_gb, o.cpu_millicores_avg, "
      "o.cpu_millicores_p95, o.cpu_millicores_max, o.memory_peak_bytes, o.gpu_memory_peak_gb, "
      "o.gpu_compute_fraction, o.gpu_utilization, o.requested_memory_bytes, "
      "o.requested_gpu_memory_gb, o.id, o.execution_id, w.image, o.duration_s "
      "FROM observations o JOIN workloads w ON w.id = o.workload_id "
      "LEFT JOIN gpu_models m ON m.brand = o.gpu_brand AND m.model = o.gpu_model "
      "ORDER BY o.workload_id, o.finished_at, o.id");
  Stopwatch watch;
  watch.Start();
  double sink = 0;
  *rows = 0;
  while (scan.executeStep()) {
    for (int c = 0; c < scan.getColumnCount(); ++c) sink += scan.getColumn(c).getDouble();
    ++*rows;
  }
  watch.Stop();
  if (sink < 0) std::cerr << sink;  // keeps the work observable
  return watch.seconds();
}

}  // namespace

int RunBacktestBench(const std::vector<std::string>& args) {
  po::options_description options("Options");
  int repeat = 5;
  options.add_options()("repeat", po::value(&repeat)->default_value(5),
                        "timed runs of each case (the median counts)");
  const std::optional<HistoryOptions> history = ParseHistoryOptions(
      args, options,
      "hwrec-bench backtest [--observations N] [--seed S] [--repeat R] [--format table|json]");
  if (!history) return kExitOk;
  if (repeat < 1) throw UsageError("--repeat must be at least 1");

  ScratchDir scratch;
  const std::string path = scratch.File("backtest.hwrec");
  const std::unique_ptr<Store> owner = NewHistoryStore(path);
  Store& store = *owner;
  Stopwatch setup;
  setup.Start();
  PopulateHistory(store, "bench/backtest-10k", 10000, history->seed);
  const std::int64_t rest = history->observations - 10000;
  for (int w = 0; w < kWideWorkloads; ++w) {
    const std::int64_t count = rest / kWideWorkloads + (w < rest % kWideWorkloads ? 1 : 0);
    PopulateHistory(store, fmt::format("bench/backtest-wide-{:03}", w), count,
                    history->seed + 1 + static_cast<std::uint64_t>(w));
  }
  setup.Stop();

  std::vector<Case> cases(4);
  cases[0].label = "10k, gpu_memory_gb";
  cases[0].options.image = "bench/backtest-10k";
  cases[0].options.figure = FigureKind::kGpuMemoryGb;
  cases[1].label = "10k, every figure, 3 presets";
  cases[1].options.image = "bench/backtest-10k";
  cases[1].options.presets = {"intelliscale", "vpa", "autopilot"};
  cases[2].label = fmt::format("{}, gpu_memory_gb", WithThousands(history->observations));
  cases[2].options.figure = FigureKind::kGpuMemoryGb;
  cases[3].label = fmt::format("{}, every figure", WithThousands(history->observations));
  for (std::size_t i = 0; i < cases.size(); ++i) {
    Time(store, &cases[i], i < 2 ? std::max(repeat, 5) : repeat);
  }
  std::int64_t rows = 0;
  const double ceiling = ReadCeilingSeconds(path, &rows);

  const auto median = [](const Case& c) { return Percentile(c.seconds, 50); };
  const auto rate = [&](const Case& c) { return static_cast<double>(c.executions) / median(c); };
  if (history->json) {
    std::cout << fmt::format("{{\"observations\": {}, \"cases\": [", history->observations);
    for (std::size_t i = 0; i < cases.size(); ++i) {
      std::cout << fmt::format(
          "{}{{\"case\": \"{}\", \"executions\": {}, \"median_s\": {:.4f}, "
          "\"executions_per_s\": {:.0f}}}",
          i == 0 ? "" : ", ", cases[i].label, cases[i].executions, median(cases[i]),
          rate(cases[i]));
    }
    std::cout << fmt::format(
        "], \"read_ceiling_s\": {:.4f}, \"read_ceiling_rows_per_s\": {:.0f}, "
        "\"every_figure_over_ceiling\": {:.3f}, \"load_average\": {:.2f}, "
        "\"peak_rss_bytes\": {}}}\n",
        ceiling, static_cast<double>(rows) / ceiling, ceiling / median(cases[3]), LoadAverage(),
        PeakRssBytes());
    return kExitOk;
  }
  std::cout << fmt::format(
      "store: {} observations ({} of one workload, the rest over {} "
      "workloads), built in {:.1f} s; load average {:.2f}\n\n",
      WithThousands(history->observations), WithThousands(10000), kWideWorkloads, setup.seconds(),
      LoadAverage());
  std::cout << fmt::format("{:<34}  {:>10}  {:>10}  {:>14}\n", "backtest", "executions", "median",
                           "executions/s");
  for (const Case& c : cases) {
    std::cout << fmt::format("{:<34}  {:>10}  {:>8.3f} s  {:>14}\n", c.label,
                             WithThousands(c.executions), median(c),
                             WithThousands(static_cast<std::int64_t>(rate(c))));
  }
  std::cout << fmt::format(
                   "\nceiling: reading the same {} rows in the same order takes {:.3f} s "
                   "({} rows/s); every figure at {} = {:.2f} of it\n",
                   WithThousands(rows), ceiling,
                   WithThousands(static_cast<std::int64_t>(static_cast<double>(rows) / ceiling)),
                   WithThousands(history->observations), ceiling / median(cases[3]))
            << fmt::format("peak RSS: {}\n", HumanBytes(PeakRssBytes()))
            << "target: 10,000 executions of one figure well under a second\n";
  return kExitOk;
}

}  // namespace hwrec::bench
