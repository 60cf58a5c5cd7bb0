// hwrec place as a user runs it on the bundled example: every candidate shown
// with its reason, the versioned JSON, --record, and the exit codes.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <map>

#include "hwrec/placement.h"
#include "hwrec/placement_json.h"
#include "hwrec/placement_record.h"
#include "test_support.h"

using hwrec::test::RunCli;
using hwrec::test::ShellQuote;

namespace {

std::string Candidates(const hwrec::test::TempDir& dir) {
  const std::string path = dir.File("candidates.json");
  hwrec::test::WriteFile(path, R"([{"node_pool_id": "sitea-a100-80gb"},
    {"node_pool_id": "siteb-a100-40gb-mig", "free_partitions": 3},
    {"node_pool_id": "sitea-a30-mig"},
    {"node_pool_id": "sitea-arm-cpu", "free_cpu_millicores": 8000}])");
  return ShellQuote(path);
}

}  // namespace

TEST_CASE("cli: place shows every candidate with its reason", "[cli][placement]") {
  hwrec::test::TempDir dir;
  const std::string store = QuotedExampleStore(dir);
  const auto r = RunCli("place " + store + " --image ghcr.io/acme/llm-finetune:2.3 --candidates " +
                        Candidates(dir) + " --declared '{\"gpu_count\": 1}'");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  for (const char* pool :
       {"sitea-a100-80gb", "siteb-a100-40gb-mig", "sitea-a30-mig", "sitea-arm-cpu"}) {
    CHECK_THAT(r.out, Catch::Contains(pool));
  }
  CHECK_THAT(r.out, Catch::Contains("needs 1 GPU; this pool has none"));
  CHECK_THAT(r.out, Catch::Contains("chosen: "));
  CHECK_THAT(r.out, Catch::Contains("provenance: cpu_request_millicores="));
}

TEST_CASE("cli: the place table says once, above the pools, what every pool's notes share",
          "[cli][placement]") {
  hwrec::test::TempDir dir;
  const std::string store = QuotedExampleStore(dir);
  const auto table = RunCli("place " + store + " --image ghcr.io/acme/llm-finetune:2.3 " +
                            "--candidates " + Candidates(dir));
  INFO(table.out);
  REQUIRE(table.exit_code == 0);
  const std::string history_note = "architecture x86_64 from history";
  const auto at = table.out.find("note:     " + history_note);
  CHECK(at != std::string::npos);
  CHECK(at < table.out.find("sitea-a100-80gb"));
  CHECK(table.out.find(history_note, at + 10 + history_note.size()) ==
        std::string::npos);  // not again in a row
  // The JSON keeps every note on every candidate.
  const auto json = RunCli("place " + store + " --image ghcr.io/acme/llm-finetune:2.3 " +
                           "--candidates " + Candidates(dir) + " --format json");
  REQUIRE(json.exit_code == 0);
  const nlohmann::json payload = nlohmann::json::parse(json.out);  // outlives the loop
  for (const auto& entry : payload["candidates"]) {
    CHECK(entry["notes"].dump().find(history_note) != std::string::npos);
  }
}

TEST_CASE("cli: place --format json emits the versioned payload", "[cli][placement]") {
  hwrec::test::TempDir dir;
  const std::string store = QuotedExampleStore(dir);
  const auto r =
      RunCli("place " + store + " --image ghcr.io/acme/llm-finetune:2.3 --candidates " +
             Candidates(dir) + " --declared '{\"gpu_count\": 1}' --policy first_fit --format json");
  REQUIRE(r.exit_code == 0);
  const auto json = nlohmann::json::parse(r.out);
  CHECK(json["schema"] == "hwrec.placement/v1");
  CHECK(json["policy"] == "first_fit");
  REQUIRE(json["candidates"].size() == 4);
  for (const auto& entry : json["candidates"]) {
    for (const char* key :
         {"node_pool_id", "feasible", "reason", "request", "waste", "provenance"}) {
      CHECK(entry.contains(key));
    }
  }
  CHECK(json["chosen"]["node_pool_id"] == json["candidates"][0]["node_pool_id"]);
  CHECK(hwrec::ParsePlacementJson(r.out).ok());
}

TEST_CASE("cli: place --record writes the chosen request; no fit exits 5 with reasons",
          "[cli][placement]") {
  hwrec::test::TempDir dir;
  const std::string store = QuotedExampleStore(dir);
  const auto recorded =
      RunCli("place " + store + " --image ghcr.io/acme/llm-finetune:2.3 --candidates " +
             Candidates(dir) + " --declared '{\"gpu_count\": 1}' --record exec-7 --format json");
  INFO(recorded.err);
  REQUIRE(recorded.exit_code == 0);
  CHECK_THAT(recorded.err, Catch::Contains("recorded placement"));
  const auto payload = nlohmann::json::parse(recorded.out);
  auto opened = hwrec::Store::Open(dir.File("example.db"));
  REQUIRE(opened.ok());
  auto records = hwrec::ListPlacements(**opened, "exec-7");
  REQUIRE(records.ok());
  REQUIRE(records->size() == 1);
  CHECK(records->front().node_pool_id == payload["chosen"]["node_pool_id"]);

  const auto none = RunCli("place " + store + " --image x --candidates " + Candidates(dir) +
                           " --declared '{\"gpu_memory_gb\": 500}' --record exec-8");
  CHECK(none.exit_code == 5);
  CHECK_THAT(none.out, Catch::Contains("needs 500.0 GiB GPU memory; this pool offers 2g.12gb"));
  CHECK_THAT(none.err, Catch::Contains("no candidate pool fits"));
  CHECK(hwrec::ListPlacements(**opened, "exec-8")->empty());

  const auto usage = RunCli("place " + store + " --image x --candidates " + Candidates(dir) +
                            " --policy worst_fit");
  CHECK(usage.exit_code == 2);
  CHECK_THAT(usage.err, Catch::Contains("use best_fit, first_fit or fragmentation"));
}

TEST_CASE("cli: place errors still exit 1, apart from no fit", "[cli][placement]") {
  hwrec::test::TempDir dir;
  const std::string store = QuotedExampleStore(dir);
  const auto bad_declared = RunCli("place " + store + " --image x --candidates " + Candidates(dir) +
                                   " --declared '{\"pinned\": [\"gpu_memory_gb\"]}'");
  CHECK(bad_declared.exit_code == 1);
  CHECK_THAT(bad_declared.err, Catch::Contains("declare gpu_memory_gb too"));
  const auto no_file =
      RunCli("place " + store + " --image x --candidates " + ShellQuote(dir.File("absent.json")));
  CHECK(no_file.exit_code == 1);
  const auto help = RunCli("place --help");
  CHECK(help.exit_code == 0);
  CHECK_THAT(help.out, Catch::Contains("5  no candidate pool fits"));
  CHECK_THAT(help.out, Catch::Contains("--as-of"));
}

TEST_CASE(
    "cli: place with nothing declared takes the GPU need from history (the Quick start's A30)",
    "[cli][placement]") {
  hwrec::test::TempDir dir;
  const std::string store = QuotedExampleStore(dir);
  const std::string candidates = dir.File("resnet.json");
  hwrec::test::WriteFile(candidates, R"([{"node_pool_id": "sitea-arm-cpu"},
    {"node_pool_id": "sitea-a30-mig"}, {"node_pool_id": "siteb-a100-40gb-mig"}])");
  const auto r = RunCli("place " + store + " --image ghcr.io/acme/resnet-infer:1.8 --candidates " +
                        ShellQuote(candidates) + " --format json");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const auto json = nlohmann::json::parse(r.out);
  CHECK(json["chosen"]["node_pool_id"] == "siteb-a100-40gb-mig");
  std::map<std::string, nlohmann::json> by_pool;
  for (const auto& entry : json["candidates"]) by_pool[entry["node_pool_id"]] = entry;
  CHECK(by_pool["sitea-a30-mig"]["feasible"] == false);
  CHECK(by_pool["sitea-a30-mig"]["reason"] ==
        "needs 15.8 GiB GPU memory; this pool offers 2g.12gb (12 GiB)");
  CHECK(by_pool["sitea-arm-cpu"]["feasible"] == false);
  CHECK_THAT(
      by_pool["sitea-arm-cpu"]["reason"].get<std::string>(),
      Catch::Contains("needs 1 GPU; this pool has none") && Catch::Contains("ran only on x86_64"));
}

TEST_CASE("cli: place --as-of stamps the answer; --explain prints each candidate's score terms",
          "[cli][placement]") {
  hwrec::test::TempDir dir;
  const std::string store = QuotedExampleStore(dir);
  const std::string base = "place " + store +
                           " --image ghcr.io/acme/llm-finetune:2.3 --candidates " +
                           Candidates(dir) + " --declared '{\"gpu_count\": 1}'";
  const auto stamped = RunCli(base + " --as-of 2026-11-29T12:00:00Z --format json");
  INFO(stamped.err);
  REQUIRE(stamped.exit_code == 0);
  CHECK(nlohmann::json::parse(stamped.out)["as_of"] == 1795953600.0);
  const auto epoch = RunCli(base + " --as-of 1795953600");
  CHECK(epoch.exit_code == 0);
  CHECK_THAT(epoch.out, Catch::Contains("as of:    2026-11-29T12:00:00Z"));
  const auto bad = RunCli(base + " --as-of yesterday");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains("--as-of is 'yesterday': give an RFC 3339 time"));
  const auto empty = RunCli(base + " --as-of ''");  // not 1970
  CHECK(empty.exit_code == 2);
  CHECK_THAT(empty.err, Catch::Contains("--as-of is '': give an RFC 3339 time"));

  const auto explained = RunCli(base + " --as-of 2026-11-29T12:00:00Z --explain");
  INFO(explained.out);
  REQUIRE(explained.exit_code == 0);
  CHECK_THAT(explained.out, Catch::Contains("score = card waste + 2 x compute shortfall"));
  CHECK_THAT(explained.out, Catch::Contains("sitea-a100-80gb"));
}

TEST_CASE(
    "cli: the place table hoists only the notes on where the shape came from, never a pool's own "
    "finding",
    "[cli][placement]") {
  hwrec::test::TempDir dir;
  const std::string store = QuotedExampleStore(dir);
  const std::string one = dir.File("one.json");
  hwrec::test::WriteFile(one, R"([{"node_pool_id": "sitea-a30-mig"}])");
  const auto r = RunCli("place " + store + " --image ghcr.io/acme/llm-finetune:2.3 --candidates " +
                        ShellQuote(one) + " --declared '{\"gpu_compute_fraction\": 0.9}'");
  INFO(r.out);
  const auto table_at = r.out.find("node pool");
  REQUIRE(table_at != std::string::npos);
  const auto short_at = r.out.find("short of compute");
  REQUIRE(short_at != std::string::npos);
  CHECK(short_at > table_at);  // in the pool's row, not above the table
  CHECK(r.out.find("note:     short of compute") == std::string::npos);
  // Undeclared, the history notes are hoisted, and the header counts what ran.
  const auto history = RunCli("place " + store + " --image ghcr.io/acme/llm-finetune:2.3 " +
                              "--candidates " + ShellQuote(one));
  INFO(history.out);
  CHECK_THAT(history.out, Catch::Contains("executions that ran used GPUs)"));
  const auto note_at = history.out.find("note:     gpu_count 1 from history");
  CHECK(note_at != std::string::npos);
  CHECK(note_at < history.out.find("node pool"));
  const auto json = RunCli("place " + store + " --image ghcr.io/acme/llm-finetune:2.3 " +
                           "--candidates " + ShellQuote(one) + " --format json");
  const auto shape_notes = nlohmann::json::parse(json.out)["shape"]["notes"];
  REQUIRE(shape_notes.is_array());
  CHECK(shape_notes.dump().find("gpu_count 1 from history") != std::string::npos);
}
