#include "bench/raw_ceiling.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>

#include <array>
#include <functional>
#include <optional>
#include <stdexcept>
#include <unordered_map>

#include "bench/bench_util.h"
#include "common/plain_text.h"
#include "fixtures/sqlite_bind.h"
#include "hwrec/store.h"

namespace hwrec::bench {
namespace {

// Every column of observations but its rowid, in the order they are bound.
constexpr const char* kColumns =
    "execution_id, workload_id, finished_at, site_id, node_pool_id, status, duration_s, "
    "instance_type, architecture, cpu_millicores, memory_bytes, gpu_count, gpu_mode, gpu_total, "
    "gpu_brand, gpu_model, hp_v1, hp_v2, sent_profile_id, profile_id_mismatch, "
    "gpu_compute_fraction, fraction_source, gpu_utilization, gpu_memory_peak_gb, "
    "cpu_millicores_avg, cpu_millicores_p95, cpu_millicores_max, memory_peak_bytes, "
    "requested_cpu_millicores, requested_memory_bytes, requested_gpu_memory_gb, "
    "requested_gpu_compute_fraction, content_hash, ingested_at";

std::string InsertSql() {
  std::string placeholders = "?";
  for (const char* c = kColumns; *c != '\0'; ++c) {
    if (*c == ',') placeholders += ", ?";
  }
  // A re-sent execution_id is not stored twice, as ingest counts it once.
  return fmt::format(
      "INSERT INTO observations ({}) VALUES ({}) ON CONFLICT (execution_id) DO NOTHING", kColumns,
      placeholders);
}

// One record as ingest would store it, every value ready to bind.
struct CeilingRow {
  bool insert = false;  // false for records validation refuses
  Observation observation;
  const fixtures::BenchPool* pool = nullptr;  // resolves the hardware
  std::int64_t workload_id = 0;
  std::string status;
  std::optional<double> gpu_compute_fraction;
  std::string fraction_source{ToString(FractionSource::kNone)};
  std::array<std::uint64_t, 4> content_hash{};
};

class RowBuilder {
 public:
  explicit RowBuilder(const fixtures::ObservationGenerator& generator) : generator_(generator) {}

  void AddWorkload(const std::string& image, std::int64_t id) { workloads_[image] = id; }

  CeilingRow Build(Observation observation, const fixtures::RecordFacts& facts) const {
    CeilingRow row;
    row.insert = facts.kind != fixtures::RecordKind::kBad;
    row.pool = &generator_.pools()[facts.pool];
    if (row.insert) row.workload_id = workloads_.at(observation.action_image);
    row.status = ToString(observation.status);
    if (observation.gpu_compute_fraction.has_value()) {
      row.gpu_compute_fraction = observation.gpu_compute_fraction;
      row.fraction_source = ToString(FractionSource::kStamped);
    } else if (row.pool->compute_fraction > 0) {
      row.gpu_compute_fraction = row.pool->compute_fraction;
      row.fraction_source = ToString(row.pool->pool.gpu_model_known() ? FractionSource::kCatalog
                                                                      : FractionSource::kAssumed);
    }
    std::uint64_t h = std::hash<std::string>()(observation.execution_id);
    for (std::uint64_t& word : row.content_hash) {
      h = h * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL;
      word = h;
    }
    row.observation = std::move(observation);
    return row;
  }

 private:
  const fixtures::ObservationGenerator& generator_;
  std::unordered_map<std::string, std::int64_t> workloads_;
};

// Values are bound without copying: every row outlives its INSERT step.
void BindText(SQLite::Statement& statement, int index, const std::string& value) {
  statement.bindNoCopy(index, value);
}

void BindOptional(SQLite::Statement& statement, int index,
                  const std::optional<std::string>& value) {
  if (value.has_value()) {
    statement.bindNoCopy(index, *value);
  } else {
    statement.bind(index);
  }
}

template <typename T>
void BindOptional(SQLite::Statement& statement, int index, const std::optional<T>& value) {
  fixtures::BindOrNull(statement, index, value);
}

void BindRow(SQLite::Statement& insert, const CeilingRow& row, double ingested_at) {
  const Observation& o = row.observation;
  const HardwareProfile& hw = row.pool->pool.hardware;
  int i = 0;
  BindText(insert, ++i, o.execution_id);
  insert.bind(++i, row.workload_id);
  insert.bind(++i, o.finished_at);
  BindOptional(insert, ++i, o.site_id);
  BindOptional(insert, ++i, o.node_pool_id);
  BindText(insert, ++i, row.status);
  BindOptional(insert, ++i, o.duration_s);
  BindOptional(insert, ++i, hw.instance_type);
  BindOptional(insert, ++i, hw.architecture);
  BindOptional(insert, ++i, hw.cpu_millicores);
  BindOptional(insert, ++i, hw.memory_bytes);
  BindOptional(insert, ++i, hw.gpu_count);
  BindOptional(insert, ++i, hw.gpu_mode);
  BindOptional(insert, ++i, hw.gpu_total);
  BindOptional(insert, ++i, hw.gpu_brand);
  BindOptional(insert, ++i, hw.gpu_model);
  BindText(insert, ++i, row.pool->hp_v1);
  BindText(insert, ++i, row.pool->hp_v2);
  BindOptional(insert, ++i, o.hardware_profile_id);
  insert.bind(++i, 0);
  BindOptional(insert, ++i, row.gpu_compute_fraction);
  BindText(insert, ++i, row.fraction_source);
  BindOptional(insert, ++i, o.gpu_utilization);
  BindOptional(insert, ++i, o.gpu_memory_peak_gb);
  BindOptional(insert, ++i, o.cpu_millicores_avg);
  BindOptional(insert, ++i, o.cpu_millicores_p95);
  BindOptional(insert, ++i, o.cpu_millicores_max);
  BindOptional(insert, ++i, o.memory_peak_bytes);
  BindOptional(insert, ++i, o.requested.cpu_millicores);
  BindOptional(insert, ++i, o.requested.memory_bytes);
  BindOptional(insert, ++i, o.requested.gpu_memory_gb);
  BindOptional(insert, ++i, o.requested.gpu_compute_fraction);
  insert.bindNoCopy(++i, row.content_hash.data(), static_cast<int>(sizeof(row.content_hash)));
  insert.bind(++i, ingested_at);
}

// Opens the store's file as plain SQLite with the settings hwrec uses.
void OpenLikeHwrec(SQLite::Database& db) {
  const std::string mode = db.execAndGet("PRAGMA journal_mode = WAL").getString();
  if (mode != "wal") {
    throw std::runtime_error(fmt::format(
        "{}: SQLite refused WAL journaling (journal_mode is '{}'): put the scratch directory on "
        "a local file system (set TMPDIR)",
        db.getFilename(), mode));
  }
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("PRAGMA foreign_keys = ON");
  db.exec(
      fmt::format("PRAGMA cache_size = {:d}", -std::int64_t{BenchStoreOptions().cache_mib} * 1024));
}

void InsertWorkloads(SQLite::Database& db, const fixtures::ObservationGenerator& generator,
                     RowBuilder* builder) {
  SQLite::Transaction transaction(db, SQLite::TransactionBehavior::IMMEDIATE);
  SQLite::Statement insert(db, "INSERT INTO workloads (image) VALUES (?)");
  for (const std::string& image : generator.images()) {
    insert.bind(1, image);
    insert.exec();
    insert.reset();
    builder->AddWorkload(image, db.getLastInsertRowid());
  }
  transaction.commit();
}

// Writes one chunk in transactions of `batch` records; returns rows inserted.
std::int64_t WriteChunk(SQLite::Database& db, SQLite::Statement& insert,
                        const std::vector<CeilingRow>& rows, std::size_t batch,
                        double ingested_at) {
  std::int64_t inserted = 0;
  for (std::size_t begin = 0; begin < rows.size(); begin += batch) {
    const std::size_t end = std::min(rows.size(), begin + batch);
    SQLite::Transaction transaction(db, SQLite::TransactionBehavior::IMMEDIATE);
    for (std::size_t r = begin; r < end; ++r) {
      if (!rows[r].insert) continue;
      BindRow(insert, rows[r], ingested_at);
      inserted += insert.exec();
      insert.reset();
    }
    transaction.commit();
  }
  insert.clearBindings();  // the rows are about to be freed
  return inserted;
}

}  // namespace

CeilingResult RunRawCeiling(const std::string& path,
                            const fixtures::ObservationGenerator& generator,
                            const CeilingOptions& options) {
  {
    // A store made by hwrec itself: the observations table's schema and indexes.
    Result<std::unique_ptr<Store>> store = Store::Open(path, BenchStoreOptions());
    if (!store.ok()) throw std::runtime_error(store.status().message());
  }
  SQLite::Database db(path, SQLite::OPEN_READWRITE);
  OpenLikeHwrec(db);
  RowBuilder builder(generator);
  InsertWorkloads(db, generator, &builder);
  SQLite::Statement insert(db, InsertSql());

  CeilingResult result;
  std::vector<Observation> observations;
  std::vector<fixtures::RecordFacts> facts;
  std::vector<CeilingRow> rows;
  Stopwatch stopwatch;
  for (std::int64_t first = 0; first < options.observations;
       first += static_cast<std::int64_t>(options.chunk)) {
    const std::int64_t count =
        std::min(static_cast<std::int64_t>(options.chunk), options.observations - first);
    generator.Fill(first, count, &observations, &facts);
    rows.clear();
    for (std::size_t r = 0; r < observations.size(); ++r) {
      rows.push_back(builder.Build(std::move(observations[r]), facts[r]));
    }
    const double ingested_at = tools::NowEpochSeconds();
    stopwatch.Start();
    result.inserted += WriteChunk(db, insert, rows, options.batch, ingested_at);
    stopwatch.Stop();
    result.offered += count;
  }
  result.seconds = stopwatch.seconds();
  result.chunk_seconds = stopwatch.laps();
  return result;
}

}  // namespace hwrec::bench
