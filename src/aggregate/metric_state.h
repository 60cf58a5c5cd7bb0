// MetricState: the history of one metric (CPU, memory, GPU memory, compute
// share) of one workload on one hardware key, in constant space:
//  - a decaying histogram with exponentially growing buckets (each bucket 5 %
//    wider than the last, so a percentile is within 5 % of the exact one, at
//    most kMaxBuckets of them), weights doubling every half-life relative to a
//    reference time that moves with the newest sample (as the Kubernetes VPA's
//    decaying histogram does), so no weight can overflow;
//  - a ring of the most recent values (by finish time) for "max of last N",
//    each with the id of the observation it came from (observations.id; 0
//    when unknown: a state stored before format 3), so that a figure can name
//    the execution that set it;
//  - count, decayed sum (for avg), decayed sum of squared weights (for the
//    effective sample size) and all-time max.
// Every number it holds stays finite whatever values and times it is given.
// Serialises to a compact blob stored in the aggregates table.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hwrec::internal {

inline constexpr double kBucketGrowth = 1.05;
// Buckets per metric. Values are clamped to the last bucket's upper edge,
// unit × 1.05^511 (6.7e10 units: 70 PB of memory, 67 million cores), beyond
// anything hardware holds, so a state never exceeds 4 KiB of weights.
inline constexpr int kMaxBuckets = 512;

// One value of the ring of most recent values.
struct RecentValue {
  double time = 0;  // finish time, epoch seconds
  double value = 0;
  std::int64_t observation_id = 0;  // observations.id; 0 when unknown
};

// The bucket of a percentile (MetricState::PercentileBucket).
struct PercentileBucket {
  double lower = 0;              // the bucket's lower edge (0 for the first bucket)
  double upper = 0;              // its upper edge, never above the largest value seen
  double share_at_or_below = 0;  // decayed share of the history in it and beneath, 0..1
};

class MetricState {
 public:
  // `unit` is the smallest value told apart (bucket 0 holds everything ≤ unit).
  explicit MetricState(double unit = 1.0) : unit_(unit) {}

  // Adds one value observed at `time` (epoch seconds) by the observation
  // `observation_id` (0: unknown). The value is clamped to [0, MaxValue()]; a
  // NaN value or time says nothing and is ignored.
  void Add(double value, double time, double half_life_s, std::size_t ring_size,
           std::int64_t observation_id = 0);
  // Adds every value `other` holds, as if each had been added here: the
  // weights are brought to a common reference time and the rings merged by
  // finish time. Both states must measure the same metric (same unit).
  void Merge(const MetricState& other, double half_life_s, std::size_t ring_size);

  std::int64_t count() const { return count_; }
  bool empty() const { return count_ == 0; }
  // Kish's effective sample size of the decayed weights, (Σw)² / Σw²: about
  // how many executions the history amounts to, between 1 and count() (0 when
  // empty). It does not change when every sample ages alike.
  double EffectiveSamples() const;
  // The finish time of the newest value.
  std::optional<double> LastSeen() const;
  // The largest value kept: the upper edge of the last bucket.
  double MaxValue() const { return UpperEdge(kMaxBuckets - 1); }
  // Weighted percentile (0 < q ≤ 1): the upper edge of the bucket that holds
  // it, never above the largest value seen.
  std::optional<double> Percentile(double q) const;
  std::optional<double> DecayedAverage() const;
  // Largest value among the most recent `n` (n ≤ ring size).
  std::optional<double> MaxOfRecent(std::size_t n) const;
  // The value MaxOfRecent(n) returns, with its time and observation: the
  // newest of the values that equal the max.
  std::optional<RecentValue> MaxOfRecentEntry(std::size_t n) const;
  // The bucket Percentile(q) reads from, and the decayed share of the history
  // in it and beneath it.
  std::optional<PercentileBucket> BucketOfPercentile(double q) const;
  std::optional<double> MaxEver() const;
  // Whether `other` holds the same history as far as figures read it: each
  // bucket's share of the decayed weight within `tolerance` (states built in
  // another order round differently), and the same recent values by time and
  // value (in any order among equal times). A full ring (`ring_size`) may
  // have kept other values of its oldest time: which of equal times were
  // dropped depends on the order they were added in, so there only their
  // number must agree.
  bool SameHistory(const MetricState& other, double tolerance, std::size_t ring_size) const;

  void AppendTo(std::string* out) const;
  // Reads one state from `data` at `*offset`, advancing it; false if malformed,
  // including a state with a non-finite number, a negative weight, a value
  // above MaxValue() or buckets beyond kMaxBuckets (a corrupt state).
  bool ReadFrom(std::string_view data, std::size_t* offset);

 private:
  int BucketOf(double value) const;
  double UpperEdge(int bucket) const;
  void Rebase(double time, double half_life_s);
  void AddToBucket(int bucket, double weight);
  void Remember(const RecentValue& recent, std::size_t ring_size);
  std::optional<std::size_t> PercentileIndex(double q) const;
  bool ReadBody(std::string_view data, std::size_t* offset, std::uint8_t version);
  bool Valid() const;

  double unit_;
  // Weights are 2^((t - reference_time_) / half-life), at most 2^64: the
  // reference moves to a sample more than 64 half-lives newer.
  double reference_time_ = 0;
  int first_bucket_ = 0;
  std::vector<double> weights_;  // buckets first_bucket_ .. first_bucket_ + size - 1
  double total_weight_ = 0;
  double weighted_sum_ = 0;
  double squared_weight_ = 0;  // Σw²
  std::int64_t count_ = 0;
  double max_ = 0;
  std::vector<RecentValue> recent_;  // oldest first
};

}  // namespace hwrec::internal
