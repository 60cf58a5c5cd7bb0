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
#include <map>
#include <optional>
#include <stdexcept>

#include "bench/bench_commands.h"
#include "bench/bench_util.h"
#include "bench/observation_generator.h"
#include "hwrec/hardware_profile.h"
#include "hwrec/legacy_migration.h"
#include "hwrec/store.h"

namespace hwrec::bench {
namespace {

namespace po = boost::program_options;

constexpr std::int64_t kTargetRows = 1000000;
constexpr double kTargetRowsPerSecond = 200000;
constexpr std::int64_t kTargetPeakRss = 200LL << 20;
constexpr std::int64_t kRowsPerTransaction = 50000;

std::uint64_t Mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

double Uniform(std::uint64_t seed, std::int64_t index, std::uint64_t stream) {
  const std::uint64_t bits = Mix(Mix(seed ^ Mix(stream)) ^ static_cast<std::uint64_t>(index));
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

// A legacy pool as the site-keyed Runner recorded it.
struct LegacyPool {
  NodePool pool;                        // shape; brand and model as the truth
  std::optional<std::string> gpu_name;  // what site_node_pools says
  bool listed = true;                   // in site_node_pools at all
  std::string hp_v1;
};

// Generator pools, recorded the way a legacy fleet drifted: catalog spellings,
// a brand-prefixed name, a DCGM name, an unrecorded model, an unlisted pool,
// and two on-prem twins with the same shape and different cards.
std::vector<LegacyPool> LegacyPools(const ObservationGenerator& generator) {
  std::vector<LegacyPool> pools;
  for (const BenchPool& bench : generator.pools()) {
    LegacyPool p{bench.pool, bench.pool.hardware.gpu_model, true, ""};
    const std::string& id = p.pool.node_pool_id;
    if (id == "usc-a100-80gb") p.gpu_name = "NVIDIA A100 80GB";
    if (id == "usc-h100-80gb") p.gpu_name = "NVIDIA H100-SXM5-80GB";  // not a catalog spelling
    if (id == "euw-l4") p.listed = false;  // rows must carry their GPU name
    pools.push_back(p);
  }
  for (const char* model : {"A100 80GB", "H100 80GB"}) {
    LegacyPool twin;
    NodePool& n = twin.pool;
    n.site_id = "onprem-dc";
    n.node_pool_id = std::string("dc-") + (model[0] == 'A' ? "a100" : "h100");
    n.name = std::string("on-prem ") + model;
    n.hardware.instance_type = "dgx-node";
    n.hardware.architecture = "x86_64";
    n.hardware.cpu_millicores = 64000;
    n.hardware.memory_bytes = 512LL << 30;
    n.hardware.gpu_count = 1;
    n.hardware.gpu_mode = "full";
    n.hardware.gpu_total = 8;
    n.hardware.gpu_brand = "NVIDIA";
    n.hardware.gpu_model = model;
    twin.gpu_name = model;
    pools.push_back(twin);
  }
  for (LegacyPool& p : pools) {
    HardwareProfile shape = p.pool.hardware;
    shape.gpu_brand.reset();
    shape.gpu_model.reset();
    p.hp_v1 = HardwareProfileId(shape, ProfileIdVersion::kV1).value();
  }
  return pools;
}

void WritePools(SQLite::Database& db, const std::vector<LegacyPool>& pools) {
  SQLite::Statement insert(
      db,
      "INSERT INTO site_node_pools (node_pool_id, site_id, name, instance_type, "
      "architecture, cpu_millicores, memory_bytes, gpu_count, gpu_mode, "
      "gpu_total, gpu_name, hardware_profile_id) VALUES "
      "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  for (const LegacyPool& p : pools) {
    if (!p.listed) continue;
    const HardwareProfile& h = p.pool.hardware;
    insert.reset();
    insert.bind(1, p.pool.node_pool_id);
    insert.bind(2, p.pool.site_id);
    insert.bind(3, p.pool.name);
    insert.bind(4, *h.instance_type);
    insert.bind(5, *h.architecture);
    insert.bind(6, *h.cpu_millicores);
    insert.bind(7, *h.memory_bytes);
    insert.bind(8, *h.gpu_count);
    if (h.gpu_mode)
      insert.bind(9, *h.gpu_mode);
    else
      insert.bind(9);
    insert.bind(10, *h.gpu_total);
    if (p.gpu_name)
      insert.bind(11, *p.gpu_name);
    else
      insert.bind(11);
    insert.bind(12, p.hp_v1);
    insert.exec();
  }
}

template <typename T>
void Bind(SQLite::Statement& s, int index, const std::optional<T>& value) {
  if (value) {
    s.bind(index, *value);
  } else {
    s.bind(index);
  }
}

const char* const kInsertRow =
    "INSERT INTO site_observations (execution_id, site_id, action_image, node_pool_id, "
    "finished_at, status, duration_s, hardware_profile_id, instance_type, architecture, "
    "cpu_millicores, memory_bytes, gpu_count, gpu_mode, gpu_total, node_pool_gpu, "
    "gpu_compute_fraction, gpu_utilization, gpu_memory_peak_gb, cpu_millicores_avg, "
    "cpu_millicores_p95, cpu_millicores_max, memory_peak_bytes, requested_cpu_millicores, "
    "requested_memory_bytes, requested_gpu_memory_gb, requested_gpu_compute_fraction) VALUES "
    "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

// One legacy row from generated observation `index`: which pool it names, and
// whether it carries its GPU name, are drawn from the seed.
void BindRow(SQLite::Statement& s, const Observation& o, const LegacyPool& pool, std::uint64_t seed,
             std::int64_t index) {
  const double how = Uniform(seed, index, 7);
  const bool names_pool = how < 0.88;
  const bool carries_gpu = how >= 0.55;  // 55-88 %: both; 88-100 %: GPU name only
  const HardwareProfile& h = pool.pool.hardware;
  s.reset();
  s.bind(1, fmt::format("legacy-{}-{}", seed, index));
  s.bind(2, pool.pool.site_id);
  s.bind(3, o.action_image);
  if (names_pool)
    s.bind(4, pool.pool.node_pool_id);
  else
    s.bind(4);
  s.bind(5, o.finished_at);
  s.bind(6, std::string(ToString(o.status)));
  Bind(s, 7, o.duration_s);
  s.bind(8, pool.hp_v1);
  Bind(s, 9, h.instance_type);
  Bind(s, 10, h.architecture);
  Bind(s, 11, h.cpu_millicores);
  Bind(s, 12, h.memory_bytes);
  Bind(s, 13, h.gpu_count);
  Bind(s, 14, h.gpu_mode);
  Bind(s, 15, h.gpu_total);
  if (carries_gpu && pool.pool.hardware.gpu_model) {
    s.bind(16, how < 0.97 ? *h.gpu_model : "NVIDIA " + *h.gpu_model);
  } else {
    s.bind(16);
  }
  Bind(s, 17, o.gpu_compute_fraction);
  Bind(s, 18, o.gpu_utilization);
  Bind(s, 19, o.gpu_memory_peak_gb);
  Bind(s, 20, o.cpu_millicores_avg);
  Bind(s, 21, o.cpu_millicores_p95);
  Bind(s, 22, o.cpu_millicores_max);
  Bind(s, 23, o.memory_peak_bytes);
  Bind(s, 24, o.requested.cpu_millicores);
  Bind(s, 25, o.requested.memory_bytes);
  Bind(s, 26, o.requested.gpu_memory_gb);
  Bind(s, 27, o.requested.gpu_compute_fraction);
}

// The pool a generated record lands on; a tenth of the A100/H100 80GB work
// ran on the on-prem twins, which share one hp:v1 shape.
const LegacyPool& PoolOf(const std::vector<LegacyPool>& pools, const Observation& o,
                         std::uint64_t seed, std::int64_t index) {
  const std::string& id = *o.node_pool_id;
  std::size_t found = 0;
  for (std::size_t i = 0; i < pools.size(); ++i) {
    if (pools[i].pool.node_pool_id == id) found = i;
  }
  if (Uniform(seed, index, 9) < 0.1) {
    if (id == "usc-a100-80gb") return pools[pools.size() - 2];
    if (id == "usc-h100-80gb") return pools[pools.size() - 1];
  }
  return pools[found];
}

Status WriteLegacyFixture(const std::string& path, std::int64_t rows, std::uint64_t seed) {
  if (Status created = CreateLegacyStore(path); !created.ok()) return created;
  try {
    SQLite::Database db(path, SQLite::OPEN_READWRITE);
    db.exec("PRAGMA synchronous = NORMAL");
    const ObservationGenerator generator(seed, rows);
    const std::vector<LegacyPool> pools = LegacyPools(generator);
    SQLite::Statement insert(db, kInsertRow);
    std::optional<SQLite::Transaction> tx;
    tx.emplace(db);
    WritePools(db, pools);
    for (std::int64_t i = 0; i < rows; ++i) {
      const Observation o = generator.Generate(i);
      BindRow(insert, o, PoolOf(pools, o, seed, i), seed, i);
      insert.exec();
      if ((i + 1) % kRowsPerTransaction == 0) {
        tx->commit();
        tx.emplace(db);
      }
    }
    tx->commit();
  } catch (const std::exception& e) {
    return Status::IoError(
        fmt::format("{}: writing the legacy fixture failed: {}", path, e.what()));
  }
  return Status::Ok();
}

}  // namespace

int RunFixtureBench(const std::vector<std::string>& args) {
  long long rows = 0;
  unsigned long long seed = 1;
  std::string kind, path;
  po::options_description options("Options");
  options.add_options()("kind", po::value(&kind), "legacy")("store", po::value(&path), "STORE")(
      "rows,n", po::value(&rows)->required(), "legacy rows to write")(
      "seed,s", po::value(&seed)->default_value(1), "generator seed: same seed, same store")(
      "help,h", "show this help");
  po::positional_options_description positional;
  positional.add("kind", 1).add("store", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(options).positional(positional).run(), vm);
  if (vm.count("help") != 0) {
    std::cout << "Usage: hwrec-bench fixture legacy --rows N [--seed S] STORE\n\n"
                 "Writes a new schema-1 (site-keyed, hp:v1) store with N legacy rows.\n\n"
              << options << "\n";
    return kExitOk;
  }
  po::notify(vm);
  if (kind != "legacy")
    throw UsageError("the only fixture is `legacy`: hwrec-bench fixture legacy ...");
  if (path.empty()) throw UsageError("the STORE path is required");
  if (rows < 1) throw UsageError("--rows must be at least 1");
  if (Status s = WriteLegacyFixture(path, rows, seed); !s.ok()) {
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
  po::options_description options("Options");
  options.add_options()("rows,n", po::value(&rows)->required(), "legacy rows to migrate")(
      "seed,s", po::value(&seed)->default_value(1), "fixture seed")(
      "backup", po::bool_switch(&backup), "also time the VACUUM INTO backup")("help,h",
                                                                              "show this help");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(options).run(), vm);
  if (vm.count("help") != 0) {
    std::cout << "Usage: hwrec-bench migrate --rows N [--seed S] [--backup]\n\n"
                 "Writes a legacy fixture of N rows, then times MigrateStore with consent\n"
                 "(schema migrations + moving every row, one transaction) and prints rows/s\n"
                 "and the process's peak RSS, beside the raw SQLite ceiling: one INSERT ...\n"
                 "SELECT copying the same rows into an observations table.\n\n"
              << options << "\n";
    return kExitOk;
  }
  po::notify(vm);
  if (rows < 1) throw UsageError("--rows must be at least 1");
  ScratchDir dir;
  const std::string path = dir.File("legacy.db");
  Stopwatch fixture;
  fixture.Start();
  if (Status s = WriteLegacyFixture(path, rows, seed); !s.ok()) {
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
            << fmt::format("load average {:.1f}\n", LoadAverage());
  return kExitOk;
}

}  // namespace hwrec::bench
