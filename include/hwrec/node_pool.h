// Node pools: where executions run, with the hardware each pool offers.
// Pools are registered by the operator (`hwrec pools import`) and resolve the
// hardware of observations that name only their pool. A pool whose GPU model is
// not recorded is kept and marked unknown: hwrec never guesses it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hwrec/export.h"
#include "hwrec/hardware_profile.h"
#include "hwrec/status.h"

namespace hwrec {

class Store;
class GpuCatalog;

struct HWREC_EXPORT NodePool {
  std::string node_pool_id;  // unique across sites
  std::string site_id;
  std::string name;
  HardwareProfile hardware;  // instance_type … gpu_model; ids are derived from it

  bool gpu_model_known() const { return hardware.gpu_model.has_value(); }
};

// Checks a pool against the catalog: required fields, non-negative sizes,
// a known GPU model (the error lists the closest catalog spellings) and a
// gpu_mode that is a partition of that model. Returns kInvalidArgument naming
// the pool and the first bad field.
HWREC_EXPORT Status ValidateNodePool(const NodePool& pool, const GpuCatalog& catalog);

// Parses one JSON object with the fields site_id, node_pool_id, name,
// instance_type, architecture, cpu_millicores, memory_bytes, gpu_brand,
// gpu_model, gpu_count, gpu_mode, gpu_total. Returns kInvalidArgument naming
// the first bad field ("node pool: <field> <reason>").
HWREC_EXPORT Result<NodePool> ParseNodePoolJson(const std::string& json);

// Inserts or updates one pool after validating it against the store's
// catalog. Returns kReadOnly or kSchemaMismatch when the store cannot be
// written (Store::CheckWritable), kInvalidArgument as ValidateNodePool,
// kIoError when the store fails.
HWREC_EXPORT Status RegisterNodePool(Store& store, const NodePool& pool);

// Every registered pool, by site then id. Returns kSchemaMismatch when the
// store predates node pools (run `hwrec migrate`), kIoError when it fails.
HWREC_EXPORT Result<std::vector<NodePool>> ListNodePools(const Store& store);
// The pool registered as `node_pool_id`, or nullopt. Returns kIoError when the
// store fails.
HWREC_EXPORT Result<std::optional<NodePool>> FindNodePool(const Store& store,
                                                          const std::string& node_pool_id);

}  // namespace hwrec
