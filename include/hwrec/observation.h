// Observation: what one finished execution used, as the Runner reports it.
// Parsing turns a JSON object into an Observation, or RecordErrors naming each
// offending field; no store is involved. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hwrec/export.h"
#include "hwrec/hardware_profile.h"
#include "hwrec/record_error.h"

namespace hwrec {

enum class ExecutionStatus { kSuccess, kOom, kGpuOom, kFailed, kCancelled };

HWREC_EXPORT std::string_view ToString(ExecutionStatus status);
HWREC_EXPORT std::optional<ExecutionStatus> ParseExecutionStatus(std::string_view text);

// Where an observation's gpu_compute_fraction came from.
enum class FractionSource {
  kNone,     // no GPU share: CPU-only, or GPU mode unknown
  kStamped,  // sent by the Runner after placement
  kCatalog,  // derived from gpu_mode and the card's compute slices in the catalog
  kAssumed,  // derived from gpu_mode and the configured total_compute_slices
};

HWREC_EXPORT std::string_view ToString(FractionSource source);

// What the execution was given.
struct HWREC_EXPORT RequestedResources {
  std::optional<std::int64_t> cpu_millicores;
  std::optional<std::int64_t> memory_bytes;
  std::optional<double> gpu_memory_gb;
  std::optional<double> gpu_compute_fraction;

  bool operator==(const RequestedResources& other) const;
};

// The most GPUs one execution may say it held (gpu_count_held): more than
// any one node has.
inline constexpr std::int64_t kMaxGpusHeld = 1024;

// The longest wall time an observation may carry: a year (366 days). Longer is
// a unit mistake (milliseconds sent as seconds) or an unset start time, and it
// would put the execution's start before any calendar the backtest can draw.
inline constexpr double kMaxDurationSeconds = 366 * 86400.0;

struct HWREC_EXPORT Observation {
  std::string execution_id;  // required, unique
  std::string action_image;  // required: the workload
  double finished_at = 0;    // required: epoch seconds (UTC)
  std::optional<std::string> site_id;
  std::optional<std::string> node_pool_id;
  ExecutionStatus status = ExecutionStatus::kSuccess;
  std::optional<double> duration_s;
  HardwareProfile hardware;                        // missing parts are resolved from the node pool
  std::optional<std::string> hardware_profile_id;  // as sent: hp:v1:… or hp:v2:…
  std::optional<double> gpu_compute_fraction;      // share of one card, (0, 1]
  std::optional<double> gpu_utilization;           // busy share of what it had, [0, 1]
  std::optional<double> gpu_memory_peak_gb;
  std::optional<double> cpu_millicores_avg;
  std::optional<double> cpu_millicores_p95;
  std::optional<double> cpu_millicores_max;
  std::optional<std::int64_t> memory_peak_bytes;
  RequestedResources requested;
  // The GPUs the execution itself held (whole cards or partitions), at most
  // its node's hardware.gpu_count; 0: it held none. Absent: not known, and
  // never read as the node's count. Width and per-GPU figures are learned
  // from it.
  std::optional<std::int64_t> gpu_count_held;

  bool operator==(const Observation& other) const;
};

// A rejected field is a RecordError: `field` is the JSON path
// ("hardware.gpu_count", "requested.memory_bytes"), `reason` says what was
// wrong and what is expected; `line` is 0 (one record). FieldError is its
// former name, kept while callers move to RecordError.
using FieldError = RecordError;

// What parsing one JSON record found. Not a Result<Observation>: one record
// yields every bad field at once, plus warnings, so the parse carries them;
// `observation` is set exactly when `errors` is empty. Every error and
// warning is a RecordError with line 0 (callers reading lines set it).
struct HWREC_EXPORT ObservationParse {
  std::optional<Observation> observation;  // set when `errors` is empty
  std::vector<RecordError> errors;         // every problem of the record
  std::vector<RecordError> warnings;       // unknown fields, with the closest known name
  std::string execution_id;                // as read, also when rejected ("" if none)
};

// Parses one JSON object (DESIGN §5). `finished_at` accepts RFC 3339 or epoch
// seconds. Checks types, required fields, text, signs, NaN and ranges, and
// reports every bad field. Unknown keys (top level, `hardware`, `requested`)
// are warnings naming the closest known field; errors when `strict`.
HWREC_EXPORT ObservationParse ParseObservationJson(std::string_view json, bool strict = false);

// The observation as one JSON object of the ingest format, on one line: what
// ParseObservationJson reads back into an equal Observation. Absent fields
// are left out and finished_at is epoch seconds. For a record built in C++
// that is to be queued, logged or sent to another process's ingest.
HWREC_EXPORT std::string ObservationToJson(const Observation& observation);

// Checks an Observation built in C++ the way ParseObservationJson checks JSON:
// every problem, at most one per field.
HWREC_EXPORT std::vector<RecordError> ObservationProblems(const Observation& observation);
// The GPUs a node with `hardware` offers an execution: its MIG partitions
// (gpu_total) when split into them, else its cards (gpu_count); nullopt when
// not recorded. gpu_count_held is at most this.
HWREC_EXPORT std::optional<std::int64_t> GpusOfNode(const HardwareProfile& hardware);

// The first of ObservationProblems, for callers that report one.
HWREC_EXPORT std::optional<RecordError> ValidateObservation(const Observation& observation);

}  // namespace hwrec
