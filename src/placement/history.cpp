#include "placement/history.h"

#include <algorithm>

#include "hwrec/observation.h"
#include "hwrec/placement_types.h"

namespace hwrec::internal {

WorkloadHistory WorkloadHistoryReader::Read(
    std::int64_t workload_id, const std::optional<store::Connection::Version>& version) {
  if (workload_id == 0) return {};
  if (version && version == kept_version_ && workload_id == kept_workload_) return kept_;
  kept_ = ReadStored(workload_id);
  kept_workload_ = workload_id;
  kept_version_ = version;
  return kept_;
}

WorkloadHistory WorkloadHistoryReader::ReadStored(std::int64_t workload_id) {
  WorkloadHistory history;
  if (!recent_) {
    // The newest kShapeHistoryScan executions through observations_by_workload,
    // whatever their status: the cost is bounded however many failed runs a
    // crash-looping workload has. Of those, the ones that ran are read. An
    // execution used GPUs when it reported GPU memory, GPU utilisation or a
    // stamped share, ran out of GPU memory, or (neither GPU figure measured)
    // was given GPU memory or a share: a measured zero outvotes the request.
    // One that says it held no GPU used none.
    recent_ = db_.Prepare(
        "SELECT architecture, CASE WHEN gpu_count_held = 0 THEN 0 WHEN gpu_count_held > 0 OR "
        "gpu_memory_peak_gb > 0 OR gpu_utilization > 0 OR "
        "fraction_source = ? OR status = ? OR (gpu_memory_peak_gb IS NULL AND gpu_utilization "
        "IS NULL AND (requested_gpu_memory_gb > 0 OR requested_gpu_compute_fraction > 0)) "
        "THEN 1 ELSE 0 END, CASE WHEN status IN (?, ?, ?) THEN 1 ELSE 0 END, gpu_count_held "
        "FROM observations WHERE workload_id = ? ORDER BY finished_at DESC, id DESC LIMIT ?");
  }
  store::Statement& recent = *recent_;
  recent.Reset();
  recent.Bind(1, ToString(FractionSource::kStamped));
  recent.Bind(2, ToString(ExecutionStatus::kGpuOom));
  recent.Bind(3, ToString(ExecutionStatus::kSuccess));
  recent.Bind(4, ToString(ExecutionStatus::kOom));
  recent.Bind(5, ToString(ExecutionStatus::kGpuOom));
  recent.Bind(6, workload_id);
  recent.Bind(7, kShapeHistoryScan);
  while (history.executions < kShapeHistoryWindow && recent.Step()) {
    if (recent.Int64(2) == 0) {
      ++history.passed_over;
      continue;
    }
    ++history.executions;
    if (recent.Int64(1) != 0) {
      ++history.gpu_executions;
      if (!recent.IsNull(3)) {
        ++history.held_executions;
        history.most_gpus_held = std::max(history.most_gpus_held, recent.Int64(3));
      }
    }
    if (recent.IsNull(0)) continue;
    ++history.architecture_executions;
    const std::string_view architecture = recent.Text(0);
    if (std::find(history.architectures.begin(), history.architectures.end(), architecture) ==
        history.architectures.end()) {
      history.architectures.emplace_back(architecture);
    }
  }
  recent.Reset();  // an unfinished statement would hold its read transaction open
  std::sort(history.architectures.begin(), history.architectures.end());
  return history;
}

}  // namespace hwrec::internal
