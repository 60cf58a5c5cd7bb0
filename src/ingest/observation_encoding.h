// The content key of an Observation: a compact encoding whose SHA-256
// recognises re-sent records. (Its JSON form, which stands for a record built
// in C++ where a raw line would be kept, is the public ObservationToJson.)
#pragma once

#include <string>

#include "base/sha256.h"
#include "hwrec/observation.h"

namespace hwrec::internal {

// Appends a deterministic binary serialization of every field of `observation`
// as sent (absent and present-but-zero differ; -0.0 and 0.0 do not) to `out`.
void AppendContentKey(const Observation& observation, std::string* out);

// SHA-256 of the content key; `scratch` is reused between calls.
Sha256Digest ContentHash(const Observation& observation, std::string* scratch);

}  // namespace hwrec::internal
