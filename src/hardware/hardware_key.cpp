#include "hwrec/hardware_key.h"

#include "hwrec/node_pool.h"

namespace hwrec {

HardwareKey HardwareKey::Of(const NodePool& pool) {
  HardwareKey key;
  key.gpu_brand = pool.hardware.gpu_brand;
  key.gpu_model = pool.hardware.gpu_model;
  key.instance_type = pool.hardware.instance_type;
  key.cpu_only = pool.hardware.gpu_count.value_or(0) == 0;
  return key;
}

bool HardwareKey::operator==(const HardwareKey& o) const {
  return gpu_brand == o.gpu_brand && gpu_model == o.gpu_model && instance_type == o.instance_type &&
         cpu_only == o.cpu_only;
}

std::string Describe(const HardwareKey& key) {
  std::string gpu;
  if (key.cpu_only) {
    gpu = "no GPU";
  } else if (key.gpu_model) {
    gpu = key.gpu_brand ? *key.gpu_brand + " " + *key.gpu_model : *key.gpu_model;
  } else {
    gpu = key.gpu_brand ? *key.gpu_brand + " GPU of unknown model" : "GPU of unknown model";
  }
  return gpu + " on " + key.instance_type.value_or("unknown instance type");
}

}  // namespace hwrec
