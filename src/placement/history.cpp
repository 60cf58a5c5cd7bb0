#include "placement/history.h"

#include <algorithm>

#include "hwrec/observation.h"
#include "hwrec/placement_types.h"

namespace hwrec::internal {

WorkloadHistory WorkloadHistoryReader::Read(std::int64_t workload_id) {
  WorkloadHistory history;
  if (workload_id == 0) return history;
  if (!recent_) {
    // The newest executions that ran first, through observations_by_workload:
    // the cost is the window's (and the failed or cancelled runs passed over),
    // however long the history. An execution used GPUs when it reported GPU
    // memory, GPU utilisation or a stamped share, ran out of GPU memory, or
    // was given GPU memory or a share.
    recent_ = db_.Prepare(
        "SELECT architecture, CASE WHEN gpu_memory_peak_gb > 0 OR gpu_utilization > 0 OR "
        "fraction_source = ? OR status = ? OR requested_gpu_memory_gb > 0 OR "
        "requested_gpu_compute_fraction > 0 THEN 1 ELSE 0 END "
        "FROM observations WHERE workload_id = ? AND status IN (?, ?, ?) "
        "ORDER BY finished_at DESC, id DESC LIMIT ?");
  }
  store::Statement& recent = *recent_;
  recent.Reset();
  recent.Bind(1, ToString(FractionSource::kStamped));
  recent.Bind(2, ToString(ExecutionStatus::kGpuOom));
  recent.Bind(3, workload_id);
  recent.Bind(4, ToString(ExecutionStatus::kSuccess));
  recent.Bind(5, ToString(ExecutionStatus::kOom));
  recent.Bind(6, ToString(ExecutionStatus::kGpuOom));
  recent.Bind(7, kShapeHistoryWindow);
  while (recent.Step()) {
    ++history.executions;
    if (recent.Int64(1) != 0) ++history.gpu_executions;
    if (recent.IsNull(0)) continue;
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
