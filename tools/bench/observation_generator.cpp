#include "bench/observation_generator.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "hwrec/hardware_profile.h"

namespace hwrec::bench {
namespace {

constexpr std::size_t kImageCount = 300;
constexpr double kStartEpoch = 1788220800;        // 2026-09-01T00:00:00Z
constexpr double kSpanSeconds = 42 * 86400.0;     // six weeks of history
constexpr double kDuplicateRate = 0.02;           // re-sent records
constexpr double kBadRate = 0.025;                // records validation must refuse
constexpr std::int64_t kDuplicateWindow = 50000;  // how far back a re-send reaches
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// Independent random streams per purpose, so that deciding a record's kind
// does not shift the values drawn for it.
enum Stream : std::uint64_t {
  kKindStream = 1,
  kDuplicateStream,
  kRecordStream,
  kIdStream,
  kImageStream
};

// The splitmix64 finaliser: a good 64-bit mix, identical on every platform.
std::uint64_t Mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::uint64_t StreamSeed(std::uint64_t seed, Stream stream, std::int64_t index) {
  return Mix(Mix(seed ^ Mix(stream)) ^ static_cast<std::uint64_t>(index));
}

// A counter-based generator with its own distributions: std:: distributions
// differ between standard libraries, and the same seed must give the same set.
class Rng {
 public:
  explicit Rng(std::uint64_t state) : state_(state) {}
  std::uint64_t Next() { return Mix(state_++); }
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }  // [0, 1)
  std::size_t Below(std::size_t n) { return static_cast<std::size_t>(Next() % n); }
  double Normal() {
    const double u1 = 1.0 - Uniform();  // (0, 1]
    const double u2 = Uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  double LogNormal(double median, double sigma) { return median * std::exp(sigma * Normal()); }

 private:
  std::uint64_t state_;
};

double Round(double value, int digits) {
  const double scale = std::pow(10.0, digits);
  return std::round(value * scale) / scale;
}

struct PoolSpec {
  const char* site_id;
  const char* node_pool_id;
  const char* name;
  const char* instance_type;
  const char* architecture;
  std::int64_t cpu_millicores;
  std::int64_t memory_gib;
  std::int64_t gpu_count;
  const char* gpu_mode;   // nullptr: CPU-only
  const char* gpu_model;  // nullptr: CPU-only, or a GPU whose model is not recorded
  double partition_memory_gb;
  double compute_fraction;
  double gpu_slowness;
  double cpu_slowness;
};

// A dozen kinds of hardware across three sites, MIG partitions included.
constexpr PoolSpec kPoolSpecs[] = {
    {"us-central", "usc-a100-80gb", "A100 80GB whole cards", "a2-ultragpu-1g", "x86_64", 12000, 170,
     1, "full", "A100 80GB", 80, 1.0, 1.0, 1.0},
    {"us-central", "usc-a100-40gb-3g", "A100 40GB mig-3g.20gb", "a2-highgpu-1g", "x86_64", 12000,
     85, 1, "mig-3g.20gb", "A100 40GB", 20, 3.0 / 7, 1.0, 1.0},
    {"us-central", "usc-a100-40gb-1g", "A100 40GB mig-1g.5gb", "a2-highgpu-1g", "x86_64", 12000, 85,
     1, "mig-1g.5gb", "A100 40GB", 5, 1.0 / 7, 1.0, 1.0},
    {"onprem-lab", "lab-a30-2g", "A30 mig-2g.12gb", "r750xa-a30", "x86_64", 64000, 512, 1,
     "mig-2g.12gb", "A30", 12, 2.0 / 4, 1.6, 1.1},
    {"onprem-lab", "lab-a30-4g", "A30 mig-4g.24gb", "r750xa-a30", "x86_64", 64000, 512, 1,
     "mig-4g.24gb", "A30", 24, 4.0 / 4, 1.6, 1.1},
    {"us-central", "usc-h100-80gb", "H100 80GB whole cards", "a3-highgpu-1g", "x86_64", 26000, 234,
     1, "full", "H100 80GB", 80, 1.0, 0.6, 0.9},
    {"eu-west", "euw-h200", "H200 141GB whole cards", "a3-ultragpu-8g", "x86_64", 224000, 2952, 8,
     "full", "H200 141GB", 141, 1.0, 0.5, 0.9},
    {"eu-west", "euw-l4", "L4", "g2-standard-8", "x86_64", 8000, 32, 1, "full", "L4", 24, 1.0, 2.0,
     1.0},
    {"eu-west", "euw-t4", "T4", "n1-standard-8", "x86_64", 8000, 30, 1, "full", "T4", 16, 1.0, 3.0,
     1.2},
    {"eu-west", "euw-cpu-x86", "CPU x86_64", "c3-standard-22", "x86_64", 22000, 88, 0, nullptr,
     nullptr, 0, 0, 1.0, 1.0},
    {"eu-west", "euw-cpu-arm", "CPU aarch64", "c4a-standard-16", "aarch64", 16000, 64, 0, nullptr,
     nullptr, 0, 0, 1.0, 1.25},
    {"onprem-lab", "lab-gpu-unknown", "GPU nodes, model not recorded", "lab-gpu-node", "x86_64",
     32000, 192, 4, "full", nullptr, 0, 1.0, 1.5, 1.1},
};

std::string RequireId(const HardwareProfile& hardware, ProfileIdVersion version) {
  Result<std::string> id = HardwareProfileId(hardware, version);
  if (!id.ok()) throw std::runtime_error(id.status().message());
  return std::move(id).value();
}

BenchPool MakePool(const PoolSpec& spec) {
  BenchPool bench;
  NodePool& pool = bench.pool;
  pool.site_id = spec.site_id;
  pool.node_pool_id = spec.node_pool_id;
  pool.name = spec.name;
  HardwareProfile& hw = pool.hardware;
  hw.instance_type = spec.instance_type;
  hw.architecture = spec.architecture;
  hw.cpu_millicores = spec.cpu_millicores;
  hw.memory_bytes = spec.memory_gib << 30;
  hw.gpu_count = spec.gpu_count;
  hw.gpu_total = spec.gpu_count;
  if (spec.gpu_mode != nullptr) {
    hw.gpu_mode = spec.gpu_mode;
    hw.gpu_brand = "NVIDIA";
  }
  if (spec.gpu_model != nullptr) hw.gpu_model = spec.gpu_model;
  bench.partition_memory_gb = spec.partition_memory_gb;
  bench.compute_fraction = spec.compute_fraction;
  bench.gpu_slowness = spec.gpu_slowness;
  bench.cpu_slowness = spec.cpu_slowness;
  bench.hp_v1 = RequireId(hw, ProfileIdVersion::kV1);
  bench.hp_v2 = RequireId(hw, ProfileIdVersion::kV2);
  return bench;
}

std::string ImageName(Rng& rng, bool uses_gpu, std::size_t index) {
  static const char* const kTeams[] = {"vision", "nlp", "speech",   "recsys",   "genomics",
                                       "search", "ads", "forecast", "robotics", "data-eng"};
  static const char* const kGpuTasks[] = {"train", "finetune", "infer", "embed", "eval", "distill"};
  static const char* const kCpuTasks[] = {"etl",       "featurize", "tokenize", "score",
                                          "aggregate", "export",    "validate"};
  static const char* const kModels[] = {"resnet50",  "vit-b16",  "llama-8b", "whisper-small",
                                        "bert-base", "t5-large", "unet",     "yolo",
                                        "dlrm",      "gnn"};
  const char* team = kTeams[rng.Below(std::size(kTeams))];
  const char* task = uses_gpu ? kGpuTasks[rng.Below(std::size(kGpuTasks))]
                              : kCpuTasks[rng.Below(std::size(kCpuTasks))];
  const char* model = kModels[rng.Below(std::size(kModels))];
  // The patch number is the image's index: every name is distinct.
  return fmt::format("registry.internal/{}/{}-{}:{}.{}.{}", team, task, model, 1 + rng.Below(3),
                     rng.Below(20), index);
}

// The pools an image runs on: 1 to 4 of those that fit its memory.
std::vector<std::size_t> ChoosePools(Rng& rng, bool uses_gpu, double gpu_memory_gb,
                                     const std::vector<BenchPool>& pools) {
  std::vector<std::size_t> candidates;
  for (std::size_t p = 0; p < pools.size(); ++p) {
    const BenchPool& pool = pools[p];
    const bool gpu_pool = pool.compute_fraction > 0;
    if (gpu_pool != uses_gpu) continue;
    if (gpu_pool && pool.partition_memory_gb > 0 &&
        pool.partition_memory_gb < gpu_memory_gb * 1.25) {
      continue;
    }
    candidates.push_back(p);
  }
  for (std::size_t i = candidates.size(); i > 1; --i) {
    std::swap(candidates[i - 1], candidates[rng.Below(i)]);
  }
  candidates.resize(1 + rng.Below(std::min<std::size_t>(4, candidates.size())));
  return candidates;
}

using ImageProfile = ObservationGenerator::ImageProfile;

ImageProfile MakeImage(Rng& rng, const std::vector<BenchPool>& pools) {
  ImageProfile image;
  image.uses_gpu = rng.Uniform() < 0.6;
  image.cpu_millicores =
      std::clamp(rng.LogNormal(image.uses_gpu ? 1500 : 2500, 0.7), 50.0, 15000.0);
  image.cpu_p95_ratio = 1.1 + 0.5 * rng.Uniform();
  image.cpu_max_ratio = 1.05 + 0.3 * rng.Uniform();
  image.memory_bytes = std::clamp(rng.LogNormal(4 * kGiB, 0.9), 0.125 * kGiB, 60 * kGiB);
  image.duration_s = std::clamp(rng.LogNormal(900, 1.0), 5.0, 86400.0);
  if (image.uses_gpu) {
    image.gpu_memory_gb = std::clamp(rng.LogNormal(8, 1.0), 0.3, 110.0);
    image.gpu_memory_sigma = 0.05 + 0.25 * rng.Uniform();
    image.gpu_utilization = 0.2 + 0.75 * rng.Uniform();
    image.requested.gpu_memory_gb = std::ceil(image.gpu_memory_gb * 1.4);
  }
  image.pools = ChoosePools(rng, image.uses_gpu, image.gpu_memory_gb, pools);
  const double cpu_request = image.cpu_millicores * image.cpu_p95_ratio * 1.3;
  image.requested.cpu_millicores = static_cast<std::int64_t>(std::ceil(cpu_request / 250) * 250);
  image.requested.memory_bytes =
      static_cast<std::int64_t>(std::ceil(image.memory_bytes * 1.5 / (1 << 20))) << 20;
  return image;
}

std::string ExecutionId(std::uint64_t seed, std::int64_t index) {
  Rng rng(StreamSeed(seed, kIdStream, index));
  const std::uint64_t a = rng.Next();
  const std::uint64_t b = rng.Next();
  return fmt::format("{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}", a >> 32, (a >> 16) & 0xffffU,
                     a & 0xfffU, ((b >> 48) & 0x3fffU) | 0x8000U, b & 0xffffffffffffULL);
}

// What the execution used, scattered around its image's medians and scaled by
// the hardware it ran on. Returns whether the GPU peak hit the partition's size.
bool FillUsage(Rng& rng, const ImageProfile& image, const BenchPool& pool, Observation* obs) {
  const double fraction = pool.compute_fraction > 0 ? pool.compute_fraction : 1.0;
  const double slowness =
      image.uses_gpu ? pool.gpu_slowness / std::pow(fraction, 0.6) : pool.cpu_slowness;
  obs->duration_s = Round(rng.LogNormal(image.duration_s * slowness, 0.35), 3);
  // No execution uses more CPU or memory than its node has: ingest refuses that.
  const double node_cpu = static_cast<double>(pool.pool.hardware.cpu_millicores.value_or(0));
  const double node_memory = static_cast<double>(pool.pool.hardware.memory_bytes.value_or(0));
  const double cpu_avg =
      std::min(rng.LogNormal(image.cpu_millicores * pool.cpu_slowness, 0.25), node_cpu);
  const double cpu_p95 = std::min(cpu_avg * image.cpu_p95_ratio * rng.LogNormal(1, 0.08), node_cpu);
  obs->cpu_millicores_avg = Round(cpu_avg, 1);
  obs->cpu_millicores_p95 = Round(cpu_p95, 1);
  obs->cpu_millicores_max = Round(std::min(cpu_p95 * image.cpu_max_ratio, node_cpu), 1);
  obs->memory_peak_bytes =
      static_cast<std::int64_t>(std::min(rng.LogNormal(image.memory_bytes, 0.2), node_memory));
  obs->requested = image.requested;
  if (!image.uses_gpu) return false;
  obs->requested.gpu_compute_fraction = fraction;
  // A card with more memory than needed invites larger batches and caches.
  const double capacity = pool.partition_memory_gb > 0 ? pool.partition_memory_gb : 80.0;
  const double scale = std::clamp(1 + 0.08 * std::log2(capacity / image.gpu_memory_gb), 0.9, 1.3);
  const double peak = rng.LogNormal(image.gpu_memory_gb * scale, image.gpu_memory_sigma);
  obs->gpu_memory_peak_gb = Round(std::min(peak, capacity), 3);
  obs->gpu_utilization =
      Round(std::clamp(image.gpu_utilization + 0.08 * rng.Normal(), 0.01, 1.0), 3);
  return peak >= capacity;
}

// Mostly success; OOMs pin the peak at the limit, failures end early.
void SetStatus(Rng& rng, bool gpu_full, const BenchPool& pool, Observation* obs) {
  const double u = rng.Uniform();
  const bool gpu = obs->gpu_memory_peak_gb.has_value();
  if (gpu_full || (gpu && u < 0.015)) {
    obs->status = ExecutionStatus::kGpuOom;
    if (pool.partition_memory_gb > 0) obs->gpu_memory_peak_gb = pool.partition_memory_gb;
  } else if (u < 0.035) {
    obs->status = ExecutionStatus::kOom;
    obs->memory_peak_bytes = std::min(obs->requested.memory_bytes, pool.pool.hardware.memory_bytes);
  } else if (u < 0.055) {
    obs->status = ExecutionStatus::kFailed;
  } else if (u < 0.06) {
    obs->status = ExecutionStatus::kCancelled;
  } else {
    return;
  }
  obs->duration_s = Round(*obs->duration_s * rng.Uniform(), 3);
}

// Makes a record that ValidateObservation must refuse.
void Spoil(Rng& rng, Observation* obs) {
  switch (rng.Below(4)) {
    case 0:
      obs->gpu_memory_peak_gb = std::numeric_limits<double>::quiet_NaN();
      break;
    case 1:
      obs->memory_peak_bytes = -obs->memory_peak_bytes.value_or(1 << 20);
      break;
    case 2:
      obs->gpu_compute_fraction = 1.05 + rng.Uniform();
      break;
    default:
      obs->action_image.clear();
      break;
  }
}

}  // namespace

ObservationGenerator::ObservationGenerator(std::uint64_t seed, std::int64_t observations)
    : seed_(seed), observations_(std::max<std::int64_t>(observations, 1)) {
  for (const PoolSpec& spec : kPoolSpecs) pools_.push_back(MakePool(spec));
  double total = 0;
  for (std::size_t i = 0; i < kImageCount; ++i) {
    Rng rng(StreamSeed(seed_, kImageStream, static_cast<std::int64_t>(i)));
    images_.push_back(MakeImage(rng, pools_));
    image_names_.push_back(ImageName(rng, images_.back().uses_gpu, i));
    total += 1.0 / std::pow(static_cast<double>(i + 1), 0.9);  // a few images dominate
    image_popularity_cdf_.push_back(total);
  }
  for (double& c : image_popularity_cdf_) c /= total;
}

RecordKind ObservationGenerator::KindOf(std::int64_t index) const {
  const double u = Rng(StreamSeed(seed_, kKindStream, index)).Uniform();
  if (index > 0 && u < kDuplicateRate) return RecordKind::kDuplicate;
  if (u < kDuplicateRate + kBadRate) return RecordKind::kBad;
  return RecordKind::kValid;
}

// An earlier valid record to re-send, or -1 when none was found quickly.
std::int64_t ObservationGenerator::DuplicateSource(std::int64_t index) const {
  Rng rng(StreamSeed(seed_, kDuplicateStream, index));
  const auto window = static_cast<std::size_t>(std::min(index, kDuplicateWindow));
  for (int attempt = 0; attempt < 16; ++attempt) {
    const std::int64_t source = index - 1 - static_cast<std::int64_t>(rng.Below(window));
    if (KindOf(source) == RecordKind::kValid) return source;
  }
  return -1;
}

std::size_t ObservationGenerator::PickImage(double uniform) const {
  const auto it =
      std::upper_bound(image_popularity_cdf_.begin(), image_popularity_cdf_.end(), uniform);
  return std::min(static_cast<std::size_t>(it - image_popularity_cdf_.begin()), images_.size() - 1);
}

Observation ObservationGenerator::Generate(std::int64_t index, RecordFacts* facts) const {
  RecordKind kind = KindOf(index);
  if (kind == RecordKind::kDuplicate) {
    const std::int64_t source = DuplicateSource(index);
    if (source >= 0) {
      Observation copy = GenerateFresh(source, RecordKind::kValid, facts);
      if (facts != nullptr) facts->kind = RecordKind::kDuplicate;
      return copy;
    }
    kind = RecordKind::kValid;
  }
  return GenerateFresh(index, kind, facts);
}

Observation ObservationGenerator::GenerateFresh(std::int64_t index, RecordKind kind,
                                                RecordFacts* facts) const {
  Rng rng(StreamSeed(seed_, kRecordStream, index));
  const std::size_t image_index = PickImage(rng.Uniform());
  const ImageProfile& image = images_[image_index];
  const std::size_t pool_index = image.pools[rng.Below(image.pools.size())];
  const BenchPool& pool = pools_[pool_index];

  Observation obs;
  obs.execution_id = ExecutionId(seed_, index);
  obs.action_image = image_names_[image_index];
  const double position =
      (static_cast<double>(index) + rng.Uniform()) / static_cast<double>(observations_);
  obs.finished_at =
      Round(std::max(kStartEpoch, kStartEpoch + kSpanSeconds * position + 1800 * rng.Normal()), 3);
  obs.node_pool_id = pool.pool.node_pool_id;
  if (rng.Uniform() < 0.85) obs.site_id = pool.pool.site_id;
  if (rng.Uniform() < 0.55) {  // the Runner sent the hardware; otherwise the pool resolves it
    obs.hardware = pool.pool.hardware;
    obs.hardware_profile_id = rng.Uniform() < 0.9 ? pool.hp_v2 : pool.hp_v1;
  }
  const bool gpu_full = FillUsage(rng, image, pool, &obs);
  SetStatus(rng, gpu_full, pool, &obs);
  if (image.uses_gpu && rng.Uniform() < 0.35) obs.gpu_compute_fraction = pool.compute_fraction;
  if (kind == RecordKind::kBad) Spoil(rng, &obs);
  if (facts != nullptr) *facts = RecordFacts{kind, pool_index};
  return obs;
}

void ObservationGenerator::Fill(std::int64_t first, std::int64_t count,
                                std::vector<Observation>* observations,
                                std::vector<RecordFacts>* facts) const {
  observations->clear();
  if (facts != nullptr) facts->clear();
  for (std::int64_t i = first; i < first + count; ++i) {
    RecordFacts record_facts;
    observations->push_back(Generate(i, &record_facts));
    if (facts != nullptr) facts->push_back(record_facts);
  }
}

}  // namespace hwrec::bench
