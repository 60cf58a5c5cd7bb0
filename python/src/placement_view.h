// The Python Placement and RoutePlan values: a C++ result shared with the
// attributes and lists read from it, plus what the call added.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "hwrec/ladder.h"
#include "hwrec/ladder_walk.h"
#include "hwrec/placement_result.h"
#include "hwrec/router.h"

namespace hwrec::python {

struct PlacementView {
  std::shared_ptr<const PlacementResult> result;
  std::optional<std::int64_t> placement_id;  // set when the call recorded it
};

struct RoutePlanView {
  RoutePlan plan;
  std::optional<RouteResult> walk;  // the simulated walk, when one was asked for
};

}  // namespace hwrec::python
