// The writes of legacy rows: LegacyBatchWriter moves a migration's batches
// into observations or legacy_quarantine; LegacyMover stores one row at a
// time for quarantine resolve. Either way a resolved row becomes an
// observation as ingest would store it (ingest's workload rule and columns,
// so a later re-send is recognised), and a row that cannot be stored keeps
// every original field beside its reason. Both run inside the caller's
// transaction with statements prepared once. One thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "aggregate/aggregator.h"
#include "ingest/observation_writer.h"
#include "legacy/legacy_resolver.h"
#include "legacy/legacy_row.h"
#include "store/row_source_table.h"

namespace hwrec::internal {

// One legacy row made ready to store without touching the database: the
// observation it stands for, its resolution, content hash and aggregate
// input; or, when it cannot be stored, the quarantine code and reason.
// A migration prepares rows on a worker thread while the previous batch is
// written.
struct PreparedLegacyRow {
  bool storable = false;
  std::string code, reason;  // when not storable
  Observation observation;
  std::shared_ptr<const LegacyResolution> resolution;
  std::optional<double> gpu_compute_fraction;
  FractionSource fraction_source = FractionSource::kNone;
  bool profile_id_mismatch = false;
  Sha256Digest content_hash{};
  AggregateInput aggregate;  // workload_id is set once the row is stored
  bool stored = false;
};

// What a legacy row may claim, as ingest checks a record (DESIGN §5): a
// finished_at no later than `now` plus `max_clock_skew_hours`, and peaks
// within the hardware it resolved to.
struct LegacyRowBounds {
  double now = 0;
  double max_clock_skew_hours = 24;
};

// The observation `row` becomes on `resolved` hardware, or nullopt with
// `*reason` naming each bad field ("field: why; field: why") when a value is
// of the wrong type (then `resolved` is not read), or the row fails
// ObservationProblems or `bounds` (a row refused for its values is also
// judged by `bounds` on its good ones): the check of the move and of its plan.
std::optional<Observation> CheckedLegacyObservation(const LegacyRow& row,
                                                    const ResolvedHardware& resolved,
                                                    const LegacyRowBounds& bounds,
                                                    std::string* reason);

// Fills `*out` for `row`: quarantined (invalid_field) when
// CheckedLegacyObservation refuses it. Reads no database; `scratch` is the
// caller's reusable buffer. Thread-compatible: one thread per `out` and `scratch`.
void PrepareLegacyRow(const LegacyRow& row, std::shared_ptr<const LegacyResolution> resolution,
                      const LegacyRowBounds& bounds, PreparedLegacyRow* out, std::string* scratch);

class LegacyMover {
 public:
  // `aggregates` may be null: the caller rebuilds them afterwards.
  LegacyMover(store::Connection& db, const LegacyRowBounds& bounds, AggregateWriter* aggregates);
  LegacyMover(const LegacyMover&) = delete;
  LegacyMover& operator=(const LegacyMover&) = delete;
  ~LegacyMover() = default;

  // Stores the row as an observation when `resolution` resolved it and the row
  // is valid; otherwise `*code` and `*reason` say why it was not. True when stored.
  bool TryStore(const LegacyRow& row, std::shared_ptr<const LegacyResolution> resolution,
                std::string* code, std::string* reason);

 private:
  // Stores a prepared, storable row; sets `stored` and the aggregate's
  // workload id, or the quarantine code and reason when the execution is
  // already stored. Does not feed the aggregates. True when stored.
  bool Store(PreparedLegacyRow* row);

  AggregateWriter* aggregates_;
  LegacyRowBounds bounds_;
  ObservationWriter writer_;
  std::string scratch_;
  PreparedLegacyRow prepared_;  // TryStore's, reused
};

// The writes of a legacy migration, a batch at a time: the storable rows go
// into observations and the rest into legacy_quarantine, each with one
// INSERT ... SELECT over the batch held in memory (RowSourceTable), which
// SQLite runs as one loop instead of one statement per row. The outcome per
// row is the same as LegacyMover's: an execution already stored (before the
// migration, or earlier in it) is quarantined as such. Runs inside the
// caller's transaction. One thread at a time.
class LegacyBatchWriter {
 public:
  // `store_path` names the store in the messages of broken invariants.
  LegacyBatchWriter(store::Connection& db, double now, std::string store_path);
  ~LegacyBatchWriter();
  LegacyBatchWriter(const LegacyBatchWriter&) = delete;
  LegacyBatchWriter& operator=(const LegacyBatchWriter&) = delete;

  // Writes rows [0, n): sets each storable row's `stored` and its aggregate's
  // workload id, or its quarantine code and reason. Returns how many rows
  // were stored as observations; the others are in legacy_quarantine.
  std::size_t Store(const LegacyRow* rows, PreparedLegacyRow* prepared, std::size_t n);

 private:
  class Batch;

  // After an insert that stored fewer rows than it was given: finds the ones
  // it stored (their ids are above `last_id_before`) and moves the others,
  // whose executions were stored already, to the quarantine list.
  void SortOutAlreadyStored(std::int64_t last_id_before);

  store::Connection& db_;
  std::string store_path_;
  std::unique_ptr<Batch> batch_;
  ObservationWriter writer_;  // workload ids, with ingest's rule
  std::unique_ptr<RowSourceTable> observation_table_, quarantine_table_;
  std::unique_ptr<store::Statement> insert_observations_, insert_quarantine_, last_id_, stored_id_;
};

}  // namespace hwrec::internal
