// Private: what a workload's own recent executions say about its shape, for
// the fields its author left undeclared: whether it uses GPUs and on which
// architectures it ran (DESIGN §7), from the executions that ran, and how many
// GPUs they held where they said. One bounded
// read through the store's connection per evaluation; one thread at a time,
// like the connection.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/database.h"

namespace hwrec::internal {

// A workload's history: of its last kShapeHistoryScan executions (the newest
// first), the last kShapeHistoryWindow that ran (success, oom, gpu_oom).
inline constexpr std::int64_t kShapeHistoryScan = 500;
inline constexpr std::int64_t kShapeHistoryWindow = 50;

struct WorkloadHistory {
  // Of the last kShapeHistoryScan executions, those that ran: at most
  // kShapeHistoryWindow, the most recent.
  std::int64_t executions = 0;
  std::int64_t passed_over = 0;  // failed or cancelled, newer than the last one counted
  // Of those, the ones that used GPUs: GPU memory, GPU utilisation or a
  // stamped share reported, gpu_oom, or GPU memory or a share given.
  std::int64_t gpu_executions = 0;
  // Of those, the ones that said how many GPUs they held (gpu_count_held),
  // and the most any of them held.
  std::int64_t held_executions = 0;
  std::int64_t most_gpus_held = 0;
  std::int64_t architecture_executions = 0;  // of those, the ones that recorded an architecture
  std::vector<std::string> architectures;    // recorded ones, distinct and sorted
};

class WorkloadHistoryReader {
 public:
  explicit WorkloadHistoryReader(store::Connection& db) : db_(db) {}
  // The summary of the workload's last executions; workload_id 0 (no
  // history) reads nothing. Throws on an engine failure (call inside Guarded).
  // The last answer is kept and given again while the store's data version
  // has not moved (SQLite: no commit by anyone, no write on this connection),
  // so that placing many executions of one workload reads its history once.
  // `version`: the data version read in the caller's snapshot (its
  // store::ChangeWatch's); nullopt keeps nothing.
  WorkloadHistory Read(std::int64_t workload_id,
                       const std::optional<store::Connection::Version>& version);

  // What one recent execution says.
  struct Recent {
    std::optional<std::string> architecture;
    bool used_gpus = false;
    bool ran = false;  // succeeded or ran out of memory: failed and cancelled are passed over
    std::optional<std::int64_t> gpus_held;
    double finished_at = 0;  // with the id, what orders a combined read's rows
    std::int64_t id = 0;
  };
  // The same summary from a read in one statement (store/combined_read.h):
  // the arm of its recent executions (not first: it names no blob's type),
  // bound from `index` on (returns the next index); each row of the
  // statement to TakeCombined (other parts' rows are left), which keeps its
  // executions, then FinishCombined, which counts them newest first. A
  // workload with no history gives no row.
  static std::string_view CombinedArm();
  static int BindCombined(store::Statement& statement, int index, const std::string& image);
  static void TakeCombined(const store::Statement& row, std::vector<Recent>* rows);
  static WorkloadHistory FinishCombined(std::vector<Recent>* rows);

 private:
  WorkloadHistory ReadStored(std::int64_t workload_id);

  store::Connection& db_;
  std::unique_ptr<store::Statement> recent_;  // prepared on first use
  std::int64_t kept_workload_ = 0;
  std::optional<store::Connection::Version> kept_version_;
  WorkloadHistory kept_;
};

}  // namespace hwrec::internal
