#include "aggregate/metric_state.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <iostream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "aggregate/aggregator.h"
#include "recommend/estimator.h"

using hwrec::internal::MetricState;

namespace {

constexpr double kHalfLife = 12 * 3600.0;

double ExactPercentile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size())));
  return values[std::max<std::size_t>(rank, 1) - 1];
}

// `state` written to its blob and read back.
MetricState RoundTrip(const MetricState& state) {
  std::string blob;
  state.AppendTo(&blob);
  MetricState copy;
  std::size_t offset = 0;
  REQUIRE(copy.ReadFrom(blob, &offset));
  CHECK(offset == blob.size());
  return copy;
}

}  // namespace

TEST_CASE("histogram: percentiles stay within 5 % of the exact ones", "[aggregate]") {
  std::mt19937_64 rng(42);
  std::lognormal_distribution<double> peaks(std::log(8e9), 0.6);
  MetricState state(1024.0 * 1024.0);
  std::vector<double> values;
  for (int i = 0; i < 5000; ++i) {
    const double v = peaks(rng);
    values.push_back(v);
    state.Add(v, 1.7e9, kHalfLife, 10);  // one instant: equal weights
  }
  for (double q : {0.5, 0.9, 0.95, 0.98, 0.99}) {
    INFO("q = " << q);
    const double exact = ExactPercentile(values, q);
    const double ours = *state.Percentile(q);
    CHECK(ours >= exact * 0.95);
    CHECK(ours <= exact * 1.05);
  }
}

TEST_CASE("histogram: decay makes old values weigh less", "[aggregate]") {
  MetricState state(1.0);
  const double now = 1.7e9;
  for (int i = 0; i < 20; ++i) state.Add(1000, now - 10 * 24 * 3600.0, kHalfLife, 10);
  for (int i = 0; i < 20; ++i) state.Add(100, now, kHalfLife, 10);
  CHECK(*state.Percentile(0.95) <= 105);
  CHECK(*state.MaxEver() == 1000);
  // Ten days older (20 half-lives), the old values add almost no evidence.
  CHECK(state.EffectiveSamples() == Approx(20.0).epsilon(1e-3));
  CHECK(state.count() == 40);
}

TEST_CASE("histogram: the recent ring keeps the latest executions by finish time", "[aggregate]") {
  MetricState state(1.0);
  for (int i = 0; i < 15; ++i) state.Add(i == 2 ? 900 : 10 + i, 1000.0 + i, kHalfLife, 10);
  CHECK(*state.MaxOfRecent(10) == 24);   // the 900 at t=1002 fell out of the last 10
  state.Add(500, 500.0, kHalfLife, 10);  // older than every kept value: ignored by the ring
  CHECK(*state.MaxOfRecent(10) == 24);
  state.Add(700, 2000.0, kHalfLife, 10);
  CHECK(*state.MaxOfRecent(10) == 700);
}

TEST_CASE("histogram: state survives a round trip through its blob", "[aggregate]") {
  MetricState state(0.01);
  for (int i = 1; i <= 50; ++i) state.Add(i * 0.7, 1.7e9 + i * 60, kHalfLife, 10);
  const MetricState copy = RoundTrip(state);
  CHECK(*copy.Percentile(0.95) == *state.Percentile(0.95));
  CHECK(*copy.MaxOfRecent(10) == *state.MaxOfRecent(10));
  CHECK(copy.count() == 50);
  CHECK(copy.EffectiveSamples() == state.EffectiveSamples());
  CHECK(*copy.LastSeen() == 1.7e9 + 50 * 60);
  std::string blob;
  state.AppendTo(&blob);
  MetricState truncated;
  std::size_t bad_offset = 0;
  CHECK_FALSE(truncated.ReadFrom(blob.substr(0, blob.size() / 2), &bad_offset));
}

TEST_CASE("estimator: compute shares round up to the ladder within (0, 1]", "[aggregate]") {
  using hwrec::internal::RoundToLadder;
  CHECK(RoundToLadder(0.4929, 0.05) == Approx(0.5));
  CHECK(RoundToLadder(0.575, 0.05) == Approx(0.6));
  CHECK(RoundToLadder(0.5, 0.05) == Approx(0.5));
  CHECK(RoundToLadder(0.0001, 0.05) == Approx(0.05));
  CHECK(RoundToLadder(1.3, 0.05) == Approx(1.0));
}

TEST_CASE("histogram: merging two states equals adding every value to one", "[aggregate]") {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> peaks(std::log(4e9), 0.5);
  std::uniform_real_distribution<double> times(1.7e9, 1.7e9 + 30 * 24 * 3600.0);
  MetricState single(1024.0 * 1024.0), first(1024.0 * 1024.0), second(1024.0 * 1024.0);
  for (int i = 0; i < 3000; ++i) {
    const double v = peaks(rng);
    const double t = times(rng);
    single.Add(v, t, kHalfLife, 10);
    (i % 3 == 0 ? first : second).Add(v, t, kHalfLife, 10);
  }
  MetricState merged = first;
  merged.Merge(second, kHalfLife, 10);
  CHECK(merged.count() == single.count());
  CHECK(*merged.MaxEver() == *single.MaxEver());
  CHECK(*merged.MaxOfRecent(10) == *single.MaxOfRecent(10));
  CHECK(*merged.MaxOfRecent(3) == *single.MaxOfRecent(3));
  CHECK(*merged.DecayedAverage() == Approx(*single.DecayedAverage()).epsilon(1e-9));
  CHECK(merged.EffectiveSamples() == Approx(single.EffectiveSamples()).epsilon(1e-9));
  CHECK(*merged.LastSeen() == *single.LastSeen());
  for (double q : {0.5, 0.9, 0.95, 0.99}) {
    INFO("q = " << q);
    CHECK(*merged.Percentile(q) == Approx(*single.Percentile(q)).epsilon(1e-12));
  }

  SECTION("merging into an empty state copies, merging an empty one changes nothing") {
    MetricState empty(1024.0 * 1024.0);
    empty.Merge(single, kHalfLife, 4);
    CHECK(empty.count() == single.count());
    CHECK(*empty.Percentile(0.95) == *single.Percentile(0.95));
    CHECK(*empty.MaxOfRecent(4) == *single.MaxOfRecent(4));
    const double before = *single.Percentile(0.95);
    single.Merge(MetricState(1024.0 * 1024.0), kHalfLife, 10);
    CHECK(*single.Percentile(0.95) == before);
    CHECK(single.count() == 3000);
  }
}

namespace {

using hwrec::internal::kMaxBuckets;

constexpr double kYear = 365.25 * 86400;
constexpr std::array<double, 4> kMetricUnits = {1.0, 1024.0 * 1024.0, 0.01, 0.001};

// Every extreme a stored value can take, and values at the bucket cap.
std::vector<double> ExtremeValues(double unit) {
  const double cap = unit * std::pow(hwrec::internal::kBucketGrowth, kMaxBuckets - 1);
  return {0.0,
          std::numeric_limits<double>::denorm_min(),
          1e-300,
          unit,
          1.0,
          1e300,
          1e307,
          std::numeric_limits<double>::max(),
          std::numeric_limits<double>::infinity(),  // what an overflowing product gives
          cap * (1 - 1e-12),
          cap,
          cap * (1 + 1e-12)};
}

// The blob of a state whose buckets stay within the cap, with a ring of `ring` values.
std::size_t MaxBlobBytes(std::size_t ring) {
  return static_cast<std::size_t>(kMaxBuckets) * sizeof(double) + 128 + ring * 24;
}

void CheckFinite(const MetricState& state, std::size_t ring) {
  CHECK(std::isfinite(state.EffectiveSamples()));
  CHECK(state.EffectiveSamples() >= 1);
  CHECK(state.EffectiveSamples() <= static_cast<double>(state.count()));
  CHECK(std::isfinite(*state.LastSeen()));
  for (double q : {0.01, 0.5, 0.95, 0.98, 1.0}) {
    INFO("q = " << q);
    REQUIRE(state.Percentile(q).has_value());
    CHECK(std::isfinite(*state.Percentile(q)));
  }
  CHECK(std::isfinite(*state.MaxEver()));
  CHECK(std::isfinite(*state.MaxOfRecent(ring)));
  CHECK(std::isfinite(*state.DecayedAverage()));
  std::string blob;
  state.AppendTo(&blob);
  CHECK(blob.size() <= MaxBlobBytes(ring));
  MetricState copy;
  std::size_t offset = 0;
  CHECK(copy.ReadFrom(blob, &offset));
  hwrec::internal::RecommenderSettings settings;
  for (auto& figure : settings.figures) figure.margin = 10;  // the largest margin allowed
  for (std::size_t k = 0; k < hwrec::kFigureCount; ++k) {
    const auto kind = static_cast<hwrec::FigureKind>(k);
    INFO(hwrec::ToString(kind));
    const auto figure =
        hwrec::internal::EstimateFigure(kind, state, settings, hwrec::Provenance::kExact);
    REQUIRE(figure.value.has_value());
    CHECK(std::isfinite(*figure.value));
    CHECK(std::isfinite(*figure.lower));
    CHECK(std::isfinite(*figure.upper));
    CHECK(std::isfinite(figure.confidence));
    CHECK(figure.confidence <= 1);
  }
}

}  // namespace

TEST_CASE("histogram: every extreme value keeps figures finite and buckets within the cap",
          "[aggregate][extreme]") {
  for (double unit : kMetricUnits) {
    for (double value : ExtremeValues(unit)) {
      INFO("unit " << unit << ", value " << value);
      MetricState state(unit);
      state.Add(0.0, 1.7e9, kHalfLife, 10);  // an earlier value near 0 spans the whole range
      state.Add(value, 1.7e9 + 60, kHalfLife, 10);
      state.Add(unit * 2, 1.7e9 + 120, kHalfLife, 10);
      CheckFinite(state, 10);
      CHECK(*state.MaxEver() <= unit * std::pow(hwrec::internal::kBucketGrowth, kMaxBuckets));
    }
  }
}

TEST_CASE("histogram: histories years apart, in either order, keep weights finite",
          "[aggregate][extreme]") {
  const double now = 1.7e9;
  const std::vector<double> times = {now - 30 * kYear, now - kYear, now,   now + kYear,
                                     now + 30 * kYear, 1e300,       -1e300};
  for (bool ascending : {true, false}) {
    INFO((ascending ? "oldest first" : "newest first"));
    MetricState state(1.0);
    std::vector<double> order = times;
    std::sort(order.begin(), order.end());
    if (!ascending) std::reverse(order.begin(), order.end());
    for (double t : order) state.Add(100, t, kHalfLife, 10);
    CheckFinite(state, 10);
    CHECK(*state.DecayedAverage() == Approx(100));
  }
  SECTION("the newest values decide a percentile, whichever order they came in") {
    MetricState newest_last(1.0), newest_first(1.0);
    newest_last.Add(1000, now - 10 * kYear, kHalfLife, 10);
    newest_last.Add(10, now, kHalfLife, 10);
    newest_first.Add(10, now, kHalfLife, 10);
    newest_first.Add(1000, now - 10 * kYear, kHalfLife, 10);
    CHECK(*newest_last.Percentile(0.95) <= 10.5);
    CHECK(*newest_first.Percentile(0.95) <= 10.5);
  }
}

TEST_CASE("histogram: merging extreme states years apart stays finite and bounded",
          "[aggregate][extreme]") {
  const double now = 1.7e9;
  for (double unit : kMetricUnits) {
    for (double shift : {-40 * kYear, -kYear, 0.0, kYear, 40 * kYear, 1e300}) {
      INFO("unit " << unit << ", shift " << shift);
      MetricState old_state(unit), new_state(unit);
      for (double v : ExtremeValues(unit)) old_state.Add(v, now, kHalfLife, 10);
      for (double v : ExtremeValues(unit)) new_state.Add(v / 2, now + shift, kHalfLife, 10);
      MetricState forward = old_state;
      forward.Merge(new_state, kHalfLife, 10);
      MetricState backward = new_state;
      backward.Merge(old_state, kHalfLife, 10);
      CheckFinite(forward, 10);
      CheckFinite(backward, 10);
      CHECK(forward.count() == backward.count());
    }
  }
}

TEST_CASE("histogram: seeded random extreme histories stay finite and bounded",
          "[aggregate][extreme]") {
  const std::uint64_t seed = 20261201;
  std::cout << "histogram extremes: seed " << seed << "\n";
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> pick(0, 11);
  std::uniform_real_distribution<double> years(-50, 50);
  for (double unit : kMetricUnits) {
    const auto values = ExtremeValues(unit);
    MetricState total(unit);
    for (int round = 0; round < 20; ++round) {
      MetricState part(unit);
      for (int i = 0; i < 50; ++i) {
        const double v = values[static_cast<std::size_t>(pick(rng))] * (i % 7 == 0 ? 0.5 : 1);
        part.Add(v, 1.7e9 + years(rng) * kYear, kHalfLife, 10);
      }
      total.Merge(part, kHalfLife, 10);
    }
    INFO("seed " << seed << ", unit " << unit);
    CheckFinite(total, 10);
  }
}

namespace {

template <typename T>
void Put(std::string* out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out->append(bytes, sizeof(T));
}

// A state in the format hwrec wrote before it kept the sum of squared weights
// (format 1): `weights` from bucket `first`, equal totals, one recent value.
std::string FormatOneBlob(double unit, std::int32_t first, const std::vector<double>& weights,
                          double total, double max) {
  std::string blob;
  Put<std::uint8_t>(&blob, 1);
  Put(&blob, unit);
  Put(&blob, 1.7e9);  // reference time
  Put(&blob, first);
  Put(&blob, static_cast<std::uint32_t>(weights.size()));
  for (double w : weights) Put(&blob, w);
  Put(&blob, total);
  Put(&blob, total * max);  // weighted sum
  Put<std::int64_t>(&blob, static_cast<std::int64_t>(weights.size()));
  Put(&blob, max);
  Put<std::uint32_t>(&blob, 1);
  Put(&blob, 1.7e9);
  Put(&blob, max);
  return blob;
}

bool Reads(const std::string& blob) {
  MetricState state;
  std::size_t offset = 0;
  return state.ReadFrom(blob, &offset) && offset == blob.size();
}

}  // namespace

TEST_CASE("histogram: a stored state with non-finite numbers or absurd buckets is refused",
          "[aggregate][extreme]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(Reads(FormatOneBlob(1.0, 3, {1, 2}, 3, 4)));
  CHECK_FALSE(Reads(FormatOneBlob(1.0, 3, {1, nan}, 3, 4)));
  CHECK_FALSE(Reads(FormatOneBlob(1.0, 3, {1, 2}, inf, 4)));
  CHECK_FALSE(Reads(FormatOneBlob(1.0, 3, {1, 2}, 3, nan)));
  CHECK_FALSE(Reads(FormatOneBlob(inf, 3, {1, 2}, 3, 4)));
  CHECK_FALSE(Reads(FormatOneBlob(0.0, 3, {1, 2}, 3, 4)));
  CHECK_FALSE(Reads(FormatOneBlob(1.0, 3, {1, -2}, 3, 4)));
  CHECK_FALSE(Reads(FormatOneBlob(1.0, 3, {1, 2}, 3, std::numeric_limits<double>::max())));
  CHECK_FALSE(Reads(FormatOneBlob(1.0, -5, {1, 2}, 3, 4)));
  CHECK_FALSE(Reads(FormatOneBlob(1.0, kMaxBuckets - 1, {1, 2}, 3, 4)));
  CHECK_FALSE(Reads(
      FormatOneBlob(1.0, 0, std::vector<double>(static_cast<std::size_t>(kMaxBuckets) + 1, 1.0),
                    kMaxBuckets + 1.0, 4)));
}

TEST_CASE("histogram: a state stored before Σw² was kept reads with a conservative evidence",
          "[aggregate][confidence]") {
  // Two buckets of weight 1 and 2 (three samples): Σw² is unknown, at least
  // 1² + 2² = 5 is assumed, so the effective sample size reads 9 / 5.
  MetricState state;
  std::size_t offset = 0;
  const std::string blob = FormatOneBlob(1.0, 3, {1, 2}, 3, 4);
  REQUIRE(state.ReadFrom(blob, &offset));
  CHECK(state.EffectiveSamples() == Approx(9.0 / 5.0));
  CHECK(*state.LastSeen() == 1.7e9);
  std::string rewritten;
  state.AppendTo(&rewritten);
  MetricState copy;
  offset = 0;
  REQUIRE(copy.ReadFrom(rewritten, &offset));
  CHECK(copy.EffectiveSamples() == Approx(9.0 / 5.0));
}

TEST_CASE("histogram: evidence is the effective number of executions, unchanged by age",
          "[aggregate][confidence]") {
  MetricState week_old(1.0), hour_old(1.0);
  for (int i = 0; i < 6; ++i) {
    week_old.Add(100 + i, 1.7e9 - 7 * 86400.0 + i * 600, kHalfLife, 10);
    hour_old.Add(100 + i, 1.7e9 - 3600.0 + i * 600, kHalfLife, 10);
  }
  CHECK(week_old.EffectiveSamples() == Approx(hour_old.EffectiveSamples()).epsilon(1e-12));
  CHECK(hour_old.EffectiveSamples() > 5.9);
  CHECK(hour_old.EffectiveSamples() <= 6);
  MetricState single(1.0);
  single.Add(100, 1.7e9, kHalfLife, 10);
  CHECK(single.EffectiveSamples() == 1);
  CHECK(MetricState(1.0).EffectiveSamples() == 0);
}

TEST_CASE("aggregate: an OOM bump on a huge value stays finite", "[aggregate][extreme]") {
  using hwrec::internal::AggregateInput;
  using hwrec::internal::MetricValues;
  const hwrec::internal::RecommenderSettings settings;
  for (double huge : {1e300, 1e307, std::numeric_limits<double>::max(),
                      std::numeric_limits<double>::infinity()}) {
    INFO("value " << huge);
    AggregateInput memory;
    memory.status = hwrec::ExecutionStatus::kOom;
    memory.memory_peak_bytes = huge;
    memory.requested_memory_bytes = huge;
    AggregateInput gpu;
    gpu.status = hwrec::ExecutionStatus::kGpuOom;
    gpu.has_gpu = true;
    gpu.gpu_memory_peak_gb = huge;
    gpu.requested_gpu_memory_gb = huge;
    gpu.gpu_compute_fraction = huge;
    gpu.gpu_utilization = huge;
    for (const AggregateInput& input : {memory, gpu}) {
      for (const auto& value : MetricValues(input, settings)) {
        if (value) CHECK(std::isfinite(*value));
      }
    }
    hwrec::internal::KeyAggregate aggregate;
    for (const AggregateInput& input : {memory, gpu}) {
      const auto values = MetricValues(input, settings);
      for (std::size_t m = 0; m < values.size(); ++m) {
        if (values[m]) aggregate.metrics[m].Add(*values[m], 1.7e9, kHalfLife, 10);
      }
    }
    hwrec::internal::KeyAggregate copy;
    CHECK(copy.Deserialize(aggregate.Serialize()));
    CHECK(aggregate.Serialize().size() <= hwrec::internal::kMetricCount * MaxBlobBytes(10));
  }
}

namespace {

// A state as hwrec wrote it at format 2 (before recent values kept their
// observation ids): `recent` as (time, value), three samples in bucket 3.
std::string FormatTwoBlob(const std::vector<std::pair<double, double>>& recent) {
  std::string blob;
  Put<std::uint8_t>(&blob, 2);
  Put(&blob, 1.0);    // unit
  Put(&blob, 1.7e9);  // reference time
  Put<std::int32_t>(&blob, 3);
  Put<std::uint32_t>(&blob, 1);
  Put(&blob, 3.0);  // bucket weight
  Put(&blob, 3.0);  // total weight
  Put(&blob, 9.0);  // weighted sum
  Put(&blob, 3.0);  // Σw²
  Put<std::int64_t>(&blob, 3);
  Put(&blob, 4.0);  // max
  Put<std::uint32_t>(&blob, static_cast<std::uint32_t>(recent.size()));
  for (const auto& [time, value] : recent) {
    Put(&blob, time);
    Put(&blob, value);
  }
  return blob;
}

}  // namespace

TEST_CASE("histogram: recent values keep the id of their observation through a round trip",
          "[aggregate][explain]") {
  MetricState state(0.01);
  state.Add(20.5, 1.7e9, kHalfLife, 10, 101);
  state.Add(31.2, 1.7e9 + 60, kHalfLife, 10, 102);
  state.Add(12.0, 1.7e9 + 120, kHalfLife, 10, 103);
  const MetricState copy = RoundTrip(state);
  const auto max = copy.MaxOfRecentEntry(10);
  REQUIRE(max.has_value());
  CHECK(max->value == 31.2);
  CHECK(max->time == 1.7e9 + 60);
  CHECK(max->observation_id == 102);
  CHECK(copy.MaxOfRecent(10) == state.MaxOfRecent(10));
  CHECK(copy.Percentile(0.5) == state.Percentile(0.5));
}

TEST_CASE("histogram: a format 2 state still reads, its recent values with no id",
          "[aggregate][explain]") {
  MetricState state;
  std::size_t offset = 0;
  const std::string blob = FormatTwoBlob({{1.7e9, 2.0}, {1.7e9 + 60, 4.0}});
  REQUIRE(state.ReadFrom(blob, &offset));
  CHECK(offset == blob.size());
  CHECK(state.count() == 3);
  CHECK(state.EffectiveSamples() == Approx(3.0));
  const auto max = state.MaxOfRecentEntry(10);
  REQUIRE(max.has_value());
  CHECK(max->value == 4.0);
  CHECK(max->time == 1.7e9 + 60);
  CHECK(max->observation_id == 0);
  // Written again, it is format 3 and reads the same.
  CHECK(RoundTrip(state).MaxOfRecentEntry(10)->time == 1.7e9 + 60);
  // A ring that claims more entries than the blob holds is refused.
  std::string cut = blob.substr(0, blob.size() - 8);
  MetricState refused;
  offset = 0;
  CHECK_FALSE(refused.ReadFrom(cut, &offset));
}

TEST_CASE("histogram: the ring keeps the id of each value it keeps, and merges keep them",
          "[aggregate][explain]") {
  MetricState state(1.0);
  state.Add(900, 1000, kHalfLife, 3, 1);  // the max, until it leaves the last 3
  state.Add(100, 1001, kHalfLife, 3, 2);
  state.Add(300, 1002, kHalfLife, 3, 3);
  CHECK(state.MaxOfRecentEntry(3)->observation_id == 1);
  state.Add(200, 1003, kHalfLife, 3, 4);
  CHECK(state.MaxOfRecentEntry(3)->observation_id == 3);
  CHECK(state.MaxOfRecentEntry(3)->value == 300);
  // Of equal values, the newest names the max.
  state.Add(300, 1004, kHalfLife, 3, 5);
  CHECK(state.MaxOfRecentEntry(3)->observation_id == 5);

  MetricState other(1.0);
  other.Add(500, 1003.5, kHalfLife, 3, 7);
  MetricState merged = state;
  merged.Merge(other, kHalfLife, 3);
  CHECK(merged.MaxOfRecentEntry(3)->observation_id == 7);
  CHECK(RoundTrip(merged).MaxOfRecentEntry(3)->observation_id == 7);
}

TEST_CASE("histogram: the bucket of a percentile and the share of history at or below it",
          "[aggregate][explain]") {
  MetricState state(1.0);
  for (int i = 0; i < 9; ++i) state.Add(100, 1.7e9, kHalfLife, 10, i + 1);
  state.Add(1000, 1.7e9, kHalfLife, 10, 10);
  const auto median = state.BucketOfPercentile(0.5);
  REQUIRE(median.has_value());
  CHECK(median->lower < 100);
  CHECK(median->upper >= 100);
  CHECK(median->upper == *state.Percentile(0.5));
  CHECK(median->upper / median->lower == Approx(hwrec::internal::kBucketGrowth));
  CHECK(median->share_at_or_below == Approx(0.9));
  const auto top = state.BucketOfPercentile(0.95);
  REQUIRE(top.has_value());
  CHECK(top->upper == 1000);  // never above the largest value seen
  CHECK(top->lower < 1000);
  CHECK(top->share_at_or_below == Approx(1.0));
}
