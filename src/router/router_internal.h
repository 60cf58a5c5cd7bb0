// Private parts of the router shared by its files: reading and writing the
// router_* tables, validation, and the per-UTC-day ledger the walker keeps.
#pragma once

#include "store/database.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hwrec/router_config.h"
#include "hwrec/status.h"
#include "hwrec/store.h"

namespace hwrec::internal {

using CardSet = std::set<std::pair<std::string, std::string>>;  // (brand, model)

std::optional<QuotaClass> ParseQuotaClass(std::string_view text);
std::optional<Provisioning> ParseProvisioning(std::string_view text);  // "SPOT", …
RouterConfig ReadRouterConfig(store::Connection& db);
// The catalog's cards (hwrec/catalog.h); throws StatusError when it cannot be read.
CardSet CatalogCards(const Store& store);

// Whole-configuration checks; the message names the entry, field and fix.
Status CheckRouterConfig(const RouterConfig& config, const CardSet& cards);
// Replaces the router_* configuration tables; call inside a transaction.
void WriteRouterConfig(store::Connection& db, const RouterConfig& config);
// CheckRouterConfig against the catalog of `store`, then WriteRouterConfig on
// its connection `db`; inside the caller's write transaction.
Status CheckAndWriteRouterConfig(const Store& store, store::Connection& db,
                                 const RouterConfig& config);
// One write transaction that replaces the configuration with what `next`
// makes of the store's (read inside it), checked; commits only when both
// succeed. A transaction PostgreSQL cancels runs again (store::RunWrite).
Status ReplaceRouterConfig(Store& store,
                           const std::function<Result<RouterConfig>(store::Connection& db)>& next);

// Sets one named setting from text, validating its range.
Status ApplySetting(RouterSettings* settings, std::string_view key, std::string_view value);

struct SettingInfo {
  const char* key;
  const char* description;
};
const std::vector<SettingInfo>& SettingInfos();
std::string SettingValue(const RouterSettings& settings, std::string_view key);

// The walker's view of one UTC day: the GCP attempt counter and the quotas
// found exhausted, each with the fewest GPUs a launch that found it exhausted
// asked for. The store-backed ledger persists each change at once; a dry-run
// ledger starts from the stored state and keeps changes in memory.
class DayLedger {
 public:
  // How the ledger writes: not at all (a dry run), each change in its own
  // transaction (a live walk, so other walkers see the unit at once), or
  // inside the caller's open write transaction (a recorded walk).
  enum class Writes { kNone, kOwnTransactions, kCallersTransaction };
  DayLedger(store::Connection& db, std::string day, Writes writes);

  // The GPU count the quota was found exhausted at when a rung needing `gpus`
  // of it is blocked (that count is at most `gpus`); nullopt when not blocked.
  std::optional<int> QuotaBlocked(std::string_view gpu_model, QuotaClass quota_class,
                                  int gpus) const;
  // Blocks the rungs needing `gpus` or more of the quota; a block already at
  // fewer GPUs stands.
  void BlockQuota(const std::string& gpu_model, QuotaClass quota_class, int gpus,
                  const std::string& reason, double now);
  // Takes one unit of the day's cap; false when the cap is used up.
  bool TryTakeGcpAttempt(int cap);
  // Gives back a unit taken by a walk that made no GCP launch after all.
  void ReturnGcpAttempt();
  // Counts a GCP attempt a recorded walk made although the cap was used up.
  void ForceTakeGcpAttempt();
  std::int64_t gcp_attempts() const { return gcp_attempts_; }

 private:
  store::Connection& db_;
  std::string day_;
  // Runs `write` as this ledger writes (never for kNone).
  void Write(const std::function<void()>& write);
  std::int64_t ReadAttempts();  // the day's count as stored, in the open transaction

  Writes writes_;
  std::int64_t gcp_attempts_ = 0;
  std::map<std::pair<std::string, QuotaClass>, int> blocked_;  // -> fewest GPUs that failed
};

}  // namespace hwrec::internal
