// The pieces every translation of a Runner record is made of: reading the
// Runner's numbers (units, whole numbers, numbers sent as strings) and copying
// its fields into hwrec's form while noting which Runner field each came from
// (record/runner_records.h). Pure functions.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hwrec/record_error.h"
#include "record/runner_records.h"

namespace hwrec::internal {

// One Runner record in translation: hwrec's form as it is built, the errors
// so far, and where each field came from.
struct RunnerTranslation {
  nlohmann::json hwrec = nlohmann::json::object();  // the record in hwrec's form
  std::vector<RecordError> errors;                  // named by the Runner's fields
  std::vector<RecordError> unknown;                 // unknown Runner fields, closest known name
  RunnerFieldNames names;
};

// Whole numbers beyond this are not sizes or counts a machine has.
inline constexpr double kMaxWhole = 9.0e18;

// The value at `key` when present and not null.
const nlohmann::json* Member(const nlohmann::json& object, std::string_view key);

// Reads a non-negative number of `unit` at `key` (also a whole number sent as
// a string of digits); errors name `prefix` + key and the unit. Absent or null
// leaves `out` unset.
std::optional<RecordError> ReadNumber(const nlohmann::json& object, const std::string& prefix,
                                      std::string_view key, std::string_view unit,
                                      std::optional<double>* out);
// A whole number of `unit`: counts must be whole; bytes are rounded.
std::optional<RecordError> ReadWhole(const nlohmann::json& object, const std::string& prefix,
                                     std::string_view key, std::string_view unit, bool round,
                                     std::optional<std::int64_t>* out);

// Sets hwrec's field `to` ("hardware.gpu_mode" nests) in `t->hwrec`.
void Put(RunnerTranslation* t, const std::string& to, nlohmann::json value);
// Copies `key` as sent into hwrec's field `to`; hwrec's parser then judges
// it, and its errors are renamed back.
void Copy(const nlohmann::json& from, std::string_view key, const std::string& to,
          RunnerTranslation* t, const std::string& prefix = "");
// Cores as millicores, rounded to the nearest one when `whole`.
void CoresToMillicores(const nlohmann::json& from, const std::string& prefix, std::string_view key,
                       const std::string& to, bool whole, RunnerTranslation* t);
// A whole number of `unit` (rounded when `round`) into hwrec's field `to`.
void Whole(const nlohmann::json& from, const std::string& prefix, std::string_view key,
           std::string_view unit, bool round, const std::string& to, RunnerTranslation* t);

}  // namespace hwrec::internal
