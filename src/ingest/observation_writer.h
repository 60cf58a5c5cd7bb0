// ObservationWriter: the SQL of ingest. Prepared once per Ingest call and
// reused for every record; every call runs inside the caller's transaction.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "aggregate/aggregator.h"
#include "base/sha256.h"
#include "hwrec/observation.h"
#include "ingest/hardware_resolver.h"
#include "store/database.h"
#include "store/row_source_table.h"

namespace hwrec::internal {

// One accepted record as it is stored.
struct ObservationRow {
  const Observation& observation;
  const ResolvedHardware& resolved;
  std::optional<double> gpu_compute_fraction;
  FractionSource fraction_source = FractionSource::kNone;
  bool profile_id_mismatch = false;
  const Sha256Digest& content_hash;
};

// The columns of observations that a stored row fills, in the order of
// ObservationValues.
inline constexpr const char* kObservationColumns =
    "execution_id, workload_id, finished_at, site_id, node_pool_id, status, duration_s, "
    "instance_type, architecture, cpu_millicores, memory_bytes, gpu_count, gpu_mode, gpu_total, "
    "gpu_brand, gpu_model, hp_v1, hp_v2, sent_profile_id, profile_id_mismatch, "
    "gpu_compute_fraction, fraction_source, gpu_utilization, gpu_memory_peak_gb, "
    "cpu_millicores_avg, cpu_millicores_p95, cpu_millicores_max, memory_peak_bytes, "
    "requested_cpu_millicores, requested_memory_bytes, requested_gpu_memory_gb, "
    "requested_gpu_compute_fraction, content_hash, ingested_at, gpu_count_held";
inline constexpr int kObservationColumnCount = 35;

// Fills `values[0, kObservationColumnCount)` with `row` as stored under
// `workload_id` at `ingested_at`, in kObservationColumns' order. The values
// point into `row`.
void ObservationValues(const ObservationRow& row, std::int64_t workload_id, double ingested_at,
                       SqlValue* values);

// The aggregates' view of one stored row of `workload_id` (observations.id
// `observation_id`; 0 while it is not known yet).
AggregateInput AggregateInputOf(const ObservationRow& row, std::int64_t workload_id,
                                std::int64_t observation_id);

enum class InsertOutcome {
  kInserted,   // a new execution
  kDuplicate,  // the execution is stored with the same content
  kConflict,   // the execution is stored with different content; the stored one stays
};

class ObservationWriter {
 public:
  ObservationWriter(store::Connection& db, const std::string& source);
  ObservationWriter(const ObservationWriter&) = delete;
  ObservationWriter& operator=(const ObservationWriter&) = delete;
  ~ObservationWriter() = default;

  // The time stamped on rows written from now on (ingested_at, rejected_at).
  void set_now(double epoch_seconds) { now_ = epoch_seconds; }

  InsertOutcome Insert(const ObservationRow& row);
  // The workload `row` is stored under, created when new. Nullopt when the
  // image is new and the execution is already stored (duplicate or
  // conflict): a re-sent record must not create a workload. For callers that
  // insert rows themselves, in bulk.
  std::optional<std::int64_t> WorkloadFor(const ObservationRow& row);
  // WorkloadFor, with `*stored` set to how the execution is stored when it
  // returns nullopt (then Insert need not ask again).
  std::optional<std::int64_t> ResolveWorkload(const ObservationRow& row,
                                              std::optional<InsertOutcome>* stored);
  // The workload id of the last record Insert stored.
  std::int64_t last_workload_id() const { return last_workload_id_; }
  // The observations.id of the last record Insert stored.
  std::int64_t last_observation_id() const { return last_observation_id_; }
  // Forgets the workload ids it knows (some may be of a transaction that
  // rolled back) and the rejects and conflicts not yet written.
  void ForgetUncommitted() {
    workload_ids_.clear();
    held_rejects_.clear();
    held_conflicts_.clear();
  }
  // Where writers run at once (`hold`): rejects and conflicts are held until
  // WriteHeldRecords, which writes them in the order of their unique keys,
  // so that writers refusing the same records in other orders never wait
  // for each other in a cycle. Otherwise each is written as it is recorded.
  void HoldRecords(bool hold) { hold_records_ = hold; }
  void RecordReject(std::int64_t line, const std::string& execution_id, const FieldError& error,
                    const std::string& record);
  void RecordConflict(std::int64_t line, const std::string& execution_id,
                      const std::string& record);
  // The held rejects, by record and field, then the held conflicts, by
  // execution id and record.
  void WriteHeldRecords();

 private:
  std::int64_t CreateWorkload(const std::string& image);
  // Duplicate or conflict when the execution is stored, nullopt when it is not.
  std::optional<InsertOutcome> CompareStored(const std::string& execution_id,
                                             const Sha256Digest& hash);
  void BindObservation(const ObservationRow& row, std::int64_t workload_id);
  // A reject or a conflict as it is written (a reject's text made valid UTF-8).
  struct Reject {
    std::int64_t line = 0;
    std::optional<std::string> execution_id;
    std::string field, reason, record;
    double at = 0;
  };
  struct Conflict {
    std::int64_t line = 0;
    std::string execution_id, record;
    double at = 0;
  };
  void Write(const Reject& reject);
  void Write(const Conflict& conflict);

  store::Connection& db_;
  std::string source_;
  double now_ = 0;
  std::unique_ptr<store::Statement> insert_observation_;
  std::unique_ptr<store::Statement> stored_hash_;
  std::unique_ptr<store::Statement> insert_workload_;
  std::unique_ptr<store::Statement> select_workload_;
  std::unique_ptr<store::Statement> insert_reject_;
  std::unique_ptr<store::Statement> insert_conflict_;
  std::unordered_map<std::string, std::int64_t> workload_ids_;
  bool hold_records_ = false;
  std::vector<Reject> held_rejects_;
  std::vector<Conflict> held_conflicts_;
  std::int64_t last_workload_id_ = 0;
  std::int64_t last_observation_id_ = 0;
};

}  // namespace hwrec::internal
