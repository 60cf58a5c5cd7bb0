#include "recommend/metric_state.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>

namespace hwrec::internal {

namespace {

constexpr std::uint8_t kFormatVersion = 1;
// Past this exponent the weights are rebased to keep them far from overflow.
constexpr double kMaxExponent = 64;

template <typename T>
void Put(std::string* out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out->append(bytes, sizeof(T));
}

template <typename T>
bool Get(const std::string& data, std::size_t* offset, T* value) {
  if (*offset + sizeof(T) > data.size()) return false;
  std::memcpy(value, data.data() + *offset, sizeof(T));
  *offset += sizeof(T);
  return true;
}

}  // namespace

int MetricState::BucketOf(double value) const {
  if (value <= unit_) return 0;
  return static_cast<int>(std::floor(std::log(value / unit_) / std::log(kBucketGrowth))) + 1;
}

double MetricState::UpperEdge(int bucket) const { return unit_ * std::pow(kBucketGrowth, bucket); }

void MetricState::Rebase(double time, double half_life_s) {
  const double factor = std::exp2((reference_time_ - time) / half_life_s);
  for (double& w : weights_) w *= factor;
  total_weight_ *= factor;
  weighted_sum_ *= factor;
  reference_time_ = time;
}

void MetricState::Add(double value, double time, double half_life_s, std::size_t ring_size) {
  if (count_ == 0) reference_time_ = time;
  if ((time - reference_time_) / half_life_s > kMaxExponent) Rebase(time, half_life_s);
  const double weight = std::exp2((time - reference_time_) / half_life_s);
  const int bucket = BucketOf(value);
  if (weights_.empty()) {
    first_bucket_ = bucket;
    weights_.assign(1, 0.0);
  } else if (bucket < first_bucket_) {
    weights_.insert(weights_.begin(), static_cast<std::size_t>(first_bucket_ - bucket), 0.0);
    first_bucket_ = bucket;
  } else if (bucket >= first_bucket_ + static_cast<int>(weights_.size())) {
    weights_.resize(static_cast<std::size_t>(bucket - first_bucket_ + 1), 0.0);
  }
  weights_[static_cast<std::size_t>(bucket - first_bucket_)] += weight;
  total_weight_ += weight;
  weighted_sum_ += weight * value;
  max_ = count_ == 0 ? value : std::max(max_, value);
  ++count_;

  // Keep the `ring_size` most recent values by finish time.
  if (recent_.size() < ring_size || (!recent_.empty() && time >= recent_.front().first)) {
    auto at = std::upper_bound(recent_.begin(), recent_.end(), std::make_pair(time, value),
                               [](const auto& a, const auto& b) { return a.first < b.first; });
    recent_.insert(at, {time, value});
    while (recent_.size() > ring_size) recent_.erase(recent_.begin());
  }
}

void MetricState::Merge(const MetricState& other, double half_life_s, std::size_t ring_size) {
  if (other.count_ == 0) return;
  if (count_ == 0) {
    *this = other;
  } else {
    const double reference = std::max(reference_time_, other.reference_time_);
    Rebase(reference, half_life_s);
    const double factor = std::exp2((other.reference_time_ - reference) / half_life_s);
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
    count_ += other.count_;
    max_ = std::max(max_, other.max_);
    std::vector<std::pair<double, double>> recent;
    recent.reserve(recent_.size() + other.recent_.size());
    std::merge(recent_.begin(), recent_.end(), other.recent_.begin(), other.recent_.end(),
               std::back_inserter(recent),
               [](const auto& a, const auto& b) { return a.first < b.first; });
    recent_ = std::move(recent);
  }
  if (recent_.size() > ring_size) {
    recent_.erase(recent_.begin(), recent_.end() - static_cast<std::ptrdiff_t>(ring_size));
  }
}

double MetricState::DecayedWeight(double as_of, double half_life_s) const {
  if (count_ == 0) return 0;
  return total_weight_ * std::exp2((reference_time_ - as_of) / half_life_s);
}

std::optional<double> MetricState::Percentile(double q) const {
  if (count_ == 0 || total_weight_ <= 0) return std::nullopt;
  const double threshold = q * total_weight_;
  double cumulative = 0;
  for (std::size_t i = 0; i < weights_.size(); ++i) {
    cumulative += weights_[i];
    if (cumulative >= threshold * (1 - 1e-12)) {
      return std::min(UpperEdge(first_bucket_ + static_cast<int>(i)), max_);
    }
  }
  return max_;
}

std::optional<double> MetricState::DecayedAverage() const {
  if (count_ == 0 || total_weight_ <= 0) return std::nullopt;
  return weighted_sum_ / total_weight_;
}

std::optional<double> MetricState::MaxOfRecent(std::size_t n) const {
  if (recent_.empty()) return std::nullopt;
  const std::size_t take = std::min(n, recent_.size());
  double best = recent_.back().second;
  for (std::size_t i = recent_.size() - take; i < recent_.size(); ++i) {
    best = std::max(best, recent_[i].second);
  }
  return best;
}

std::optional<double> MetricState::MaxEver() const {
  if (count_ == 0) return std::nullopt;
  return max_;
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
  Put(out, count_);
  Put(out, max_);
  Put(out, static_cast<std::uint32_t>(recent_.size()));
  for (const auto& [time, value] : recent_) {
    Put(out, time);
    Put(out, value);
  }
}

bool MetricState::ReadFrom(const std::string& data, std::size_t* offset) {
  std::uint8_t version = 0;
  std::int32_t first = 0;
  std::uint32_t buckets = 0;
  std::uint32_t ring = 0;
  if (!Get(data, offset, &version) || version != kFormatVersion) return false;
  if (!Get(data, offset, &unit_) || !Get(data, offset, &reference_time_) ||
      !Get(data, offset, &first) || !Get(data, offset, &buckets)) {
    return false;
  }
  if (buckets > (data.size() - *offset) / sizeof(double)) return false;
  first_bucket_ = first;
  weights_.resize(buckets);
  for (double& w : weights_) Get(data, offset, &w);
  if (!Get(data, offset, &total_weight_) || !Get(data, offset, &weighted_sum_) ||
      !Get(data, offset, &count_) || !Get(data, offset, &max_) || !Get(data, offset, &ring)) {
    return false;
  }
  if (ring > (data.size() - *offset) / (2 * sizeof(double))) return false;
  recent_.resize(ring);
  for (auto& [time, value] : recent_) {
    Get(data, offset, &time);
    Get(data, offset, &value);
  }
  return true;
}

}  // namespace hwrec::internal
