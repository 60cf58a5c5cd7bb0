#include "aggregate/settings.h"

#include "aggregate/config_table.h"
#include "hwrec/remedy.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <map>
#include <string_view>

namespace hwrec::internal {

namespace {

std::optional<double> ParseNumber(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

struct NumericRange {
  double low;
  double high;
  bool low_inclusive;
  bool whole;
};

const std::map<std::string, NumericRange>& NumericRanges() {
  static const std::map<std::string, NumericRange> kRanges = {
      {"half_life_hours", {0, 8760, false, false}},
      {"max_range_samples", {1, 1000, true, true}},
      {"compute_ladder_step", {0, 1, false, false}},
      {"total_compute_slices", {1, 64, true, true}},
      {"oom_bump_factor", {1, 4, false, false}},
      {"cpu_request.margin", {0, 10, true, false}},
      {"cpu_limit.margin", {0, 10, true, false}},
      {"memory.margin", {0, 10, true, false}},
      {"gpu_memory.margin", {0, 10, true, false}},
      {"gpu_compute.margin", {0, 10, true, false}},
      {"ingest.max_clock_skew_hours", {0, 8760, true, false}},
      {"ingest.unknown_hardware.gpu_memory_factor", {1, 1e6, true, false}},
      {"ingest.unknown_hardware.max_cpu_cores", {1, 1e9, true, false}},
      {"ingest.unknown_hardware.max_memory_gib", {1, 1e12, true, false}},
      {"default.cpu_request_millicores", {1, 1e6, true, true}},
      {"default.memory_bytes", {1, 1e15, true, true}},
      {"transfer.min_workloads", {1, 1000, true, true}},
      {"transfer.spread_margin", {0, 10, true, false}},
      {"transfer.refresh_seconds", {0, 86400, true, true}},
  };
  return kRanges;
}

bool IsBooleanKey(const std::string& key) {
  const std::string_view suffix = ".transfer";
  return key == "fallback.cpu_memory_any_hardware" ||
         (key.size() > suffix.size() &&
          key.compare(key.size() - suffix.size(), suffix.size(), suffix) == 0);
}

const char* kFigurePrefixes[kFigureCount] = {"cpu_request", "cpu_limit", "memory", "gpu_memory",
                                             "gpu_compute"};

}  // namespace

std::optional<Statistic> ParseStatistic(const std::string& text) {
  Statistic s;
  s.name = text;
  if (text == "avg") {
    s.kind = Statistic::Kind::kAverage;
  } else if (text == "max") {
    s.kind = Statistic::Kind::kMax;
  } else if (text == "p90" || text == "p95" || text == "p98" || text == "p99") {
    s.kind = Statistic::Kind::kPercentile;
    s.quantile = std::stod(text.substr(1)) / 100.0;
  } else {
    return std::nullopt;
  }
  return s;
}

const std::vector<ConfigKey>& ConfigKeys() {
  static const std::vector<ConfigKey> kKeys = {
      {"half_life_hours", "12", "hours after which an observation weighs half as much", true},
      {"max_range_samples", "10", "how many recent executions `max` looks at", true},
      {"cpu_request.statistic", "p95", "statistic of per-execution CPU for the CPU request", false},
      {"cpu_request.margin", "0.15", "margin added to the CPU request", false},
      {"cpu_limit.statistic", "max", "statistic of per-execution peak CPU for the CPU limit",
       false},
      {"cpu_limit.margin", "0.30", "margin added to the CPU limit", false},
      {"memory.statistic", "p98", "statistic of memory peaks", false},
      {"memory.margin", "0.15", "margin added to memory", false},
      {"gpu_memory.statistic", "max", "statistic of GPU memory peaks", false},
      {"gpu_memory.margin", "0.10", "margin added to GPU memory", false},
      {"gpu_compute.statistic", "p95", "statistic of the observed share of one card", false},
      {"gpu_compute.margin", "0.15", "margin added to the compute share", false},
      {"cpu_request.transfer", "false",
       "true: an instance type without the workload's history gets a CPU request transferred "
       "from its history on other instance types by a factor learned from workloads seen on both",
       false},
      {"cpu_limit.transfer", "false", "true: the same for the CPU limit", false},
      {"memory.transfer", "false",
       "true: an instance type without the workload's history gets a memory figure transferred "
       "from other instance types",
       false},
      {"gpu_memory.transfer", "true",
       "true: a card without the workload's history gets a GPU memory figure transferred from "
       "its history on other cards, before any card's history is used as is",
       false},
      {"gpu_compute.transfer", "true",
       "true: a card without the workload's history gets a compute share transferred from its "
       "history on other cards by a factor learned from workloads seen on both",
       false},
      {"transfer.min_workloads", "3",
       "workloads seen on both keys a transfer factor needs; fewer: no transferred figure", false},
      {"transfer.spread_margin", "0.3",
       "spreads of the transfer factor (log scale) added as margin to a transferred figure, so "
       "that it errs high",
       false},
      {"transfer.refresh_seconds", "300",
       "seconds a query or evaluator kept open keeps the transfer factors it read once the "
       "store has changed; 0: read them again at the first call after any change",
       false, false},
      {"compute_ladder_step", "0.05", "compute shares are rounded up to a multiple of this", false},
      {"total_compute_slices", "7",
       "compute slices assumed for a MIG mode whose card model is unknown", false},
      {"oom_bump_factor", "1.2", "an OOM adds a peak of max(requested, observed) times this", true},
      {"ingest.max_clock_skew_hours", "24",
       "how many hours after the store's clock a finished_at may be; later records are "
       "rejected and left out of rebuilt aggregates",
       false},
      {"ingest.unknown_hardware.gpu_memory_factor", "16",
       "where a record's card is of unknown size, its GPU memory peak may be at most the "
       "largest catalogued card's memory times this; more rejects the record",
       false, false},
      {"ingest.unknown_hardware.max_cpu_cores", "2048",
       "where a record's node has no known CPU count, its CPU figures may be at most this many "
       "cores; more rejects the record",
       false, false},
      {"ingest.unknown_hardware.max_memory_gib", "32768",
       "where a record's node has no known memory size, its memory peak may be at most this "
       "many GiB (32 TiB); more rejects the record",
       false, false},
      {"fallback.cpu_memory_any_hardware", "false",
       "true: CPU and memory fall back to the workload's history on any hardware when an "
       "instance type has none",
       false},
      {"default.cpu_request_millicores", "1000",
       "CPU request placement gives a pool where neither history nor the execution sizes it "
       "(provenance default)",
       false, false},
      {"default.memory_bytes", "2147483648",
       "memory request placement gives a pool where neither history nor the execution sizes it "
       "(provenance default; 2 GiB)",
       false, false},
  };
  return kKeys;
}

const ConfigKey* FindConfigKey(const std::string& key) {
  for (const ConfigKey& k : ConfigKeys()) {
    if (key == k.key) return &k;
  }
  return nullptr;
}

Status ValidateConfigValue(const std::string& key, const std::string& value) {
  if (FindConfigKey(key) == nullptr) {
    return Status::InvalidArgument(fmt::format("unknown config key '{}': see {} for the keys", key,
                                               RemedyText(Remedy::kConfigList)));
  }
  if (key.size() > 10 && key.compare(key.size() - 10, 10, ".statistic") == 0) {
    if (!ParseStatistic(value)) {
      return Status::InvalidArgument(
          fmt::format("{} must be one of p90, p95, p98, p99, avg, max; got '{}'", key, value));
    }
    return Status::Ok();
  }
  if (IsBooleanKey(key)) {
    if (value != "true" && value != "false") {
      return Status::InvalidArgument(fmt::format("{} must be true or false; got '{}'", key, value));
    }
    return Status::Ok();
  }
  const NumericRange& range = NumericRanges().at(key);
  const auto number = ParseNumber(value);
  const bool below = number && (range.low_inclusive ? *number < range.low : *number <= range.low);
  if (!number || below || *number > range.high || (range.whole && std::floor(*number) != *number)) {
    return Status::InvalidArgument(fmt::format("{} must be a {} {} {} and at most {}; got '{}'",
                                               key, range.whole ? "whole number" : "number",
                                               range.low_inclusive ? "of at least" : "above",
                                               range.low, range.high, value));
  }
  return Status::Ok();
}

std::map<std::string, std::string> LoadSettingValues(store::Connection& db) {
  std::map<std::string, std::string> values;
  for (const ConfigKey& k : ConfigKeys()) values[k.key] = k.default_value;
  for (const auto& [key, value] : ReadConfigRows(db)) {
    if (FindConfigKey(key) != nullptr && ValidateConfigValue(key, value).ok()) values[key] = value;
  }
  return values;
}

RecommenderSettings SettingsFromValues(std::map<std::string, std::string> values) {
  for (const ConfigKey& k : ConfigKeys()) values.emplace(k.key, k.default_value);
  RecommenderSettings s;
  s.half_life_hours = std::stod(values["half_life_hours"]);
  // Whole numbers are read as validated (strtod: "1e2" is 100, "0x10" is 16).
  s.max_range_samples = static_cast<std::size_t>(std::stod(values["max_range_samples"]));
  s.compute_ladder_step = std::stod(values["compute_ladder_step"]);
  s.total_compute_slices = static_cast<int>(std::stod(values["total_compute_slices"]));
  s.oom_bump_factor = std::stod(values["oom_bump_factor"]);
  s.max_clock_skew_hours = std::stod(values["ingest.max_clock_skew_hours"]);
  s.unknown_gpu_memory_factor = std::stod(values["ingest.unknown_hardware.gpu_memory_factor"]);
  s.unknown_max_cpu_cores = std::stod(values["ingest.unknown_hardware.max_cpu_cores"]);
  s.unknown_max_memory_gib = std::stod(values["ingest.unknown_hardware.max_memory_gib"]);
  s.cpu_memory_any_hardware = values["fallback.cpu_memory_any_hardware"] == "true";
  s.default_cpu_request_millicores = std::stod(values["default.cpu_request_millicores"]);
  s.default_memory_bytes = std::stod(values["default.memory_bytes"]);
  for (std::size_t i = 0; i < kFigureCount; ++i) {
    const std::string prefix = kFigurePrefixes[i];
    s.figures[i].statistic = *ParseStatistic(values[prefix + ".statistic"]);
    s.figures[i].margin = std::stod(values[prefix + ".margin"]);
    s.figures[i].transfer = values[prefix + ".transfer"] == "true";
  }
  s.transfer_min_workloads = static_cast<std::size_t>(std::stod(values["transfer.min_workloads"]));
  s.transfer_spread_margin = std::stod(values["transfer.spread_margin"]);
  s.transfer_refresh_seconds = std::stod(values["transfer.refresh_seconds"]);
  return s;
}

RecommenderSettings LoadSettings(store::Connection& db) {
  return SettingsFromValues(LoadSettingValues(db));
}

}  // namespace hwrec::internal
