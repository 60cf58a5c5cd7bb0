// hwrec check, and what every command does with a damaged store: a byte
// flipped in a table's page is found by `hwrec check` (exit 4), commands that
// read that page stop with a message that points at `hwrec check` and the
// backup, and a migration or backup of a damaged store is refused before
// anything changes.
#include <SQLiteCpp/SQLiteCpp.h>

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>
#include <vector>

#include "hwrec/check.h"
#include "hwrec/ingest.h"
#include "legacy_fixture.h"
#include "store/database.h"
#include "test_support.h"

using hwrec::test::ExampleStore;
using hwrec::test::ReadFile;
using hwrec::test::RunCli;
using hwrec::test::ShellQuote;
using hwrec::test::TempDir;

namespace {

// Flips every bit of the page-type byte of `table`'s root page, in the file
// itself (the WAL checkpointed first): SQLite's header stays readable, and
// any read of that table fails as corrupt.
void FlipRootPageByte(const std::string& path, const std::string& table) {
  std::int64_t offset = 0;
  {
    SQLite::Database db(path, SQLite::OPEN_READWRITE);
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    SQLite::Statement root(db, "SELECT rootpage FROM sqlite_master WHERE name = ?");
    root.bind(1, table);
    REQUIRE(root.executeStep());
    const std::int64_t page = root.getColumn(0).getInt64();
    REQUIRE(page > 1);
    offset = (page - 1) * db.execAndGet("PRAGMA page_size").getInt64();
  }
  std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
  REQUIRE(file);
  file.seekg(offset);
  char byte = 0;
  file.read(&byte, 1);
  byte = static_cast<char>(~byte);
  file.seekp(offset);
  file.write(&byte, 1);
  REQUIRE(file.good());
}

nlohmann::json CheckJson(const std::string& path, int expected_exit) {
  const auto r = RunCli("check " + ShellQuote(path) + " --format json");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == expected_exit);
  return nlohmann::json::parse(r.out);
}

const nlohmann::json& CheckNamed(const nlohmann::json& report, const std::string& name) {
  for (const auto& check : report["checks"]) {
    if (check["name"] == name) return check;
  }
  FAIL("no check named " << name);
  return report;
}

// One new record of a workload the example has.
std::string NewRecord() {
  return R"({"execution_id":"ex-new-1","action_image":"ghcr.io/acme/feature-etl:0.9",)"
         R"("finished_at":"2026-11-28T10:41:23Z","site_id":"site-a","node_pool_id":"sitea-arm-cpu",)"
         R"("status":"success","cpu_millicores_p95":10230,"memory_peak_bytes":24720420489})"
         "\n";
}

void RequireDamageMessage(const hwrec::test::CommandResult& r, const std::string& path) {
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("the store is damaged"));
  CHECK_THAT(r.err, Catch::Contains("hwrec check " + path));
  CHECK_THAT(r.err, Catch::Contains("restore"));
}

}  // namespace

TEST_CASE("check: a sound store checks clean and exits 0", "[check][cli]") {
  TempDir dir;
  const std::string path = ExampleStore(dir);
  const auto report = CheckJson(path, 0);
  CHECK(report["sound"] == true);
  for (const char* name :
       {"integrity", "foreign_keys", "schema", "aggregates", "recommendations"}) {
    INFO(name);
    CHECK(CheckNamed(report, name)["result"] == "ok");
  }
  const auto table = RunCli("check " + ShellQuote(path));
  CHECK(table.exit_code == 0);
  CHECK_THAT(table.out, Catch::Contains("the store is sound"));
}

TEST_CASE("check: a flipped byte in a table page is reported, with exit 4 and where",
          "[check][cli]") {
  TempDir dir;
  const std::string path = ExampleStore(dir);
  const std::string before_hash = ReadFile(path);
  FlipRootPageByte(path, "observations");
  const std::string damaged = ReadFile(path);
  const auto report = CheckJson(path, 4);
  CHECK(report["sound"] == false);
  const auto& integrity = CheckNamed(report, "integrity");
  CHECK(integrity["result"] == "problem");
  CHECK_THAT(integrity["problems"].dump(), Catch::Contains("table observations"));
  CHECK_THAT(integrity["fix"].get<std::string>(), Catch::Contains("restore"));
  CHECK(ReadFile(path) == damaged);  // the check changed nothing
  const auto table = RunCli("check " + ShellQuote(path));
  CHECK(table.exit_code == 4);
  CHECK_THAT(table.out, Catch::Contains("integrity"));
  CHECK_THAT(table.out, Catch::Contains("problem"));
}

TEST_CASE("check: a damaged store makes ingest and refresh fail with a message, not exit 0",
          "[check][cli]") {
  TempDir dir;
  const std::string path = ExampleStore(dir);
  FlipRootPageByte(path, "observations");
  RequireDamageMessage(RunCli("ingest " + ShellQuote(path) + " -", NewRecord()), path);
  RequireDamageMessage(RunCli("refresh " + ShellQuote(path) + " --rebuild"), path);
}

TEST_CASE("check: recommend on a store with a damaged aggregates page fails with a message",
          "[check][cli]") {
  TempDir dir;
  const std::string path = ExampleStore(dir);
  FlipRootPageByte(path, "aggregates");
  RequireDamageMessage(RunCli("recommend " + ShellQuote(path) +
                              " --image ghcr.io/acme/llm-finetune:2.3 --pool siteb-h100-80gb"),
                       path);
  RequireDamageMessage(RunCli("ingest " + ShellQuote(path) + " -", NewRecord()), path);
}

TEST_CASE("check: the damage message names the newest backup when there is one", "[check]") {
  TempDir dir;
  const std::string path = ExampleStore(dir);
  const std::string backup = path + ".hp-v1-backup-20261129T160237Z";
  std::filesystem::copy_file(path, backup);
  FlipRootPageByte(path, "observations");
  const auto r = RunCli("ingest " + ShellQuote(path) + " -", NewRecord());
  RequireDamageMessage(r, path);
  CHECK_THAT(r.err, Catch::Contains(backup));
  CHECK(CheckJson(path, 4)["newest_backup"] == backup);
}

TEST_CASE("check: an aggregate altered by SQL is reported as not matching a rebuild",
          "[check][cli]") {
  TempDir dir;
  const std::string path = ExampleStore(dir);
  {
    SQLite::Database db(path, SQLite::OPEN_READWRITE);
    db.exec(
        "UPDATE aggregates SET samples = samples + 1 WHERE scope = 'any' AND workload_id = "
        "(SELECT min(workload_id) FROM aggregates)");
  }
  auto report = CheckJson(path, 4);
  auto aggregates = CheckNamed(report, "aggregates");
  CHECK(aggregates["result"] == "problem");
  CHECK(aggregates["problem_count"] == 1);
  CHECK_THAT(aggregates["problems"].dump(), Catch::Contains("samples, but the observations hold"));
  CHECK_THAT(aggregates["fix"].get<std::string>(), Catch::Contains("refresh"));
  CHECK(CheckNamed(report, "integrity")["result"] == "ok");

  REQUIRE(RunCli("refresh " + ShellQuote(path) + " --rebuild").exit_code == 0);
  CheckJson(path, 0);
  {
    SQLite::Database db(path, SQLite::OPEN_READWRITE);
    // One workload's state given to another: readable, but not its history.
    db.exec(
        "UPDATE aggregates SET state = (SELECT state FROM aggregates WHERE scope = 'any' "
        "ORDER BY workload_id DESC LIMIT 1) WHERE scope = 'any' AND workload_id = "
        "(SELECT min(workload_id) FROM aggregates)");
  }
  report = CheckJson(path, 4);
  aggregates = CheckNamed(report, "aggregates");
  CHECK(aggregates["result"] == "problem");
  CHECK_THAT(aggregates["problems"].dump(), Catch::Contains("the observations give"));
}

TEST_CASE("check: only the checks asked for run, and an unknown one is named", "[check]") {
  TempDir dir;
  const std::string path = ExampleStore(dir);
  hwrec::StoreCheckOptions options;
  options.only = {"recommendations", "aggregates"};
  auto report = hwrec::CheckStore(path, options);
  REQUIRE(report.ok());
  REQUIRE(report->checks.size() == 2);
  CHECK(report->checks[0].name == "aggregates");  // in the order every check runs
  CHECK(report->checks[1].name == "recommendations");
  CHECK(report->sound());

  options.only = {"aggregate"};
  auto unknown = hwrec::CheckStore(path, options);
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.status().code() == hwrec::StatusCode::kInvalidArgument);
  CHECK_THAT(unknown.status().message(), Catch::Contains("'aggregate' is no check") &&
                                             Catch::Contains("aggregates or recommendations"));
}

TEST_CASE("check: a recommendation for a workload that does not exist is reported",
          "[check][cli]") {
  TempDir dir;
  const std::string path = ExampleStore(dir);
  {
    SQLite::Database db(path, SQLite::OPEN_READWRITE);  // foreign keys are off here
    db.exec(
        "INSERT INTO recommendations SELECT 999, gpu_brand, gpu_model, instance_type, "
        "cpu_only, cpu_request_millicores, cpu_request_millicores_provenance, "
        "cpu_request_millicores_samples, cpu_request_millicores_confidence, "
        "cpu_request_millicores_lower, cpu_request_millicores_upper, cpu_limit_millicores, "
        "cpu_limit_millicores_provenance, cpu_limit_millicores_samples, "
        "cpu_limit_millicores_confidence, cpu_limit_millicores_lower, "
        "cpu_limit_millicores_upper, memory_bytes, memory_bytes_provenance, "
        "memory_bytes_samples, memory_bytes_confidence, memory_bytes_lower, "
        "memory_bytes_upper, gpu_memory_gb, gpu_memory_gb_provenance, gpu_memory_gb_samples, "
        "gpu_memory_gb_confidence, gpu_memory_gb_lower, gpu_memory_gb_upper, "
        "gpu_compute_fraction, gpu_compute_fraction_provenance, "
        "gpu_compute_fraction_samples, gpu_compute_fraction_confidence, "
        "gpu_compute_fraction_lower, gpu_compute_fraction_upper, as_of, "
        "cpu_request_millicores_last_seen, cpu_limit_millicores_last_seen, "
        "memory_bytes_last_seen, gpu_memory_gb_last_seen, gpu_compute_fraction_last_seen, "
        "gpu_compute_fraction_held FROM recommendations LIMIT 1");
  }
  const auto report = CheckJson(path, 4);
  CHECK(CheckNamed(report, "foreign_keys")["result"] == "problem");
  CHECK_THAT(CheckNamed(report, "foreign_keys")["problems"].dump(),
             Catch::Contains("recommendations names a workloads row that does not exist"));
  CHECK_THAT(CheckNamed(report, "recommendations")["problems"].dump(),
             Catch::Contains("workload #999, which does not exist"));
}

TEST_CASE("check: a path that is not an hwrec store cannot be checked, exit 1", "[check][cli]") {
  TempDir dir;
  CHECK(RunCli("check " + ShellQuote(dir.File("missing.db"))).exit_code == 1);
  const std::string other = dir.File("other.db");
  {
    SQLite::Database(other, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE)
        .exec("CREATE TABLE t (x)");
  }
  const auto r = RunCli("check " + ShellQuote(other));
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("not an hwrec store"));
}

TEST_CASE("check: a legacy migration of a damaged store is refused before anything changes",
          "[check][legacy]") {
  TempDir dir;
  const std::string path = dir.File("legacy.db");
  hwrec::test::MakeLegacy(path);
  for (int i = 0; i < 40; ++i) {
    auto row = hwrec::test::Row("legacy-" + std::to_string(i));
    row.node_pool_gpu = "H100 80GB";
    hwrec::test::AddLegacyRow(path, row);
  }
  FlipRootPageByte(path, "site_observations");
  const std::string damaged = ReadFile(path);
  for (const char* extra : {"", " --no-backup"}) {
    INFO(extra);
    const auto r = RunCli("migrate " + ShellQuote(path) + " --accept-hp-v2" + extra);
    INFO(r.out << r.err);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("the store is damaged"));
    CHECK_THAT(r.err, Catch::Contains("hwrec check " + path));
    CHECK(ReadFile(path) == damaged);
    for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
      CHECK(entry.path().filename().string().find("backup") == std::string::npos);
    }
  }
}

TEST_CASE("check: a store made by a legacy migration checks clean", "[check][legacy]") {
  TempDir dir;
  const std::string path = dir.File("migrated.db");
  hwrec::test::MakeLegacy(path);
  for (int i = 0; i < 30; ++i) {
    auto row = hwrec::test::Row("legacy-" + std::to_string(i));
    row.node_pool_gpu = "H100 80GB";
    row.finished_at += i * 600;
    row.gpu_memory_peak_gb = 5 + i % 7;
    hwrec::test::AddLegacyRow(path, row);
  }
  REQUIRE(RunCli("migrate " + ShellQuote(path) + " --accept-hp-v2 --no-backup").exit_code == 0);
  auto report = hwrec::CheckStore(path);
  REQUIRE(report.ok());
  for (const auto& check : report->checks) {
    INFO(check.name << ": " << (check.problems.empty() ? "" : check.problems.front()));
    CHECK(check.state == hwrec::CheckState::kOk);
  }
}

namespace {

// Adds a few executions of two workloads on one card.
void AddHistory(hwrec::Store& store) {
  std::ostringstream lines;
  for (int i = 0; i < 6; ++i) {
    lines << fmt::format(
                 R"({{"execution_id":"ex-{}","action_image":"ghcr.io/acme/train:{}",)"
                 R"("finished_at":"2026-11-28T10:{:02}:00Z","status":"success",)"
                 R"("hardware":{{"instance_type":"a2-ultragpu-1g","gpu_count":1,"gpu_mode":"full",)"
                 R"("gpu_total":1,"gpu_brand":"NVIDIA","gpu_model":"A100 80GB"}},)"
                 R"("gpu_memory_peak_gb":{},"cpu_millicores_p95":{}}})",
                 i, i % 2, i, 20 + i, 1000 + 100 * i)
          << "\n";
  }
  std::istringstream in(lines.str());
  auto ingestor = hwrec::Ingestor::Open(store);
  REQUIRE(ingestor.ok());
  auto summary = (*ingestor)->IngestJsonLines(in);
  INFO(summary.status().ToString());
  REQUIRE(summary.ok());
  REQUIRE(summary->accepted == 6);
}

// Every check is ok, but on PostgreSQL integrity and foreign_keys, which are skipped.
void RequireSound(const hwrec::StoreCheckReport& report) {
  const bool server = hwrec::test::TestingPostgresql();
  CHECK(report.sound());
  REQUIRE(report.checks.size() == 5);
  for (const auto& check : report.checks) {
    INFO(check.name << ": " << check.summary << " "
                    << (check.problems.empty() ? "" : check.problems.front()));
    const bool file_check = check.name == "integrity" || check.name == "foreign_keys";
    CHECK(check.state ==
          (server && file_check ? hwrec::CheckState::kSkipped : hwrec::CheckState::kOk));
  }
  if (server) {
    CHECK_THAT(report.checks[0].summary, Catch::Contains("PostgreSQL checks its own pages"));
    CHECK_THAT(report.checks[1].summary, Catch::Contains("enforces every reference"));
  }
}

// Ingests executions of ghcr.io/acme/train:1 on one A100 80GB, all finished
// at one time: (execution id, GPU memory peak in GB) each.
void IngestAtOneTime(hwrec::Store& store,
                     const std::vector<std::pair<std::string, double>>& peaks) {
  std::ostringstream lines;
  for (const auto& [id, peak] : peaks) {
    lines << fmt::format(
                 R"({{"execution_id":"{}","action_image":"ghcr.io/acme/train:1",)"
                 R"("finished_at":"2026-11-28T10:00:00Z","status":"success",)"
                 R"("hardware":{{"instance_type":"a2-ultragpu-1g","gpu_count":1,"gpu_mode":"full",)"
                 R"("gpu_total":1,"gpu_brand":"NVIDIA","gpu_model":"A100 80GB"}},)"
                 R"("gpu_memory_peak_gb":{}}})",
                 id, peak)
          << "\n";
  }
  std::istringstream in(lines.str());
  auto ingestor = hwrec::Ingestor::Open(store);
  REQUIRE(ingestor.ok());
  REQUIRE((*ingestor)->IngestJsonLines(in).ok());
}

}  // namespace

TEST_CASE("check: derived data is checked against a rebuild on either engine", "[check][engine]") {
  TempDir dir;
  const std::string location = hwrec::test::NewStoreLocation(dir, "checked.db");
  const auto store = hwrec::test::OpenStoreOrFail(location);
  auto report = hwrec::CheckStore(location);
  REQUIRE(report.ok());
  CHECK(report->path == store->path());
  RequireSound(*report);  // a new store

  AddHistory(*store);
  report = hwrec::CheckStore(location);
  REQUIRE(report.ok());
  RequireSound(*report);

  hwrec::store::ConnectionOf(*store).Execute(
      "UPDATE aggregates SET samples = samples + 1 WHERE scope = 'any' AND workload_id = "
      "(SELECT min(workload_id) FROM aggregates)");
  report = hwrec::CheckStore(location);
  REQUIRE(report.ok());
  CHECK_FALSE(report->sound());
  const hwrec::CheckResult& aggregates = report->checks[3];
  REQUIRE(aggregates.name == "aggregates");
  CHECK(aggregates.state == hwrec::CheckState::kProblem);
  CHECK(aggregates.problem_count == 1);
  REQUIRE(aggregates.problems.size() == 1);
  CHECK_THAT(aggregates.problems[0], Catch::Contains("samples, but the observations hold"));
  CHECK_THAT(aggregates.fix, Catch::Contains("refresh"));

  hwrec::store::ConnectionOf(*store).Execute(
      "UPDATE recommendations SET cpu_request_millicores_samples = 99");
  report = hwrec::CheckStore(location);
  REQUIRE(report.ok());
  CHECK(report->checks[4].state == hwrec::CheckState::kProblem);
  CHECK_THAT(report->checks[4].problems.front(), Catch::Contains("counts 99 executions"));
}

TEST_CASE("check: a histogram or recent values unlike the observations are reported",
          "[check][engine]") {
  TempDir dir;
  const std::string location = hwrec::test::NewStoreLocation(dir, "histogram.db");
  const auto store = hwrec::test::OpenStoreOrFail(location);
  // Three executions finished at one time: 10, 20 and 30 GB.
  IngestAtOneTime(*store, {{"h-0", 10}, {"h-1", 20}, {"h-2", 30}});
  RequireSound(*hwrec::CheckStore(location));
  // Now the observations say 5 and 25 where the aggregates hold 10 and 20:
  // the same count, maximum, time, average and evidence, but not the same
  // histogram (percentile figures) or recent values (max-of-last figures).
  hwrec::store::ConnectionOf(*store).Execute(
      "UPDATE observations SET gpu_memory_peak_gb = CASE gpu_memory_peak_gb WHEN 10 THEN 5 "
      "WHEN 20 THEN 25 ELSE gpu_memory_peak_gb END");
  auto report = hwrec::CheckStore(location);
  REQUIRE(report.ok());
  const hwrec::CheckResult& aggregates = report->checks[3];
  REQUIRE(aggregates.name == "aggregates");
  CHECK(aggregates.state == hwrec::CheckState::kProblem);
  REQUIRE_FALSE(aggregates.problems.empty());
  CHECK_THAT(aggregates.problems[0],
             Catch::Contains("gpu_memory_gb") && Catch::Contains("histogram or recent values"));
}

TEST_CASE("check: a full ring of equal finish times checks clean whatever order filled it",
          "[check][engine]") {
  TempDir dir;
  const std::string location = hwrec::test::NewStoreLocation(dir, "ties.db");
  const auto store = hwrec::test::OpenStoreOrFail(location);
  // Twelve executions finished at one time (the ring keeps 10), in an order
  // unlike their ids' on PostgreSQL (ids follow execution_id order there) and
  // unlike a rebuild's (by finish time, then id).
  std::vector<std::pair<std::string, double>> peaks;
  for (int i = 11; i >= 0; --i) peaks.emplace_back(fmt::format("tie-{:02}", i), 10 + i);
  IngestAtOneTime(*store, peaks);
  RequireSound(*hwrec::CheckStore(location));
}
