// RecordedOutcomes: what a dispatcher saw on each rung it tried, given to
// `hwrec route --record` as JSON lines ({"rung": ID, "outcome": NAME,
// "detail": TEXT}), checked against the dispatch's ladder, and the launcher
// that answers the ladder walk from them. Single-threaded, like the CLI.
#pragma once

#include <string>
#include <vector>

#include "hwrec/ladder.h"
#include "hwrec/ladder_walk.h"

namespace hwrec::cli {

class RecordedOutcomes {
 public:
  // Reads the lines of `text` (from `source`: a file name or "stdin"). Throws
  // std::runtime_error naming the source, the line, the field and the fix for
  // a line that is not such an object, an unknown outcome, a rung given twice
  // or no outcome at all.
  static RecordedOutcomes Parse(const std::string& text, const std::string& source);

  // Throws std::runtime_error, naming the line and the rungs to use, when an
  // outcome names a rung that is not on `plan`'s ladder.
  void CheckAgainst(const RoutePlan& plan) const;

  // The recorded outcome of `rung`; kNotTried for a rung no outcome was
  // recorded for (the walk ends there, or keeps the day's skip of it).
  LaunchResult Launch(const Rung& rung) const;

  // "<source> line N: …" for each outcome the walk never asked for: it ended
  // before that rung (a launch, a stop or a rung not tried came first). A
  // `not_tried` line always agrees. `hwrec route --record` then writes nothing.
  std::vector<std::string> Unused(const RouteResult& result) const;

 private:
  struct Entry {
    std::string rung;
    LaunchResult result;
    int line = 0;
  };
  const Entry* Find(const std::string& rung) const;

  std::string source_;
  std::vector<Entry> entries_;
};

}  // namespace hwrec::cli
