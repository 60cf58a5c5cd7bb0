// The store's `config` table (key, value, description): every setting a
// store keeps, the estimator's (aggregate/settings.h, `hwrec config`) and the
// router's (keys under kRouterConfigPrefix, `hwrec route config`). This file
// is the only code that reads or writes the table; callers run inside their
// own transaction when they need one. Throws on an engine failure.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "store/database.h"

namespace hwrec::internal {

// The router's settings are stored as "router.<name>"; the router reads and
// writes them by <name>.
inline constexpr std::string_view kRouterConfigPrefix = "router.";

// The value stored for `key`; nullopt when the table has no such row.
std::optional<std::string> ReadConfigValue(store::Connection& db, std::string_view key);

// Every row (key, value) whose key starts with `prefix`, by key, with the
// prefix taken off.
std::vector<std::pair<std::string, std::string>> ReadConfigRows(store::Connection& db,
                                                                std::string_view prefix = "");

// Stores `value` for `key`: a new row gets `description`, a row already there
// keeps its own.
void WriteConfigValue(store::Connection& db, std::string_view key, std::string_view value,
                      std::string_view description);

// Changes the value of an existing row; false when `key` has no row.
bool UpdateConfigValue(store::Connection& db, std::string_view key, std::string_view value);

}  // namespace hwrec::internal
