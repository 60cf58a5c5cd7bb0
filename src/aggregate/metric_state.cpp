#include "aggregate/metric_state.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <tuple>

namespace hwrec::internal {

namespace {

// Format 3 keeps each recent value's observation id; format 2 did not, and
// format 1 lacked the sum of squared weights as well. All three read.
constexpr std::uint8_t kFormatVersion = 3;
constexpr std::uint8_t kFormatWithoutIds = 2;
constexpr std::uint8_t kFormatWithoutSquares = 1;
// Past this exponent the weights are rebased to keep them far from overflow.
constexpr double kMaxExponent = 64;
// Times are clamped to ±10^13 s (317,000 years) so that a difference of two
// stays finite; a time that far out is not a finish time anyway.
constexpr double kMaxTime = 1e13;

// Half-lives from `from` to `to`; 0 when that is undefined (no half-life).
double HalfLives(double to, double from, double half_life_s) {
  const double exponent = (to - from) / half_life_s;
  return std::isnan(exponent) ? 0 : exponent;
}

template <typename T>
void Put(std::string* out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out->append(bytes, sizeof(T));
}

template <typename T>
bool Get(std::string_view data, std::size_t* offset, T* value) {
  if (*offset + sizeof(T) > data.size()) return false;
  std::memcpy(value, data.data() + *offset, sizeof(T));
  *offset += sizeof(T);
  return true;
}

}  // namespace

int MetricState::BucketOf(double value) const {
  if (!(value > unit_)) return 0;
  const double bucket = std::floor(std::log(value / unit_) / std::log(kBucketGrowth)) + 1;
  return static_cast<int>(std::min(bucket, static_cast<double>(kMaxBuckets - 1)));
}

double MetricState::UpperEdge(int bucket) const { return unit_ * std::pow(kBucketGrowth, bucket); }

void MetricState::Rebase(double time, double half_life_s) {
  // `time` is newer than the reference: every factor is at most 1.
  const double factor = std::exp2(HalfLives(reference_time_, time, half_life_s));
  for (double& w : weights_) w *= factor;
  total_weight_ *= factor;
  weighted_sum_ *= factor;
  squared_weight_ *= factor * factor;
  reference_time_ = time;
}

void MetricState::AddToBucket(int bucket, double weight) {
  if (weights_.empty()) {
    first_bucket_ = bucket;
    weights_.assign(1, 0.0);
  } else if (bucket < first_bucket_) {
    weights_.insert(weights_.begin(), static_cast<std::size_t>(first_bucket_ - bucket), 0.0);
    first_bucket_ = bucket;
  } else if (bucket >= first_bucket_ + static_cast<int>(weights_.size())) {
    weights_.resize(static_cast<std::size_t>(bucket - first_bucket_) + 1, 0.0);
  }
  weights_[static_cast<std::size_t>(bucket - first_bucket_)] += weight;
}

// Keeps the `ring_size` most recent values by finish time.
void MetricState::Remember(const RecentValue& recent, std::size_t ring_size) {
  if (recent_.size() < ring_size || (!recent_.empty() && recent.time >= recent_.front().time)) {
    auto at = std::upper_bound(recent_.begin(), recent_.end(), recent,
                               [](const auto& a, const auto& b) { return a.time < b.time; });
    recent_.insert(at, recent);
    while (recent_.size() > ring_size) recent_.erase(recent_.begin());
  }
}

void MetricState::Add(double value, double time, double half_life_s, std::size_t ring_size,
                      std::int64_t observation_id) {
  if (std::isnan(value) || std::isnan(time)) return;
  // Clamped before any product, so that weight × value stays finite.
  value = std::clamp(value, 0.0, MaxValue());
  time = std::clamp(time, -kMaxTime, kMaxTime);
  if (count_ == 0) reference_time_ = time;
  if (HalfLives(time, reference_time_, half_life_s) > kMaxExponent) Rebase(time, half_life_s);
  // At most 2^64; an older sample's weight may underflow to 0, never overflow.
  const double weight = std::exp2(HalfLives(time, reference_time_, half_life_s));
  AddToBucket(BucketOf(value), weight);
  total_weight_ += weight;
  weighted_sum_ += weight * value;
  squared_weight_ += weight * weight;
  max_ = count_ == 0 ? value : std::max(max_, value);
  ++count_;
  Remember({time, value, observation_id}, ring_size);
}

void MetricState::Merge(const MetricState& other, double half_life_s, std::size_t ring_size) {
  if (other.count_ == 0) return;
  if (count_ == 0) {
    *this = other;
  } else {
    // Both states are brought to the newer reference: both factors are at most 1.
    const double reference = std::max(reference_time_, other.reference_time_);
    Rebase(reference, half_life_s);
    const double factor = std::exp2(HalfLives(other.reference_time_, reference, half_life_s));
    const int first = std::min(first_bucket_, other.first_bucket_);
    const int end = std::max(first_bucket_ + static_cast<int>(weights_.size()),
                             other.first_bucket_ + static_cast<int>(other.weights_.size()));
    std::vector<double> weights(static_cast<std::size_t>(end - first), 0.0);
    for (std::size_t i = 0; i < weights_.size(); ++i) {
      weights[static_cast<std::size_t>(first_bucket_ - first) + i] += weights_[i];
    }
    for (std::size_t i = 0; i < other.weights_.size(); ++i) {
      weights[static_cast<std::size_t>(other.first_bucket_ - first) + i] +=
          other.weights_[i] * factor;
    }
    weights_ = std::move(weights);
    first_bucket_ = first;
    total_weight_ += other.total_weight_ * factor;
    weighted_sum_ += other.weighted_sum_ * factor;
    squared_weight_ += other.squared_weight_ * factor * factor;
    count_ += other.count_;
    max_ = std::max(max_, other.max_);
    std::vector<RecentValue> recent;
    recent.reserve(recent_.size() + other.recent_.size());
    std::merge(recent_.begin(), recent_.end(), other.recent_.begin(), other.recent_.end(),
               std::back_inserter(recent),
               [](const auto& a, const auto& b) { return a.time < b.time; });
    recent_ = std::move(recent);
  }
  if (recent_.size() > ring_size) {
    recent_.erase(recent_.begin(), recent_.end() - static_cast<std::ptrdiff_t>(ring_size));
  }
}

double MetricState::EffectiveSamples() const {
  if (count_ == 0) return 0;
  // Written as Σw · (Σw / Σw²) so that no square of a sum is formed.
  const double n = squared_weight_ > 0 ? total_weight_ * (total_weight_ / squared_weight_) : 1;
  if (!(n >= 1)) return 1;  // one sample at least; also a state whose weights all underflowed
  return std::min(n, static_cast<double>(count_));
}

std::optional<double> MetricState::LastSeen() const {
  if (recent_.empty()) return std::nullopt;
  return recent_.back().time;
}

// The index in weights_ of the bucket that holds the q-th percentile; nullopt
// when the history is empty, weights_.size() when rounding left it past the last.
std::optional<std::size_t> MetricState::PercentileIndex(double q) const {
  if (count_ == 0 || total_weight_ <= 0) return std::nullopt;
  const double threshold = q * total_weight_;
  double cumulative = 0;
  for (std::size_t i = 0; i < weights_.size(); ++i) {
    cumulative += weights_[i];
    if (cumulative >= threshold * (1 - 1e-12)) return i;
  }
  return weights_.size();
}

std::optional<double> MetricState::Percentile(double q) const {
  const std::optional<std::size_t> index = PercentileIndex(q);
  if (!index) return std::nullopt;
  if (*index == weights_.size()) return max_;
  return std::min(UpperEdge(first_bucket_ + static_cast<int>(*index)), max_);
}

std::optional<PercentileBucket> MetricState::BucketOfPercentile(double q) const {
  std::optional<std::size_t> index = PercentileIndex(q);
  if (!index || weights_.empty()) return std::nullopt;
  const std::size_t i = std::min(*index, weights_.size() - 1);
  const int bucket = first_bucket_ + static_cast<int>(i);
  double at_or_below = 0;
  for (std::size_t b = 0; b <= i; ++b) at_or_below += weights_[b];
  PercentileBucket out;
  out.upper = *index == weights_.size() ? max_ : std::min(UpperEdge(bucket), max_);
  out.lower = std::min(bucket == 0 ? 0.0 : UpperEdge(bucket - 1), out.upper);
  out.share_at_or_below =
      *index == weights_.size() ? 1.0 : std::min(at_or_below / total_weight_, 1.0);
  return out;
}

std::optional<double> MetricState::DecayedAverage() const {
  if (count_ == 0 || total_weight_ <= 0) return std::nullopt;
  return std::min(weighted_sum_ / total_weight_, max_);  // an average never exceeds the max
}

std::optional<double> MetricState::MaxOfRecent(std::size_t n) const {
  if (recent_.empty()) return std::nullopt;
  const std::size_t take = std::min(n, recent_.size());
  double best = recent_.back().value;
  for (std::size_t i = recent_.size() - take; i < recent_.size(); ++i) {
    best = std::max(best, recent_[i].value);
  }
  return best;
}

std::optional<RecentValue> MetricState::MaxOfRecentEntry(std::size_t n) const {
  if (recent_.empty()) return std::nullopt;
  const std::size_t take = std::min(n, recent_.size());
  std::size_t best = recent_.size() - 1;
  for (std::size_t i = recent_.size() - take; i < recent_.size(); ++i) {
    if (recent_[i].value >= recent_[best].value) best = i;
  }
  return recent_[best];
}

std::optional<double> MetricState::MaxEver() const {
  if (count_ == 0) return std::nullopt;
  return max_;
}

bool MetricState::SameHistory(const MetricState& other, double tolerance,
                              std::size_t ring_size) const {
  if (count_ != other.count_) return false;
  if (count_ == 0) return true;
  const auto share = [](const MetricState& s, int bucket) {
    const int i = bucket - s.first_bucket_;
    if (i < 0 || i >= static_cast<int>(s.weights_.size()) || !(s.total_weight_ > 0)) return 0.0;
    return s.weights_[static_cast<std::size_t>(i)] / s.total_weight_;
  };
  const int first = std::min(first_bucket_, other.first_bucket_);
  const int end = std::max(first_bucket_ + static_cast<int>(weights_.size()),
                           other.first_bucket_ + static_cast<int>(other.weights_.size()));
  for (int bucket = first; bucket < end; ++bucket) {
    if (std::fabs(share(*this, bucket) - share(other, bucket)) > tolerance) return false;
  }
  if (recent_.size() != other.recent_.size()) return false;
  const auto sorted = [](std::vector<RecentValue> values) {
    std::sort(values.begin(), values.end(), [](const RecentValue& a, const RecentValue& b) {
      return std::tie(a.time, a.value) < std::tie(b.time, b.value);
    });
    return values;
  };
  const std::vector<RecentValue> mine = sorted(recent_), theirs = sorted(other.recent_);
  const bool full = mine.size() >= ring_size;
  for (std::size_t i = 0; i < mine.size(); ++i) {
    if (mine[i].time != theirs[i].time) return false;
    if (full && mine[i].time == mine.front().time) continue;  // which ties were kept
    if (mine[i].value != theirs[i].value) return false;
  }
  return true;
}

void MetricState::AppendTo(std::string* out) const {
  Put(out, kFormatVersion);
  Put(out, unit_);
  Put(out, reference_time_);
  Put(out, static_cast<std::int32_t>(first_bucket_));
  Put(out, static_cast<std::uint32_t>(weights_.size()));
  for (double w : weights_) Put(out, w);
  Put(out, total_weight_);
  Put(out, weighted_sum_);
  Put(out, squared_weight_);
  Put(out, count_);
  Put(out, max_);
  Put(out, static_cast<std::uint32_t>(recent_.size()));
  for (const RecentValue& recent : recent_) {
    Put(out, recent.time);
    Put(out, recent.value);
    Put(out, recent.observation_id);
  }
}

bool MetricState::ReadFrom(std::string_view data, std::size_t* offset) {
  std::uint8_t version = 0;
  if (!Get(data, offset, &version)) return false;
  if (version != kFormatVersion && version != kFormatWithoutIds &&
      version != kFormatWithoutSquares) {
    return false;
  }
  return ReadBody(data, offset, version) && Valid();
}

bool MetricState::ReadBody(std::string_view data, std::size_t* offset, std::uint8_t version) {
  const bool has_squares = version != kFormatWithoutSquares;
  const bool has_ids = version == kFormatVersion;
  std::int32_t first = 0;
  std::uint32_t buckets = 0;
  std::uint32_t ring = 0;
  if (!Get(data, offset, &unit_) || !Get(data, offset, &reference_time_) ||
      !Get(data, offset, &first) || !Get(data, offset, &buckets)) {
    return false;
  }
  if (buckets > static_cast<std::uint32_t>(kMaxBuckets)) return false;
  if (buckets > (data.size() - *offset) / sizeof(double)) return false;
  first_bucket_ = first;
  weights_.resize(buckets);
  for (double& w : weights_) Get(data, offset, &w);
  if (!Get(data, offset, &total_weight_) || !Get(data, offset, &weighted_sum_) ||
      (has_squares && !Get(data, offset, &squared_weight_)) || !Get(data, offset, &count_) ||
      !Get(data, offset, &max_) || !Get(data, offset, &ring)) {
    return false;
  }
  if (!has_squares) {
    // Format 1 kept no Σw². The sum over buckets of (bucket weight)² is at
    // least the true Σw² (samples sharing a bucket add to its square), so the
    // effective sample size read from it errs low: conservative until the
    // next `hwrec refresh --rebuild` computes it exactly.
    squared_weight_ = 0;
    for (double w : weights_) squared_weight_ += w * w;
  }
  const std::size_t entry_bytes = 2 * sizeof(double) + (has_ids ? sizeof(std::int64_t) : 0);
  if (ring > (data.size() - *offset) / entry_bytes) return false;
  recent_.resize(ring);
  for (RecentValue& recent : recent_) {
    Get(data, offset, &recent.time);
    Get(data, offset, &recent.value);
    recent.observation_id = 0;  // unknown before format 3
    if (has_ids) Get(data, offset, &recent.observation_id);
  }
  return true;
}

bool MetricState::Valid() const {
  const auto finite = [](double v) { return std::isfinite(v); };
  const auto weight = [](double w) { return std::isfinite(w) && w >= 0; };
  if (!finite(unit_) || !(unit_ > 0) || !finite(MaxValue())) return false;
  const double cap = MaxValue();
  const auto value = [cap](double v) { return std::isfinite(v) && std::fabs(v) <= cap; };
  if (!finite(reference_time_) || count_ < 0 || !value(max_)) return false;
  if (first_bucket_ < 0 ||
      static_cast<std::int64_t>(first_bucket_) + static_cast<std::int64_t>(weights_.size()) >
          kMaxBuckets) {
    return false;
  }
  if (!std::all_of(weights_.begin(), weights_.end(), weight)) return false;
  if (!weight(total_weight_) || !weight(squared_weight_) || !finite(weighted_sum_)) return false;
  return std::all_of(recent_.begin(), recent_.end(), [&](const RecentValue& recent) {
    return finite(recent.time) && value(recent.value) && recent.observation_id >= 0;
  });
}

}  // namespace hwrec::internal
