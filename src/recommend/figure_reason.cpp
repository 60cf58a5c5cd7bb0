#include "recommend/figure_reason.h"

#include <fmt/format.h>

#include <cmath>

#include "base/time.h"
#include "base/units.h"
#include "recommend/estimator.h"

namespace hwrec::internal {

namespace {

// `value` with at most `places` decimals, trailing zeros dropped.
std::string Number(double value, int places) {
  std::string text = fmt::format("{:.{}f}", value, places);
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  return text;
}

// How amounts of a figure's resource around `value` are printed: divided by
// `divisor`, to `places` decimals, followed by `unit`.
struct Unit {
  double divisor;
  int places;
  const char* unit;
};

Unit UnitFor(FigureKind kind, double value) {
  switch (kind) {
    case FigureKind::kCpuRequestMillicores:
    case FigureKind::kCpuLimitMillicores:
      return {1, 1, " millicores"};
    case FigureKind::kMemoryBytes:
      return value >= kGiB ? Unit{kGiB, 2, " GiB"} : Unit{kMiB, 1, " MiB"};
    case FigureKind::kGpuMemoryGb:
      return {1, 4, " GiB"};
    case FigureKind::kGpuComputeFraction:
      return {1, 4, " of a card"};
  }
  return {1, 4, ""};
}

// An amount of the figure's resource, as a person reads it.
std::string Amount(FigureKind kind, double value) {
  const Unit u = UnitFor(kind, value);
  return Number(value / u.divisor, u.places) + u.unit;
}

// "1.47–1.54 GiB": both ends in the unit of the upper one.
std::string Range(FigureKind kind, double lower, double upper) {
  const Unit u = UnitFor(kind, upper);
  return Number(lower / u.divisor, u.places) + "–" + Number(upper / u.divisor, u.places) + u.unit;
}

// The figure's value in the unit it is requested in.
std::string Requested(FigureKind kind, double value) {
  if (kind == FigureKind::kMemoryBytes) return fmt::format("{:.0f} bytes", value);
  if (kind == FigureKind::kCpuRequestMillicores || kind == FigureKind::kCpuLimitMillicores) {
    return fmt::format("{:.0f} millicores", value);
  }
  return Amount(kind, value);
}

// "95th", "99.9th", "1st", "2nd", "3rd", "11th".
std::string Ordinal(double percent) {
  percent = std::round(percent * 100) / 100;  // 0.91 × 100 is 91.00000000000001
  const std::string number = Number(percent, 2);
  if (std::floor(percent) != percent) return number + "th";
  const auto whole = static_cast<long long>(percent);
  const long long last_two = whole % 100;
  const char* suffix = "th";
  if (last_two < 11 || last_two > 13) {
    if (whole % 10 == 1) suffix = "st";
    if (whole % 10 == 2) suffix = "nd";
    if (whole % 10 == 3) suffix = "rd";
  }
  return number + suffix;
}

void AddOomBump(FigureKind kind, const RecommenderSettings& settings,
                const ExplainedExecution& execution, double bumped, FigureReason* reason) {
  const bool requested =
      execution.requested.has_value() && *execution.requested >= execution.observed.value_or(0);
  const std::optional<double> base = requested ? execution.requested : execution.observed;
  if (!base) return;
  reason->oom_factor = settings.oom_bump_factor;
  reason->oom_applied_to = requested ? "requested" : "observed";
  reason->oom_base = *base;
  const double product = *base * settings.oom_bump_factor;
  const std::string how = std::fabs(product - bumped) <= 1e-9 * std::max(1.0, std::fabs(product))
                              ? fmt::format("{:g}", settings.oom_bump_factor)
                              : fmt::format("{:g} (at least +{}, at most what the hardware holds)",
                                            settings.oom_bump_factor,
                                            kind == FigureKind::kGpuMemoryGb ? "1 GiB" : "100 MiB");
  reason->text += fmt::format(": {} {} × {} = {}", reason->oom_applied_to, Amount(kind, *base), how,
                              Amount(kind, bumped));
}

}  // namespace

bool BumpedAsOom(FigureKind kind, ExecutionStatus status) {
  return (kind == FigureKind::kMemoryBytes && status == ExecutionStatus::kOom) ||
         (kind == FigureKind::kGpuMemoryGb && status == ExecutionStatus::kGpuOom);
}

void CompleteReason(FigureKind kind, const RecommenderSettings& settings,
                    const std::optional<RecentValue>& set_by,
                    const std::optional<ExplainedExecution>& execution, FigureReason* reason) {
  reason->text = fmt::format("{} = {}", reason->statistic, Amount(kind, reason->statistic_value));
  if (reason->source == FigureReason::Source::kMaxOfRecent && set_by) {
    if (execution) {
      reason->execution_id = execution->execution_id;
      reason->finished_at = execution->finished_at;
      reason->status = std::string(ToString(execution->status));
      const bool oom = BumpedAsOom(kind, execution->status);
      reason->text += fmt::format(", set by {}execution {} ({})", oom ? "OOM " : "",
                                  execution->execution_id, FormatRfc3339(execution->finished_at));
      if (oom) AddOomBump(kind, settings, *execution, set_by->value, reason);
    } else {
      reason->finished_at = set_by->time;
      reason->text +=
          fmt::format(", set by an execution that finished at {} and is no longer stored",
                      FormatRfc3339(set_by->time));
    }
  }
  if (reason->source == FigureReason::Source::kPercentile && reason->bucket_upper) {
    const double percent = settings.figure(kind).statistic.quantile * 100;
    reason->text += fmt::format(
        ": bucket {} holds the {} percentile, {} % of the decayed history at or below it",
        Range(kind, *reason->bucket_lower, *reason->bucket_upper), Ordinal(percent),
        Number(*reason->share_at_or_below * 100, 1));
  }
  reason->text += fmt::format("; +{} % = {}; rounded {}: {}", Number(reason->margin * 100, 2),
                              Amount(kind, reason->with_margin), reason->rounding,
                              Requested(kind, reason->value));
}

std::string KeyText(const HardwareKey& key) {
  if (key.gpu_model) return fmt::format("{} {}", key.gpu_brand.value_or(""), *key.gpu_model);
  return key.instance_type.value_or("");
}

void DescribeTransfer(FigureKind kind, const HardwareKey& hardware, const FigureTransfer& transfer,
                      FigureReason* reason) {
  // The card a GPU figure is for, the instance type of another.
  HardwareKey target;
  if (IsGpuFigure(kind)) {
    target.gpu_brand = hardware.gpu_brand;
    target.gpu_model = hardware.gpu_model;
  } else {
    target.instance_type = hardware.instance_type;
  }
  const std::string how =
      transfer.neighbours > 0
          ? fmt::format(
                "the weighted mean ratio of the {} of {} workloads seen on both that are "
                "nearest to it by their ratios to its other keys",
                transfer.neighbours, transfer.workloads)
          : fmt::format("the median ratio of {} workloads seen on both", transfer.workloads);
  reason->text = fmt::format(
      "{} on {}: {} learned on {} × {}, {} (spread ±{} %)", Amount(kind, transfer.estimate),
      KeyText(target), Amount(kind, transfer.source_value), KeyText(transfer.source),
      Number(transfer.factor, 3), how, Number((std::exp(transfer.spread) - 1) * 100, 0));
  if (transfer.sources > 1) {
    reason->text += fmt::format(", combined with its history on {} other key{}",
                                transfer.sources - 1, transfer.sources > 2 ? "s" : "");
  }
  reason->text += fmt::format("; +{} % (the margin, and more for the spread) = {}; rounded {}: {}",
                              Number(reason->margin * 100, 2), Amount(kind, reason->with_margin),
                              reason->rounding, Requested(kind, reason->value));
}

}  // namespace hwrec::internal
