// hwrec-bench schema-migrate: what moving a store of N observations from
// schema 13 to the latest costs: the gpu_count_held column added, the
// aggregates made anew with their width and rebuilt from every observation,
// in one transaction. Beside it, in the same run: the read floor (the
// rebuild's own scan of the observations, stepped through and nothing else)
// and `hwrec check` on the migrated store.
#include <fmt/format.h>
#include <boost/program_options.hpp>

#include <iostream>
#include <memory>
#include <thread>

#include "bench/bench_commands.h"
#include "bench/bench_sql.h"
#include "bench/bench_util.h"
#include "bench/generated_ingest.h"
#include "bench/postgresql_target.h"
#include "fixtures/observation_generator.h"
#include "hwrec/check.h"
#include "hwrec/node_pool.h"
#include "hwrec/store.h"

namespace hwrec::bench {
namespace schema_migrate {  // named: unity builds join this file with other benches'
namespace {

constexpr std::size_t kBatch = 10000;

const char* const kSchemaMigrateUsage =
    "hwrec-bench schema-migrate --observations N [--seed S] [--engine sqlite|postgresql]\n"
    "                           [--postgresql URI] [--format F]\n\n"
    "Ingests N generated observations into a scratch store, takes it back to schema\n"
    "13 (no gpu_count_held, aggregates without a width: as a store written before\n"
    "schema 14), then times `Store::Migrate` to the latest schema (the column added,\n"
    "the aggregates rebuilt) against the read floor (the rebuild's scan of the\n"
    "observations alone), and times `hwrec check` on the result. On PostgreSQL the\n"
    "store is a scratch schema of the server --postgresql names, or of a throwaway\n"
    "server started with scripts/pg_server.sh.";

struct Options {
  std::int64_t observations = 0;
  std::uint64_t seed = 1;
  bool postgresql = false;
  std::string postgresql_uri;  // empty: a throwaway server
  bool json = false;
};

std::optional<Options> ParseOptions(const std::vector<std::string>& args) {
  Options options;
  long long observations = 0;
  unsigned long long seed = 1;
  std::string format;
  std::string engine;
  po::options_description described("Options");
  described.add_options()("observations,n", po::value(&observations)->required(),
                          "observations in the store to migrate")(
      "seed,s", po::value(&seed)->default_value(1), "generator seed: same seed, same records")(
      "engine", po::value(&engine)->default_value("sqlite"), "sqlite or postgresql")(
      "postgresql", po::value(&options.postgresql_uri),
      "the PostgreSQL server to use (default: a throwaway one)");
  AddFormatOption(described, &format);
  po::variables_map vm;
  if (!ParseBenchArgs(args, described, kSchemaMigrateUsage, &vm)) return std::nullopt;
  if (engine != "sqlite" && engine != "postgresql") {
    throw UsageError("--engine must be sqlite or postgresql, not '" + engine + "'");
  }
  options.postgresql = engine == "postgresql";
  if (observations < 1) throw UsageError("--observations must be at least 1");
  options.observations = observations;
  options.seed = seed;
  options.json = IsJsonFormat(format);
  return options;
}

// The store as schema 13 left it: the same rows, no gpu_count_held column and
// aggregates keyed without a width.
void BackToSchema13(const std::string& location) {
  const std::unique_ptr<BenchSql> sql = BenchSql::Open(location);
  BenchSql& db = *sql;
  const bool postgresql = db.postgresql();
  db.Execute(postgresql ? "BEGIN" : "BEGIN IMMEDIATE");
  db.Execute("DELETE FROM aggregates WHERE width > 0");
  db.Execute("ALTER TABLE observations DROP COLUMN gpu_count_held");
  if (postgresql) {
    db.Execute("ALTER TABLE aggregates DROP CONSTRAINT aggregates_pkey");
    db.Execute("ALTER TABLE aggregates DROP COLUMN width");
    db.Execute(
        "ALTER TABLE aggregates ADD PRIMARY KEY (workload_id, scope, gpu_brand, gpu_model, "
        "instance_type)");
  } else {
    db.Execute(
        "CREATE TABLE aggregates13 (workload_id INTEGER NOT NULL REFERENCES workloads (id), "
        "scope TEXT NOT NULL CHECK (scope = 'exact' OR scope = 'gpu_model' OR scope = "
        "'instance_type' OR scope = 'any'), gpu_brand TEXT NOT NULL, gpu_model TEXT NOT NULL, "
        "instance_type TEXT NOT NULL, samples INTEGER NOT NULL, last_finished_at REAL NOT NULL, "
        "state BLOB NOT NULL, PRIMARY KEY (workload_id, scope, gpu_brand, gpu_model, "
        "instance_type)) WITHOUT ROWID");
    db.Execute(
        "INSERT INTO aggregates13 SELECT workload_id, scope, gpu_brand, gpu_model, "
        "instance_type, samples, last_finished_at, state FROM aggregates");
    db.Execute("DROP TABLE aggregates");
    db.Execute("ALTER TABLE aggregates13 RENAME TO aggregates");
    db.Execute("PRAGMA user_version = 13");
  }
  db.Execute("DELETE FROM schema_migrations WHERE version > 13");
  db.Execute("COMMIT");
}

// The rebuild's scan of the observations (the columns it reads, in its
// order), stepped through: what no rebuild can beat.
double ReadFloorSeconds(BenchSql& db, std::int64_t* rows) {
  const std::string scan =
      "SELECT o.workload_id, o.finished_at, o.status, o.gpu_brand, o.gpu_model, o.instance_type, "
      "o.gpu_count, o.gpu_mode, o.memory_bytes, m.memory_gb, o.cpu_millicores_avg, "
      "o.cpu_millicores_p95, o.cpu_millicores_max, o.memory_peak_bytes, o.gpu_memory_peak_gb, "
      "o.gpu_compute_fraction, o.gpu_utilization, o.requested_memory_bytes, "
      "o.requested_gpu_memory_gb, o.id, o.execution_id, w.image, o.duration_s, o.gpu_count_held "
      "FROM observations o JOIN workloads w ON w.id = o.workload_id "
      "LEFT JOIN gpu_models m ON m.brand = o.gpu_brand AND m.model = o.gpu_model "
      "ORDER BY o.finished_at, o.id";
  Stopwatch stopwatch;
  stopwatch.Start();
  *rows = db.CountRows(scan);
  return stopwatch.Stop();
}

struct Measured {
  std::int64_t stored = 0;
  double ingest_s = 0;
  double migrate_s = 0;
  double floor_s = 0;
  std::int64_t floor_rows = 0;
  double check_s = 0;
  bool sound = false;
  std::string check_summary;
  std::int64_t aggregates = 0;
  std::int64_t peak_rss = 0;
  double load_average = 0;
};

int Fail(const std::string& message) {
  std::cerr << "hwrec-bench schema-migrate: " << message << "\n";
  return kExitError;
}

int Run(const std::vector<std::string>& args) {
  const std::optional<Options> options = ParseOptions(args);
  if (!options) return kExitOk;
  ScratchDir scratch;
  std::unique_ptr<PostgresqlServer> server;
  std::unique_ptr<ScratchSchema> schema;
  std::string path = scratch.File("migrate.hwrec");
  if (options->postgresql) {
    server = std::make_unique<PostgresqlServer>(options->postgresql_uri, DefaultServerScript());
    schema = std::make_unique<ScratchSchema>(server->uri());
    path = schema->uri();
  }
  const fixtures::ObservationGenerator generator(options->seed, options->observations);
  Measured m;
  m.load_average = LoadAverage();
  {
    auto store = Store::Open(path, BenchStoreOptions());
    if (!store.ok()) return Fail(store.status().message());
    for (const fixtures::BenchPool& pool : generator.pools()) {
      if (Status s = RegisterNodePool(**store, pool.pool); !s.ok()) return Fail(s.message());
    }
    const TimedIngest ingested = IngestGenerated(
        **store, generator, Chunks({0, options->observations}, static_cast<std::int64_t>(kBatch)),
        kBatch, "hwrec-bench");
    m.stored = ingested.summary.accepted;
    m.ingest_s = ingested.seconds;
  }
  BackToSchema13(path);
  if (!options->postgresql) FlushFileToDisk(path);
  {
    auto store = Store::Open(path, StoreOptions{});
    if (!store.ok()) return Fail(store.status().message());
    if ((*store)->schema_version() != 13) return Fail("the store did not go back to schema 13");
    Stopwatch stopwatch;
    stopwatch.Start();
    auto applied = (*store)->Migrate();
    m.migrate_s = stopwatch.Stop();
    if (!applied.ok()) return Fail(applied.status().message());
    m.peak_rss = PeakRssBytes();
    if (!options->postgresql) FlushFileToDisk(path);
    const std::unique_ptr<BenchSql> sql = BenchSql::Open(path);
    m.floor_s = ReadFloorSeconds(*sql, &m.floor_rows);
    m.aggregates = sql->QueryInt64("SELECT count(*) FROM aggregates").value_or(0);
  }
  Stopwatch check_watch;
  check_watch.Start();
  auto report = CheckStore(path);
  m.check_s = check_watch.Stop();
  if (!report.ok()) return Fail(report.status().message());
  m.sound = report->sound();
  for (const CheckResult& c : report->checks) {
    if (c.name == "aggregates") m.check_summary = c.summary;
  }
  const double ratio = m.migrate_s > 0 ? m.floor_s / m.migrate_s : 0;
  if (options->json) {
    std::cout << fmt::format(
        "{{\"command\":\"schema-migrate\",\"engine\":\"{}\",\"observations\":{},"
        "\"stored\":{},\"seed\":{},"
        "\"ingest_s\":{},\"migrate_s\":{},\"observations_per_s\":{},\"read_floor_s\":{},"
        "\"ratio_floor_over_migrate\":{},\"aggregates\":{},\"check_s\":{},\"sound\":{},"
        "\"peak_rss_bytes\":{},\"load_average\":{}}}\n",
        options->postgresql ? "postgresql" : "sqlite", options->observations, m.stored,
        options->seed, m.ingest_s, m.migrate_s, PerSecond(m.stored, m.migrate_s), m.floor_s, ratio,
        m.aggregates, m.check_s, m.sound ? "true" : "false", m.peak_rss, m.load_average);
    return m.sound ? kExitOk : kExitError;
  }
  const unsigned cores = std::max(1U, std::thread::hardware_concurrency());
  std::cout << fmt::format(
      "hwrec-bench schema-migrate: {} observations stored (seed {}, {}), schema 13 -> {}\n\n"
      "  ingest of the same rows   {:>10.3f} s (for scale)\n"
      "  migrate                   {:>10.3f} s  {} observations/s (column added, aggregates "
      "made anew and rebuilt, one transaction)\n"
      "  read floor                {:>10.3f} s  (the rebuild's scan of {} observations alone)\n"
      "  ratio floor/migrate       {:>10.3f}\n"
      "  aggregates after          {:>10}\n"
      "  hwrec check               {:>10.3f} s  {}: {}\n"
      "  peak RSS                  {:>10}\n"
      "load average {:.1f} on {} cores when the run started\n",
      WithThousands(m.stored), options->seed, options->postgresql ? "PostgreSQL" : "SQLite",
      Store::LatestSchemaVersion(), m.ingest_s, m.migrate_s,
      WithThousands(static_cast<std::int64_t>(PerSecond(m.stored, m.migrate_s))), m.floor_s,
      WithThousands(m.floor_rows), ratio, WithThousands(m.aggregates), m.check_s,
      m.sound ? "sound" : "NOT sound", m.check_summary, HumanBytes(m.peak_rss), m.load_average,
      cores);
  return m.sound ? kExitOk : kExitError;
}

}  // namespace
}  // namespace schema_migrate

int RunSchemaMigrateBench(const std::vector<std::string>& args) {
  return schema_migrate::Run(args);
}

}  // namespace hwrec::bench
