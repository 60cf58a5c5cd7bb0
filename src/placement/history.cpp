#include "placement/history.h"

#include <algorithm>

#include "hwrec/placement_types.h"

namespace hwrec::internal {

WorkloadHistory WorkloadHistoryReader::Read(std::int64_t workload_id) {
  WorkloadHistory history;
  if (workload_id == 0) return history;
  if (!recent_) {
    // The newest executions first, through observations_by_workload: the
    // cost is the window's, however long the history.
    recent_ = db_.Prepare(
        "SELECT architecture, CASE WHEN gpu_memory_peak_gb IS NOT NULL OR gpu_utilization IS NOT "
        "NULL OR fraction_source = 'stamped' THEN 1 ELSE 0 END "
        "FROM observations WHERE workload_id = ? ORDER BY finished_at DESC, id DESC LIMIT ?");
  }
  store::Statement& recent = *recent_;
  recent.Reset();
  recent.Bind(1, workload_id);
  recent.Bind(2, kShapeHistoryWindow);
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
