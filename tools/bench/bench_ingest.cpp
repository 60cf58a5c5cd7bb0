// hwrec-bench ingest: ingests a generated, reproducible set of observations
// through the public API, then measures the raw SQLite ceiling for the same
// rows in the same run, and prints both with their ratio.
#include <fmt/format.h>
#include <boost/program_options.hpp>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <thread>

#include "bench/bench_commands.h"
#include "bench/bench_util.h"
#include "bench/raw_ceiling.h"
#include "fixtures/observation_generator.h"
#include "hwrec/ingest.h"
#include "hwrec/node_pool.h"
#include "hwrec/store.h"

namespace hwrec::bench {
namespace {

constexpr std::size_t kChunkRecords = 10000;  // generated and handed to Ingest at a time
constexpr std::int64_t kTargetObservations = 1000000;
constexpr double kTargetRatio = 0.7;

struct IngestBenchOptions {
  std::int64_t observations = 0;
  std::uint64_t seed = 1;
  std::size_t batch = 10000;
  std::string store_path;  // empty: a scratch store removed at exit
  bool gpus_held = false;  // GPU records say they held one GPU
  bool json = false;
};

struct IngestMeasurement {
  IngestSummary summary;  // counts only: rejects and conflict ids are not kept
  double seconds = 0;
  std::vector<double> chunk_seconds;
  std::int64_t rss_before = 0;  // peak RSS before the first Ingest call
  std::int64_t peak_rss = 0;
  double load_average = 0;  // when ingest started
};

const char* const kIngestUsage =
    "hwrec-bench ingest --observations N [--seed S] [--batch B] [--store PATH] [--gpus-held]\n"
    "                   [--format F]\n\n"
    "Generates N reproducible observations (300 images, 12 node pools, a few percent\n"
    "bad records and re-sends), ingests them with hwrec::Ingestor into a fresh store,\n"
    "then writes the same rows with plain prepared INSERTs (the raw SQLite ceiling)\n"
    "and prints both rates and their ratio. Only the writes are timed.";

std::optional<IngestBenchOptions> ParseOptions(const std::vector<std::string>& args) {
  IngestBenchOptions options;
  long long observations = 0;
  unsigned long long seed = 1;
  long long batch = 10000;
  std::string format;
  po::options_description described("Options");
  described.add_options()("observations,n", po::value(&observations)->required(),
                          "observations to generate and ingest")(
      "seed,s", po::value(&seed)->default_value(1), "generator seed: same seed, same records")(
      "batch,b", po::value(&batch)->default_value(10000), "records per transaction")(
      "store", po::value(&options.store_path),
      "write into a new store at PATH and keep it (default: a scratch store, removed)");
  AddGpusHeldOption(described, &options.gpus_held);
  AddFormatOption(described, &format);
  po::variables_map vm;
  if (!ParseBenchArgs(args, described, kIngestUsage, &vm)) return std::nullopt;
  if (observations < 1) throw UsageError("--observations must be at least 1");
  if (batch < 1) throw UsageError("--batch must be at least 1");
  options.observations = observations;
  options.seed = seed;
  options.batch = static_cast<std::size_t>(batch);
  options.json = IsJsonFormat(format);
  return options;
}

// Chunks hold whole transactions, so ingest and the ceiling commit alike.
std::size_t ChunkSize(std::size_t batch) { return batch * ((kChunkRecords + batch - 1) / batch); }

Status RegisterPools(Store& store, const fixtures::ObservationGenerator& generator) {
  for (const fixtures::BenchPool& pool : generator.pools()) {
    if (Status status = RegisterNodePool(store, pool.pool); !status.ok()) return status;
  }
  return Status::Ok();
}

void AddCounts(const IngestSummary& chunk, IngestSummary* total) {
  total->accepted += chunk.accepted;
  total->duplicates += chunk.duplicates;
  total->conflicts += chunk.conflicts;
  total->rejected += chunk.rejected;
  total->profile_id_mismatches += chunk.profile_id_mismatches;
}

Result<IngestMeasurement> MeasureIngest(Store& store,
                                        const fixtures::ObservationGenerator& generator,
                                        const IngestBenchOptions& options) {
  IngestOptions ingest_options;
  ingest_options.source = "hwrec-bench";
  ingest_options.batch_size = options.batch;
  const auto ingestor_owner = Ingestor::Open(store, ingest_options).value();
  Ingestor& ingestor = *ingestor_owner;
  const std::size_t chunk = ChunkSize(options.batch);
  IngestMeasurement measurement;
  measurement.rss_before = PeakRssBytes();
  measurement.load_average = LoadAverage();
  std::vector<Observation> observations;
  Stopwatch stopwatch;
  for (std::int64_t first = 0; first < options.observations;
       first += static_cast<std::int64_t>(chunk)) {
    generator.Fill(first, std::min(static_cast<std::int64_t>(chunk), options.observations - first),
                   &observations);
    stopwatch.Start();
    Result<IngestSummary> summary = ingestor.Ingest(observations);
    stopwatch.Stop();
    if (!summary.ok()) return summary.status();
    AddCounts(*summary, &measurement.summary);
  }
  measurement.seconds = stopwatch.seconds();
  measurement.chunk_seconds = stopwatch.laps();
  measurement.peak_rss = PeakRssBytes();
  return measurement;
}

double Ratio(const IngestMeasurement& ours, const CeilingResult& ceiling) {
  const double ceiling_rate = PerSecond(ceiling.offered, ceiling.seconds);
  return ceiling_rate > 0 ? PerSecond(ceiling.offered, ours.seconds) / ceiling_rate : 0;
}

std::string TargetVerdict(const IngestBenchOptions& options, double ratio) {
  const bool met = ratio >= kTargetRatio;
  if (options.observations == kTargetObservations) return met ? "met" : "NOT met";
  return fmt::format("{} at {} observations; the target applies at {}", met ? "met" : "not met",
                     WithThousands(options.observations), WithThousands(kTargetObservations));
}

void PrintTable(const IngestBenchOptions& options, const fixtures::ObservationGenerator& generator,
                const IngestMeasurement& ours, const CeilingResult& ceiling) {
  const IngestSummary& s = ours.summary;
  const double ratio = Ratio(ours, ceiling);
  const auto& laps = ours.chunk_seconds;
  std::cout << fmt::format(
      "hwrec-bench ingest: {} observations (seed {}, batch {}, {} images, {} node pools{})\n\n",
      WithThousands(options.observations), options.seed,
      WithThousands(static_cast<std::int64_t>(options.batch)), generator.images().size(),
      generator.pools().size(), options.gpus_held ? ", GPU records hold 1 GPU each" : "");
  std::cout << "hwrec Ingestor::Ingest\n"
            << fmt::format("  accepted              {:>12}\n", WithThousands(s.accepted))
            << fmt::format("  duplicates            {:>12}\n", WithThousands(s.duplicates))
            << fmt::format("  conflicts             {:>12}\n", WithThousands(s.conflicts))
            << fmt::format("  rejected              {:>12}\n", WithThousands(s.rejected))
            << fmt::format("  profile id mismatches {:>12}\n",
                           WithThousands(s.profile_id_mismatches))
            << fmt::format("  elapsed               {:>12.3f} s\n", ours.seconds)
            << fmt::format("  throughput            {:>12} observations/s\n",
                           WithThousands(static_cast<std::int64_t>(
                               PerSecond(options.observations, ours.seconds))))
            << fmt::format(
                   "  time per Ingest call  p50 {:.3f} s, p95 {:.3f} s, max {:.3f} s ({} records "
                   "each)\n",
                   Percentile(laps, 50), Percentile(laps, 95), Percentile(laps, 100),
                   WithThousands(static_cast<std::int64_t>(ChunkSize(options.batch))))
            << fmt::format("  peak RSS              {:>12} ({} before ingest)\n\n",
                           HumanBytes(ours.peak_rss), HumanBytes(ours.rss_before));
  std::cout << "raw SQLite ceiling (prepared INSERTs of the same rows, same batch, WAL + "
               "synchronous=NORMAL)\n"
            << fmt::format("  rows inserted         {:>12}\n", WithThousands(ceiling.inserted))
            << fmt::format("  elapsed               {:>12.3f} s\n", ceiling.seconds)
            << fmt::format("  throughput            {:>12} observations/s\n\n",
                           WithThousands(static_cast<std::int64_t>(
                               PerSecond(ceiling.offered, ceiling.seconds))))
            << fmt::format("ratio ours/ceiling: {:.3f}\n", ratio)
            << fmt::format("target at 1,000,000 observations: ratio >= {}\n", kTargetRatio)
            << fmt::format("this run: {}\n", TargetVerdict(options, ratio));
  const unsigned cores = std::max(1U, std::thread::hardware_concurrency());
  std::cout << fmt::format(
      "load average {:.1f} on {} cores when ingest started{}\n", ours.load_average, cores,
      ours.load_average >= cores ? ": other work shares the CPU, so these figures are unreliable"
                                 : "");
}

void PrintJson(const IngestBenchOptions& options, const fixtures::ObservationGenerator& generator,
               const IngestMeasurement& ours, const CeilingResult& ceiling) {
  const IngestSummary& s = ours.summary;
  const auto& laps = ours.chunk_seconds;
  std::cout << fmt::format(
      "{{\"command\":\"ingest\",\"observations\":{},\"seed\":{},\"batch\":{},\"images\":{},"
      "\"node_pools\":{},\"accepted\":{},\"duplicates\":{},\"conflicts\":{},\"rejected\":{},"
      "\"profile_id_mismatches\":{},\"elapsed_s\":{},\"observations_per_s\":{},"
      "\"chunk_seconds\":{{\"p50\":{},\"p95\":{},\"max\":{}}},\"peak_rss_bytes\":{},"
      "\"rss_before_ingest_bytes\":{},\"load_average\":{},\"ceiling\":{{\"rows_inserted\":{},"
      "\"elapsed_s\":{},"
      "\"observations_per_s\":{}}},\"ratio\":{},\"target\":{{\"observations\":{},"
      "\"min_ratio\":{}}}}}\n",
      options.observations, options.seed, options.batch, generator.images().size(),
      generator.pools().size(), s.accepted, s.duplicates, s.conflicts, s.rejected,
      s.profile_id_mismatches, ours.seconds, PerSecond(options.observations, ours.seconds),
      Percentile(laps, 50), Percentile(laps, 95), Percentile(laps, 100), ours.peak_rss,
      ours.rss_before, ours.load_average, ceiling.inserted, ceiling.seconds,
      PerSecond(ceiling.offered, ceiling.seconds), Ratio(ours, ceiling), kTargetObservations,
      kTargetRatio);
}

// The store ingest writes into: a scratch file, or --store when it names a new file.
Result<std::string> StorePath(const IngestBenchOptions& options, const ScratchDir& scratch) {
  if (options.store_path.empty()) return scratch.File("ingest.hwrec");
  const std::filesystem::path path(options.store_path);
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) {
    return Status::InvalidArgument(
        fmt::format("--store {} already exists: the benchmark needs a fresh store; remove it or "
                    "name another path",
                    options.store_path));
  }
  if (path.has_parent_path() && !std::filesystem::is_directory(path.parent_path(), ec)) {
    return Status::InvalidArgument(
        fmt::format("--store {}: directory {} does not exist: create it first", options.store_path,
                    path.parent_path().string()));
  }
  return options.store_path;
}

int Fail(const std::string& message) {
  std::cerr << "hwrec-bench ingest: " << message << "\n";
  return kExitError;
}

}  // namespace

int RunIngestBench(const std::vector<std::string>& args) {
  const std::optional<IngestBenchOptions> options = ParseOptions(args);
  if (!options) return kExitOk;
  ScratchDir scratch;
  const Result<std::string> store_path = StorePath(*options, scratch);
  if (!store_path.ok()) return Fail(store_path.status().message());
  fixtures::ObservationGenerator generator(options->seed, options->observations);
  generator.SendGpusHeld(options->gpus_held);
  Result<IngestMeasurement> ours = Status::Internal("not measured");
  {
    Result<std::unique_ptr<Store>> store = Store::Open(*store_path, BenchStoreOptions());
    if (!store.ok()) return Fail(store.status().message());
    if (Status status = RegisterPools(**store, generator); !status.ok()) {
      return Fail("registering the benchmark's node pools: " + status.message());
    }
    ours = MeasureIngest(**store, generator, *options);
    if (!ours.ok()) return Fail(ours.status().message());
  }
  FlushFileToDisk(*store_path);  // closing checkpointed the WAL into it
  CeilingOptions ceiling_options;
  ceiling_options.observations = options->observations;
  ceiling_options.batch = options->batch;
  ceiling_options.chunk = ChunkSize(options->batch);
  const CeilingResult ceiling =
      RunRawCeiling(scratch.File("ceiling.hwrec"), generator, ceiling_options);
  if (options->json) {
    PrintJson(*options, generator, *ours, ceiling);
  } else {
    PrintTable(*options, generator, *ours, ceiling);
  }
  return kExitOk;
}

}  // namespace hwrec::bench
