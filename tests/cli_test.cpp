// Smoke tests of the hwrec CLI as a user runs it: help, version, exit codes,
// init / status / migrate / schema / hardware-id.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "test_support.h"

using hwrec::test::RunCli;
using hwrec::test::ShellQuote;

TEST_CASE("cli: --help lists every command and the exit codes", "[cli]") {
  const auto r = RunCli("--help");
  CHECK(r.exit_code == 0);
  for (const char* command :
       {"init", "status", "migrate", "ingest", "catalog", "pools", "hardware-id"}) {
    CHECK_THAT(r.out, Catch::Contains(command));
  }
  CHECK_THAT(r.out, Catch::Contains("Exit codes"));
  CHECK_THAT(r.out, Catch::Contains("3  partial"));
}

TEST_CASE("cli: --version prints the version", "[cli]") {
  const auto r = RunCli("--version");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("hwrec 0."));
}

TEST_CASE("cli: usage mistakes exit 2 with a hint", "[cli]") {
  CHECK(RunCli("").exit_code == 2);
  const auto unknown = RunCli("frobnicate");
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.err, Catch::Contains("unknown command"));
  const auto bad_option = RunCli("status --no-such-option x.db");
  CHECK(bad_option.exit_code == 2);
  CHECK_THAT(bad_option.err, Catch::Contains("--help"));
  CHECK(RunCli("status").exit_code == 2);
  CHECK(RunCli("status x.db --format yaml").exit_code == 2);
}

TEST_CASE("cli: every command answers --help", "[cli]") {
  for (const char* command : {"init", "status", "migrate", "ingest", "hardware-id", "schema"}) {
    INFO(command);
    const auto r = RunCli(std::string(command) + " --help");
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("Usage: hwrec"));
  }
}

TEST_CASE("cli: init, status and migrate on a new store", "[cli]") {
  hwrec::test::TempDir dir;
  const std::string store = ShellQuote(dir.File("cli.db"));
  const auto init = RunCli("init " + store);
  CHECK(init.exit_code == 0);
  CHECK_THAT(init.out, Catch::Contains("created store at schema"));

  const auto status = RunCli("status " + store + " --format json");
  REQUIRE(status.exit_code == 0);
  const auto json = nlohmann::json::parse(status.out);
  CHECK(json["schema_version"] == json["latest_schema_version"]);
  CHECK(json["hp_version"] == "hp:v2");
  CHECK(json["journal_mode"] == "wal");
  CHECK(json["tables"]["gpu_partitions"].get<int>() > 40);

  const auto table = RunCli("status " + store);
  CHECK(table.exit_code == 0);
  CHECK_THAT(table.out, Catch::Contains("observations"));

  const auto migrate = RunCli("migrate " + store);
  CHECK(migrate.exit_code == 0);
  CHECK_THAT(migrate.out, Catch::Contains("nothing to do"));
}

TEST_CASE("cli: a missing store is an error that says how to create it", "[cli]") {
  hwrec::test::TempDir dir;
  const auto r = RunCli("status " + ShellQuote(dir.File("absent.db")));
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("hwrec init"));
}

TEST_CASE("cli: hardware-id prints both ids, as JSON on request", "[cli]") {
  const std::string profile =
      R"({"instance_type": "a2-ultragpu-1g", "architecture": "x86_64", "cpu_millicores": 12000,)"
      R"( "memory_bytes": 182536110080, "gpu_count": 1, "gpu_mode": "full", "gpu_total": 1,)"
      R"( "gpu_brand": "NVIDIA", "gpu_model": "A100 80GB"})";
  const auto r = RunCli("hardware-id --profile " + ShellQuote(profile) + " --format json");
  REQUIRE(r.exit_code == 0);
  const auto json = nlohmann::json::parse(r.out);
  CHECK(json["hp_v1"] == "hp:v1:a458059131523990");
  CHECK(json["hp_v2"] == "hp:v2:93062af5d26b055e");

  const auto bad = RunCli("hardware-id --profile " + ShellQuote(R"({"gpu_count": -1})"));
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains("gpu_count"));
}

TEST_CASE("cli: schema prints what schema/schema.sql holds", "[cli]") {
  const auto r = RunCli("schema");
  CHECK(r.exit_code == 0);
  CHECK(r.out == hwrec::test::ReadFile(hwrec::test::SourcePath("schema/schema.sql")));
}
