// hwrec-bench engines: the same generated input ingested, recommended from
// and placed on against a SQLite file and a PostgreSQL store in one run, each
// figure printed per engine with the ratio PostgreSQL/SQLite.
#include <fmt/format.h>
#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <optional>
#include <thread>

#include "bench/bench_commands.h"
#include "bench/bench_util.h"
#include "bench/generated_ingest.h"
#include "bench/place_fixture.h"
#include "bench/postgresql_target.h"
#include "hwrec/config.h"
#include "hwrec/hardware_key.h"
#include "hwrec/placement.h"
#include "hwrec/recommend.h"

namespace hwrec::bench {
namespace {

const char* const kEnginesUsage =
    "hwrec-bench engines [--postgresql URI] [--records N] [--seed S] [--batch B]\n"
    "                    [--lookups L] [--evaluations E] [--candidates C]\n"
    "                    [--pg-server-script PATH] [--format table|json]\n\n"
    "Runs the same work against a scratch SQLite file and a PostgreSQL store: registers\n"
    "the generator's pools and 1,000 candidate pools, ingests N generated records\n"
    "(observations/s), asks L times for one recommendation of one GPU workload on one\n"
    "hardware key as a Runner replica does (p50/p99), and evaluates the placement of\n"
    "one execution over C candidates E times (evaluations/s). Prints each figure per\n"
    "engine and the ratio PostgreSQL/SQLite.\n\n"
    "The PostgreSQL store is a fresh schema (dropped at the end) in the database of\n"
    "--postgresql URI; without it, a throwaway server is started with\n"
    "scripts/pg_server.sh on loopback and stopped at the end.";

struct EnginesOptions {
  std::string postgresql;
  std::string server_script;
  std::int64_t records = 50000;
  std::uint64_t seed = 1;
  std::size_t batch = 1000;
  int lookups = 2000;
  int evaluations = 200;
  std::size_t candidates = 100;
  bool json = false;
};

std::optional<EnginesOptions> ParseOptions(const std::vector<std::string>& args) {
  EnginesOptions options;
  long long records = 0;
  long long batch = 0;
  long long candidates = 0;
  std::string format;
  po::options_description described("Options");
  described.add_options()("postgresql", po::value(&options.postgresql),
                          "a PostgreSQL URI (default: a throwaway server)")(
      "records,n", po::value(&records)->default_value(options.records),
      "generated records to ingest")("seed,s", po::value(&options.seed)->default_value(1),
                                     "generator seed")(
      "batch,b", po::value(&batch)->default_value(static_cast<long long>(options.batch)),
      "records per transaction")("lookups",
                                 po::value(&options.lookups)->default_value(options.lookups),
                                 "timed recommendations")(
      "evaluations", po::value(&options.evaluations)->default_value(options.evaluations),
      "timed placement evaluations")("candidates", po::value(&candidates)->default_value(100),
                                     "candidate pools per evaluation (at most 1,000)")(
      "pg-server-script", po::value(&options.server_script)->default_value(DefaultServerScript()),
      "the pg_server.sh that starts a throwaway server");
  AddFormatOption(described, &format);
  po::variables_map vm;
  if (!ParseBenchArgs(args, described, kEnginesUsage, &vm)) return std::nullopt;
  if (records < 1) throw UsageError("--records must be at least 1");
  if (batch < 1) throw UsageError("--batch must be at least 1");
  if (options.lookups < 1) throw UsageError("--lookups must be at least 1");
  if (options.evaluations < 1) throw UsageError("--evaluations must be at least 1");
  if (candidates < 1 || candidates > static_cast<long long>(kPlacePools)) {
    throw UsageError("--candidates must be between 1 and 1,000");
  }
  options.records = records;
  options.batch = static_cast<std::size_t>(batch);
  options.candidates = static_cast<std::size_t>(candidates);
  options.json = IsJsonFormat(format);
  return options;
}

struct EngineFigures {
  std::string location;  // as the store prints it (a password redacted)
  TimedIngest ingest;
  std::vector<double> recommend_us;
  // A kept query's recommendation right after another connection committed
  // a change of settings: the call sees it and reads again in a snapshot.
  std::vector<double> recommend_moved_us;
  Stopwatch place;  // one lap per Evaluate call
  // Round trips to the server per timed call (0 on SQLite, in this process).
  double recommend_trips = 0, place_trips = 0;
  std::size_t feasible = 0;
  std::string chosen;

  double ObservationsPerSecond() const { return PerSecond(ingest.offered, ingest.seconds); }
  double EvaluationsPerSecond() const {
    return PerSecond(static_cast<std::int64_t>(place.laps().size()), place.seconds());
  }
};

// The hardware key the bench asks recommendations for: `workload`'s first pool's.
HardwareKey RecommendKey(const fixtures::ObservationGenerator& gen, const std::string& workload) {
  std::size_t pool = 0;
  for (std::size_t i = 0; i < gen.images().size(); ++i) {
    if (gen.images()[i] == workload && !gen.image_profiles()[i].pools.empty()) {
      pool = gen.image_profiles()[i].pools.front();
    }
  }
  return HardwareKey::Of(gen.pools()[pool].pool);
}

// The recommendation a Runner replica asks for before it starts one execution.
std::vector<double> TimeRecommendations(Store& store, const fixtures::ObservationGenerator& gen,
                                        const std::string& workload, int lookups,
                                        double* trips_per_call) {
  const HardwareKey key = RecommendKey(gen, workload);
  const auto query = Require(RecommendationQuery::Open(store));
  std::vector<double> micros;
  std::int64_t trips = 0;
  for (int i = 0; i < lookups + 5; ++i) {
    if (i == 5) trips = store.RoundTrips();
    const auto t0 = std::chrono::steady_clock::now();
    const Recommendation r = Require(query->Recommend(workload, key));
    const auto t1 = std::chrono::steady_clock::now();
    if (i >= 5) micros.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  *trips_per_call = static_cast<double>(store.RoundTrips() - trips) / std::max(lookups, 1);
  return micros;
}

// Whether two recommendations give the same figures.
bool SameFigures(const Recommendation& a, const Recommendation& b) {
  if (a.figures.size() != b.figures.size()) return false;
  for (std::size_t i = 0; i < a.figures.size(); ++i) {
    if (a.figures[i].value != b.figures[i].value) return false;
  }
  return true;
}

// A kept query's call after another replica changed a setting that moves
// its figures (memory.margin), each time; each answer is checked against a
// fresh query's, untimed, so that a call that missed the change fails the run.
std::vector<double> TimeRecommendAfterChange(Store& store, const std::string& location,
                                             const fixtures::ObservationGenerator& gen,
                                             const std::string& workload, int calls) {
  const std::unique_ptr<Store> other = OpenBenchStore(location);
  const HardwareKey key = RecommendKey(gen, workload);
  const auto query = Require(RecommendationQuery::Open(store));
  std::vector<double> micros;
  for (int i = 0; i < calls + 5; ++i) {
    const Status set = SetConfig(*other, "memory.margin", i % 2 == 0 ? "0.25" : "0.2");
    if (!set.ok()) throw std::runtime_error(set.ToString());
    const auto t0 = std::chrono::steady_clock::now();
    const Recommendation kept = Require(query->Recommend(workload, key));
    const auto t1 = std::chrono::steady_clock::now();
    if (i >= 5) micros.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    const auto fresh = Require(RecommendationQuery::Open(store));
    if (!SameFigures(kept, Require(fresh->Recommend(workload, key)))) {
      throw std::runtime_error(
          "hwrec-bench engines: a kept query answered from before another connection's change "
          "of settings");
    }
  }
  return micros;
}

EngineFigures MeasureEngine(const std::string& location, const fixtures::ObservationGenerator& gen,
                            const EnginesOptions& options) {
  EngineFigures figures;
  const std::unique_ptr<Store> store = OpenBenchStore(location);
  figures.location = store->path();
  const std::vector<PlacementCandidate> all = ImportPlacePools(*store, gen);
  figures.ingest = IngestGenerated(*store, gen, Chunks({0, options.records}, 10000), options.batch,
                                   "hwrec-bench engines");
  const ExecutionToPlace execution = PlaceExecution(gen);
  figures.recommend_us = TimeRecommendations(*store, gen, execution.workload, options.lookups,
                                             &figures.recommend_trips);
  figures.recommend_moved_us = TimeRecommendAfterChange(*store, location, gen, execution.workload,
                                                        std::min(options.lookups, 200));
  const std::vector<PlacementCandidate> candidates(
      all.begin(), all.begin() + static_cast<std::ptrdiff_t>(options.candidates));
  const auto evaluator = Require(PlacementEvaluator::Open(*store));
  std::int64_t trips = 0;
  for (int i = 0; i < options.evaluations + 5; ++i) {
    if (i == 5) {  // the first five warm the caches
      figures.place = Stopwatch();
      trips = store->RoundTrips();
    }
    figures.place.Start();
    const PlacementResult result = Require(evaluator->Evaluate(execution, candidates));
    figures.place.Stop();
    figures.feasible = 0;
    for (const auto& e : result.evaluations) figures.feasible += e.feasible ? 1 : 0;
    figures.chosen = result.chosen_evaluation() ? result.chosen_evaluation()->node_pool_id : "-";
  }
  figures.place_trips =
      static_cast<double>(store->RoundTrips() - trips) / std::max(options.evaluations, 1);
  return figures;
}

double Ratio(double postgresql, double sqlite) { return sqlite > 0 ? postgresql / sqlite : 0; }

struct Row {
  const char* name;
  const char* key;  // in --format json
  const char* unit;
  double sqlite;
  double postgresql;
};

std::vector<Row> Rows(const EngineFigures& s, const EngineFigures& p) {
  return {
      {"ingest", "observations_per_s", "observations/s", s.ObservationsPerSecond(),
       p.ObservationsPerSecond()},
      {"recommend p50", "recommend_p50_us", "us", Percentile(s.recommend_us, 50),
       Percentile(p.recommend_us, 50)},
      {"recommend p99", "recommend_p99_us", "us", Percentile(s.recommend_us, 99),
       Percentile(p.recommend_us, 99)},
      {"moved p50", "recommend_moved_p50_us", "us", Percentile(s.recommend_moved_us, 50),
       Percentile(p.recommend_moved_us, 50)},
      {"place", "place_evaluations_per_s", "evaluations/s", s.EvaluationsPerSecond(),
       p.EvaluationsPerSecond()},
      {"place p50", "place_p50_ms", "ms", Percentile(s.place.laps(), 50) * 1000,
       Percentile(p.place.laps(), 50) * 1000},
      {"place p99", "place_p99_ms", "ms", Percentile(s.place.laps(), 99) * 1000,
       Percentile(p.place.laps(), 99) * 1000},
  };
}

nlohmann::json EngineJson(const EngineFigures& f) {
  const IngestSummary& s = f.ingest.summary;
  return {{"location", f.location},
          {"offered", f.ingest.offered},
          {"accepted", s.accepted},
          {"duplicates", s.duplicates},
          {"rejected", s.rejected},
          {"conflicts", s.conflicts},
          {"ingest_s", f.ingest.seconds},
          {"observations_per_s", f.ObservationsPerSecond()},
          {"recommend_p50_us", Percentile(f.recommend_us, 50)},
          {"recommend_p99_us", Percentile(f.recommend_us, 99)},
          {"recommend_moved_p50_us", Percentile(f.recommend_moved_us, 50)},
          {"place_evaluations_per_s", f.EvaluationsPerSecond()},
          {"place_p50_ms", Percentile(f.place.laps(), 50) * 1000},
          {"place_p99_ms", Percentile(f.place.laps(), 99) * 1000},
          {"recommend_round_trips", f.recommend_trips},
          {"place_round_trips", f.place_trips},
          {"feasible", f.feasible},
          {"chosen", f.chosen}};
}

void Print(const EnginesOptions& options, const PostgresqlServer& server, double load,
           const EngineFigures& sqlite, const EngineFigures& postgresql) {
  const unsigned cores = std::max(1U, std::thread::hardware_concurrency());
  const std::vector<Row> rows = Rows(sqlite, postgresql);
  if (options.json) {
    nlohmann::json ratios = nlohmann::json::object();
    for (const Row& row : rows) ratios[row.key] = Ratio(row.postgresql, row.sqlite);
    const nlohmann::json report = {{"command", "engines"},
                                   {"records", options.records},
                                   {"seed", options.seed},
                                   {"batch", options.batch},
                                   {"lookups", options.lookups},
                                   {"evaluations", options.evaluations},
                                   {"candidates", options.candidates},
                                   {"server", server.throwaway() ? "throwaway" : "given"},
                                   {"load_average", load},
                                   {"cores", cores},
                                   {"sqlite", EngineJson(sqlite)},
                                   {"postgresql", EngineJson(postgresql)},
                                   {"postgresql_over_sqlite", ratios}};
    std::cout << report.dump() << "\n";
    return;
  }
  std::cout << fmt::format(
      "hwrec-bench engines: {} records (seed {}, batch {}), {} lookups, {} evaluations of {} "
      "candidates\n",
      WithThousands(options.records), options.seed, options.batch, options.lookups,
      options.evaluations, options.candidates);
  std::cout << fmt::format("  SQLite:     {}\n  PostgreSQL: {}{}\n\n", sqlite.location,
                           postgresql.location,
                           server.throwaway() ? " (a throwaway server on loopback, fsync on)" : "");
  std::cout << fmt::format("{:<16} {:>16} {:>14} {:>14} {:>19}\n", "", "", "SQLite", "PostgreSQL",
                           "PostgreSQL/SQLite");
  for (const Row& row : rows) {
    std::cout << fmt::format("{:<16} {:>16} {:>14.2f} {:>14.2f} {:>19.3f}\n", row.name, row.unit,
                             row.sqlite, row.postgresql, Ratio(row.postgresql, row.sqlite));
  }
  std::cout << "moved: a kept query's recommendation right after another connection changed "
               "memory.margin (it sees the change and reads again), 200 calls at most, each "
               "checked against a fresh query's\n";
  std::cout << fmt::format(
      "round trips to PostgreSQL per call: recommend {:.2f}, place {:.2f} (nothing changed "
      "between calls)\n",
      postgresql.recommend_trips, postgresql.place_trips);
  std::cout << fmt::format(
      "\naccepted: SQLite {}, PostgreSQL {}; placement chose {} (SQLite) and {} (PostgreSQL)\n",
      WithThousands(sqlite.ingest.summary.accepted),
      WithThousands(postgresql.ingest.summary.accepted), sqlite.chosen, postgresql.chosen);
  std::cout << fmt::format(
      "load average {:.2f} on {} cores when the run started{}\n", load, cores,
      load >= cores ? ": other work shares the CPU, the figures are unreliable" : "");
}

}  // namespace

int RunEnginesBench(const std::vector<std::string>& args) {
  const std::optional<EnginesOptions> options = ParseOptions(args);
  if (!options) return kExitOk;
  const double load = LoadAverage();
  const PostgresqlServer server(options->postgresql, options->server_script);
  const fixtures::ObservationGenerator generator(options->seed, options->records);
  ScratchDir scratch;
  const EngineFigures sqlite = MeasureEngine(scratch.File("engines.hwrec"), generator, *options);
  EngineFigures postgresql;
  {
    const ScratchSchema schema(server.uri());
    postgresql = MeasureEngine(schema.uri(), generator, *options);
  }
  Print(*options, server, load, sqlite, postgresql);
  return kExitOk;
}

}  // namespace hwrec::bench
