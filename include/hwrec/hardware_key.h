// HardwareKey: the hardware figures are learned and asked for on, as
// (gpu_brand, gpu_model, instance_type), or a CPU-only key.
#pragma once

#include <optional>
#include <string>

namespace hwrec {

struct NodePool;

// What figures are learned on. An absent part is the shared "unknown"
// population of that part: never a guess. A CPU-only key has no GPU figures.
struct HardwareKey {
  std::optional<std::string> gpu_brand;
  std::optional<std::string> gpu_model;
  std::optional<std::string> instance_type;
  bool cpu_only = false;

  static HardwareKey Of(const NodePool& pool);
  bool operator==(const HardwareKey& other) const;
};

}  // namespace hwrec
