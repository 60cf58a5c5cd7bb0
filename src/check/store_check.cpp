#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <regex>
#include <stdexcept>
#include <unordered_map>

#include "hwrec/check.h"
#include "hwrec/recommend.h"
#include "hwrec/store.h"
#include "aggregate/aggregator.h"
#include "aggregate/settings.h"
#include "store/backup.h"
#include "store/migration.h"
#include "store/migrator.h"
#include "store/sqlite_util.h"
#include "store/store_file.h"

namespace hwrec {

namespace {

// Gathers one check's problems: all are counted, the first few are kept.
class Findings {
 public:
  Findings(CheckResult* result, std::size_t max_problems)
      : result_(result), max_problems_(max_problems) {}
  void Add(std::string problem) {
    if (result_->problems.size() < max_problems_) result_->problems.push_back(std::move(problem));
    ++result_->problem_count;
  }
  bool empty() const { return result_->problem_count == 0; }

 private:
  CheckResult* result_;
  std::size_t max_problems_;
};

using CheckBody = std::function<void(SQLite::Database&, CheckResult*, Findings*)>;

// Runs one check. A page SQLite cannot read while checking is a problem of
// the check, not a reason to stop the others.
CheckResult RunCheck(SQLite::Database& db, const std::string& name, const std::string& summary,
                     const std::string& fix, std::size_t max_problems, const CheckBody& body) {
  CheckResult result;
  result.name = name;
  result.summary = summary;
  Findings findings(&result, max_problems);
  try {
    body(db, &result, &findings);
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

// Root page -> table or index name, to say where SQLite's findings are.
std::map<long long, std::string> RootPages(SQLite::Database& db) {
  std::map<long long, std::string> pages;
  try {
    SQLite::Statement query(db, "SELECT rootpage, type || ' ' || name FROM sqlite_master");
    while (query.executeStep())
      pages[query.getColumn(0).getInt64()] = query.getColumn(1).getString();
  } catch (const SQLite::Exception&) {
    // The schema itself is unreadable: the findings stay as SQLite words them.
  }
  return pages;
}

// Adds what `PRAGMA integrity_check` (of one table, or of all) reports;
// throws when SQLite stops at a page it cannot read.
void IntegrityOf(SQLite::Database& db, const std::string& table,
                 const std::map<long long, std::string>& pages, Findings* findings) {
  const std::regex tree("Tree ([0-9]+)");
  // PRAGMA arguments cannot be bound; the name comes from sqlite_master, quoted.
  SQLite::Statement query(db, table.empty() ? std::string("PRAGMA integrity_check(10000)")
                                            : "PRAGMA integrity_check(\"" + table + "\")");
  while (query.executeStep()) {
    std::string line = query.getColumn(0).getString();
    if (line == "ok" || line.rfind("*** in database", 0) == 0) continue;
    std::smatch match;
    if (std::regex_search(line, match, tree)) {
      const auto at = pages.find(std::stoll(match[1].str()));
      if (at != pages.end()) line += fmt::format(" ({})", at->second);
    }
    findings->Add(table.empty() ? line : fmt::format("table {}: {}", table, line));
  }
}

void Integrity(SQLite::Database& db, CheckResult*, Findings* findings) {
  const auto pages = RootPages(db);
  try {
    IntegrityOf(db, "", pages, findings);
    return;
  } catch (const SQLite::Exception& e) {
    if (!internal::IsDamage(e)) throw;
  }
  // SQLite stopped at an unreadable page: table by table, to say where.
  bool named = false;
  for (const auto& [page, name] : pages) {
    if (name.rfind("table ", 0) != 0 || name.find('"') != std::string::npos) continue;
    const std::string table = name.substr(6);
    try {
      IntegrityOf(db, table, pages, findings);
    } catch (const SQLite::Exception& e) {
      findings->Add(fmt::format("table {} cannot be read: {}", table, e.what()));
      named = true;
    }
  }
  if (!named && findings->empty()) findings->Add("SQLite stopped at a page it cannot read");
}

void ForeignKeys(SQLite::Database& db, CheckResult*, Findings* findings) {
  SQLite::Statement query(db, "PRAGMA foreign_key_check");
  while (query.executeStep()) {
    const std::string row = query.getColumn(1).isNull()
                                ? std::string("a row")
                                : fmt::format("row {}", query.getColumn(1).getInt64());
    findings->Add(fmt::format("{} of {} names a {} row that does not exist", row,
                              query.getColumn(0).getString(), query.getColumn(2).getString()));
  }
}

// type+name -> SQL of every table, index, view and trigger.
std::map<std::string, std::string> SchemaObjects(SQLite::Database& db) {
  std::map<std::string, std::string> objects;
  SQLite::Statement query(db,
                          "SELECT type || ' ' || name, sql FROM sqlite_master WHERE sql IS NOT "
                          "NULL AND name NOT LIKE 'sqlite_%'");
  while (query.executeStep()) {
    objects[query.getColumn(0).getString()] = query.getColumn(1).getString();
  }
  return objects;
}

void Schema(SQLite::Database& db, CheckResult*, Findings* findings) {
  internal::Migrator migrator(db, internal::EmbeddedMigrations());
  if (Status s = migrator.Check(); !s.ok()) findings->Add(s.message());
  const int version = db.execAndGet("PRAGMA user_version").getInt();
  SQLite::Statement applied(db,
                            "SELECT count(*), coalesce(max(version), 0) FROM schema_migrations");
  applied.executeStep();
  if (applied.getColumn(1).getInt() != version || applied.getColumn(0).getInt() != version) {
    findings->Add(fmt::format(
        "PRAGMA user_version is {}, but schema_migrations records {} migration(s) up to {}",
        version, applied.getColumn(0).getInt(), applied.getColumn(1).getInt()));
  }
  if (version != Store::LatestSchemaVersion()) return;
  StoreOptions scratch;
  scratch.create_if_missing = true;
  auto fresh = Store::Open(":memory:", scratch);  // what this build's migrations create
  if (!fresh.ok()) throw std::runtime_error(fresh.status().message());
  const auto expected = SchemaObjects(internal::StoreAccess::Db(**fresh));
  const auto actual = SchemaObjects(db);
  for (const auto& [name, sql] : expected) {
    const auto at = actual.find(name);
    if (at == actual.end()) {
      findings->Add(fmt::format("{} is missing", name));
    } else if (at->second != sql) {
      findings->Add(fmt::format("{} differs from what the migrations create", name));
    }
  }
}

using internal::AggregateKey;
using internal::KeyAggregate;
using AggregateMap = std::unordered_map<AggregateKey, KeyAggregate, internal::AggregateKeyHash>;

// "workload 'registry/train:1', gpu_model nvidia/A100/-": a key as a person reads it.
std::string KeyLabel(SQLite::Database& db, const AggregateKey& key) {
  SQLite::Statement image(db, "SELECT image FROM workloads WHERE id = ?");
  image.bind(1, key.workload_id);
  const std::string workload = image.executeStep() ? "'" + image.getColumn(0).getString() + "'"
                                                   : fmt::format("#{}", key.workload_id);
  auto part = [](const std::string& s) { return s.empty() ? std::string("-") : s; };
  return fmt::format("workload {}, {} {}/{}/{}", workload, internal::ScopeName(key.scope),
                     part(key.gpu_brand), part(key.gpu_model), part(key.instance_type));
}

bool Near(double a, double b) {
  return std::fabs(a - b) <= 1e-6 * std::max(std::fabs(a), std::fabs(b));
}

// What differs between a stored aggregate and its rebuild; "" when they agree.
// Decayed sums are compared to a relative 1e-6: ingest adds executions in the
// order they arrive, a rebuild in the order they finished.
std::string Difference(const KeyAggregate& stored, const KeyAggregate& rebuilt) {
  if (stored.samples != rebuilt.samples) {
    return fmt::format("{} samples, but the observations hold {}", stored.samples, rebuilt.samples);
  }
  if (stored.last_finished_at != rebuilt.last_finished_at) {
    return fmt::format("last finished at {}, but the newest observation finished at {}",
                       stored.last_finished_at, rebuilt.last_finished_at);
  }
  for (std::size_t m = 0; m < internal::kMetricCount; ++m) {
    const internal::MetricState& a = stored.metrics[m];
    const internal::MetricState& b = rebuilt.metrics[m];
    const std::string figure(ToString(static_cast<FigureKind>(m)));
    if (a.count() != b.count()) {
      return fmt::format("{}: {} values, but the observations give {}", figure, a.count(),
                         b.count());
    }
    if (a.empty()) continue;
    if (a.MaxEver() != b.MaxEver() || a.LastSeen() != b.LastSeen() ||
        !Near(*a.DecayedAverage(), *b.DecayedAverage()) ||
        !Near(a.EffectiveSamples(), b.EffectiveSamples())) {
      return fmt::format("{}: the state differs from the observations (average {} vs {})", figure,
                         *a.DecayedAverage(), *b.DecayedAverage());
    }
  }
  return "";
}

AggregateMap RebuildInMemory(SQLite::Database& db, const internal::RecommenderSettings& settings) {
  internal::AggregateWriter writer(db, settings, internal::StoredAggregates::kMergeOnFlush);
  internal::ForEachRebuildInput(db, settings,
                                [&](const internal::AggregateInput& in) { writer.Add(in); });
  return writer.added();
}

void Aggregates(SQLite::Database& db, CheckResult* result, Findings* findings) {
  const internal::RecommenderSettings settings = internal::LoadSettings(db);
  AggregateMap rebuilt = RebuildInMemory(db, settings);
  const std::size_t expected = rebuilt.size();
  SQLite::Statement stored(db,
                           "SELECT workload_id, scope, gpu_brand, gpu_model, instance_type, "
                           "samples, last_finished_at, state FROM aggregates");
  while (stored.executeStep()) {
    AggregateKey key{stored.getColumn(0).getInt64(), internal::Scope::kAny,
                     stored.getColumn(2).getString(), stored.getColumn(3).getString(),
                     stored.getColumn(4).getString()};
    const std::string scope = stored.getColumn(1).getString();
    for (internal::Scope s : {internal::Scope::kExact, internal::Scope::kGpuModel,
                              internal::Scope::kInstanceType, internal::Scope::kAny}) {
      if (scope == internal::ScopeName(s)) key.scope = s;
    }
    KeyAggregate aggregate;
    if (!aggregate.Deserialize(
            std::string(static_cast<const char*>(stored.getColumn(7).getBlob()),
                        static_cast<std::size_t>(stored.getColumn(7).getBytes())))) {
      findings->Add(fmt::format("{}: the state cannot be read", KeyLabel(db, key)));
      rebuilt.erase(key);
      continue;
    }
    aggregate.samples = stored.getColumn(5).getInt64();
    aggregate.last_finished_at = stored.getColumn(6).getDouble();
    const auto at = rebuilt.find(key);
    if (at == rebuilt.end()) {
      findings->Add(fmt::format("{}: {} samples, but no observation has this key",
                                KeyLabel(db, key), aggregate.samples));
      continue;
    }
    if (std::string diff = Difference(aggregate, at->second); !diff.empty()) {
      findings->Add(fmt::format("{}: {}", KeyLabel(db, key), diff));
    }
    rebuilt.erase(at);
  }
  for (const auto& [key, aggregate] : rebuilt) {
    findings->Add(fmt::format("{}: no aggregate, but {} observation(s) have this key",
                              KeyLabel(db, key), aggregate.samples));
  }
  result->summary =
      fmt::format("{} aggregates, each compared with a rebuild from the observations", expected);
}

void Recommendations(SQLite::Database& db, CheckResult*, Findings* findings) {
  SQLite::Statement query(
      db,
      "SELECT r.workload_id, w.image, r.gpu_brand, r.gpu_model, r.instance_type, "
      "max(r.cpu_request_millicores_samples, r.cpu_limit_millicores_samples, "
      "r.memory_bytes_samples, r.gpu_memory_gb_samples, r.gpu_compute_fraction_samples), "
      "(SELECT count(*) FROM observations o WHERE o.workload_id = r.workload_id) "
      "FROM recommendations r LEFT JOIN workloads w ON w.id = r.workload_id");
  while (query.executeStep()) {
    const std::string key =
        fmt::format("{}/{}/{}", query.getColumn(2).getString(), query.getColumn(3).getString(),
                    query.getColumn(4).getString());
    if (query.getColumn(1).isNull()) {
      findings->Add(
          fmt::format("the recommendation for key {} names workload #{}, which does "
                      "not exist",
                      key, query.getColumn(0).getInt64()));
    } else if (query.getColumn(5).getInt64() > query.getColumn(6).getInt64()) {
      findings->Add(
          fmt::format("the recommendation for workload '{}' on {} counts {} executions, "
                      "but the workload has {} observations",
                      query.getColumn(1).getString(), key, query.getColumn(5).getInt64(),
                      query.getColumn(6).getInt64()));
    }
  }
}

// Fixes name the store ({0}) and where to restore it from ({1}).
constexpr const char* kRestoreFix =
    "restore the store from {1} (keep the damaged file aside), or copy what can still be read "
    "with `sqlite3 {0} .recover | sqlite3 NEW.db`";
constexpr const char* kRebuildFix =
    "the observations are the record: once the other checks are ok, `hwrec refresh {0} "
    "--rebuild` rebuilds the aggregates and recommendations from them";

// Opens `path` read-only as an hwrec store; fails naming why the checks cannot run.
Result<std::unique_ptr<SQLite::Database>> OpenForCheck(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return Status::NotFound(fmt::format("{}: no such store (not a file)", path));
  }
  // A check never writes, so it cannot roll back what a killed writer left.
  const auto journal = std::filesystem::file_size(path + "-journal", ec);
  if (!ec && journal > 0) {
    return Status::ReadOnly(fmt::format(
        "{}: an interrupted write left {}-journal, which must be rolled back before the store "
        "can be checked: run `hwrec status {}` as a user who can write the store, then check "
        "again",
        path, path, path));
  }
  try {
    auto db = std::make_unique<SQLite::Database>(path, SQLite::OPEN_READONLY);
    try {
      if (!db->tableExists("schema_migrations")) {
        return Status::InvalidArgument(fmt::format(
            "{}: not an hwrec store (it has no schema_migrations table): check the path", path));
      }
    } catch (const SQLite::Exception& e) {
      if (!internal::IsDamage(e)) throw;  // a damaged schema is for the checks to report
    }
    return db;
  } catch (const SQLite::Exception& e) {
    return internal::DescribeOpenFailure(path, e);
  }
}

std::vector<CheckResult> RunChecks(SQLite::Database& db, const StoreCheckOptions& options) {
  const std::size_t n = options.max_problems;
  std::vector<CheckResult> checks;
  checks.push_back(RunCheck(db, "integrity", "SQLite's integrity_check: every page and index",
                            kRestoreFix, n, Integrity));
  checks.push_back(RunCheck(db, "foreign_keys", "SQLite's foreign_key_check: every reference",
                            kRestoreFix, n, ForeignKeys));
  checks.push_back(RunCheck(db, "schema",
                            "applied migrations match this build's, tables are as they create",
                            kRestoreFix, n, Schema));
  const int version = db.execAndGet("PRAGMA user_version").getInt();
  for (auto [name, summary, body] :
       {std::tuple{"aggregates", "every aggregate equals a rebuild from the observations",
                   &Aggregates},
        std::tuple{"recommendations", "recommendations name workloads and count their executions",
                   &Recommendations}}) {
    if (version != Store::LatestSchemaVersion()) {
      CheckResult skipped{name,
                          fmt::format("skipped: the store is at schema {}, this build "
                                      "checks schema {}: run `hwrec migrate` first",
                                      version, Store::LatestSchemaVersion()),
                          CheckState::kSkipped,
                          {},
                          0,
                          ""};
      checks.push_back(std::move(skipped));
      continue;
    }
    checks.push_back(RunCheck(db, name, summary, kRebuildFix, n, body));
  }
  return checks;
}

}  // namespace

const char* CheckStateName(CheckState state) {
  switch (state) {
    case CheckState::kOk:
      return "ok";
    case CheckState::kProblem:
      return "problem";
    case CheckState::kSkipped:
      return "skipped";
  }
  return "?";
}

bool StoreCheckReport::sound() const {
  for (const CheckResult& check : checks) {
    if (check.state == CheckState::kProblem) return false;
  }
  return true;
}

Result<StoreCheckReport> CheckStore(const std::string& path, const StoreCheckOptions& options) {
  return internal::Guarded(path, [&]() -> Result<StoreCheckReport> {
    auto db = OpenForCheck(path);
    if (!db.ok()) return db.status();
    StoreCheckReport report;
    report.path = path;
    report.newest_backup = internal::NewestBackup(path);
    report.checks = RunChecks(**db, options);
    const std::string backup = report.newest_backup.empty()
                                   ? std::string("a backup")
                                   : "its newest backup, " + report.newest_backup;
    for (CheckResult& check : report.checks) {
      if (!check.fix.empty()) check.fix = fmt::format(fmt::runtime(check.fix), path, backup);
    }
    return report;
  });
}

}  // namespace hwrec
