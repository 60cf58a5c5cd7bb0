// LegacyResolver: decides where each legacy row goes. A row resolves through
// its node pool (registered, given with the migration, or the legacy
// site_node_pools table when its GPU name is a catalog spelling), else through
// its own GPU name (node_pool_gpu) looked up in the catalog, else it is
// quarantined with a reason. Results are cached per distinct hardware shape,
// so a million rows cost a few dozen resolutions. One thread at a time.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "hwrec/catalog.h"
#include "hwrec/node_pool.h"
#include "ingest/hardware_resolver.h"
#include "legacy/legacy_row.h"

namespace hwrec::internal {

enum class LegacyRoute { kNodePool, kRowGpu, kCpuOnly, kOperator, kQuarantine };

struct LegacyResolution {
  LegacyRoute route = LegacyRoute::kQuarantine;
  std::string reason_code;  // when quarantined
  std::string reason;
  ResolvedHardware resolved;  // when not quarantined
};

// One row of the legacy site_node_pools table, as recorded.
struct SiteNodePool {
  std::string node_pool_id;
  std::string site_id;
  std::string name;
  HardwareProfile hardware;  // no brand or model: the row names its GPU in gpu_name
  std::optional<std::string> gpu_name;
};

// Whether hardware has a GPU: a GPU count above 0, a model or a GPU mode.
bool HasGpu(const HardwareProfile& h);

// Every row of site_node_pools, by node_pool_id; none when the table is absent.
std::vector<SiteNodePool> ReadSiteNodePools(store::Connection& db);

class LegacyResolver {
 public:
  explicit LegacyResolver(GpuCatalog catalog);

  // Pools of the legacy site_node_pools table; a later AddPools of the same id wins.
  void AddLegacyPools(store::Connection& db);
  void AddPools(const std::vector<NodePool>& pools);

  // Shared with the cache: a pipeline may hold it while later rows resolve.
  std::shared_ptr<const LegacyResolution> Resolve(const LegacyRow& row);
  // `row` with the GPU model an operator attached (quarantine resolve).
  LegacyResolution ResolveWithModel(const LegacyRow& row, const GpuModel& model) const;
  // `row` released by an operator into the shared unknown-model population
  // (quarantine resolve with the `unknown` model): no model, and the brand
  // only from a registered pool, as ingest stores a GPU of unknown model, its
  // gpu_mode's share assumed from `total_compute_slices`. A row that records
  // a GPU name (its own, or its pool's) or a GPU model, or that records no
  // GPU, is not of that population: it stays under `kept_code`, with why.
  LegacyResolution ResolveWithUnknownModel(const LegacyRow& row, int total_compute_slices,
                                           const std::string& kept_code) const;

  const GpuCatalog& catalog() const { return catalog_; }
  // The catalog model a free-text GPU name stands for: the model's spelling,
  // or "<brand> <model>"; nullptr when it is neither.
  const GpuModel* FindGpuName(const std::string& name) const;

 private:
  struct Pool {
    HardwareProfile hardware;             // brand and model set when the GPU model is known
    std::optional<std::string> gpu_name;  // as the legacy table recorded it
    bool gpu_unknown = false;             // has a GPU whose model is not known
  };

  LegacyResolution ResolveUncached(const LegacyRow& row) const;
  LegacyResolution Finish(HardwareProfile hardware, const GpuModel* model, LegacyRoute route) const;
  // The ids of resolved hardware `*out` holds; false, with `*out` quarantined, when they fail.
  static bool SetIds(LegacyResolution* out);
  LegacyResolution FromPool(const LegacyRow& row, const Pool& pool, HardwareProfile h) const;
  LegacyResolution FromRowGpu(const LegacyRow& row, HardwareProfile h,
                              const std::string& pool_note) const;

  GpuCatalog catalog_;
  std::unordered_map<std::string, Pool> pools_;
  std::unordered_map<std::string, std::shared_ptr<const LegacyResolution>> cache_;
  std::string key_;  // reused cache key
};

// Reason codes of quarantined rows.
inline constexpr const char* kNoPoolNoGpuName = "no_pool_no_gpu_name";
inline constexpr const char* kGpuNameNotInCatalog = "gpu_name_not_in_catalog";
inline constexpr const char* kPoolWithoutGpuModel = "pool_without_gpu_model";
inline constexpr const char* kPoolGpuConflict = "pool_gpu_conflict";
inline constexpr const char* kModeNotAPartition = "mode_not_a_partition";
inline constexpr const char* kInvalidField = "invalid_field";
inline constexpr const char* kAlreadyStored = "execution_already_stored";

}  // namespace hwrec::internal
