#include "recommend/materialize.h"

#include <set>

#include "aggregate/aggregator.h"
#include "base/time.h"
#include "hwrec/figure.h"
#include "recommend/recommendation_reader.h"

namespace hwrec::internal {

namespace {

std::optional<std::string> NonEmpty(const std::string& text) {
  if (text.empty()) return std::nullopt;
  return text;
}

// One row per key, replaced whole: every column but the key is set from the
// new row on a conflict.
std::string BuildRecommendationUpsertSql() {
  std::string columns = "workload_id, gpu_brand, gpu_model, instance_type, cpu_only, as_of";
  std::string params = "?, ?, ?, ?, ?, ?";
  std::string updates = "as_of = excluded.as_of";
  for (std::size_t f = 0; f < kFigureCount; ++f) {
    const std::string name(ToString(static_cast<FigureKind>(f)));
    for (const char* suffix :
         {"", "_provenance", "_samples", "_confidence", "_lower", "_upper", "_last_seen"}) {
      const std::string column = name + suffix;
      columns += ", " + column;
      params += ", ?";
      updates += fmt::format(", {0} = excluded.{0}", column);
    }
  }
  // Whether the compute share is of shares held (Figure::held_share).
  columns += ", gpu_compute_fraction_held";
  params += ", ?";
  updates += ", gpu_compute_fraction_held = excluded.gpu_compute_fraction_held";
  return "INSERT INTO recommendations (" + columns + ") VALUES (" + params +
         ") ON CONFLICT (workload_id, gpu_brand, gpu_model, instance_type, cpu_only) DO UPDATE "
         "SET " +
         updates;
}

// Built once: a single-record ingest materialises in every transaction.
const std::string& RecommendationUpsertSql() {
  static const std::string sql = BuildRecommendationUpsertSql();
  return sql;
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

void MaterializeRecommendations(store::Connection& db, const std::set<MaterialKey>& keys,
                                double as_of, const RecommenderSettings* settings,
                                AggregateMemo* written) {
  if (keys.empty()) return;
  RecommendationReader reader =
      settings != nullptr ? RecommendationReader(db, *settings) : RecommendationReader(db);
  const auto statement = db.Prepare(RecommendationUpsertSql());
  store::Statement& upsert = *statement;
  for (const MaterialKey& key : keys) {
    const HardwareKey hardware = KeyOf(key);
    const Recommendation r = written != nullptr
                                 ? reader.Read(std::get<0>(key), "", hardware, as_of, written)
                                 : reader.Read(std::get<0>(key), "", hardware, as_of);
    int i = 1;
    upsert.Bind(i++, std::get<0>(key));
    upsert.BindTextView(i++, std::get<1>(key));
    upsert.BindTextView(i++, std::get<2>(key));
    upsert.BindTextView(i++, std::get<3>(key));
    upsert.Bind(i++, hardware.cpu_only ? 1 : 0);
    upsert.Bind(i++, as_of);
    for (const Figure& figure : r.figures) {
      upsert.Bind(i++, figure.value);
      upsert.BindTextView(i++, ToString(figure.provenance));
      upsert.Bind(i++, figure.samples);
      upsert.Bind(i++, figure.confidence);
      upsert.Bind(i++, figure.lower);
      upsert.Bind(i++, figure.upper);
      upsert.Bind(i++, figure.last_seen);
    }
    upsert.Bind(i++, r.figure(FigureKind::kGpuComputeFraction).held_share ? 1 : 0);
    upsert.Run();
  }
}

std::int64_t RefreshAllRecommendations(store::Connection& db) {
  std::set<MaterialKey> keys;
  // Keys with history, CPU-only as ingest files them (an execution that used
  // no GPU; a GPU of unrecorded brand and model is still a GPU), keys already
  // materialised, and every registered pool's key for every workload.
  const auto seen = db.Prepare(
      "SELECT DISTINCT o.workload_id, coalesce(o.gpu_brand, ''), coalesce(o.gpu_model, ''), "
      "coalesce(o.instance_type, ''), 1 - " +
      std::string(kObservationUsedGpuSql) +
      " FROM observations o "
      "UNION SELECT workload_id, gpu_brand, gpu_model, instance_type, cpu_only "
      "FROM recommendations "
      "UNION SELECT w.id, coalesce(p.gpu_brand, ''), "
      "coalesce(p.gpu_model, ''), coalesce(p.instance_type, ''), "
      "CASE WHEN p.gpu_count = 0 THEN 1 ELSE 0 END FROM workloads w CROSS JOIN node_pools p");
  while (seen->Step()) {
    keys.emplace(seen->Int64(0), seen->String(1), seen->String(2), seen->String(3),
                 seen->Int(4) != 0);
  }
  seen->Reset();
  db.Execute("DELETE FROM recommendations");
  MaterializeRecommendations(db, keys, NowEpochSeconds());
  return static_cast<std::int64_t>(keys.size());
}

}  // namespace hwrec::internal
