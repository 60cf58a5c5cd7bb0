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
#include <memory>
#include <numeric>
#include <tuple>

#include "aggregate/aggregator.h"
#include "aggregate/settings.h"
#include "backtest/replay_internal.h"
#include "hwrec/catalog.h"
#include "hwrec/observation.h"
#include "hwrec/remedy.h"
#include "hwrec/store.h"
#include "recommend/transfer_source.h"
#include "store/database.h"
#include "store/guarded.h"

namespace hwrec {

namespace {

using internal::AggregateInput;
using internal::Event;
using internal::Execution;
using internal::RecommenderSettings;
using internal::ReplayOrder;
using internal::ReplayWorkload;
using internal::Tally;
using internal::WorkloadTallies;

struct Run {
  std::string name;
  std::map<std::string, std::string> values;
  RecommenderSettings settings;
};

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

// Whether two runs read the same transfer tables for `figures`: each figure
// transferred by both or neither, with the same statistic, and the same
// evidence asked of a factor.
bool SameTransferTables(const RecommenderSettings& a, const RecommenderSettings& b,
                        const std::vector<FigureKind>& figures) {
  if (a.transfer_min_workloads != b.transfer_min_workloads ||
      a.max_range_samples != b.max_range_samples) {
    return false;
  }
  return std::all_of(figures.begin(), figures.end(), [&](FigureKind kind) {
    const internal::FigureSettings& x = a.figure(kind);
    const internal::FigureSettings& y = b.figure(kind);
    return x.transfer == y.transfer && (!x.transfer || x.statistic.name == y.statistic.name);
  });
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

    // Factors for the runs whose settings transfer a figure, read before the
    // scan of the observations begins (one statement at a time); runs whose
    // settings read the same tables share them.
    std::vector<std::shared_ptr<internal::TransferSource>> transfers(runs->size());
    for (std::size_t r = 0; r < runs->size(); ++r) {
      const RecommenderSettings& settings = (*runs)[r].settings;
      for (std::size_t earlier = 0; earlier < r && !transfers[r]; ++earlier) {
        if (SameTransferTables((*runs)[earlier].settings, settings, figures)) {
          transfers[r] = transfers[earlier];
        }
      }
      for (FigureKind kind : figures) {
        if (!settings.figure(kind).transfer) continue;
        if (!transfers[r]) transfers[r] = std::make_shared<internal::TransferSource>(db);
        transfers[r]->Table(kind, settings);
      }
    }

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
                       options.keep_points && r == 0, options.points_per_series, transfers[r].get(),
                       &tallies);
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
