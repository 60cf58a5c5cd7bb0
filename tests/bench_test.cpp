// hwrec-bench run as a user would: the ingest counts it reports add up, the
// same seed gives the same set, and --store keeps what was ingested; the
// legacy fixture and the migration's figures.
#include <SQLiteCpp/SQLiteCpp.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "test_support.h"

namespace hwrec::test {
namespace {

const std::string kBenchArgs = "ingest --observations 2000 --seed 7 --format json";

std::int64_t Count(const nlohmann::json& report, const char* field) {
  return report.at(field).get<std::int64_t>();
}

}  // namespace

TEST_CASE("bench ingest: every generated observation is counted once", "[bench]") {
  const nlohmann::json report = RunBenchJson(kBenchArgs);
  CHECK(Count(report, "observations") == 2000);
  CHECK(Count(report, "accepted") + Count(report, "duplicates") + Count(report, "conflicts") +
            Count(report, "rejected") ==
        2000);
  // The set holds bad records and identical re-sends, never a conflicting one.
  CHECK(Count(report, "rejected") > 0);
  CHECK(Count(report, "duplicates") > 0);
  CHECK(Count(report, "conflicts") == 0);
  CHECK(Count(report, "profile_id_mismatches") == 0);
  CHECK(report.at("ceiling").at("rows_inserted").get<std::int64_t>() == Count(report, "accepted"));
}

TEST_CASE("bench ingest: the same seed gives the same counts", "[bench]") {
  const nlohmann::json first = RunBenchJson(kBenchArgs);
  const nlohmann::json second = RunBenchJson(kBenchArgs);
  for (const char* field : {"accepted", "duplicates", "conflicts", "rejected"}) {
    INFO(field);
    CHECK(Count(first, field) == Count(second, field));
  }
}

TEST_CASE("bench ingest: --store keeps the ingested store", "[bench]") {
  TempDir dir;
  const std::string path = dir.File("bench.hwrec");
  const nlohmann::json report = RunBenchJson(kBenchArgs + " --store " + ShellQuote(path));
  auto store = OpenStoreOrFail(path);
  auto status = store->GetStatus();
  REQUIRE(status.ok());
  std::int64_t observations = -1;
  for (const TableCount& table : status->tables) {
    if (table.table == "observations") observations = table.rows;
  }
  CHECK(observations == Count(report, "accepted"));

  SECTION("and refuses to reuse an existing one") {
    const CommandResult again =
        RunShell(ShellQuote(BenchPath()) + " " + kBenchArgs + " --store " + ShellQuote(path));
    CHECK(again.exit_code == 1);
    CHECK_THAT(again.err, Catch::Contains("already exists"));
  }
}

TEST_CASE("bench: an unknown subcommand is a usage error", "[bench]") {
  const CommandResult result = RunShell(ShellQuote(BenchPath()) + " frobnicate");
  CHECK(result.exit_code == 2);
  CHECK_THAT(result.err, Catch::Contains("unknown subcommand 'frobnicate'"));
  const CommandResult help = RunShell(ShellQuote(BenchPath()) + " --help");
  CHECK(help.exit_code == 0);
  CHECK_THAT(help.out, Catch::Contains("ingest"));
}

TEST_CASE("bench fixture: a legacy store of the rows asked for, the same for the same seed",
          "[bench]") {
  TempDir dir;
  const auto write = [&](const std::string& name, int seed) {
    const std::string path = dir.File(name);
    const CommandResult result =
        RunShell(ShellQuote(BenchPath()) + " fixture legacy --rows 300 --seed " +
                 std::to_string(seed) + " " + ShellQuote(path));
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    return path;
  };
  const auto rows = [](const std::string& path) {
    SQLite::Database db(path, SQLite::OPEN_READONLY);
    return db
        .execAndGet(
            "SELECT group_concat(execution_id || coalesce(gpu_memory_peak_gb, '-')) FROM "
            "(SELECT * FROM site_observations ORDER BY execution_id)")
        .getString();
  };
  const std::string first = write("first.db", 3);
  SQLite::Database db(first, SQLite::OPEN_READONLY);
  CHECK(db.execAndGet("SELECT count(*) FROM site_observations").getInt() == 300);
  CHECK(rows(write("again.db", 3)) == rows(first));
  CHECK(rows(write("other.db", 4)) != rows(first));

  const CommandResult exists =
      RunShell(ShellQuote(BenchPath()) + " fixture legacy --rows 10 " + ShellQuote(first));
  CHECK(exists.exit_code != 0);
}

TEST_CASE("bench migrate: prints rows per second and peak RSS", "[bench]") {
  const CommandResult result = RunShell(ShellQuote(BenchPath()) + " migrate --rows 400 --seed 2");
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  CHECK_THAT(result.out, Catch::Contains("rows/s"));
  CHECK_THAT(result.out, Catch::Contains("peak RSS"));
  CHECK_THAT(result.out, Catch::Contains("the targets apply at 1,000,000 rows"));
  CHECK_THAT(result.out, Catch::Contains("raw SQLite ceiling"));
  CHECK_THAT(result.out, Catch::Contains("ratio ours/ceiling"));
}

TEST_CASE("bench transfer: a slice of Gavel's data is answered by transfer, closer than a copy",
          "[bench][transfer]") {
  const std::string data = SharedDataPath("");
  if (!std::filesystem::exists(data + "/gavel-throughputs/oracle_throughputs.json")) {
    WARN("skipped: " + data + "/gavel-throughputs is absent");
    const CommandResult skipped =
        RunShell(ShellQuote(BenchPath()) + " transfer --data " + ShellQuote(data + "/absent"));
    CHECK(skipped.exit_code == 0);
    CHECK_THAT(skipped.out, Catch::Contains("skipped"));
    return;
  }
  const nlohmann::json report = RunBenchJson(
      "transfer --jobs 8 --observations 3 --seed 5 --seeds 1 --scale-workloads 50 "
      "--format json --data " +
      ShellQuote(data));
  const nlohmann::json& transferred = report.at("transferred");
  CHECK(transferred.at("cases") == 24);  // 8 jobs x 3 cards, each held out
  CHECK(transferred.at("answered") == 24);
  CHECK(report.at("none").at("answered") == 0);
  CHECK(report.at("from_nearest_workloads") == 24);  // every job ran on the other two cards
  CHECK(transferred.at("median_error").get<double>() <
        report.at("copied").at("median_error").get<double>());
  CHECK_THAT(report.at("about").get<std::string>(),
             Catch::Contains("the throughputs are measured"));
  // What reading the factors costs: 50 workloads on 3 cards, and one more.
  const nlohmann::json& read = report.at("factor_read");
  CHECK(read.at("aggregates") == 151);
  CHECK(read.at("first_call_us").get<double>() > 0);
  CHECK(read.at("kept_call_us").get<double>() > 0);
}

}  // namespace hwrec::test
