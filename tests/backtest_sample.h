// Hand-built backtest results for the report's tests: workloads on hardware
// keys with a few days of executions each, sized by "max of the last 10 +
// 10 %" computed here, so that some overrun, a few are OOMs and the first
// ones are cold. Deterministic; no store involved.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "hwrec/backtest.h"

namespace hwrec::test {

// Totals of `points` as a replay counts them; `per_unit_hour` turns the
// figure's unit times half an hour into what over_provisioned is in.
inline BacktestTotals TotalsOf(const std::vector<BacktestPoint>& points, double per_unit_hour = 1) {
  BacktestTotals t;
  double slack = 0;
  std::int64_t fits = 0;
  for (const BacktestPoint& p : points) {
    if (!p.recommended) {
      ++t.cold;
      continue;
    }
    ++t.scored;
    if (p.overrun) {
      ++t.overruns;
    } else {
      slack += (*p.recommended - p.observed) / *p.recommended;
      ++fits;
      ++t.with_duration;
      t.over_provisioned += (*p.recommended - p.observed) * 0.5 * per_unit_hour;  // half-hours
    }
  }
  if (t.scored > 0)
    t.overrun_share = static_cast<double>(t.overruns) / static_cast<double>(t.scored);
  if (fits > 0) t.mean_slack = slack / static_cast<double>(fits);
  return t;
}

// core·h per millicore·h, GiB·h per byte·h, else 1.
inline double UnitHour(FigureKind figure) {
  if (figure == FigureKind::kCpuRequestMillicores || figure == FigureKind::kCpuLimitMillicores) {
    return 1e-3;
  }
  return figure == FigureKind::kMemoryBytes ? 1.0 / (1024.0 * 1024.0 * 1024.0) : 1;
}

// `count` executions of one figure every `step_s` from `start`, values
// around `level` (in the figure's unit), sized by max of the last 10 ×
// `margin`; every `oom_every`-th overrun is an OOM (memory figures only).
inline BacktestSeries SampleSeries(const std::string& workload, const HardwareKey& key,
                                   FigureKind figure, double level, std::size_t count,
                                   double margin = 1.10, double start = 1764316800,
                                   double step_s = 1800) {
  BacktestSeries series{workload, key, figure, {}, {}};
  const bool memory = figure == FigureKind::kMemoryBytes || figure == FigureKind::kGpuMemoryGb;
  std::vector<double> last;
  std::size_t overruns = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const double wave = std::sin(static_cast<double>(i) * 0.37) * 0.18 +
                        std::sin(static_cast<double>(i) * 1.91) * 0.07;
    const double spike = i % 23 == 11 ? 0.45 : 0.0;  // now and then a larger execution
    BacktestPoint p;
    p.execution_id = workload + "-ex-" + std::to_string(i);
    p.started_at = start + static_cast<double>(i) * step_s;
    p.observed = level * (1.0 + wave + spike);
    if (figure == FigureKind::kGpuComputeFraction) p.observed = std::min(p.observed, 1.0);
    if (last.size() >= 2) {
      const double max = *std::max_element(last.begin(), last.end());
      p.recommended = max * margin;
      if (figure == FigureKind::kGpuComputeFraction) {
        p.recommended = std::min(1.0, std::ceil(*p.recommended / 0.05) * 0.05);
      }
      std::vector<double> sorted = last;
      std::sort(sorted.begin(), sorted.end());
      p.lower = sorted[sorted.size() / 2] * margin;
      p.upper = max * margin;
      p.overrun = p.observed > *p.recommended;
      if (p.overrun && memory && ++overruns % 2 == 1) p.oom = true;
    }
    last.push_back(p.observed);
    if (last.size() > 10) last.erase(last.begin());
    series.points.push_back(p);
  }
  series.totals = TotalsOf(series.points, UnitHour(figure));
  return series;
}

inline HardwareKey GpuKey(const char* model, const char* instance_type) {
  HardwareKey key;
  key.gpu_brand = "NVIDIA";
  key.gpu_model = model;
  key.instance_type = instance_type;
  return key;
}

inline HardwareKey CpuKey(const char* instance_type) {
  HardwareKey key;
  key.instance_type = instance_type;
  key.cpu_only = true;
  return key;
}

// Every figure a key has: the five on a GPU key, CPU and memory on a CPU-only one.
inline std::vector<BacktestSeries> SampleKeySeries(const std::string& workload,
                                                   const HardwareKey& key, std::size_t count,
                                                   double margin) {
  std::vector<BacktestSeries> series = {
      SampleSeries(workload, key, FigureKind::kCpuRequestMillicores, 3200, count, margin),
      SampleSeries(workload, key, FigureKind::kCpuLimitMillicores, 4100, count, margin),
      SampleSeries(workload, key, FigureKind::kMemoryBytes, 24e9, count, margin)};
  if (!key.cpu_only) {
    series.push_back(SampleSeries(workload, key, FigureKind::kGpuMemoryGb, 31.5, count, margin));
    series.push_back(
        SampleSeries(workload, key, FigureKind::kGpuComputeFraction, 0.42, count, margin));
  }
  return series;
}

// One run named `name` over `keys` (workload, key) pairs, totals filled in.
inline BacktestRun SampleRun(const std::string& name,
                             const std::vector<std::pair<std::string, HardwareKey>>& keys,
                             std::size_t count, double margin) {
  BacktestRun run;
  run.name = name;
  run.settings = {{"gpu_memory.margin", std::to_string(margin - 1)}};
  std::vector<BacktestPoint> every;
  std::vector<std::vector<BacktestPoint>> per_figure(kFigureCount);
  for (const auto& [workload, key] : keys) {
    for (BacktestSeries& s : SampleKeySeries(workload, key, count, margin)) {
      auto& figure_points = per_figure[static_cast<std::size_t>(s.figure)];
      figure_points.insert(figure_points.end(), s.points.begin(), s.points.end());
      every.insert(every.end(), s.points.begin(), s.points.end());
      run.series.push_back(std::move(s));
    }
  }
  run.total = TotalsOf(every);
  for (std::size_t f = 0; f < kFigureCount; ++f) {
    if (!per_figure[f].empty()) {
      const auto kind = static_cast<FigureKind>(f);
      run.figures.emplace_back(kind, TotalsOf(per_figure[f], UnitHour(kind)));
    }
  }
  return run;
}

// The store's run and the vpa preset's over `keys`.
inline BacktestResult SampleResult(const std::vector<std::pair<std::string, HardwareKey>>& keys,
                                   std::size_t count = 140) {
  BacktestResult result;
  result.runs.push_back(SampleRun("store", keys, count, 1.10));
  result.runs.push_back(SampleRun("vpa", keys, count, 1.15));
  for (const BacktestSeries& s : result.runs.front().series) {
    result.executions += static_cast<std::int64_t>(s.points.size());
  }
  return result;
}

// `n` keys: workloads on an A100 80GB, a CPU-only and an unrecorded-model key, in turn.
inline std::vector<std::pair<std::string, HardwareKey>> SampleKeys(std::size_t n) {
  std::vector<std::pair<std::string, HardwareKey>> keys;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string workload = "ghcr.io/acme/train-" + std::to_string(i) + ":1.0";
    HardwareKey key = i % 3 == 0   ? GpuKey("A100 80GB", "a2-ultragpu-1g")
                      : i % 3 == 1 ? CpuKey("n2-standard-8")
                                   : HardwareKey{"NVIDIA", std::nullopt, "on-prem-gpu", false};
    keys.emplace_back(workload, key);
  }
  return keys;
}

}  // namespace hwrec::test
