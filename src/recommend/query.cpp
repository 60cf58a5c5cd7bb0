#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>

#include "hwrec/node_pool.h"
#include "hwrec/recommend.h"
#include "hwrec/store.h"
#include "recommend/aggregator.h"
#include "recommend/estimator.h"
#include "recommend/recommend_internal.h"
#include "store/sqlite_util.h"

namespace hwrec {

namespace {

using internal::KeyAggregate;
using internal::Scope;

// Where each figure may come from, most specific first (DESIGN §3, §6). GPU
// compute share never leaves its card model.
const std::vector<Scope>& FallbackChain(FigureKind kind) {
  static const std::vector<Scope> kCpu = {Scope::kExact, Scope::kInstanceType, Scope::kAny};
  static const std::vector<Scope> kGpuMemory = {Scope::kExact, Scope::kGpuModel, Scope::kAny};
  static const std::vector<Scope> kGpuShare = {Scope::kExact, Scope::kGpuModel};
  switch (kind) {
    case FigureKind::kGpuMemoryGb:
      return kGpuMemory;
    case FigureKind::kGpuComputeFraction:
      return kGpuShare;
    default:
      return kCpu;
  }
}

Provenance ProvenanceOf(Scope scope) {
  switch (scope) {
    case Scope::kExact:
      return Provenance::kExact;
    case Scope::kGpuModel:
      return Provenance::kGpuModel;
    case Scope::kInstanceType:
      return Provenance::kInstanceType;
    case Scope::kAny:
      return Provenance::kWorkloadAnyHardware;
  }
  return Provenance::kNone;
}

bool IsGpuFigure(FigureKind kind) {
  return kind == FigureKind::kGpuMemoryGb || kind == FigureKind::kGpuComputeFraction;
}

}  // namespace

std::string_view ToString(FigureKind kind) {
  switch (kind) {
    case FigureKind::kCpuRequestMillicores:
      return "cpu_request_millicores";
    case FigureKind::kCpuLimitMillicores:
      return "cpu_limit_millicores";
    case FigureKind::kMemoryBytes:
      return "memory_bytes";
    case FigureKind::kGpuMemoryGb:
      return "gpu_memory_gb";
    case FigureKind::kGpuComputeFraction:
      return "gpu_compute_fraction";
  }
  return "unknown";
}

std::string_view ToString(Provenance provenance) {
  switch (provenance) {
    case Provenance::kExact:
      return "exact";
    case Provenance::kGpuModel:
      return "gpu_model";
    case Provenance::kInstanceType:
      return "instance_type";
    case Provenance::kWorkloadAnyHardware:
      return "workload_any_hardware";
    case Provenance::kNone:
      return "none";
  }
  return "none";
}

HardwareKey HardwareKey::Of(const NodePool& pool) {
  HardwareKey key;
  key.gpu_brand = pool.hardware.gpu_brand;
  key.gpu_model = pool.hardware.gpu_model;
  key.instance_type = pool.hardware.instance_type;
  key.cpu_only = pool.hardware.gpu_count.value_or(0) == 0;
  return key;
}

bool HardwareKey::operator==(const HardwareKey& o) const {
  return gpu_brand == o.gpu_brand && gpu_model == o.gpu_model && instance_type == o.instance_type &&
         cpu_only == o.cpu_only;
}

namespace internal {

RecommendationReader::RecommendationReader(SQLite::Database& db)
    : db_(db),
      settings_(LoadSettings(db)),
      workload_(db, "SELECT id FROM workloads WHERE image = ?"),
      aggregates_(db,
                  "SELECT 0, state FROM aggregates WHERE workload_id = ?1 AND scope = 'exact' "
                  "AND gpu_brand = ?2 AND gpu_model = ?3 AND instance_type = ?4 "
                  "UNION ALL SELECT 1, state FROM aggregates WHERE workload_id = ?1 "
                  "AND scope = 'gpu_model' AND gpu_brand = ?2 AND gpu_model = ?3 "
                  "AND instance_type = '' "
                  "UNION ALL SELECT 2, state FROM aggregates WHERE workload_id = ?1 "
                  "AND scope = 'instance_type' AND gpu_brand = '' AND gpu_model = '' "
                  "AND instance_type = ?4 "
                  "UNION ALL SELECT 3, state FROM aggregates WHERE workload_id = ?1 "
                  "AND scope = 'any' AND gpu_brand = '' AND gpu_model = '' "
                  "AND instance_type = ''") {}

std::optional<std::int64_t> RecommendationReader::WorkloadId(const std::string& image) {
  workload_.reset();
  workload_.bind(1, image);
  if (!workload_.executeStep()) return std::nullopt;
  return workload_.getColumn(0).getInt64();
}

Recommendation RecommendationReader::Read(std::int64_t workload_id, const std::string& workload,
                                          const HardwareKey& hardware, double as_of) {
  std::array<std::optional<KeyAggregate>, 4> by_scope;
  if (workload_id > 0) {
    aggregates_.reset();
    aggregates_.bind(1, workload_id);
    aggregates_.bind(2, hardware.gpu_brand.value_or(""));
    aggregates_.bind(3, hardware.gpu_model.value_or(""));
    aggregates_.bind(4, hardware.instance_type.value_or(""));
    while (aggregates_.executeStep()) {
      const auto scope = static_cast<std::size_t>(aggregates_.getColumn(0).getInt());
      const SQLite::Column state = aggregates_.getColumn(1);
      KeyAggregate aggregate;
      if (!aggregate.Deserialize(std::string(static_cast<const char*>(state.getBlob()),
                                             static_cast<std::size_t>(state.getBytes())))) {
        throw std::runtime_error(
            "an aggregate in the store is corrupt: run `hwrec refresh --rebuild`");
      }
      by_scope[scope] = std::move(aggregate);
    }
  }
  Recommendation out;
  out.workload = workload;
  out.hardware = hardware;
  out.as_of = as_of;
  for (std::size_t f = 0; f < kFigureCount; ++f) {
    const auto kind = static_cast<FigureKind>(f);
    out.figures[f] = EmptyFigure(kind, settings_);
    if (hardware.cpu_only && IsGpuFigure(kind)) continue;
    for (Scope scope : FallbackChain(kind)) {
      const auto& aggregate = by_scope[static_cast<std::size_t>(scope)];
      if (!aggregate || aggregate->metric(kind).empty()) continue;
      out.figures[f] =
          EstimateFigure(kind, aggregate->metric(kind), settings_, ProvenanceOf(scope), as_of);
      break;
    }
  }
  return out;
}

}  // namespace internal

struct RecommendationQuery::Impl {
  explicit Impl(const Store& s) : store(s) {}
  const Store& store;
  std::unique_ptr<internal::RecommendationReader> reader;
};

RecommendationQuery::RecommendationQuery(const Store& store)
    : impl_(std::make_unique<Impl>(store)) {}
RecommendationQuery::~RecommendationQuery() = default;

Result<Recommendation> RecommendationQuery::Recommend(const std::string& workload,
                                                      const HardwareKey& hardware,
                                                      std::optional<double> as_of) {
  const Store& store = impl_->store;
  if (store.schema_version() < Store::LatestSchemaVersion()) {
    return Status::SchemaMismatch(fmt::format(
        "{}: store is at schema {} but recommendations need schema {}: run `hwrec migrate {}`",
        store.path(), store.schema_version(), Store::LatestSchemaVersion(), store.path()));
  }
  return internal::Guarded(store.path(), [&]() -> Result<Recommendation> {
    if (!impl_->reader) {
      impl_->reader =
          std::make_unique<internal::RecommendationReader>(internal::StoreAccess::Db(impl_->store));
    }
    const double at = as_of.value_or(internal::NowEpochSeconds());
    const auto id = impl_->reader->WorkloadId(workload);
    return impl_->reader->Read(id.value_or(0), workload, hardware, at);
  });
}

}  // namespace hwrec
