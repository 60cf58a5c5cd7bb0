// The raw SQLite ceiling: how fast this machine writes hwrec's observations
// table with nothing but prepared INSERTs (same schema and indexes, same row
// shape, same transaction size, WAL + synchronous=NORMAL). Ingest is measured
// against it. The one place outside src/ that uses SQLiteCpp directly.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fixtures/observation_generator.h"

namespace hwrec::bench {

struct CeilingResult {
  std::int64_t offered = 0;   // records generated, as ingest was given
  std::int64_t inserted = 0;  // rows written (bad records skipped, re-sends ignored)
  double seconds = 0;         // INSERT transactions only
  std::vector<double> chunk_seconds;
};

struct CeilingOptions {
  std::int64_t observations = 0;
  std::size_t batch = 10000;  // records per transaction
  std::size_t chunk = 10000;  // records generated at a time, a multiple of batch
};

// Creates a fresh hwrec store at `path` and writes into it, chunk by chunk,
// the rows ingest would store for the generator's records: every column
// precomputed before the clock starts, workloads inserted beforehand.
// Throws std::exception on failure.
CeilingResult RunRawCeiling(const std::string& path,
                            const fixtures::ObservationGenerator& generator,
                            const CeilingOptions& options);

}  // namespace hwrec::bench
