// Small measuring tools for hwrec-bench: an accumulating stopwatch, the
// process's peak resident set, percentiles, number formatting and a scratch
// directory. Not thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/human_bytes.h"
#include "common/store_argument.h"
#include "hwrec/store.h"

namespace hwrec::bench {

// Sums the time between Start() and Stop() over any number of laps.
class Stopwatch {
 public:
  void Start() { started_ = Clock::now(); }
  // Ends the lap and returns its seconds.
  double Stop();
  double seconds() const { return total_; }
  const std::vector<double>& laps() const { return laps_; }

 private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point started_;
  double total_ = 0;
  std::vector<double> laps_;
};

// The largest resident set this process has had so far (getrusage ru_maxrss).
std::int64_t PeakRssBytes();

// The p-th percentile (0..100) by linear interpolation; 0 for no values.
double Percentile(std::vector<double> values, double p);

// The 1-minute load average; a busy machine makes every figure unreliable.
double LoadAverage();

// 1234567 -> "1,234,567"
std::string WithThousands(std::int64_t value);
using tools::HumanBytes;  // "45.2 MiB"
// count / seconds, or 0 when nothing was timed.
double PerSecond(std::int64_t count, double seconds);

// Writes a file's dirty pages to disk, so that the kernel's write-back of one
// measured phase does not slow the next. Best effort: errors are ignored.
void FlushFileToDisk(const std::string& path);

// How a bench opens a store: made at the latest schema when the path is fresh.
inline StoreOptions BenchStoreOptions() { return tools::CreatingStoreOptions(); }

// Quotes one argument for /bin/sh.
std::string ShellQuote(const std::string& arg);

// Runs `command` through /bin/sh (its standard error passes through) and
// returns what it printed, parsed as JSON; throws naming `what` when it fails
// or prints something else.
nlohmann::json RunForJson(const std::string& command, const std::string& what);

// A fresh directory under the system temp dir, removed at destruction.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  std::string File(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace hwrec::bench
