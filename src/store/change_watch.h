// ChangeWatch: tells a reader kept across calls which of the things it holds
// from the store changed since it last looked: the registered node pools, the
// GPU catalog, the settings. Schema 13's triggers raise one counter per area
// (store_changes) in the writer's own transaction, whichever process,
// replica or tool wrote; a watch compares the counters inside the snapshot of
// the caller's answer, so a change committed before the call is never missed
// (unlike a notification, which may still be in flight), and the caller
// re-reads only the areas that moved.
//
// Cost per call: on SQLite one `PRAGMA data_version` (plus this
// connection's change count) while nothing was committed, and one read of
// the three counters when something was (an ingest too); on PostgreSQL,
// which has no such signal, one read of the counters.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>

#include "store/database.h"

namespace hwrec::store {

enum class ChangeArea { kPools, kCatalog, kSettings };
inline constexpr std::size_t kChangeAreaCount = 3;

struct StoreChanges {
  std::array<bool, kChangeAreaCount> changed{};
  bool operator()(ChangeArea area) const { return changed[static_cast<std::size_t>(area)]; }
  bool any() const { return changed[0] || changed[1] || changed[2]; }
};

class ChangeWatch {
 public:
  explicit ChangeWatch(Connection& db);
  ChangeWatch(const ChangeWatch&) = delete;
  ChangeWatch& operator=(const ChangeWatch&) = delete;
  ~ChangeWatch();

  // Which areas changed since the last Poll; every area on the first. Call
  // inside the ReadSnapshot the answer is read in. On a store older than
  // schema 13, which keeps no counters, every area counts as changed
  // whenever the store may have changed. Throws on an engine failure.
  StoreChanges Poll();

 private:
  using Counters = std::array<std::int64_t, kChangeAreaCount>;
  std::optional<Counters> ReadCounters();

  Connection& db_;
  std::unique_ptr<Statement> counters_;  // prepared once the table is seen
  std::optional<Connection::Version> seen_version_;
  std::optional<Counters> seen_;
};

}  // namespace hwrec::store
