#include "hardware/node_pool_rules.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <variant>

#include "base/json_fields.h"
#include "base/text.h"
#include "hardware/gpu_mode.h"
#include "hwrec/remedy.h"

namespace hwrec::internal {

namespace {

std::optional<RecordError> CheckIdsAndSizes(const NodePool& pool) {
  for (const auto& [field, id] :
       {std::pair<const char*, const std::string*>{"node_pool_id", &pool.node_pool_id},
        {"site_id", &pool.site_id}}) {
    if (Trim(*id).empty()) return RecordError{field, "is missing: it is required"};
    if (auto problem = TextProblem(*id)) return RecordError{field, std::move(*problem)};
  }
  const HardwareProfile& h = pool.hardware;
  // Names that key the store's rows: bounded as an observation's are.
  for (const auto& [field, name] :
       {std::pair<const char*, const std::string*>{"node_pool_id", &pool.node_pool_id},
        {"site_id", &pool.site_id},
        {"instance_type", h.instance_type ? &*h.instance_type : nullptr},
        {"gpu_brand", h.gpu_brand ? &*h.gpu_brand : nullptr},
        {"gpu_model", h.gpu_model ? &*h.gpu_model : nullptr}}) {
    if (name == nullptr) continue;
    if (auto problem = KeyLengthProblem(*name, kMaxKeyNameBytes)) {
      return RecordError{field, std::move(*problem)};
    }
  }
  const std::pair<const char*, const std::optional<std::int64_t>*> sizes[] = {
      {"cpu_millicores", &h.cpu_millicores},
      {"memory_bytes", &h.memory_bytes},
      {"gpu_count", &h.gpu_count},
      {"gpu_total", &h.gpu_total}};
  for (const auto& [field, value] : sizes) {
    if (value->has_value() && **value < 0) {
      return RecordError{field, fmt::format("is {}: it must be zero or more", **value)};
    }
  }
  // gpu_total counts every GPU (card or partition) of a node; 0 is not recorded.
  if (h.gpu_count.value_or(0) > h.gpu_total.value_or(0) && h.gpu_total.value_or(0) > 0) {
    return RecordError{"gpu_count",
                       fmt::format("is {}, more than gpu_total {}: gpu_total counts every GPU (or "
                                   "partition) of the node, so send gpu_count <= gpu_total",
                                   *h.gpu_count, *h.gpu_total)};
  }
  return std::nullopt;
}

// A pool without GPUs must not describe any.
std::optional<RecordError> CheckCpuOnly(const HardwareProfile& h) {
  auto fail = [](const char* field) {
    return RecordError{field,
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

std::optional<RecordError> UnknownModel(const HardwareProfile& h, const GpuCatalog& catalog) {
  if (h.gpu_brand) {
    if (const GpuModel* other = catalog.FindModelAnyBrand(*h.gpu_model)) {
      return RecordError{"gpu_brand", fmt::format("'{}' has no {}: the catalog lists it under '{}'",
                                                  *h.gpu_brand, *h.gpu_model, other->brand)};
    }
  }
  const std::vector<std::string> closest = catalog.ClosestModels(*h.gpu_model);
  const std::string hint = closest.empty()
                               ? "see " + RemedyText(Remedy::kCatalogList) +
                                     ", or leave gpu_model out when the card is not known"
                               : "did you mean " + JoinOr(closest) + "?";
  return RecordError{"gpu_model",
                     fmt::format("'{}' is not in the GPU catalog: {}", *h.gpu_model, hint)};
}

std::optional<RecordError> CheckBrand(const HardwareProfile& h, const GpuCatalog& catalog) {
  if (!h.gpu_brand) return std::nullopt;
  std::vector<std::string> brands;
  for (const GpuModel& m : catalog.models()) {
    if (m.brand == *h.gpu_brand) return std::nullopt;
    if (std::find(brands.begin(), brands.end(), m.brand) == brands.end()) brands.push_back(m.brand);
  }
  return RecordError{"gpu_brand", fmt::format("'{}' is not a brand in the GPU catalog: use {}",
                                              *h.gpu_brand, JoinOr(brands))};
}

// Checks the GPU fields of a pool with GPUs; fills gpu_brand from the catalog
// when only gpu_model is given. A pool without gpu_mode (older registrations)
// has unknown partitioning, as one without gpu_model has an unknown card.
std::optional<RecordError> ResolveGpu(HardwareProfile* h, const GpuCatalog& catalog) {
  if (!h->gpu_mode) {
    if (!h->gpu_model) return CheckBrand(*h, catalog);
    const GpuModel* model = h->gpu_brand ? catalog.FindModel(*h->gpu_brand, *h->gpu_model)
                                         : catalog.FindModelAnyBrand(*h->gpu_model);
    if (model == nullptr) return UnknownModel(*h, catalog);
    h->gpu_brand = model->brand;
    return std::nullopt;
  }
  if (!h->gpu_model) {  // an unknown model: allowed, but the rest must still make sense
    if (!IsGpuModeSyntax(*h->gpu_mode)) {
      return RecordError{"gpu_mode", fmt::format("is '{}': use full or mig-<profile>, e.g. "
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
    return RecordError{"gpu_mode",
                       fmt::format("'{}' is not a partition of {} {}: use {}", *h->gpu_mode,
                                   model->brand, model->model, JoinOr(ModesOf(*model)))};
  }
  return std::nullopt;
}

}  // namespace

std::optional<RecordError> ResolveNodePool(const NodePool& pool, const GpuCatalog& catalog,
                                           NodePool* resolved) {
  if (auto error = CheckIdsAndSizes(pool)) return error;
  *resolved = pool;
  HardwareProfile& h = resolved->hardware;
  h.gpu_count = h.gpu_count.value_or(0);
  h.gpu_total = h.gpu_total.value_or(0);
  auto error = *h.gpu_count == 0 ? CheckCpuOnly(h) : ResolveGpu(&h, catalog);
  if (error) return error;
  if (!CanonicalProfile(h, ProfileIdVersion::kV2).ok()) {
    return RecordError{"hardware", "has a string that is not valid UTF-8: send UTF-8 text"};
  }
  return std::nullopt;
}

namespace {

std::optional<RecordError> RequiredText(const JsonFields& fields, std::string_view key,
                                        std::optional<std::string>* out) {
  if (auto error = fields.Required(key)) return error;
  if (auto error = fields.String(key, out, true)) return error;
  if (Trim(**out).empty()) return RecordError{fields.Path(key), "is empty: it is required"};
  if (auto problem = TextProblem(**out)) {
    return RecordError{fields.Path(key), std::move(*problem)};
  }
  return std::nullopt;
}

}  // namespace

std::optional<RecordError> ReadNodePoolJson(const std::string& json, NodePool* out) {
  auto parsed = ParseJsonRecord(json);
  if (auto* error = std::get_if<RecordError>(&parsed)) return *error;
  JsonFields fields(std::get<nlohmann::json>(parsed));
  NodePool pool;
  HardwareProfile& h = pool.hardware;
  std::optional<std::string> site_id, node_pool_id, name;
  std::optional<RecordError> error = fields.RejectUnknown(
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
  if (error) return error;
  pool.node_pool_id = *node_pool_id;
  pool.site_id = *site_id;
  pool.name = name.value_or("");
  *out = std::move(pool);
  return std::nullopt;
}

std::string NodePoolName(const NodePool& pool) {
  return pool.node_pool_id.empty() ? "node pool" : fmt::format("node pool '{}'", pool.node_pool_id);
}

Status NodePoolErrorStatus(const NodePool& pool, const RecordError& error) {
  return Status::InvalidArgument(
      fmt::format("{}: {} {}", NodePoolName(pool), error.field, error.reason));
}

}  // namespace hwrec::internal
