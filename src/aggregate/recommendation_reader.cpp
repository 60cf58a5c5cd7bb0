#include "aggregate/recommendation_reader.h"

#include <fmt/format.h>

#include <map>
#include <string_view>
#include <utility>

#include "aggregate/estimator.h"

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

// The provenance of a figure learned at each scope, in Scope's order.
constexpr Provenance kProvenanceOfScope[kScopeCount] = {Provenance::kExact, Provenance::kGpuModel,
                                                        Provenance::kInstanceType,
                                                        Provenance::kWorkloadAnyHardware};

// The scope whose aggregate a figure of `provenance` was learned from.
Scope ScopeOfProvenance(Provenance provenance) {
  for (std::size_t s = 0; s < kScopeCount; ++s) {
    if (kProvenanceOfScope[s] == provenance) return static_cast<Scope>(s);
  }
  return Scope::kAny;
}

bool IsGpuFigure(FigureKind kind) {
  return kind == FigureKind::kGpuMemoryGb || kind == FigureKind::kGpuComputeFraction;
}

// The row `scope` keeps for `hardware`: the parts the scope does not key on are "".
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

}  // namespace

RecommendationReader::RecommendationReader(store::Connection& db)
    : RecommendationReader(db, LoadSettings(db)) {}

RecommendationReader::RecommendationReader(store::Connection& db, RecommenderSettings settings)
    : db_(db),
      settings_(std::move(settings)),
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
  if (version && version == kept_version_) return;
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
  if (explain) Explain(workload_id, found, &out);
  if (width) AnswerForWidth(workload_id, *width, explain, &out);
  return out;
}

namespace {

// The width whose rows answer for `width`: `width` itself, else the nearest
// one with rows, the narrower on a tie (its per-GPU figure is at least the
// need at more GPUs: a request sized by it does not run out); 0 when there
// are none.
std::int64_t NearestWidth(const std::vector<std::int64_t>& widths, std::int64_t width) {
  std::int64_t best = 0;
  for (std::int64_t w : widths) {
    const std::int64_t d = w > width ? w - width : width - w;
    const std::int64_t best_d = best > width ? best - width : width - best;
    if (best == 0 || d < best_d || (d == best_d && w < best)) best = w;
  }
  return best;
}

}  // namespace

RecommendationReader::WidthAggregates RecommendationReader::WidthAggregatesIn(
    const AggregateMemo& memo, std::int64_t workload_id, const HardwareKey& hardware) {
  WidthAggregates by_width;
  for (const auto& [key, aggregate] : memo) {
    if (key.workload_id == workload_id && aggregate) by_width.Add(key, *aggregate, hardware);
  }
  return by_width;
}

void RecommendationReader::AnswerForWidth(std::int64_t workload_id, std::int64_t width,
                                          bool explain, Recommendation* out) {
  out->width = width;
  if (workload_id <= 0 || out->hardware.cpu_only) return;
  AggregateMemo memo;  // the workload's rows of every width, in ReadAggregates' one pass
  ReadAggregates(workload_id, {&out->hardware}, &memo);
  AnswerForWidth(workload_id, width, explain, WidthAggregatesIn(memo, workload_id, out->hardware),
                 out);
}

std::map<std::int64_t, Figure> RecommendationReader::GpuMemoryByWidth(std::int64_t workload_id,
                                                                      const HardwareKey& hardware,
                                                                      AggregateMemo* memo) {
  std::map<std::int64_t, Figure> figures;
  if (hardware.cpu_only || workload_id <= 0) return figures;
  ReadAggregates(workload_id, {&hardware}, memo);  // nothing to read when prefetched
  const WidthAggregates by_width = WidthAggregatesIn(*memo, workload_id, hardware);
  for (std::int64_t width : by_width.Widths()) {
    const WidthAggregates::At at = by_width.MostSpecificAt(width);
    Figure figure =
        EstimateFigure(FigureKind::kGpuMemoryGb, at.aggregate->metric(FigureKind::kGpuMemoryGb),
                       settings_, kProvenanceOfScope[static_cast<std::size_t>(at.scope)]);
    figure.learned_width = width;
    figures.emplace(width, std::move(figure));
  }
  return figures;
}

void RecommendationReader::WidthAggregates::Add(const AggregateKey& key,
                                                const KeyAggregate& aggregate,
                                                const HardwareKey& hardware) {
  if (key.width <= 0) return;
  if (key.scope == Scope::kAny) {
    on_any.emplace(key.width, &aggregate);
    return;
  }
  if (key.gpu_brand != hardware.gpu_brand.value_or("") ||
      key.gpu_model != hardware.gpu_model.value_or("")) {
    return;
  }
  if (key.scope == Scope::kGpuModel) {
    on_card.emplace(key.width, &aggregate);
  } else if (key.scope == Scope::kExact &&
             key.instance_type == hardware.instance_type.value_or("")) {
    on_key.emplace(key.width, &aggregate);
  }
}

std::vector<std::int64_t> RecommendationReader::WidthAggregates::Widths() const {
  std::vector<std::int64_t> widths;
  for (const auto& [w, aggregate] : on_any) {
    if (!aggregate->metric(FigureKind::kGpuMemoryGb).empty()) widths.push_back(w);
  }
  return widths;
}

// The most specific population at `width` (one of Widths()): the key, the
// card, any card.
RecommendationReader::WidthAggregates::At RecommendationReader::WidthAggregates::MostSpecificAt(
    std::int64_t width) const {
  for (const auto& [scope, rows] :
       {std::pair{Scope::kExact, &on_key}, std::pair{Scope::kGpuModel, &on_card}}) {
    const auto found = rows->find(width);
    if (found != rows->end() && !found->second->metric(FigureKind::kGpuMemoryGb).empty()) {
      return {found->second, scope};
    }
  }
  return {on_any.at(width), Scope::kAny};
}

void RecommendationReader::AnswerForWidth(std::int64_t workload_id, std::int64_t width,
                                          bool explain, const WidthAggregates& by_width,
                                          Recommendation* out) {
  out->width = width;
  if (workload_id <= 0 || out->hardware.cpu_only) return;
  constexpr FigureKind kKind = FigureKind::kGpuMemoryGb;
  const std::int64_t learned = NearestWidth(by_width.Widths(), width);
  if (learned == 0) return;  // no execution said what it held: every width's figure stands
  const WidthAggregates::At at = by_width.MostSpecificAt(learned);
  const KeyAggregate* aggregate = at.aggregate;
  const Scope scope = at.scope;
  const Provenance provenance = kProvenanceOfScope[static_cast<std::size_t>(scope)];
  Figure& figure = out->figures[static_cast<std::size_t>(kKind)];
  figure = EstimateFigure(kKind, aggregate->metric(kKind), settings_, provenance);
  figure.learned_width = learned;
  if (!explain || !figure.value) return;
  std::optional<RecentValue> set_by;
  figure.reason = ExplainFigure(kKind, aggregate->metric(kKind), settings_, &set_by);
  if (!figure.reason) return;
  std::optional<ExplainedExecution> execution;
  if (set_by) execution = FindExecution(kKind, workload_id, out->hardware, scope, *set_by);
  CompleteReason(kKind, settings_, set_by, execution, &*figure.reason);
  const std::string where = scope == Scope::kExact      ? "on this hardware"
                            : scope == Scope::kGpuModel ? "on this card"
                                                        : "on any card";
  figure.reason->text.insert(
      0, learned == width
             ? fmt::format("per GPU, of the executions that held {} GPU(s) {}: ", width, where)
             : fmt::format("per GPU, of the executions that held {} GPU(s) {}, the nearest width "
                           "it ran at (none held {}; not scaled to it): ",
                           learned, where, width));
}

void RecommendationReader::Explain(std::int64_t workload_id, const ScopeAggregates& by_scope,
                                   Recommendation* out) {
  for (std::size_t f = 0; f < kFigureCount; ++f) {
    const auto kind = static_cast<FigureKind>(f);
    Figure& figure = out->figures[f];
    if (figure.provenance == Provenance::kNone || !figure.value) continue;
    const Scope scope = ScopeOfProvenance(figure.provenance);
    const KeyAggregate* aggregate = by_scope[static_cast<std::size_t>(scope)];
    if (aggregate == nullptr) continue;
    std::optional<RecentValue> set_by;
    const MetricState& metric =
        figure.held_share ? aggregate->held_share() : aggregate->metric(kind);
    figure.reason = ExplainFigure(kind, metric, settings_, &set_by);
    if (!figure.reason) continue;
    std::optional<ExplainedExecution> execution;
    if (set_by) execution = FindExecution(kind, workload_id, out->hardware, scope, *set_by);
    CompleteReason(kind, settings_, set_by, execution, &*figure.reason);
    if (figure.held_share) {
      figure.reason->text.insert(0,
                                 "of the shares held, as no execution reported its GPU "
                                 "utilisation (the share used is at most this): ");
    }
  }
}

namespace {
// The columns FindExecution reads, both lookups alike.
constexpr const char* kExecutionColumns =
    "SELECT execution_id, finished_at, status, requested_memory_bytes, memory_peak_bytes, "
    "requested_gpu_memory_gb, gpu_memory_peak_gb FROM observations ";

// The execution `lookup` finds (bound, not yet stepped), then resets it.
std::optional<ExplainedExecution> StepExecution(FigureKind kind, store::Statement& lookup) {
  std::optional<ExplainedExecution> found;
  if (lookup.Step()) {
    ExplainedExecution e;
    lookup.AssignText(0, &e.execution_id);
    e.finished_at = lookup.Double(1);
    e.status = ParseExecutionStatus(lookup.Text(2)).value_or(ExecutionStatus::kSuccess);
    const int column = kind == FigureKind::kGpuMemoryGb ? 5 : 3;
    e.requested = lookup.OptionalDouble(column);
    e.observed = lookup.OptionalDouble(column + 1);
    found = std::move(e);
  }
  lookup.Reset();  // an unfinished statement would hold its read transaction open
  return found;
}

}  // namespace

std::optional<ExplainedExecution> RecommendationReader::FindExecution(FigureKind kind,
                                                                      std::int64_t workload_id,
                                                                      const HardwareKey& hardware,
                                                                      Scope scope,
                                                                      const RecentValue& recent) {
  if (recent.observation_id > 0) {
    if (!execution_by_id_) {
      execution_by_id_ = db_.Prepare(std::string(kExecutionColumns) + "WHERE id = ?");
    }
    execution_by_id_->Reset();
    execution_by_id_->Bind(1, recent.observation_id);
    auto found = StepExecution(kind, *execution_by_id_);
    // An id of another store's numbering (rows renumbered since) is not trusted.
    if (found && found->finished_at == recent.time) return found;
  }
  // A state stored before format 3: the first execution of the workload on
  // the aggregate's key that finished then (observations_by_workload).
  if (!execution_by_time_) {
    execution_by_time_ = db_.Prepare(
        std::string(kExecutionColumns) +
        "WHERE workload_id = ? AND finished_at = ? "
        "AND (? = 0 OR coalesce(gpu_brand, '') = ?) AND (? = 0 OR coalesce(gpu_model, '') = ?) "
        "AND (? = 0 OR coalesce(instance_type, '') = ?) ORDER BY id LIMIT 1");
  }
  const AggregateKey key = KeyAt(workload_id, scope, hardware);
  const std::int64_t gpu = scope == Scope::kExact || scope == Scope::kGpuModel ? 1 : 0;
  const std::int64_t instance = scope == Scope::kExact || scope == Scope::kInstanceType ? 1 : 0;
  store::Statement& lookup = *execution_by_time_;
  lookup.Reset();
  int i = 1;
  lookup.Bind(i++, workload_id);
  lookup.Bind(i++, recent.time);
  lookup.Bind(i++, gpu);
  lookup.BindTextView(i++, key.gpu_brand);
  lookup.Bind(i++, gpu);
  lookup.BindTextView(i++, key.gpu_model);
  lookup.Bind(i++, instance);
  lookup.BindTextView(i++, key.instance_type);
  return StepExecution(kind, lookup);
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

}  // namespace hwrec::internal
