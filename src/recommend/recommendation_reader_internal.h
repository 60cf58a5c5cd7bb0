// What the parts of RecommendationReader share (recommendation_reader.cpp,
// recommendation_width.cpp, recommendation_explain.cpp): the provenance of
// each scope and the row a scope keeps for a hardware key. Private to
// src/recommend/.
#pragma once

#include <cstdint>

#include "aggregate/aggregator.h"
#include "hwrec/figure.h"
#include "hwrec/hardware_key.h"

namespace hwrec::internal {

// The provenance of a figure learned at each scope, in Scope's order.
inline constexpr Provenance kProvenanceOfScope[kScopeCount] = {
    Provenance::kExact, Provenance::kGpuModel, Provenance::kInstanceType,
    Provenance::kWorkloadAnyHardware};

// The row `scope` keeps for `hardware`: the parts the scope does not key on are "".
AggregateKey KeyAt(std::int64_t workload_id, Scope scope, const HardwareKey& hardware);

}  // namespace hwrec::internal
