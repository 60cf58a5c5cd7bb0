#include "bench/bench_history.h"

#include <fmt/format.h>

#include <cmath>
#include <ctime>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include "bench/bench_commands.h"
#include "bench/bench_util.h"
#include "hwrec/ingest.h"

namespace hwrec::bench {

std::optional<HistoryOptions> ParseHistoryOptions(const std::vector<std::string>& args,
                                                  po::options_description& options,
                                                  const char* usage) {
  HistoryOptions history;
  std::string format;
  options.add_options()("observations,n",
                        po::value(&history.observations)->default_value(history.observations),
                        "observations in the store (at least 20,000)")(
      "seed", po::value(&history.seed)->default_value(history.seed), "random seed");
  AddFormatOption(options, &format);
  po::variables_map vm;
  if (!ParseBenchArgs(args, options, usage, &vm)) return std::nullopt;
  if (history.observations < 20000) {
    throw UsageError("--observations must be at least 20,000");
  }
  history.json = IsJsonFormat(format);
  return history;
}

std::unique_ptr<Store> NewHistoryStore(const std::string& path) {
  auto opened = Store::Open(path, BenchStoreOptions());
  if (!opened.ok()) throw std::runtime_error(opened.status().message());
  if (Status s = RegisterNodePool(**opened, BenchPool()); !s.ok()) {
    throw std::runtime_error(s.message());
  }
  return std::move(*opened);
}

NodePool BenchPool() {
  NodePool pool;
  pool.node_pool_id = "bench-a100-80gb";
  pool.site_id = "bench";
  pool.name = "A100 80GB whole cards";
  pool.hardware.instance_type = "a2-ultragpu-1g";
  pool.hardware.architecture = "x86_64";
  pool.hardware.cpu_millicores = 12000;
  pool.hardware.memory_bytes = 182536110080;
  pool.hardware.gpu_brand = "NVIDIA";
  pool.hardware.gpu_model = "A100 80GB";
  pool.hardware.gpu_count = 1;
  pool.hardware.gpu_mode = "full";
  pool.hardware.gpu_total = 1;
  return pool;
}

double HistoryStart() {
  const double now = static_cast<double>(std::time(nullptr));
  return std::floor(now / 86400) * 86400 - kHistorySpan;
}

// Ingests `count` realistic executions of `image` on the bench pool.
void PopulateHistory(Store& store, const std::string& image, std::int64_t count,
                     std::uint64_t seed) {
  const double start = HistoryStart();
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> cpu(std::log(3000), 0.4);
  std::lognormal_distribution<double> memory(std::log(12e9), 0.3);
  std::lognormal_distribution<double> gpu_memory(std::log(30), 0.25);
  std::uniform_real_distribution<double> utilization(0.3, 0.95);
  std::lognormal_distribution<double> duration(std::log(1200), 0.5);
  const auto ingestor_owner = Ingestor::Open(store).value();
  Ingestor& ingestor = *ingestor_owner;
  std::vector<Observation> batch;
  const std::int64_t chunk = 10000;
  for (std::int64_t first = 0; first < count; first += chunk) {
    batch.clear();
    for (std::int64_t i = first; i < std::min(count, first + chunk); ++i) {
      Observation o;
      o.execution_id = fmt::format("{}#{}", image, i);
      o.action_image = image;
      o.finished_at = start + kHistorySpan * static_cast<double>(i) / static_cast<double>(count);
      o.node_pool_id = "bench-a100-80gb";
      o.duration_s = std::round(duration(rng));
      const double avg = std::min(cpu(rng), 7000.0);  // its max stays within the node's 12 cores
      o.cpu_millicores_avg = avg;
      o.cpu_millicores_p95 = avg * 1.3;
      o.cpu_millicores_max = avg * 1.6;
      o.memory_peak_bytes = static_cast<std::int64_t>(memory(rng));
      o.gpu_memory_peak_gb = std::min(80.0, gpu_memory(rng));
      o.gpu_utilization = utilization(rng);
      batch.push_back(std::move(o));
    }
    auto summary = ingestor.Ingest(batch);
    if (!summary.ok()) throw std::runtime_error(summary.status().message());
    if (summary->rejected != 0) {
      throw std::runtime_error(fmt::format("the bench history had {} executions rejected: {}",
                                           summary->rejected, summary->rejects.front().reason));
    }
  }
}

}  // namespace hwrec::bench
