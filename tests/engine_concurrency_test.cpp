// Several Runner replicas writing one store at once, as processes: on
// PostgreSQL (HWREC_TEST_POSTGRESQL, the [engine] run) and on a SQLite file.
// Writers that meet on the same workloads, hardware keys and execution ids
// lose nothing and count nothing twice; a writer killed mid-batch leaves each
// batch whole or absent; a server restart mid-run costs the call one batch
// sent again, by hwrec itself.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "hwrec/check.h"
#include "hwrec/ingest.h"
#include "hwrec/node_pool.h"
#include "hwrec/placement.h"
#include "hwrec/placement_json.h"
#include "hwrec/recommend.h"
#include "hwrec/store.h"
#include "store/database.h"
#include "test_support.h"

using hwrec::test::NewStoreLocation;
using hwrec::test::TempDir;

namespace {

// Record `i` of a shared pool: five workloads on three kinds of hardware
// (two CPU instance types and an L4), the same content whoever sends it.
std::string Record(int i) {
  static const char* const kHardware[] = {
      R"({"instance_type":"n2-standard-8","architecture":"x86_64","cpu_millicores":8000,)"
      R"("memory_bytes":34359738368,"gpu_count":0})",
      R"({"instance_type":"c3-standard-4","architecture":"x86_64","cpu_millicores":4000,)"
      R"("memory_bytes":17179869184,"gpu_count":0})",
      R"({"instance_type":"g2-standard-8","architecture":"x86_64","cpu_millicores":8000,)"
      R"("memory_bytes":34359738368,"gpu_count":1,"gpu_mode":"full","gpu_total":1,)"
      R"("gpu_brand":"NVIDIA","gpu_model":"L4"})"};
  const bool gpu = i % 3 == 2;
  return fmt::format(
      R"({{"execution_id":"rep-{}","action_image":"registry.example/job-{}:1","finished_at":{},)"
      R"("status":"success","duration_s":{},"hardware":{},"cpu_millicores_avg":{},)"
      R"("memory_peak_bytes":{}{}}})",
      i, i % 5, 1795968157 + i * 7, 60 + i % 17, kHardware[i % 3], 500 + (i * 37) % 3000,
      (1LL << 28) + static_cast<long long>(i % 23) * (1LL << 24),
      gpu ? fmt::format(R"(,"gpu_utilization":0.{},"gpu_memory_peak_gb":{})", 10 + i % 80,
                        4 + i % 9)
          : "");
}

std::string Records(int first, int end) {
  std::string lines;
  for (int i = first; i < end; ++i) lines += Record(i) + "\n";
  return lines;
}

// Opens the store at `location` for a child process's writes.
std::unique_ptr<hwrec::Store> OpenForWriter(const std::string& location) {
  hwrec::StoreOptions options;
  options.busy_timeout_ms = 60000;  // SQLite writers wait for each other
  auto store = hwrec::Store::Open(location, options);
  if (!store.ok()) {
    std::cerr << "writer: " << store.status().ToString() << "\n";
    _exit(90);
  }
  return std::move(store).value();
}

// In a child: ingests `lines` in batches of `batch` in one call; writes
// "accepted duplicates retried_batches" (or the error) to `report`, and, with
// `acknowledged`, the last line of each batch committed there as it commits
// (what a Runner would acknowledge); exit 0 on success.
[[noreturn]] void IngestAndExit(const std::string& location, const std::string& lines,
                                std::size_t batch, const std::string& report,
                                const std::string& acknowledged = "") try {
  auto store = OpenForWriter(location);
  hwrec::IngestOptions options;
  options.batch_size = batch;
  if (!acknowledged.empty()) {
    options.on_batch_committed = [&](const hwrec::IngestProgress& progress) {
      hwrec::test::WriteFile(acknowledged, std::to_string(progress.committed_through_line));
    };
  }
  auto ingestor = hwrec::Ingestor::Open(*store, options);
  if (!ingestor.ok()) _exit(91);
  std::istringstream in(lines);
  auto summary = (*ingestor)->IngestJsonLines(in);
  hwrec::test::WriteFile(report, summary.ok()
                                     ? fmt::format("{} {} {}", summary->accepted,
                                                   summary->duplicates, summary->retried_batches)
                                     : summary.status().ToString());
  _exit(summary.ok() ? 0 : 1);
} catch (...) {
  _exit(99);  // a child never returns into the test runner
}

// A writer's report, as IngestAndExit wrote it.
struct Reported {
  std::int64_t accepted = 0;
  std::int64_t duplicates = 0;
  std::int64_t retried = 0;
};

Reported ReadReported(const std::string& report) {
  Reported r;
  std::istringstream counts(report);
  counts >> r.accepted >> r.duplicates >> r.retried;
  return r;
}

int WaitFor(pid_t pid) {
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::int64_t Count(hwrec::Store& store, const std::string& sql) {
  return hwrec::store::ConnectionOf(store).QueryInt64(sql).value_or(-1);
}

// One call ingesting `records` records in batches of 10 (IngestAndExit, in a
// child), with `interrupt` (a server restart, a failover) run once 200 are
// stored. The call must finish by itself, every record stored once. The
// interruption cuts off at most one batch, which hwrec sends again (one that
// came between two batches is met by the next one's BEGIN, connected again
// with nothing sent); a batch whose commit went through as the connection
// went is found stored when sent again, its records counted as duplicates.
void RequireCallSurvives(const std::string& location, int records, const TempDir& dir,
                         const std::function<void()>& interrupt,
                         const std::string& acknowledged = "") {
  const std::string report = dir.File("call");
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) IngestAndExit(location, Records(0, records), 10, report, acknowledged);
  {
    auto watcher = hwrec::test::OpenStoreOrFail(location);
    for (int i = 0; i < 4000 && Count(*watcher, "SELECT count(*) FROM observations") < 200; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  interrupt();
  const int exit_code = WaitFor(pid);
  const std::string call = hwrec::test::ReadFile(report);
  INFO("the call: " << call);
  REQUIRE(exit_code == 0);
  const Reported reported = ReadReported(call);
  CHECK(reported.retried <= 1);
  CHECK(reported.accepted + reported.duplicates == records);
  CHECK(reported.duplicates <= 10 * reported.retried);
  auto store = hwrec::test::OpenStoreOrFail(location);
  CHECK(Count(*store, "SELECT count(*) FROM observations") == records);
  CHECK(Count(*store, "SELECT count(DISTINCT execution_id) FROM observations") == records);
}

// Every aggregate equals a rebuild from the observations (`hwrec check`).
void RequireAggregatesEqualRebuild(const std::string& location) {
  auto report = hwrec::CheckStore(location);
  INFO(report.status().ToString());
  REQUIRE(report.ok());
  bool checked = false;
  for (const hwrec::CheckResult& check : report->checks) {
    if (check.name != "aggregates" && check.name != "recommendations") continue;
    std::string problems;  // one INFO: an INFO in a loop's body is gone when it ends
    for (const std::string& problem : check.problems) problems += "\n  " + problem;
    INFO(check.name << ": " << check.summary << problems);
    CHECK(check.state == hwrec::CheckState::kOk);
    checked = true;
  }
  REQUIRE(checked);
}

// The test server's directory (scripts/with_pg.sh), or nullptr on SQLite,
// where the case has nothing to do.
const char* TestServer() {
  const char* server = std::getenv("HWREC_TEST_POSTGRESQL_DIR");
  if (hwrec::test::TestingPostgresql() && server != nullptr) return server;
  SUCCEED("PostgreSQL only: a SQLite file has no server to restart");
  return nullptr;
}

// A fast restart: every client connection is cut off.
void RestartServer(const char* server) {
  const auto restarted = hwrec::test::RunShell(
      hwrec::test::ShellQuote(hwrec::test::SourcePath("scripts/pg_server.sh")) + " restart " +
      hwrec::test::ShellQuote(server));
  INFO(restarted.err);
  REQUIRE(restarted.exit_code == 0);
}

unsigned Seed() {
  const char* given = std::getenv("HWREC_TEST_SEED");
  const unsigned seed = given != nullptr ? static_cast<unsigned>(std::strtoul(given, nullptr, 10))
                                         : std::random_device{}();
  std::cout << "engine_concurrency_test: seed " << seed << " (HWREC_TEST_SEED=" << seed
            << " repeats it)\n";
  return seed;
}

// The lines `sent`, once for each of `writers` writers, each in an order of
// its own drawn from `seed`.
std::vector<std::string> InOrdersOfTheirOwn(const std::vector<std::string>& sent, int writers,
                                            unsigned seed) {
  std::vector<std::string> lines(static_cast<std::size_t>(writers));
  for (int k = 0; k < writers; ++k) {
    std::vector<std::size_t> order(sent.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), std::mt19937(seed + static_cast<unsigned>(k)));
    for (const std::size_t i : order) lines[static_cast<std::size_t>(k)] += sent[i] + "\n";
  }
  return lines;
}

// What the writers reported, summed; `all_ok` when every one exited 0.
struct WriterTotals {
  std::int64_t accepted = 0;
  std::int64_t duplicates = 0;
  std::int64_t retried = 0;
  bool all_ok = true;
  std::string reports;  // each writer's exit code and report, for INFO
};

// Every writer finished, `accepted` records were accepted once in all, and
// no batch ran again.
void RequireQueuedWithoutRetry(const WriterTotals& totals, std::int64_t accepted, unsigned seed) {
  INFO("seed " << seed << totals.reports);
  REQUIRE(totals.all_ok);
  CHECK(totals.accepted == accepted);
  CHECK(totals.retried == 0);
}

// Writer k ingests lines[k] into the store at `location` in batches of
// `batch`, all at once, as processes; waits for every one.
WriterTotals RunWriters(const std::string& location, const std::vector<std::string>& lines,
                        std::size_t batch, const TempDir& dir) {
  std::vector<pid_t> children;
  for (std::size_t k = 0; k < lines.size(); ++k) {
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) IngestAndExit(location, lines[k], batch, dir.File(fmt::format("writer-{}", k)));
    children.push_back(pid);
  }
  WriterTotals totals;
  for (std::size_t k = 0; k < children.size(); ++k) {
    const int exit_code = WaitFor(children[k]);
    const std::string report = hwrec::test::ReadFile(dir.File(fmt::format("writer-{}", k)));
    totals.reports += fmt::format("\n  writer {}: exit {}: {}", k, exit_code, report);
    totals.all_ok = totals.all_ok && exit_code == 0;
    const Reported reported = ReadReported(report);
    totals.accepted += reported.accepted;
    totals.duplicates += reported.duplicates;
    totals.retried += reported.retried;
  }
  return totals;
}

}  // namespace

TEST_CASE("replicas: writers meeting on the same workloads and keys lose and double-count nothing",
          "[engine][concurrency]") {
  TempDir dir;
  const std::string location = NewStoreLocation(dir, "shared.db");
  hwrec::test::OpenStoreOrFail(location);
  // Writer k sends records [k*h, (k+2)*h): each overlaps its neighbours by
  // half, in small batches so that their transactions interleave.
  constexpr int kWriters = 4;
  constexpr int kHalf = 120;
  std::vector<std::string> lines;
  for (int k = 0; k < kWriters; ++k) lines.push_back(Records(k * kHalf, (k + 2) * kHalf));
  const WriterTotals totals = RunWriters(location, lines, 15, dir);
  INFO(totals.reports);
  REQUIRE(totals.all_ok);
  const std::int64_t accepted = totals.accepted;
  const std::int64_t duplicates = totals.duplicates;
  const int distinct = (kWriters + 1) * kHalf;
  // Each record is stored once, by whichever writer came first; the others
  // were told it was a duplicate.
  CHECK(accepted == distinct);
  CHECK(duplicates == kWriters * 2 * kHalf - distinct);
  auto store = hwrec::test::OpenStoreOrFail(location);
  CHECK(Count(*store, "SELECT count(*) FROM observations") == distinct);
  CHECK(Count(*store, "SELECT count(DISTINCT execution_id) FROM observations") == distinct);
  CHECK(Count(*store, "SELECT count(*) FROM workloads") == 5);
  store.reset();
  RequireAggregatesEqualRebuild(location);
}

TEST_CASE("replicas: writers sending the same records in other orders queue, never fail or retry",
          "[engine][concurrency]") {
  // Every writer sends the same 400 records, each in an order of its own, in
  // batches of 100: their inserts and aggregate writes meet on every key.
  // Writers take what they share in one order (new workloads by image,
  // observations by execution id, aggregates by workload), so on PostgreSQL
  // none waits for another in a cycle: no deadlock, no batch run again.
  const unsigned seed = Seed();
  TempDir dir;
  const std::string location = NewStoreLocation(dir, "orders.db");
  hwrec::test::OpenStoreOrFail(location);
  constexpr int kWriters = 4;
  constexpr int kRecords = 400;
  std::vector<std::string> sent;
  for (int i = 0; i < kRecords; ++i) sent.push_back(Record(i));
  const WriterTotals totals =
      RunWriters(location, InOrdersOfTheirOwn(sent, kWriters, seed), 100, dir);
  RequireQueuedWithoutRetry(totals, kRecords, seed);
  auto store = hwrec::test::OpenStoreOrFail(location);
  CHECK(Count(*store, "SELECT count(*) FROM observations") == kRecords);
  store.reset();
  RequireAggregatesEqualRebuild(location);
}

TEST_CASE("replicas: writers refusing the same records in other orders queue too",
          "[engine][concurrency]") {
  // Beside 400 good records, every writer sends the same 100 bad ones
  // (refused: ingest_rejects) and the same 100 records that differ from what
  // is stored under their ids (ingest_conflicts), each writer in an order of
  // its own. Rejects and conflicts are written in the order of their keys,
  // after the observations: no deadlock, no batch run again.
  const unsigned seed = Seed();
  TempDir dir;
  const std::string location = NewStoreLocation(dir, "refusals.db");
  constexpr int kGood = 400;
  constexpr int kBad = 100;
  constexpr int kConflicting = 100;
  {
    auto store = hwrec::test::OpenStoreOrFail(location);
    std::istringstream stored(Records(kGood, kGood + kConflicting));
    REQUIRE((*hwrec::Ingestor::Open(*store))->IngestJsonLines(stored).ok());
  }
  const auto bad = [](int i) {
    std::string record = Record(i);
    record.replace(record.find("\"status\":\"success\""), 18, "\"status\":\"unheard\"");
    return record;
  };
  const auto conflicting = [](int i, const std::string& digit) {  // another duration
    std::string record = Record(i);
    record.insert(record.find("\"duration_s\":") + 13, digit);
    return record;
  };
  std::vector<std::string> shared;
  for (int i = 0; i < kGood; ++i) shared.push_back(Record(i));
  for (int i = 0; i < kBad; ++i) shared.push_back(bad(10000 + i));
  for (int i = kGood; i < kGood + kConflicting; ++i) shared.push_back(conflicting(i, "1"));
  // And each writer's own 10 bad and 10 conflicting records: rows only it
  // writes, which a writer that dropped what it held would leave missing.
  constexpr int kWriters = 4;
  constexpr int kOwn = 10;
  std::vector<std::string> lines;
  for (int k = 0; k < kWriters; ++k) {
    std::vector<std::string> sent = shared;
    for (int j = 0; j < kOwn; ++j) {
      sent.push_back(bad(20000 + k * kOwn + j));
      sent.push_back(conflicting(kGood + j, std::to_string(k + 2)));
    }
    lines.push_back(InOrdersOfTheirOwn(sent, 1, seed + static_cast<unsigned>(k)).front());
  }
  const WriterTotals totals = RunWriters(location, lines, 100, dir);
  RequireQueuedWithoutRetry(totals, kGood, seed);
  auto store = hwrec::test::OpenStoreOrFail(location);
  CHECK(Count(*store, "SELECT count(*) FROM observations") == kGood + kConflicting);
  CHECK(Count(*store, "SELECT count(*) FROM ingest_rejects") == kBad + kWriters * kOwn);
  CHECK(Count(*store, "SELECT count(*) FROM ingest_conflicts") == kConflicting + kWriters * kOwn);
  store.reset();
  RequireAggregatesEqualRebuild(location);
}

TEST_CASE("replicas: a writer killed mid-batch leaves each batch whole or absent",
          "[engine][concurrency]") {
  const unsigned seed = Seed();
  std::mt19937 random(seed);
  TempDir dir;
  const std::string location = NewStoreLocation(dir, "killed.db");
  hwrec::test::OpenStoreOrFail(location);
  constexpr int kBatch = 40;
  constexpr int kBatches = 60;
  const std::string lines = Records(0, kBatch * kBatches);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) IngestAndExit(location, lines, kBatch, dir.File("killed"));
  // Killed once some batches are in, at a moment the seed picks.
  auto watcher = hwrec::test::OpenStoreOrFail(location);
  for (int i = 0; i < 2000 && Count(*watcher, "SELECT count(*) FROM observations") < kBatch; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::this_thread::sleep_for(
      std::chrono::microseconds(std::uniform_int_distribution<int>(0, 20000)(random)));
  kill(pid, SIGKILL);
  WaitFor(pid);
  std::int64_t stored = 0;
  for (int b = 0; b < kBatches; ++b) {
    auto in_batch = hwrec::store::ConnectionOf(*watcher)
                        .Prepare("SELECT count(*) FROM observations WHERE execution_id IN (" + [&] {
                          std::string marks;
                          for (int i = 0; i < kBatch; ++i) marks += i == 0 ? "?" : ", ?";
                          return marks;
                        }() + ")");
    for (int i = 0; i < kBatch; ++i) in_batch->Bind(i + 1, "rep-" + std::to_string(b * kBatch + i));
    REQUIRE(in_batch->Step());
    const std::int64_t n = in_batch->Int64(0);
    INFO("batch " << b << " holds " << n << " of " << kBatch << " (seed " << seed << ")");
    CHECK((n == 0 || n == kBatch));
    stored += n;
  }
  INFO("seed " << seed);
  CHECK(Count(*watcher, "SELECT count(*) FROM observations") == stored);
  CHECK(stored < kBatch * kBatches);  // the kill came mid-run, not after the last batch
  watcher.reset();
  RequireAggregatesEqualRebuild(location);
}

TEST_CASE("replicas: a server restart mid-run: the same call re-sends its batch and finishes",
          "[engine][concurrency]") {
  const char* server = TestServer();
  if (server == nullptr) return;
  TempDir dir;
  const std::string location = NewStoreLocation(dir, "restart.db");
  hwrec::test::OpenStoreOrFail(location);
  // One call across the restart: the batch the restart cut off is sent again
  // by hwrec once the server answers.
  RequireCallSurvives(location, 6000, dir, [&] { RestartServer(server); });
  RequireAggregatesEqualRebuild(location);
}

namespace {

// A primary and its synchronous streaming standby of a test's own
// (scripts/pg_server.sh), both stopped when it ends, whatever happens.
class ServerPair {
 public:
  explicit ServerPair(const TempDir& dir)
      : primary_(dir.File("primary")), standby_(dir.File("standby")) {
    primary_uri_ = Run("start " + hwrec::test::ShellQuote(primary_));
    standby_uri_ = Run("standby " + hwrec::test::ShellQuote(primary_) + " " +
                       hwrec::test::ShellQuote(standby_));
  }
  ~ServerPair() {
    for (const std::string* server : {&primary_, &standby_}) {
      hwrec::test::RunShell(Script() + " stop " + hwrec::test::ShellQuote(*server));
    }
  }
  ServerPair(const ServerPair&) = delete;
  ServerPair& operator=(const ServerPair&) = delete;

  // Both servers in one libpq URI: whichever takes writes is the store.
  std::string MultiHostUri() const {
    return fmt::format(
        "postgresql://hwrec@127.0.0.1:{},127.0.0.1:{}/hwrec?target_session_attrs="
        "read-write",
        Port(primary_uri_), Port(standby_uri_));
  }
  void KillPrimary() { Run("kill " + hwrec::test::ShellQuote(primary_)); }
  void PromoteStandby() { Run("promote " + hwrec::test::ShellQuote(standby_)); }

 private:
  static std::string Script() {
    return hwrec::test::ShellQuote(hwrec::test::SourcePath("scripts/pg_server.sh"));
  }
  // Runs pg_server.sh with `args`; its output's first line.
  static std::string Run(const std::string& args) {
    const auto result = hwrec::test::RunShell(Script() + " " + args);
    INFO("pg_server.sh " << args << ": " << result.err);
    REQUIRE(result.exit_code == 0);
    return result.out.substr(0, result.out.find('\n'));
  }
  static std::string Port(const std::string& uri) {
    const std::size_t colon = uri.rfind(':');
    return uri.substr(colon + 1, uri.find('/', colon) - colon - 1);
  }

  std::string primary_;
  std::string standby_;
  std::string primary_uri_;
  std::string standby_uri_;
};

}  // namespace

TEST_CASE("replicas: a primary killed mid-ingest: its standby takes over and the call finishes",
          "[engine][concurrency]") {
  // Starts servers of its own, once: in the PostgreSQL run.
  if (TestServer() == nullptr) return;
  TempDir dir;
  ServerPair pair(dir);
  const std::string location = pair.MultiHostUri();
  hwrec::test::OpenStoreOrFail(location);
  const std::string acknowledged = dir.File("acknowledged");
  std::int64_t acknowledged_lines = 0;
  RequireCallSurvives(
      location, 3000, dir,
      [&] {
        pair.KillPrimary();
        // Read after the kill: no batch is acknowledged once the primary is gone.
        acknowledged_lines = std::stoll(hwrec::test::ReadFile(acknowledged));
        pair.PromoteStandby();
      },
      acknowledged);
  // Every batch acknowledged before the kill is on the new primary.
  CHECK(acknowledged_lines >= 200);
  auto store = hwrec::test::OpenStoreOrFail(location);
  auto before_kill = hwrec::store::ConnectionOf(*store).Prepare(
      "SELECT count(*) FROM observations WHERE CAST(substr(execution_id, 5) AS INTEGER) < ?");
  before_kill->Bind(1, acknowledged_lines);
  REQUIRE(before_kill->Step());
  CHECK(before_kill->Int64(0) == acknowledged_lines);
  before_kill.reset();
  store.reset();
  RequireAggregatesEqualRebuild(location);
}

TEST_CASE("replicas: a restart while a Runner is idle costs no batch, no count, no error",
          "[engine][concurrency]") {
  // The Runner streams records as executions end: the connection sits idle
  // between batches, and a restart then is found by the next batch's BEGIN.
  // hwrec connects again there (nothing was sent) and counts every batch.
  const char* server = TestServer();
  if (server == nullptr) return;
  TempDir dir;
  const std::string location = NewStoreLocation(dir, "stream.db");
  auto store = hwrec::test::OpenStoreOrFail(location);
  int pipe_fds[2];
  REQUIRE(pipe2(pipe_fds, O_CLOEXEC) == 0);  // not left open in the servers it restarts
  std::atomic<std::int64_t> committed{0};
  hwrec::IngestOptions options;
  options.batch_size = 10;
  options.commit_after_idle_ms = 20;
  options.on_batch_committed = [&](const hwrec::IngestProgress& progress) {
    committed = progress.committed_through_line;
  };
  auto ingestor = hwrec::Ingestor::Open(*store, options);
  REQUIRE(ingestor.ok());
  hwrec::Result<hwrec::IngestSummary> summary = hwrec::Status::Ok();
  std::thread reader([&] { summary = (*ingestor)->IngestJsonLines(pipe_fds[0]); });
  const auto send = [&](int first, int end) {
    const std::string lines = Records(first, end);
    REQUIRE(write(pipe_fds[1], lines.data(), lines.size()) == static_cast<ssize_t>(lines.size()));
  };
  send(0, 10);
  for (int i = 0; i < 2000 && committed < 10; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  RestartServer(server);
  send(10, 20);
  close(pipe_fds[1]);
  reader.join();
  close(pipe_fds[0]);
  INFO(summary.status().ToString());
  REQUIRE(summary.ok());
  CHECK(summary->accepted == 20);
  CHECK(summary->retried_batches == 0);
  // A call made after a restart: its first statement finds the connection
  // stale, and connects again.
  RestartServer(server);
  std::istringstream more(Records(20, 30));
  const auto next = (*ingestor)->IngestJsonLines(more);
  INFO(next.status().ToString());
  REQUIRE(next.ok());
  CHECK(next->accepted == 10);
  CHECK(Count(*store, "SELECT count(*) FROM observations") == 30);
}

TEST_CASE("replicas: a kept query and evaluator answer alike across a server restart",
          "[engine][concurrency]") {
  // In the steady state each call is one statement outside a transaction: a
  // restart leaves the kept connection stale, and the call connects again.
  const char* server = TestServer();
  if (server == nullptr) return;
  TempDir dir;
  const std::string location = NewStoreLocation(dir, "kept.db");
  auto writer = hwrec::test::OpenStoreOrFail(location);
  // The pool the records' first hardware runs on, as a Runner registers it.
  const hwrec::NodePool pool =
      hwrec::ParseNodePoolJson(
          R"({"node_pool_id":"n2","site_id":"site-a","instance_type":"n2-standard-8",)"
          R"("architecture":"x86_64","cpu_millicores":8000,"memory_bytes":34359738368,)"
          R"("gpu_count":0})")
          .value();
  REQUIRE(hwrec::RegisterNodePool(*writer, pool).ok());
  std::istringstream records(Records(0, 60));
  REQUIRE((*hwrec::Ingestor::Open(*writer))->IngestJsonLines(records).ok());
  auto runner = hwrec::test::OpenStoreOrFail(location);
  auto query = hwrec::RecommendationQuery::Open(*runner).value();
  auto evaluator = hwrec::PlacementEvaluator::Open(*runner).value();
  const std::string image = "registry.example/job-0:1";
  const hwrec::HardwareKey key = hwrec::HardwareKey::Of(pool);
  hwrec::ExecutionToPlace execution;
  execution.workload = image;
  const auto recommend = [&] {
    auto recommended = query->Recommend(image, key, 1795969000.0);
    INFO(recommended.status().ToString());
    REQUIRE(recommended.ok());
    return recommended->figure(hwrec::FigureKind::kMemoryBytes).value.value_or(-1);
  };
  const auto place = [&] {
    auto placed = evaluator->Evaluate(execution, {{"n2", {}, {}, {}}},
                                      hwrec::PlacementPolicy::kBestFit, 1795969000.0);
    INFO(placed.status().ToString());
    REQUIRE(placed.ok());
    return hwrec::PlacementToJson(*placed);
  };
  recommend();
  place();
  const double recommended = recommend();
  const std::string placed = place();
  // Each object first after a restart (they share the Store's connection).
  RestartServer(server);
  CHECK(recommend() == recommended);
  CHECK(place() == placed);
  RestartServer(server);
  CHECK(place() == placed);
  CHECK(recommend() == recommended);
  // And back to one round trip each.
  const hwrec::store::Connection& db = hwrec::store::ConnectionOf(*runner);
  const std::int64_t before = db.RoundTrips();
  CHECK(recommend() == recommended);
  CHECK(place() == placed);
  CHECK(db.RoundTrips() - before == 2);
}

TEST_CASE("replicas: a rebuild of every workload waits for merging batches, and they for it",
          "[engine][concurrency]") {
  // A refresh or a rebuild (hwrec config set, hwrec refresh) holds the lock
  // of every workload from before its transaction begins: an ingest batch
  // merging its aggregates (LockWorkloads) waits until it is released, so it
  // never merges into states the rebuild replaces.
  if (TestServer() == nullptr) return;
  TempDir dir;
  const std::string location = NewStoreLocation(dir, "rebuild.db");
  auto rebuilder = hwrec::test::OpenStoreOrFail(location);
  auto ingester = hwrec::test::OpenStoreOrFail(location);
  hwrec::store::Connection& ingest = hwrec::store::ConnectionOf(*ingester);
  std::atomic<bool> merged{false};
  std::thread batch;
  {
    hwrec::store::AllWorkloadsLock all(hwrec::store::ConnectionOf(*rebuilder));
    batch = std::thread([&] {
      try {
        hwrec::store::WriteTransaction tx(ingest, hwrec::store::LockMode::kKeyLocked);
        ingest.LockWorkloads({1, 2});
        merged = true;
      } catch (const std::exception& e) {  // left unmerged: the last CHECK says so
        std::cerr << "the batch: " << e.what() << "\n";
      }
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    CHECK_FALSE(merged);  // still waiting for the rebuild
  }
  batch.join();
  CHECK(merged);
}

TEST_CASE("replicas: a read-only store stays read-only across a server restart",
          "[engine][concurrency]") {
  const char* server = TestServer();
  if (server == nullptr) return;
  TempDir dir;
  const std::string location = NewStoreLocation(dir, "read-only.db");
  hwrec::test::OpenStoreOrFail(location);
  hwrec::StoreOptions read_only;
  read_only.read_only = true;
  auto store = hwrec::Store::Open(location, read_only);
  REQUIRE(store.ok());
  hwrec::store::Connection& db = hwrec::store::ConnectionOf(**store);
  CHECK_THROWS(db.Execute("CREATE TABLE before_restart (x BIGINT)"));
  RestartServer(server);
  // The first statement finds the connection gone; the next makes it again.
  try {
    db.QueryInt64("SELECT 1");
  } catch (const std::exception&) {
  }
  REQUIRE(db.QueryInt64("SELECT 1") == 1);
  CHECK_THROWS(db.Execute("CREATE TABLE after_restart (x BIGINT)"));
  CHECK_FALSE(db.HasTable("after_restart"));
}

TEST_CASE("replicas: several replicas creating the same empty store at once all open it",
          "[engine][concurrency]") {
  // Each round: a fresh empty location, kReplicas processes released together
  // by closing a pipe, each opening it with create_if_missing (`hwrec init`).
  constexpr int kRounds = 6;
  constexpr int kReplicas = 4;
  TempDir dir;
  for (int round = 0; round < kRounds; ++round) {
    const std::string location = NewStoreLocation(dir, fmt::format("init-{}.db", round));
    int gate[2];
    REQUIRE(pipe(gate) == 0);
    std::vector<pid_t> children;
    for (int k = 0; k < kReplicas; ++k) {
      const pid_t pid = fork();
      REQUIRE(pid >= 0);
      if (pid == 0) {
        close(gate[1]);
        char byte = 0;
        (void)!read(gate[0], &byte, 1);  // returns when the parent closes its end
        hwrec::StoreOptions options;
        options.create_if_missing = true;
        options.busy_timeout_ms = 60000;
        auto store = hwrec::Store::Open(location, options);
        if (!store.ok()) {
          hwrec::test::WriteFile(dir.File(fmt::format("init-{}-{}", round, k)),
                                 store.status().ToString());
        }
        _exit(store.ok() ? 0 : 1);
      }
      children.push_back(pid);
    }
    close(gate[0]);
    close(gate[1]);
    for (int k = 0; k < kReplicas; ++k) {
      const int exit_code = WaitFor(children[static_cast<std::size_t>(k)]);
      const std::string failure =
          exit_code == 1 ? hwrec::test::ReadFile(dir.File(fmt::format("init-{}-{}", round, k)))
                         : std::string();
      INFO("round " << round << ", replica " << k << ": " << failure);
      CHECK(exit_code == 0);
    }
    auto store = hwrec::test::OpenStoreOrFail(location);
    // Every migration applied once: versions run 1..N.
    CHECK(store->schema_version() > 0);
    CHECK(Count(*store, "SELECT count(*) FROM schema_migrations") == store->schema_version());
  }
}
