// Every row of one table as exact text, engine-neutral: what `hwrec copy`
// compares between two stores and what its tests compare after a round trip.
// Private to src/copy/ and its tests.
#pragma once

#include <string>
#include <vector>

#include "store/database.h"

namespace hwrec::internal {

// The rows of `table` (a name hwrec owns: it is put into the SQL as is), one
// line each, values by kind ("i:5", "r:0.25", "t4:text", "b2:00ff", "null")
// in column order, the lines sorted bytewise so that two engines' orders
// agree.
std::vector<std::string> TableRows(store::Connection& db, const std::string& table);

// The number of rows in `table`.
std::int64_t TableRowCount(store::Connection& db, const std::string& table);

}  // namespace hwrec::internal
