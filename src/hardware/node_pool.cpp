#include "hwrec/node_pool.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <variant>

#include "hardware/gpu_mode.h"
#include "hwrec/catalog.h"
#include "hwrec/observation.h"
#include "hwrec/runner.h"
#include "record/runner_records.h"
#include "store/sqlite_util.h"
#include "base/json_fields.h"
#include "base/line_reader.h"
#include "base/text.h"

namespace hwrec {

namespace {

using internal::StoreAccess;
using PoolOrError = std::variant<NodePool, FieldError>;

// Longest pool line read; a pool is a few hundred bytes.
constexpr std::size_t kMaxPoolLineBytes = 1048576;

std::string PoolName(const NodePool& pool) {
  return pool.node_pool_id.empty() ? "node pool" : fmt::format("node pool '{}'", pool.node_pool_id);
}

std::optional<FieldError> CheckIdsAndSizes(const NodePool& pool) {
  for (const auto& [field, id] :
       {std::pair<const char*, const std::string*>{"node_pool_id", &pool.node_pool_id},
        {"site_id", &pool.site_id}}) {
    if (internal::Trim(*id).empty()) return FieldError{field, "is missing: it is required"};
    if (auto problem = internal::TextProblem(*id)) return FieldError{field, std::move(*problem)};
  }
  const HardwareProfile& h = pool.hardware;
  const std::pair<const char*, const std::optional<std::int64_t>*> sizes[] = {
      {"cpu_millicores", &h.cpu_millicores},
      {"memory_bytes", &h.memory_bytes},
      {"gpu_count", &h.gpu_count},
      {"gpu_total", &h.gpu_total}};
  for (const auto& [field, value] : sizes) {
    if (value->has_value() && **value < 0) {
      return FieldError{field, fmt::format("is {}: it must be zero or more", **value)};
    }
  }
  // gpu_total counts every GPU (card or partition) of a node; 0 is not recorded.
  if (h.gpu_count.value_or(0) > h.gpu_total.value_or(0) && h.gpu_total.value_or(0) > 0) {
    return FieldError{"gpu_count",
                      fmt::format("is {}, more than gpu_total {}: gpu_total counts every GPU (or "
                                  "partition) of the node, so send gpu_count <= gpu_total",
                                  *h.gpu_count, *h.gpu_total)};
  }
  return std::nullopt;
}

// A pool without GPUs must not describe any.
std::optional<FieldError> CheckCpuOnly(const HardwareProfile& h) {
  auto fail = [](const char* field) {
    return FieldError{field,
                      "is set but gpu_count is 0: give gpu_count, or leave the GPU "
                      "fields out for a CPU-only pool"};
  };
  if (h.gpu_model) return fail("gpu_model");
  if (h.gpu_brand) return fail("gpu_brand");
  if (h.gpu_mode) return fail("gpu_mode");
  if (h.gpu_total.value_or(0) > 0) return fail("gpu_total");
  return std::nullopt;
}

std::vector<std::string> ModesOf(const GpuModel& model) {
  std::vector<std::string> modes;
  for (const GpuPartition& p : model.partitions) modes.push_back(p.mode);
  return modes;
}

std::optional<FieldError> UnknownModel(const HardwareProfile& h, const GpuCatalog& catalog) {
  if (h.gpu_brand) {
    if (const GpuModel* other = catalog.FindModelAnyBrand(*h.gpu_model)) {
      return FieldError{"gpu_brand", fmt::format("'{}' has no {}: the catalog lists it under '{}'",
                                                 *h.gpu_brand, *h.gpu_model, other->brand)};
    }
  }
  const std::vector<std::string> closest = catalog.ClosestModels(*h.gpu_model);
  const std::string hint = closest.empty() ? "see `hwrec catalog list`, or leave gpu_model out "
                                             "when the card is not known"
                                           : "did you mean " + internal::JoinOr(closest) + "?";
  return FieldError{"gpu_model",
                    fmt::format("'{}' is not in the GPU catalog: {}", *h.gpu_model, hint)};
}

std::optional<FieldError> CheckBrand(const HardwareProfile& h, const GpuCatalog& catalog) {
  if (!h.gpu_brand) return std::nullopt;
  std::vector<std::string> brands;
  for (const GpuModel& m : catalog.models()) {
    if (m.brand == *h.gpu_brand) return std::nullopt;
    if (std::find(brands.begin(), brands.end(), m.brand) == brands.end()) brands.push_back(m.brand);
  }
  return FieldError{"gpu_brand", fmt::format("'{}' is not a brand in the GPU catalog: use {}",
                                             *h.gpu_brand, internal::JoinOr(brands))};
}

// Checks the GPU fields of a pool with GPUs; fills gpu_brand from the catalog
// when only gpu_model is given. A pool without gpu_mode (older registrations)
// has unknown partitioning, as one without gpu_model has an unknown card.
std::optional<FieldError> ResolveGpu(HardwareProfile* h, const GpuCatalog& catalog) {
  if (!h->gpu_mode) {
    if (!h->gpu_model) return CheckBrand(*h, catalog);
    const GpuModel* model = h->gpu_brand ? catalog.FindModel(*h->gpu_brand, *h->gpu_model)
                                         : catalog.FindModelAnyBrand(*h->gpu_model);
    if (model == nullptr) return UnknownModel(*h, catalog);
    h->gpu_brand = model->brand;
    return std::nullopt;
  }
  if (!h->gpu_model) {  // an unknown model: allowed, but the rest must still make sense
    if (!internal::IsGpuModeSyntax(*h->gpu_mode)) {
      return FieldError{"gpu_mode", fmt::format("is '{}': use full or mig-<profile>, e.g. "
                                                "mig-1g.10gb",
                                                *h->gpu_mode)};
    }
    return CheckBrand(*h, catalog);
  }
  const GpuModel* model = h->gpu_brand ? catalog.FindModel(*h->gpu_brand, *h->gpu_model)
                                       : catalog.FindModelAnyBrand(*h->gpu_model);
  if (model == nullptr) return UnknownModel(*h, catalog);
  h->gpu_brand = model->brand;
  if (catalog.FindPartition(model->brand, model->model, *h->gpu_mode) == nullptr) {
    return FieldError{"gpu_mode",
                      fmt::format("'{}' is not a partition of {} {}: use {}", *h->gpu_mode,
                                  model->brand, model->model, internal::JoinOr(ModesOf(*model)))};
  }
  return std::nullopt;
}

// Validates a pool and returns it as it is stored: gpu_count and gpu_total
// default to 0 (the store's columns are never null) and gpu_brand is resolved.
PoolOrError Resolve(const NodePool& pool, const GpuCatalog& catalog) {
  if (auto error = CheckIdsAndSizes(pool)) return *error;
  NodePool resolved = pool;
  HardwareProfile& h = resolved.hardware;
  h.gpu_count = h.gpu_count.value_or(0);
  h.gpu_total = h.gpu_total.value_or(0);
  auto error = *h.gpu_count == 0 ? CheckCpuOnly(h) : ResolveGpu(&h, catalog);
  if (error) return *error;
  if (!CanonicalProfile(h, ProfileIdVersion::kV2).ok()) {
    return FieldError{"hardware", "has a string that is not valid UTF-8: send UTF-8 text"};
  }
  return resolved;
}

std::optional<FieldError> RequiredText(const internal::JsonFields& fields, std::string_view key,
                                       std::optional<std::string>* out) {
  if (auto error = fields.Required(key)) return error;
  if (auto error = fields.String(key, out, true)) return error;
  if (internal::Trim(**out).empty())
    return FieldError{fields.Path(key), "is empty: it is required"};
  if (auto problem = internal::TextProblem(**out)) {
    return FieldError{fields.Path(key), std::move(*problem)};
  }
  return std::nullopt;
}

PoolOrError ParsePool(const std::string& json) {
  auto parsed = internal::ParseJsonRecord(json);
  if (auto* error = std::get_if<FieldError>(&parsed)) return *error;
  internal::JsonFields fields(std::get<nlohmann::json>(parsed));
  NodePool pool;
  HardwareProfile& h = pool.hardware;
  std::optional<std::string> site_id, node_pool_id, name;
  std::optional<FieldError> error = fields.RejectUnknown(
      {"site_id", "node_pool_id", "name", "instance_type", "architecture", "cpu_millicores",
       "memory_bytes", "gpu_brand", "gpu_model", "gpu_count", "gpu_mode", "gpu_total"});
  if (!error) error = RequiredText(fields, "node_pool_id", &node_pool_id);
  if (!error) error = RequiredText(fields, "site_id", &site_id);
  if (!error) error = fields.String("name", &name, true);
  if (!error) error = fields.String("instance_type", &h.instance_type);
  if (!error) error = fields.String("architecture", &h.architecture);
  if (!error) error = fields.Int64("cpu_millicores", &h.cpu_millicores);
  if (!error) error = fields.Int64("memory_bytes", &h.memory_bytes);
  if (!error) error = fields.String("gpu_brand", &h.gpu_brand);
  if (!error) error = fields.String("gpu_model", &h.gpu_model);
  if (!error) error = fields.Int64("gpu_count", &h.gpu_count);
  if (!error) error = fields.String("gpu_mode", &h.gpu_mode);
  if (!error) error = fields.Int64("gpu_total", &h.gpu_total);
  if (error) return *error;
  pool.node_pool_id = *node_pool_id;
  pool.site_id = *site_id;
  pool.name = name.value_or("");
  return pool;
}

// One pool line in `form`. A pool in the Runner's form is translated into
// hwrec's and judged by the same rules; its errors name the Runner's fields,
// and `runner` maps the names of later (catalog) errors back too.
struct PoolRecord {
  PoolOrError pool;
  std::optional<internal::RunnerFieldNames> runner;
  std::vector<FieldError> warnings;  // unknown Runner fields, ignored

  // The error's field under the name the line used.
  FieldError Named(FieldError error) const { return runner ? runner->Renamed(error) : error; }
};

PoolRecord ParsePoolRecord(const std::string& line, RecordForm form) {
  if (form == RecordForm::kHwrec) return {ParsePool(line), std::nullopt, {}};
  auto parsed = internal::ParseJsonRecord(line);
  if (auto* error = std::get_if<FieldError>(&parsed)) return {*error, std::nullopt, {}};
  const nlohmann::json& object = std::get<nlohmann::json>(parsed);
  if (form == RecordForm::kAuto && !internal::IsRunnerPool(object)) {
    return {ParsePool(line), std::nullopt, {}};
  }
  internal::RunnerTranslation runner = internal::TranslateRunnerPool(object);
  // Translation errors already carry the Runner's names.
  if (!runner.errors.empty()) return {runner.errors.front(), std::move(runner.names), {}};
  PoolRecord record{ParsePool(runner.hwrec.dump()), std::move(runner.names),
                    std::move(runner.unknown)};
  if (auto* error = std::get_if<FieldError>(&record.pool)) record.pool = record.Named(*error);
  return record;
}

Status ErrorStatus(const NodePool& pool, const FieldError& error) {
  return Status::InvalidArgument(
      fmt::format("{}: {} {}", PoolName(pool), error.field, error.reason));
}

constexpr const char* kPoolColumns =
    "node_pool_id, site_id, name, instance_type, architecture, cpu_millicores, memory_bytes, "
    "gpu_count, gpu_mode, gpu_total, gpu_brand, gpu_model";

NodePool ReadPool(SQLite::Statement& row) {
  NodePool pool;
  pool.node_pool_id = row.getColumn(0).getString();
  pool.site_id = row.getColumn(1).getString();
  pool.name = row.getColumn(2).getString();
  HardwareProfile& h = pool.hardware;
  h.instance_type = internal::ColumnOptionalText(row.getColumn(3));
  h.architecture = internal::ColumnOptionalText(row.getColumn(4));
  h.cpu_millicores = internal::ColumnOptionalInt64(row.getColumn(5));
  h.memory_bytes = internal::ColumnOptionalInt64(row.getColumn(6));
  h.gpu_count = internal::ColumnOptionalInt64(row.getColumn(7));
  h.gpu_mode = internal::ColumnOptionalText(row.getColumn(8));
  h.gpu_total = internal::ColumnOptionalInt64(row.getColumn(9));
  h.gpu_brand = internal::ColumnOptionalText(row.getColumn(10));
  h.gpu_model = internal::ColumnOptionalText(row.getColumn(11));
  return pool;
}

std::optional<NodePool> LoadPool(SQLite::Database& db, const std::string& node_pool_id) {
  SQLite::Statement query(
      db, fmt::format("SELECT {} FROM node_pools WHERE node_pool_id = ?", kPoolColumns));
  query.bind(1, node_pool_id);
  if (!query.executeStep()) return std::nullopt;
  return ReadPool(query);
}

bool SamePool(const NodePool& a, const NodePool& b) {
  return a.node_pool_id == b.node_pool_id && a.site_id == b.site_id && a.name == b.name &&
         a.hardware == b.hardware;
}

enum class Change { kRegistered, kUpdated, kUnchanged };

// Writes a resolved pool with its hp ids, inside the caller's transaction.
Result<Change> Upsert(SQLite::Database& db, const NodePool& pool) {
  const std::optional<NodePool> existing = LoadPool(db, pool.node_pool_id);
  if (existing && SamePool(*existing, pool)) return Change::kUnchanged;
  auto hp_v1 = HardwareProfileId(pool.hardware, ProfileIdVersion::kV1);
  if (!hp_v1.ok()) return hp_v1.status();
  auto hp_v2 = HardwareProfileId(pool.hardware, ProfileIdVersion::kV2);
  if (!hp_v2.ok()) return hp_v2.status();
  SQLite::Statement upsert(
      db,
      "INSERT INTO node_pools (node_pool_id, site_id, name, instance_type, architecture, "
      "cpu_millicores, memory_bytes, gpu_count, gpu_mode, gpu_total, gpu_brand, gpu_model, "
      "hp_v1, hp_v2, registered_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
      "ON CONFLICT (node_pool_id) DO UPDATE SET site_id = excluded.site_id, "
      "name = excluded.name, instance_type = excluded.instance_type, "
      "architecture = excluded.architecture, cpu_millicores = excluded.cpu_millicores, "
      "memory_bytes = excluded.memory_bytes, gpu_count = excluded.gpu_count, "
      "gpu_mode = excluded.gpu_mode, gpu_total = excluded.gpu_total, "
      "gpu_brand = excluded.gpu_brand, gpu_model = excluded.gpu_model, hp_v1 = excluded.hp_v1, "
      "hp_v2 = excluded.hp_v2, registered_at = excluded.registered_at");
  const HardwareProfile& h = pool.hardware;
  upsert.bind(1, pool.node_pool_id);
  upsert.bind(2, pool.site_id);
  upsert.bind(3, pool.name);
  internal::BindOptional(upsert, 4, h.instance_type);
  internal::BindOptional(upsert, 5, h.architecture);
  internal::BindOptional(upsert, 6, h.cpu_millicores);
  internal::BindOptional(upsert, 7, h.memory_bytes);
  internal::BindOptional(upsert, 8, h.gpu_count);
  internal::BindOptional(upsert, 9, h.gpu_mode);
  internal::BindOptional(upsert, 10, h.gpu_total);
  internal::BindOptional(upsert, 11, h.gpu_brand);
  internal::BindOptional(upsert, 12, h.gpu_model);
  upsert.bind(13, *hp_v1);
  upsert.bind(14, *hp_v2);
  upsert.bind(15, internal::NowEpochSeconds());
  upsert.exec();
  return existing ? Change::kUpdated : Change::kRegistered;
}

void Count(Change change, PoolImportSummary* summary) {
  switch (change) {
    case Change::kRegistered:
      ++summary->registered;
      break;
    case Change::kUpdated:
      ++summary->updated;
      break;
    case Change::kUnchanged:
      ++summary->unchanged;
      break;
  }
}

// The pool id of a line that failed to parse, when the line says one under `key`.
std::string PoolIdOfLine(const std::string& line, const std::string& key) {
  auto parsed = nlohmann::json::parse(line, nullptr, false);
  if (parsed.is_object()) {
    auto it = parsed.find(key);
    if (it != parsed.end() && it->is_string()) return it->get<std::string>();
  }
  return "";
}

}  // namespace

Status ValidateNodePool(const NodePool& pool, const GpuCatalog& catalog) {
  PoolOrError resolved = Resolve(pool, catalog);
  if (auto* error = std::get_if<FieldError>(&resolved)) return ErrorStatus(pool, *error);
  return Status::Ok();
}

Result<NodePool> ParseNodePoolJson(const std::string& json) {
  PoolOrError parsed = ParsePool(json);
  if (auto* error = std::get_if<FieldError>(&parsed)) {
    return Status::InvalidArgument(fmt::format("node pool: {} {}", error->field, error->reason));
  }
  return std::get<NodePool>(std::move(parsed));
}

Status RegisterNodePool(Store& store, const NodePool& pool) {
  if (Status writable = store.CheckWritable(); !writable.ok()) return writable;
  return internal::Guarded(store, "registering " + PoolName(pool), [&]() -> Status {
    SQLite::Database& db = StoreAccess::Db(store);
    internal::WriteTransaction tx(db);
    auto catalog = GpuCatalog::Load(store);
    if (!catalog.ok()) return catalog.status();
    PoolOrError resolved = Resolve(pool, *catalog);
    if (auto* error = std::get_if<FieldError>(&resolved)) return ErrorStatus(pool, *error);
    auto change = Upsert(db, std::get<NodePool>(resolved));
    if (!change.ok()) return change.status();
    tx.Commit();
    return Status::Ok();
  });
}

Result<NodePool> ParseNodePoolRecord(std::string_view json, RecordForm form) {
  PoolRecord record = ParsePoolRecord(std::string(json), form);
  if (auto* error = std::get_if<FieldError>(&record.pool)) {
    return Status::InvalidArgument(fmt::format("node pool: {} {}", error->field, error->reason));
  }
  return std::get<NodePool>(std::move(record.pool));
}

Result<NodePool> ParseRunnerNodePoolJson(std::string_view json) {
  return ParseNodePoolRecord(json, RecordForm::kRunner);
}

Result<PoolImportSummary> ImportNodePools(Store& store, std::istream& jsonl) {
  return ImportNodePools(store, jsonl, RecordForm::kHwrec);
}

Result<PoolImportSummary> ImportNodePools(Store& store, std::istream& jsonl, RecordForm form) {
  if (Status writable = store.CheckWritable(); !writable.ok()) return writable;
  return internal::Guarded(store, "importing node pools", [&]() -> Result<PoolImportSummary> {
    SQLite::Database& db = StoreAccess::Db(store);
    internal::WriteTransaction tx(db);  // pools are checked against the catalog as it is now
    auto catalog = GpuCatalog::Load(store);
    if (!catalog.ok()) return catalog.status();
    PoolImportSummary summary;
    std::string line;
    internal::LineReader reader(jsonl, kMaxPoolLineBytes);
    for (std::int64_t number = 1; reader.Next(&line); ++number) {
      if (reader.truncated()) {
        summary.errors.push_back({number, "", "json",
                                  fmt::format("the line is {} bytes, over the limit of {}: send "
                                              "one pool per line",
                                              reader.length(), kMaxPoolLineBytes)});
        continue;
      }
      if (internal::Trim(line).empty()) continue;
      PoolRecord record = ParsePoolRecord(line, form);
      if (auto* pool = std::get_if<NodePool>(&record.pool)) {
        PoolOrError resolved = Resolve(*pool, *catalog);
        if (auto* error = std::get_if<FieldError>(&resolved)) resolved = record.Named(*error);
        record.pool = std::move(resolved);
      }
      if (auto* error = std::get_if<FieldError>(&record.pool)) {
        const std::string id = PoolIdOfLine(line, record.runner ? "id" : "node_pool_id");
        summary.errors.push_back({number, id, error->field, error->reason});
        continue;
      }
      const NodePool& pool = std::get<NodePool>(record.pool);
      auto change = Upsert(db, pool);
      if (!change.ok()) return change.status();
      Count(*change, &summary);
      for (FieldError& w : record.warnings) {
        summary.warnings.push_back({number, pool.node_pool_id, w.field, std::move(w.reason)});
      }
    }
    if (jsonl.bad()) return Status::IoError("reading the node pool lines failed");
    tx.Commit();
    return summary;
  });
}

Result<std::vector<NodePool>> ListNodePools(const Store& store) {
  return internal::Guarded(store, "listing node pools", [&]() -> Result<std::vector<NodePool>> {
    SQLite::Database& db = StoreAccess::Db(store);
    if (!db.tableExists("node_pools")) {
      return Status::SchemaMismatch(
          fmt::format("{}: the store is at schema {} and has no node pools: run `hwrec migrate {}`",
                      store.path(), store.schema_version(), store.path()));
    }
    SQLite::Statement query(
        db, fmt::format("SELECT {} FROM node_pools ORDER BY site_id, node_pool_id", kPoolColumns));
    std::vector<NodePool> pools;
    while (query.executeStep()) pools.push_back(ReadPool(query));
    return pools;
  });
}

Result<std::optional<NodePool>> FindNodePool(const Store& store, const std::string& node_pool_id) {
  return internal::Guarded(store, "finding node pool " + node_pool_id,
                           [&]() -> Result<std::optional<NodePool>> {
                             return LoadPool(StoreAccess::Db(store), node_pool_id);
                           });
}

}  // namespace hwrec
