#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <string>

#include "base/json_entry.h"
#include "base/status_error.h"

using hwrec::internal::JsonEntry;
using hwrec::internal::StatusError;

namespace {

// The message of the StatusError `read` throws, or "" when it throws none.
template <typename Fn>
std::string ErrorOf(Fn&& read) {
  try {
    read();
  } catch (const StatusError& e) {
    CHECK(e.status().code() == hwrec::StatusCode::kInvalidArgument);
    return e.status().message();
  }
  return "";
}

}  // namespace

TEST_CASE("json entry: typed reads return the value", "[json_entry]") {
  const auto object = nlohmann::ordered_json::parse(
      R"({"name": "a100", "count": 4, "memory_gb": 80.5, "zones": [], "limits": {}})");
  const JsonEntry entry(object, "gcp_machines[0]");
  CHECK(entry.String("name") == "a100");
  CHECK(entry.Int("count") == 4);
  CHECK(entry.Int64("count") == 4);
  CHECK(entry.Number("memory_gb") == 80.5);
  CHECK(entry.Number("count") == 4);
  CHECK(entry.Array("zones").empty());
  CHECK(entry.Object("limits").empty());
  CHECK_FALSE(entry.OptionalString("absent").has_value());
  CHECK(entry.OptionalInt64("count") == 4);
}

TEST_CASE("json entry: errors name the entry and the field", "[json_entry]") {
  const auto object = nlohmann::ordered_json::parse(
      R"({"name": 7, "count": 1.5, "memory_gb": "80", "zones": {}, "limits": [], "nil": null})");
  const JsonEntry entry(object, "gcp_machines[2]");
  CHECK(ErrorOf([&] { (void)entry.String("name"); }) == "gcp_machines[2]: name must be a string");
  CHECK(ErrorOf([&] { (void)entry.Int("count"); }) ==
        "gcp_machines[2]: count must be a whole number");
  CHECK(ErrorOf([&] { (void)entry.Number("memory_gb"); }) ==
        "gcp_machines[2]: memory_gb must be a number");
  CHECK(ErrorOf([&] { (void)entry.Array("zones"); }) == "gcp_machines[2]: zones must be an array");
  CHECK(ErrorOf([&] { (void)entry.Object("limits"); }) ==
        "gcp_machines[2]: limits must be an object");
  CHECK(ErrorOf([&] { (void)entry.Field("nil"); }) ==
        "gcp_machines[2]: nil is missing: it is required");
  CHECK(ErrorOf([&] {
          entry.OnlyKnown({"name", "count", "memory_gb", "zones", "limits"});
        }) == "gcp_machines[2]: 'nil' is not a known field: check its spelling");
  CHECK(ErrorOf([&] {
          entry.OnlyKnown({"name", "count", "memory_gb", "zones", "limits"}, {"nil"});
        }).empty());
}
