// What the store layer knows of the legacy (schema 1, site-keyed) history its
// schema still holds in site_observations: how many rows are there, and the
// words that refuse to write or migrate such a store without consent. Moving
// that history belongs to src/legacy/; the store only refuses to go past it.
#pragma once

#include <cstdint>
#include <string>

#include "store/database.h"

namespace hwrec::internal {

// Rows in the legacy site_observations table; 0 when the store has none.
std::int64_t LegacyRowCount(store::Connection& db);

// What the hp:v2 bump does, in words, and how to preview and accept it
// (the text of the public LegacyConsentMessage).
std::string LegacyConsentText(const std::string& path, std::int64_t legacy_rows);

}  // namespace hwrec::internal
