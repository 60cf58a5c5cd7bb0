// RecommenderSettings: the estimator configuration of DESIGN §6 as read from
// the store's `config` table, with the defaults and validation of every key.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hwrec/figure.h"
#include "hwrec/status.h"
#include "store/database.h"

namespace hwrec::internal {

// p90/p95/p98/p99 (a percentile), avg (decayed mean) or max (of the last N).
struct Statistic {
  enum class Kind { kPercentile, kAverage, kMax } kind = Kind::kPercentile;
  double quantile = 0.95;  // for kPercentile
  std::string name = "p95";
};

std::optional<Statistic> ParseStatistic(const std::string& text);

struct FigureSettings {
  Statistic statistic;
  double margin = 0;
  // Whether a key without the workload's history may get a figure
  // transferred from its history on other keys (recommend/transfer.h).
  bool transfer = false;
};

struct RecommenderSettings {
  double half_life_hours = 12;
  std::size_t max_range_samples = 10;
  double compute_ladder_step = 0.05;
  int total_compute_slices = 7;
  double oom_bump_factor = 1.2;
  double max_clock_skew_hours = 24;  // how far ahead of now a finished_at may be
  // Bounds of what a record may report where its hardware's size is unknown.
  double unknown_gpu_memory_factor = 16;  // × the largest catalogued card's memory
  double unknown_max_cpu_cores = 2048;
  double unknown_max_memory_gib = 32768;  // 32 TiB
  bool cpu_memory_any_hardware = false;   // CPU and memory may fall back across instance types
  // The request placement gives a pool where neither history nor the execution sizes it.
  double default_cpu_request_millicores = 1000;
  double default_memory_bytes = 2147483648.0;  // 2 GiB
  std::array<FigureSettings, kFigureCount> figures;
  // Transfer between keys: the workloads a factor needs behind it, and the
  // spreads of the factor added as margin (published = estimate x (1 + the
  // figure's margin) x exp(transfer_spread_margin x spread)).
  std::size_t transfer_min_workloads = 3;
  double transfer_spread_margin = 0.3;
  // How long a reader kept across calls keeps the transfer factors it read
  // once the store has changed (recommend/transfer_source.h); 0: reads them
  // again at the first call after any change.
  double transfer_refresh_seconds = 300;

  double half_life_s() const { return half_life_hours * 3600.0; }
  // The latest finished_at a record may claim when the store's clock reads `now`.
  double latest_finished_at(double now) const { return now + max_clock_skew_hours * 3600.0; }
  const FigureSettings& figure(FigureKind kind) const {
    return figures[static_cast<std::size_t>(kind)];
  }
};

struct ConfigKey {
  const char* key;
  const char* default_value;
  const char* description;
  bool shapes_aggregates;  // changing it rebuilds the aggregates
  // Changing it changes figures, so the materialised recommendations are
  // refreshed; placement's default request does not.
  bool shapes_figures = true;
};

// Every key the config table may hold, in display order.
const std::vector<ConfigKey>& ConfigKeys();
const ConfigKey* FindConfigKey(const std::string& key);
// Checks one value for one key; the error names the key and the allowed values.
Status ValidateConfigValue(const std::string& key, const std::string& value);

// Reads the settings (defaults for keys the table lacks). Throws on an engine failure.
RecommenderSettings LoadSettings(store::Connection& db);
// The same as config keys and values: every key, valid stored values over the defaults.
std::map<std::string, std::string> LoadSettingValues(store::Connection& db);
// The settings that valid `values` give (ValidateConfigValue); keys left out take their defaults.
RecommenderSettings SettingsFromValues(std::map<std::string, std::string> values);

}  // namespace hwrec::internal
