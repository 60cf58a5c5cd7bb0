// The placement evaluator's JSON forms: the versioned payload an external
// scheduler reads (hwrec.placement/v1), and the inputs the CLI and Python take
// (declared resources, candidate pools). Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "hwrec/export.h"
#include "hwrec/placement_result.h"
#include "hwrec/status.h"

namespace hwrec {

// The versioned payload for an external scheduler: {"schema":
// "hwrec.placement/v1", "workload", "policy", "as_of", "candidates": [ranked
// entries with node_pool_id, feasible, reason, notes, request, needs, waste,
// provenance], "chosen": {node_pool_id, request} or null}.
HWREC_EXPORT std::string PlacementToJson(const PlacementResult& result, int indent = -1);
// Reads a payload PlacementToJson wrote. Returns kInvalidArgument for text that
// is not such a payload or names another schema version.
HWREC_EXPORT Result<PlacementResult> ParsePlacementJson(const std::string& json);

// Reads `{"gpu_count": n, "gpu_brand": "...", "gpu_model": "...", "architecture":
// "...", "gpu_memory_gb": x, "gpu_compute_fraction": x, "cpu_millicores": n,
// "memory_bytes": n, "pinned": ["field", …]}`, every field optional. `what`
// names the input in errors ("--declared"). Returns kInvalidArgument, naming
// the field, for bad JSON, an unknown field or a value out of range.
HWREC_EXPORT Result<DeclaredResources> ParseDeclaredResources(const std::string& json,
                                                              const std::string& what);
// Reads a JSON array of {"node_pool_id", "free_partitions", "free_cpu_millicores",
// "free_memory_bytes"}; a missing free field means no limit is known. Returns
// kInvalidArgument, naming the candidate and field, for bad JSON or a list that
// breaks CheckPlacementCandidates' rules.
HWREC_EXPORT Result<std::vector<PlacementCandidate>> ParsePlacementCandidates(
    const std::string& json);

}  // namespace hwrec
