// ObservationGenerator: a reproducible, realistic stream of observations for
// hwrec-bench. Record i is a pure function of (seed, i): a run is generated
// chunk by chunk, and generated again for the raw SQLite ceiling, without ever
// holding the whole set in memory. Const methods are thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hwrec/node_pool.h"
#include "hwrec/observation.h"

namespace hwrec::bench {

// A pool the generated executions run on, with the figures the generator and
// the raw ceiling need beside the registration itself.
struct BenchPool {
  NodePool pool;
  double partition_memory_gb = 0;  // 0: CPU-only, or a GPU whose model is unknown
  double compute_fraction = 0;     // share of one card a partition is; 0 for CPU-only
  double gpu_slowness = 1;         // duration multiplier against an A100 80GB
  double cpu_slowness = 1;         // CPU millicores multiplier against x86_64
  std::string hp_v1;               // hardware profile ids of the pool
  std::string hp_v2;
};

enum class RecordKind {
  kValid,      // a record hwrec should accept
  kBad,        // fails validation (NaN peak, negative memory, fraction > 1, no image)
  kDuplicate,  // an identical re-send of an earlier valid record
};

// What the generator knows about one record beyond the Observation itself.
struct RecordFacts {
  RecordKind kind = RecordKind::kValid;
  std::size_t pool = 0;  // index into pools()
};

class ObservationGenerator {
 public:
  // How one workload behaves: medians the per-record values scatter around.
  struct ImageProfile {
    bool uses_gpu = false;
    double gpu_memory_gb = 0;  // median peak on a card that fits it
    double gpu_memory_sigma = 0;
    double gpu_utilization = 0;
    double cpu_millicores = 0;  // median average on x86_64
    double cpu_p95_ratio = 1;
    double cpu_max_ratio = 1;
    double memory_bytes = 0;         // median peak
    double duration_s = 0;           // median on an A100 80GB (or x86_64)
    std::vector<std::size_t> pools;  // indexes into pools_ it runs on
    RequestedResources requested;
  };

  // `observations` spreads finished_at over the same six weeks whatever the size.
  ObservationGenerator(std::uint64_t seed, std::int64_t observations);

  // The ~12 node pools to register before ingesting.
  const std::vector<BenchPool>& pools() const { return pools_; }
  // Every action_image the set uses (300), each with its own resource profile.
  const std::vector<std::string>& images() const { return image_names_; }
  const std::vector<ImageProfile>& image_profiles() const { return images_; }

  RecordKind KindOf(std::int64_t index) const;
  Observation Generate(std::int64_t index, RecordFacts* facts = nullptr) const;
  // Replaces the contents of `observations` (and `facts`, when given) with
  // records [first, first + count), keeping their capacity.
  void Fill(std::int64_t first, std::int64_t count, std::vector<Observation>* observations,
            std::vector<RecordFacts>* facts = nullptr) const;

 private:
  Observation GenerateFresh(std::int64_t index, RecordKind kind, RecordFacts* facts) const;
  std::int64_t DuplicateSource(std::int64_t index) const;
  std::size_t PickImage(double uniform) const;

  std::uint64_t seed_;
  std::int64_t observations_;
  std::vector<BenchPool> pools_;
  std::vector<std::string> image_names_;
  std::vector<ImageProfile> images_;
  std::vector<double> image_popularity_cdf_;
};

}  // namespace hwrec::bench
