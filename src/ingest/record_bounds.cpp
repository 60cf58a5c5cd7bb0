#include "ingest/record_bounds.h"

#include <fmt/format.h>

#include <cmath>
#include <string>

#include "base/time.h"

namespace hwrec::internal {

namespace {

// Seconds since the epoch of 10000-01-01: later values print as numbers.
constexpr double kLastPrintableTime = 253402300800.0;

std::string TimeText(double seconds) {
  if (std::isfinite(seconds) && std::fabs(seconds) < kLastPrintableTime) {
    return fmt::format("{} ({})", FormatRfc3339(seconds), seconds);
  }
  return fmt::format("{}", seconds);
}

// The likely cause of a time beyond the bound, as advice to the sender.
std::string FutureTimeCause(double finished_at, double latest) {
  const double as_seconds = finished_at / 1000.0;
  if (as_seconds > 946684800.0 && as_seconds <= latest) {  // after 2000-01-01 once divided
    return "it looks like milliseconds since the epoch: send seconds";
  }
  return "check the clock of the host that sent it, or raise ingest.max_clock_skew_hours";
}

// Whole numbers print without an exponent: 137438953472, not 1.37438953472e+11.
std::string Number(double value) {
  if (std::fabs(value) < 1e15 && std::floor(value) == value) {
    return std::to_string(static_cast<long long>(value));
  }
  return fmt::format("{}", value);
}

bool Exceeds(double value, std::optional<double> bound) {
  return bound && *bound > 0 && value > *bound * (1 + kHardwareBoundTolerance);
}

FieldError AboveBound(const char* field, double value, const char* unit, double bound,
                      const std::string& what) {
  return FieldError{field, fmt::format("{} {} is more than {} holds ({} {}, +{:.0f} % tolerance): "
                                       "check the unit and the hardware the record names",
                                       Number(value), unit, what, Number(bound), unit,
                                       kHardwareBoundTolerance * 100)};
}

std::optional<double> AsDouble(const std::optional<std::int64_t>& value) {
  if (!value) return std::nullopt;
  return static_cast<double>(*value);
}

}  // namespace

std::optional<FieldError> CheckFinishedAt(double finished_at, double now, double max_skew_hours) {
  const double latest = now + max_skew_hours * 3600.0;
  if (finished_at <= latest) return std::nullopt;
  return FieldError{
      "finished_at",
      fmt::format("{} is later than {}, the store's clock plus the allowed skew of {} h (config "
                  "ingest.max_clock_skew_hours): {}",
                  TimeText(finished_at), FormatRfc3339(latest), max_skew_hours,
                  FutureTimeCause(finished_at, latest))};
}

// A value past what hardware of unknown size is taken to hold: the setting
// that bounds it names the fix when the value is real.
FieldError AboveUnknownBound(const char* field, double value, const char* unit, double bound,
                             const char* what, const char* setting) {
  return FieldError{
      field, fmt::format("{} {} is more than {} of unknown size is taken to hold ({} {}, setting "
                         "{}): check the unit, or register the node pool with its hardware",
                         Number(value), unit, what, Number(bound), unit, setting)};
}

std::vector<FieldError> CheckWithinHardware(const Observation& o, const ResolvedHardware& resolved,
                                            const UnknownHardwareBounds& unknown) {
  std::vector<FieldError> errors;
  const HardwareProfile& h = resolved.hardware;
  const std::optional<double> gpu_bound =
      resolved.partition_memory_gb ? resolved.partition_memory_gb : resolved.card_memory_gb;
  if (o.gpu_memory_peak_gb && Exceeds(*o.gpu_memory_peak_gb, gpu_bound)) {
    errors.push_back(AboveBound("gpu_memory_peak_gb", *o.gpu_memory_peak_gb, "GiB", *gpu_bound,
                                fmt::format("a {} {} partition", h.gpu_model.value_or("GPU"),
                                            h.gpu_mode.value_or("full"))));
  } else if (o.gpu_memory_peak_gb && !gpu_bound &&
             Exceeds(*o.gpu_memory_peak_gb, unknown.gpu_memory_gb)) {
    errors.push_back(AboveUnknownBound("gpu_memory_peak_gb", *o.gpu_memory_peak_gb, "GiB",
                                       *unknown.gpu_memory_gb, "a card",
                                       "ingest.unknown_hardware.gpu_memory_factor × the largest "
                                       "catalogued card"));
  }
  // An OOM's figure is bumped from its request, capped by what the hardware
  // holds: on hardware of unknown size nothing caps it, so its request is
  // held to the bound of a peak there.
  if (o.status == ExecutionStatus::kGpuOom && !gpu_bound && o.requested.gpu_memory_gb &&
      Exceeds(*o.requested.gpu_memory_gb, unknown.gpu_memory_gb)) {
    errors.push_back(AboveUnknownBound("requested.gpu_memory_gb", *o.requested.gpu_memory_gb, "GiB",
                                       *unknown.gpu_memory_gb, "a card",
                                       "ingest.unknown_hardware.gpu_memory_factor × the largest "
                                       "catalogued card"));
  }
  const std::optional<double> cpu_bound = AsDouble(h.cpu_millicores);
  const std::optional<double> cpu[] = {o.cpu_millicores_avg, o.cpu_millicores_p95,
                                       o.cpu_millicores_max};
  const char* cpu_fields[] = {"cpu_millicores_avg", "cpu_millicores_p95", "cpu_millicores_max"};
  for (int i = 0; i < 3; ++i) {
    if (cpu[i] && Exceeds(*cpu[i], cpu_bound)) {
      errors.push_back(AboveBound(cpu_fields[i], *cpu[i], "millicores", *cpu_bound, "the node"));
    } else if (cpu[i] && !cpu_bound && Exceeds(*cpu[i], unknown.cpu_millicores)) {
      errors.push_back(AboveUnknownBound(cpu_fields[i], *cpu[i], "millicores",
                                         *unknown.cpu_millicores, "a node",
                                         "ingest.unknown_hardware.max_cpu_cores"));
    }
  }
  const std::optional<double> memory_bound = AsDouble(h.memory_bytes);
  if (o.memory_peak_bytes && Exceeds(static_cast<double>(*o.memory_peak_bytes), memory_bound)) {
    errors.push_back(AboveBound("memory_peak_bytes", static_cast<double>(*o.memory_peak_bytes),
                                "bytes", *memory_bound, "the node"));
  } else if (o.memory_peak_bytes && !memory_bound &&
             Exceeds(static_cast<double>(*o.memory_peak_bytes), unknown.memory_bytes)) {
    errors.push_back(AboveUnknownBound(
        "memory_peak_bytes", static_cast<double>(*o.memory_peak_bytes), "bytes",
        *unknown.memory_bytes, "a node", "ingest.unknown_hardware.max_memory_gib"));
  }
  if (o.status == ExecutionStatus::kOom && !memory_bound && o.requested.memory_bytes &&
      Exceeds(static_cast<double>(*o.requested.memory_bytes), unknown.memory_bytes)) {
    errors.push_back(AboveUnknownBound(
        "requested.memory_bytes", static_cast<double>(*o.requested.memory_bytes), "bytes",
        *unknown.memory_bytes, "a node", "ingest.unknown_hardware.max_memory_gib"));
  }
  // The node's GPU count may come from its registered pool, which the record's
  // own check (ObservationProblems) does not see.
  const std::optional<std::int64_t> node_gpus = GpusOfNode(h);
  if (o.gpu_count_held && node_gpus && GpusOfNode(o.hardware) != node_gpus &&
      *o.gpu_count_held > *node_gpus) {
    errors.push_back(FieldError{
        "gpu_count_held",
        fmt::format("is {}, more than the {} GPU(s) a node of pool '{}' has: send the GPUs the "
                    "execution itself held, not the node's",
                    *o.gpu_count_held, *node_gpus, o.node_pool_id.value_or("?"))});
  }
  return errors;
}

std::vector<FieldError> BoundsErrors(const Observation& o, const ResolvedHardware* resolved,
                                     double now, double max_skew_hours,
                                     const UnknownHardwareBounds& unknown) {
  std::vector<FieldError> errors;
  if (auto late = CheckFinishedAt(o.finished_at, now, max_skew_hours)) {
    errors.push_back(std::move(*late));
  }
  if (resolved != nullptr) {
    for (FieldError& e : CheckWithinHardware(o, *resolved, unknown)) {
      errors.push_back(std::move(e));
    }
  }
  return errors;
}

std::string JoinedReasons(const std::vector<FieldError>& errors) {
  std::string joined;
  for (const FieldError& e : errors) {
    joined += fmt::format("{}{}: {}", joined.empty() ? "" : "; ", e.field, e.reason);
  }
  return joined;
}

}  // namespace hwrec::internal
