// The raw ceiling of a single-record ingest: the exact rows hwrec wrote for
// each record (captured with SQLite's session extension on a copy of the
// store), written again as prepared statements, one transaction a record, on
// another copy. What hwrec spends beyond it is its own work.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "hwrec/store.h"

namespace hwrec::bench {

// What hwrec wrote for each record.
struct CapturedWrites {
  std::vector<std::string> changesets;                // one per record, in order
  std::map<std::string, std::int64_t> rows_by_table;  // over every record
  double rows_per_record = 0;
};

// Calls `ingest_one(i)` for i in [0, records), each ingesting one record
// into `store` (a SQLite file), and keeps the rows each call wrote.
CapturedWrites CaptureWrites(Store& store, int records, const std::function<void(int)>& ingest_one);

// Writes each changeset again as prepared INSERT / UPDATE / DELETE
// statements, one transaction each (WAL, synchronous=NORMAL, foreign keys
// on, as hwrec opens a store), into the SQLite file `path`: a copy of the
// store as it was before CaptureWrites. Returns each transaction's seconds.
std::vector<double> ReplayAsPreparedStatements(const std::string& path,
                                               const std::vector<std::string>& changesets);

// The tables whose rows differ between the SQLite files `a` and `b` (empty:
// the replay wrote exactly what hwrec wrote), among `tables`.
std::vector<std::string> TablesThatDiffer(const std::string& a, const std::string& b,
                                          const std::map<std::string, std::int64_t>& tables);

}  // namespace hwrec::bench
