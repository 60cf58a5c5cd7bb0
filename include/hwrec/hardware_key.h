// HardwareKey: the hardware figures are learned and asked for on, as
// (gpu_brand, gpu_model, instance_type), or a CPU-only key.
#pragma once

#include <optional>
#include <string>

#include "hwrec/export.h"

namespace hwrec {

struct NodePool;

// What figures are learned on. An absent part is the shared "unknown"
// population of that part: never a guess. A CPU-only key has no GPU figures.
struct HWREC_EXPORT HardwareKey {
  std::optional<std::string> gpu_brand;
  std::optional<std::string> gpu_model;
  std::optional<std::string> instance_type;
  bool cpu_only = false;

  static HardwareKey Of(const NodePool& pool);
  bool operator==(const HardwareKey& other) const;
};

// The key in catalog spellings, for people: "NVIDIA A100 80GB on a2-ultragpu-1g",
// "no GPU on n2-standard-8", "NVIDIA GPU of unknown model on unknown instance type".
HWREC_EXPORT std::string Describe(const HardwareKey& key);

}  // namespace hwrec
