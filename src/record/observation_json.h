// Reading an observation from a JSON object already parsed, for readers that
// look at the object first (the Runner's form, telling forms apart), so that
// no record is parsed twice.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hwrec/observation.h"

namespace hwrec::internal {

// What was read of a refused record, and which of its fields were refused
// (by hwrec's names): ingest checks the good fields against the clock and
// the hardware too, so that one reject names every bad field.
struct PartialObservation {
  Observation observation;
  std::vector<std::string> refused;
  // Whether `field` was refused, or its group ("hardware") or a field in it.
  bool Refused(std::string_view field) const;
};

// What ParseObservationJson returns for the text of `object`. When the record
// is refused and `partial` is given, it is set to what was read.
ObservationParse ParseObservationObject(const nlohmann::json& object, bool strict,
                                        std::optional<PartialObservation>* partial = nullptr);

}  // namespace hwrec::internal
