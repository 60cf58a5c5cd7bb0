// BacktestJson: the backtest result as one JSON document.
#include <cmath>
#include <nlohmann/json.hpp>

#include "hwrec/backtest.h"

namespace hwrec {

namespace {

using Json = nlohmann::ordered_json;

// Six decimals: a share to 0.0001 %.
double Rounded(double value, double scale) { return std::round(value * scale) / scale; }

Json TotalsJson(const BacktestTotals& t) {
  return {{"scored", t.scored},
          {"cold", t.cold},
          {"overruns", t.overruns},
          {"overrun_share", Rounded(t.overrun_share, 1e6)},
          {"mean_slack", Rounded(t.mean_slack, 1e6)},
          {"new_card", t.new_card},
          {"new_card_scored", t.new_card_scored},
          {"new_card_overruns", t.new_card_overruns},
          {"new_card_mean_slack", Rounded(t.new_card_mean_slack, 1e6)},
          {"transferred", t.transferred}};
}

Json FigureTotalsJson(const BacktestTotals& t, FigureKind kind) {
  Json j = TotalsJson(t);
  j["over_provisioned"] = t.with_duration > 0 ? Json(Rounded(t.over_provisioned, 1e3)) : Json();
  j["over_provisioned_unit"] = OverProvisionedUnit(kind);
  j["with_duration"] = t.with_duration;
  return j;
}

Json OrNull(const std::optional<std::string>& v) { return v ? Json(*v) : Json(); }

}  // namespace

const char* OverProvisionedUnit(FigureKind kind) {
  switch (kind) {
    case FigureKind::kCpuRequestMillicores:
    case FigureKind::kCpuLimitMillicores:
      return "core·h";
    case FigureKind::kMemoryBytes:
    case FigureKind::kGpuMemoryGb:
      return "GiB·h";
    case FigureKind::kGpuComputeFraction:
      return "card·h";
  }
  return "";
}

std::string BacktestJson(const BacktestResult& result, int indent) {
  Json out;
  out["executions"] = result.executions;
  Json runs = Json::array();
  for (const BacktestRun& run : result.runs) {
    Json j;
    j["name"] = run.name;
    Json settings = Json::object();
    for (const auto& [key, value] : run.settings) settings[key] = value;
    j["settings"] = settings;
    j["total"] = TotalsJson(run.total);
    Json figures = Json::object();
    for (const auto& [kind, totals] : run.figures) {
      figures[std::string(ToString(kind))] = FigureTotalsJson(totals, kind);
    }
    j["figures"] = figures;
    Json series = Json::array();
    for (const BacktestSeries& s : run.series) {
      Json row;
      row["workload"] = s.workload;
      row["hardware"] = {{"gpu_brand", OrNull(s.hardware.gpu_brand)},
                         {"gpu_model", OrNull(s.hardware.gpu_model)},
                         {"instance_type", OrNull(s.hardware.instance_type)},
                         {"cpu_only", s.hardware.cpu_only}};
      row["figure"] = std::string(ToString(s.figure));
      row.update(FigureTotalsJson(s.totals, s.figure));
      series.push_back(row);
    }
    j["series"] = series;
    runs.push_back(j);
  }
  out["runs"] = runs;
  return out.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace hwrec
