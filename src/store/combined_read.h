// A read in one statement: what a reader kept across calls asks of the store
// on each call (the change counters, a workload's id, its aggregates, its
// recent executions), sent as one statement instead of a ReadSnapshot of
// several where each statement is a round trip to a server
// (Connection::RoundTripPerStatement). One statement sees one state of the
// store, inside a transaction or outside one, so its parts agree as the
// reads of one snapshot do.
//
// Each part is one or more arms of a UNION ALL that all give the columns
// below, NULL where the part has nothing to say; the owner of each table
// writes its arm next to its other SQL. The rows come in no order (sorting
// them, or numbering them with a window function, made a read a fifth
// slower): a part whose rows count in order gives what orders them.
//
// PostgreSQL types a UNION's columns pair by pair from the left, and a NULL
// beside a NULL becomes text: the first arm names a type in every column
// (CAST(NULL AS BIGINT) where it has no value), the others may give NULL.
// Only an aggregates arm gives a blob: it goes first.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hwrec::store::combined {

// What a row is about: its kPart column.
enum Part : int {
  kCounters = 0,    // one row per change area: kText0 area, kInt0 counter
  kWorkload = 1,    // at most one row: kInt0 the workload's id
  kAggregates = 2,  // one per aggregate row: kText0..3 scope, brand, model,
                    // instance type; kInt0 width, kInt0 + 1 workload id; kBlob state
  kHistory = 3,     // one per recent execution: kReal its finish time and
                    // kInt0 + 3 its id, which order them (the caller sorts)
};

// The columns every arm gives, in order.
inline constexpr int kPart = 0;
inline constexpr int kText0 = 1;  // four text columns: kText0 + 0..3
inline constexpr int kInt0 = 5;   // four integer columns: kInt0 + 0..3
inline constexpr int kReal = 9;
inline constexpr int kBlob = 10;

// The statement of `arms`, each a SELECT of the eleven columns.
inline std::string Statement(const std::vector<std::string_view>& arms) {
  std::string sql;
  for (std::string_view arm : arms) {
    if (!sql.empty()) sql += " UNION ALL ";
    sql += arm;
  }
  return sql;
}

}  // namespace hwrec::store::combined
