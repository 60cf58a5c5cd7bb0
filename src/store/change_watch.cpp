#include "store/change_watch.h"

#include <string_view>

#include "store/combined_read.h"

namespace hwrec::store {

namespace {
constexpr std::string_view kAreaNames[kChangeAreaCount] = {"pools", "catalog", "settings"};
}  // namespace

ChangeWatch::ChangeWatch(Connection& db) : db_(db) {}
ChangeWatch::~ChangeWatch() = default;

std::optional<ChangeWatch::Counters> ChangeWatch::ReadCounters() {
  if (!counters_) {
    // A failed statement would end a PostgreSQL transaction: ask first.
    if (!db_.HasTable("store_changes")) return std::nullopt;
    counters_ = db_.Prepare("SELECT area, counter FROM store_changes");
  }
  Counters counters{};
  Statement& read = *counters_;
  read.Reset();
  while (read.Step()) {
    const std::string_view area = read.Text(0);
    for (std::size_t a = 0; a < kChangeAreaCount; ++a) {
      if (area == kAreaNames[a]) counters[a] = read.Int64(1);
    }
  }
  read.Reset();  // an unfinished statement would hold its read transaction open
  return counters;
}

StoreChanges ChangeWatch::Poll() {
  const std::optional<Connection::Version> version = db_.DataVersion();
  if (version && seen_ && version == seen_version_) return pending_;  // nothing committed since
  // The version and the counters are of one snapshot: the caller's.
  return Compare(ReadCounters(), version);
}

void ChangeWatch::TakeCounterRow(const Statement& row) {
  const std::string_view area = row.Text(combined::kText0);
  for (std::size_t a = 0; a < kChangeAreaCount; ++a) {
    if (area == kAreaNames[a]) combined_[a] = row.Int64(combined::kInt0);
  }
}

StoreChanges ChangeWatch::PollCombined() {
  const Counters counters = combined_;
  combined_ = Counters{};
  return Compare(counters, std::nullopt);
}

StoreChanges ChangeWatch::Compare(const std::optional<Counters>& counters,
                                  std::optional<Connection::Version> version) {
  for (std::size_t a = 0; a < kChangeAreaCount; ++a) {
    if (!counters || !seen_ || (*counters)[a] != (*seen_)[a]) pending_.changed[a] = true;
  }
  seen_ = counters;
  seen_version_ = counters ? version : std::nullopt;  // no counters: look again next time
  return pending_;
}

}  // namespace hwrec::store
