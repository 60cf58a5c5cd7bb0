// The rules a node pool is judged by, shared by every path that reads or
// registers one (RegisterNodePool, `hwrec pools import` in either form, the
// legacy migration): the JSON form's fields, and the checks against the GPU
// catalog. Pure functions; errors are RecordErrors naming the field.
#pragma once

#include <optional>
#include <string>

#include "hwrec/catalog.h"
#include "hwrec/node_pool.h"
#include "hwrec/record_error.h"
#include "hwrec/status.h"

namespace hwrec::internal {

// "node pool 'gpu-a'", or "node pool" when it has no id yet.
std::string NodePoolName(const NodePool& pool);

// Reads one JSON object in hwrec's pool form into `*out`; the first bad field
// otherwise (line 0).
std::optional<RecordError> ReadNodePoolJson(const std::string& json, NodePool* out);

// Validates `pool` and writes it to `*resolved` as it is stored: gpu_count and
// gpu_total default to 0 and gpu_brand is resolved from the catalog. The first
// problem otherwise (`*resolved` is then unspecified).
std::optional<RecordError> ResolveNodePool(const NodePool& pool, const GpuCatalog& catalog,
                                           NodePool* resolved);

// kInvalidArgument: "<pool name>: <field> <reason>".
Status NodePoolErrorStatus(const NodePool& pool, const RecordError& error);

}  // namespace hwrec::internal
