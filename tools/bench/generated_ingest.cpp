#include "bench/generated_ingest.h"

#include <algorithm>
#include <stdexcept>

#include "bench/bench_util.h"

namespace hwrec::bench {

std::vector<RecordRange> Chunks(RecordRange range, std::int64_t chunk) {
  std::vector<RecordRange> chunks;
  for (std::int64_t first = range.first; first < range.first + range.count; first += chunk) {
    chunks.push_back({first, std::min(chunk, range.first + range.count - first)});
  }
  return chunks;
}

TimedIngest IngestGenerated(Store& store, const fixtures::ObservationGenerator& generator,
                            const std::vector<RecordRange>& chunks, std::size_t batch,
                            const std::string& source) {
  IngestOptions options;
  options.source = source;
  options.batch_size = batch;
  auto opened = Ingestor::Open(store, options);
  if (!opened.ok()) throw std::runtime_error(opened.status().ToString());
  Ingestor& ingestor = **opened;
  TimedIngest timed;
  std::vector<Observation> observations;
  Stopwatch stopwatch;
  for (const RecordRange& chunk : chunks) {
    generator.Fill(chunk.first, chunk.count, &observations);
    stopwatch.Start();
    Result<IngestSummary> summary = ingestor.Ingest(observations);
    stopwatch.Stop();
    if (!summary.ok()) throw std::runtime_error(summary.status().ToString());
    summary->rejects.clear();
    summary->warnings.clear();
    summary->conflict_execution_ids.clear();
    timed.summary += *summary;
    timed.offered += chunk.count;
  }
  timed.seconds = stopwatch.seconds();
  return timed;
}

}  // namespace hwrec::bench
