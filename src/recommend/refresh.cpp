#include "hwrec/refresh.h"

#include "aggregate/aggregator.h"
#include "aggregate/settings.h"
#include "hwrec/store.h"
#include "recommend/materialize.h"
#include "store/database.h"
#include "store/guarded.h"

namespace hwrec {

namespace {

Result<std::int64_t> Refresh(Store& store, bool rebuild) {
  if (Status writable = store.CheckWritable(); !writable.ok()) return writable;
  return internal::Guarded(store.path(), [&]() -> Result<std::int64_t> {
    store::Connection& db = store::ConnectionOf(store);
    return store::RunWrite(db, [&]() -> Result<std::int64_t> {
      // Every workload's figures: no ingest batch merges beside it.
      store::AllWorkloadsLock all(db);
      store::WriteTransaction tx(db);
      if (rebuild) internal::RebuildAggregates(db, internal::LoadSettings(db));
      const std::int64_t written = internal::RefreshAllRecommendations(db);
      tx.Commit();
      return written;
    });
  });
}

}  // namespace

Result<std::int64_t> RefreshRecommendations(Store& store) { return Refresh(store, false); }

Result<std::int64_t> RebuildRecommendations(Store& store) { return Refresh(store, true); }

}  // namespace hwrec
