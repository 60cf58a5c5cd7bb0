// What an error tells its reader to do next, named once and said in the words
// of the host that shows it: `hwrec pools import` on the command line,
// `Store.register_pools(...)` in Python, `hwrec::ImportNodePools` in C++.
// hwrec's messages name a remedy through RemedyText, so the same failure
// points a CLI user at a command and a Python caller at a call.
#pragma once

#include <string>
#include <string_view>

#include "hwrec/export.h"

namespace hwrec {

enum class Remedy {
  kInit,               // create a store
  kStatusWritable,     // open the store once, writable, to settle its journal
  kMigrate,            // apply pending schema migrations
  kMigrateDryRun,      // preview the hp:v1 -> hp:v2 migration of legacy history
  kMigrateAccept,      // run it, with consent
  kMigrateWithPools,   // run it with node pools that resolve legacy rows
  kCheck,              // check a store for damage
  kRefresh,            // recompute the materialised recommendations
  kRefreshRebuild,     // rebuild the aggregates from the observations, then refresh
  kCopy,               // copy a store into an empty one
  kConfigList,         // the settings and their keys
  kPoolsImport,        // register node pools
  kCatalogList,        // the store's GPU catalog
  kCatalogImport,      // add cards to it
  kQuarantineList,     // legacy rows held back
  kQuarantineResolve,  // attach a model to them and move them into the history
  kRouteConfigImport,  // add or change router configuration
  kHardwareId,         // the hp:v1 / hp:v2 id of a profile
};

// Every remedy, in declaration order (for tests and tools that list them).
inline constexpr Remedy kRemedies[] = {
    Remedy::kInit,
    Remedy::kStatusWritable,
    Remedy::kMigrate,
    Remedy::kMigrateDryRun,
    Remedy::kMigrateAccept,
    Remedy::kMigrateWithPools,
    Remedy::kCheck,
    Remedy::kRefresh,
    Remedy::kRefreshRebuild,
    Remedy::kCopy,
    Remedy::kConfigList,
    Remedy::kPoolsImport,
    Remedy::kCatalogList,
    Remedy::kCatalogImport,
    Remedy::kQuarantineList,
    Remedy::kQuarantineResolve,
    Remedy::kRouteConfigImport,
    Remedy::kHardwareId,
};

// Whose words messages use.
enum class RemedyHost { kCli, kPython, kCpp };

// Sets the host for every message made after it in this process (the CLI's
// words until then). The Python module sets kPython when it is imported; a C++
// host may set kCpp. Thread-safe.
HWREC_EXPORT void SetRemedyHost(RemedyHost host);
HWREC_EXPORT RemedyHost CurrentRemedyHost();

// The remedy in `host`'s words, in backticks, naming `store` where the remedy
// takes one (a path or location as the caller gave it; empty: a placeholder).
HWREC_EXPORT std::string RemedyText(Remedy remedy, RemedyHost host, std::string_view store = {});
// The same in the current host's words.
HWREC_EXPORT std::string RemedyText(Remedy remedy, std::string_view store = {});

// A stable name of the remedy ("pools_import"), for tests and tools.
HWREC_EXPORT std::string_view ToString(Remedy remedy);

}  // namespace hwrec
