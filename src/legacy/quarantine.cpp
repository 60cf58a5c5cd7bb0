#include <fmt/format.h>

#include <set>

#include <memory>

#include "aggregate/aggregator.h"
#include "aggregate/settings.h"
#include "base/text.h"
#include "base/time.h"
#include "hwrec/catalog.h"
#include "hwrec/legacy_quarantine.h"
#include "hwrec/remedy.h"
#include "hwrec/store.h"
#include "legacy/legacy_mover.h"
#include "legacy/legacy_pools.h"
#include "recommend/materialize.h"
#include "store/database.h"
#include "store/guarded.h"
#include "store/row_values.h"

namespace hwrec {

namespace {

using internal::LegacyRow;

// The row's finish time; nullopt when it holds no number there.
std::optional<double> FinishedAtOf(const LegacyRow& row) {
  for (const internal::MistypedValue& m : row.mistyped) {
    if (m.column == internal::kFinishedAtColumn) return std::nullopt;
  }
  return row.finished_at;
}

QuarantinedRow ToQuarantinedRow(const LegacyRow& row, std::string code, std::string reason) {
  // In QuarantinedRow's field order.
  return QuarantinedRow{row.id,
                        row.execution_id,
                        row.site_id,
                        row.action_image,
                        row.node_pool_id,
                        FinishedAtOf(row),
                        row.hardware.instance_type,
                        row.hardware.gpu_mode,
                        row.node_pool_gpu,
                        row.hardware_profile_id,
                        std::move(code),
                        std::move(reason)};
}

// The quarantined rows `filter` selects, with their reason code and reason.
// The ids are matched here, not in SQL: the same statement runs on both
// engines (the quarantine is small: rows no migration could place).
template <typename Fn>
void ForEachMatch(store::Connection& db, const QuarantineFilter& filter, Fn&& fn) {
  const auto query =
      db.Prepare(fmt::format("SELECT {}, reason_code, reason FROM legacy_quarantine WHERE "
                             "(CAST(?1 AS TEXT) IS NULL OR site_id = ?1) AND "
                             "(CAST(?2 AS TEXT) IS NULL OR node_pool_id = ?2) AND "
                             "(CAST(?3 AS TEXT) IS NULL OR node_pool_gpu = ?3) AND "
                             "(CAST(?4 AS TEXT) IS NULL OR reason_code = ?4) "
                             "ORDER BY id",
                             internal::kLegacyColumns));
  store::BindRow(*query, filter.site_id, filter.node_pool_id, filter.node_pool_gpu,
                 filter.reason_code);
  const std::set<std::int64_t> ids(filter.ids.begin(), filter.ids.end());
  LegacyRow row;
  while (query->Step()) {
    internal::ReadLegacyRow(*query, 0, &row);
    if (!ids.empty() && ids.count(row.id) == 0) continue;
    fn(row, query->String(internal::kLegacyColumnCount),
       query->String(internal::kLegacyColumnCount + 1));
  }
}

Status NoQuarantine(const Store& store) {
  return Status::SchemaMismatch(
      fmt::format("{}: the store is at schema {} and has no quarantine: run {}", store.path(),
                  store.schema_version(), RemedyText(Remedy::kMigrate, store.path())));
}

Result<const GpuModel*> FindModel(const GpuCatalog& catalog, const std::string& model,
                                  const std::optional<std::string>& brand) {
  const GpuModel* found =
      brand ? catalog.FindModel(*brand, model) : catalog.FindModelAnyBrand(model);
  if (found != nullptr) return found;
  const std::vector<std::string> closest = catalog.ClosestModels(model);
  return Status::InvalidArgument(fmt::format(
      "gpu_model '{}{}' is not in the GPU catalog{}: use the catalog spelling ({}) or add the "
      "card with {}",
      brand ? *brand + " " : std::string(), model,
      closest.empty() ? std::string() : " (closest: " + internal::JoinOr(closest) + ")",
      RemedyText(Remedy::kCatalogList), RemedyText(Remedy::kCatalogImport)));
}

}  // namespace

Result<std::vector<QuarantinedRow>> ListQuarantine(const Store& store,
                                                   const QuarantineFilter& filter) {
  return internal::Guarded(store.path(), [&]() -> Result<std::vector<QuarantinedRow>> {
    store::Connection& db = store::ConnectionOf(store);
    if (!db.HasTable("legacy_quarantine")) return NoQuarantine(store);
    std::vector<QuarantinedRow> rows;
    ForEachMatch(db, filter, [&](const LegacyRow& row, std::string code, std::string reason) {
      rows.push_back(ToQuarantinedRow(row, std::move(code), std::move(reason)));
    });
    return rows;
  });
}

Result<QuarantineResolveSummary> ResolveQuarantine(Store& store,
                                                   const QuarantineResolveOptions& options) {
  const QuarantineFilter& filter = options.filter;
  const std::optional<std::string>& gpu_model = options.gpu_model;
  const std::optional<std::string>& gpu_brand = options.gpu_brand;
  if (filter.empty() && !options.all) {
    return Status::InvalidArgument(
        "no quarantined rows named: select them by id, site, node pool, GPU name or reason, or "
        "resolve every row explicitly (all)");
  }
  if (Status writable = store.CheckWritable(); !writable.ok()) return writable;
  return internal::Guarded(store.path(), [&]() -> Result<QuarantineResolveSummary> {
    store::Connection& db = store::ConnectionOf(store);
    auto catalog = GpuCatalog::Load(store);
    if (!catalog.ok()) return catalog.status();
    if (gpu_brand && !gpu_model) {
      return Status::InvalidArgument(
          "gpu_brand is given without gpu_model: name the model too, or leave both out");
    }
    // The shared unknown-model population, or a catalog model.
    const bool unknown_model = gpu_model && *gpu_model == kUnknownGpuModel;
    if (unknown_model && gpu_brand) {
      return Status::InvalidArgument(
          "gpu_brand is given with the unknown model: a GPU of unknown model joins its "
          "population without a brand (a registered pool's brand is kept): leave gpu_brand out");
    }
    std::optional<GpuModel> target;
    if (gpu_model && !unknown_model) {
      auto model = FindModel(*catalog, *gpu_model, gpu_brand);
      if (!model.ok()) return model.status();
      target = **model;
    }
    auto resolver = internal::MakeLegacyResolver(store, std::move(catalog).value(), {});
    if (!resolver.ok()) return resolver.status();
    // Run again when the engine cancels it; under every workload's lock, as a
    // refresh: no ingest batch merges the aggregates it writes beside it.
    return store::RunWrite(db, [&]() -> Result<QuarantineResolveSummary> {
      store::AllWorkloadsLock all(db);
      store::WriteTransaction tx(db);
      const internal::RecommenderSettings settings = internal::LoadSettings(db);
      QuarantineResolveSummary summary;
      internal::AggregateWriter aggregates(db, settings);
      {
        internal::LegacyMover mover(
            db, {internal::NowEpochSeconds(), settings.max_clock_skew_hours}, &aggregates);
        std::vector<std::pair<LegacyRow, std::string>> rows;  // with its reason code
        ForEachMatch(db, filter,
                     [&](const LegacyRow& row, const std::string& code, const std::string&) {
                       rows.emplace_back(row, code);
                     });
        const auto remove = db.Prepare("DELETE FROM legacy_quarantine WHERE id = ?");
        const auto keep =
            db.Prepare("UPDATE legacy_quarantine SET reason_code = ?, reason = ? WHERE id = ?");
        std::string code, reason;
        for (const auto& [row, quarantined_as] : rows) {
          ++summary.matched;
          // By its own hardware first, as the migration routes a row: without a
          // model, for a CPU-only row (it never gets a GPU model) and for a row
          // quarantined for a value (mended since). Then with the model given.
          auto by_row = (*resolver)->Resolve(row);
          const bool resolves = by_row->route != internal::LegacyRoute::kQuarantine;
          const bool cpu_only = resolves && !internal::HasGpu(by_row->resolved.hardware);
          const bool given = target || unknown_model;
          bool own = !given || cpu_only || (resolves && quarantined_as == internal::kInvalidField);
          bool moved = own && mover.TryStore(row, by_row, &code, &reason);
          if (!moved && given && !cpu_only) {
            own = false;
            moved = mover.TryStore(
                row,
                std::make_shared<const internal::LegacyResolution>(
                    unknown_model ? (*resolver)->ResolveWithUnknownModel(
                                        row, settings.total_compute_slices, quarantined_as)
                                  : (*resolver)->ResolveWithModel(row, *target)),
                &code, &reason);
          }
          if (moved) {
            ++summary.moved;
            if (own) ++summary.moved_by_own_hardware;
            store::BindRow(*remove, row.id);
            remove->Run();
          } else {
            store::BindRow(*keep, code, reason, row.id);
            keep->Run();
            summary.kept.push_back(ToQuarantinedRow(row, code, reason));
          }
        }
      }
      aggregates.Flush();
      summary.recommendations = internal::RefreshAllRecommendations(db);
      tx.Commit();
      return summary;
    });
  });
}

}  // namespace hwrec
