#include <fmt/format.h>

#include <ctime>
#include <nlohmann/json.hpp>

#include "base/time.h"
#include "hwrec/ladder.h"
#include "hwrec/ladder_walk.h"
#include "hwrec/router.h"
#include "hwrec/simulated_capacity.h"

namespace hwrec {

namespace {

using Json = nlohmann::ordered_json;

// '*' matches any run of characters, '/' included.
bool Glob(std::string_view pattern, std::string_view text) {
  if (pattern.empty()) return text.empty();
  if (pattern.front() == '*') {
    for (std::size_t i = 0; i <= text.size(); ++i) {
      if (Glob(pattern.substr(1), text.substr(i))) return true;
    }
    return false;
  }
  return !text.empty() && pattern.front() == text.front() &&
         Glob(pattern.substr(1), text.substr(1));
}

// One member of the capacity object; an error's text without the `what` prefix.
std::optional<std::string> ReadMember(const std::string& key, const Json& value,
                                      SimulatedCapacity* capacity) {
  if (key == "available" && value.is_array()) {
    for (const Json& p : value) {
      if (!p.is_string()) return "available must list rung ids or patterns (strings)";
      capacity->available.push_back(p.get<std::string>());
    }
  } else if (key == "failures" && value.is_object()) {
    for (auto f = value.begin(); f != value.end(); ++f) {
      const auto outcome =
          f->is_string() ? ParseLaunchOutcome(f->get<std::string>()) : std::nullopt;
      // A simulated launcher tries every rung it reaches: "launched" is what
      // `available` says, and "not_tried" belongs to a recorded walk.
      if (!outcome || *outcome == LaunchOutcome::kLaunched ||
          *outcome == LaunchOutcome::kNotTried) {
        return fmt::format(
            "failures '{}' must be capacity_miss, quota_exceeded, config_error, "
            "permission_error or workload_failure (a launch is listed under available; "
            "not_tried is for a recorded walk)",
            f.key());
      }
      capacity->failures.emplace_back(f.key(), *outcome);
    }
  } else if (key == "day" && value.is_string()) {
    const std::string& day = value.get_ref<const std::string&>();
    capacity->now = internal::UtcNoonOfDay(day);
    if (!capacity->now)
      return fmt::format("day '{}' is not a UTC calendar date: use YYYY-MM-DD, from 1970 on", day);
  } else {
    return fmt::format(
        "'{}' is not understood: use available (array), failures (object) or day (YYYY-MM-DD)",
        key);
  }
  return std::nullopt;
}

}  // namespace

Result<SimulatedCapacity> ParseSimulatedCapacity(std::string_view json, const std::string& what) {
  const Json doc = Json::parse(json.begin(), json.end(), nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    return Status::InvalidArgument(fmt::format("{}: not a JSON object: check its syntax", what));
  }
  SimulatedCapacity capacity;
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    if (auto problem = ReadMember(it.key(), *it, &capacity)) {
      return Status::InvalidArgument(fmt::format("{}: {}", what, *problem));
    }
  }
  return capacity;
}

LaunchResult SimulateLaunch(const SimulatedCapacity& capacity, const Rung& rung) {
  for (const auto& [pattern, outcome] : capacity.failures) {
    if (Glob(pattern, rung.id)) return {outcome, fmt::format("simulated ({})", pattern)};
  }
  for (const std::string& pattern : capacity.available) {
    if (Glob(pattern, rung.id)) return {LaunchOutcome::kLaunched, "simulated"};
  }
  return {LaunchOutcome::kCapacityMiss, "simulated: no capacity"};
}

}  // namespace hwrec
