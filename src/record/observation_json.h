// Reading an observation from a JSON object already parsed, for readers that
// look at the object first (the Runner's form, telling forms apart), so that
// no record is parsed twice.
#pragma once

#include <nlohmann/json.hpp>

#include "hwrec/observation.h"

namespace hwrec::internal {

// What ParseObservationJson returns for the text of `object`.
ObservationParse ParseObservationObject(const nlohmann::json& object, bool strict);

}  // namespace hwrec::internal
