// The recommendation commands as a user runs them on the bundled example:
// recommend (table and JSON), refresh, config list|get|set.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "test_support.h"

using hwrec::test::RunCli;
using hwrec::test::ShellQuote;

TEST_CASE("cli: recommend answers per pool in JSON with provenance", "[cli][recommend]") {
  hwrec::test::TempDir dir;
  const std::string store = QuotedExampleStore(dir);
  const auto r = RunCli("recommend " + store +
                        " --image ghcr.io/acme/llm-finetune:2.3 --pool siteb-h100-80gb "
                        "--format json");
  REQUIRE(r.exit_code == 0);
  const auto json = nlohmann::json::parse(r.out);
  CHECK(json["workload"] == "ghcr.io/acme/llm-finetune:2.3");
  CHECK(json["hardware"]["gpu_model"] == "H100 80GB");
  CHECK(json["hardware"]["instance_type"] == "a3-highgpu-8g");
  for (const char* figure : {"cpu_request_millicores", "cpu_limit_millicores", "memory_bytes",
                             "gpu_memory_gb", "gpu_compute_fraction"}) {
    INFO(figure);
    const auto& f = json["figures"][figure];
    CHECK(f["provenance"] == "exact");
    CHECK(f["samples"].get<int>() > 0);
    for (const char* key : {"value", "confidence", "lower", "upper"}) CHECK(f.contains(key));
  }
}

TEST_CASE("cli: recommend --explain shows statistic, margin and half-life", "[cli][recommend]") {
  hwrec::test::TempDir dir;
  const std::string store = QuotedExampleStore(dir);
  const auto table = RunCli("recommend " + store +
                            " --image ghcr.io/acme/resnet-infer:1.8 --gpu-model A30 "
                            "--instance-type on-prem-a30 --explain");
  REQUIRE(table.exit_code == 0);
  CHECK_THAT(table.out, Catch::Contains("p95"));
  CHECK_THAT(table.out, Catch::Contains("max of last 10"));
  CHECK_THAT(table.out, Catch::Contains("+15%"));
  CHECK_THAT(table.out, Catch::Contains("12 h"));

  const auto json = RunCli("recommend " + store +
                           " --image ghcr.io/acme/resnet-infer:1.8 --gpu-model 'H100 80GB' "
                           "--explain --format json");
  REQUIRE(json.exit_code == 0);
  const auto parsed = nlohmann::json::parse(json.out);
  CHECK(parsed["figures"]["gpu_memory_gb"]["provenance"] == "workload_any_hardware");
  CHECK(parsed["figures"]["gpu_compute_fraction"]["provenance"] == "none");
  CHECK(parsed["figures"]["gpu_memory_gb"]["statistic"] == "max of last 10");
}

TEST_CASE("cli: recommend --explain says why each figure is what it is, in the table and JSON",
          "[cli][recommend][explain]") {
  hwrec::test::TempDir dir;
  const std::string store = QuotedExampleStore(dir);
  const std::string args =
      "recommend " + store +
      " --image ghcr.io/acme/llm-finetune:2.3 --pool siteb-h100-80gb --explain";
  const auto table = RunCli(args);
  REQUIRE(table.exit_code == 0);
  CHECK_THAT(table.out, Catch::Contains("\nwhy:\n  cpu_request_millicores "));
  CHECK_THAT(table.out, Catch::Contains("  gpu_memory_gb ") &&
                            Catch::Contains(": max of last 10 = ") &&
                            Catch::Contains(", set by ") && Catch::Contains("execution ") &&
                            Catch::Contains("% of the decayed history at or below it"));

  const auto json = RunCli(args + " --format json");
  REQUIRE(json.exit_code == 0);
  const auto parsed = nlohmann::json::parse(json.out);
  const auto& gpu = parsed["figures"]["gpu_memory_gb"];
  const auto& why = gpu["why"];
  CHECK(why["source"] == "max_of_recent");
  CHECK(why["statistic"] == "max of last 10");
  CHECK(why["execution_id"].is_string());
  CHECK(why["finished_at"].is_string());
  CHECK(why["status"].is_string());
  CHECK(why.contains("oom_bump"));
  CHECK(why["value"] == gpu["value"]);
  for (const char* key : {"statistic_value", "margin", "with_margin", "rounding", "text"}) {
    INFO(key);
    CHECK(why.contains(key));
  }
  const auto& memory = parsed["figures"]["memory_bytes"]["why"];
  CHECK(memory["source"] == "percentile");
  CHECK(memory["bucket"]["lower"].get<double>() < memory["bucket"]["upper"].get<double>());
  CHECK(memory["share_at_or_below"].get<double>() >= 0.98);
  CHECK(memory["share_at_or_below"].get<double>() <= 1.0);
  CHECK(memory["value"] == parsed["figures"]["memory_bytes"]["value"]);
  // Without --explain there is no why.
  const auto plain = nlohmann::json::parse(RunCli("recommend " + store +
                                                  " --image ghcr.io/acme/llm-finetune:2.3 --pool "
                                                  "siteb-h100-80gb --format json")
                                               .out);
  CHECK_FALSE(plain["figures"]["gpu_memory_gb"].contains("why"));
}

TEST_CASE("cli: recommend names a misspelt model or pool and the fix", "[cli][recommend]") {
  hwrec::test::TempDir dir;
  const std::string store = QuotedExampleStore(dir);
  const auto model = RunCli("recommend " + store + " --image x --gpu-model 'A100 80G'");
  CHECK(model.exit_code == 1);
  CHECK_THAT(model.err, Catch::Contains("A100 80GB"));
  const auto pool = RunCli("recommend " + store + " --image x --pool nowhere");
  CHECK(pool.exit_code == 1);
  CHECK_THAT(pool.err, Catch::Contains("hwrec pools list"));
  CHECK(RunCli("recommend " + store).exit_code == 2);  // --image is required
  CHECK(RunCli("recommend " + store + " --image x --as-of yesterday").exit_code == 2);
}

TEST_CASE("cli: config list, get and set with validation", "[cli][recommend]") {
  hwrec::test::TempDir dir;
  const std::string store = QuotedExampleStore(dir);
  const auto list = RunCli("config list " + store + " --format json");
  REQUIRE(list.exit_code == 0);
  const auto entries = nlohmann::json::parse(list.out);
  CHECK(entries.size() >= 15);
  CHECK(RunCli("config get " + store + " half_life_hours").out == "12\n");
  const auto bad = RunCli("config set " + store + " memory.statistic p97");
  CHECK(bad.exit_code == 1);
  CHECK_THAT(bad.err, Catch::Contains("p90, p95, p98, p99, avg, max"));
  CHECK(RunCli("config set " + store + " half_life_hours 24").exit_code == 0);
  CHECK(RunCli("config get " + store + " half_life_hours").out == "24\n");
}

TEST_CASE("cli: refresh rewrites the materialised recommendations", "[cli][recommend]") {
  hwrec::test::TempDir dir;
  const std::string store = QuotedExampleStore(dir);
  const auto refresh = RunCli("refresh " + store);
  CHECK(refresh.exit_code == 0);
  CHECK_THAT(refresh.out, Catch::Contains("refreshed"));
  const auto rebuild = RunCli("refresh " + store + " --rebuild");
  CHECK(rebuild.exit_code == 0);
  CHECK_THAT(rebuild.out, Catch::Contains("rebuilt aggregates"));
}

TEST_CASE("cli: recommend's confidence measures evidence, not age, and names the newest sample",
          "[cli][recommend][confidence]") {
  hwrec::test::TempDir dir;
  const std::string store = QuotedExampleStore(dir);
  const std::string ask = "recommend " + store +
                          " --image ghcr.io/acme/llm-finetune:2.3 --pool siteb-h100-80gb "
                          "--format json";
  const auto now = RunCli(ask);
  const auto year_later = RunCli(ask + " --as-of 2027-12-01T00:00:00Z");
  REQUIRE(now.exit_code == 0);
  REQUIRE(year_later.exit_code == 0);
  const auto a = nlohmann::json::parse(now.out);
  const auto b = nlohmann::json::parse(year_later.out);
  for (const auto& [name, figure] : a["figures"].items()) {
    INFO(name);
    // Six executions of the example behind each figure: well above the 0.04
    // that an age-based confidence gave three days later.
    CHECK(figure["confidence"].get<double>() > 0.3);
    CHECK(figure["confidence"] == b["figures"][name]["confidence"]);
    REQUIRE(figure["last_seen"].is_string());
    CHECK_THAT(figure["last_seen"].get<std::string>(), Catch::StartsWith("2026-11-2"));
    CHECK(figure["last_seen"] == b["figures"][name]["last_seen"]);
  }
  const auto table = RunCli("recommend " + store +
                            " --image ghcr.io/acme/llm-finetune:2.3 --pool siteb-h100-80gb");
  REQUIRE(table.exit_code == 0);
  CHECK_THAT(table.out, Catch::Contains("last seen"));
  CHECK_THAT(table.out,
             Catch::Contains(a["figures"]["gpu_memory_gb"]["last_seen"].get<std::string>()));
  const auto unknown = RunCli("recommend " + store +
                              " --image nobody:1 --pool siteb-h100-80gb "
                              "--format json");
  REQUIRE(unknown.exit_code == 0);
  CHECK(nlohmann::json::parse(unknown.out)["figures"]["gpu_memory_gb"]["last_seen"].is_null());
}

TEST_CASE("cli: recommend transfers a figure to a card the workload never ran on, and says so",
          "[cli][recommend][transfer]") {
  hwrec::test::TempDir dir;
  const std::string store = ShellQuote(dir.File("transfer.db"));
  REQUIRE(RunCli("init " + store).exit_code == 0);
  REQUIRE(RunCli("pools import " + store + " " +
                 ShellQuote(hwrec::test::SourcePath("examples/pools.jsonl")))
              .exit_code == 0);
  // Four workloads on both cards use half the share of an H100 that they use
  // of an A100, and a fifth more GPU memory; new:1 ran on the A100 only.
  std::string lines;
  const auto line = [&](const std::string& id, const std::string& image, const std::string& pool,
                        double utilization, double memory) {
    lines += nlohmann::json{{"execution_id", id},
                            {"action_image", image},
                            {"finished_at", 1795968000},
                            {"node_pool_id", pool},
                            {"gpu_utilization", utilization},
                            {"gpu_memory_peak_gb", memory}}
                 .dump() +
             "\n";
  };
  for (int w = 0; w < 4; ++w) {
    const std::string image = "job-" + std::to_string(w) + ":1";
    for (int i = 0; i < 3; ++i) {
      const std::string id = image + "-" + std::to_string(i);
      line(id + "-a", image, "sitea-a100-80gb", 0.4 + 0.1 * w, 20 + 2 * w);
      line(id + "-h", image, "siteb-h100-80gb", (0.4 + 0.1 * w) * 0.5, (20 + 2 * w) * 1.2);
    }
  }
  for (int i = 0; i < 3; ++i) line("new-" + std::to_string(i), "new:1", "sitea-a100-80gb", 0.8, 30);
  hwrec::test::WriteFile(dir.File("records.jsonl"), lines);
  REQUIRE(RunCli("ingest " + store + " " + ShellQuote(dir.File("records.jsonl"))).exit_code == 0);

  const std::string ask = "recommend " + store + " --image new:1 --pool siteb-h100-80gb";
  const auto json = nlohmann::json::parse(RunCli(ask + " --format json").out);
  const auto& share = json["figures"]["gpu_compute_fraction"];
  CHECK(share["provenance"] == "transferred");
  CHECK(share["transfer"]["source"]["gpu_model"] == "A100 80GB");
  CHECK(share["transfer"]["workloads"] == 4);
  CHECK(share["transfer"]["estimate"].get<double>() == Approx(0.4).epsilon(0.1));  // 0.8 x 0.5
  CHECK(json["figures"]["gpu_memory_gb"]["provenance"] == "transferred");
  const auto table = RunCli(ask);
  REQUIRE(table.exit_code == 0);
  CHECK_THAT(table.out, Catch::Contains("transferred from A100 80GB x0.5"));
  const auto explained = RunCli(ask + " --explain");
  CHECK_THAT(explained.out, Catch::Contains("learned on NVIDIA A100 80GB ×"));
  // Off, as its setting allows: a share is never copied to another card.
  REQUIRE(RunCli("config set " + store + " gpu_compute.transfer false").exit_code == 0);
  const auto off = nlohmann::json::parse(RunCli(ask + " --format json").out);
  CHECK(off["figures"]["gpu_compute_fraction"]["provenance"] == "none");
  CHECK(off["figures"]["gpu_compute_fraction"]["transfer"].is_null());
}
