// hwrec-bench engines and concurrent-ingest, run as a user would against the
// PostgreSQL server HWREC_TEST_POSTGRESQL names (a base URI; each run makes
// and drops its own schema): both engines are measured on the same input, and
// concurrent writers lose and double-count nothing. Behaviour only: the
// figures are printed, never judged.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <string>

#include "test_support.h"

namespace hwrec::test {
namespace {

// The base URI of the server under test, or "" (the case then skips, saying so).
std::string PostgresqlBase() {
  const char* base = std::getenv("HWREC_TEST_POSTGRESQL");
  if (base == nullptr || *base == '\0') {
    WARN("HWREC_TEST_POSTGRESQL is not set: skipped (it needs a PostgreSQL server)");
    return "";
  }
  return base;
}

// What every concurrent run must show: each sent execution stored once, and
// aggregates that equal a rebuild.
void CheckConcurrentRun(const nlohmann::json& report) {
  const nlohmann::json& verification = report.at("verification");
  INFO(report.dump(2));
  CHECK(verification.at("ok") == true);
  CHECK(verification.at("missing") == 0);
  CHECK(verification.at("extra") == 0);
  CHECK(verification.at("aggregates") == "ok");
  CHECK(verification.at("stored") == verification.at("expected"));
  CHECK(report.at("offered") == 4 * 400);
  // Half of each writer's records are every writer's: all but one copy of each is a duplicate.
  CHECK(report.at("duplicates").get<std::int64_t>() >= 3 * 200 * 9 / 10);
  CHECK(report.at("accepted") == verification.at("stored"));
  CHECK(report.at("observations_per_s").get<double>() > 0);
}

const std::string kConcurrentArgs = " --writers 4 --records 400 --batch 100 --format json";

}  // namespace

TEST_CASE("bench engines: both engines ingest, recommend and place the same input",
          "[bench][engine]") {
  const std::string base = PostgresqlBase();
  if (base.empty()) return;
  const nlohmann::json report =
      RunBenchJson("engines --postgresql " + ShellQuote(base) +
                   " --records 3000 --lookups 50 --evaluations 10 --candidates 20 --format json");
  const nlohmann::json& sqlite = report.at("sqlite");
  const nlohmann::json& postgresql = report.at("postgresql");
  CHECK(report.at("server") == "given");
  CHECK_THAT(postgresql.at("location").get<std::string>(), Catch::StartsWith("postgresql://"));
  for (const char* field :
       {"offered", "accepted", "duplicates", "rejected", "conflicts", "feasible", "chosen"}) {
    INFO(field);
    CHECK(sqlite.at(field) == postgresql.at(field));
  }
  CHECK(sqlite.at("offered") == 3000);
  CHECK(sqlite.at("accepted").get<std::int64_t>() > 0);
  for (const char* figure : {"observations_per_s", "recommend_p50_us", "recommend_p99_us",
                             "place_evaluations_per_s", "place_p50_ms", "place_p99_ms"}) {
    INFO(figure);
    CHECK(sqlite.at(figure).get<double>() > 0);
    CHECK(postgresql.at(figure).get<double>() > 0);
    CHECK(report.at("postgresql_over_sqlite").at(figure).get<double>() > 0);
  }
}

TEST_CASE("bench concurrent-ingest: four writers lose nothing and double-count nothing",
          "[bench][engine]") {
  const std::string base = PostgresqlBase();
  if (base.empty()) return;
  const nlohmann::json report =
      RunBenchJson("concurrent-ingest --postgresql " + ShellQuote(base) + kConcurrentArgs);
  CheckConcurrentRun(report);
  CHECK(report.at("server_rollbacks").get<std::int64_t>() >= 0);
  // Writers queue on their workloads' locks: none of the 16 batches ran again.
  CHECK(report.at("batches") == 16);
  CHECK(report.at("retried_batches") == 0);
}

TEST_CASE("bench concurrent-ingest: several writer counts, a run each, then a table", "[bench]") {
  const CommandResult result = RunShell(ShellQuote(BenchPath()) +
                                        " concurrent-ingest --sqlite --writers 1,2 --records 200 "
                                        "--batch 100");
  INFO(result.out << result.err);
  REQUIRE(result.exit_code == 0);
  CHECK_THAT(result.out, Catch::Contains("hwrec-bench concurrent-ingest: 1 writers"));
  CHECK_THAT(result.out, Catch::Contains("hwrec-bench concurrent-ingest: 2 writers"));
  CHECK_THAT(result.out, Catch::Contains("writers   records/s  x first count  retried  batches"));
  CHECK_THAT(result.out,
             Catch::Matches(R"((.|\n)*\n +1 +[0-9,]+ +1\.00 +0 +2 +[0-9.]+  OK\n(.|\n)*)"));
  CHECK_THAT(result.out,
             Catch::Matches(R"((.|\n)*\n +2 +[0-9,]+ +[0-9.]+ +0 +4 +[0-9.]+  OK\n(.|\n)*)"));
}

TEST_CASE("bench concurrent-ingest: four writers on one SQLite file verify alike", "[bench]") {
  const nlohmann::json report = RunBenchJson("concurrent-ingest --sqlite" + kConcurrentArgs);
  CheckConcurrentRun(report);
  CHECK(report.at("server_rollbacks").is_null());
}

TEST_CASE("bench engines: without server binaries it says what to do", "[bench]") {
  const CommandResult result =
      RunShell("HWREC_PG_BINDIR=/nonexistent " + ShellQuote(BenchPath()) + " engines --records 10");
  CHECK(result.exit_code == 1);
  CHECK_THAT(result.err, Catch::Contains("no PostgreSQL server binaries"));
  CHECK_THAT(result.err, Catch::Contains("--postgresql URI"));
}

}  // namespace hwrec::test
