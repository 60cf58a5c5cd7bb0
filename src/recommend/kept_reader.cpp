#include "recommend/kept_reader.h"

#include "store/combined_read.h"

namespace hwrec::internal {

namespace {

// Whether `changes` moved an area of `held`.
bool MovedHeld(const store::StoreChanges& changes, const store::StoreChanges& held) {
  for (std::size_t a = 0; a < store::kChangeAreaCount; ++a) {
    if (changes.changed[a] && held.changed[a]) return true;
  }
  return false;
}

}  // namespace

bool MayReadCombined(store::Connection& db, const store::ChangeWatch& watch, bool reader_held,
                     const store::StoreChanges& held) {
  return db.RoundTripPerStatement() && !db.InTransaction() && reader_held && watch.Combinable() &&
         !MovedHeld(watch.pending(), held);  // else read it in a snapshot
}

bool RunCombined(store::Statement& statement, store::ChangeWatch& watch,
                 const store::StoreChanges& held, CombinedAggregates* aggregates,
                 const std::function<void(const store::Statement&)>& other) {
  try {
    while (statement.Step()) {
      if (statement.Int64(store::combined::kPart) == store::combined::kCounters) {
        watch.TakeCounterRow(statement);
        continue;
      }
      aggregates->Take(statement);
      if (other) other(statement);
    }
    statement.Reset();
  } catch (const store::EngineError& e) {
    // Lost: the snapshot's BEGIN connects anew. Not when connecting anew just
    // failed: the call says so rather than trying once more.
    if (!e.connection_lost() || e.sqlstate() == "08001") throw;
    return false;
  }
  return !MovedHeld(watch.PollCombined(), held);
}

}  // namespace hwrec::internal
