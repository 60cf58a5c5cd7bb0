// LegacyMover: the writes of a legacy migration and of quarantine resolve.
// A resolved row becomes an observation (through ingest's ObservationWriter,
// so a later re-send is recognised), anything else goes to legacy_quarantine
// with every original field and its reason. Runs inside the caller's
// transaction; statements are prepared once. One thread at a time.
#pragma once

#include <SQLiteCpp/SQLiteCpp.h>

#include <cstdint>
#include <string>

#include "ingest/observation_writer.h"
#include "legacy/legacy_resolver.h"
#include "legacy/legacy_row.h"
#include "recommend/aggregator.h"

namespace hwrec::internal {

class LegacyMover {
 public:
  // `aggregates` may be null: the caller rebuilds them afterwards.
  LegacyMover(SQLite::Database& db, double now, AggregateWriter* aggregates);
  LegacyMover(const LegacyMover&) = delete;
  LegacyMover& operator=(const LegacyMover&) = delete;

  // Stores the row as an observation when `resolution` resolved it and the row
  // is valid; otherwise `*code` and `*reason` say why it was not. True when stored.
  bool TryStore(const LegacyRow& row, const LegacyResolution& resolution, std::string* code,
                std::string* reason);
  // Inserts the row into legacy_quarantine, its legacy id kept as legacy_id.
  void Quarantine(const LegacyRow& row, const std::string& code, const std::string& reason);

 private:
  SQLite::Database& db_;
  double now_;
  AggregateWriter* aggregates_;
  ObservationWriter writer_;
  SQLite::Statement insert_quarantine_;
  std::string scratch_;
};

// Every (workload, hardware key) with history or offered by a registered pool,
// materialised anew as of now. Returns the rows written. Inside a transaction.
std::int64_t RefreshAllRecommendations(SQLite::Database& db);

}  // namespace hwrec::internal
