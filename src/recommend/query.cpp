#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>
#include <sqlite3.h>

#include <string_view>

#include "hwrec/node_pool.h"
#include "hwrec/recommend.h"
#include "hwrec/store.h"
#include "aggregate/aggregator.h"
#include "recommend/estimator.h"
#include "recommend/recommend_internal.h"
#include "store/sqlite_util.h"

namespace hwrec {

namespace {

using internal::KeyAggregate;
using internal::Scope;

// Where each figure may come from, most specific first (DESIGN §3, §6). GPU
// compute share never leaves its card model; CPU and memory leave their
// instance type only when fallback.cpu_memory_any_hardware allows it.
const std::vector<Scope>& FallbackChain(FigureKind kind,
                                        const internal::RecommenderSettings& settings) {
  static const std::vector<Scope> kCpu = {Scope::kExact, Scope::kInstanceType};
  static const std::vector<Scope> kCpuAnyHardware = {Scope::kExact, Scope::kInstanceType,
                                                     Scope::kAny};
  static const std::vector<Scope> kGpuMemory = {Scope::kExact, Scope::kGpuModel, Scope::kAny};
  static const std::vector<Scope> kGpuShare = {Scope::kExact, Scope::kGpuModel};
  switch (kind) {
    case FigureKind::kGpuMemoryGb:
      return kGpuMemory;
    case FigureKind::kGpuComputeFraction:
      return kGpuShare;
    default:
      return settings.cpu_memory_any_hardware ? kCpuAnyHardware : kCpu;
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

// Compares the config rows with those the settings were last read from, in
// place: an unchanged table costs no allocation.
bool RecommendationReader::ConfigChanged() {
  if (!config_) config_.emplace(db_, "SELECT key, value FROM config ORDER BY key");
  if (!config_rows_) return true;
  const auto& rows = *config_rows_;
  config_->reset();
  std::size_t i = 0;
  bool changed = false;
  while (!changed && config_->executeStep()) {
    const SQLite::Column key = config_->getColumn(0);
    const SQLite::Column value = config_->getColumn(1);
    changed =
        i == rows.size() || rows[i].first != key.getText() || rows[i].second != value.getText();
    ++i;
  }
  config_->reset();
  return changed || i != rows.size();
}

void RecommendationReader::RefreshSettings() {
  if (!ConfigChanged()) return;
  // Rows first, then the settings: a change in between only costs a re-read later.
  std::vector<std::pair<std::string, std::string>> rows;
  config_->reset();
  while (config_->executeStep()) {
    rows.emplace_back(config_->getColumn(0).getString(), config_->getColumn(1).getString());
  }
  config_->reset();
  config_rows_ = std::move(rows);
  settings_ = LoadSettings(db_);
}

std::optional<std::int64_t> RecommendationReader::WorkloadId(const std::string& image) {
  workload_.reset();
  workload_.bind(1, image);
  std::optional<std::int64_t> id;
  if (workload_.executeStep()) id = workload_.getColumn(0).getInt64();
  workload_.reset();  // an unfinished statement would hold its read transaction open
  return id;
}

namespace {

// The row `scope` keeps for `hardware`: the parts the scope does not key on are "".
AggregateKey KeyAt(std::int64_t workload_id, Scope scope, const HardwareKey& hardware) {
  AggregateKey key;
  key.workload_id = workload_id;
  key.scope = scope;
  if (scope == Scope::kExact || scope == Scope::kGpuModel) {
    key.gpu_brand = hardware.gpu_brand.value_or("");
    key.gpu_model = hardware.gpu_model.value_or("");
  }
  if (scope == Scope::kExact || scope == Scope::kInstanceType) {
    key.instance_type = hardware.instance_type.value_or("");
  }
  return key;
}

std::optional<Scope> ScopeNamed(std::string_view name) {
  for (std::size_t s = 0; s < kScopeCount; ++s) {
    if (name == ScopeName(static_cast<Scope>(s))) return static_cast<Scope>(s);
  }
  return std::nullopt;
}

}  // namespace

Recommendation RecommendationReader::Read(std::int64_t workload_id, const std::string& workload,
                                          const HardwareKey& hardware, double as_of) {
  std::array<std::optional<KeyAggregate>, kScopeCount> by_scope;
  if (workload_id > 0) {
    aggregates_.reset();
    aggregates_.bind(1, workload_id);
    aggregates_.bind(2, hardware.gpu_brand.value_or(""));
    aggregates_.bind(3, hardware.gpu_model.value_or(""));
    aggregates_.bind(4, hardware.instance_type.value_or(""));
    while (aggregates_.executeStep()) {
      const auto scope = static_cast<std::size_t>(aggregates_.getColumn(0).getInt());
      by_scope[scope] = AggregateFromState(aggregates_.getColumn(1));
    }
  }
  ScopeAggregates found{};
  for (std::size_t s = 0; s < kScopeCount; ++s) {
    if (by_scope[s]) found[s] = &*by_scope[s];
  }
  return Estimate(workload, hardware, as_of, found);
}

Recommendation RecommendationReader::Read(std::int64_t workload_id, const std::string& workload,
                                          const HardwareKey& hardware, double as_of,
                                          AggregateMemo* memo) {
  ScopeAggregates found{};
  if (workload_id > 0) {
    ReadAggregates(workload_id, {&hardware}, memo);  // nothing to read when prefetched
    for (std::size_t s = 0; s < kScopeCount; ++s) {
      const auto entry = memo->find(KeyAt(workload_id, static_cast<Scope>(s), hardware));
      if (entry->second) found[s] = &*entry->second;
    }
  }
  return Estimate(workload, hardware, as_of, found);
}

void RecommendationReader::ReadAggregates(std::int64_t workload_id,
                                          const std::vector<const HardwareKey*>& keys,
                                          AggregateMemo* memo) {
  if (workload_id <= 0) return;
  AggregateMemo wanted;
  for (const HardwareKey* hardware : keys) {
    for (std::size_t s = 0; s < kScopeCount; ++s) {
      AggregateKey key = KeyAt(workload_id, static_cast<Scope>(s), *hardware);
      if (memo->count(key) == 0) wanted.try_emplace(std::move(key));
    }
  }
  if (wanted.empty()) return;
  if (!workload_rows_) {
    workload_rows_.emplace(db_,
                           "SELECT scope, gpu_brand, gpu_model, instance_type, state "
                           "FROM aggregates WHERE workload_id = ?");
  }
  // One seek, then the rows in key order: a seek per row costs more, since each
  // comparison on this table reads a whole row with its state.
  SQLite::Statement& select = *workload_rows_;
  select.reset();
  select.bind(1, workload_id);
  AggregateKey key;
  key.workload_id = workload_id;
  while (select.executeStep()) {
    const std::optional<Scope> scope = ScopeNamed(select.getColumn(0).getText());
    if (!scope) continue;
    key.scope = *scope;
    key.gpu_brand = select.getColumn(1).getText();
    key.gpu_model = select.getColumn(2).getText();
    key.instance_type = select.getColumn(3).getText();
    const auto entry = wanted.find(key);
    if (entry != wanted.end()) entry->second = AggregateFromState(select.getColumn(4));
  }
  select.reset();
  memo->merge(wanted);
}

Recommendation RecommendationReader::Estimate(const std::string& workload,
                                              const HardwareKey& hardware, double as_of,
                                              const ScopeAggregates& by_scope) const {
  Recommendation out;
  out.workload = workload;
  out.hardware = hardware;
  out.as_of = as_of;
  for (std::size_t f = 0; f < kFigureCount; ++f) {
    const auto kind = static_cast<FigureKind>(f);
    out.figures[f] = EmptyFigure(kind, settings_);
    if (hardware.cpu_only && IsGpuFigure(kind)) continue;
    for (Scope scope : FallbackChain(kind, settings_)) {
      const KeyAggregate* aggregate = by_scope[static_cast<std::size_t>(scope)];
      if (aggregate == nullptr || aggregate->metric(kind).empty()) continue;
      out.figures[f] =
          EstimateFigure(kind, aggregate->metric(kind), settings_, ProvenanceOf(scope));
      break;
    }
  }
  return out;
}

int RecommendationReader::SchemaVersion() {
  if (!schema_version_) schema_version_.emplace(db_, "PRAGMA user_version");
  schema_version_->reset();
  const int version = schema_version_->executeStep() ? schema_version_->getColumn(0).getInt() : 0;
  schema_version_->reset();
  return version;
}

bool RecommendationReader::StoreMayHaveChanged() {
  if (!data_version_) data_version_.emplace(db_, "PRAGMA data_version");
  data_version_->reset();
  const std::int64_t data_version =
      data_version_->executeStep() ? data_version_->getColumn(0).getInt64() : 0;
  data_version_->reset();
  const std::pair<std::int64_t, std::int64_t> now{
      data_version, static_cast<std::int64_t>(sqlite3_total_changes64(db_.getHandle()))};
  const bool changed = seen_version_ != now;
  seen_version_ = now;
  return changed;
}

Result<RecommendationReader*> KeptReader(const Store& store,
                                         std::unique_ptr<RecommendationReader>* reader) {
  // Unchanged since the last call: the schema and the settings are as checked then.
  if (*reader != nullptr && !(*reader)->StoreMayHaveChanged()) return reader->get();
  const int version = *reader != nullptr ? (*reader)->SchemaVersion() : store.schema_version();
  if (version < Store::LatestSchemaVersion()) {
    return Status::SchemaMismatch(fmt::format(
        "{}: store is at schema {} but recommendations need schema {}: run `hwrec migrate {}`",
        store.path(), version, Store::LatestSchemaVersion(), store.path()));
  }
  if (*reader == nullptr) {
    *reader = std::make_unique<RecommendationReader>(StoreAccess::Db(store));
    (*reader)->StoreMayHaveChanged();  // the baseline for the next call
  }
  (*reader)->RefreshSettings();
  return reader->get();
}

ReadSnapshot::ReadSnapshot(SQLite::Database& db) : db_(db) {
  if (sqlite3_get_autocommit(db_.getHandle()) != 0) {
    db_.exec("BEGIN");
    began_ = true;
  }
}

ReadSnapshot::~ReadSnapshot() {
  if (!began_) return;
  // Nothing was written: ending it either way releases the snapshot.
  if (sqlite3_exec(db_.getHandle(), "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) {
    sqlite3_exec(db_.getHandle(), "ROLLBACK", nullptr, nullptr, nullptr);
  }
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
  if (Status time = internal::CheckEpochSeconds(as_of, "as_of"); !time.ok()) return time;
  const Store& store = impl_->store;
  return internal::Guarded(store.path(), [&]() -> Result<Recommendation> {
    internal::ReadSnapshot snapshot(internal::StoreAccess::Db(store));
    auto reader = internal::KeptReader(store, &impl_->reader);
    if (!reader.ok()) return reader.status();
    const double at = as_of.value_or(internal::NowEpochSeconds());
    const auto id = (*reader)->WorkloadId(workload);
    return (*reader)->Read(id.value_or(0), workload, hardware, at);
  });
}

}  // namespace hwrec
