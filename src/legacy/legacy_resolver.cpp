#include "legacy/legacy_resolver.h"

#include <fmt/format.h>

#include <utility>

#include "base/text.h"
#include "store/row_values.h"

namespace hwrec::internal {

namespace {

template <typename T>
void AppendKey(std::string* key, const std::optional<T>& value) {
  if (!value) {
    key->append("\x1e", 1);
    return;
  }
  if constexpr (std::is_same_v<T, std::string>) {
    key->append(*value);
  } else {
    key->append(std::to_string(*value));
  }
  key->push_back('\x1f');
}

LegacyResolution Quarantine(const char* code, std::string reason) {
  LegacyResolution r;
  r.reason_code = code;
  r.reason = std::move(reason);
  return r;
}

std::string ClosestHint(const GpuCatalog& catalog, const std::string& name) {
  const std::vector<std::string> closest = catalog.ClosestModels(name);
  return closest.empty() ? std::string() : fmt::format(" (closest: {})", JoinOr(closest));
}

}  // namespace

LegacyResolver::LegacyResolver(GpuCatalog catalog) : catalog_(std::move(catalog)) {}

const GpuModel* LegacyResolver::FindGpuName(const std::string& name) const {
  const std::string trimmed(Trim(name));
  if (const GpuModel* model = catalog_.FindModelAnyBrand(trimmed)) return model;
  const auto space = trimmed.find(' ');
  if (space == std::string::npos) return nullptr;
  return catalog_.FindModel(trimmed.substr(0, space), Trim(trimmed.substr(space + 1)));
}

bool HasGpu(const HardwareProfile& h) {
  return h.gpu_count.value_or(0) > 0 || h.gpu_model.has_value() || h.gpu_mode.has_value();
}

std::vector<SiteNodePool> ReadSiteNodePools(store::Connection& db) {
  std::vector<SiteNodePool> pools;
  if (!db.HasTable("site_node_pools")) return pools;
  const auto query = db.Prepare(
      "SELECT node_pool_id, site_id, name, instance_type, architecture, cpu_millicores, "
      "memory_bytes, gpu_count, gpu_mode, gpu_total, gpu_name FROM site_node_pools "
      "ORDER BY node_pool_id");
  while (query->Step()) {
    SiteNodePool& pool = pools.emplace_back();
    HardwareProfile& h = pool.hardware;
    store::ReadRow(*query, &pool.node_pool_id, &pool.site_id, &pool.name, &h.instance_type,
                   &h.architecture, &h.cpu_millicores, &h.memory_bytes, &h.gpu_count, &h.gpu_mode,
                   &h.gpu_total, &pool.gpu_name);
  }
  return pools;
}

void LegacyResolver::AddLegacyPools(store::Connection& db) {
  for (SiteNodePool& row : ReadSiteNodePools(db)) {
    Pool pool;
    pool.hardware = std::move(row.hardware);
    pool.gpu_name = std::move(row.gpu_name);
    HardwareProfile& h = pool.hardware;
    const GpuModel* model = pool.gpu_name ? FindGpuName(*pool.gpu_name) : nullptr;
    if (model != nullptr) {
      h.gpu_brand = model->brand;
      h.gpu_model = model->model;
    }
    pool.gpu_unknown = HasGpu(h) && model == nullptr;
    pools_[row.node_pool_id] = std::move(pool);
  }
  cache_.clear();
}

void LegacyResolver::AddPools(const std::vector<NodePool>& pools) {
  for (const NodePool& node_pool : pools) {
    Pool pool;
    pool.hardware = node_pool.hardware;
    pool.gpu_name = node_pool.hardware.gpu_model;
    pool.gpu_unknown = HasGpu(pool.hardware) && !node_pool.hardware.gpu_model;
    pools_[node_pool.node_pool_id] = std::move(pool);
  }
  cache_.clear();
}

std::shared_ptr<const LegacyResolution> LegacyResolver::Resolve(const LegacyRow& row) {
  key_.clear();
  const HardwareProfile& h = row.hardware;
  AppendKey(&key_, row.node_pool_id);
  AppendKey(&key_, row.node_pool_gpu);
  AppendKey(&key_, h.instance_type);
  AppendKey(&key_, h.architecture);
  AppendKey(&key_, h.cpu_millicores);
  AppendKey(&key_, h.memory_bytes);
  AppendKey(&key_, h.gpu_count);
  AppendKey(&key_, h.gpu_mode);
  AppendKey(&key_, h.gpu_total);
  auto it = cache_.find(key_);
  if (it == cache_.end()) {
    if (cache_.size() > 65536) cache_.clear();  // more shapes than any fleet has
    it = cache_.emplace(key_, std::make_shared<const LegacyResolution>(ResolveUncached(row))).first;
  }
  return it->second;
}

LegacyResolution LegacyResolver::ResolveUncached(const LegacyRow& row) const {
  HardwareProfile h = row.hardware;
  if (row.node_pool_id) {
    if (auto pool = pools_.find(*row.node_pool_id); pool != pools_.end()) {
      FillShapeFromPool(&h, pool->second.hardware);
      return FromPool(row, pool->second, std::move(h));
    }
  }
  const std::string pool_note =
      row.node_pool_id ? fmt::format("node pool '{}' is not registered", *row.node_pool_id)
                       : std::string("the row names no node pool");
  if (row.node_pool_gpu) return FromRowGpu(row, std::move(h), pool_note);
  if (h.gpu_count && *h.gpu_count == 0 && !h.gpu_mode) {
    return Finish(std::move(h), nullptr, LegacyRoute::kCpuOnly);
  }
  return Quarantine(kNoPoolNoGpuName,
                    fmt::format("{} and the row carries no GPU name (node_pool_gpu): register "
                                "the pool with `hwrec migrate --pools FILE`, or attach a model "
                                "with `hwrec quarantine resolve`",
                                pool_note));
}

LegacyResolution LegacyResolver::FromPool(const LegacyRow& row, const Pool& pool,
                                          HardwareProfile h) const {
  if (pool.hardware.gpu_model) {
    if (row.node_pool_gpu) {
      const GpuModel* own = FindGpuName(*row.node_pool_gpu);
      if (own != nullptr && own->model != *pool.hardware.gpu_model) {
        return Quarantine(
            kPoolGpuConflict,
            fmt::format("the row says GPU '{}' but node pool '{}' holds {}: correct the pool, or "
                        "attach the right model with `hwrec quarantine resolve`",
                        *row.node_pool_gpu, *row.node_pool_id, *pool.hardware.gpu_model));
      }
    }
    const GpuModel* model =
        catalog_.FindModel(pool.hardware.gpu_brand.value_or(""), *pool.hardware.gpu_model);
    if (model == nullptr) model = catalog_.FindModelAnyBrand(*pool.hardware.gpu_model);
    return Finish(std::move(h), model, LegacyRoute::kNodePool);
  }
  if (!pool.gpu_unknown && !HasGpu(h)) return Finish(std::move(h), nullptr, LegacyRoute::kNodePool);
  std::string pool_note;
  if (pool.gpu_name) {
    pool_note =
        fmt::format("node pool '{}' records GPU '{}', which is not in the GPU catalog{}",
                    *row.node_pool_id, *pool.gpu_name, ClosestHint(catalog_, *pool.gpu_name));
  } else {
    pool_note = fmt::format("node pool '{}' has GPUs but no GPU model recorded", *row.node_pool_id);
  }
  if (row.node_pool_gpu) return FromRowGpu(row, std::move(h), pool_note);
  const std::string attach = pool_note +
                             " and the row carries no GPU name: attach the model with `hwrec "
                             "quarantine resolve --node-pool " +
                             *row.node_pool_id + " --gpu-model MODEL`";
  if (pool.gpu_name) return Quarantine(kGpuNameNotInCatalog, attach);
  return Quarantine(kPoolWithoutGpuModel,
                    attach +
                        ", or, when it is not known, release the rows into the unknown-model "
                        "population with `--gpu-model unknown`");
}

LegacyResolution LegacyResolver::FromRowGpu(const LegacyRow& row, HardwareProfile h,
                                            const std::string& pool_note) const {
  const GpuModel* model = FindGpuName(*row.node_pool_gpu);
  if (model == nullptr) {
    return Quarantine(
        kGpuNameNotInCatalog,
        fmt::format("{}, and the row's GPU name '{}' is not in the GPU catalog{}: add the card "
                    "with `hwrec catalog import`, or attach the catalog model with `hwrec "
                    "quarantine resolve --gpu-name '{}' --gpu-model MODEL`",
                    pool_note, *row.node_pool_gpu, ClosestHint(catalog_, *row.node_pool_gpu),
                    *row.node_pool_gpu));
  }
  return Finish(std::move(h), model, LegacyRoute::kRowGpu);
}

LegacyResolution LegacyResolver::ResolveWithModel(const LegacyRow& row,
                                                  const GpuModel& model) const {
  HardwareProfile h = row.hardware;
  if (row.node_pool_id) {
    if (auto pool = pools_.find(*row.node_pool_id); pool != pools_.end()) {
      FillShapeFromPool(&h, pool->second.hardware);
    }
  }
  return Finish(std::move(h), &model, LegacyRoute::kOperator);
}

LegacyResolution LegacyResolver::ResolveWithUnknownModel(const LegacyRow& row,
                                                         int total_compute_slices,
                                                         const std::string& kept_code) const {
  LegacyResolution out;
  out.route = LegacyRoute::kOperator;
  HardwareProfile& h = out.resolved.hardware;
  h = row.hardware;
  const Pool* pool = nullptr;
  if (row.node_pool_id) {
    if (auto found = pools_.find(*row.node_pool_id); found != pools_.end()) pool = &found->second;
  }
  if (pool != nullptr) {
    FillShapeFromPool(&h, pool->hardware);
    if (!h.gpu_brand) h.gpu_brand = pool->hardware.gpu_brand;  // as ingest takes it
  }
  std::string recorded;
  if (row.node_pool_gpu) {
    recorded = fmt::format("the row records GPU '{}'", *row.node_pool_gpu);
  } else if (pool != nullptr && (pool->gpu_name || pool->hardware.gpu_model)) {
    recorded = fmt::format("node pool '{}' records GPU '{}'", *row.node_pool_id,
                           pool->gpu_name ? *pool->gpu_name : *pool->hardware.gpu_model);
  }
  if (!recorded.empty()) {
    return Quarantine(kept_code.c_str(),
                      recorded +
                          ", so the row belongs to that card, not the unknown-model population: "
                          "attach its catalog model with `hwrec quarantine resolve --gpu-model "
                          "MODEL`, or add the card with `hwrec catalog import`");
  }
  if (!HasGpu(h)) {
    return Quarantine(kept_code.c_str(),
                      "the row records no GPU (no gpu_count above 0, no gpu_mode), so it is not "
                      "of the unknown-model GPU population: set its gpu_count in "
                      "legacy_quarantine (0 for a node without GPUs) and resolve it again");
  }
  if (auto error = ResolveUnknownModelMode(total_compute_slices, &out.resolved)) {
    return Quarantine(kModeNotAPartition, fmt::format("gpu_mode {}", error->reason));
  }
  SetIds(&out);
  return out;
}

bool LegacyResolver::SetIds(LegacyResolution* out) {
  ResolvedHardware& r = out->resolved;
  auto v1 = HardwareProfileId(r.hardware, ProfileIdVersion::kV1);
  auto v2 = HardwareProfileId(r.hardware, ProfileIdVersion::kV2);
  if (!v1.ok() || !v2.ok()) {
    *out = Quarantine(kInvalidField, "hardware: " + (v1.ok() ? v2 : v1).status().message());
    return false;
  }
  r.hp_v1 = std::move(v1).value();
  r.hp_v2 = std::move(v2).value();
  return true;
}

// Brand and model set, the mode checked against the card, the share of one
// card the mode stands for, and the hp:v1 / hp:v2 ids.
LegacyResolution LegacyResolver::Finish(HardwareProfile h, const GpuModel* model,
                                        LegacyRoute route) const {
  LegacyResolution out;
  out.route = route;
  ResolvedHardware& r = out.resolved;
  if (model != nullptr) {
    h.gpu_brand = model->brand;
    h.gpu_model = model->model;
    r.card_memory_gb = model->memory_gb;
    if (h.gpu_mode) {
      const GpuPartition* partition =
          catalog_.FindPartition(model->brand, model->model, *h.gpu_mode);
      if (partition == nullptr) {
        std::vector<std::string> modes;
        for (const GpuPartition& p : model->partitions) modes.push_back(p.mode);
        return Quarantine(kModeNotAPartition,
                          fmt::format("gpu_mode '{}' is not a partition of {} {}: use {}, or "
                                      "attach another model with `hwrec quarantine resolve`",
                                      *h.gpu_mode, model->brand, model->model, JoinOr(modes)));
      }
      r.mode_fraction = partition->compute_fraction;
      r.mode_source = FractionSource::kCatalog;
    }
  }
  r.hardware = std::move(h);
  SetIds(&out);
  return out;
}

}  // namespace hwrec::internal
