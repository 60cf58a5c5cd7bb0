// ChangeWatch: tells a reader kept across calls which of the things it holds
// from the store changed since it last applied them: the registered node
// pools, the GPU catalog, the settings. Schema 13's triggers raise one
// counter per area (store_changes) in the writer's own transaction,
// whichever process, replica or tool wrote; a watch compares the counters
// inside the snapshot of the caller's answer, so a change committed before
// the call is never missed (unlike a notification, which may still be in
// flight), and the caller re-reads only the areas that moved.
//
// A change stays pending until the caller says it applied it (Applied): a
// call that fails before re-reading an area leaves it for the next call.
//
// Cost per call: on SQLite one `PRAGMA data_version` (plus this
// connection's change count) while nothing was committed, and one read of
// the three counters when something was (an ingest too); on PostgreSQL,
// which has no such signal, one read of the counters, or none of its own
// when the caller reads them in its one statement (PollCombined).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "store/database.h"

namespace hwrec::store {

enum class ChangeArea { kPools, kCatalog, kSettings };
inline constexpr std::size_t kChangeAreaCount = 3;

struct StoreChanges {
  std::array<bool, kChangeAreaCount> changed{};
  bool operator()(ChangeArea area) const { return changed[static_cast<std::size_t>(area)]; }
};

class ChangeWatch {
 public:
  explicit ChangeWatch(Connection& db);
  ChangeWatch(const ChangeWatch&) = delete;
  ChangeWatch& operator=(const ChangeWatch&) = delete;
  ~ChangeWatch();

  // The areas changed and not yet applied; every area before the first
  // Applied. Call inside the ReadSnapshot the answer is read in. On a store
  // older than schema 13, which keeps no counters, every area counts as
  // changed whenever the store may have changed. Throws on an engine failure.
  StoreChanges Poll();
  // A Poll inside a read in one statement (store/combined_read.h), once a
  // Poll has seen the counters (Combinable): the statement carries
  // kCountersArm; the caller hands each of its rows to TakeCounterRow, then
  // PollCombined polls as Poll does, with what the statement read.
  static constexpr std::string_view kCountersArm =
      "SELECT 0, area, CAST(NULL AS TEXT), CAST(NULL AS TEXT), CAST(NULL AS TEXT), counter, "
      "CAST(NULL AS BIGINT), CAST(NULL AS BIGINT), CAST(NULL AS BIGINT), "
      "CAST(NULL AS DOUBLE PRECISION), NULL FROM store_changes";
  bool Combinable() const { return seen_.has_value(); }
  void TakeCounterRow(const Statement& row);
  StoreChanges PollCombined();
  // The caller has re-read `area` in the snapshot it polled in.
  void Applied(ChangeArea area) { pending_.changed[static_cast<std::size_t>(area)] = false; }
  // What Poll returned last, less what was applied since (no I/O).
  const StoreChanges& pending() const { return pending_; }
  // The connection's data version as the last Poll read it (in the caller's
  // snapshot), or nullopt when it has none (PostgreSQL) or Poll could not
  // read the counters: what a reader keeps decoded rows against.
  std::optional<Connection::Version> version() const { return seen_version_; }

 private:
  using Counters = std::array<std::int64_t, kChangeAreaCount>;
  std::optional<Counters> ReadCounters();
  // What Poll does once the counters of the caller's snapshot are read.
  StoreChanges Compare(const std::optional<Counters>& counters,
                       std::optional<Connection::Version> version);

  Connection& db_;
  std::unique_ptr<Statement> counters_;  // prepared once the table is seen
  std::optional<Connection::Version> seen_version_;
  std::optional<Counters> seen_;
  Counters combined_{};  // what TakeCounterRow was given since the last PollCombined
  StoreChanges pending_{{true, true, true}};
};

}  // namespace hwrec::store
