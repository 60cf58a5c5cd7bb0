// The history the recommend and backtest benches replay: realistic
// executions of one workload on one registered A100 80GB pool.
#pragma once

#include <cstdint>
#include <string>

#include "hwrec/node_pool.h"
#include "hwrec/store.h"

namespace hwrec::bench {

inline constexpr double kHistorySpan = 42 * 86400.0;  // six weeks
// Where the history starts: six weeks before today's midnight (UTC), so that
// every execution finished before now and ingest accepts it.
double HistoryStart();

// The pool every execution runs on (register it before PopulateHistory).
NodePool BenchPool();
// Ingests `count` executions of `image` on BenchPool(), evenly over the six
// weeks, each with a duration, CPU, memory and GPU memory drawn from `seed`.
// Throws when ingest rejects any.
void PopulateHistory(Store& store, const std::string& image, std::int64_t count,
                     std::uint64_t seed);

}  // namespace hwrec::bench
