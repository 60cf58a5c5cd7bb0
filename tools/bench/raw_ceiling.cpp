#include "bench/raw_ceiling.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <functional>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <unordered_map>

#include "bench/bench_util.h"
#include "common/plain_text.h"
#include "fixtures/sqlite_bind.h"
#include "hwrec/store.h"

namespace hwrec::bench {
namespace {

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

// How the ceiling fills one column of observations from a record: the
// columns themselves, and their order, are the store's own (PlanRowInsert).
using CeilingInsert = SQLite::Statement;
struct ColumnFill {
  const char* column;
  void (*fill)(CeilingInsert& insert, int index, const CeilingRow& row, double ingested_at);
};

const HardwareProfile& PoolHardware(const CeilingRow& r) { return r.pool->pool.hardware; }

constexpr ColumnFill kFills[] = {
    {"execution_id", [](CeilingInsert& s, int i, const CeilingRow& r,
                        double) { BindText(s, i, r.observation.execution_id); }},
    {"workload_id",
     [](CeilingInsert& s, int i, const CeilingRow& r, double) { s.bind(i, r.workload_id); }},
    {"finished_at", [](CeilingInsert& s, int i, const CeilingRow& r,
                       double) { s.bind(i, r.observation.finished_at); }},
    {"site_id", [](CeilingInsert& s, int i, const CeilingRow& r,
                   double) { BindOptional(s, i, r.observation.site_id); }},
    {"node_pool_id", [](CeilingInsert& s, int i, const CeilingRow& r,
                        double) { BindOptional(s, i, r.observation.node_pool_id); }},
    {"status",
     [](CeilingInsert& s, int i, const CeilingRow& r, double) { BindText(s, i, r.status); }},
    {"duration_s", [](CeilingInsert& s, int i, const CeilingRow& r,
                      double) { BindOptional(s, i, r.observation.duration_s); }},
    {"instance_type", [](CeilingInsert& s, int i, const CeilingRow& r,
                         double) { BindOptional(s, i, PoolHardware(r).instance_type); }},
    {"architecture", [](CeilingInsert& s, int i, const CeilingRow& r,
                        double) { BindOptional(s, i, PoolHardware(r).architecture); }},
    {"cpu_millicores", [](CeilingInsert& s, int i, const CeilingRow& r,
                          double) { BindOptional(s, i, PoolHardware(r).cpu_millicores); }},
    {"memory_bytes", [](CeilingInsert& s, int i, const CeilingRow& r,
                        double) { BindOptional(s, i, PoolHardware(r).memory_bytes); }},
    {"gpu_count", [](CeilingInsert& s, int i, const CeilingRow& r,
                     double) { BindOptional(s, i, PoolHardware(r).gpu_count); }},
    {"gpu_mode", [](CeilingInsert& s, int i, const CeilingRow& r,
                    double) { BindOptional(s, i, PoolHardware(r).gpu_mode); }},
    {"gpu_total", [](CeilingInsert& s, int i, const CeilingRow& r,
                     double) { BindOptional(s, i, PoolHardware(r).gpu_total); }},
    {"gpu_brand", [](CeilingInsert& s, int i, const CeilingRow& r,
                     double) { BindOptional(s, i, PoolHardware(r).gpu_brand); }},
    {"gpu_model", [](CeilingInsert& s, int i, const CeilingRow& r,
                     double) { BindOptional(s, i, PoolHardware(r).gpu_model); }},
    {"hp_v1",
     [](CeilingInsert& s, int i, const CeilingRow& r, double) { BindText(s, i, r.pool->hp_v1); }},
    {"hp_v2",
     [](CeilingInsert& s, int i, const CeilingRow& r, double) { BindText(s, i, r.pool->hp_v2); }},
    {"sent_profile_id", [](CeilingInsert& s, int i, const CeilingRow& r,
                           double) { BindOptional(s, i, r.observation.hardware_profile_id); }},
    {"profile_id_mismatch",
     [](CeilingInsert& s, int i, const CeilingRow&, double) { s.bind(i, 0); }},
    {"gpu_compute_fraction", [](CeilingInsert& s, int i, const CeilingRow& r,
                                double) { BindOptional(s, i, r.gpu_compute_fraction); }},
    {"fraction_source", [](CeilingInsert& s, int i, const CeilingRow& r,
                           double) { BindText(s, i, r.fraction_source); }},
    {"gpu_utilization", [](CeilingInsert& s, int i, const CeilingRow& r,
                           double) { BindOptional(s, i, r.observation.gpu_utilization); }},
    {"gpu_memory_peak_gb", [](CeilingInsert& s, int i, const CeilingRow& r,
                              double) { BindOptional(s, i, r.observation.gpu_memory_peak_gb); }},
    {"cpu_millicores_avg", [](CeilingInsert& s, int i, const CeilingRow& r,
                              double) { BindOptional(s, i, r.observation.cpu_millicores_avg); }},
    {"cpu_millicores_p95", [](CeilingInsert& s, int i, const CeilingRow& r,
                              double) { BindOptional(s, i, r.observation.cpu_millicores_p95); }},
    {"cpu_millicores_max", [](CeilingInsert& s, int i, const CeilingRow& r,
                              double) { BindOptional(s, i, r.observation.cpu_millicores_max); }},
    {"memory_peak_bytes", [](CeilingInsert& s, int i, const CeilingRow& r,
                             double) { BindOptional(s, i, r.observation.memory_peak_bytes); }},
    {"requested_cpu_millicores",
     [](CeilingInsert& s, int i, const CeilingRow& r, double) {
       BindOptional(s, i, r.observation.requested.cpu_millicores);
     }},
    {"requested_memory_bytes",
     [](CeilingInsert& s, int i, const CeilingRow& r, double) {
       BindOptional(s, i, r.observation.requested.memory_bytes);
     }},
    {"requested_gpu_memory_gb",
     [](CeilingInsert& s, int i, const CeilingRow& r, double) {
       BindOptional(s, i, r.observation.requested.gpu_memory_gb);
     }},
    {"requested_gpu_compute_fraction",
     [](CeilingInsert& s, int i, const CeilingRow& r, double) {
       BindOptional(s, i, r.observation.requested.gpu_compute_fraction);
     }},
    {"content_hash",
     [](CeilingInsert& s, int i, const CeilingRow& r, double) {
       s.bindNoCopy(i, r.content_hash.data(), static_cast<int>(sizeof(r.content_hash)));
     }},
    {"ingested_at", [](CeilingInsert& s, int i, const CeilingRow&, double at) { s.bind(i, at); }},
    {"gpu_count_held", [](CeilingInsert& s, int i, const CeilingRow& r,
                          double) { BindOptional(s, i, r.observation.gpu_count_held); }},
};

// The INSERT of one observation row, and the fill of each of its values:
// every column of the store's observations table but its rowid, in the
// table's order. Throws naming a column the ceiling does not know.
struct RowInsert {
  std::string sql;
  std::vector<decltype(ColumnFill::fill)> fills;
};

RowInsert PlanRowInsert(SQLite::Database& db) {
  RowInsert plan;
  std::string columns;
  std::string placeholders;
  SQLite::Statement info(db, "SELECT name FROM pragma_table_info('observations') ORDER BY cid");
  while (info.executeStep()) {
    const std::string column = info.getColumn(0).getString();
    if (column == "id") continue;
    const auto* fill = std::find_if(std::begin(kFills), std::end(kFills),
                                    [&](const ColumnFill& f) { return column == f.column; });
    if (fill == std::end(kFills)) {
      throw std::runtime_error(
          "hwrec-bench: the raw ceiling does not know how to fill "
          "observations." +
          column + ": add it to kFills (tools/bench/raw_ceiling.cpp)");
    }
    columns += (columns.empty() ? "" : ", ") + column;
    placeholders += placeholders.empty() ? "?" : ", ?";
    plan.fills.push_back(fill->fill);
  }
  // A re-sent execution_id is not stored twice, as ingest counts it once.
  plan.sql =
      fmt::format("INSERT INTO observations ({}) VALUES ({}) ON CONFLICT (execution_id) DO NOTHING",
                  columns, placeholders);
  return plan;
}

void BindRow(CeilingInsert& insert, const RowInsert& plan, const CeilingRow& row,
             double ingested_at) {
  int index = 0;
  for (const auto fill : plan.fills) fill(insert, ++index, row, ingested_at);
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
std::int64_t WriteChunk(SQLite::Database& db, SQLite::Statement& insert, const RowInsert& plan,
                        const std::vector<CeilingRow>& rows, std::size_t batch,
                        double ingested_at) {
  std::int64_t inserted = 0;
  for (std::size_t begin = 0; begin < rows.size(); begin += batch) {
    const std::size_t end = std::min(rows.size(), begin + batch);
    SQLite::Transaction transaction(db, SQLite::TransactionBehavior::IMMEDIATE);
    for (std::size_t r = begin; r < end; ++r) {
      if (!rows[r].insert) continue;
      BindRow(insert, plan, rows[r], ingested_at);
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
  const RowInsert plan = PlanRowInsert(db);
  SQLite::Statement insert(db, plan.sql);

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
    result.inserted += WriteChunk(db, insert, plan, rows, options.batch, ingested_at);
    stopwatch.Stop();
    result.offered += count;
  }
  result.seconds = stopwatch.seconds();
  result.chunk_seconds = stopwatch.laps();
  return result;
}

}  // namespace hwrec::bench
