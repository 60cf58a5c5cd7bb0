#include "recommend/metric_state.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>

#include "recommend/estimator.h"

using hwrec::internal::MetricState;

namespace {

constexpr double kHalfLife = 12 * 3600.0;

double ExactPercentile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size())));
  return values[std::max<std::size_t>(rank, 1) - 1];
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
  // A day ago the new values weighed 4x less than they do now.
  CHECK(state.DecayedWeight(now, kHalfLife) == Approx(20.0).epsilon(1e-3));
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
  std::string blob;
  state.AppendTo(&blob);
  MetricState copy;
  std::size_t offset = 0;
  REQUIRE(copy.ReadFrom(blob, &offset));
  CHECK(offset == blob.size());
  CHECK(*copy.Percentile(0.95) == *state.Percentile(0.95));
  CHECK(*copy.MaxOfRecent(10) == *state.MaxOfRecent(10));
  CHECK(copy.count() == 50);
  std::size_t bad_offset = 0;
  CHECK_FALSE(copy.ReadFrom(blob.substr(0, blob.size() / 2), &bad_offset));
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
  const double as_of = 1.7e9 + 31 * 24 * 3600.0;
  CHECK(merged.DecayedWeight(as_of, kHalfLife) ==
        Approx(single.DecayedWeight(as_of, kHalfLife)).epsilon(1e-9));
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
