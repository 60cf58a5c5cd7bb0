// MetricState: the history of one metric (CPU, memory, GPU memory, compute
// share) of one workload on one hardware key, in constant space:
//  - a decaying histogram with exponentially growing buckets (each bucket 5 %
//    wider than the last, so a percentile is within 5 % of the exact one),
//    weights doubling every half-life relative to a reference time;
//  - a ring of the most recent values (by finish time) for "max of last N";
//  - count, decayed sum (for avg) and all-time max.
// Serialises to a compact blob stored in the aggregates table.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hwrec::internal {

inline constexpr double kBucketGrowth = 1.05;

class MetricState {
 public:
  // `unit` is the smallest value told apart (bucket 0 holds everything ≤ unit).
  explicit MetricState(double unit = 1.0) : unit_(unit) {}

  // Adds one value observed at `time` (epoch seconds).
  void Add(double value, double time, double half_life_s, std::size_t ring_size);
  // Adds every value `other` holds, as if each had been added here: the
  // weights are brought to a common reference time and the rings merged by
  // finish time. Both states must measure the same metric (same unit).
  void Merge(const MetricState& other, double half_life_s, std::size_t ring_size);

  std::int64_t count() const { return count_; }
  bool empty() const { return count_ == 0; }
  // Decayed total weight as seen at `as_of`.
  double DecayedWeight(double as_of, double half_life_s) const;
  // Weighted percentile (0 < q ≤ 1): the upper edge of the bucket that holds
  // it, never above the largest value seen.
  std::optional<double> Percentile(double q) const;
  std::optional<double> DecayedAverage() const;
  // Largest value among the most recent `n` (n ≤ ring size).
  std::optional<double> MaxOfRecent(std::size_t n) const;
  std::optional<double> MaxEver() const;

  void AppendTo(std::string* out) const;
  // Reads one state from `data` at `*offset`, advancing it; false if malformed.
  bool ReadFrom(const std::string& data, std::size_t* offset);

 private:
  int BucketOf(double value) const;
  double UpperEdge(int bucket) const;
  void Rebase(double time, double half_life_s);

  double unit_;
  double reference_time_ = 0;  // weights are 2^((t - reference_time_) / half-life)
  int first_bucket_ = 0;
  std::vector<double> weights_;  // buckets first_bucket_ .. first_bucket_ + size - 1
  double total_weight_ = 0;
  double weighted_sum_ = 0;
  std::int64_t count_ = 0;
  double max_ = 0;
  std::vector<std::pair<double, double>> recent_;  // (time, value), oldest first
};

}  // namespace hwrec::internal
