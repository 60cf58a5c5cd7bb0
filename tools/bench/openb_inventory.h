// The Alibaba openb GPU cluster trace (cluster-trace-gpu-v2023) as hwrec input:
// its nodes as node pools and its pods as executions to place. Model names map
// to the catalog as A10 → A10, T4 → T4, P100 → P100 16GB, V100M16 → V100 16GB,
// V100M32 → V100 32GB (brand NVIDIA); G1/G2/G3 are undisclosed codes and stay
// unknown (no brand, no model); nodes without GPUs are CPU-only pools.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hwrec/node_pool.h"
#include "hwrec/placement_result.h"
#include "hwrec/store.h"

namespace hwrec::bench {

struct OpenbNode {
  NodePool pool;            // node_pool_id = the node's sn, site "openb"
  std::string trace_model;  // as the trace spells it ("" for CPU-only)
};

struct OpenbPod {
  std::string name;
  std::int64_t cpu_milli = 0;
  std::int64_t memory_mib = 0;
  std::int64_t num_gpu = 0;
  std::int64_t gpu_milli = 0;
  std::vector<std::string> gpu_spec;  // trace model names any of which will do; empty: any
  double creation_time = 0;
  double deletion_time = 0;
};

// The catalog model of a trace model name, or nullopt when it is not disclosed.
std::optional<std::string> CatalogModelOf(const std::string& trace_model);

// Reads openb_node_list_all_node.csv; throws std::runtime_error naming the line.
std::vector<OpenbNode> ReadOpenbNodes(const std::string& path);
// Reads an openb_pod_list_*.csv; throws std::runtime_error naming the line.
std::vector<OpenbPod> ReadOpenbPods(const std::string& path);

// A node as one JSON line for ImportNodePools / `hwrec pools import`.
std::string NodePoolJsonLine(const NodePool& pool);
// What the pod declares: its GPUs (count; share of a card when it shares one),
// CPU and memory. A single disclosed gpu_spec model becomes gpu_model.
DeclaredResources DeclaredOf(const OpenbPod& pod);
// The same as the JSON `hwrec place --declared` takes.
std::string DeclaredJson(const DeclaredResources& declared);

// Registers the nodes as node pools; throws std::runtime_error naming a pool refused.
void ImportOpenbNodes(Store& store, const std::vector<OpenbNode>& nodes);

// What `hwrec-bench place --openb-allocation` was asked for.
struct OpenbAllocationOptions {
  std::string data_dir;  // holds alibaba-gpu-v2023/ and fgd-atc23-results/
  std::string trace;     // default, gpushare100 or multigpu50
  int first_seed = 42;
  int last_seed = 51;
  std::vector<PlacementPolicy> policies;
  std::optional<std::size_t> pods;  // replay only the first N pods of each seed's order
  std::string format;               // table, json or markdown
};
// Replays the trace the way the ATC'23 simulator does (docs/PLACEMENT.md
// "Allocation on the openb traces") and prints the allocation at 100-130 %
// demand beside the paper's; returns the exit code.
int RunOpenbAllocation(const OpenbAllocationOptions& options);

// Imports DIR/openb_node_list_all_node.csv as pools into a store (scratch, or
// `store_path`) and places the first `pods` pods of DIR/openb_pod_list_default.csv
// in creation order with best_fit, tracking free capacity and releasing pods at
// their deletion time. `emit_dir`: also writes pools.jsonl, candidates.json and
// declared.jsonl there. Prints a summary; returns the exit code.
int RunOpenbReplay(const std::string& dir, std::optional<std::size_t> pods,
                   const std::string& emit_dir, const std::string& store_path, bool json);

}  // namespace hwrec::bench
