#include <nlohmann/json.hpp>

#include "hwrec/placement_runner.h"

namespace hwrec {

bool RunnerAllocation::operator==(const RunnerAllocation& o) const {
  return cpu == o.cpu && memory == o.memory && gpu == o.gpu && gpu_memory_gb == o.gpu_memory_gb &&
         gpu_compute_fraction == o.gpu_compute_fraction;
}

RunnerAllocation ToRunnerAllocation(const EffectiveRequest& request) {
  RunnerAllocation out;
  if (request.cpu_request_millicores) {
    out.cpu = static_cast<double>(*request.cpu_request_millicores) / 1000.0;
  }
  out.memory = request.memory_bytes;
  out.gpu = request.gpu_count;
  // What each GPU gives is known only where the pool's partition is: on a pool
  // of unknown size the request's GPU figures are the execution's needs, not
  // an allocation, and are left out.
  if (request.gpu_count > 0 && request.gpu_config_id) {
    out.gpu_memory_gb = request.gpu_memory_gb;
    out.gpu_compute_fraction = request.gpu_compute_fraction;
  }
  return out;
}

std::string RunnerAllocationJson(const RunnerAllocation& a) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  if (a.cpu) out["cpu"] = *a.cpu;
  if (a.memory) out["memory"] = *a.memory;
  out["gpu"] = a.gpu;
  if (a.gpu_memory_gb) out["gpu_memory_gb"] = *a.gpu_memory_gb;
  if (a.gpu_compute_fraction) out["gpu_compute_fraction"] = *a.gpu_compute_fraction;
  return out.dump();
}

std::optional<double> StampedComputeFraction(const CandidateEvaluation& evaluation) {
  const EffectiveRequest& r = evaluation.request;
  // gpu_config_id is set only where the pool's partition is known: then the
  // request's share is the partition's (or the shared card's share), never
  // the recommended figure that stands in on a pool of unknown size.
  if (r.gpu_count == 0 || !r.gpu_config_id) return std::nullopt;
  return r.gpu_compute_fraction;
}

}  // namespace hwrec
