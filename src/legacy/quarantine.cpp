#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>

#include <memory>

#include "aggregate/aggregator.h"
#include "aggregate/materialize.h"
#include "aggregate/settings.h"
#include "base/text.h"
#include "hwrec/catalog.h"
#include "hwrec/legacy_quarantine.h"
#include "hwrec/store.h"
#include "legacy/legacy_mover.h"
#include "legacy/legacy_pools.h"
#include "store/sqlite_util.h"

namespace hwrec {

namespace {

using internal::LegacyRow;

QuarantinedRow ToQuarantinedRow(const LegacyRow& row, std::string code, std::string reason) {
  QuarantinedRow q;
  q.id = row.id;
  q.execution_id = row.execution_id;
  q.site_id = row.site_id;
  q.action_image = row.action_image;
  q.node_pool_id = row.node_pool_id;
  q.finished_at = row.finished_at;
  q.instance_type = row.hardware.instance_type;
  q.gpu_mode = row.hardware.gpu_mode;
  q.node_pool_gpu = row.node_pool_gpu;
  q.hardware_profile_id = row.hardware_profile_id;
  q.reason_code = std::move(code);
  q.reason = std::move(reason);
  return q;
}

// The quarantined rows `filter` selects, with their reason code and reason.
template <typename Fn>
void ForEachMatch(SQLite::Database& db, const QuarantineFilter& filter, Fn&& fn) {
  SQLite::Statement query(
      db, fmt::format("SELECT {}, reason_code, reason FROM legacy_quarantine WHERE "
                      "(?1 IS NULL OR site_id = ?1) AND (?2 IS NULL OR node_pool_id = ?2) AND "
                      "(?3 IS NULL OR node_pool_gpu = ?3) AND (?4 IS NULL OR reason_code = ?4) "
                      "AND (?5 IS NULL OR id IN (SELECT value FROM json_each(?5))) ORDER BY id",
                      internal::kLegacyColumns));
  internal::BindOptional(query, 1, filter.site_id);
  internal::BindOptional(query, 2, filter.node_pool_id);
  internal::BindOptional(query, 3, filter.node_pool_gpu);
  internal::BindOptional(query, 4, filter.reason_code);
  if (filter.ids.empty()) {
    query.bind(5);
  } else {
    query.bind(5, fmt::format("[{}]", fmt::join(filter.ids, ",")));
  }
  LegacyRow row;
  while (query.executeStep()) {
    internal::ReadLegacyRow(query, 0, &row);
    fn(row, query.getColumn(internal::kLegacyColumnCount).getString(),
       query.getColumn(internal::kLegacyColumnCount + 1).getString());
  }
}

Status NoQuarantine(const Store& store) {
  return Status::SchemaMismatch(
      fmt::format("{}: the store is at schema {} and has no quarantine: run `hwrec migrate {}`",
                  store.path(), store.schema_version(), store.path()));
}

Result<const GpuModel*> FindModel(const GpuCatalog& catalog, const std::string& model,
                                  const std::optional<std::string>& brand) {
  const GpuModel* found =
      brand ? catalog.FindModel(*brand, model) : catalog.FindModelAnyBrand(model);
  if (found != nullptr) return found;
  const std::vector<std::string> closest = catalog.ClosestModels(model);
  return Status::InvalidArgument(fmt::format(
      "gpu_model '{}{}' is not in the GPU catalog{}: use the catalog spelling (`hwrec catalog "
      "list`) or add the card with `hwrec catalog import`",
      brand ? *brand + " " : std::string(), model,
      closest.empty() ? std::string() : " (closest: " + internal::JoinOr(closest) + ")"));
}

}  // namespace

Result<std::vector<QuarantinedRow>> ListQuarantine(const Store& store,
                                                   const QuarantineFilter& filter) {
  return internal::Guarded(store.path(), [&]() -> Result<std::vector<QuarantinedRow>> {
    SQLite::Database& db = internal::StoreAccess::Db(store);
    if (!db.tableExists("legacy_quarantine")) return NoQuarantine(store);
    std::vector<QuarantinedRow> rows;
    ForEachMatch(db, filter, [&](const LegacyRow& row, std::string code, std::string reason) {
      rows.push_back(ToQuarantinedRow(row, std::move(code), std::move(reason)));
    });
    return rows;
  });
}

Result<QuarantineResolveSummary> ResolveQuarantine(Store& store, const QuarantineFilter& filter,
                                                   const std::string& gpu_model,
                                                   const std::optional<std::string>& gpu_brand,
                                                   bool all) {
  if (filter.empty() && !all) {
    return Status::InvalidArgument(
        "no quarantined rows named: select them by id, site, node pool, GPU name or reason, or "
        "resolve every row explicitly (all)");
  }
  if (Status writable = store.CheckWritable(); !writable.ok()) return writable;
  return internal::Guarded(store.path(), [&]() -> Result<QuarantineResolveSummary> {
    SQLite::Database& db = internal::StoreAccess::Db(store);
    auto catalog = GpuCatalog::Load(store);
    if (!catalog.ok()) return catalog.status();
    auto model = FindModel(*catalog, gpu_model, gpu_brand);
    if (!model.ok()) return model.status();
    const GpuModel target = **model;
    auto resolver = internal::MakeLegacyResolver(store, std::move(catalog).value(), {});
    if (!resolver.ok()) return resolver.status();
    store::Connection& connection = store::ConnectionOf(store);
    const internal::RecommenderSettings settings = internal::LoadSettings(connection);
    QuarantineResolveSummary summary;
    internal::WriteTransaction tx(db);
    internal::AggregateWriter aggregates(connection, settings);
    {
      internal::LegacyMover mover(connection, internal::NowEpochSeconds(), &aggregates);
      std::vector<LegacyRow> rows;
      ForEachMatch(db, filter, [&](const LegacyRow& row, const std::string&, const std::string&) {
        rows.push_back(row);
      });
      SQLite::Statement remove(db, "DELETE FROM legacy_quarantine WHERE id = ?");
      SQLite::Statement keep(
          db, "UPDATE legacy_quarantine SET reason_code = ?, reason = ? WHERE id = ?");
      std::string code, reason;
      for (const LegacyRow& row : rows) {
        ++summary.matched;
        auto r = std::make_shared<const internal::LegacyResolution>(
            (*resolver)->ResolveWithModel(row, target));
        SQLite::Statement& change =
            mover.TryStore(row, std::move(r), &code, &reason) ? remove : keep;
        if (&change == &remove) {
          ++summary.moved;
          remove.bind(1, row.id);
        } else {
          keep.bind(1, code);
          keep.bind(2, reason);
          keep.bind(3, row.id);
          summary.kept.push_back(ToQuarantinedRow(row, code, reason));
        }
        change.exec();
        change.reset();
      }
    }
    aggregates.Flush();
    summary.recommendations = internal::RefreshAllRecommendations(connection);
    tx.Commit();
    return summary;
  });
}

}  // namespace hwrec
