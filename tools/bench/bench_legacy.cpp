// hwrec-bench fixture legacy | migrate: legacy site-keyed stores (schema 1,
// hp:v1 ids) for trying the hp:v2 migration, and its throughput and memory.
// The fixture mixes the ways legacy rows resolve: through a registered legacy
// pool, through the row's own GPU name, CPU-only rows, and rows that resolve
// by neither (a pool with an unrecorded model, a DCGM-style GPU name the
// catalog does not know, no pool and no GPU name) and so go to quarantine.
// Two on-prem pools share one hp:v1 shape with different cards.
#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>
#include <boost/program_options.hpp>

#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "bench/bench_commands.h"
#include "bench/bench_util.h"
#include "fixtures/legacy_store.h"
#include "hwrec/legacy_migration.h"
#include "hwrec/store.h"

namespace hwrec::bench {
namespace {

constexpr std::int64_t kTargetRows = 1000000;
constexpr double kTargetRowsPerSecond = 200000;
constexpr std::int64_t kTargetPeakRss = 200LL << 20;
constexpr double kTargetMigrationRatio = 0.7;  // of the INSERT ... SELECT ceiling

}  // namespace

int RunFixtureBench(const std::vector<std::string>& args) {
  long long rows = 0;
  unsigned long long seed = 1;
  std::string kind, path;
  po::options_description options("Options");
  options.add_options()("kind", po::value(&kind), "legacy")("store", po::value(&path), "STORE")(
      "rows,n", po::value(&rows)->required(), "legacy rows to write")(
      "seed,s", po::value(&seed)->default_value(1), "generator seed: same seed, same store");
  po::positional_options_description positional;
  positional.add("kind", 1).add("store", 1);
  po::variables_map vm;
  if (!ParseBenchArgs(args, options,
                      "hwrec-bench fixture legacy --rows N [--seed S] STORE\n\n"
                      "Writes a new schema-1 (site-keyed, hp:v1) store with N legacy rows.",
                      &vm, &positional)) {
    return kExitOk;
  }
  if (kind != "legacy")
    throw UsageError("the only fixture is `legacy`: hwrec-bench fixture legacy ...");
  if (path.empty()) throw UsageError("the STORE path is required");
  if (rows < 1) throw UsageError("--rows must be at least 1");
  if (Status s = fixtures::WriteLegacyFixture(path, rows, seed); !s.ok()) {
    std::cerr << "hwrec-bench fixture: " << s.message() << "\n";
    return kExitError;
  }
  std::cout << fmt::format("{}: legacy store at schema 1 with {} rows (seed {})\n", path,
                           WithThousands(rows), seed);
  return kExitOk;
}

// The engine's own speed for the same rows: one INSERT … SELECT copying every
// legacy row of `fixture` into the observations table of a fresh store, on the
// rollback journal and page cache a migration uses, with the columns hwrec
// would compute (hardware, ids, hash) constant and each image's workload made
// first, as a migration does. No resolution, validation,
// hashing, quarantine or aggregates: what no migration can beat on this machine.
double RawCopySeconds(const std::string& fixture, const std::string& scratch) {
  SQLite::Database db(scratch, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  {
    auto store = Store::Open(scratch, BenchStoreOptions());  // the latest schema
    if (!store.ok()) throw std::runtime_error(store.status().message());
  }
  db.exec("PRAGMA journal_mode = DELETE");
  db.exec("PRAGMA synchronous = FULL");
  db.exec("PRAGMA cache_size = -65536");
  SQLite::Statement attach(db, "ATTACH ? AS legacy");
  attach.bind(1, fixture);
  attach.exec();
  Stopwatch watch;
  watch.Start();
  db.exec("BEGIN IMMEDIATE");
  db.exec(
      "INSERT INTO workloads (image) SELECT DISTINCT action_image FROM legacy.site_observations");
  db.exec(
      "INSERT INTO observations (execution_id, workload_id, finished_at, site_id, node_pool_id, "
      "status, duration_s, instance_type, architecture, cpu_millicores, memory_bytes, gpu_count, "
      "gpu_mode, gpu_total, gpu_brand, gpu_model, hp_v1, hp_v2, sent_profile_id, "
      "profile_id_mismatch, gpu_compute_fraction, fraction_source, gpu_utilization, "
      "gpu_memory_peak_gb, cpu_millicores_avg, cpu_millicores_p95, cpu_millicores_max, "
      "memory_peak_bytes, requested_cpu_millicores, requested_memory_bytes, "
      "requested_gpu_memory_gb, requested_gpu_compute_fraction, content_hash, ingested_at) "
      "SELECT execution_id, w.id, finished_at, site_id, node_pool_id, 'success', duration_s, "
      "instance_type, architecture, cpu_millicores, memory_bytes, gpu_count, gpu_mode, "
      "gpu_total, 'nvidia', 'A100 80GB', coalesce(hardware_profile_id, 'hp:v1:0000000000000000'), "
      "'hp:v2:0000000000000000', hardware_profile_id, 0, gpu_compute_fraction, 'none', "
      "gpu_utilization, gpu_memory_peak_gb, cpu_millicores_avg, cpu_millicores_p95, "
      "cpu_millicores_max, memory_peak_bytes, requested_cpu_millicores, requested_memory_bytes, "
      "requested_gpu_memory_gb, requested_gpu_compute_fraction, zeroblob(32), 0 "
      "FROM legacy.site_observations s JOIN workloads w ON w.image = s.action_image "
      "ORDER BY s.id");
  db.exec("COMMIT");
  watch.Stop();
  return watch.seconds();
}

int RunMigrateBench(const std::vector<std::string>& args) {
  long long rows = 0;
  unsigned long long seed = 1;
  bool backup = false;
  std::string format;
  po::options_description options("Options");
  options.add_options()("rows,n", po::value(&rows)->required(), "legacy rows to migrate")(
      "seed,s", po::value(&seed)->default_value(1), "fixture seed")(
      "backup", po::bool_switch(&backup), "also time the VACUUM INTO backup");
  AddFormatOption(options, &format);
  po::variables_map vm;
  if (!ParseBenchArgs(args, options,
                      "hwrec-bench migrate --rows N [--seed S] [--backup] [--format F]\n\n"
                      "Writes a legacy fixture of N rows, then times MigrateStore with consent\n"
                      "(schema migrations + moving every row, one transaction) and prints rows/s\n"
                      "and the process's peak RSS, beside the raw SQLite ceiling: one INSERT ...\n"
                      "SELECT copying the same rows into an observations table.",
                      &vm)) {
    return kExitOk;
  }
  if (rows < 1) throw UsageError("--rows must be at least 1");
  const bool json = IsJsonFormat(format);  // a bad --format is refused before any work
  ScratchDir dir;
  const std::string path = dir.File("legacy.db");
  Stopwatch fixture;
  fixture.Start();
  if (Status s = fixtures::WriteLegacyFixture(path, rows, seed); !s.ok()) {
    std::cerr << "hwrec-bench migrate: " << s.message() << "\n";
    return kExitError;
  }
  fixture.Stop();
  FlushFileToDisk(path);
  // The ceiling runs after the migration (so that it cannot raise the peak
  // RSS measured) on a copy of the fixture (which the migration empties).
  const std::string raw_fixture = dir.File("raw-fixture.db");
  std::filesystem::copy_file(path, raw_fixture);
  const std::int64_t rss_before = PeakRssBytes();
  Stopwatch migrate;
  migrate.Start();
  auto store = Store::Open(path, BenchStoreOptions());
  if (!store.ok()) {
    std::cerr << "hwrec-bench migrate: " << store.status().message() << "\n";
    return kExitError;
  }
  LegacyMigrationOptions migration;
  migration.accept_hp_v2 = true;
  migration.backup = backup;
  auto report = MigrateStore(**store, migration);
  migrate.Stop();
  if (!report.ok()) {
    std::cerr << "hwrec-bench migrate: " << report.status().message() << "\n";
    return kExitError;
  }
  const double rate = PerSecond(rows, migrate.seconds());
  const std::int64_t peak = PeakRssBytes();
  const double raw_seconds = RawCopySeconds(raw_fixture, dir.File("raw-ceiling.db"));
  const double raw_rate = PerSecond(rows, raw_seconds);
  if (json) {
    std::cout << fmt::format(
        "{{\"command\":\"migrate\",\"rows\":{},\"seed\":{},\"backup\":{},\"migrated\":{},"
        "\"quarantined\":{},\"recommendations\":{},\"elapsed_s\":{},\"rows_per_s\":{},"
        "\"peak_rss_bytes\":{},\"rss_before_bytes\":{},\"ceiling\":{{\"elapsed_s\":{},"
        "\"rows_per_s\":{}}},\"ratio\":{},\"load_average\":{}}}\n",
        rows, seed, backup, report->migrated, report->quarantined, report->recommendations,
        migrate.seconds(), rate, peak, rss_before, raw_seconds, raw_rate, rate / raw_rate,
        LoadAverage());
    return kExitOk;
  }
  std::cout << fmt::format("hwrec-bench migrate: {} legacy rows (seed {}{})\n\n",
                           WithThousands(rows), seed, backup ? ", with backup" : ", no backup")
            << fmt::format("  fixture written in     {:>10.3f} s\n", fixture.seconds())
            << fmt::format("  migrated               {:>10}\n", WithThousands(report->migrated))
            << fmt::format("  quarantined            {:>10}\n", WithThousands(report->quarantined))
            << fmt::format("  recommendations        {:>10}\n",
                           WithThousands(report->recommendations))
            << fmt::format("  elapsed                {:>10.3f} s\n", migrate.seconds())
            << fmt::format("  throughput             {:>10} rows/s\n",
                           WithThousands(static_cast<std::int64_t>(rate)))
            << fmt::format("  peak RSS               {:>10} ({} before migrating)\n\n",
                           HumanBytes(peak), HumanBytes(rss_before))
            << "raw SQLite ceiling (one INSERT ... SELECT of the same rows into observations)\n"
            << fmt::format("  elapsed                {:>10.3f} s\n", raw_seconds)
            << fmt::format("  throughput             {:>10} rows/s\n\n",
                           WithThousands(static_cast<std::int64_t>(raw_rate)))
            << fmt::format("ratio ours/ceiling: {:.3f}\n", rate / raw_rate)
            << fmt::format("targets at {} rows: >= {} rows/s and peak RSS < {}\n",
                           WithThousands(kTargetRows),
                           WithThousands(static_cast<std::int64_t>(kTargetRowsPerSecond)),
                           HumanBytes(kTargetPeakRss))
            << fmt::format("this run: {} rows/s target {}, RSS target {}{}\n",
                           WithThousands(static_cast<std::int64_t>(rate)),
                           rate >= kTargetRowsPerSecond ? "met" : "NOT met",
                           peak < kTargetPeakRss ? "met" : "NOT met",
                           rows == kTargetRows ? "" : " (the targets apply at 1,000,000 rows)")
            << fmt::format("target ratio at {} rows: >= {}; this run: {:.3f}, {}\n",
                           WithThousands(kTargetRows), kTargetMigrationRatio, rate / raw_rate,
                           rate / raw_rate >= kTargetMigrationRatio ? "met" : "NOT met")
            << fmt::format("load average {:.1f}\n", LoadAverage());
  return kExitOk;
}

}  // namespace hwrec::bench
