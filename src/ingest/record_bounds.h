// What a record may claim about its time and its hardware (DESIGN §5): a
// finished_at no later than the store's clock plus the allowed skew, and
// observed peaks no larger than the resolved hardware holds. Pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "hwrec/observation.h"
#include "ingest/hardware_resolver.h"

namespace hwrec::internal {

// How far a peak may exceed its bound before it is refused: measurement
// noise and rounding of the advertised sizes, not hardware.
inline constexpr double kHardwareBoundTolerance = 0.05;

// A reject naming finished_at when it is later than `latest` (now plus the
// skew of `max_skew_hours`), saying when it looks like milliseconds.
std::optional<FieldError> CheckFinishedAt(double finished_at, double now, double max_skew_hours);

// What a record may report where its hardware's size is unknown (an
// unregistered pool, a card the catalog does not know): from the settings
// ingest.unknown_hardware.*. Absent: no such bound.
struct UnknownHardwareBounds {
  std::optional<double> gpu_memory_gb;  // the largest catalogued card × the factor
  std::optional<double> cpu_millicores;
  std::optional<double> memory_bytes;
};

// A reject for each observed figure above what `resolved` holds, in field
// order: GPU memory above the partition (or card), CPU above the node's
// millicores, memory above the node's bytes, then GPUs held above the GPUs of
// the node the pool resolved. Bounds the hardware does not
// record are not checked. Empty when every figure is within its bound.
std::vector<FieldError> CheckWithinHardware(const Observation& observation,
                                            const ResolvedHardware& resolved,
                                            const UnknownHardwareBounds& unknown = {});

// Every bound a parsed record breaks, in field order: finished_at against the
// clock, then (when its hardware resolved) each figure above that hardware.
// Ingest and the legacy migration both refuse a record by this one list.
std::vector<FieldError> BoundsErrors(const Observation& observation,
                                     const ResolvedHardware* resolved, double now,
                                     double max_skew_hours,
                                     const UnknownHardwareBounds& unknown = {});

// The errors as one reason: "field: reason; field: reason".
std::string JoinedReasons(const std::vector<FieldError>& errors);

}  // namespace hwrec::internal
