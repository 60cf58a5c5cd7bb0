// The Runner's own records: node pools in the Runner API's RunnerNodePool
// shape and finished executions in the shape of its CompleteExecutionMetric
// plus the worker's metrics dict. hwrec reads them as they are, so the Runner
// does not reshape what it already has; docs/RUNNER.md maps every field, with
// units. Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "hwrec/export.h"
#include "hwrec/node_pool.h"
#include "hwrec/observation.h"
#include "hwrec/status.h"

namespace hwrec {

// Which shape a record is in. kAuto tells them apart by their fields and
// refuses a record that mixes both.
enum class RecordForm { kAuto, kHwrec, kRunner };
HWREC_EXPORT std::string_view ToString(RecordForm form);  // "auto", "hwrec", "runner"
HWREC_EXPORT std::optional<RecordForm> ParseRecordForm(std::string_view text);

// One RunnerNodePool JSON object as a NodePool. Returns kInvalidArgument
// naming the first bad field by the Runner's name ("node pool: <field> <reason>").
HWREC_EXPORT Result<NodePool> ParseRunnerNodePoolJson(std::string_view json);
// One pool record in `form` (kAuto: the Runner's when it has `id` and no
// `node_pool_id`). Returns kInvalidArgument as ParseRunnerNodePoolJson.
HWREC_EXPORT Result<NodePool> ParseNodePoolRecord(std::string_view json, RecordForm form);

// One CompleteExecutionMetric JSON object (with its `metrics` dict) as an
// Observation; errors and warnings name the Runner's fields.
HWREC_EXPORT ObservationParse ParseRunnerObservationJson(std::string_view json,
                                                         bool strict = false);
// One observation record in `form`. Never fails as a whole: a bad record is
// `errors` in the ObservationParse.
HWREC_EXPORT ObservationParse ParseObservationRecord(std::string_view json, RecordForm form,
                                                     bool strict = false);

}  // namespace hwrec
