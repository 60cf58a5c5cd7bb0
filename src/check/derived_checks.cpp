// The checks of what hwrec derives from the observations: the aggregates
// against a rebuild in memory, and the materialised recommendations.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <unordered_map>

#include "aggregate/aggregator.h"
#include "aggregate/settings.h"
#include "check/findings.h"
#include "hwrec/figure.h"

namespace hwrec::internal {

namespace {

using AggregateMap = std::unordered_map<AggregateKey, KeyAggregate, AggregateKeyHash>;

// "workload 'registry/train:1', gpu_model nvidia/A100/-": a key as a person reads it.
std::string KeyLabel(store::Connection& db, const AggregateKey& key) {
  const auto image = db.Prepare("SELECT image FROM workloads WHERE id = ?");
  image->Bind(1, key.workload_id);
  const std::string workload =
      image->Step() ? "'" + image->String(0) + "'" : fmt::format("#{}", key.workload_id);
  auto part = [](const std::string& s) { return s.empty() ? std::string("-") : s; };
  const std::string width = key.width == 0 ? "" : fmt::format(", width {}", key.width);
  return fmt::format("workload {}, {} {}/{}/{}{}", workload, ScopeName(key.scope),
                     part(key.gpu_brand), part(key.gpu_model), part(key.instance_type), width);
}

bool Near(double a, double b) {
  return std::fabs(a - b) <= 1e-6 * std::max(std::fabs(a), std::fabs(b));
}

// What differs between a stored aggregate and its rebuild; "" when they agree.
// Decayed sums are compared to a relative 1e-6: ingest adds executions in the
// order they arrive, a rebuild in the order they finished.
std::string Difference(const KeyAggregate& stored, const KeyAggregate& rebuilt,
                       std::size_t ring_size) {
  if (stored.samples != rebuilt.samples) {
    return fmt::format("{} samples, but the observations hold {}", stored.samples, rebuilt.samples);
  }
  if (stored.last_finished_at != rebuilt.last_finished_at) {
    return fmt::format("last finished at {}, but the newest observation finished at {}",
                       stored.last_finished_at, rebuilt.last_finished_at);
  }
  for (std::size_t m = 0; m < kMetricCount; ++m) {
    const MetricState& a = stored.metrics[m];
    const MetricState& b = rebuilt.metrics[m];
    const std::string figure(MetricName(m));
    if (a.count() != b.count()) {
      return fmt::format("{}: {} values, but the observations give {}", figure, a.count(),
                         b.count());
    }
    if (a.empty()) continue;
    if (a.MaxEver() != b.MaxEver() || a.LastSeen() != b.LastSeen() ||
        !Near(*a.DecayedAverage(), *b.DecayedAverage()) ||
        !Near(a.EffectiveSamples(), b.EffectiveSamples())) {
      return fmt::format("{}: the state differs from the observations (average {} vs {})", figure,
                         *a.DecayedAverage(), *b.DecayedAverage());
    }
    if (!a.SameHistory(b, 1e-6, ring_size)) {
      return fmt::format("{}: the histogram or recent values differ from the observations", figure);
    }
  }
  return "";
}

AggregateMap RebuildInMemory(store::Connection& db, const RecommenderSettings& settings) {
  AggregateWriter writer(db, settings, StoredAggregates::kMergeOnFlush);
  ForEachRebuildInput(db, settings, [&](const AggregateInput& in) { writer.Add(in); });
  return writer.added();
}

}  // namespace

std::size_t CompareAggregatesWithRebuild(store::Connection& db, Findings* findings) {
  const RecommenderSettings settings = LoadSettings(db);
  AggregateMap rebuilt = RebuildInMemory(db, settings);
  const std::size_t expected = rebuilt.size();
  const auto stored = db.Prepare(
      "SELECT workload_id, scope, gpu_brand, gpu_model, instance_type, "
      "samples, last_finished_at, state, width FROM aggregates");
  while (stored->Step()) {
    AggregateKey key{stored->Int64(0),  ScopeNamed(stored->Text(1)).value_or(Scope::kAny),
                     stored->String(2), stored->String(3),
                     stored->String(4), stored->Int64(8)};
    KeyAggregate aggregate;
    if (!aggregate.Deserialize(stored->Blob(7))) {
      findings->Add(fmt::format("{}: the state cannot be read", KeyLabel(db, key)));
      rebuilt.erase(key);
      continue;
    }
    aggregate.samples = stored->Int64(5);
    aggregate.last_finished_at = stored->Double(6);
    const auto at = rebuilt.find(key);
    if (at == rebuilt.end()) {
      findings->Add(fmt::format("{}: {} samples, but no observation has this key",
                                KeyLabel(db, key), aggregate.samples));
      continue;
    }
    if (std::string diff = Difference(aggregate, at->second, settings.max_range_samples);
        !diff.empty()) {
      findings->Add(fmt::format("{}: {}", KeyLabel(db, key), diff));
    }
    rebuilt.erase(at);
  }
  for (const auto& [key, aggregate] : rebuilt) {
    findings->Add(fmt::format("{}: no aggregate, but {} observation(s) have this key",
                              KeyLabel(db, key), aggregate.samples));
  }
  return expected;
}

void CheckAggregates(store::Inspection& file, CheckResult* result, Findings* findings) {
  const std::size_t expected = CompareAggregatesWithRebuild(file.connection(), findings);
  result->summary =
      fmt::format("{} aggregates, each compared with a rebuild from the observations", expected);
}

void CheckRecommendations(store::Inspection& file, CheckResult*, Findings* findings) {
  // The most samples of any figure is taken here: two-argument max() is SQLite's alone.
  const auto query = file.connection().Prepare(
      "SELECT r.workload_id, w.image, r.gpu_brand, r.gpu_model, r.instance_type, "
      "(SELECT count(*) FROM observations o WHERE o.workload_id = r.workload_id), "
      "r.cpu_request_millicores_samples, r.cpu_limit_millicores_samples, "
      "r.memory_bytes_samples, r.gpu_memory_gb_samples, r.gpu_compute_fraction_samples "
      "FROM recommendations r LEFT JOIN workloads w ON w.id = r.workload_id");
  while (query->Step()) {
    const std::string key =
        fmt::format("{}/{}/{}", query->String(2), query->String(3), query->String(4));
    std::int64_t samples = 0;
    for (int column = 6; column < 11; ++column) samples = std::max(samples, query->Int64(column));
    if (query->IsNull(1)) {
      findings->Add(
          fmt::format("the recommendation for key {} names workload #{}, which does "
                      "not exist",
                      key, query->Int64(0)));
    } else if (samples > query->Int64(5)) {
      findings->Add(
          fmt::format("the recommendation for workload '{}' on {} counts {} executions, "
                      "but the workload has {} observations",
                      query->String(1), key, samples, query->Int64(5)));
    }
  }
}

}  // namespace hwrec::internal
