// Ingest as a caller watching a long run sees it: a callback per committed
// batch in the library, `--format jsonl` lines and a terminal progress bar in
// the CLI, all on the bundled example.
#include <catch2/catch.hpp>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "hwrec/ingest.h"
#include "test_support.h"

using hwrec::test::RunCli;
using hwrec::test::ShellQuote;
using hwrec::test::SourcePath;

namespace {

const std::string& ExampleObservations() {
  static const std::string path = SourcePath("examples/observations.jsonl");
  return path;
}

std::int64_t ExampleLines() {
  std::ifstream in(ExampleObservations());
  std::int64_t lines = 0;
  for (std::string text; std::getline(in, text);) ++lines;
  return lines;
}

// A new store with the bundled pools registered.
std::string StoreWithPools(const hwrec::test::TempDir& dir) {
  const std::string store = ShellQuote(dir.File("example.db"));
  REQUIRE(RunCli("init " + store).exit_code == 0);
  REQUIRE(RunCli("pools import " + store + " " + ShellQuote(SourcePath("examples/pools.jsonl")))
              .exit_code == 0);
  return store;
}

std::vector<nlohmann::json> JsonLines(const std::string& out) {
  std::vector<nlohmann::json> lines;
  std::istringstream in(out);
  for (std::string text; std::getline(in, text);) lines.push_back(nlohmann::json::parse(text));
  return lines;
}

}  // namespace

TEST_CASE("ingest: the library reports each committed batch with its last line and running counts",
          "[ingest][progress]") {
  hwrec::test::TempDir dir;
  auto store = hwrec::test::OpenStoreOrFail(dir.File("store.db"));
  hwrec::IngestOptions options;
  options.batch_size = 10;
  std::vector<hwrec::IngestProgress> calls;
  std::vector<std::int64_t> stored;
  options.on_batch_committed = [&](const hwrec::IngestProgress& progress) {
    calls.push_back(progress);
    const auto& t = *progress.totals;
    stored.push_back(t.accepted + t.duplicates + t.conflicts + t.rejected);
  };
  std::ifstream in(ExampleObservations());
  auto summary = hwrec::Ingestor::Open(*store, options).value()->IngestJsonLines(in);
  REQUIRE(summary.ok());

  const std::int64_t lines = ExampleLines();
  REQUIRE(calls.size() == static_cast<std::size_t>((lines + 9) / 10));
  for (std::size_t i = 0; i < calls.size(); ++i) {
    CHECK(calls[i].batches == static_cast<std::int64_t>(i + 1));
    const std::int64_t through =
        std::min<std::int64_t>(lines, 10 * static_cast<std::int64_t>(i + 1));
    CHECK(calls[i].committed_through_line == through);
    CHECK(stored[i] == through);  // every line up to there is counted once
  }
}

TEST_CASE("ingest: observations built in C++ are acknowledged per committed batch too",
          "[ingest][progress]") {
  hwrec::test::TempDir dir;
  auto store = hwrec::test::OpenStoreOrFail(dir.File("store.db"));
  std::vector<hwrec::Observation> observations(25);
  for (std::size_t i = 0; i < observations.size(); ++i) {
    observations[i].execution_id = "c-" + std::to_string(i);
    observations[i].action_image = "ghcr.io/acme/etl:1";
    observations[i].finished_at = 1795968157;
  }
  observations[12].action_image.clear();  // a reject is counted in its batch
  hwrec::IngestOptions options;
  options.batch_size = 10;
  std::vector<std::pair<std::int64_t, std::int64_t>> calls;  // through line, rejected so far
  options.on_batch_committed = [&](const hwrec::IngestProgress& progress) {
    calls.emplace_back(progress.committed_through_line, progress.totals->rejected);
  };
  REQUIRE(hwrec::Ingestor::Open(*store, options).value()->Ingest(observations).ok());
  using Call = std::pair<std::int64_t, std::int64_t>;
  CHECK(calls == std::vector<Call>{{10, 0}, {20, 1}, {25, 1}});
}

TEST_CASE("ingest cli: --format jsonl prints a line per committed batch, then the summary",
          "[ingest][progress][cli]") {
  hwrec::test::TempDir dir;
  const std::string store = StoreWithPools(dir);
  const auto r = RunCli("ingest " + store + " " + ShellQuote(ExampleObservations()) +
                        " --format jsonl --batch-size 10");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 3);  // the example holds bad records on purpose
  const auto lines = JsonLines(r.out);
  const std::int64_t total = ExampleLines();
  const auto batches = static_cast<std::size_t>((total + 9) / 10);
  REQUIRE(lines.size() == batches + 1);
  for (std::size_t i = 0; i < batches; ++i) {
    CHECK(lines[i]["event"] == "batch_committed");
    CHECK(lines[i]["committed_through_line"] ==
          std::min<std::int64_t>(total, 10 * static_cast<std::int64_t>(i + 1)));
    CHECK(lines[i]["batches"] == i + 1);
    CHECK(lines[i].contains("accepted"));
    CHECK(lines[i].contains("rejected"));
  }
  const auto& summary = lines.back();
  CHECK(summary["event"] == "summary");
  CHECK(summary["accepted"] == lines[batches - 1]["accepted"]);
  CHECK(summary["rejected"] == lines[batches - 1]["rejected"]);
  CHECK(summary["rejects"].size() == summary["rejected"]);
  CHECK_THAT(r.err, !Catch::Contains("ingesting"));  // stderr is not a terminal here

  CHECK(RunCli("ingest " + store + " - --batch-size 0", "").exit_code == 2);
  CHECK(RunCli("ingest " + store + " - --format yaml", "").exit_code == 2);
  // A negative line limit is refused, not read as a huge one (no limit).
  const auto negative = RunCli("ingest " + store + " - --max-line-bytes -1", "");
  CHECK(negative.exit_code == 2);
  CHECK_THAT(negative.err, Catch::Contains("--max-line-bytes is -1: give the longest line"));
}

TEST_CASE("ingest cli: a progress bar is drawn on stderr only when it is a terminal",
          "[ingest][progress][cli]") {
  // util-linux `script` runs the command on a pseudo-terminal.
  if (hwrec::test::RunShell("command -v script").exit_code != 0) {
    WARN("`script` is not installed: the terminal case is not checked");
    return;
  }
  hwrec::test::TempDir dir;
  const std::string store = StoreWithPools(dir);
  const std::string command = ShellQuote(hwrec::test::CliPath()) + " ingest " + store + " " +
                              ShellQuote(ExampleObservations()) + " --batch-size 10";
  const auto run = hwrec::test::RunShell("script -qec " + ShellQuote(command) + " /dev/null");
  INFO(run.out << run.err);
  CHECK_THAT(run.out, Catch::Contains("ingesting " + ExampleObservations() + " ["));
  CHECK_THAT(run.out, Catch::Contains("100% line " + std::to_string(ExampleLines())));
}
