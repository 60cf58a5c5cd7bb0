// The history the recommend and backtest benches replay: realistic
// executions of one workload on one registered A100 80GB pool.
#pragma once

#include <boost/program_options.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hwrec/node_pool.h"
#include "hwrec/store.h"

namespace hwrec::bench {

inline constexpr double kHistorySpan = 42 * 86400.0;  // six weeks
// Where the history starts: six weeks before today's midnight (UTC), so that
// every execution finished before now and ingest accepts it.
double HistoryStart();

// The options of a bench on this history: --observations/-n (at least
// 20,000), --seed and --format.
struct HistoryOptions {
  std::int64_t observations = 1000000;
  std::uint64_t seed = 1;
  bool json = false;
};
// Parses `args` with them and the bench's own `options` (nullopt after
// --help); a UsageError names a bad value.
std::optional<HistoryOptions> ParseHistoryOptions(
    const std::vector<std::string>& args, boost::program_options::options_description& options,
    const char* usage);

// The pool every execution runs on (register it before PopulateHistory).
NodePool BenchPool();
// A new store at `path` with BenchPool() registered; throws on failure.
std::unique_ptr<Store> NewHistoryStore(const std::string& path);
// Ingests `count` executions of `image` on BenchPool(), evenly over the six
// weeks, each with a duration, CPU, memory and GPU memory drawn from `seed`.
// Throws when ingest rejects any.
void PopulateHistory(Store& store, const std::string& image, std::int64_t count,
                     std::uint64_t seed);

}  // namespace hwrec::bench
