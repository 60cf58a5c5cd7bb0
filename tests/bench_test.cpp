// hwrec-bench ingest, run as a user would: the counts it reports add up, the
// same seed gives the same set, and --store keeps what was ingested.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "test_support.h"

namespace hwrec::test {
namespace {

const std::string kBenchArgs = "ingest --observations 2000 --seed 7 --format json";

nlohmann::json RunBenchJson(const std::string& args) {
  const CommandResult result = RunShell(ShellQuote(HWREC_BENCH_PATH) + " " + args);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  return nlohmann::json::parse(result.out);
}

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
        RunShell(ShellQuote(HWREC_BENCH_PATH) + " " + kBenchArgs + " --store " + ShellQuote(path));
    CHECK(again.exit_code == 1);
    CHECK_THAT(again.err, Catch::Contains("already exists"));
  }
}

TEST_CASE("bench: an unknown subcommand is a usage error", "[bench]") {
  const CommandResult result = RunShell(ShellQuote(HWREC_BENCH_PATH) + " frobnicate");
  CHECK(result.exit_code == 2);
  CHECK_THAT(result.err, Catch::Contains("unknown subcommand 'frobnicate'"));
  const CommandResult help = RunShell(ShellQuote(HWREC_BENCH_PATH) + " --help");
  CHECK(help.exit_code == 0);
  CHECK_THAT(help.out, Catch::Contains("ingest"));
}

}  // namespace hwrec::test
