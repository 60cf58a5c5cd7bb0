// The rules a backtest compares the store's figures with, as estimator
// settings (config keys): no separate code path, so a preset's figures are
// exactly what the store would give with those settings.
#include <string>
#include <vector>

#include "hwrec/backtest.h"

namespace hwrec {

namespace {

// Every figure with the same statistic and margin.
std::vector<std::pair<std::string, std::string>> EveryFigure(const std::string& statistic,
                                                             const std::string& margin,
                                                             const std::string& half_life) {
  std::vector<std::pair<std::string, std::string>> settings = {{"half_life_hours", half_life}};
  for (const char* figure : {"cpu_request", "cpu_limit", "memory", "gpu_memory", "gpu_compute"}) {
    settings.emplace_back(std::string(figure) + ".statistic", statistic);
    settings.emplace_back(std::string(figure) + ".margin", margin);
  }
  return settings;
}

}  // namespace

const std::vector<BacktestPreset>& BacktestPresets() {
  static const std::vector<BacktestPreset> kPresets = {
      {"intelliscale",
       "hwrec's default settings: GPU memory and CPU limit the max of the last 10 "
       "executions + 10 % / + 30 %, CPU request p95 + 15 %, memory p98 + 15 %, compute share "
       "p95 + 15 %, 12 h half-life",
       "IntelliScale's recommender as the Runner uses it today (the settings hwrec ships with)",
       {{"half_life_hours", "12"},
        {"max_range_samples", "10"},
        {"cpu_request.statistic", "p95"},
        {"cpu_request.margin", "0.15"},
        {"cpu_limit.statistic", "max"},
        {"cpu_limit.margin", "0.30"},
        {"memory.statistic", "p98"},
        {"memory.margin", "0.15"},
        {"gpu_memory.statistic", "max"},
        {"gpu_memory.margin", "0.10"},
        {"gpu_compute.statistic", "p95"},
        {"gpu_compute.margin", "0.15"}}},
      {"vpa", "VPA-like: every figure p90 of the decayed history + 15 %, 24 h half-life",
       "VPA-like, after the Kubernetes Vertical Pod Autoscaler recommender's defaults "
       "(--target-cpu-percentile=0.9, --target-memory-percentile=0.9, "
       "--recommendation-margin-fraction=0.15, 24 h histogram half-lives; "
       "kubernetes/autoscaler, vertical-pod-autoscaler/pkg/recommender). Checked against "
       "VPA's histogram and estimator tests, its target is within one 5 % bucket of VPA's "
       "from about 50 m CPU / 48 MiB up. Unlike VPA it has no confidence-multiplier bounds "
       "(lower/upper), no pod floors (25 m CPU, 250 MiB), applies p90 + 15 % to limits and "
       "to GPU figures VPA does not recommend, and sees one value per execution where VPA "
       "samples every minute",
       EveryFigure("p90", "0.15", "24")},
      {"autopilot", "every figure p98 of the decayed history + 10 %, 48 h half-life",
       "the moving-window percentile recommender of Autopilot (Rzadca et al., \"Autopilot: "
       "workload autoscaling at Google\", EuroSys 2020), set to a 98th percentile, a 48 h "
       "half-life and a 10 % safety margin",
       EveryFigure("p98", "0.10", "48")},
  };
  return kPresets;
}

const BacktestPreset* FindBacktestPreset(const std::string& name) {
  for (const BacktestPreset& preset : BacktestPresets()) {
    if (preset.name == name) return &preset;
  }
  return nullptr;
}

}  // namespace hwrec
