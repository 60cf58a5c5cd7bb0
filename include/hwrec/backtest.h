// Backtest: how good the figures would have been on the store's own history.
// Backtest() replays the stored observations in time order, in memory, and
// never writes the store: each execution is scored against the figure the
// store would have given for its hardware key as of its start, learned only
// from executions finished by then, with the store's settings, overrides of
// them, or a preset of a published rule (BacktestPresets). The result
// counts, per figure and per (workload, hardware key, figure) series, the
// executions scored, the cold ones (no figure yet), the overruns, and the
// slack and over-provisioning of those that fit, and apart the executions
// sized while their workload had history on other hardware only (its first
// on a new card). A figure whose setting allows transfer
// (`<figure>.transfer`) is transferred there as Recommend would: the
// workload's figures on its other keys as of the start, times factors learned
// from the other workloads' aggregates as the store holds them now (a
// workload never teaches its own factor; the others' later history does).
// Reads through the Store's connection: one thread at a time, as every call
// on a Store.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hwrec/export.h"
#include "hwrec/figure.h"
#include "hwrec/hardware_key.h"
#include "hwrec/status.h"

namespace hwrec {

class Store;

// A named rule, as estimator settings: config keys (`hwrec config list`)
// with the value the rule gives them. Keys it leaves out keep the store's.
struct HWREC_EXPORT BacktestPreset {
  std::string name;         // "intelliscale", "vpa", "autopilot"
  std::string description;  // the rule in words
  std::string source;       // where the rule is published
  std::vector<std::pair<std::string, std::string>> settings;
};

// intelliscale, vpa and autopilot, in that order.
HWREC_EXPORT const std::vector<BacktestPreset>& BacktestPresets();
// nullptr when no preset has that name.
HWREC_EXPORT const BacktestPreset* FindBacktestPreset(const std::string& name);

struct HWREC_EXPORT BacktestOptions {
  // Which executions are scored. History of the workload on other hardware
  // still feeds the figures that fall back to it (DESIGN §6).
  std::optional<std::string> image;
  // A model of the store's catalog, in its spelling; "unknown": executions
  // whose model is not recorded.
  std::optional<std::string> gpu_model;
  // The name an error gives gpu_model; a command line passes its flag
  // ("--gpu-model") so that the message names what its user typed.
  std::string gpu_model_field = "gpu_model";
  std::optional<std::string> instance_type;  // "": executions whose instance type is unknown
  std::optional<FigureKind> figure;          // leave out for every figure
  // Config keys set for the store's own run, over the store's settings.
  std::vector<std::pair<std::string, std::string>> overrides;
  // Presets replayed beside the store's own run, on the same executions;
  // a preset named twice is replayed once.
  std::vector<std::string> presets;
  // Keep every scored execution of the first run (the store's settings) in
  // its BacktestSeries::points, for a report; the presets' runs keep totals only.
  bool keep_points = false;
  // With keep_points, a bound on the points kept per series (0: keep them
  // all): every overrun and OOM, and of the other executions an even spread
  // of between this many and twice it once a series has more (every k-th by
  // start, k a power of two). Totals always count every execution.
  std::size_t points_per_series = 0;
};

// What one replay counted over a set of executions. Shares are fractions
// between 0 and 1; over_provisioned is in GiB·h (memory, GPU memory),
// core·h (CPU) or card·h (compute share), over the executions that fit
// and whose duration is known.
struct HWREC_EXPORT BacktestTotals {
  std::int64_t scored = 0;    // executions that had a figure and an observed value
  std::int64_t cold = 0;      // executions with an observed value but no figure yet
  std::int64_t overruns = 0;  // scored executions that used more than the figure
  double overrun_share = 0;   // overruns / scored; 0 when nothing was scored
  double mean_slack = 0;      // mean of (figure − observed) / figure over those that fit
  double over_provisioned = 0;
  std::int64_t with_duration = 0;  // fitting executions whose duration is known
  // Of the executions above, those sized while their workload had history
  // on other hardware only: its first executions on a new card (GPU
  // figures) or instance type (CPU, memory), counted apart so that what
  // transfer buys shows (a figure with transfer on against one without).
  std::int64_t new_card = 0;           // scored or cold
  std::int64_t new_card_scored = 0;    // had a figure: transferred, or from other hardware
  std::int64_t new_card_overruns = 0;  // of new_card_scored
  double new_card_mean_slack = 0;      // mean_slack over those of them that fit
  std::int64_t transferred = 0;        // scored executions whose figure was transferred
};

// One scored (or cold) execution, for a chart.
struct HWREC_EXPORT BacktestPoint {
  std::string execution_id;
  double started_at = 0;              // epoch seconds: when it was sized
  double observed = 0;                // in the figure's unit; an OOM's is its bumped need
  std::optional<double> recommended;  // nullopt: cold
  std::optional<double> lower, upper;
  bool overrun = false;
  bool oom = false;          // an oom (memory) or gpu_oom (GPU memory) execution
  bool transferred = false;  // the figure was transferred from other hardware
};

// One (workload, hardware key, figure).
struct HWREC_EXPORT BacktestSeries {
  std::string workload;
  HardwareKey hardware;
  FigureKind figure = FigureKind::kGpuMemoryGb;
  BacktestTotals totals;
  // By start; only with keep_points, in the first run (see points_per_series).
  std::vector<BacktestPoint> points;
};

// One replay: the store's settings (with the overrides), or one preset.
struct HWREC_EXPORT BacktestRun {
  std::string name;  // "store", or the preset's name
  // The estimator settings the replay used, as config keys and values.
  std::vector<std::pair<std::string, std::string>> settings;
  // Every figure together: each (execution, figure) pair counts once, so an
  // execution scored on three figures adds 3 to `scored`. over_provisioned
  // mixes units here and is left 0; read it per figure.
  BacktestTotals total;
  std::vector<std::pair<FigureKind, BacktestTotals>> figures;  // per figure, in FigureKind order
  std::vector<BacktestSeries> series;                          // by workload, hardware key, figure
};

struct HWREC_EXPORT BacktestResult {
  std::int64_t executions = 0;    // observations replayed (the scored ones and their history)
  std::vector<BacktestRun> runs;  // the store's run first, then the presets as asked
};

// Replays the store's history. Returns kInvalidArgument naming what is wrong
// for an unknown preset, config key or value, or a GPU model the catalog does
// not have (with the closest spellings), kSchemaMismatch for a store older
// than the recommendation tables, kIoError when the store cannot be read.
HWREC_EXPORT Result<BacktestResult> Backtest(const Store& store, const BacktestOptions& options);

// The whole result as JSON text (what `hwrec backtest --format json` prints;
// the Python module gives the BacktestResult's fields): every total (per run, per figure,
// per series) with scored, cold, overruns, overrun_share, mean_slack, the
// new_card counts and transferred, shares as fractions between 0 and 1; per figure and series also
// over_provisioned (null when no duration is known) and its unit.
HWREC_EXPORT std::string BacktestJson(const BacktestResult& result, int indent = 2);

// "GiB·h", "core·h" or "card·h": what BacktestTotals::over_provisioned counts.
HWREC_EXPORT const char* OverProvisionedUnit(FigureKind kind);

}  // namespace hwrec
