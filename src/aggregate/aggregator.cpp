#include "aggregate/aggregator.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>

#include "base/enum_names.h"
#include "base/time.h"
#include "base/units.h"
#include "hwrec/remedy.h"

namespace hwrec::internal {

namespace {

// Units: the smallest value each metric's histogram tells apart.
constexpr std::array<double, kMetricCount> kUnits = {1.0, 1.0, kMiB, 0.01, 0.001, 0.001};
// Values are clamped to this before any product (an OOM bump, fraction ×
// utilization), so that no product overflows; MetricState then clamps each
// value to its largest bucket.
constexpr double kValueCeiling = 1e150;

std::optional<double> Clamped(std::optional<double> value) {
  if (!value || std::isnan(*value)) return value;
  return std::clamp(*value, -kValueCeiling, kValueCeiling);
}

std::optional<double> FirstOf(std::initializer_list<std::optional<double>> values) {
  for (const auto& v : values) {
    if (v.has_value()) return v;
  }
  return std::nullopt;
}

// The bump, capped at what the hardware holds (never below what was seen).
std::optional<double> OomPeak(std::optional<double> requested, std::optional<double> observed,
                              double factor, double floor, std::optional<double> cap) {
  const std::optional<double> bumped = OomBump(requested, observed, factor, floor);
  if (!bumped || !cap || *cap <= 0) return bumped;
  return std::max(std::min(*bumped, *cap), Clamped(observed).value_or(0));
}

}  // namespace

std::optional<double> OomBump(std::optional<double> requested, std::optional<double> observed,
                              double factor, double floor) {
  if (!requested && !observed) return std::nullopt;
  requested = Clamped(requested);
  observed = Clamped(observed);
  const double base = std::max(requested.value_or(0), observed.value_or(0));
  return std::max(base * factor, base + floor);
}

namespace {
constexpr EnumName<Scope> kScopeNames[] = {
    {Scope::kExact, "exact"},
    {Scope::kGpuModel, "gpu_model"},
    {Scope::kInstanceType, "instance_type"},
    {Scope::kAny, "any"},
};
}  // namespace

std::string_view MetricName(std::size_t metric) {
  if (metric == kHeldShareMetric) return "gpu_compute_fraction_held";
  return ToString(static_cast<FigureKind>(metric));
}

std::string_view ScopeName(Scope scope) { return NameOf(kScopeNames, scope, "any"); }

std::optional<Scope> ScopeNamed(std::string_view name) { return ValueOf(kScopeNames, name); }

std::size_t AggregateKeyHash::operator()(const AggregateKey& k) const {
  std::size_t h = std::hash<std::int64_t>()(k.workload_id);
  auto mix = [&h](std::size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
  mix(static_cast<std::size_t>(k.scope));
  mix(std::hash<std::string>()(k.gpu_brand));
  mix(std::hash<std::string>()(k.gpu_model));
  mix(std::hash<std::string>()(k.instance_type));
  mix(std::hash<std::int64_t>()(k.width));
  return h;
}

KeyAggregate::KeyAggregate()
    : metrics{MetricState(kUnits[0]), MetricState(kUnits[1]), MetricState(kUnits[2]),
              MetricState(kUnits[3]), MetricState(kUnits[4]), MetricState(kUnits[5])} {}

std::string KeyAggregate::Serialize() const {
  std::string blob;
  blob.reserve(512);
  for (std::size_t m = 0; m < kMetricCount; ++m) {
    // Most keys never held a share without utilisation: they store none.
    if (m == kHeldShareMetric && metrics[m].empty()) break;
    metrics[m].AppendTo(&blob);
  }
  return blob;
}

bool UsedGpu(const HardwareProfile& h, const std::optional<double>& gpu_memory_peak_gb,
             const std::optional<double>& gpu_compute_fraction,
             const std::optional<std::int64_t>& gpus_held) {
  if (gpus_held) return *gpus_held > 0;
  if (h.gpu_count.value_or(0) > 0 || h.gpu_mode.has_value()) return true;
  return !h.gpu_count.has_value() && (gpu_memory_peak_gb || gpu_compute_fraction);
}

bool KeyAggregate::Deserialize(std::string_view blob) {
  std::size_t offset = 0;
  for (std::size_t m = 0; m < kMetricCount; ++m) {
    // A state written before schema 13 ends after the figures' metrics.
    if (m == kHeldShareMetric && offset == blob.size()) return true;
    if (!metrics[m].ReadFrom(blob, &offset)) return false;
  }
  return offset == blob.size();
}

void KeyAggregate::Merge(const KeyAggregate& other, const RecommenderSettings& settings) {
  for (std::size_t m = 0; m < kMetricCount; ++m) {
    metrics[m].Merge(other.metrics[m], settings.half_life_s(), settings.max_range_samples);
  }
  samples += other.samples;
  last_finished_at = std::max(last_finished_at, other.last_finished_at);
}

std::array<std::optional<double>, kMetricCount> MetricValues(const AggregateInput& in,
                                                             const RecommenderSettings& settings) {
  std::array<std::optional<double>, kMetricCount> v;
  v[0] = FirstOf({in.cpu_p95, in.cpu_avg, in.cpu_max});
  v[1] = FirstOf({in.cpu_max, in.cpu_p95, in.cpu_avg});
  v[2] = in.memory_peak_bytes;
  if (in.status == ExecutionStatus::kOom) {
    v[2] = OomPeak(in.requested_memory_bytes, in.memory_peak_bytes, settings.oom_bump_factor,
                   kOomMemoryFloorBytes, in.instance_memory_bytes);
  }
  if (in.has_gpu) {
    v[3] = in.gpu_memory_peak_gb;
    if (in.status == ExecutionStatus::kGpuOom) {
      v[3] = OomPeak(in.requested_gpu_memory_gb, in.gpu_memory_peak_gb, settings.oom_bump_factor,
                     kOomGpuFloorGb, in.card_memory_gb);
    }
    // Without utilisation the record tells only the share held, kept apart.
    if (in.gpu_compute_fraction && in.gpu_utilization) {
      v[4] = *Clamped(in.gpu_compute_fraction) * *Clamped(in.gpu_utilization);
    } else if (in.gpu_compute_fraction) {
      v[kHeldShareMetric] = in.gpu_compute_fraction;
    }
  }
  for (auto& value : v) value = Clamped(value);
  return v;
}

const char* const kSelectAggregateSql =
    "SELECT state, samples, last_finished_at FROM aggregates WHERE workload_id = ? AND "
    "scope = ? AND gpu_brand = ? AND "
    "gpu_model = ? AND instance_type = ? AND width = ?";

namespace {
const char* const kUpsertAggregateSql =
    "INSERT INTO aggregates (workload_id, scope, gpu_brand, gpu_model, instance_type, width, "
    "samples, last_finished_at, state) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (workload_id, scope, gpu_brand, gpu_model, instance_type, width) DO UPDATE SET "
    "samples = excluded.samples, last_finished_at = excluded.last_finished_at, "
    "state = excluded.state";

// Binds `key` to parameters 1 to 6, in the order of the aggregates table's key.
void BindKey(store::Statement& statement, const AggregateKey& key) {
  statement.Bind(1, key.workload_id);
  statement.BindTextView(2, ScopeName(key.scope));
  statement.BindTextView(3, key.gpu_brand);
  statement.BindTextView(4, key.gpu_model);
  statement.BindTextView(5, key.instance_type);
  statement.Bind(6, key.width);
}
}  // namespace

void KeptAggregates::Check(store::Connection& db) {
  if (!CurrentAt(db.DataVersion())) Clear();
}

void KeptAggregates::Written() {
  version_ = sealed_;
  sealed_.reset();
  if (!version_) states_.clear();
}

AggregateWriter::AggregateWriter(store::Connection& db, const RecommenderSettings& settings,
                                 StoredAggregates stored, KeptAggregates* kept)
    : db_(db),
      settings_(settings),
      stored_(stored),
      kept_(stored == StoredAggregates::kLoadOnAdd ? kept : nullptr),
      select_(db.Prepare(kSelectAggregateSql)),
      upsert_(db.Prepare(kUpsertAggregateSql)) {}

KeyAggregate& AggregateWriter::Load(const AggregateKey& key) {
  auto it = cache_.find(key);
  if (it != cache_.end()) return it->second;
  if (stored_ == StoredAggregates::kMergeOnFlush)
    return cache_.emplace(key, KeyAggregate()).first->second;
  if (kept_ != nullptr) {
    if (auto node = kept_->states_.extract(key)) {
      return cache_.insert(std::move(node)).position->second;
    }
  }
  std::optional<KeyAggregate> stored = ReadAggregate(*select_, key);
  return cache_.emplace(key, stored ? std::move(*stored) : KeyAggregate()).first->second;
}

void AggregateWriter::Add(const AggregateInput& in) {
  const auto values = MetricValues(in, settings_);
  const AggregateKey keys[] = {
      {in.workload_id, Scope::kExact, in.gpu_brand, in.gpu_model, in.instance_type},
      {in.workload_id, Scope::kGpuModel, in.gpu_brand, in.gpu_model, ""},
      {in.workload_id, Scope::kInstanceType, "", "", in.instance_type},
      {in.workload_id, Scope::kAny, "", "", ""},
  };
  for (const AggregateKey& key : keys) {
    KeyAggregate& aggregate = Load(key);
    for (std::size_t m = 0; m < kMetricCount; ++m) {
      if (values[m]) {
        aggregate.metrics[m].Add(*values[m], in.finished_at, settings_.half_life_s(),
                                 settings_.max_range_samples, in.observation_id);
      }
    }
    ++aggregate.samples;
    aggregate.last_finished_at = std::max(aggregate.last_finished_at, in.finished_at);
  }
  // The GPU memory each GPU needed, at the width the execution held.
  constexpr auto kGpuMemory = static_cast<std::size_t>(FigureKind::kGpuMemoryGb);
  if (in.has_gpu && in.gpus_held.value_or(0) >= 1 && values[kGpuMemory]) {
    const AggregateKey width_keys[] = {
        {in.workload_id, Scope::kExact, in.gpu_brand, in.gpu_model, in.instance_type,
         *in.gpus_held},
        {in.workload_id, Scope::kGpuModel, in.gpu_brand, in.gpu_model, "", *in.gpus_held},
        {in.workload_id, Scope::kAny, "", "", "", *in.gpus_held},
    };
    for (const AggregateKey& key : width_keys) {
      KeyAggregate& aggregate = Load(key);
      aggregate.metrics[kGpuMemory].Add(*values[kGpuMemory], in.finished_at,
                                        settings_.half_life_s(), settings_.max_range_samples,
                                        in.observation_id);
      ++aggregate.samples;
      aggregate.last_finished_at = std::max(aggregate.last_finished_at, in.finished_at);
    }
  }
  touched_.emplace(in.workload_id, in.gpu_brand, in.gpu_model, in.instance_type, !in.has_gpu);
}

void AggregateWriter::Flush(
    std::unordered_map<AggregateKey, std::optional<KeyAggregate>, AggregateKeyHash>* written) {
  store::Statement& upsert = *upsert_;
  const bool merge = stored_ == StoredAggregates::kMergeOnFlush;
  if (merge && !cache_.empty()) {
    std::vector<std::int64_t> workloads;
    workloads.reserve(cache_.size());
    for (const auto& entry : cache_) workloads.push_back(entry.first.workload_id);
    std::sort(workloads.begin(), workloads.end());
    workloads.erase(std::unique(workloads.begin(), workloads.end()), workloads.end());
    db_.LockWorkloads(workloads);
  }
  for (auto& [key, added] : cache_) {
    KeyAggregate* aggregate = &added;
    std::optional<KeyAggregate> stored;
    if (merge) {
      stored = ReadAggregate(*select_, key);
      if (stored) {
        stored->Merge(added, settings_);
        aggregate = &*stored;
      }
    }
    const std::string blob = aggregate->Serialize();
    BindKey(upsert, key);
    upsert.Bind(7, aggregate->samples);
    upsert.Bind(8, aggregate->last_finished_at);
    upsert.BindBlobView(9, blob);
    upsert.Run();
    if (merge && written != nullptr && key.width == 0) {
      written->insert_or_assign(key, std::move(*aggregate));
    }
  }
  // What was written stays with the keeper, if any: whether the store still
  // holds it when the next transaction begins is its Check's to tell.
  // Those of earlier transactions make room for this one's, up to the limit.
  if (kept_ != nullptr && kept_->states_.size() + cache_.size() > KeptAggregates::kMaxStates) {
    kept_->states_.clear();
  }
  lent_.clear();
  while (!cache_.empty() && (kept_ != nullptr || written != nullptr)) {
    auto node = cache_.extract(cache_.begin());
    if (written != nullptr && node.key().width == 0 && stored_ == StoredAggregates::kLoadOnAdd) {
      lent_.push_back(node.key());
      written->insert_or_assign(node.key(), std::move(node.mapped()));
    } else if (kept_ != nullptr && kept_->states_.size() < KeptAggregates::kMaxStates) {
      kept_->states_.insert(std::move(node));
    }
  }
  cache_.clear();
}

void AggregateWriter::Keep(
    std::unordered_map<AggregateKey, std::optional<KeyAggregate>, AggregateKeyHash>* written) {
  if (kept_ != nullptr) {
    for (const AggregateKey& key : lent_) {
      auto it = written->find(key);
      if (it == written->end() || !it->second) continue;
      if (kept_->states_.size() >= KeptAggregates::kMaxStates) break;
      kept_->states_.insert_or_assign(key, std::move(*it->second));
    }
  }
  lent_.clear();
}

std::set<std::tuple<std::int64_t, std::string, std::string, std::string, bool>>
AggregateWriter::TakeTouched() {
  return std::exchange(touched_, {});
}

KeyAggregate AggregateFromState(std::string_view state) {
  KeyAggregate aggregate;
  if (!aggregate.Deserialize(state)) {
    throw std::runtime_error("an aggregate in the store is corrupt: run " +
                             RemedyText(Remedy::kRefreshRebuild));
  }
  return aggregate;
}

std::optional<KeyAggregate> ReadAggregate(store::Connection& db, const AggregateKey& key) {
  const auto query = db.Prepare(kSelectAggregateSql);
  return ReadAggregate(*query, key);
}

std::optional<KeyAggregate> ReadAggregate(store::Statement& query, const AggregateKey& key) {
  query.Reset();
  BindKey(query, key);
  if (!query.Step()) return std::nullopt;
  KeyAggregate aggregate = AggregateFromState(query.Blob(0));
  // The state blob holds the metrics; the counts live in their own columns.
  aggregate.samples = query.Int64(1);
  aggregate.last_finished_at = query.Double(2);
  query.Reset();
  return aggregate;
}

void ForEachInput(store::Connection& db, const RecommenderSettings& settings, const InputScan& scan,
                  const std::function<void(const AggregateInput&, const InputExtras&)>& fn) {
  std::string sql =
      "SELECT o.workload_id, o.finished_at, o.status, coalesce(o.gpu_brand, ''), "
      "coalesce(o.gpu_model, ''), coalesce(o.instance_type, ''), " +
      std::string(kObservationUsedGpuSql) +
      ", "
      "o.memory_bytes, m.memory_gb, "
      "o.cpu_millicores_avg, o.cpu_millicores_p95, o.cpu_millicores_max, o.memory_peak_bytes, "
      "o.gpu_memory_peak_gb, o.gpu_compute_fraction, o.gpu_utilization, "
      "o.requested_memory_bytes, o.requested_gpu_memory_gb, "
      "o.id, o.execution_id, w.image, o.duration_s, o.gpu_count_held "
      "FROM observations o JOIN workloads w ON w.id = o.workload_id "
      "LEFT JOIN gpu_models m ON m.brand = o.gpu_brand AND m.model = o.gpu_model "
      "WHERE o.finished_at <= ?";
  if (scan.image) sql += " AND w.image = ?";
  sql += scan.by_workload ? " ORDER BY o.workload_id, o.finished_at, o.id"
                          : " ORDER BY o.finished_at, o.id";
  const auto statement = db.Prepare(sql);
  store::Statement& rows = *statement;
  // A row stored before ingest bounded finished_at must not outweigh every real one.
  rows.Bind(1, settings.latest_finished_at(NowEpochSeconds()));
  if (scan.image) rows.BindTextView(2, *scan.image);
  AggregateInput in;
  InputExtras extras;
  while (rows.Step()) {
    in.workload_id = rows.Int64(0);
    in.finished_at = rows.Double(1);
    in.status = ParseExecutionStatus(rows.Text(2)).value_or(ExecutionStatus::kSuccess);
    rows.AssignText(3, &in.gpu_brand);
    rows.AssignText(4, &in.gpu_model);
    rows.AssignText(5, &in.instance_type);
    in.has_gpu = rows.Int(6) != 0;
    std::optional<double>* targets[] = {&in.instance_memory_bytes,
                                        &in.card_memory_gb,
                                        &in.cpu_avg,
                                        &in.cpu_p95,
                                        &in.cpu_max,
                                        &in.memory_peak_bytes,
                                        &in.gpu_memory_peak_gb,
                                        &in.gpu_compute_fraction,
                                        &in.gpu_utilization,
                                        &in.requested_memory_bytes,
                                        &in.requested_gpu_memory_gb};
    for (int i = 0; i < 11; ++i) *targets[i] = rows.OptionalDouble(7 + i);
    in.observation_id = rows.Int64(18);
    extras.id = in.observation_id;
    rows.AssignText(19, &extras.execution_id);
    rows.AssignText(20, &extras.image);
    extras.duration_s = rows.OptionalDouble(21);
    in.gpus_held = rows.IsNull(22) ? std::nullopt : std::optional<std::int64_t>(rows.Int64(22));
    fn(in, extras);
  }
}

void ForEachRebuildInput(store::Connection& db, const RecommenderSettings& settings,
                         const std::function<void(const AggregateInput&)>& fn) {
  ForEachInput(db, settings, InputScan{},
               [&](const AggregateInput& in, const InputExtras&) { fn(in); });
}

void RebuildAggregates(store::Connection& db, const RecommenderSettings& settings) {
  db.Execute("DELETE FROM aggregates");
  AggregateWriter writer(db, settings);
  ForEachRebuildInput(db, settings, [&](const AggregateInput& in) { writer.Add(in); });
  writer.Flush();
}

}  // namespace hwrec::internal
