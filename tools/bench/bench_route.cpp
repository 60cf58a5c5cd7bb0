// hwrec-bench route: ladder-build latency from a RouterSnapshot loaded once
// (the target is p99 <= 20 us), and a full simulated walk (8 -> 4 -> 2 on
// capacity misses) both as a dry run and recorded in the store.
#include <fmt/format.h>
#include <boost/program_options.hpp>

#include <chrono>
#include <ctime>
#include <iostream>
#include <sstream>

#include "bench/bench_commands.h"
#include "bench/bench_util.h"
#include "hwrec/ingest.h"
#include "hwrec/ladder.h"
#include "hwrec/ladder_walk.h"
#include "hwrec/router.h"
#include "hwrec/store.h"

namespace hwrec::bench {
namespace {

constexpr double kTargetP99Us = 20;

const char* const kRouteUsage =
    "hwrec-bench route [--iterations N] [--walks W] [--format table|json]\n\n"
    "Seeds a scratch store with GPU-memory history for some intents, loads a\n"
    "RouterSnapshot once, then times N ladder builds over every intent, width\n"
    "(1, 2, 4, 8) and length class, and W walks of a width-8 ladder that miss\n"
    "capacity at 8 and 4 and launch at 2 (dry run, then recorded in the store).";

using Clock = std::chrono::steady_clock;

double MicrosSince(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

void SeedHistory(Store& store) {
  std::ostringstream lines;
  const auto now = static_cast<long long>(std::time(nullptr));
  const char* const kSeeds[][3] = {{"capture-7b", "H100 80GB", "a3-highgpu-1g"},
                                   {"eval-7b", "A100 40GB", "a2-highgpu-1g"},
                                   {"lora-7b", "A100 80GB", "a2-ultragpu-1g"}};
  for (const auto& seed : kSeeds) {
    for (int i = 0; i < 20; ++i) {
      lines
          << fmt::format(
                 R"({{"execution_id":"bench-{}-{}","action_image":"ghcr.io/acme/{}:1.0","finished_at":{},)"
                 R"("status":"success","hardware":{{"instance_type":"{}","gpu_count":1,"gpu_mode":"full",)"
                 R"("gpu_total":1,"gpu_brand":"NVIDIA","gpu_model":"{}"}},"gpu_memory_peak_gb":{}}})",
                 seed[0], i, seed[0], now - 60 * i, seed[2], seed[1], 20 + i)
          << "\n";
    }
  }
  const auto ingestor_owner = Ingestor::Open(store).value();
  Ingestor& ingestor = *ingestor_owner;
  std::istringstream in(lines.str());
  auto summary = ingestor.IngestJsonLines(in);
  if (!summary.ok()) throw std::runtime_error(summary.status().message());
}

struct Latencies {
  std::vector<double> micros;
  double p50() const { return Percentile(micros, 50); }
  double p99() const { return Percentile(micros, 99); }
  double max() const { return Percentile(micros, 100); }
};

Latencies TimeBuilds(const RouterSnapshot& snapshot, std::int64_t iterations) {
  std::vector<RouteRequest> requests;
  for (const Intent& intent : snapshot.config.intents) {
    for (int width : {1, 2, 4, 8}) {
      for (double hours : {2.0, 48.0, 200.0}) {
        requests.push_back({intent.intent, width, hours, width > 1});
      }
    }
  }
  Latencies out;
  out.micros.reserve(static_cast<std::size_t>(iterations));
  for (std::int64_t i = 0; i < iterations; ++i) {
    const RouteRequest& request = requests[static_cast<std::size_t>(i) % requests.size()];
    const auto start = Clock::now();
    auto plan = BuildLadder(snapshot, request);
    out.micros.push_back(MicrosSince(start));
    if (!plan.ok()) throw std::runtime_error(plan.status().message());
  }
  return out;
}

Latencies TimeWalks(Store& store, const RoutePlan& plan, int walks, bool dry_run) {
  Latencies out;
  const Launcher launcher = [](const Rung& rung) {
    return rung.width == 2 ? LaunchResult{LaunchOutcome::kLaunched, ""}
                           : LaunchResult{LaunchOutcome::kCapacityMiss, ""};
  };
  for (int i = 0; i < walks; ++i) {
    WalkOptions options;
    options.dry_run = dry_run;
    options.now = 1.78e9 + 86400.0 * i;  // a fresh UTC day each walk: the cap never binds
    const auto start = Clock::now();
    auto result = WalkLadder(store, plan, launcher, options);
    out.micros.push_back(MicrosSince(start));
    if (!result.ok()) throw std::runtime_error(result.status().message());
    if (result->realized_width != 2) throw std::runtime_error("the simulated walk did not reach 2");
  }
  return out;
}

void Print(bool json, double load_us, std::int64_t iterations, const Latencies& build,
           const Latencies& dry, const Latencies& recorded, std::size_t rungs) {
  const bool met = build.p99() <= kTargetP99Us;
  if (json) {
    std::cout << fmt::format(
        R"({{"snapshot_load_us":{:.1f},"builds":{},"build_p50_us":{:.3f},"build_p99_us":{:.3f},)"
        R"("build_max_us":{:.3f},"target_p99_us":{},"target_met":{},"walk_rungs":{},)"
        R"("walk_dry_p50_us":{:.1f},"walk_dry_p99_us":{:.1f},"walk_recorded_p50_us":{:.1f},)"
        R"("walk_recorded_p99_us":{:.1f},"load_average":{:.2f}}})"
        "\n",
        load_us, iterations, build.p50(), build.p99(), build.max(), kTargetP99Us, met, rungs,
        dry.p50(), dry.p99(), recorded.p50(), recorded.p99(), LoadAverage());
    return;
  }
  std::cout << fmt::format("route: ladder build from a snapshot loaded once ({:.0f} us)\n", load_us)
            << fmt::format("  builds              {:>10}\n", WithThousands(iterations))
            << fmt::format("  p50                 {:>10.3f} us\n", build.p50())
            << fmt::format("  p99                 {:>10.3f} us  (target <= {:g} us: {})\n",
                           build.p99(), kTargetP99Us, met ? "met" : "not met")
            << fmt::format("  max                 {:>10.3f} us\n", build.max())
            << fmt::format("route: full simulated walk, width 8 -> 2 ({} rungs tried)\n", rungs)
            << fmt::format("  dry run   p50 / p99 {:>10.1f} / {:.1f} us\n", dry.p50(), dry.p99())
            << fmt::format("  recorded  p50 / p99 {:>10.1f} / {:.1f} us\n", recorded.p50(),
                           recorded.p99())
            << fmt::format("  load average        {:>10.2f}\n", LoadAverage());
}

}  // namespace

int RunRouteBench(const std::vector<std::string>& args) {
  long long iterations = 200000;
  int walks = 200;
  std::string format;
  po::options_description options("Options");
  options.add_options()("iterations", po::value(&iterations)->default_value(200000),
                        "ladder builds to time")("walks", po::value(&walks)->default_value(200),
                                                 "simulated walks to time");
  AddFormatOption(options, &format);
  po::variables_map vm;
  if (!ParseBenchArgs(args, options, kRouteUsage, &vm)) return kExitOk;
  const bool json = IsJsonFormat(format);
  if (iterations < 1 || walks < 1) throw UsageError("--iterations and --walks must be positive");
  ScratchDir dir;
  auto store = Store::Open(dir.File("route.db"), BenchStoreOptions());
  if (!store.ok()) throw std::runtime_error(store.status().message());
  SeedHistory(**store);
  const auto load_start = Clock::now();
  auto snapshot = RouterSnapshot::Load(**store);
  const double load_us = MicrosSince(load_start);
  if (!snapshot.ok()) throw std::runtime_error(snapshot.status().message());
  const Latencies build = TimeBuilds(*snapshot, iterations);
  auto plan = BuildLadder(*snapshot, {"capture-7b", 8, 48, true});
  if (!plan.ok()) throw std::runtime_error(plan.status().message());
  const Latencies dry = TimeWalks(**store, *plan, walks, true);
  const Latencies recorded = TimeWalks(**store, *plan, walks, false);
  std::size_t rungs = 0;
  while (rungs < plan->ladder.size() && plan->ladder[rungs].width != 2) ++rungs;
  Print(json, load_us, iterations, build, dry, recorded, rungs + 1);
  return kExitOk;
}

}  // namespace hwrec::bench
