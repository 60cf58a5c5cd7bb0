#include "placement/history.h"

#include <algorithm>
#include <tuple>

#include "hwrec/observation.h"
#include "hwrec/placement_result.h"
#include "store/combined_read.h"

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

namespace {

// What a recent execution says (the SELECT list both reads share): an
// execution used GPUs when it reported GPU memory, GPU utilisation or a
// stamped share, ran out of GPU memory, or (neither GPU figure measured) was
// given GPU memory or a share: a measured zero outvotes the request. One that
// says it held no GPU used none. Parameters: stamped, gpu_oom; the three
// statuses of an execution that ran.
#define HWREC_RECENT_COLUMNS                                                                 \
  "architecture, CASE WHEN gpu_count_held = 0 THEN 0 WHEN gpu_count_held > 0 OR "            \
  "gpu_memory_peak_gb > 0 OR gpu_utilization > 0 OR "                                        \
  "fraction_source = ? OR status = ? OR (gpu_memory_peak_gb IS NULL AND gpu_utilization "    \
  "IS NULL AND (requested_gpu_memory_gb > 0 OR requested_gpu_compute_fraction > 0)) "        \
  "THEN 1 ELSE 0 END AS used_gpus, CASE WHEN status IN (?, ?, ?) THEN 1 ELSE 0 END AS ran, " \
  "gpu_count_held "

// The newest kShapeHistoryScan executions through observations_by_workload,
// whatever their status: the cost is bounded however many failed runs a
// crash-looping workload has. Parameters: the columns', the workload's id, the scan.
constexpr std::string_view kRecent =
    "SELECT " HWREC_RECENT_COLUMNS
    "FROM observations WHERE workload_id = ? ORDER BY finished_at DESC, id DESC LIMIT ?";

// The same rows as a part of a read in one statement (store/combined_read.h),
// with what orders them. Parameters: the columns', the image, the scan.
constexpr std::string_view kCombinedRecent =
    "SELECT 3, architecture, NULL, NULL, NULL, used_gpus, ran, gpu_count_held, id, finished_at, "
    "NULL FROM (SELECT " HWREC_RECENT_COLUMNS
    ", finished_at, id FROM observations WHERE workload_id = (SELECT id FROM workloads WHERE "
    "image = ?) ORDER BY finished_at DESC, id DESC LIMIT ?) recent";
static_assert(store::combined::kHistory == 3);

#undef HWREC_RECENT_COLUMNS

int BindColumns(store::Statement& statement, int index) {
  statement.Bind(index++, ToString(FractionSource::kStamped));
  statement.Bind(index++, ToString(ExecutionStatus::kGpuOom));
  statement.Bind(index++, ToString(ExecutionStatus::kSuccess));
  statement.Bind(index++, ToString(ExecutionStatus::kOom));
  statement.Bind(index++, ToString(ExecutionStatus::kGpuOom));
  return index;
}

// Where a statement gives a recent execution's columns.
struct RecentColumns {
  int architecture, used_gpus, ran, gpus_held;
};
constexpr RecentColumns kRecentColumns{0, 1, 2, 3};
constexpr RecentColumns kCombinedColumns{store::combined::kText0, store::combined::kInt0,
                                         store::combined::kInt0 + 1, store::combined::kInt0 + 2};

WorkloadHistoryReader::Recent RecentAt(const store::Statement& row, const RecentColumns& at) {
  WorkloadHistoryReader::Recent recent;
  recent.architecture = row.OptionalText(at.architecture);
  recent.used_gpus = row.Int64(at.used_gpus) != 0;
  recent.ran = row.Int64(at.ran) != 0;
  recent.gpus_held = row.OptionalInt64(at.gpus_held);
  return recent;
}

// Counts one recent execution, newest first; one past the window is left.
void Count(std::optional<std::string_view> architecture, bool used_gpus, bool ran,
           std::optional<std::int64_t> gpus_held, WorkloadHistory* history) {
  if (history->executions >= kShapeHistoryWindow) return;
  if (!ran) {
    ++history->passed_over;
    return;
  }
  ++history->executions;
  if (used_gpus) {
    ++history->gpu_executions;
    if (gpus_held) {
      ++history->held_executions;
      history->most_gpus_held = std::max(history->most_gpus_held, *gpus_held);
    }
  }
  if (!architecture) return;
  ++history->architecture_executions;
  if (std::find(history->architectures.begin(), history->architectures.end(), *architecture) ==
      history->architectures.end()) {
    history->architectures.emplace_back(*architecture);
  }
}

// The row as it is read: no copy of its text.
void CountAt(const store::Statement& row, const RecentColumns& at, WorkloadHistory* history) {
  Count(row.IsNull(at.architecture) ? std::nullopt
                                    : std::optional<std::string_view>(row.Text(at.architecture)),
        row.Int64(at.used_gpus) != 0, row.Int64(at.ran) != 0, row.OptionalInt64(at.gpus_held),
        history);
}

}  // namespace

WorkloadHistory WorkloadHistoryReader::ReadStored(std::int64_t workload_id) {
  WorkloadHistory history;
  if (!recent_) recent_ = db_.Prepare(kRecent);
  store::Statement& recent = *recent_;
  recent.Reset();
  int index = BindColumns(recent, 1);
  recent.Bind(index++, workload_id);
  recent.Bind(index, kShapeHistoryScan);
  while (history.executions < kShapeHistoryWindow && recent.Step()) {
    CountAt(recent, kRecentColumns, &history);
  }
  recent.Reset();  // an unfinished statement would hold its read transaction open
  std::sort(history.architectures.begin(), history.architectures.end());
  return history;
}

std::string_view WorkloadHistoryReader::CombinedArm() { return kCombinedRecent; }

int WorkloadHistoryReader::BindCombined(store::Statement& statement, int index,
                                        const std::string& image) {
  index = BindColumns(statement, index);
  statement.BindTextView(index++, image);
  statement.Bind(index++, kShapeHistoryScan);
  return index;
}

void WorkloadHistoryReader::TakeCombined(const store::Statement& row, std::vector<Recent>* rows) {
  if (row.Int64(store::combined::kPart) != store::combined::kHistory) return;
  Recent recent = RecentAt(row, kCombinedColumns);
  recent.finished_at = row.Double(store::combined::kReal);
  recent.id = row.Int64(store::combined::kInt0 + 3);
  rows->push_back(std::move(recent));
}

WorkloadHistory WorkloadHistoryReader::FinishCombined(std::vector<Recent>* rows) {
  std::sort(rows->begin(), rows->end(), [](const Recent& a, const Recent& b) {
    return std::tie(a.finished_at, a.id) > std::tie(b.finished_at, b.id);  // newest first
  });
  WorkloadHistory history;
  for (const Recent& r : *rows) Count(r.architecture, r.used_gpus, r.ran, r.gpus_held, &history);
  std::sort(history.architectures.begin(), history.architectures.end());
  return history;
}

}  // namespace hwrec::internal
