// Writers and readers together: a streaming ingest that waits for input holds
// no lock, and plain sqlite3 readers (no busy timeout) are never refused while
// hwrec writes. Run as processes, as operators do.
#include <SQLiteCpp/SQLiteCpp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <future>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "test_support.h"
#include "util/line_reader.h"

using hwrec::test::RunCli;
using hwrec::test::ShellQuote;
using hwrec::test::TempDir;

namespace {

std::string Line(const std::string& execution_id) {
  return R"({"execution_id":")" + execution_id +
         R"(","action_image":"registry.example/infer:3.1","finished_at":1795968157,)"
         R"("cpu_millicores_avg":900,"memory_peak_bytes":1073741824})";
}

// Observations a reader sees, or -1 when it cannot read them now.
std::int64_t StoredObservations(const std::string& store) {
  try {
    SQLite::Database db(store, SQLite::OPEN_READONLY, 5000);
    return db.execAndGet("SELECT count(*) FROM observations").getInt64();
  } catch (const SQLite::Exception&) {
    return -1;
  }
}

// Polls `done` for up to 10 s: long enough for any machine, no time asserted.
template <typename Done>
bool Eventually(Done done) {
  for (int attempt = 0; attempt < 200; ++attempt) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

void Send(FILE* pipe, const std::string& text) {
  REQUIRE(std::fputs(text.c_str(), pipe) >= 0);
  REQUIRE(std::fflush(pipe) == 0);
}

}  // namespace

TEST_CASE(
    "line reader: a descriptor that pauses returns the lines so far and continues the cut one",
    "[ingest][parse][locks]") {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  hwrec::internal::LineReader reader(fds[0], 100);
  using Outcome = hwrec::internal::LineReader::Outcome;
  std::string line;
  REQUIRE(write(fds[1], "a\nb", 3) == 3);
  CHECK(reader.NextWithin(&line, 20) == Outcome::kLine);
  CHECK(line == "a");
  CHECK(reader.NextWithin(&line, 20) == Outcome::kPaused);  // "b" has no ending yet
  REQUIRE(write(fds[1], "c\r", 2) == 2);
  CHECK(reader.NextWithin(&line, 20) == Outcome::kLine);  // a lone CR ends it, unawaited
  CHECK(line == "bc");
  REQUIRE(write(fds[1], "\nd", 2) == 2);
  close(fds[1]);
  CHECK(reader.NextWithin(&line, 20) == Outcome::kLine);  // the LF of CRLF is skipped
  CHECK(line == "d");
  CHECK(reader.NextWithin(&line, 20) == Outcome::kEnd);
  CHECK_FALSE(reader.failed());
  close(fds[0]);
}

TEST_CASE(
    "ingest -: a stream that pauses has its records committed; other writers and readers go on "
    "while it waits",
    "[ingest][locks][cli]") {
  TempDir dir;
  const std::string store = dir.File("store.db");
  REQUIRE(RunCli("init " + ShellQuote(store)).exit_code == 0);
  const std::string out = dir.File("ingest.out");
  const std::string command = ShellQuote(HWREC_CLI_PATH) + " ingest " + ShellQuote(store) +
                              " - --format jsonl >" + ShellQuote(out) + " 2>&1";
  FILE* producer = popen(command.c_str(), "w");
  REQUIRE(producer != nullptr);
  Send(producer, Line("s-1") + "\n" + Line("s-2") + "\n" + Line("s-3") + "\n");

  // The pipe stays open: the streamed records are visible all the same.
  CHECK(Eventually([&] { return StoredObservations(store) == 3; }));
  // Another writer is not locked out by the waiting ingest.
  const auto set = RunCli("config set " + ShellQuote(store) + " half_life_hours 24");
  INFO(set.out + set.err);
  CHECK(set.exit_code == 0);
  Send(producer, Line("s-4") + "\n\n" + Line("s-2") + "\n");
  CHECK(Eventually([&] { return StoredObservations(store) == 4; }));

  const int status = pclose(producer);
  const std::string output = hwrec::test::ReadFile(out);
  INFO(output);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  const std::string last = output.substr(output.rfind('\n', output.size() - 2) + 1);
  const auto summary = nlohmann::json::parse(last);
  CHECK(summary["event"] == "summary");
  CHECK(summary["accepted"] == 4);
  CHECK(summary["duplicates"] == 1);
}

