// Node pools: where executions run, with the hardware each pool offers.
// Pools are registered by the operator (`hwrec pools import`) and resolve the
// hardware of observations that name only their pool. A pool whose GPU model is
// not recorded is kept and marked unknown: hwrec never guesses it.
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <vector>

#include "hwrec/hardware_profile.h"
#include "hwrec/status.h"

namespace hwrec {

class Store;
class GpuCatalog;
enum class RecordForm;

struct NodePool {
  std::string node_pool_id;  // unique across sites
  std::string site_id;
  std::string name;
  HardwareProfile hardware;  // instance_type … gpu_model; ids are derived from it

  bool gpu_model_known() const { return hardware.gpu_model.has_value(); }
};

// Checks a pool against the catalog: required fields, non-negative sizes,
// a known GPU model (the error lists the closest catalog spellings) and a
// gpu_mode that is a partition of that model.
Status ValidateNodePool(const NodePool& pool, const GpuCatalog& catalog);

// Parses one JSON object with the fields site_id, node_pool_id, name,
// instance_type, architecture, cpu_millicores, memory_bytes, gpu_brand,
// gpu_model, gpu_count, gpu_mode, gpu_total.
Result<NodePool> ParseNodePoolJson(const std::string& json);

// Inserts or replaces one pool after validating it.
Status RegisterNodePool(Store& store, const NodePool& pool);

struct PoolImportError {
  std::int64_t line = 0;
  std::string node_pool_id;  // empty when the line could not be read that far
  std::string field;
  std::string reason;
};

struct PoolImportSummary {
  std::int64_t registered = 0;  // new pools
  std::int64_t updated = 0;     // pools whose registration changed
  std::int64_t unchanged = 0;
  std::vector<PoolImportError> errors;
  // Pools registered with a remark: a RunnerNodePool field hwrec does not
  // know (ignored), with the closest known name in `reason`.
  std::vector<PoolImportError> warnings;
};

// Imports JSON lines (one pool per line; blank lines skipped). Good lines are
// registered in one transaction; bad ones are reported with their line.
Result<PoolImportSummary> ImportNodePools(Store& store, std::istream& jsonl);
// The same for pools in `form`: hwrec's, the Runner's RunnerNodePool
// (docs/RUNNER.md), or told apart per line.
Result<PoolImportSummary> ImportNodePools(Store& store, std::istream& jsonl, RecordForm form);

Result<std::vector<NodePool>> ListNodePools(const Store& store);
Result<std::optional<NodePool>> FindNodePool(const Store& store, const std::string& node_pool_id);

}  // namespace hwrec
