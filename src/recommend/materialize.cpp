#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>

#include <set>

#include "hwrec/recommend.h"
#include "hwrec/store.h"
#include "aggregate/aggregator.h"
#include "recommend/recommend_internal.h"
#include "store/sqlite_util.h"

namespace hwrec {

namespace internal {

namespace {

std::optional<std::string> NonEmpty(const std::string& text) {
  if (text.empty()) return std::nullopt;
  return text;
}

std::string UpsertSql() {
  std::string columns = "workload_id, gpu_brand, gpu_model, instance_type, cpu_only, as_of";
  std::string params = "?, ?, ?, ?, ?, ?";
  for (std::size_t f = 0; f < kFigureCount; ++f) {
    const std::string name(ToString(static_cast<FigureKind>(f)));
    for (const char* suffix :
         {"", "_provenance", "_samples", "_confidence", "_lower", "_upper", "_last_seen"}) {
      columns += ", " + name + suffix;
      params += ", ?";
    }
  }
  return "INSERT OR REPLACE INTO recommendations (" + columns + ") VALUES (" + params + ")";
}

}  // namespace

HardwareKey KeyOf(const MaterialKey& key) {
  HardwareKey hardware;
  hardware.gpu_brand = NonEmpty(std::get<1>(key));
  hardware.gpu_model = NonEmpty(std::get<2>(key));
  hardware.instance_type = NonEmpty(std::get<3>(key));
  hardware.cpu_only = std::get<4>(key);
  return hardware;
}

void MaterializeRecommendations(SQLite::Database& db, const std::set<MaterialKey>& keys,
                                double as_of) {
  if (keys.empty()) return;
  RecommendationReader reader(db);
  SQLite::Statement upsert(db, UpsertSql());
  for (const MaterialKey& key : keys) {
    const HardwareKey hardware = KeyOf(key);
    const Recommendation r = reader.Read(std::get<0>(key), "", hardware, as_of);
    int i = 1;
    upsert.bind(i++, std::get<0>(key));
    upsert.bind(i++, std::get<1>(key));
    upsert.bind(i++, std::get<2>(key));
    upsert.bind(i++, std::get<3>(key));
    upsert.bind(i++, hardware.cpu_only ? 1 : 0);
    upsert.bind(i++, as_of);
    for (const Figure& figure : r.figures) {
      BindOptional(upsert, i++, figure.value);
      upsert.bind(i++, std::string(ToString(figure.provenance)));
      upsert.bind(i++, figure.samples);
      upsert.bind(i++, figure.confidence);
      BindOptional(upsert, i++, figure.lower);
      BindOptional(upsert, i++, figure.upper);
      BindOptional(upsert, i++, figure.last_seen);
    }
    upsert.exec();
    upsert.reset();
  }
}

std::int64_t RefreshAllRecommendations(SQLite::Database& db) {
  std::set<MaterialKey> keys;
  // Keys with history (a key naming no GPU is CPU-only), keys already
  // materialised, and every registered pool's key for every workload.
  SQLite::Statement seen(db,
                         "SELECT workload_id, gpu_brand, gpu_model, instance_type, "
                         "gpu_brand = '' AND gpu_model = '' FROM aggregates WHERE scope = 'exact' "
                         "UNION SELECT workload_id, gpu_brand, gpu_model, instance_type, cpu_only "
                         "FROM recommendations "
                         "UNION SELECT w.id, coalesce(p.gpu_brand, ''), "
                         "coalesce(p.gpu_model, ''), coalesce(p.instance_type, ''), "
                         "p.gpu_count = 0 FROM workloads w CROSS JOIN node_pools p");
  while (seen.executeStep()) {
    keys.emplace(seen.getColumn(0).getInt64(), seen.getColumn(1).getString(),
                 seen.getColumn(2).getString(), seen.getColumn(3).getString(),
                 seen.getColumn(4).getInt() != 0);
  }
  db.exec("DELETE FROM recommendations");
  MaterializeRecommendations(db, keys, NowEpochSeconds());
  return static_cast<std::int64_t>(keys.size());
}

}  // namespace internal

namespace {

Result<std::int64_t> Refresh(Store& store, bool rebuild) {
  if (Status writable = store.CheckWritable(); !writable.ok()) return writable;
  return internal::Guarded(store.path(), [&]() -> Result<std::int64_t> {
    SQLite::Database& db = internal::StoreAccess::Db(store);
    internal::WriteTransaction tx(db);
    if (rebuild) internal::RebuildAggregates(db, internal::LoadSettings(db));
    const std::int64_t written = internal::RefreshAllRecommendations(db);
    tx.Commit();
    return written;
  });
}

}  // namespace

Result<std::int64_t> RefreshRecommendations(Store& store) { return Refresh(store, false); }

Result<std::int64_t> RebuildRecommendations(Store& store) { return Refresh(store, true); }

}  // namespace hwrec
