// HardwareResolver: completes an observation's hardware for ingest. Missing
// fields come from the registered node pool, the GPU brand from the catalog;
// the GPU model and mode are checked against the catalog, the compute share a
// gpu_mode stands for is derived, and the hp:v1 / hp:v2 ids are computed.
// Results are cached per (pool, hardware as sent). One thread at a time.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "hwrec/catalog.h"
#include "hwrec/node_pool.h"
#include "hwrec/observation.h"

namespace hwrec::internal {

struct ResolvedHardware {
  HardwareProfile hardware;             // what is stored with the observation
  std::optional<double> mode_fraction;  // the share of one card gpu_mode stands for
  FractionSource mode_source = FractionSource::kNone;
  std::optional<double> card_memory_gb;       // the whole card's memory, when the model is known
  std::optional<double> partition_memory_gb;  // what one gpu_mode partition holds, when known
  bool pool_unregistered = false;             // a node_pool_id was sent that no registered pool has
  std::string hp_v1;
  std::string hp_v2;
};

// Fills what `h` did not record of the pool's shape (instance type through
// gpu_total); brand and model are left to the caller's own rules.
void FillShapeFromPool(HardwareProfile* h, const HardwareProfile& pool);

// The share of one card out->hardware.gpu_mode stands for when the card's
// model is not known (the shared unknown population, never guessed): 1 for
// `full`, N / total_compute_slices for mig-<N>g.*, both `assumed`. Nothing
// for no mode; an error naming hardware.gpu_mode for a mode that is neither,
// or that holds more slices than assumed.
std::optional<FieldError> ResolveUnknownModelMode(int total_compute_slices, ResolvedHardware* out);

class HardwareResolver {
 public:
  // A registered pool's hardware by its id; nullopt when no pool has the id.
  using PoolLookup = std::function<std::optional<HardwareProfile>(const std::string&)>;

  // `pools` is asked once per pool id a record names (misses too), so that a
  // record costs one pool, not the whole inventory. `total_compute_slices`
  // divides MIG modes of cards the catalog does not know.
  // `catalog` (the Ingestor's kept one) must outlive the resolver.
  HardwareResolver(const GpuCatalog& catalog, PoolLookup pools, int total_compute_slices);

  // The resolved hardware, or nullptr with `*error` naming the field at fault.
  // The pointer stays valid until the next call.
  const ResolvedHardware* Resolve(const Observation& observation, FieldError* error);

 private:
  struct CacheKey {
    std::optional<std::string> node_pool_id;
    HardwareProfile hardware;
    bool operator==(const CacheKey& other) const {
      return node_pool_id == other.node_pool_id && hardware == other.hardware;
    }
  };
  struct CacheKeyHash {
    std::size_t operator()(const CacheKey& key) const;
  };
  using Resolution = std::variant<ResolvedHardware, FieldError>;

  Resolution ResolveUncached(const CacheKey& key);
  // The hardware of pool `id`, or nullptr when it is not registered.
  const HardwareProfile* PoolHardware(const std::string& id);
  std::optional<FieldError> ResolveModel(HardwareProfile* hardware, const GpuModel** model) const;
  std::optional<FieldError> ResolveMode(const GpuModel* model, ResolvedHardware* out) const;

  const GpuCatalog& catalog_;
  PoolLookup lookup_;
  std::unordered_map<std::string, std::optional<HardwareProfile>> pools_;
  int total_compute_slices_;
  std::unordered_map<CacheKey, Resolution, CacheKeyHash> cache_;
};

}  // namespace hwrec::internal
