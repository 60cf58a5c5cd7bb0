// Reading records for ingest: line lengths and endings, out-of-range numbers,
// unknown fields as warnings, and every problem of a record reported; through
// the library and the CLIs (`ingest`, `pools import`, `hardware-id`).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "base/line_reader.h"
#include "hwrec/ingest.h"
#include "store/database.h"
#include "test_support.h"

using hwrec::IngestOptions;
using hwrec::IngestSummary;
using hwrec::test::TempDir;

namespace {

std::string ParseLine(const std::string& execution_id, const std::string& extra = "") {
  return R"({"execution_id":")" + execution_id +
         R"(","action_image":"registry.example/infer:3.1","finished_at":1795968157)" +
         (extra.empty() ? std::string() : "," + extra) + "}";
}

struct Fixture {
  Fixture() : store(hwrec::test::OpenStoreOrFail(hwrec::test::NewStoreLocation(dir, "store.db"))) {}

  IngestSummary Ingest(const std::string& text, IngestOptions options = {}) {
    std::istringstream in(text);
    const auto ingestor_owner = hwrec::Ingestor::Open(*store, std::move(options)).value();
    hwrec::Ingestor& ingestor = *ingestor_owner;
    auto summary = ingestor.IngestJsonLines(in);
    INFO(summary.status().ToString());
    REQUIRE(summary.ok());
    return std::move(summary).value();
  }

  std::vector<std::string> StoredIds() {
    auto query = hwrec::store::ConnectionOf(*store).Prepare(
        "SELECT execution_id FROM observations ORDER BY execution_id");
    std::vector<std::string> ids;
    while (query->Step()) ids.push_back(query->String(0));
    return ids;
  }

  TempDir dir;
  std::unique_ptr<hwrec::Store> store;
};

std::vector<std::string> ReadAll(const std::string& text, std::size_t max, bool* truncated) {
  std::istringstream in(text);
  hwrec::internal::LineReader reader(in, max);
  std::vector<std::string> lines;
  std::string line;
  *truncated = false;
  while (reader.Next(&line)) {
    lines.push_back(line);
    *truncated = *truncated || reader.truncated();
  }
  return lines;
}

}  // namespace

TEST_CASE("line reader: LF, CRLF and a lone CR (old Mac files) each end a line",
          "[ingest][parse]") {
  bool truncated = false;
  CHECK(ReadAll("a\nb\r\nc\rd", 100, &truncated) == std::vector<std::string>{"a", "b", "c", "d"});
  CHECK(ReadAll("a\r\r\nb\n\n", 100, &truncated) == std::vector<std::string>{"a", "", "b", ""});
  CHECK_FALSE(truncated);
  CHECK(ReadAll("", 100, &truncated).empty());
  CHECK(ReadAll("abcdef\nxy", 4, &truncated) == std::vector<std::string>{"abcd", "xy"});
  CHECK(truncated);
}

TEST_CASE(
    "ingest: a line over max_line_bytes is rejected, naming the excess and the setting; "
    "the lines around it are stored",
    "[ingest][parse][engine]") {
  Fixture f;
  // Three megabytes in one line, a string value so the line is otherwise JSON.
  const std::string huge =
      ParseLine("huge", "\"site_id\":\"" + std::string(3 * 1048576, 'x') + "\"");
  const IngestSummary summary =
      f.Ingest(ParseLine("before") + "\n" + huge + "\n" + ParseLine("after") + "\n");
  CHECK(summary.accepted == 2);
  REQUIRE(summary.rejects.size() == 1);
  CHECK(summary.rejects[0].line == 2);
  CHECK(summary.rejects[0].field == "json");
  const std::size_t excess = huge.size() - 1048576;
  CHECK_THAT(summary.rejects[0].reason,
             Catch::Contains(std::to_string(huge.size()) + " bytes") &&
                 Catch::Contains(std::to_string(excess) + " bytes over the limit of 1048576") &&
                 Catch::Contains("--max-line-bytes"));
  CHECK(f.StoredIds() == std::vector<std::string>{"after", "before"});

  IngestOptions raised;
  raised.max_line_bytes = 4 * 1048576;
  CHECK(f.Ingest(huge + "\n", raised).accepted == 1);
}

TEST_CASE(
    "ingest: an id or hardware name too long to key the history rejects its record by field; "
    "the batch is stored",
    "[ingest][parse][engine]") {
  Fixture f;
  // Text no compression shortens: a PostgreSQL index entry holds 2704 bytes.
  std::mt19937 random(20261206);
  const auto noise = [&](std::size_t bytes) {
    std::string text;
    for (std::size_t i = 0; i < bytes; ++i) text += static_cast<char>('a' + random() % 26);
    return text;
  };
  const std::string long_id = noise(4000);
  const IngestSummary summary =
      f.Ingest(ParseLine("ok-1") + "\n" + ParseLine(long_id) + "\n" +
               ParseLine("image", R"("action_image":")" + noise(3000) + "\"") + "\n" +
               ParseLine("model", R"("hardware":{"gpu_brand":"NVIDIA","gpu_model":")" + noise(300) +
                                      R"(","gpu_count":1,"gpu_mode":"full"})") +
               "\n" + ParseLine("ok-2") + "\n" + ParseLine(std::string(1024, 'k')) + "\n");
  CHECK(summary.accepted == 3);
  REQUIRE(summary.rejects.size() == 3);
  CHECK(summary.rejects[0].field == "execution_id");
  CHECK_THAT(summary.rejects[0].reason,
             Catch::Contains("is 4000 bytes") && Catch::Contains("at most 1024 bytes"));
  CHECK(summary.rejects[1].field == "action_image");
  CHECK(summary.rejects[2].field == "hardware.gpu_model");
  CHECK_THAT(summary.rejects[2].reason, Catch::Contains("at most 256 bytes"));
  CHECK(f.StoredIds() == std::vector<std::string>{std::string(1024, 'k'), "ok-1", "ok-2"});
}

TEST_CASE("ingest: a file with CR-only line endings is read line by line",
          "[ingest][parse][engine]") {
  Fixture f;
  const IngestSummary summary =
      f.Ingest(ParseLine("m-1") + "\r" + ParseLine("m-2") + "\r\r" + ParseLine("m-3"));
  CHECK(summary.accepted == 3);
  CHECK(summary.rejected == 0);
  CHECK(f.StoredIds() == std::vector<std::string>{"m-1", "m-2", "m-3"});
}

TEST_CASE(
    "ingest: a number out of double range rejects its record, naming the field, and keeps "
    "the batch",
    "[ingest][parse][engine]") {
  Fixture f;
  const IngestSummary summary = f.Ingest(
      ParseLine("ok-1") + "\n" + ParseLine("big", R"("hardware":{"cpu_millicores":1e400})") + "\n" +
      ParseLine("neg", R"("cpu_millicores_max":-1e400)") + "\n" +
      ParseLine("digits", "\"memory_peak_bytes\":" + std::string(400, '7')) + "\n" +
      ParseLine("ok-2") + "\n");
  CHECK(summary.accepted == 2);
  REQUIRE(summary.rejects.size() == 3);
  CHECK(summary.rejects[0].field == "hardware.cpu_millicores");
  CHECK(summary.rejects[1].field == "cpu_millicores_max");
  CHECK(summary.rejects[2].field == "memory_peak_bytes");
  for (const auto& reject : summary.rejects) {
    CHECK_THAT(reject.reason, Catch::Contains("beyond the range of a number"));
  }
  CHECK(f.StoredIds() == std::vector<std::string>{"ok-1", "ok-2"});
}

TEST_CASE(
    "ingest: an unknown field is kept as a warning with the closest known name; strict "
    "mode rejects it",
    "[ingest][parse][engine]") {
  Fixture f;
  const std::string lines =
      ParseLine("w-1", R"("memory_peak_gib":21)") + "\n" + ParseLine("w-2") + "\n";
  const IngestSummary summary = f.Ingest(lines);
  CHECK(summary.accepted == 2);
  CHECK(summary.rejected == 0);
  REQUIRE(summary.warnings.size() == 1);
  CHECK(summary.warnings[0].line == 1);
  CHECK(summary.warnings[0].execution_id == "w-1");
  CHECK(summary.warnings[0].field == "memory_peak_gib");
  CHECK(summary.warnings[0].message == "is not a known field: did you mean `memory_peak_bytes`?");

  // A record rejected later (here: a card not in the catalog) has its reject, not a warning.
  const IngestSummary rejected =
      f.Ingest(ParseLine("w-3", R"("memory_peak_gib":21,"hardware":{"gpu_model":"A31"})") + "\n");
  CHECK(rejected.rejected == 1);
  CHECK(rejected.warnings.empty());

  IngestSummary merged;
  merged += summary;
  CHECK(merged.warnings.size() == 1);

  Fixture strict_store;
  IngestOptions strict;
  strict.strict = true;
  const IngestSummary refused = strict_store.Ingest(lines, strict);
  CHECK(refused.accepted == 1);
  REQUIRE(refused.rejects.size() == 1);
  CHECK(refused.rejects[0].field == "memory_peak_gib");
  CHECK(refused.warnings.empty());
}

TEST_CASE(
    "ingest: a reject lists every bad field of its line, in the summary and the rejects "
    "table",
    "[ingest][parse][engine]") {
  Fixture f;
  const IngestSummary summary =
      f.Ingest(ParseLine("bad", R"("gpu_utilization":2,"duration_s":-4)") + "\n");
  REQUIRE(summary.rejects.size() == 1);
  const auto& reject = summary.rejects[0];
  CHECK(reject.execution_id == "bad");
  REQUIRE(reject.errors.size() == 2);
  CHECK(reject.field == reject.errors[0].field);
  CHECK(reject.reason == reject.errors[0].reason);
  CHECK(reject.errors[0].field == "duration_s");
  CHECK(reject.errors[1].field == "gpu_utilization");
  auto row =
      hwrec::store::ConnectionOf(*f.store).Prepare("SELECT field, reason FROM ingest_rejects");
  REQUIRE(row->Step());
  CHECK(row->String(0) == "duration_s");
  CHECK(row->String(1) ==
        "duration_s: " + reject.errors[0].reason + "; gpu_utilization: " + reject.errors[1].reason);
}

TEST_CASE(
    "ingest: a duration_s beyond a year is refused, naming the field and the unit; the good "
    "records beside it are kept",
    "[ingest][parse][engine]") {
  Fixture f;
  const IngestSummary summary = f.Ingest(ParseLine("a-year", R"("duration_s":31622400)") + "\n" +
                                         ParseLine("millis", R"("duration_s":31622401)") + "\n" +
                                         ParseLine("huge", R"("duration_s":1e300)") + "\n" +
                                         ParseLine("plain", R"("duration_s":60)"));
  CHECK(summary.accepted == 2);
  REQUIRE(summary.rejects.size() == 2);
  for (const auto& reject : summary.rejects) {
    INFO(reject.execution_id);
    CHECK((reject.execution_id == "millis" || reject.execution_id == "huge"));
    CHECK(reject.field == "duration_s");
    CHECK_THAT(reject.reason, Catch::Contains("more than a year (31622400 s)"));
    CHECK_THAT(reject.reason, Catch::Contains("send the wall time in seconds"));
  }
}

TEST_CASE(
    "ingest cli: warnings and each reject's errors are shown; --strict and "
    "--max-line-bytes apply",
    "[ingest][parse][cli]") {
  TempDir dir;
  const std::string store = hwrec::test::ShellQuote(dir.File("store.db"));
  REQUIRE(hwrec::test::RunCli("init " + store).exit_code == 0);
  const std::string input = ParseLine("c-1", R"("memory_peak_gib":21)") + "\n" +
                            ParseLine("c-2", R"("gpu_utilization":2,"duration_s":-4)") + "\n";
  const auto json = hwrec::test::RunCli("ingest " + store + " - --format json", input);
  INFO(json.out << json.err);
  CHECK(json.exit_code == 3);
  const auto out = nlohmann::json::parse(json.out);
  CHECK(out["accepted"] == 1);
  CHECK(out["warning_count"] == 1);
  CHECK(out["warnings"][0]["field"] == "memory_peak_gib");
  CHECK(out["warnings"][0]["execution_id"] == "c-1");
  REQUIRE(out["rejects"][0]["errors"].size() == 2);
  CHECK(out["rejects"][0]["errors"][1]["field"] == "gpu_utilization");

  const auto table = hwrec::test::RunCli("ingest " + store + " -", input);
  CHECK_THAT(table.out, Catch::Contains("warnings               1") &&
                            Catch::Contains("did you mean `memory_peak_bytes`?") &&
                            Catch::Contains("duration_s") && Catch::Contains("gpu_utilization"));

  const auto strict = hwrec::test::RunCli("ingest " + store + " - --strict --format json",
                                          ParseLine("c-3", R"("memory_peak_gib":21)") + "\n");
  CHECK(strict.exit_code == 3);
  CHECK(nlohmann::json::parse(strict.out)["rejects"][0]["field"] == "memory_peak_gib");

  const auto limited = hwrec::test::RunCli(
      "ingest " + store + " - --max-line-bytes 20 --format json", ParseLine("c-4") + "\n");
  CHECK(limited.exit_code == 3);
  CHECK(nlohmann::json::parse(limited.out)["rejects"][0]["field"] == "json");
  CHECK(hwrec::test::RunCli("ingest " + store + " - --max-line-bytes 0", "").exit_code == 2);
}

TEST_CASE(
    "pools import cli: a number out of double range names its field and keeps the good "
    "pools",
    "[pools][parse][cli]") {
  TempDir dir;
  const std::string store = hwrec::test::ShellQuote(dir.File("store.db"));
  REQUIRE(hwrec::test::RunCli("init " + store).exit_code == 0);
  const std::string lines = R"({"site_id":"s","node_pool_id":"good","instance_type":"c6g.large"})"
                            "\n"
                            R"({"site_id":"s","node_pool_id":"big","cpu_millicores":1e400})"
                            "\n";
  const auto result = hwrec::test::RunCli("pools import " + store + " - --format json", lines);
  INFO(result.out << result.err);
  CHECK(result.exit_code == 3);
  const auto out = nlohmann::json::parse(result.out);
  CHECK(out["registered"] == 1);
  REQUIRE(out["errors"].size() == 1);
  CHECK(out["errors"][0]["field"] == "cpu_millicores");
  CHECK_THAT(out["errors"][0]["reason"].get<std::string>(),
             Catch::Contains("beyond the range of a number"));
}

TEST_CASE("hardware-id cli: a number out of double range in --profile names its field",
          "[parse][cli]") {
  const auto result = hwrec::test::RunCli(
      "hardware-id --profile " +
      hwrec::test::ShellQuote(R"({"instance_type":"x","memory_bytes":-1e400})"));
  INFO(result.out << result.err);
  CHECK(result.exit_code != 0);
  CHECK_THAT(result.err,
             Catch::Contains("memory_bytes") && Catch::Contains("beyond the range of a number"));
  CHECK_THAT(result.err, !Catch::Contains("json.exception"));
}

TEST_CASE(
    "ingest: a record built in C++ with invalid UTF-8 or a control character is rejected "
    "by field; the good ones are stored",
    "[ingest][parse][engine]") {
  Fixture f;
  auto make = [](const std::string& id) {
    hwrec::Observation o;
    o.execution_id = id;
    o.action_image = "registry.example/infer:3.1";
    o.finished_at = 1795968157;
    return o;
  };
  std::vector<hwrec::Observation> batch = {make("good-1"), make("utf8"), make("ctl"),
                                           make("good-2")};
  batch[1].action_image = "registry.example/\xC3\x28";
  batch[2].hardware.instance_type = std::string("a2\0x", 4);
  const auto ingestor_owner = hwrec::Ingestor::Open(*f.store).value();
  hwrec::Ingestor& ingestor = *ingestor_owner;
  auto summary = ingestor.Ingest(batch);
  INFO(summary.status().ToString());
  REQUIRE(summary.ok());
  CHECK(summary->accepted == 2);
  REQUIRE(summary->rejects.size() == 2);
  CHECK(summary->rejects[0].field == "action_image");
  CHECK_THAT(summary->rejects[0].reason, Catch::Contains("UTF-8"));
  CHECK(summary->rejects[1].field == "hardware.instance_type");
  CHECK_THAT(summary->rejects[1].reason, Catch::Contains("control character U+0000"));
  CHECK(f.StoredIds() == std::vector<std::string>{"good-1", "good-2"});
}

TEST_CASE(
    "ingest: two over-long lines alike in their first bytes are kept as two rejects, once each",
    "[ingest][parse][engine]") {
  Fixture f;
  // The first 1,100 bytes of both are the same; only their ends differ.
  const std::string same_start = "{\"site_id\":\"" + std::string(1100, 'x');
  const std::string lines = same_start + R"(a","execution_id":"long-a"})" + "\n" + same_start +
                            R"(b","execution_id":"long-b"})" + "\n" + ParseLine("good") + "\n";
  IngestOptions options;
  options.max_line_bytes = 1000;
  const auto rejects = [&] {
    return hwrec::store::ConnectionOf(*f.store).QueryInt64("SELECT count(*) FROM ingest_rejects");
  };
  CHECK(f.Ingest(lines, options).rejected == 2);
  CHECK(rejects() == 2);
  CHECK(f.Ingest(lines, options).rejected == 2);  // reported again, stored once
  CHECK(rejects() == 2);
  CHECK(f.StoredIds() == std::vector<std::string>{"good"});
}
