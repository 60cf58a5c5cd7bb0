#include "hwrec/config.h"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>

#include "hwrec/store.h"
#include "aggregate/aggregator.h"
#include "recommend/recommend_internal.h"
#include "aggregate/settings.h"
#include "store/sqlite_util.h"

namespace hwrec {

namespace {

std::optional<std::string> StoredValue(SQLite::Database& db, const std::string& key) {
  SQLite::Statement query(db, "SELECT value FROM config WHERE key = ?");
  query.bind(1, key);
  if (!query.executeStep()) return std::nullopt;
  return query.getColumn(0).getString();
}

ConfigEntry EntryOf(SQLite::Database& db, const internal::ConfigKey& k) {
  ConfigEntry entry;
  entry.key = k.key;
  entry.default_value = k.default_value;
  entry.description = k.description;
  entry.value = StoredValue(db, k.key).value_or(k.default_value);
  return entry;
}

}  // namespace

Result<std::vector<ConfigEntry>> ListConfig(const Store& store) {
  return internal::Guarded(store.path(), [&]() -> Result<std::vector<ConfigEntry>> {
    SQLite::Database& db = internal::StoreAccess::Db(store);
    std::vector<ConfigEntry> entries;
    for (const internal::ConfigKey& k : internal::ConfigKeys()) entries.push_back(EntryOf(db, k));
    return entries;
  });
}

Result<ConfigEntry> GetConfig(const Store& store, const std::string& key) {
  const internal::ConfigKey* known = internal::FindConfigKey(key);
  if (known == nullptr) {
    return Status::NotFound(
        fmt::format("unknown config key '{}': see `hwrec config list` for the keys", key));
  }
  return internal::Guarded(store.path(), [&]() -> Result<ConfigEntry> {
    return EntryOf(internal::StoreAccess::Db(store), *known);
  });
}

Status SetConfig(Store& store, const std::string& key, const std::string& value) {
  if (Status valid = internal::ValidateConfigValue(key, value); !valid.ok()) return valid;
  if (Status writable = store.CheckWritable(); !writable.ok()) return writable;
  const internal::ConfigKey* known = internal::FindConfigKey(key);
  // The value, the aggregates it shapes and the recommendations derived from
  // them change together or not at all.
  const std::string what =
      fmt::format("{}: setting {} to '{}' failed and changed nothing", store.path(), key, value);
  return internal::Guarded(what, [&]() -> Status {
    SQLite::Database& db = internal::StoreAccess::Db(store);
    internal::WriteTransaction tx(db);
    SQLite::Statement upsert(db,
                             "INSERT INTO config (key, value, description) VALUES (?, ?, ?) "
                             "ON CONFLICT (key) DO UPDATE SET value = excluded.value");
    upsert.bind(1, key);
    upsert.bind(2, value);
    upsert.bind(3, known->description);
    upsert.exec();
    if (known->shapes_aggregates) {
      internal::RebuildAggregates(db, internal::LoadSettings(db));
    }
    internal::RefreshAllRecommendations(db);
    tx.Commit();
    return Status::Ok();
  });
}

}  // namespace hwrec
