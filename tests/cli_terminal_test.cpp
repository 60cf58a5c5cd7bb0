// What hwrec prints on a terminal: control characters, escape sequences and
// invalid UTF-8 from a store, an input file or the command line are shown
// escaped in tables, header lines and error messages, never raw; JSON output
// replaces invalid UTF-8 instead of failing.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "test_support.h"

using hwrec::test::RunCli;
using hwrec::test::ShellQuote;

namespace {

// True when `text` holds a byte a terminal acts on (ESC, BEL, CR, other C0
// controls, DEL) or one that is never valid UTF-8; newlines are hwrec's own.
bool HasRawControl(const std::string& text) {
  for (char ch : text) {
    const auto b = static_cast<unsigned char>(ch);
    if ((b < 0x20 && b != '\n') || b == 0x7F || b == 0xFF) return true;
  }
  return false;
}

// An image name that clears the screen, sets a colour and ends on a byte
// that is not UTF-8.
const std::string kEvilImage = "evil\x1b[2J\x1b[31m\t\xff";
const std::string kEvilShown = "evil\\x1b[2J\\x1b[31m\\t\\xff";

}  // namespace

TEST_CASE(
    "terminal: ingest shows a rejected value and an unknown field name escaped, and keeps "
    "the good record",
    "[cli][terminal]") {
  hwrec::test::TempDir dir;
  const std::string store = QuotedExampleStore(dir);
  const std::string lines =
      R"({"execution_id":"t-1","action_image":"img","finished_at":"20\u001b[2J26","status":"success"})"
      "\n"
      R"({"execution_id":"t-2","action_image":"img","finished_at":"2026-11-28T08:41:23Z","status":"success","cpu_millicores_avg":5,"x\u001b[31mfield":1})"
      "\n";
  const auto r = RunCli("ingest " + store + " -", lines);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 3);
  CHECK_THAT(r.out, Catch::Contains("accepted               1"));
  CHECK_THAT(r.out, Catch::Contains("'20\\x1b[2J26' is not an RFC 3339 timestamp"));
  CHECK_THAT(r.out, Catch::Contains("x\\x1b[31mfield"));
  CHECK_FALSE(HasRawControl(r.out));
}

TEST_CASE(
    "terminal: recommend shows a workload given on the command line escaped, and its JSON "
    "replaces invalid UTF-8",
    "[cli][terminal]") {
  hwrec::test::TempDir dir;
  const std::string store = QuotedExampleStore(dir);
  const std::string args =
      "recommend " + store + " --image " + ShellQuote(kEvilImage) + " --pool siteb-h100-80gb";
  const auto table = RunCli(args);
  INFO(table.out << table.err);
  REQUIRE(table.exit_code == 0);
  CHECK_THAT(table.out, Catch::Contains("workload:  " + kEvilShown + "\n"));
  CHECK_FALSE(HasRawControl(table.out));

  const auto json = RunCli(args + " --format json");
  INFO(json.err);
  REQUIRE(json.exit_code == 0);
  CHECK(nlohmann::json::parse(json.out)["workload"] == "evil\x1b[2J\x1b[31m\t\xEF\xBF\xBD");
}

TEST_CASE("terminal: place shows the workload escaped in its header, table and JSON",
          "[cli][terminal]") {
  hwrec::test::TempDir dir;
  const std::string store = QuotedExampleStore(dir);
  const std::string candidates = dir.File("candidates.json");
  hwrec::test::WriteFile(candidates, R"([{"node_pool_id": "sitea-a100-80gb"}])");
  const std::string args = "place " + store + " --image " + ShellQuote(kEvilImage) +
                           " --candidates " + ShellQuote(candidates);
  const auto table = RunCli(args);
  INFO(table.out << table.err);
  CHECK_THAT(table.out, Catch::Contains("workload: " + kEvilShown + "\n"));
  CHECK_FALSE(HasRawControl(table.out));
  CHECK_FALSE(HasRawControl(table.err));

  const auto json = RunCli(args + " --format json");
  INFO(json.err);
  CHECK(json.exit_code == table.exit_code);
  CHECK(nlohmann::json::parse(json.out)["workload"] == "evil\x1b[2J\x1b[31m\t\xEF\xBF\xBD");
}

TEST_CASE("terminal: pools list and pools import show stored and rejected text escaped",
          "[cli][terminal]") {
  hwrec::test::TempDir dir;
  const std::string store = QuotedExampleStore(dir);
  const std::string pools = dir.File("pools.jsonl");
  hwrec::test::WriteFile(
      pools,
      R"({"site_id": "site-z", "node_pool_id": "z-cpu", "name": "CPU \u001b[2Jpool\u202e", "instance_type": "n2", "architecture": "x86_64", "cpu_millicores": 4000, "memory_bytes": 17179869184, "gpu_count": 0})"
      "\n"
      R"({"node_pool_id": "p\u001b[31m", "site_id": "s", "hardware": {}})"
      "\n");
  const auto import = RunCli("pools import " + store + " " + ShellQuote(pools));
  INFO(import.out << import.err);
  CHECK_THAT(import.out, Catch::Contains("registered 1"));
  CHECK_THAT(import.out, Catch::Contains("p\\x1b[31m"));
  CHECK_FALSE(HasRawControl(import.out));

  const auto list = RunCli("pools list " + store);
  INFO(list.out << list.err);
  REQUIRE(list.exit_code == 0);
  CHECK_THAT(list.out, Catch::Contains("CPU \\x1b[2Jpool\\u202e"));
  CHECK_FALSE(HasRawControl(list.out));
}

TEST_CASE("terminal: an error message quoting an argument shows it escaped", "[cli][terminal]") {
  hwrec::test::TempDir dir;
  const std::string store = QuotedExampleStore(dir);
  const auto key = RunCli("config get " + store + " " + ShellQuote("no\x1b[2Jkey\r"));
  CHECK(key.exit_code == 1);
  CHECK_THAT(key.err, Catch::Contains("unknown config key 'no\\x1b[2Jkey\\r'"));
  CHECK_FALSE(HasRawControl(key.err));

  const auto usage = RunCli("recommend " + store + " --image x --pool siteb-h100-80gb --format " +
                            ShellQuote("t\x1b[2J"));
  CHECK(usage.exit_code == 2);
  CHECK_THAT(usage.err, Catch::Contains("t\\x1b[2J"));
  CHECK_FALSE(HasRawControl(usage.err));
}
