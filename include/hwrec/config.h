// Store configuration: the estimator settings behind recommendations (DESIGN §6)
// and ingest's fallback compute slices, kept in the store's `config` table so
// that every process reading the store agrees. Values are validated on set.
#pragma once

#include <string>
#include <vector>

#include "hwrec/export.h"
#include "hwrec/status.h"

namespace hwrec {

class Store;

struct HWREC_EXPORT ConfigEntry {
  std::string key;
  std::string value;
  std::string default_value;
  std::string description;
};

// Every known key with its current value, in a stable order. Returns
// kIoError when the store cannot be read.
HWREC_EXPORT Result<std::vector<ConfigEntry>> ListConfig(const Store& store);
// One key with its current value. Returns kNotFound for an unknown key,
// kIoError when the store cannot be read.
HWREC_EXPORT Result<ConfigEntry> GetConfig(const Store& store, const std::string& key);
// Whether `value` is a valid value of `key`, without a store: the error names
// the key and the values it takes. Returns kInvalidArgument for an unknown key
// or a bad value.
HWREC_EXPORT Status CheckConfigValue(const std::string& key, const std::string& value);
// Validates and stores one value, and refreshes the materialised
// recommendations. Unknown keys and bad values are refused with the allowed
// range. Keys that shape stored aggregates (half_life_hours,
// max_range_samples) rebuild them from the observations. Value, aggregates and
// recommendations change in one transaction: on failure nothing changed.
// Returns kInvalidArgument for an unknown key or a value out of range,
// kReadOnly for a store opened read-only, kIoError when it cannot be written.
HWREC_EXPORT Status SetConfig(Store& store, const std::string& key, const std::string& value);

}  // namespace hwrec
