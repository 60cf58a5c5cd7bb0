// RecommendationReader (recommendation_reader.h): the figures of a workload
// on a hardware key from its aggregates at each scope, read by one query,
// kept while the store is unchanged or read into a memo with every row a
// batch needs. Its answers at a width are in recommendation_width.cpp, its
// reasons in recommendation_explain.cpp.
#include "recommend/recommendation_reader.h"

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "recommend/estimator.h"
#include "recommend/recommendation_reader_internal.h"

namespace hwrec::internal {

namespace {

// Where each figure may come from, most specific first (DESIGN §3, §6). GPU
// compute share never leaves its card model; CPU and memory leave their
// instance type only when fallback.cpu_memory_any_hardware allows it.
const std::vector<Scope>& FallbackChain(FigureKind kind, const RecommenderSettings& settings) {
  static const std::vector<Scope> kCpu = {Scope::kExact, Scope::kInstanceType};
  static const std::vector<Scope> kCpuAnyHardware = {Scope::kExact, Scope::kInstanceType,
                                                     Scope::kAny};
  static const std::vector<Scope> kGpuMemory = {Scope::kExact, Scope::kGpuModel, Scope::kAny};
  static const std::vector<Scope> kGpuShare = {Scope::kExact, Scope::kGpuModel};
  switch (kind) {
    case FigureKind::kGpuMemoryGb:
      return kGpuMemory;
    case FigureKind::kGpuComputeFraction:
      return kGpuShare;
    default:
      return settings.cpu_memory_any_hardware ? kCpuAnyHardware : kCpu;
  }
}

}  // namespace

AggregateKey KeyAt(std::int64_t workload_id, Scope scope, const HardwareKey& hardware) {
  AggregateKey key;
  key.workload_id = workload_id;
  key.scope = scope;
  if (scope == Scope::kExact || scope == Scope::kGpuModel) {
    key.gpu_brand = hardware.gpu_brand.value_or("");
    key.gpu_model = hardware.gpu_model.value_or("");
  }
  if (scope == Scope::kExact || scope == Scope::kInstanceType) {
    key.instance_type = hardware.instance_type.value_or("");
  }
  return key;
}

RecommendationReader::RecommendationReader(store::Connection& db)
    : RecommendationReader(db, LoadSettings(db)) {}

RecommendationReader::RecommendationReader(store::Connection& db, RecommenderSettings settings)
    : db_(db),
      settings_(std::move(settings)),
      transfer_(db),
      workload_(db.Prepare("SELECT id FROM workloads WHERE image = ?")),
      // One row per scope the key has; the parameters are bound in order
      // (workload, brand, model, instance type as each arm names them).
      aggregates_(
          db.Prepare("SELECT 0, state FROM aggregates WHERE workload_id = ? AND scope = 'exact' "
                     "AND gpu_brand = ? AND gpu_model = ? AND instance_type = ? AND width = 0 "
                     "UNION ALL SELECT 1, state FROM aggregates WHERE workload_id = ? "
                     "AND scope = 'gpu_model' AND gpu_brand = ? AND gpu_model = ? "
                     "AND instance_type = '' AND width = 0 "
                     "UNION ALL SELECT 2, state FROM aggregates WHERE workload_id = ? "
                     "AND scope = 'instance_type' AND gpu_brand = '' AND gpu_model = '' "
                     "AND instance_type = ? AND width = 0 "
                     "UNION ALL SELECT 3, state FROM aggregates WHERE workload_id = ? "
                     "AND scope = 'any' AND gpu_brand = '' AND gpu_model = '' "
                     "AND instance_type = '' AND width = 0")) {}

void RecommendationReader::KeepWhile(std::optional<store::Connection::Version> version) {
  const bool changed = !version || version != kept_version_;
  transfer_.KeepFor(changed, settings_.transfer_refresh_seconds);  // kept by age, not version
  if (!changed) return;
  kept_ids_.clear();
  kept_scopes_.clear();
  kept_memo_.clear();
  kept_version_ = version;
}

std::optional<std::int64_t> RecommendationReader::WorkloadId(const std::string& image) {
  if (kept_version_) {
    if (auto it = kept_ids_.find(image); it != kept_ids_.end()) return it->second;
  }
  store::Statement& workload = *workload_;
  workload.Reset();
  workload.BindTextView(1, image);
  std::optional<std::int64_t> id;
  if (workload.Step()) id = workload.Int64(0);
  workload.Reset();  // an unfinished statement would hold its read transaction open
  if (kept_version_) {
    if (kept_ids_.size() >= kMaxKeptKeys) kept_ids_.clear();
    kept_ids_.emplace(image, id);
  }
  return id;
}

void RecommendationReader::ReadScopes(std::int64_t workload_id, const HardwareKey& hardware,
                                      ScopeStates* out) {
  store::Statement& aggregates = *aggregates_;
  aggregates.Reset();
  const std::string brand = hardware.gpu_brand.value_or("");
  const std::string model = hardware.gpu_model.value_or("");
  const std::string instance_type = hardware.instance_type.value_or("");
  int i = 1;
  aggregates.Bind(i++, workload_id);  // exact
  aggregates.BindTextView(i++, brand);
  aggregates.BindTextView(i++, model);
  aggregates.BindTextView(i++, instance_type);
  aggregates.Bind(i++, workload_id);  // gpu_model
  aggregates.BindTextView(i++, brand);
  aggregates.BindTextView(i++, model);
  aggregates.Bind(i++, workload_id);  // instance_type
  aggregates.BindTextView(i++, instance_type);
  aggregates.Bind(i++, workload_id);  // any
  while (aggregates.Step()) {
    const auto scope = static_cast<std::size_t>(aggregates.Int(0));
    (*out)[scope] = AggregateFromState(aggregates.Blob(1));
  }
  aggregates.Reset();
}

const RecommendationReader::ScopeStates& RecommendationReader::KeptScopes(
    std::int64_t workload_id, const HardwareKey& hardware) {
  auto key = std::make_tuple(workload_id, hardware.gpu_brand.value_or(""),
                             hardware.gpu_model.value_or(""), hardware.instance_type.value_or(""));
  if (auto it = kept_scopes_.find(key); it != kept_scopes_.end()) return it->second;
  ScopeStates states;  // kept only once whole: a read that throws keeps nothing
  ReadScopes(workload_id, hardware, &states);
  if (kept_scopes_.size() >= kMaxKeptKeys) kept_scopes_.clear();
  return kept_scopes_.emplace(std::move(key), std::move(states)).first->second;
}

Recommendation RecommendationReader::Read(std::int64_t workload_id, const std::string& workload,
                                          const HardwareKey& hardware, double as_of, bool explain,
                                          std::optional<std::int64_t> width) {
  ScopeStates read;
  const ScopeStates* by_scope = &read;
  if (workload_id > 0) {
    if (kept_version_) {
      by_scope = &KeptScopes(workload_id, hardware);
    } else {
      ReadScopes(workload_id, hardware, &read);
    }
  }
  ScopeAggregates found{};
  for (std::size_t s = 0; s < kScopeCount; ++s) {
    if ((*by_scope)[s]) found[s] = &*(*by_scope)[s];
  }
  Recommendation out = Estimate(workload, hardware, as_of, found);
  Transfer(workload_id, explain, &out);
  if (explain) Explain(workload_id, found, &out);
  if (width) AnswerForWidth(workload_id, *width, explain, &out);
  return out;
}

Recommendation RecommendationReader::Read(std::int64_t workload_id, const std::string& workload,
                                          const HardwareKey& hardware, double as_of,
                                          AggregateMemo* memo, std::optional<std::int64_t> width) {
  ScopeAggregates found{};
  if (workload_id > 0) {
    ReadAggregates(workload_id, {&hardware}, memo);  // nothing to read when prefetched
    for (std::size_t s = 0; s < kScopeCount; ++s) {
      const auto entry = memo->find(KeyAt(workload_id, static_cast<Scope>(s), hardware));
      if (entry->second) found[s] = &*entry->second;
    }
  }
  Recommendation out = Estimate(workload, hardware, as_of, found);
  Transfer(workload_id, false, &out);
  if (width) {
    AnswerForWidth(workload_id, *width, false, WidthAggregatesIn(*memo, workload_id, hardware),
                   &out);
  }
  return out;
}

AggregateMemo WantedAggregates(std::int64_t workload_id,
                               const std::vector<const HardwareKey*>& keys,
                               const AggregateMemo& memo) {
  AggregateMemo wanted;
  for (const HardwareKey* hardware : keys) {
    for (std::size_t s = 0; s < kScopeCount; ++s) {
      AggregateKey key = KeyAt(workload_id, static_cast<Scope>(s), *hardware);
      if (memo.count(key) == 0) wanted.try_emplace(std::move(key));
    }
  }
  return wanted;
}

void KeepAggregateRow(const store::Statement& row, const AggregateColumns& columns,
                      AggregateKey* key, AggregateMemo* wanted, const AggregateMemo& memo) {
  const std::optional<Scope> scope = ScopeNamed(row.Text(columns.scope));
  if (!scope) return;
  key->scope = *scope;
  row.AssignText(columns.gpu_brand, &key->gpu_brand);
  row.AssignText(columns.gpu_model, &key->gpu_model);
  row.AssignText(columns.instance_type, &key->instance_type);
  key->width = row.Int64(columns.width);
  const auto entry = wanted->find(*key);
  if (entry != wanted->end()) {
    entry->second = AggregateFromState(row.Blob(columns.state));
  } else if (key->width > 0 && memo.count(*key) == 0) {
    // A width's rows are few: kept for a Read at a width (GPU memory only).
    wanted->emplace(*key, AggregateFromState(row.Blob(columns.state)));
  }
}

void RecommendationReader::ReadAggregates(std::int64_t workload_id,
                                          const std::vector<const HardwareKey*>& keys,
                                          AggregateMemo* memo) {
  if (workload_id <= 0) return;
  AggregateMemo wanted = WantedAggregates(workload_id, keys, *memo);
  if (wanted.empty()) return;
  if (!workload_rows_) {
    workload_rows_ = db_.Prepare(
        "SELECT scope, gpu_brand, gpu_model, instance_type, state, width "
        "FROM aggregates WHERE workload_id = ?");
  }
  // One seek, then the rows in key order: a seek per row costs more, since each
  // comparison on this table reads a whole row with its state.
  store::Statement& select = *workload_rows_;
  select.Reset();
  select.Bind(1, workload_id);
  constexpr AggregateColumns kColumns{0, 1, 2, 3, 5, 4};
  AggregateKey key;
  key.workload_id = workload_id;
  while (select.Step()) KeepAggregateRow(select, kColumns, &key, &wanted, *memo);
  select.Reset();
  memo->merge(wanted);
}

Figure EstimateFromScopes(FigureKind kind, const HardwareKey& hardware,
                          const ScopeAggregates& by_scope, const RecommenderSettings& settings) {
  if (hardware.cpu_only && IsGpuFigure(kind)) return EmptyFigure(kind, settings);
  for (Scope scope : FallbackChain(kind, settings)) {
    const KeyAggregate* aggregate = by_scope[static_cast<std::size_t>(scope)];
    if (aggregate == nullptr || aggregate->metric(kind).empty()) continue;
    return EstimateFigure(kind, aggregate->metric(kind), settings,
                          kProvenanceOfScope[static_cast<std::size_t>(scope)]);
  }
  if (kind != FigureKind::kGpuComputeFraction) return EmptyFigure(kind, settings);
  // No execution reported what it used: the share held, said so.
  for (Scope scope : FallbackChain(kind, settings)) {
    const KeyAggregate* aggregate = by_scope[static_cast<std::size_t>(scope)];
    if (aggregate == nullptr || aggregate->held_share().empty()) continue;
    Figure figure = EstimateFigure(kind, aggregate->held_share(), settings,
                                   kProvenanceOfScope[static_cast<std::size_t>(scope)]);
    figure.held_share = true;
    return figure;
  }
  return EmptyFigure(kind, settings);
}

Recommendation RecommendationReader::Estimate(const std::string& workload,
                                              const HardwareKey& hardware, double as_of,
                                              const ScopeAggregates& by_scope) const {
  Recommendation out;
  out.workload = workload;
  out.hardware = hardware;
  out.as_of = as_of;
  for (std::size_t f = 0; f < kFigureCount; ++f) {
    out.figures[f] = EstimateFromScopes(static_cast<FigureKind>(f), hardware, by_scope, settings_);
  }
  return out;
}

void RecommendationReader::Transfer(std::int64_t workload_id, bool explain, Recommendation* out) {
  if (!transfer_allowed_ || workload_id <= 0) return;
  for (Figure& figure : out->figures) {
    if (!WantsTransfer(figure, out->hardware, settings_)) continue;
    const std::optional<FigureTransfer> transfer =
        transfer_.Transfer(figure.kind, workload_id, out->hardware, settings_);
    if (!transfer) continue;
    figure = TransferredFigure(figure.kind, *transfer, settings_, explain);
    if (figure.reason) DescribeTransfer(figure.kind, out->hardware, *transfer, &*figure.reason);
  }
}

}  // namespace hwrec::internal
