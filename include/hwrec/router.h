// RouterSnapshot: what the router reads from the store once and reuses for any
// number of ladders (the router configuration, the catalog's card sizes and
// what each intent's workload needs per GPU), and the per-UTC-day state the
// ladder walker keeps. A snapshot is a plain value: immutable after loading,
// safe to share.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hwrec/export.h"
#include "hwrec/recommend.h"
#include "hwrec/router_config.h"
#include "hwrec/status.h"

namespace hwrec {

class Store;

// What the recommendation store says one intent's workload needs per GPU on
// one card at one width: the GPU memory per GPU of its executions that held
// that many GPUs (RecommendationQuery::Recommend with a width), with margin.
struct HWREC_EXPORT CardNeed {
  std::optional<double> gpu_memory_gb;
  // kGpuModel: learned on this card; kWorkloadAnyHardware: on other cards;
  // kTransferred: on another card, times a factor learned from the workloads
  // seen on both (with `gpu_memory.transfer` on).
  Provenance provenance = Provenance::kNone;
  // The width the figure was learned at: the one asked for, or the nearest
  // width the workload ran at (unscaled); absent: executions that did not
  // say how many GPUs they held.
  std::optional<std::int64_t> learned_width;
  // For a figure learned on other cards: those of the configuration's cards
  // it was learned on ("A100 80GB"), or "other cards" when none of them is;
  // for a transferred one, its source card and factor ("A100 80GB x1.20 by
  // transfer").
  std::string learned_on;
};

// A card and a width: the key of an intent's needs.
using CardWidth = std::pair<std::string, int>;  // (GPU model, GPUs)

struct HWREC_EXPORT RouterSnapshot {
  RouterConfig config;
  std::map<std::string, double, std::less<>> card_memory_gb;  // catalog, by GPU model
  // intent -> (GPU model, width) -> need: every card a GCP machine type, SLURM
  // lane or RunPod rung offers, at every width a rung of the intent may have;
  // intents without GPU-memory history map to nothing.
  std::map<std::string, std::map<CardWidth, CardNeed>, std::less<>> needs;

  // Reads the configuration, the catalog and, for every intent's workload, its
  // GPU memory per GPU on every card at every width (as of `as_of`, default now).
  // Returns kInvalidArgument for a bad `as_of`, kSchemaMismatch when the store
  // predates the recommendation tables, kIoError when it cannot be read.
  static Result<RouterSnapshot> Load(const Store& store,
                                     std::optional<double> as_of = std::nullopt);
};

// A quota found exhausted today: rungs needing `gpus` or more GPUs of it are
// skipped until the next UTC day; narrower ones are still tried.
struct HWREC_EXPORT QuotaBlock {
  std::string gpu_model;
  QuotaClass quota_class = QuotaClass::kOnDemand;
  int gpus = 1;  // the fewest GPUs a launch that found it exhausted asked for
  std::string reason;
};

// The per-UTC-day state the walker keeps, for `hwrec route config show`.
struct HWREC_EXPORT RouterDayState {
  std::string day;  // "2026-07-08"
  std::int64_t gcp_attempts = 0;
  // "A100 80GB/preemptible, rungs of 8 or more GPUs: <reason>", one per block
  std::vector<std::string> exhausted_quotas;
  std::vector<QuotaBlock> quota_blocks;  // the same, as values
};
// Returns kInvalidArgument for a bad `now`, kIoError when the store cannot be
// read.
HWREC_EXPORT Result<RouterDayState> ReadRouterDayState(const Store& store,
                                                       std::optional<double> now = std::nullopt);

}  // namespace hwrec
