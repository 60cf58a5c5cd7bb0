// The placements table: the effective request chosen for an execution, with
// its provenance and the time, one row per execution (DESIGN §7). Uses the
// Store's connection: one thread at a time, like the Store.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hwrec/export.h"
#include "hwrec/placement_result.h"
#include "hwrec/status.h"

namespace hwrec {

class Store;

// Writes the chosen effective request of `result` onto the `placements` row
// of `execution_id`, with its provenance and the time, in one write
// transaction. Returns the row id. One row per execution: recording the same
// decision again changes nothing; another decision replaces the row (same id,
// new time), as the latest choice is the one applied. Returns kInvalidArgument
// when `execution_id` is empty or nothing was chosen, kReadOnly when the store
// is read-only, kIoError when the store cannot be written.
HWREC_EXPORT Result<std::int64_t> RecordPlacement(Store& store, const std::string& execution_id,
                                                  const PlacementResult& result);

// A recorded placement, as RecordPlacement wrote it.
struct HWREC_EXPORT PlacementRecord {
  std::int64_t id = 0;
  std::string execution_id;
  std::string workload;
  std::string node_pool_id;
  PlacementPolicy policy = PlacementPolicy::kBestFit;
  EffectiveRequest request;
  double placed_at = 0;  // epoch seconds
};

// The placement recorded for `execution_id`: none or one. Returns kIoError when
// the store cannot be read.
HWREC_EXPORT Result<std::vector<PlacementRecord>> ListPlacements(const Store& store,
                                                                 const std::string& execution_id);

}  // namespace hwrec
