// The chosen request in the Runner's resources_allocation units, and the
// compute fraction the Runner stamps: the partition given, never the figure.
#include <catch2/catch.hpp>

#include "hwrec/placement_runner.h"

namespace hwrec::placement_runner_test {

namespace {

EffectiveRequest MigRequest() {
  EffectiveRequest r;
  r.cpu_request_millicores = 2500;
  r.cpu_limit_millicores = 4000;
  r.memory_bytes = std::int64_t{8} << 30;
  r.gpu_count = 1;
  r.gpu_config_id = "nvidia-a100-80gb-mig-3g.40gb";
  r.gpu_memory_gb = 40;
  r.gpu_compute_fraction = 0.428571;
  return r;
}

}  // namespace

TEST_CASE("runner allocation: the request in the Runner's units", "[placement][runner]") {
  const RunnerAllocation a = ToRunnerAllocation(MigRequest());
  CHECK(a.cpu == 2.5);  // the request, not the limit, in cores
  CHECK(a.memory == (std::int64_t{8} << 30));
  CHECK(a.gpu == 1);
  CHECK(a.gpu_memory_gb == 40);
  CHECK(a.gpu_compute_fraction == 0.428571);
  CHECK(RunnerAllocationJson(a) == R"({"cpu":2.5,"memory":8589934592,"gpu":1,"gpu_memory_gb":40.0,)"
                                   R"("gpu_compute_fraction":0.428571})");

  EffectiveRequest cpu_only;
  cpu_only.cpu_request_millicores = 1;
  const RunnerAllocation c = ToRunnerAllocation(cpu_only);
  CHECK(c.cpu == 0.001);
  CHECK_FALSE(c.memory);
  CHECK(RunnerAllocationJson(c) == R"({"cpu":0.001,"gpu":0})");
}

TEST_CASE("runner allocation: the stamped fraction is the partition given", "[placement][runner]") {
  CandidateEvaluation chosen;
  chosen.request = MigRequest();
  CHECK(StampedComputeFraction(chosen) == 0.428571);
  // On a pool whose partitioning is not recorded, the request carries the
  // recommended share: that is not what the Runner gave, so nothing is stamped.
  chosen.request.gpu_config_id.reset();
  chosen.request.gpu_compute_fraction = 0.31;
  CHECK_FALSE(StampedComputeFraction(chosen));
  CHECK_FALSE(ToRunnerAllocation(chosen.request).gpu_compute_fraction);
  CHECK_FALSE(ToRunnerAllocation(chosen.request).gpu_memory_gb);
  CHECK(ToRunnerAllocation(chosen.request).gpu == 1);
  // No GPU held: no fraction, and no GPU figures in the allocation.
  CandidateEvaluation cpu;
  cpu.request.cpu_request_millicores = 500;
  CHECK_FALSE(StampedComputeFraction(cpu));
  CHECK_FALSE(ToRunnerAllocation(cpu.request).gpu_memory_gb);
}

}  // namespace hwrec::placement_runner_test
