// hwrec-bench transfer: how close a compute share transferred to a card the
// workload never ran on comes to what it needs there, on Gavel's measured
// per-GPU throughputs (../shared/data/gavel-throughputs, MIT; read, never
// copied): 26 job types on K80, P100 and V100, each alone on its card (the
// `null` key). A job's used share of a card is its work rate over that card's
// throughput, the rate put where its shares on every card lie within [0.05,
// 1]; each execution reports it with seeded log-normal noise. The shares are
// derived; the throughputs are measured. Each (job, card) is held out in turn:
// a store holds every other record, and the job's figure on that card is read
// through RecommendationQuery, beside copying its share from another card and
// today's answer without transfer (none).
//
// Then what reading the factors costs, on a store of synthetic workloads on
// the three cards (--scale-workloads): the first call of a query that needs a
// transfer (it scans the aggregates), its later calls (kept), and a call
// without transfer (a key with history), each the median of several.
#include <fmt/format.h>
#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench_commands.h"
#include "bench/bench_util.h"
#include "hwrec/catalog.h"
#include "hwrec/config.h"
#include "hwrec/ingest.h"
#include "hwrec/node_pool.h"
#include "hwrec/recommend.h"
#include "hwrec/store.h"

namespace hwrec::bench {

namespace {

constexpr char kTransferUsage[] =
    "hwrec-bench transfer [--data DIR] [--jobs N] [--observations N] [--seed S] "
    "[--scale-workloads W] [--format table|json]";

struct Card {
  const char* name;   // Gavel's key
  const char* model;  // the catalog's
};
constexpr Card kCards[] = {{"k80", "K80"}, {"p100", "P100 16GB"}, {"v100", "V100 16GB"}};
constexpr std::size_t kCardCount = std::size(kCards);
constexpr double kNow = 1795968000;  // 2026-11-29
constexpr double kNoise = 0.1;       // σ of the log-normal noise of each execution

struct Job {
  std::string name;
  std::array<double, kCardCount> share{};  // the share it needs of each card
};

struct Options {
  std::string data = "../shared/data";
  std::size_t jobs = 0;  // 0: every job
  int observations = 10;
  std::uint64_t seed = 1;
  int seeds = 5;               // noise draws, seed .. seed + seeds - 1, pooled
  int scale_workloads = 2000;  // of the cost measurement; 0: none
  bool json = false;
};

std::vector<Job> ReadJobs(const std::string& path, std::size_t limit) {
  std::ifstream in(path);
  const nlohmann::json oracle = nlohmann::json::parse(in);
  std::vector<Job> jobs;
  for (const auto& [name, entry] : oracle.at(kCards[0].name).items()) {
    std::array<double, kCardCount> throughput{};
    for (std::size_t c = 0; c < kCardCount; ++c) {
      throughput[c] = oracle.at(kCards[c].name).at(name).at("null").get<double>();
    }
    const double lowest = *std::min_element(throughput.begin(), throughput.end());
    const double highest = *std::max_element(throughput.begin(), throughput.end());
    if (!(lowest > 0)) continue;  // not measured on every card
    // The geometric middle of [0.05 x fastest, slowest]: every share in [0.05, 1].
    const double rate = std::sqrt(0.05 * highest * lowest);
    Job job{name, {}};
    for (std::size_t c = 0; c < kCardCount; ++c) job.share[c] = rate / throughput[c];
    jobs.push_back(job);
    if (limit > 0 && jobs.size() == limit) break;
  }
  return jobs;
}

std::string Image(std::size_t job) { return fmt::format("gavel/job-{:02}", job); }
std::string PoolOf(std::size_t card) { return fmt::format("gavel-{}", kCards[card].name); }
HardwareKey KeyOf(std::size_t card) {
  HardwareKey key;
  key.gpu_brand = "NVIDIA";
  key.gpu_model = kCards[card].model;
  key.instance_type = fmt::format("gavel-{}-node", kCards[card].name);
  return key;
}

// The `i`-th execution of `image` on `card`, using `utilization` of it.
Observation OnCard(const std::string& image, std::size_t card, int i, double utilization) {
  Observation o;
  o.execution_id = fmt::format("{}-{}-{}", image, kCards[card].name, i);
  o.action_image = image;
  o.finished_at = kNow - 600.0 * i;
  o.node_pool_id = PoolOf(card);
  o.gpu_utilization = utilization;
  return o;
}

// Every execution of every job on every card, with its noise.
std::vector<std::vector<std::vector<Observation>>> Records(const std::vector<Job>& jobs,
                                                           const Options& o, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::normal_distribution<double> noise(0.0, kNoise);
  std::vector<std::vector<std::vector<Observation>>> out(jobs.size());
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    out[j].resize(kCardCount);
    for (std::size_t c = 0; c < kCardCount; ++c) {
      for (int i = 0; i < o.observations; ++i) {
        out[j][c].push_back(
            OnCard(Image(j), c, i, std::min(1.0, jobs[j].share[c] * std::exp(noise(random)))));
      }
    }
  }
  return out;
}

void Check(const Status& status) {
  if (!status.ok()) throw std::runtime_error(status.ToString());
}

// A store with the three cards' pools, transfer of the compute share on and
// the decayed mean as its statistic (the central share, as the records are).
std::unique_ptr<Store> NewStore(const std::string& path) {
  auto store = Store::Open(path, BenchStoreOptions());
  Check(store.status());
  std::istringstream k80(
      "brand,model,card_memory_gb,card_compute_slices,mode,memory_gb,"
      "compute_slices\nNVIDIA,K80,12,1,full,12,1\n");
  Check(ImportCatalogCsv(**store, k80).status());
  for (std::size_t c = 0; c < kCardCount; ++c) {
    NodePool pool;
    pool.node_pool_id = PoolOf(c);
    pool.site_id = "gavel";
    pool.name = kCards[c].model;
    pool.hardware.instance_type = fmt::format("gavel-{}-node", kCards[c].name);
    pool.hardware.gpu_brand = "NVIDIA";
    pool.hardware.gpu_model = kCards[c].model;
    pool.hardware.gpu_mode = "full";
    pool.hardware.gpu_count = 1;
    pool.hardware.gpu_total = 1;
    Check(RegisterNodePool(**store, pool));
  }
  Check(SetConfig(**store, "gpu_compute.transfer", "true"));
  Check(SetConfig(**store, "gpu_compute.statistic", "avg"));
  Check(SetConfig(**store, "gpu_compute.margin", "0.15"));
  Check(SetConfig(**store, "transfer.spread_margin", "0.3"));
  return std::move(*store);
}

struct Scores {
  std::vector<double> errors;  // |estimate - need| / need, where there is an estimate
  std::vector<double> slack;   // published / need - 1, where it covers the need
  std::int64_t answered = 0, under = 0, cases = 0;

  void Add(std::optional<double> estimate, std::optional<double> published, double need) {
    ++cases;
    if (estimate) errors.push_back(std::fabs(*estimate - need) / need);
    if (!published) {
      ++under;  // no figure: nothing covers the need
      return;
    }
    ++answered;
    if (*published < need) {
      ++under;
    } else {
      slack.push_back(*published / need - 1);
    }
  }
  nlohmann::ordered_json Json() const {
    const auto or_null = [](const std::vector<double>& v, double p) {
      return v.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(Percentile(v, p));
    };
    return {{"answered", answered},
            {"cases", cases},
            {"median_error", or_null(errors, 50)},
            {"p90_error", or_null(errors, 90)},
            {"under_need", static_cast<double>(under) / static_cast<double>(cases)},
            {"median_slack", or_null(slack, 50)}};
  }
};

// One held-out case: a store at `path` with every record but job j's on card
// c, and the job's compute share on that card as transfer and as a copy give it.
void HeldOut(const std::string& path, const std::vector<Job>& jobs,
             const std::vector<std::vector<std::vector<Observation>>>& records, std::size_t j,
             std::size_t c, Scores* transferred, Scores* copied, std::int64_t* neighbours) {
  auto store = NewStore(path);
  std::vector<Observation> kept;
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    for (std::size_t d = 0; d < kCardCount; ++d) {
      if (k == j && d == c) continue;  // held out
      kept.insert(kept.end(), records[k][d].begin(), records[k][d].end());
    }
  }
  auto ingestor = Ingestor::Open(*store);
  Check(ingestor.status());
  Check((*ingestor)->Ingest(kept).status());
  auto query = RecommendationQuery::Open(*store);
  Check(query.status());
  auto answer = (*query)->Recommend(Image(j), KeyOf(c), kNow);
  Check(answer.status());
  const Figure& figure = answer->figure(FigureKind::kGpuComputeFraction);
  const double need = jobs[j].share[c];
  if (figure.transfer) {
    transferred->Add(figure.transfer->estimate, figure.value, need);
    *neighbours += figure.transfer->neighbours > 0 ? 1 : 0;
    // Copied as is: the job's figure on the card the transfer learned from.
    std::size_t source = 0;
    while (source < kCardCount && figure.transfer->source.gpu_model != kCards[source].model) {
      ++source;
    }
    if (source == kCardCount) throw std::runtime_error("a transfer from a card not in the bench");
    auto on_source = (*query)->Recommend(Image(j), KeyOf(source), kNow);
    Check(on_source.status());
    copied->Add(figure.transfer->source_value,
                on_source->figure(FigureKind::kGpuComputeFraction).value, need);
  } else {
    transferred->Add(std::nullopt, figure.value, need);
    copied->Add(std::nullopt, std::nullopt, need);
  }
}

// What reading the factors costs, in microseconds (medians).
struct ReadCost {
  std::int64_t aggregates = 0;  // width-0 rows of scope gpu_model the scan reads
  double first_call_us = 0;     // a new query's first call that needs a transfer
  double kept_call_us = 0;      // its later calls
  double plain_call_us = 0;     // a kept query's call on a key with history
};

// `workloads` workloads with two executions on each card (shares drawn at
// random), and one on the K80 only, whose V100 figures are transferred.
ReadCost MeasureReadCost(const std::string& path, int workloads, std::uint64_t seed) {
  auto store = NewStore(path);
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> share(0.1, 0.9);
  std::vector<Observation> batch;
  const auto add = [&](const std::string& image, std::size_t card, int i, double use) {
    batch.push_back(OnCard(image, card, i, use));
    batch.back().gpu_memory_peak_gb = 2 + 8 * use;
  };
  for (int w = 0; w < workloads; ++w) {
    const double base = share(random);
    for (std::size_t c = 0; c < kCardCount; ++c) {
      for (int i = 0; i < 2; ++i)
        add(fmt::format("scale/job-{:05}", w), c, i, base / (static_cast<double>(c) + 1));
    }
  }
  for (int i = 0; i < 2; ++i) add("scale/new", 0, i, 0.6);
  auto ingestor = Ingestor::Open(*store);
  Check(ingestor.status());
  Check((*ingestor)->Ingest(batch).status());

  ReadCost cost;
  cost.aggregates = static_cast<std::int64_t>(workloads) * 3 + 1;
  const auto time_call = [&](RecommendationQuery& query, const std::string& image,
                             std::size_t card) {
    Stopwatch watch;
    watch.Start();
    Check(query.Recommend(image, KeyOf(card), kNow).status());
    watch.Stop();
    return watch.seconds() * 1e6;
  };
  std::vector<double> first, kept, plain;
  for (int round = 0; round < 5; ++round) {
    auto query = RecommendationQuery::Open(*store);
    Check(query.status());
    time_call(**query, "scale/job-00000", 2);  // prepares the statements
    first.push_back(time_call(**query, "scale/new", 2));
    for (int i = 0; i < 200; ++i) {
      kept.push_back(time_call(**query, "scale/new", 2));
      plain.push_back(time_call(**query, "scale/job-00001", 2));
    }
  }
  const auto check = RecommendationQuery::Open(*store);
  Check(check.status());
  const auto answer = (*check)->Recommend("scale/new", KeyOf(2), kNow);
  Check(answer.status());
  if (!answer->figure(FigureKind::kGpuComputeFraction).transfer) {
    throw std::runtime_error("the cost store's new workload got no transferred share");
  }
  cost.first_call_us = Percentile(first, 50);
  cost.kept_call_us = Percentile(kept, 50);
  cost.plain_call_us = Percentile(plain, 50);
  return cost;
}

std::string PercentCell(const std::vector<double>& values, double p) {
  return values.empty() ? "-" : fmt::format("{:.1f} %", Percentile(values, p) * 100);
}

Options ParseOptions(const std::vector<std::string>& args, bool* help) {
  Options o;
  std::string format = "table";
  po::options_description described("Options");
  described.add_options()("data", po::value(&o.data)->default_value(o.data),
                          "the folder holding gavel-throughputs/oracle_throughputs.json")(
      "jobs", po::value(&o.jobs)->default_value(0), "the first N job types only (0: all 26)")(
      "observations", po::value(&o.observations)->default_value(o.observations),
      "executions per (job, card)")("seeds", po::value(&o.seeds)->default_value(o.seeds),
                                    "noise draws pooled: seeds S to S + N - 1")(
      "seed", po::value(&o.seed)->default_value(o.seed), "seed of the noise")(
      "scale-workloads", po::value(&o.scale_workloads)->default_value(o.scale_workloads),
      "workloads on the three cards of the store that times reading the factors (0: skip)")(
      "format", po::value(&format)->default_value(format), "output format: table or json");
  po::variables_map vm;
  *help = !ParseBenchArgs(args, described, kTransferUsage, &vm);
  if (o.jobs != 0 && o.jobs < 5) throw UsageError("--jobs must be 0 (all) or at least 5");
  if (o.observations < 1) throw UsageError("--observations must be at least 1");
  if (o.seeds < 1) throw UsageError("--seeds must be at least 1");
  if (o.scale_workloads != 0 && o.scale_workloads < 10) {
    throw UsageError("--scale-workloads must be 0 (skip) or at least 10");
  }
  o.json = IsJsonFormat(format);
  return o;
}

}  // namespace

int RunTransferBench(const std::vector<std::string>& args) {
  bool help = false;
  const Options o = ParseOptions(args, &help);
  if (help) return kExitOk;
  const std::string path = o.data + "/gavel-throughputs/oracle_throughputs.json";
  if (!std::filesystem::exists(path)) {
    std::cout << "hwrec-bench transfer: skipped: " << path
              << " is absent (see the data's README)\n";
    return kExitOk;
  }
  const std::vector<Job> jobs = ReadJobs(path, o.jobs);

  Scores transferred, copied, none;
  std::int64_t neighbours = 0;
  ScratchDir scratch;
  for (int draw = 0; draw < o.seeds; ++draw) {
    const auto records = Records(jobs, o, o.seed + static_cast<std::uint64_t>(draw));
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      for (std::size_t c = 0; c < kCardCount; ++c) {
        const std::string store_path = scratch.File(fmt::format("held-{}-{}.hwrec", j, c));
        HeldOut(store_path, jobs, records, j, c, &transferred, &copied, &neighbours);
        none.Add(std::nullopt, std::nullopt, jobs[j].share[c]);
        std::filesystem::remove(store_path);
      }
    }
  }

  ReadCost cost;
  if (o.scale_workloads > 0) {
    cost = MeasureReadCost(scratch.File("scale.hwrec"), o.scale_workloads, o.seed);
  }

  const std::string about = fmt::format(
      "Gavel's measured throughputs (K80, P100, V100; {} job types, each alone on its card); "
      "shares derived as work rate / throughput (the throughputs are measured, the shares are "
      "not), {} executions per (job, card) with log-normal noise sigma {:g} (seeds {} to {}, "
      "pooled); each (job, card) held out in turn: {} cases. Store settings: gpu_compute.transfer "
      "true, "
      "gpu_compute.statistic avg (the central share), margin +15 %, transfer.spread_margin 0.3",
      jobs.size(), o.observations, kNoise, o.seed, o.seed + static_cast<std::uint64_t>(o.seeds) - 1,
      transferred.cases);
  if (o.json) {
    nlohmann::ordered_json out = {{"about", about},
                                  {"transferred", transferred.Json()},
                                  {"copied", copied.Json()},
                                  {"none", none.Json()},
                                  {"from_nearest_workloads", neighbours}};
    if (o.scale_workloads > 0) {
      out["factor_read"] = {
          {"workloads", o.scale_workloads},      {"aggregates", cost.aggregates},
          {"first_call_us", cost.first_call_us}, {"kept_call_us", cost.kept_call_us},
          {"plain_call_us", cost.plain_call_us}, {"load_average", LoadAverage()}};
    }
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  std::cout << "hwrec-bench transfer: " << about << "\n\n";
  std::cout << fmt::format("{:<34}{:>10}{:>13}{:>10}{:>13}{:>15}\n",
                           "compute share on the held-out card", "answered", "median err",
                           "p90 err", "under need", "median slack");
  const auto row = [](const char* what, const Scores& s) {
    std::cout << fmt::format("{:<34}{:>10}{:>13}{:>10}{:>13}{:>15}\n", what,
                             fmt::format("{}/{}", s.answered, s.cases), PercentCell(s.errors, 50),
                             PercentCell(s.errors, 90),
                             fmt::format("{:.1f} %", 100.0 * static_cast<double>(s.under) /
                                                         static_cast<double>(s.cases)),
                             PercentCell(s.slack, 50));
  };
  row("transferred (hwrec)", transferred);
  row("copied from the source card", copied);
  row("none (without transfer)", none);
  std::cout << fmt::format(
      "\nerr: the estimate before margin and rounding against the need; under need and slack: "
      "the published figure (with its margin).\n{} of {} transfers from the nearest workloads "
      "(the job ran on a third card), the rest from the median of every pair.\n"
      "targets: median err <= 20 %, p90 err <= 70 %; under need <= 20 % with median slack <= "
      "50 %\n",
      neighbours, transferred.answered);
  if (o.scale_workloads > 0) {
    std::cout << fmt::format(
        "\nreading the factors ({} workloads on the 3 cards, {} aggregates of scope gpu_model; "
        "load average {:.2f}):\n"
        "  a new query's first call that needs a transfer  {:>10.1f} us (it scans them)\n"
        "  its later calls (factors kept)                  {:>10.1f} us\n"
        "  a call on a key with history (no transfer)      {:>10.1f} us\n",
        WithThousands(o.scale_workloads), WithThousands(cost.aggregates), LoadAverage(),
        cost.first_call_us, cost.kept_call_us, cost.plain_call_us);
  }
  return kExitOk;
}

}  // namespace hwrec::bench
