// The backtest replay (hwrec/backtest.h). Per workload, the observations are
// read once, oldest first, and replayed once per run: each execution is
// sized, as of its start, from in-memory aggregates that hold exactly the
// executions that had finished by then, with the same code that keeps the
// store's aggregates (MetricValues, MetricState) and reads its figures
// (EstimateFromScopes). Nothing is written.
//
// An execution starts at finished_at − duration_s, or at finished_at when
// its duration is unknown. Sized at time t, it learns from the executions
// that finished by t, at t included (a window that ends as the next begins
// is history to it), except executions of no known duration that finish at
// t: they start and finish at once, so they become history just after t,
// and none learns from itself. An overrun is an execution that used more
// than its figure: for memory and GPU memory an OOM, for CPU throttling, for
// compute share a slower run.
#include "hwrec/backtest.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <tuple>
#include <unordered_map>

#include "aggregate/aggregator.h"
#include "aggregate/recommendation_reader.h"
#include "aggregate/settings.h"
#include "hwrec/catalog.h"
#include "hwrec/observation.h"
#include "hwrec/remedy.h"
#include "hwrec/store.h"
#include "store/database.h"
#include "store/guarded.h"

namespace hwrec {

namespace {

using internal::AggregateInput;
using internal::AggregateKey;
using internal::AggregateKeyHash;
using internal::KeyAggregate;
using internal::RecommenderSettings;
using internal::Scope;

constexpr double kBytesPerGiB = 1024.0 * 1024.0 * 1024.0;

// One observation as the replay needs it.
struct Execution {
  AggregateInput input;
  std::string execution_id;
  std::optional<double> duration_s;
  double started_at = 0;
  bool scored = false;  // matches the key filter (the figure filter applies per figure)
  HardwareKey hardware;
  std::size_t key_index = 0;  // into the workload's distinct hardware keys
};

struct Run {
  std::string name;
  std::map<std::string, std::string> values;
  RecommenderSettings settings;
};

// Where a figure's over-provisioning is counted: GiB, cores or cards per unit.
double AmountPerUnit(FigureKind kind) {
  switch (kind) {
    case FigureKind::kCpuRequestMillicores:
    case FigureKind::kCpuLimitMillicores:
      return 1.0 / 1000;
    case FigureKind::kMemoryBytes:
      return 1.0 / kBytesPerGiB;
    case FigureKind::kGpuMemoryGb:
    case FigureKind::kGpuComputeFraction:
      return 1.0;
  }
  return 1.0;
}

// Sums behind a BacktestTotals.
struct Tally {
  std::int64_t scored = 0, cold = 0, overruns = 0, fits = 0, with_duration = 0;
  double slack = 0, over_provisioned = 0;

  void Add(const Tally& o) {
    scored += o.scored;
    cold += o.cold;
    overruns += o.overruns;
    fits += o.fits;
    with_duration += o.with_duration;
    slack += o.slack;
    over_provisioned += o.over_provisioned;
  }
  BacktestTotals Totals() const {
    BacktestTotals t;
    t.scored = scored;
    t.cold = cold;
    t.overruns = overruns;
    t.overrun_share = scored > 0 ? static_cast<double>(overruns) / static_cast<double>(scored) : 0;
    t.mean_slack = fits > 0 ? slack / static_cast<double>(fits) : 0;
    t.over_provisioned = over_provisioned;
    t.with_duration = with_duration;
    return t;
  }
};

struct SeriesTally {
  Tally tally;
  std::vector<BacktestPoint> points;
  // Points that neither overran nor were OOMs: how many were seen, how many
  // are kept, and the stride of those kept (every stride-th one seen).
  std::size_t plain_seen = 0;
  std::size_t plain_kept = 0;
  std::size_t stride = 1;

  // Keeps every overrun and OOM and every stride-th other point; past
  // 2 × `limit` others kept, drops every second of them and doubles the
  // stride, so that at most 2 × `limit` stay, evenly spread over the series.
  void Keep(BacktestPoint point, std::size_t limit) {
    if (point.overrun || point.oom) {
      points.push_back(std::move(point));
      return;
    }
    if (plain_seen++ % stride != 0) return;
    points.push_back(std::move(point));
    if (limit == 0 || ++plain_kept <= 2 * limit) return;
    std::size_t plain = 0;
    const auto dropped = std::remove_if(points.begin(), points.end(), [&](const BacktestPoint& p) {
      return !p.overrun && !p.oom && plain++ % 2 == 1;
    });
    points.erase(dropped, points.end());
    plain_kept = (plain_kept + 1) / 2;
    stride *= 2;
  }
};

// Whether an execution with `observed` (and its status) overran `recommended`.
// An OOM ran out of what it requested: under a figure no larger than that
// request it would have run out too; under a larger one its need is what
// the aggregates learn from it (the bumped peak), compared like any other.
bool Overran(FigureKind kind, const AggregateInput& in, double observed, double recommended,
             bool oom) {
  if (oom) {
    const std::optional<double>& requested =
        kind == FigureKind::kMemoryBytes ? in.requested_memory_bytes : in.requested_gpu_memory_gb;
    if (!requested || recommended <= *requested) return true;
  }
  return observed > recommended;
}

bool IsOom(FigureKind kind, ExecutionStatus status) {
  return (kind == FigureKind::kMemoryBytes && status == ExecutionStatus::kOom) ||
         (kind == FigureKind::kGpuMemoryGb && status == ExecutionStatus::kGpuOom);
}

HardwareKey KeyOf(const AggregateInput& in) {
  HardwareKey key;
  if (!in.gpu_brand.empty()) key.gpu_brand = in.gpu_brand;
  if (!in.gpu_model.empty()) key.gpu_model = in.gpu_model;
  if (!in.instance_type.empty()) key.instance_type = in.instance_type;
  key.cpu_only = !in.has_gpu;
  return key;
}

using KeyTuple = std::tuple<std::string, std::string, std::string, bool>;

KeyTuple TupleOf(const AggregateInput& in) {
  return {in.gpu_brand, in.gpu_model, in.instance_type, !in.has_gpu};
}

bool MatchesFilter(const AggregateInput& in, const BacktestOptions& options) {
  if (options.gpu_model) {
    const std::string wanted = *options.gpu_model == "unknown" ? "" : *options.gpu_model;
    if (!in.has_gpu || in.gpu_model != wanted) return false;
  }
  if (options.instance_type && in.instance_type != *options.instance_type) return false;
  return true;
}

// The figures a run scores.
std::vector<FigureKind> FiguresOf(const BacktestOptions& options) {
  if (options.figure) return {*options.figure};
  std::vector<FigureKind> all;
  for (std::size_t f = 0; f < kFigureCount; ++f) all.push_back(static_cast<FigureKind>(f));
  return all;
}

// Per run: series tallies of one workload by (key index, figure).
using WorkloadTallies = std::map<std::pair<std::size_t, FigureKind>, SeriesTally>;

// A start or a finish of one execution in the replay's order.
struct Event {
  double time;
  int order;  // 0: a finish, 1: a start, 2: the finish of an execution without duration
  std::size_t index;
};

// The order the executions (oldest finish first) are replayed in: each is
// sized at its start from what had finished by then, so finish events sort
// before start events at the same time, except an execution's own finish
// when it has no duration (start = finish), which comes after its start.
// The same for every run: made once per workload.
std::vector<Event> ReplayOrder(const std::vector<Execution>& executions) {
  std::vector<Event> events;
  events.reserve(executions.size() * 2);
  for (std::size_t i = 0; i < executions.size(); ++i) {
    const Execution& e = executions[i];
    if (e.scored) events.push_back({e.started_at, 1, i});
    events.push_back({e.input.finished_at, e.started_at < e.input.finished_at ? 0 : 2, i});
  }
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    return std::tie(a.time, a.order, a.index) < std::tie(b.time, b.order, b.index);
  });
  return events;
}

// Replays one workload's executions in `events` order with `settings`.
void ReplayWorkload(const std::vector<Execution>& executions, const std::vector<Event>& events,
                    const RecommenderSettings& settings, const std::vector<FigureKind>& figures,
                    bool keep_points, std::size_t points_per_series, WorkloadTallies* tallies) {
  std::unordered_map<AggregateKey, KeyAggregate, AggregateKeyHash> aggregates;
  const auto scope_key = [](const AggregateInput& in, Scope scope) {
    AggregateKey key;
    key.workload_id = in.workload_id;
    key.scope = scope;
    if (scope == Scope::kExact || scope == Scope::kGpuModel) {
      key.gpu_brand = in.gpu_brand;
      key.gpu_model = in.gpu_model;
    }
    if (scope == Scope::kExact || scope == Scope::kInstanceType) {
      key.instance_type = in.instance_type;
    }
    return key;
  };
  // Each execution's four aggregates, found once (node addresses are stable).
  std::vector<std::array<KeyAggregate*, internal::kScopeCount>> rows(executions.size());
  for (std::size_t i = 0; i < executions.size(); ++i) {
    for (std::size_t s = 0; s < internal::kScopeCount; ++s) {
      rows[i][s] = &aggregates[scope_key(executions[i].input, static_cast<Scope>(s))];
    }
  }

  // Only the metrics of the figures scored are kept: a figure reads its own.
  std::vector<std::array<std::optional<double>, internal::kMetricCount>> values;
  values.reserve(executions.size());
  for (const Execution& e : executions) {
    values.push_back(internal::MetricValues(e.input, settings));
  }
  for (const Event& event : events) {
    const Execution& e = executions[event.index];
    const auto& value = values[event.index];
    if (event.order != 1) {
      for (KeyAggregate* aggregate : rows[event.index]) {
        const auto add = [&](std::size_t m) {
          if (!value[m]) return;
          aggregate->metrics[m].Add(*value[m], e.input.finished_at, settings.half_life_s(),
                                    settings.max_range_samples);
        };
        for (FigureKind kind : figures) {
          add(static_cast<std::size_t>(kind));
          // The compute share also reads the shares held without utilisation.
          if (kind == FigureKind::kGpuComputeFraction) add(internal::kHeldShareMetric);
        }
        ++aggregate->samples;
      }
      continue;
    }
    internal::ScopeAggregates by_scope{};
    for (std::size_t s = 0; s < internal::kScopeCount; ++s) {
      KeyAggregate* aggregate = rows[event.index][s];
      by_scope[s] = aggregate->samples > 0 ? aggregate : nullptr;
    }
    for (FigureKind kind : figures) {
      const auto& observed = value[static_cast<std::size_t>(kind)];
      if (!observed) continue;
      SeriesTally& series = (*tallies)[{e.key_index, kind}];
      const Figure figure = internal::EstimateFromScopes(kind, e.hardware, by_scope, settings);
      const bool oom = IsOom(kind, e.input.status);
      BacktestPoint point;
      point.observed = *observed;
      point.oom = oom;
      if (!figure.value) {
        ++series.tally.cold;
      } else {
        const double recommended = *figure.value;
        ++series.tally.scored;
        point.overrun = Overran(kind, e.input, *observed, recommended, oom);
        if (point.overrun) {
          ++series.tally.overruns;
        } else {
          ++series.tally.fits;
          if (recommended > 0) series.tally.slack += (recommended - *observed) / recommended;
          if (e.duration_s && *e.duration_s >= 0) {
            ++series.tally.with_duration;
            series.tally.over_provisioned +=
                (recommended - *observed) * AmountPerUnit(kind) * *e.duration_s / 3600.0;
          }
        }
      }
      if (keep_points) {
        point.execution_id = e.execution_id;
        point.started_at = e.started_at;
        point.recommended = figure.value;
        point.lower = figure.lower;
        point.upper = figure.upper;
        series.Keep(std::move(point), points_per_series);
      }
    }
  }
}

std::string ValueList(const std::vector<BacktestPreset>& presets) {
  std::string names;
  for (const BacktestPreset& p : presets) names += (names.empty() ? "" : ", ") + p.name;
  return names;
}

Result<std::vector<Run>> RunsOf(const std::map<std::string, std::string>& stored,
                                const BacktestOptions& options) {
  std::vector<Run> runs;
  Run own{"store", stored, {}};
  for (const auto& [key, value] : options.overrides) {
    if (Status valid = internal::ValidateConfigValue(key, value); !valid.ok()) {
      return Status::InvalidArgument(fmt::format("overrides['{}']: {}", key, valid.message()));
    }
    own.values[key] = value;
  }
  runs.push_back(std::move(own));
  for (const std::string& name : options.presets) {
    const BacktestPreset* preset = FindBacktestPreset(name);
    if (preset == nullptr) {
      return Status::InvalidArgument(fmt::format("preset '{}' is not a preset: use one of {}", name,
                                                 ValueList(BacktestPresets())));
    }
    // A preset named twice is replayed once.
    if (std::any_of(runs.begin() + 1, runs.end(),
                    [&](const Run& run) { return run.name == preset->name; })) {
      continue;
    }
    Run run{preset->name, stored, {}};
    for (const auto& [key, value] : preset->settings) run.values[key] = value;
    runs.push_back(std::move(run));
  }
  for (Run& run : runs) run.settings = internal::SettingsFromValues(run.values);
  return runs;
}

// Hardware keys in a stable order: the replay's series are listed by them.
bool KeyLess(const HardwareKey& a, const HardwareKey& b) {
  return std::make_tuple(a.cpu_only, a.gpu_brand, a.gpu_model, a.instance_type) <
         std::make_tuple(b.cpu_only, b.gpu_brand, b.gpu_model, b.instance_type);
}

}  // namespace

Result<BacktestResult> Backtest(const Store& store, const BacktestOptions& asked) {
  return internal::Guarded(store.path(), [&]() -> Result<BacktestResult> {
    BacktestOptions options = asked;
    if (options.gpu_model && *options.gpu_model != "unknown") {
      auto key = ResolveHardwareKey(store, {std::nullopt, options.gpu_model, std::nullopt, false},
                                    options.gpu_model_field);
      if (!key.ok()) return key.status();
      options.gpu_model = key->gpu_model;
    }
    const int version = store.schema_version();
    if (version < Store::LatestSchemaVersion()) {
      return Status::SchemaMismatch(fmt::format(
          "{}: store is at schema {} but the backtest needs schema {}: run {}", store.path(),
          version, Store::LatestSchemaVersion(), RemedyText(Remedy::kMigrate, store.path())));
    }
    store::Connection& db = store::ConnectionOf(store);
    store::ReadSnapshot snapshot(db);
    auto runs = RunsOf(internal::LoadSettingValues(db), options);
    if (!runs.ok()) return runs.status();
    const std::vector<FigureKind> figures = FiguresOf(options);

    BacktestResult result;
    std::vector<std::vector<Tally>> figure_tallies(runs->size(), std::vector<Tally>(kFigureCount));
    std::vector<std::vector<BacktestSeries>> series(runs->size());

    std::vector<Execution> executions;
    std::map<KeyTuple, std::size_t> key_indices;
    std::vector<HardwareKey> keys;
    std::string image;
    const auto replay = [&]() {
      if (executions.empty()) return;
      // Keys in display order; series follow it.
      std::vector<std::size_t> order(keys.size());
      std::iota(order.begin(), order.end(), 0);
      std::sort(order.begin(), order.end(),
                [&](std::size_t a, std::size_t b) { return KeyLess(keys[a], keys[b]); });
      const std::vector<Event> events = ReplayOrder(executions);
      for (std::size_t r = 0; r < runs->size(); ++r) {
        WorkloadTallies tallies;
        // Points of the first run only: the one a report draws.
        ReplayWorkload(executions, events, (*runs)[r].settings, figures,
                       options.keep_points && r == 0, options.points_per_series, &tallies);
        for (std::size_t k : order) {
          for (FigureKind kind : figures) {
            auto found = tallies.find({k, kind});
            if (found == tallies.end()) continue;
            figure_tallies[r][static_cast<std::size_t>(kind)].Add(found->second.tally);
            BacktestSeries s;
            s.workload = image;
            s.hardware = keys[k];
            s.figure = kind;
            s.totals = found->second.tally.Totals();
            s.points = std::move(found->second.points);
            series[r].push_back(std::move(s));
          }
        }
      }
      executions.clear();
      key_indices.clear();
      keys.clear();
    };

    // The settings decide which rows count (ingest.max_clock_skew_hours):
    // the store's run's, for every run, so that all score the same executions.
    internal::InputScan scan;
    scan.image = options.image;
    scan.by_workload = true;
    std::int64_t workload = -1;
    internal::ForEachInput(
        db, (*runs)[0].settings, scan,
        [&](const AggregateInput& in, const internal::InputExtras& extras) {
          if (in.workload_id != workload) {
            replay();
            workload = in.workload_id;
            image = extras.image;
          }
          ++result.executions;
          Execution e;
          e.input = in;
          e.execution_id = extras.execution_id;
          // A duration stored before ingest bounded it (or beyond any
          // calendar) says nothing: the execution is placed at its finish.
          if (extras.duration_s && std::isfinite(*extras.duration_s) && *extras.duration_s >= 0 &&
              *extras.duration_s <= kMaxDurationSeconds) {
            e.duration_s = extras.duration_s;
          }
          const double duration = e.duration_s.value_or(0);
          e.started_at = in.finished_at - duration;
          e.scored = MatchesFilter(in, options);
          if (e.scored) {
            const auto [at, added] = key_indices.try_emplace(TupleOf(in), keys.size());
            if (added) keys.push_back(KeyOf(in));
            e.key_index = at->second;
            e.hardware = keys[e.key_index];
          }
          executions.push_back(std::move(e));
        });
    replay();

    for (std::size_t r = 0; r < runs->size(); ++r) {
      BacktestRun run;
      run.name = (*runs)[r].name;
      for (const internal::ConfigKey& key : internal::ConfigKeys()) {
        run.settings.emplace_back(key.key, (*runs)[r].values.at(key.key));
      }
      Tally all;
      for (FigureKind kind : figures) {
        const Tally& t = figure_tallies[r][static_cast<std::size_t>(kind)];
        all.Add(t);
        run.figures.emplace_back(kind, t.Totals());
      }
      all.over_provisioned = 0;  // units differ between figures
      run.total = all.Totals();
      run.series = std::move(series[r]);
      result.runs.push_back(std::move(run));
    }
    return result;
  });
}

}  // namespace hwrec
