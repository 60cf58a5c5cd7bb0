// hwrec check: whether a store is sound (SQLite's integrity and foreign-key
// checks, and hwrec's own invariants), as a report and an exit code.
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "hwrec/check.h"
#include "hwrec/store_location.h"

#include "cli.h"
#include "commands.h"

namespace hwrec::cli {

namespace {

const char* const kCheckUsage =
    "hwrec check STORE [--format table|json]\n\n"
    "Checks the store without changing it: SQLite's integrity_check and foreign_key_check,\n"
    "the applied migrations and the schema, every aggregate against a rebuild from the\n"
    "observations, and the recommendations against the workloads. Exits 0 when the store is\n"
    "sound, 4 when a check found a problem, 1 when the checks could not run.";

void PrintTable(const StoreCheckReport& report) {
  std::cout << fmt::format("store: {}\n\n", report.path);
  Table table({"check", "result", "what"});
  for (const CheckResult& c : report.checks) {
    table.AddRow({c.name, std::string(ToString(c.state)), c.summary});
  }
  table.Print(std::cout);
  for (const CheckResult& c : report.checks) {
    if (c.state != CheckState::kProblem) continue;
    std::cout << fmt::format("\n{}: {} problem(s)\n", c.name, c.problem_count);
    for (const std::string& problem : c.problems) std::cout << fmt::format("  - {}\n", problem);
    const auto unlisted = c.problem_count - static_cast<std::int64_t>(c.problems.size());
    if (unlisted > 0) std::cout << fmt::format("  … and {} more\n", unlisted);
    std::cout << fmt::format("  fix: {}\n", c.fix);
  }
  std::cout << (report.sound() ? "\nthe store is sound\n"
                               : "\nthe store has problems: see above\n");
}

void PrintJson(const StoreCheckReport& report) {
  nlohmann::ordered_json out;
  out["path"] = report.path;
  out["sound"] = report.sound();
  out["newest_backup"] = report.newest_backup.empty()
                             ? nlohmann::ordered_json()
                             : nlohmann::ordered_json(report.newest_backup);
  out["checks"] = nlohmann::ordered_json::array();
  for (const CheckResult& c : report.checks) {
    out["checks"].push_back(
        {{"name", c.name},
         {"result", ToString(c.state)},
         {"summary", c.summary},
         {"problem_count", c.problem_count},
         {"problems", c.problems},
         {"fix", c.fix.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(c.fix)}});
  }
  std::cout << out.dump(2) << "\n";
}

}  // namespace

int RunCheck(const std::vector<std::string>& args) {
  const auto parsed = ParseStoreAndFormat(args, kCheckUsage, kStorePathHelp, kStoreRequired, false);
  if (!parsed) return kExitOk;
  auto report = CheckStore(parsed->store);
  if (!report.ok()) return Fail(report.status());
  if (parsed->format == Format::kJson) {
    PrintJson(*report);
  } else {
    PrintTable(*report);
  }
  return report->sound() ? kExitOk : kExitDamaged;
}

}  // namespace hwrec::cli
