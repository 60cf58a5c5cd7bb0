#include "hwrec/config.h"

#include <fmt/format.h>

#include <optional>

#include "aggregate/aggregator.h"
#include "aggregate/config_table.h"
#include "aggregate/settings.h"
#include "hwrec/remedy.h"
#include "hwrec/store.h"
#include "recommend/materialize.h"
#include "store/database.h"
#include "store/guarded.h"

namespace hwrec {

namespace {

ConfigEntry EntryOf(store::Connection& db, const internal::ConfigKey& k) {
  ConfigEntry entry;
  entry.key = k.key;
  entry.default_value = k.default_value;
  entry.description = k.description;
  entry.value = internal::ReadConfigValue(db, k.key).value_or(k.default_value);
  return entry;
}

}  // namespace

Result<std::vector<ConfigEntry>> ListConfig(const Store& store) {
  return internal::Guarded(store.path(), [&]() -> Result<std::vector<ConfigEntry>> {
    store::Connection& db = store::ConnectionOf(store);
    std::vector<ConfigEntry> entries;
    for (const internal::ConfigKey& k : internal::ConfigKeys()) entries.push_back(EntryOf(db, k));
    return entries;
  });
}

Result<ConfigEntry> GetConfig(const Store& store, const std::string& key) {
  const internal::ConfigKey* known = internal::FindConfigKey(key);
  if (known == nullptr) {
    return Status::NotFound(fmt::format("unknown config key '{}': see {} for the keys", key,
                                        RemedyText(Remedy::kConfigList)));
  }
  return internal::Guarded(store.path(), [&]() -> Result<ConfigEntry> {
    return EntryOf(store::ConnectionOf(store), *known);
  });
}

Status CheckConfigValue(const std::string& key, const std::string& value) {
  return internal::ValidateConfigValue(key, value);
}

Status SetConfig(Store& store, const std::string& key, const std::string& value) {
  if (Status valid = internal::ValidateConfigValue(key, value); !valid.ok()) return valid;
  if (Status writable = store.CheckWritable(); !writable.ok()) return writable;
  const internal::ConfigKey* known = internal::FindConfigKey(key);
  // The value, the aggregates it shapes and the recommendations derived from
  // them change together or not at all (placement's defaults shape neither).
  const std::string what =
      fmt::format("{}: setting {} to '{}' failed and changed nothing", store.path(), key, value);
  return internal::Guarded(what, [&]() -> Status {
    store::Connection& db = store::ConnectionOf(store);
    return store::RunWrite(db, [&]() -> Status {
      // A value that reshapes every workload's figures waits for the ingest
      // batches merging aggregates, and keeps new ones waiting until it is set.
      std::optional<store::AllWorkloadsLock> all;
      if (known->shapes_aggregates || known->shapes_figures) all.emplace(db);
      store::WriteTransaction tx(db);
      internal::WriteConfigValue(db, key, value, known->description);
      if (known->shapes_aggregates) {
        internal::RebuildAggregates(db, internal::LoadSettings(db));
      }
      if (known->shapes_figures) internal::RefreshAllRecommendations(db);
      tx.Commit();
      return Status::Ok();
    });
  });
}

}  // namespace hwrec
