// LegacyMover: the writes of a legacy migration and of quarantine resolve.
// A resolved row becomes an observation (through ingest's ObservationWriter,
// so a later re-send is recognised), anything else goes to legacy_quarantine
// with every original field and its reason. Runs inside the caller's
// transaction; statements are prepared once. One thread at a time.
#pragma once

#include <SQLiteCpp/SQLiteCpp.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "ingest/observation_writer.h"
#include "legacy/legacy_resolver.h"
#include "legacy/legacy_row.h"
#include "recommend/aggregator.h"

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

// Fills `*out` for `row`. Reads no database; `scratch` is the caller's
// reusable buffer. Thread-compatible: one thread per `out` and `scratch`.
void PrepareLegacyRow(const LegacyRow& row, std::shared_ptr<const LegacyResolution> resolution,
                      PreparedLegacyRow* out, std::string* scratch);

class LegacyMover {
 public:
  // `aggregates` may be null: the caller rebuilds them afterwards.
  LegacyMover(SQLite::Database& db, double now, AggregateWriter* aggregates);
  LegacyMover(const LegacyMover&) = delete;
  LegacyMover& operator=(const LegacyMover&) = delete;

  // Stores the row as an observation when `resolution` resolved it and the row
  // is valid; otherwise `*code` and `*reason` say why it was not. True when stored.
  bool TryStore(const LegacyRow& row, std::shared_ptr<const LegacyResolution> resolution,
                std::string* code, std::string* reason);
  // Stores a prepared, storable row; sets `stored` and the aggregate's
  // workload id, or the quarantine code and reason when the execution is
  // already stored. Does not feed the aggregates. True when stored.
  bool Store(PreparedLegacyRow* row);
  // Inserts the row into legacy_quarantine, its legacy id kept as legacy_id.
  void Quarantine(const LegacyRow& row, const std::string& code, const std::string& reason);

 private:
  SQLite::Database& db_;
  double now_;
  AggregateWriter* aggregates_;
  ObservationWriter writer_;
  SQLite::Statement insert_quarantine_;
  std::string scratch_;
  PreparedLegacyRow prepared_;  // TryStore's, reused
};

}  // namespace hwrec::internal
