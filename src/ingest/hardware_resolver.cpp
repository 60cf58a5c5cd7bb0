#include "ingest/hardware_resolver.h"

#include <fmt/format.h>

#include <functional>
#include <utility>

#include "base/text.h"
#include "hardware/gpu_mode.h"
#include "hwrec/remedy.h"

namespace hwrec::internal {

namespace {

// More distinct hardware shapes than any fleet has; past it the cache restarts.
constexpr std::size_t kMaxCachedShapes = 4096;

template <typename T>
void FillFrom(std::optional<T>* field, const std::optional<T>& pool_value) {
  if (!field->has_value()) *field = pool_value;
}

// Ingest takes the pool's brand and model too, when the record has none.
void FillFromPool(HardwareProfile* h, const HardwareProfile& pool) {
  FillShapeFromPool(h, pool);
  FillFrom(&h->gpu_brand, pool.gpu_brand);
  FillFrom(&h->gpu_model, pool.gpu_model);
}

std::string Quoted(const std::string& value) { return fmt::format("\"{}\"", value); }
std::string Quoted(std::int64_t value) { return std::to_string(value); }

template <typename T>
std::optional<FieldError> Differs(const char* field, const std::optional<T>& sent,
                                  const std::optional<T>& registered, const std::string& pool_id) {
  if (!sent || !registered || *sent == *registered) return std::nullopt;
  return FieldError{
      fmt::format("hardware.{}", field),
      fmt::format("hardware.{} is {} but node pool {} has {}: send the pool's value or leave "
                  "the field out (missing hardware is taken from the pool), or register the pool "
                  "again if its hardware changed",
                  field, Quoted(*sent), pool_id, Quoted(*registered))};
}

// The first field the record and its registered pool both hold with different
// values (the card first, then the shape): merging them would describe
// hardware that is neither.
std::optional<FieldError> Contradiction(const HardwareProfile& sent, const HardwareProfile& pool,
                                        const std::string& pool_id) {
  std::optional<FieldError> e;
  if (!e) e = Differs("gpu_model", sent.gpu_model, pool.gpu_model, pool_id);
  if (!e) e = Differs("gpu_brand", sent.gpu_brand, pool.gpu_brand, pool_id);
  if (!e) e = Differs("instance_type", sent.instance_type, pool.instance_type, pool_id);
  if (!e) e = Differs("architecture", sent.architecture, pool.architecture, pool_id);
  if (!e) e = Differs("cpu_millicores", sent.cpu_millicores, pool.cpu_millicores, pool_id);
  if (!e) e = Differs("memory_bytes", sent.memory_bytes, pool.memory_bytes, pool_id);
  if (!e) e = Differs("gpu_count", sent.gpu_count, pool.gpu_count, pool_id);
  if (!e) e = Differs("gpu_mode", sent.gpu_mode, pool.gpu_mode, pool_id);
  if (!e) e = Differs("gpu_total", sent.gpu_total, pool.gpu_total, pool_id);
  return e;
}

}  // namespace

void FillShapeFromPool(HardwareProfile* h, const HardwareProfile& pool) {
  FillFrom(&h->instance_type, pool.instance_type);
  FillFrom(&h->architecture, pool.architecture);
  FillFrom(&h->cpu_millicores, pool.cpu_millicores);
  FillFrom(&h->memory_bytes, pool.memory_bytes);
  FillFrom(&h->gpu_count, pool.gpu_count);
  FillFrom(&h->gpu_mode, pool.gpu_mode);
  FillFrom(&h->gpu_total, pool.gpu_total);
}

namespace {

std::string ValidModes(const GpuModel& model) {
  std::vector<std::string> modes;
  for (const GpuPartition& partition : model.partitions) modes.push_back(partition.mode);
  return JoinOr(modes);
}

}  // namespace

std::size_t HardwareResolver::CacheKeyHash::operator()(const CacheKey& key) const {
  std::size_t seed = 0;
  auto mix = [&seed](std::size_t value) {
    seed ^= value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
  };
  const HardwareProfile& h = key.hardware;
  mix(std::hash<std::optional<std::string>>()(key.node_pool_id));
  mix(std::hash<std::optional<std::string>>()(h.instance_type));
  mix(std::hash<std::optional<std::string>>()(h.architecture));
  mix(std::hash<std::optional<std::int64_t>>()(h.cpu_millicores));
  mix(std::hash<std::optional<std::int64_t>>()(h.memory_bytes));
  mix(std::hash<std::optional<std::int64_t>>()(h.gpu_count));
  mix(std::hash<std::optional<std::string>>()(h.gpu_mode));
  mix(std::hash<std::optional<std::int64_t>>()(h.gpu_total));
  mix(std::hash<std::optional<std::string>>()(h.gpu_brand));
  mix(std::hash<std::optional<std::string>>()(h.gpu_model));
  return seed;
}

HardwareResolver::HardwareResolver(const GpuCatalog& catalog, PoolLookup pools,
                                   int total_compute_slices)
    : catalog_(catalog), lookup_(std::move(pools)), total_compute_slices_(total_compute_slices) {}

const HardwareProfile* HardwareResolver::PoolHardware(const std::string& id) {
  auto it = pools_.find(id);
  if (it == pools_.end()) {
    // Kept as long as the Ingestor: ids a stream names, unregistered ones too.
    if (pools_.size() >= kMaxCachedShapes) pools_.clear();
    it = pools_.emplace(id, lookup_(id)).first;
  }
  return it->second ? &*it->second : nullptr;
}

const ResolvedHardware* HardwareResolver::Resolve(const Observation& observation,
                                                  FieldError* error) {
  CacheKey key{observation.node_pool_id, observation.hardware};
  auto it = cache_.find(key);
  if (it == cache_.end()) {
    if (cache_.size() >= kMaxCachedShapes) cache_.clear();
    Resolution resolution = ResolveUncached(key);
    it = cache_.emplace(std::move(key), std::move(resolution)).first;
  }
  if (const auto* failed = std::get_if<FieldError>(&it->second)) {
    *error = *failed;
    return nullptr;
  }
  return &std::get<ResolvedHardware>(it->second);
}

HardwareResolver::Resolution HardwareResolver::ResolveUncached(const CacheKey& key) {
  ResolvedHardware out;
  out.hardware = key.hardware;
  if (key.node_pool_id) {
    // An unregistered pool is recorded as sent: the record's own hardware stands.
    if (const HardwareProfile* pool = PoolHardware(*key.node_pool_id); pool != nullptr) {
      if (auto error = Contradiction(out.hardware, *pool, *key.node_pool_id)) return *error;
      FillFromPool(&out.hardware, *pool);
    } else {
      out.pool_unregistered = true;
    }
  }
  const GpuModel* model = nullptr;
  if (auto error = ResolveModel(&out.hardware, &model)) return *error;
  if (auto error = ResolveMode(model, &out)) return *error;
  if (model != nullptr) out.card_memory_gb = model->memory_gb;
  auto v1 = HardwareProfileId(out.hardware, ProfileIdVersion::kV1);
  auto v2 = HardwareProfileId(out.hardware, ProfileIdVersion::kV2);
  if (!v1.ok()) return FieldError{"hardware", v1.status().message()};
  if (!v2.ok()) return FieldError{"hardware", v2.status().message()};
  out.hp_v1 = std::move(v1).value();
  out.hp_v2 = std::move(v2).value();
  return out;
}

// A GPU model must be spelled as in the catalog; a missing brand is taken from
// it. No model at all is the shared "unknown" population: never guessed.
std::optional<FieldError> HardwareResolver::ResolveModel(HardwareProfile* h,
                                                         const GpuModel** model) const {
  if (!h->gpu_model) return std::nullopt;
  catalog_.FillBrand(h);
  const std::string& name = *h->gpu_model;
  if (h->gpu_brand) *model = catalog_.FindModel(*h->gpu_brand, name);
  if (*model != nullptr) return std::nullopt;
  if (const GpuModel* other = catalog_.FindModelAnyBrand(name)) {
    return FieldError{"hardware.gpu_brand",
                      fmt::format("'{}' is not the brand of {} in the GPU catalog: use {} or "
                                  "leave gpu_brand out",
                                  *h->gpu_brand, name, other->brand)};
  }
  const std::vector<std::string> closest = catalog_.ClosestModels(name);
  const std::string hint =
      closest.empty() ? std::string() : fmt::format(" (closest: {})", JoinOr(closest));
  return FieldError{"hardware.gpu_model",
                    fmt::format("'{}' is not in the GPU catalog{}: use the catalog spelling "
                                "({}), add the card with {}, or leave gpu_model out when it "
                                "is not known",
                                name, hint, RemedyText(Remedy::kCatalogList),
                                RemedyText(Remedy::kCatalogImport))};
}

// The share of one card that gpu_mode stands for: the catalog's partition when
// the model is known, else N / total_compute_slices for mig-<N>g.* (assumed).
std::optional<FieldError> HardwareResolver::ResolveMode(const GpuModel* model,
                                                        ResolvedHardware* out) const {
  const HardwareProfile& h = out->hardware;
  if (!h.gpu_mode) return std::nullopt;
  const std::string& mode = *h.gpu_mode;
  if (model != nullptr) {
    const GpuPartition* partition = catalog_.FindPartition(model->brand, model->model, mode);
    if (partition == nullptr) {
      return FieldError{"hardware.gpu_mode",
                        fmt::format("'{}' is not a partition of {} {}: use {}", mode, model->brand,
                                    model->model, ValidModes(*model))};
    }
    out->mode_fraction = partition->compute_fraction;
    out->mode_source = FractionSource::kCatalog;
    out->partition_memory_gb = partition->memory_gb;
    return std::nullopt;
  }
  return ResolveUnknownModelMode(total_compute_slices_, out);
}

std::optional<FieldError> ResolveUnknownModelMode(int total_compute_slices, ResolvedHardware* out) {
  if (!out->hardware.gpu_mode) return std::nullopt;
  const std::string& mode = *out->hardware.gpu_mode;
  if (mode == "full") {
    out->mode_fraction = 1.0;
    out->mode_source = FractionSource::kAssumed;
    return std::nullopt;
  }
  const std::optional<int> slices = MigComputeSlices(mode);
  if (!slices) {
    return FieldError{"hardware.gpu_mode",
                      fmt::format("'{}' is not a GPU mode: use full or mig-<N>g.<memory>, e.g. "
                                  "mig-3g.40gb",
                                  mode)};
  }
  if (*slices > total_compute_slices) {
    return FieldError{"hardware.gpu_mode",
                      fmt::format("'{}' holds {} compute slices but a card of unknown model is "
                                  "assumed to have {} (config total_compute_slices): check the "
                                  "mode or record the pool's GPU model",
                                  mode, *slices, total_compute_slices)};
  }
  out->mode_fraction = static_cast<double>(*slices) / total_compute_slices;
  out->mode_source = FractionSource::kAssumed;
  return std::nullopt;
}

}  // namespace hwrec::internal
