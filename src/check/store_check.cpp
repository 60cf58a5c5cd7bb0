// `hwrec check`: opens the store read-only and runs every check on it
// (file_checks.cpp, derived_checks.cpp), each on its own so that one that
// cannot finish does not stop the others. Which storage checks apply, and
// how a damaged store is restored, is the engine's (store::Inspection): on
// PostgreSQL integrity and foreign keys are the server's own and skipped.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <tuple>

#include "base/enum_names.h"
#include "base/text.h"
#include "check/findings.h"
#include "hwrec/check.h"
#include "hwrec/remedy.h"
#include "hwrec/store.h"
#include "hwrec/store_location.h"
#include "store/backup.h"
#include "store/guarded.h"
#include "store/inspection.h"

namespace hwrec {

namespace {

using internal::CheckBody;
using internal::Findings;

// Runs one check. A page SQLite cannot read while checking is a problem of
// the check, not a reason to stop the others.
CheckResult RunCheck(store::Inspection& file, const std::string& name, const std::string& summary,
                     const std::string& fix, std::size_t max_problems, const CheckBody& body) {
  CheckResult result;
  result.name = name;
  result.summary = summary;
  Findings findings(&result, max_problems);
  try {
    const std::unique_ptr<store::ReadSnapshot> snapshot = file.CheckSnapshot();
    body(file, &result, &findings);
  } catch (const std::exception& e) {
    findings.Add(
        internal::IsDamage(e)
            ? fmt::format("could not finish: it met a page SQLite cannot read ({})", e.what())
            : fmt::format("could not finish: {}", e.what()));
  }
  if (result.state == CheckState::kOk && result.problem_count > 0)
    result.state = CheckState::kProblem;
  if (result.state == CheckState::kProblem) result.fix = fix;
  return result;
}

// Fixes name the store ({0}) and where to restore it from ({1}).
std::string RebuildFix() {
  return "the observations are the record: once the other checks are ok, " +
         RemedyText(Remedy::kRefreshRebuild, "{0}") +
         " rebuilds the aggregates and recommendations from them";
}

// Opens `path` read-only as an hwrec store; fails naming why the checks cannot run.
Result<std::unique_ptr<store::Inspection>> OpenForCheck(const std::string& path) {
  if (IsPostgresqlLocation(path)) return store::Inspection::Open(path);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return Status::NotFound(fmt::format("{}: no such store (not a file)", path));
  }
  // A check never writes, so it cannot roll back what a killed writer left.
  const auto journal = std::filesystem::file_size(path + "-journal", ec);
  if (!ec && journal > 0) {
    return Status::ReadOnly(fmt::format(
        "{}: an interrupted write left {}-journal, which must be rolled back before the store "
        "can be checked: open it once for writing, not read-only ({}), as a user who can write "
        "the store, then check again",
        path, path, RemedyText(Remedy::kStatusWritable, path)));
  }
  auto file = store::Inspection::Open(path);
  if (file.ok() && !(*file)->has_bookkeeping()) {
    return Status::InvalidArgument(fmt::format(
        "{}: not an hwrec store (it has no schema_migrations table): check the path", path));
  }
  return file;
}

CheckResult Skipped(const std::string& name, std::string summary) {
  return CheckResult{name, std::move(summary), CheckState::kSkipped, {}, 0, ""};
}

// Each check's name, spelled here only: RunChecks runs them, CheckNames lists
// them for StoreCheckOptions::only.
constexpr char kIntegrity[] = "integrity";
constexpr char kForeignKeys[] = "foreign_keys";
constexpr char kSchema[] = "schema";
constexpr char kAggregates[] = "aggregates";
constexpr char kRecommendations[] = "recommendations";

// Every check's name, in the order they run.
const std::vector<std::string>& CheckNames() {
  static const std::vector<std::string> names = {kIntegrity, kForeignKeys, kSchema, kAggregates,
                                                 kRecommendations};
  return names;
}

std::vector<CheckResult> RunChecks(store::Inspection& file, const StoreCheckOptions& options) {
  const std::size_t n = options.max_problems;
  std::vector<CheckResult> checks;
  const auto wanted = [&](const std::string& name) {
    return options.only.empty() ||
           std::find(options.only.begin(), options.only.end(), name) != options.only.end();
  };
  const auto run = [&](const std::string& name, const std::string& summary, const std::string& fix,
                       const CheckBody& body) {
    if (wanted(name)) checks.push_back(RunCheck(file, name, summary, fix, n, body));
  };
  const auto skip = [&](const std::string& name, std::string summary) {
    if (wanted(name)) checks.push_back(Skipped(name, std::move(summary)));
  };
  for (auto [name, check] : {std::pair{kIntegrity, store::StorageCheck::kIntegrity},
                             std::pair{kForeignKeys, store::StorageCheck::kForeignKeys}}) {
    const store::StorageCheckPlan plan = file.Plan(check);
    if (!plan.applies) {
      skip(name, plan.summary);
      continue;
    }
    run(name, plan.summary, file.RestoreFix(),
        [check = check](store::Inspection& f, CheckResult*, Findings* findings) {
          internal::CheckStorage(f, check, findings);
        });
  }
  run(kSchema, file.SchemaCheckSummary(), file.RestoreFix(), internal::CheckSchema);
  const int version = file.SchemaVersion();
  for (auto [name, summary, body] :
       {std::tuple{kAggregates, "every aggregate equals a rebuild from the observations",
                   &internal::CheckAggregates},
        std::tuple{kRecommendations, "recommendations name workloads and count their executions",
                   &internal::CheckRecommendations}}) {
    if (version != Store::LatestSchemaVersion()) {
      skip(name, fmt::format("skipped: the store is at schema {}, this build "
                             "checks schema {}: run {} first",
                             version, Store::LatestSchemaVersion(), RemedyText(Remedy::kMigrate)));
      continue;
    }
    run(name, summary, RebuildFix(), body);
  }
  return checks;
}

constexpr internal::EnumName<CheckState> kCheckStateNames[] = {
    {CheckState::kOk, "ok"},
    {CheckState::kProblem, "problem"},
    {CheckState::kSkipped, "skipped"},
};

}  // namespace

std::string_view ToString(CheckState state) {
  return internal::NameOf(kCheckStateNames, state, "?");
}

bool StoreCheckReport::sound() const {
  for (const CheckResult& check : checks) {
    if (check.state == CheckState::kProblem) return false;
  }
  return true;
}

Result<StoreCheckReport> CheckStore(const std::string& path, const StoreCheckOptions& options) {
  const std::string printable = PrintableLocation(path);  // never a password
  for (const std::string& name : options.only) {
    if (std::find(CheckNames().begin(), CheckNames().end(), name) == CheckNames().end()) {
      return Status::InvalidArgument(fmt::format("only: '{}' is no check: name one of {}", name,
                                                 internal::JoinOr(CheckNames())));
    }
  }
  return internal::Guarded(printable, [&]() -> Result<StoreCheckReport> {
    auto file = OpenForCheck(path);
    if (!file.ok()) return file.status();
    StoreCheckReport report;
    report.path = printable;
    if (!IsPostgresqlLocation(path)) report.newest_backup = internal::NewestBackup(path);
    report.checks = RunChecks(**file, options);
    const std::string backup = report.newest_backup.empty()
                                   ? std::string("a backup")
                                   : "its newest backup, " + report.newest_backup;
    for (CheckResult& check : report.checks) {
      if (!check.fix.empty()) check.fix = fmt::format(fmt::runtime(check.fix), printable, backup);
    }
    return report;
  });
}

}  // namespace hwrec
