// Ingesting the generator's records through the public API, chunk by chunk,
// timing only the Ingest calls: what hwrec-bench engines and each writer of
// hwrec-bench concurrent-ingest do. Not thread-safe (one Store).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fixtures/observation_generator.h"
#include "hwrec/ingest.h"
#include "hwrec/store.h"

namespace hwrec::bench {

// Records [first, first + count) of the generator: handed to one Ingest call.
struct RecordRange {
  std::int64_t first = 0;
  std::int64_t count = 0;
};

struct TimedIngest {
  IngestSummary summary;  // counts only: rejects and conflict ids are dropped
  std::int64_t offered = 0;
  double seconds = 0;
};

// `ranges` split into Ingest calls of at most `chunk` records each.
std::vector<RecordRange> Chunks(RecordRange range, std::int64_t chunk);

// Ingests `chunks` in order, `batch` records per transaction. Throws
// std::runtime_error with the Status's message when an Ingest call fails.
TimedIngest IngestGenerated(Store& store, const fixtures::ObservationGenerator& generator,
                            const std::vector<RecordRange>& chunks, std::size_t batch,
                            const std::string& source);

}  // namespace hwrec::bench
