// The Runner's records translated into hwrec's own JSON form, so that one set
// of parsers and validators judges both forms; the names of the fields in
// their errors are then mapped back to the Runner's (docs/RUNNER.md).
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <utility>
#include <vector>

#include "hwrec/observation.h"
#include "hwrec/runner.h"
#include "record/observation_json.h"

namespace hwrec::internal {

// For one record: which Runner field each hwrec field came from.
class RunnerFieldNames {
 public:
  void Set(std::string hwrec_field, std::string runner_field);
  // The Runner's name for `hwrec_field`; the name itself when it has none.
  std::string RunnerName(const std::string& hwrec_field) const;
  // Renames the error's field to the Runner's.
  RecordError Renamed(RecordError error) const;

 private:
  std::vector<std::pair<std::string, std::string>> names_;
};

struct RunnerTranslation;  // record/runner_translation.h

// A pool object is the Runner's when it has `id` and no `node_pool_id`.
bool IsRunnerPool(const nlohmann::json& object);
// A RunnerNodePool object as hwrec's pool object; unknown fields are kept in
// `unknown` (warnings), not copied.
RunnerTranslation TranslateRunnerPool(const nlohmann::json& object);

// ParseObservationRecord, also saying which form the record was read in;
// `partial` as ParseObservationObject's, a Runner field the translation
// refused counted as refused under its hwrec name (not set when the text is
// not a JSON object, or mixes the two forms).
ObservationParse ParseObservationRecord(std::string_view json, RecordForm form, bool strict,
                                        RecordForm* read_as,
                                        std::optional<PartialObservation>* partial = nullptr);
// An error about a field of hwrec's observation form (found after parsing,
// e.g. against the node pool) as the Runner names it: the field, and the
// reason's opening when it repeats the field ("hardware.gpu_count is 1 ...").
RecordError RunnerObservationError(RecordError error);

}  // namespace hwrec::internal
