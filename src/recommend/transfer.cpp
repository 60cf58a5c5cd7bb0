// TransferTable (transfer.h): pair factors and nearest-workload factors
// between hardware keys, in log space.
#include "recommend/transfer.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace hwrec::internal {

namespace {

// Keeps one source with a tiny spread from outweighing every other.
constexpr double kWeightFloor = 0.01;

double Median(std::vector<double> values) {
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  return (*std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid)) +
          upper) /
         2;
}

// 1.4826 x the median absolute deviation: the standard deviation of a normal
// sample, robust to the few workloads that behave unlike the rest.
double RobustSpread(const std::vector<double>& values, double center) {
  std::vector<double> deviations;
  deviations.reserve(values.size());
  for (double v : values) deviations.push_back(std::fabs(v - center));
  return 1.4826 * Median(std::move(deviations));
}

struct Neighbour {
  double distance = 0;
  double log_ratio = 0;  // log(value on target / value on source)
};

}  // namespace

TransferTable::TransferTable(TransferSettings settings) : settings_(settings) {}

void TransferTable::Add(std::int64_t workload, const std::string& key, double value) {
  if (!(value > 0) || !std::isfinite(value)) return;
  values_[workload][key] = value;
}

const std::map<std::string, double>* TransferTable::ValuesOf(std::int64_t workload) const {
  const auto it = values_.find(workload);
  return it == values_.end() ? nullptr : &it->second;
}

std::optional<TransferFactor> TransferTable::FactorOfRatios(
    const std::vector<double>& log_ratios) const {
  if (log_ratios.size() < std::max<std::size_t>(settings_.min_workloads, 1)) return std::nullopt;
  const double center = Median(log_ratios);
  TransferFactor factor;
  factor.factor = std::exp(center);
  factor.spread = std::max(settings_.min_spread, RobustSpread(log_ratios, center));
  factor.workloads = static_cast<std::int64_t>(log_ratios.size());
  return factor;
}

std::optional<TransferFactor> TransferTable::PairFactor(const std::string& from,
                                                        const std::string& to,
                                                        std::optional<std::int64_t> except) const {
  std::vector<double> ratios;
  for (const auto& [workload, keys] : values_) {
    if (workload == except) continue;
    const auto a = keys.find(from);
    const auto b = keys.find(to);
    if (a != keys.end() && b != keys.end()) ratios.push_back(std::log(b->second / a->second));
  }
  return FactorOfRatios(ratios);
}

std::optional<TransferFactor> TransferTable::SourceFactor(std::int64_t workload,
                                                          const std::map<std::string, double>& own,
                                                          const std::string& source,
                                                          const std::string& target) const {
  const double own_source = own.at(source);
  // The workload's signature: its log ratio from the source to each other key.
  std::vector<std::pair<const std::string*, double>> signature;
  for (const auto& [key, value] : own) {
    if (key != source && key != target) signature.emplace_back(&key, std::log(value / own_source));
  }
  std::vector<Neighbour> candidates;
  std::vector<double> seen_on_both;  // the log ratio of every workload seen on both keys
  for (const auto& [other, keys] : values_) {
    if (other == workload) continue;
    const auto a = keys.find(source);
    const auto b = keys.find(target);
    if (a == keys.end() || b == keys.end()) continue;
    const double log_ratio = std::log(b->second / a->second);
    seen_on_both.push_back(log_ratio);
    double squares = 0;
    std::size_t shared = 0;
    for (const auto& [key, own_ratio] : signature) {
      const auto c = keys.find(*key);
      if (c == keys.end()) continue;
      const double d = std::log(c->second / a->second) - own_ratio;
      squares += d * d;
      ++shared;
    }
    if (shared == 0) continue;
    candidates.push_back({std::sqrt(squares / static_cast<double>(shared)), log_ratio});
  }
  // No signature, or too few workloads that share one: the pair factor.
  if (candidates.size() < std::max<std::size_t>(settings_.min_workloads, 1)) {
    return FactorOfRatios(seen_on_both);
  }
  const std::size_t k = std::clamp<std::size_t>(settings_.neighbours, 1, candidates.size());
  std::partial_sort(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(k),
                    candidates.end(),
                    [](const Neighbour& x, const Neighbour& y) { return x.distance < y.distance; });
  const double bandwidth = std::max(candidates[k - 1].distance, 1e-3);
  double total = 0, sum = 0;
  for (std::size_t i = 0; i < k; ++i) {
    const double scaled = candidates[i].distance / bandwidth;
    const double weight = std::exp(-scaled * scaled);
    total += weight;
    sum += weight * candidates[i].log_ratio;
  }
  const double mean = sum / total;
  double variance = 0;
  for (std::size_t i = 0; i < k; ++i) {
    const double scaled = candidates[i].distance / bandwidth;
    const double d = candidates[i].log_ratio - mean;
    variance += std::exp(-scaled * scaled) * d * d;
  }
  TransferFactor factor;
  factor.factor = std::exp(mean);
  factor.spread = std::max(settings_.min_spread, std::sqrt(variance / total));
  factor.workloads = static_cast<std::int64_t>(seen_on_both.size());
  factor.neighbours = static_cast<std::int64_t>(k);
  return factor;
}

std::optional<TransferEstimate> TransferTable::Estimate(std::int64_t workload,
                                                        const std::string& target) const {
  const std::map<std::string, double>* own = ValuesOf(workload);
  if (own == nullptr) return std::nullopt;
  return Estimate(workload, *own, target);
}

std::optional<TransferEstimate> TransferTable::Estimate(std::int64_t workload,
                                                        const std::map<std::string, double>& given,
                                                        const std::string& target) const {
  // Only values a ratio holds: finite and above 0, as Add keeps them.
  std::map<std::string, double> own;
  for (const auto& [key, value] : given) {
    if (std::isfinite(value) && value > 0) own.emplace(key, value);
  }
  TransferEstimate best;
  double best_weight = -1, total = 0, log_sum = 0, spread_sum = 0;
  for (const auto& [source, value] : own) {
    if (source == target) continue;
    const std::optional<TransferFactor> factor = SourceFactor(workload, own, source, target);
    if (!factor) continue;
    const double weight = 1 / (factor->spread * factor->spread + kWeightFloor);
    total += weight;
    log_sum += weight * (std::log(value) + std::log(factor->factor));
    spread_sum += weight * factor->spread;
    ++best.sources;
    if (weight > best_weight) {
      best_weight = weight;
      best.source_key = source;
      best.source_value = value;
      best.factor = *factor;
    }
  }
  if (best.sources == 0) return std::nullopt;
  best.value = std::exp(log_sum / total);
  best.spread = spread_sum / total;
  return best;
}

}  // namespace hwrec::internal
