// RecordedOutcomes: the outcomes `hwrec route --record` reads, as a launcher.
#include "route_outcomes.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "common/plain_text.h"

namespace hwrec::cli {

namespace {

constexpr const char* kLineShape =
    R"(give one JSON object per line: {"rung": "gcp/a2-ultragpu-8g/spot", )"
    R"("outcome": "capacity_miss", "detail": "…"})";

constexpr const char* kOutcomeNames =
    "launched, capacity_miss, quota_exceeded, config_error, permission_error, workload_failure "
    "or not_tried";

std::string StringField(const nlohmann::json& line, const char* field, const std::string& where,
                        bool required) {
  const auto it = line.find(field);
  if (it == line.end()) {
    if (!required) return "";
    throw std::runtime_error(fmt::format("{}: \"{}\" is missing: {}", where, field, kLineShape));
  }
  if (!it->is_string()) {
    throw std::runtime_error(
        fmt::format("{}: \"{}\" must be a string: {}", where, field, kLineShape));
  }
  return it->get<std::string>();
}

}  // namespace

RecordedOutcomes RecordedOutcomes::Parse(const std::string& text, const std::string& source) {
  RecordedOutcomes out;
  out.source_ = source;
  std::istringstream in(text);
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (tools::IsBlank(line)) continue;
    const std::string where = fmt::format("{} line {}", source, number);
    const nlohmann::json parsed = nlohmann::json::parse(line, nullptr, false);
    if (!parsed.is_object()) {
      throw std::runtime_error(fmt::format("{}: not a JSON object: {}", where, kLineShape));
    }
    for (const auto& item : parsed.items()) {
      if (item.key() != "rung" && item.key() != "outcome" && item.key() != "detail") {
        throw std::runtime_error(fmt::format(
            "{}: unknown field \"{}\": use rung, outcome and detail", where, item.key()));
      }
    }
    Entry entry;
    entry.line = number;
    entry.rung = StringField(parsed, "rung", where, true);
    const std::string outcome = StringField(parsed, "outcome", where, true);
    const auto launch = ParseLaunchOutcome(outcome);
    if (!launch) {
      throw std::runtime_error(fmt::format("{}: \"outcome\" '{}' is not a launch outcome: use {}",
                                           where, outcome, kOutcomeNames));
    }
    entry.result = {*launch, StringField(parsed, "detail", where, false)};
    if (const Entry* earlier = out.Find(entry.rung)) {
      throw std::runtime_error(
          fmt::format("{}: rung '{}' is given twice (lines {} and {}): give each rung one outcome",
                      where, entry.rung, earlier->line, number));
    }
    out.entries_.push_back(std::move(entry));
  }
  if (out.entries_.empty()) {
    throw std::runtime_error(
        fmt::format("{}: no outcomes: {}, one per rung tried", source, kLineShape));
  }
  return out;
}

void RecordedOutcomes::CheckAgainst(const RoutePlan& plan) const {
  std::vector<std::string> ids;
  for (const Rung& rung : plan.ladder) ids.push_back(rung.id);
  for (const Entry& entry : entries_) {
    bool listed = false;
    for (const std::string& id : ids) listed = listed || id == entry.rung;
    if (listed) continue;
    std::string why = "is not on this dispatch's ladder";
    for (const PrunedRung& pruned : plan.pruned) {
      if (pruned.id == entry.rung)
        why = fmt::format("was pruned from this ladder ({})", pruned.reason);
    }
    throw std::runtime_error(fmt::format("{} line {}: \"rung\" '{}' {}: use {}", source_,
                                         entry.line, entry.rung, why, tools::JoinOr(ids)));
  }
}

LaunchResult RecordedOutcomes::Launch(const Rung& rung) const {
  if (const Entry* entry = Find(rung.id)) return entry->result;
  return {LaunchOutcome::kNotTried, "no outcome was recorded for this rung: the walk ends here"};
}

std::vector<std::string> RecordedOutcomes::Unused(const RouteResult& result) const {
  std::vector<std::string> unused;
  for (const Entry& entry : entries_) {
    // "Not tried" agrees with any walk that did not launch the rung.
    if (entry.result.outcome == LaunchOutcome::kNotTried) continue;
    bool reached = false;
    for (const RouteAttempt& attempt : result.attempts) {
      reached = reached || attempt.rung.id == entry.rung;
    }
    if (reached) continue;  // the walk asked for it, and took the outcome as given
    const std::string ended =
        result.attempts.empty()
            ? std::string("the walk reached no rung")
            : fmt::format("the walk ended at '{}' ({}), before that rung",
                          result.attempts.back().rung.id, ToString(result.attempts.back().outcome));
    unused.push_back(fmt::format("{} line {}: the outcome of '{}' cannot have happened: {}",
                                 source_, entry.line, entry.rung, ended));
  }
  return unused;
}

const RecordedOutcomes::Entry* RecordedOutcomes::Find(const std::string& rung) const {
  for (const Entry& entry : entries_) {
    if (entry.rung == rung) return &entry;
  }
  return nullptr;
}

}  // namespace hwrec::cli
