// The store hwrec-bench place and hwrec-bench python measure: the generator's
// pools with 20,000 observations of history, 1,000 more pools of the same
// shapes as candidates, and the one-GPU execution placed on them.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "fixtures/observation_generator.h"
#include "hwrec/placement_result.h"
#include "hwrec/status.h"
#include "hwrec/store.h"

namespace hwrec::bench {

inline constexpr std::int64_t kPlaceHistory = 20000;  // observations ingested before measuring
inline constexpr std::size_t kPlacePools = 1000;

struct PlaceFixture {
  std::vector<PlacementCandidate> candidates;  // kPlacePools, with free capacity
  ExecutionToPlace execution;                  // a GPU workload of the history, 1 GPU declared
};

// Opens (creating when missing) a bench store; throws on failure.
std::unique_ptr<Store> OpenBenchStore(const std::string& path);
// Registers the pools and ingests the history into `store`.
PlaceFixture SetUpPlaceFixture(Store& store, const fixtures::ObservationGenerator& gen);
// The parts of SetUpPlaceFixture: registers the generator's pools and the
// kPlacePools candidates (returned), without history; and the execution placed.
std::vector<PlacementCandidate> ImportPlacePools(Store& store,
                                                 const fixtures::ObservationGenerator& gen);
ExecutionToPlace PlaceExecution(const fixtures::ObservationGenerator& gen);

// The value of a Result, or a std::runtime_error with its message.
template <typename T>
T Require(Result<T> result) {
  if (!result.ok()) throw std::runtime_error(result.status().ToString());
  return std::move(*result);
}

}  // namespace hwrec::bench
