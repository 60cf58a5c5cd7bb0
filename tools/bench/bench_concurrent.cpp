// hwrec-bench concurrent-ingest: several processes (Runner replicas) ingest
// into one PostgreSQL store at once, half of each one's records the same as
// every other's (the same execution ids; all of them on the same workloads
// and hardware keys). Reports the total observations/s, the transactions the
// server rolled back and the batches hwrec ran again, then verifies that the
// observations are exactly the union of what was sent and that every
// aggregate equals a rebuild from them. Given several writer counts, runs
// each on a fresh store and ends with a table of them beside one writer.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <thread>

#include "bench/bench_commands.h"
#include "bench/bench_sql.h"
#include "bench/bench_util.h"
#include "bench/generated_ingest.h"
#include "bench/place_fixture.h"
#include "bench/postgresql_target.h"
#include "hwrec/check.h"
#include "hwrec/node_pool.h"

namespace hwrec::bench {
namespace {

constexpr const char* kWorkerName = "concurrent-ingest-worker";
// The store a worker writes, given by its parent.
constexpr const char* kWorkerStoreVariable = "HWREC_BENCH_WORKER_STORE";

const char* const kConcurrentUsage =
    "hwrec-bench concurrent-ingest [--postgresql URI | --sqlite] [--writers W[,W...]] [--records "
    "N]\n"
    "                              [--seed S] [--batch B] [--pg-server-script PATH]\n"
    "                              [--format table|json]\n\n"
    "Starts W processes that ingest N generated records each, at once, into one fresh\n"
    "PostgreSQL store: the first half of every writer's records are the same records\n"
    "(identical execution ids), the second half its own, all on the same workloads\n"
    "and hardware keys. Prints the total observations/s across writers and the\n"
    "transactions the server rolled back, then verifies that the observations are\n"
    "the union of what was sent and that every aggregate equals a rebuild from the\n"
    "observations (`hwrec check`'s aggregate check). Exits 1 when verification fails.\n"
    "--writers 1,2,4,8 runs each count on a fresh store, then prints a table: records/s,\n"
    "the ratio to one writer's (the first count's), the batches hwrec ran again after the\n"
    "server cancelled them, and the verification of each (json: one line a run).\n\n"
    "The store is a fresh schema (dropped at the end) in the database of --postgresql\n"
    "URI; without it, a throwaway server is started with scripts/pg_server.sh. With\n"
    "--sqlite the same writers share one scratch SQLite file instead (a baseline).";

struct Plan {
  int writers = 4;
  std::int64_t records = 20000;  // per writer
  std::uint64_t seed = 1;
  std::size_t batch = 1000;

  std::int64_t shared() const { return records / 2; }
  std::int64_t own() const { return records - shared(); }
  std::int64_t total() const { return shared() + writers * own(); }  // the generator's index space
  // Writer k's Ingest calls: shared and own chunks alternating, the shared
  // ones rotated by k so that writers meet on the same records at different
  // moments.
  std::vector<RecordRange> ChunksOf(int writer) const {
    std::vector<RecordRange> shared_chunks =
        Chunks({0, shared()}, static_cast<std::int64_t>(batch));
    if (!shared_chunks.empty()) {
      std::rotate(shared_chunks.begin(),
                  shared_chunks.begin() + writer % static_cast<int>(shared_chunks.size()),
                  shared_chunks.end());
    }
    const std::vector<RecordRange> own_chunks =
        Chunks({shared() + writer * own(), own()}, static_cast<std::int64_t>(batch));
    std::vector<RecordRange> chunks;
    for (std::size_t i = 0; i < std::max(shared_chunks.size(), own_chunks.size()); ++i) {
      if (i < shared_chunks.size()) chunks.push_back(shared_chunks[i]);
      if (i < own_chunks.size()) chunks.push_back(own_chunks[i]);
    }
    return chunks;
  }
};

// The options that make a Plan, shared by the bench and its writers.
class PlanOptions {
 public:
  void AddTo(po::options_description* described) {
    described->add_options()("writers,w", po::value(&writers_)->default_value(writers_),
                             "concurrent writer processes; several counts (1,2,4,8): a run each")(
        "records,n", po::value(&records_)->default_value(plan_.records), "records per writer")(
        "seed,s", po::value(&plan_.seed)->default_value(1), "generator seed")(
        "batch,b", po::value(&batch_)->default_value(static_cast<long long>(plan_.batch)),
        "records per transaction (and per Ingest call)");
  }
  // The writer counts given, each 1 to 64; a UsageError otherwise.
  std::vector<int> WriterCounts() const {
    std::vector<int> counts;
    for (std::size_t start = 0; start <= writers_.size();) {
      const std::size_t comma = std::min(writers_.find(',', start), writers_.size());
      const std::string item = writers_.substr(start, comma - start);
      int count = 0;
      const auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), count);
      if (error != std::errc() || end != item.data() + item.size() || count < 1 || count > 64) {
        throw UsageError(fmt::format(
            "--writers is '{}': give a count from 1 to 64, or several (1,2,4,8)", writers_));
      }
      counts.push_back(count);
      start = comma + 1;
    }
    return counts;
  }
  // The plan the parsed options give for `writers` writers; a UsageError for
  // one out of range.
  Plan Checked(int writers) const {
    if (records_ < 2) throw UsageError("--records must be at least 2");
    if (batch_ < 1) throw UsageError("--batch must be at least 1");
    Plan plan = plan_;
    plan.writers = writers;
    plan.records = records_;
    plan.batch = static_cast<std::size_t>(batch_);
    return plan;
  }

 private:
  Plan plan_;
  std::string writers_ = "4";
  long long records_ = 0;
  long long batch_ = 0;
};

double MonotonicSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct WriterReport {
  int writer = 0;
  IngestSummary summary;
  std::int64_t offered = 0;
  std::int64_t batches = 0;  // transactions committed
  double seconds = 0;        // in Ingest calls
  double start = 0;          // steady clock (system-wide on Linux), after the go
  double end = 0;
};

WriterReport ReadReport(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("a writer wrote no report to " + path);
  const nlohmann::json j = nlohmann::json::parse(in);
  WriterReport r;
  r.writer = j.at("writer").get<int>();
  r.summary.accepted = j.at("accepted").get<std::int64_t>();
  r.summary.duplicates = j.at("duplicates").get<std::int64_t>();
  r.summary.conflicts = j.at("conflicts").get<std::int64_t>();
  r.summary.rejected = j.at("rejected").get<std::int64_t>();
  r.summary.retried_batches = j.at("retried_batches").get<std::int64_t>();
  r.offered = j.at("offered").get<std::int64_t>();
  r.batches = j.at("batches").get<std::int64_t>();
  r.seconds = j.at("seconds").get<double>();
  r.start = j.at("start").get<double>();
  r.end = j.at("end").get<double>();
  return r;
}

// Waits for the parent's go: its end of the pipe closes.
void AwaitGo(int ready_fd, int go_fd) {
  const char ready = 'r';
  if (write(ready_fd, &ready, 1) != 1) throw std::runtime_error("cannot tell the parent: ready");
  close(ready_fd);
  char ignored = 0;
  while (read(go_fd, &ignored, 1) > 0) {
  }
  close(go_fd);
}

// The server's count of rolled-back transactions in this database; nullopt
// on SQLite, which makes a writer wait for the lock instead.
std::optional<std::int64_t> ServerRollbacks(BenchSql& db) {
  if (!db.postgresql()) return std::nullopt;
  return db
      .QueryInt64("SELECT xact_rollback FROM pg_stat_database WHERE datname = current_database()")
      .value_or(0);
}

// The aggregates check of CheckStore: each aggregate against a rebuild.
CheckResult CheckAggregatesOf(const std::string& location) {
  StoreCheckOptions options;
  options.only = {"aggregates"};
  auto report = CheckStore(location, options);
  if (!report.ok()) {
    CheckResult failed;
    failed.name = "aggregates";
    failed.state = CheckState::kProblem;
    failed.problems.push_back("could not check: " + report.status().ToString());
    failed.problem_count = 1;
    return failed;
  }
  return report->checks.front();
}

struct Verification {
  std::int64_t expected = 0;  // distinct execution ids sent
  std::int64_t stored = 0;
  std::int64_t missing = 0;   // sent, not stored
  std::int64_t extra = 0;     // stored, never sent
  std::int64_t accepted = 0;  // summed over writers: each observation accepted once
  CheckResult aggregates;

  bool ok() const {
    return missing == 0 && extra == 0 && stored == expected && accepted == stored &&
           aggregates.state == CheckState::kOk;
  }
};

Verification Verify(const std::string& location, const Plan& plan,
                    const fixtures::ObservationGenerator& gen,
                    const std::vector<WriterReport>& reports) {
  Verification v;
  std::set<std::string> sent;
  for (std::int64_t i = 0; i < plan.total(); ++i) {
    fixtures::RecordFacts facts;
    Observation o = gen.Generate(i, &facts);
    if (facts.kind != fixtures::RecordKind::kBad) sent.insert(std::move(o.execution_id));
  }
  v.expected = static_cast<std::int64_t>(sent.size());
  BenchSql::Open(location)->ForEachText("SELECT execution_id FROM observations",
                                        [&](const std::string& id) {
                                          ++v.stored;
                                          if (sent.erase(id) == 0) ++v.extra;
                                        });
  v.missing = static_cast<std::int64_t>(sent.size());
  for (const WriterReport& r : reports) v.accepted += r.summary.accepted;
  v.aggregates = CheckAggregatesOf(location);
  return v;
}

// Starts writer `k`: this program again, as the hidden worker subcommand.
pid_t SpawnWriter(int k, const Plan& plan, const std::string& uri, const std::string& report,
                  int ready_fd, int go_fd, int go_write_fd) {
  const std::vector<std::string> args = {"hwrec-bench", kWorkerName,
                                         "--writer",    std::to_string(k),
                                         "--writers",   std::to_string(plan.writers),
                                         "--records",   std::to_string(plan.records),
                                         "--seed",      std::to_string(plan.seed),
                                         "--batch",     std::to_string(plan.batch),
                                         "--ready-fd",  std::to_string(ready_fd),
                                         "--go-fd",     std::to_string(go_fd),
                                         "--report",    report};
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed: cannot start a writer");
  if (pid == 0) {
    close(go_write_fd);
    // Through the environment, not argv: a URI's password is not for `ps` to show.
    if (setenv(kWorkerStoreVariable, uri.c_str(), 1) != 0) _exit(127);
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv("/proc/self/exe", argv.data());
    _exit(127);
  }
  return pid;
}

struct Run {
  std::vector<WriterReport> reports;
  double wall = 0;                        // first writer's start to last writer's end
  std::optional<std::int64_t> rollbacks;  // PostgreSQL only

  std::int64_t offered() const {
    std::int64_t sum = 0;
    for (const WriterReport& r : reports) sum += r.offered;
    return sum;
  }
  std::int64_t batches() const {
    std::int64_t sum = 0;
    for (const WriterReport& r : reports) sum += r.batches;
    return sum;
  }
  std::int64_t retried() const {
    std::int64_t sum = 0;
    for (const WriterReport& r : reports) sum += r.summary.retried_batches;
    return sum;
  }
};

Run RunWriters(const Plan& plan, const std::string& uri, const ScratchDir& scratch) {
  int ready[2];
  int go[2];
  if (pipe(ready) != 0 || pipe(go) != 0) throw std::runtime_error("cannot make a pipe");
  std::vector<pid_t> pids;
  for (int k = 0; k < plan.writers; ++k) {
    pids.push_back(SpawnWriter(k, plan, uri, scratch.File(fmt::format("writer-{}.json", k)),
                               ready[1], go[0], go[1]));
  }
  close(ready[1]);
  close(go[0]);
  int ready_count = 0;
  char byte = 0;
  while (ready_count < plan.writers && read(ready[0], &byte, 1) == 1) ++ready_count;
  close(ready[0]);
  close(go[1]);  // go
  bool all_ok = ready_count == plan.writers;
  for (const pid_t pid : pids) {
    int status = 0;
    waitpid(pid, &status, 0);
    all_ok = all_ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  if (!all_ok) throw std::runtime_error("a writer failed (its message is above)");
  Run run;
  double first = 0;
  double last = 0;
  for (int k = 0; k < plan.writers; ++k) {
    run.reports.push_back(ReadReport(scratch.File(fmt::format("writer-{}.json", k))));
    const WriterReport& r = run.reports.back();
    first = k == 0 ? r.start : std::min(first, r.start);
    last = std::max(last, r.end);
  }
  run.wall = last - first;
  return run;
}

void Print(const Plan& plan, const std::string& location, double load, const Run& run,
           const Verification& v, bool json) {
  std::int64_t offered = 0;
  IngestSummary total;
  for (const WriterReport& r : run.reports) {
    offered += r.offered;
    total.accepted += r.summary.accepted;
    total.duplicates += r.summary.duplicates;
    total.rejected += r.summary.rejected;
    total.conflicts += r.summary.conflicts;
    total.retried_batches += r.summary.retried_batches;
  }
  const std::int64_t batches = run.batches();
  const unsigned cores = std::max(1U, std::thread::hardware_concurrency());
  if (json) {
    nlohmann::json writers = nlohmann::json::array();
    for (const WriterReport& r : run.reports) {
      writers.push_back({{"writer", r.writer},
                         {"offered", r.offered},
                         {"accepted", r.summary.accepted},
                         {"duplicates", r.summary.duplicates},
                         {"rejected", r.summary.rejected},
                         {"seconds", r.seconds}});
    }
    nlohmann::json problems = v.aggregates.problems;
    const nlohmann::json report = {
        {"command", "concurrent-ingest"},
        {"location", location},
        {"writers", plan.writers},
        {"records_per_writer", plan.records},
        {"batch", plan.batch},
        {"seed", plan.seed},
        {"offered", offered},
        {"accepted", total.accepted},
        {"duplicates", total.duplicates},
        {"rejected", total.rejected},
        {"conflicts", total.conflicts},
        {"wall_s", run.wall},
        {"offered_per_s", PerSecond(offered, run.wall)},
        {"observations_per_s", PerSecond(total.accepted, run.wall)},
        {"server_rollbacks",
         run.rollbacks ? nlohmann::json(*run.rollbacks) : nlohmann::json(nullptr)},
        {"batches", batches},
        {"retried_batches", total.retried_batches},
        {"load_average", load},
        {"cores", cores},
        {"per_writer", writers},
        {"verification",
         {{"ok", v.ok()},
          {"expected", v.expected},
          {"stored", v.stored},
          {"missing", v.missing},
          {"extra", v.extra},
          {"accepted", v.accepted},
          {"aggregates", ToString(v.aggregates.state)},
          {"aggregates_summary", v.aggregates.summary},
          {"aggregate_problems", problems}}}};
    std::cout << report.dump() << "\n";
    return;
  }
  std::cout << fmt::format(
      "hwrec-bench concurrent-ingest: {} writers x {} records (half shared), seed {}, batch {}\n"
      "  store: {}\n\n",
      plan.writers, WithThousands(plan.records), plan.seed, plan.batch, location);
  for (const WriterReport& r : run.reports) {
    std::cout << fmt::format(
        "  writer {}: {} offered, {} accepted, {} duplicates, {} rejected, {:.3f} s\n", r.writer,
        WithThousands(r.offered), WithThousands(r.summary.accepted),
        WithThousands(r.summary.duplicates), WithThousands(r.summary.rejected), r.seconds);
  }
  std::cout << fmt::format(
      "\ntotal: {} records offered in {:.3f} s: {} records/s, {} new observations/s\n",
      WithThousands(offered), run.wall,
      WithThousands(static_cast<std::int64_t>(PerSecond(offered, run.wall))),
      WithThousands(static_cast<std::int64_t>(PerSecond(total.accepted, run.wall))));
  if (run.rollbacks) {
    std::cout << fmt::format(
        "transactions the server rolled back (read snapshots end so; cancelled batches too): {}\n",
        WithThousands(*run.rollbacks));
  } else {
    std::cout << "SQLite: writers waited for the file's write lock (no retries)\n";
  }
  std::cout << fmt::format(
      "batches hwrec ran again (deadlock or serialization failure): {} of {} "
      "({:.2f} %)\n",
      WithThousands(total.retried_batches), WithThousands(batches),
      batches > 0
          ? 100.0 * static_cast<double>(total.retried_batches) / static_cast<double>(batches)
          : 0.0);
  std::cout << fmt::format(
      "load average {:.2f} on {} cores when the run started\n\n"
      "verification: {}\n"
      "  observations: {} stored, {} distinct execution ids sent, {} missing, {} never sent\n"
      "  accepted summed over writers: {} (each observation accepted once)\n"
      "  aggregates: {}: {}\n",
      load, cores, v.ok() ? "OK" : "FAILED", WithThousands(v.stored), WithThousands(v.expected),
      WithThousands(v.missing), WithThousands(v.extra), WithThousands(v.accepted),
      ToString(v.aggregates.state), v.aggregates.summary);
  for (const std::string& problem : v.aggregates.problems) std::cout << "    " << problem << "\n";
}

// One run's line of the table.
struct WriterRunFigures {
  int writers = 0;
  double records_per_s = 0;
  std::int64_t retried = 0;
  std::int64_t batches = 0;
  bool verified = false;
  double load = 0;
};

// Each run beside the first (one writer, as a rule).
void PrintWriterTable(const std::vector<WriterRunFigures>& runs) {
  std::cout << fmt::format("{:>7} {:>11} {:>14} {:>8} {:>8} {:>8}  {}\n", "writers", "records/s",
                           "x first count", "retried", "batches", "load", "verification");
  for (const WriterRunFigures& r : runs) {
    std::cout << fmt::format("{:>7} {:>11} {:>14.2f} {:>8} {:>8} {:>8.2f}  {}\n", r.writers,
                             WithThousands(static_cast<std::int64_t>(r.records_per_s)),
                             r.records_per_s / runs.front().records_per_s, r.retried, r.batches,
                             r.load, r.verified ? "OK" : "FAILED");
  }
}

WriterRunFigures RunWriterPlan(const Plan& plan, const PostgresqlServer* server, bool json,
                               bool spaced);

}  // namespace

int RunConcurrentIngestBench(const std::vector<std::string>& args) {
  PlanOptions plan_options;
  std::string postgresql;
  std::string script;
  std::string format;
  po::options_description described("Options");
  described.add_options()("postgresql", po::value(&postgresql),
                          "a PostgreSQL URI (default: a throwaway server)")(
      "sqlite", "the same writers on one scratch SQLite file instead (one host: a baseline)");
  plan_options.AddTo(&described);
  described.add_options()("pg-server-script",
                          po::value(&script)->default_value(DefaultServerScript()),
                          "the pg_server.sh that starts a throwaway server");
  AddFormatOption(described, &format);
  po::variables_map vm;
  if (!ParseBenchArgs(args, described, kConcurrentUsage, &vm)) return kExitOk;
  const std::vector<int> counts = plan_options.WriterCounts();
  const bool json = IsJsonFormat(format);

  const bool sqlite = vm.count("sqlite") != 0;
  if (sqlite && !postgresql.empty())
    throw UsageError("--sqlite and --postgresql exclude each other");
  std::optional<PostgresqlServer> server;
  if (!sqlite) server.emplace(postgresql, script);
  std::vector<WriterRunFigures> table;
  bool verified = true;
  for (const int writers : counts) {
    const Plan plan = plan_options.Checked(writers);
    const WriterRunFigures figures =
        RunWriterPlan(plan, server ? &*server : nullptr, json, counts.size() > 1 && !json);
    verified = verified && figures.verified;
    table.push_back(figures);
  }
  if (counts.size() > 1 && !json) PrintWriterTable(table);
  if (!verified) {
    std::cerr << "hwrec-bench concurrent-ingest: verification FAILED: the store lost or "
                 "double-counted what the writers sent (see above)\n";
    return kExitError;
  }
  return kExitOk;
}

namespace {

WriterRunFigures RunWriterPlan(const Plan& plan, const PostgresqlServer* server, bool json,
                               bool spaced) {
  const double load = LoadAverage();
  ScratchDir scratch;
  std::optional<ScratchSchema> schema;
  std::string uri = scratch.File("concurrent.hwrec");
  if (server != nullptr) {
    schema.emplace(server->uri());
    uri = schema->uri();
  }
  const fixtures::ObservationGenerator generator(plan.seed, plan.total());
  std::string location;
  std::optional<std::int64_t> rollbacks_before;
  {
    const std::unique_ptr<Store> store = OpenBenchStore(uri);
    location = store->path();
    for (const fixtures::BenchPool& pool : generator.pools()) {
      if (Status s = RegisterNodePool(*store, pool.pool); !s.ok()) {
        throw std::runtime_error("registering the generator's pools: " + s.ToString());
      }
    }
  }
  const std::unique_ptr<BenchSql> sql = BenchSql::Open(uri);
  rollbacks_before = ServerRollbacks(*sql);
  Run run = RunWriters(plan, uri, scratch);
  if (rollbacks_before) run.rollbacks = *ServerRollbacks(*sql) - *rollbacks_before;
  const Verification verification = Verify(uri, plan, generator, run.reports);
  Print(plan, location, load, run, verification, json);
  if (spaced) std::cout << "\n";
  return WriterRunFigures{plan.writers,      PerSecond(run.offered(), run.wall),
                          run.retried(),     run.batches(),
                          verification.ok(), load};
}

}  // namespace

int RunConcurrentIngestWorker(const std::vector<std::string>& args) {
  PlanOptions plan_options;
  std::string uri;
  std::string report_path;
  int writer = 0;
  int ready_fd = -1;
  int go_fd = -1;
  po::options_description described("Options");
  described.add_options()("writer", po::value(&writer)->required(), "this writer's number")(
      "ready-fd", po::value(&ready_fd)->required(), "")("go-fd", po::value(&go_fd)->required(), "")(
      "report", po::value(&report_path)->required(), "where to write the JSON report");
  plan_options.AddTo(&described);
  po::variables_map vm;
  if (!ParseBenchArgs(args, described, "hwrec-bench concurrent-ingest-worker (internal)", &vm)) {
    return kExitOk;
  }
  const char* given = std::getenv(kWorkerStoreVariable);
  if (given == nullptr) {
    std::cerr << "hwrec-bench " << kWorkerName << ": " << kWorkerStoreVariable
              << " is not set: this subcommand is started by concurrent-ingest\n";
    return kExitUsage;
  }
  uri = given;
  const std::vector<int> counts = plan_options.WriterCounts();
  if (counts.size() != 1) throw UsageError("a writer is given one --writers count");
  const Plan plan = plan_options.Checked(counts.front());
  const fixtures::ObservationGenerator generator(plan.seed, plan.total());
  const std::vector<RecordRange> chunks = plan.ChunksOf(writer);
  const std::unique_ptr<Store> store = OpenBenchStore(uri);
  AwaitGo(ready_fd, go_fd);
  const double start = MonotonicSeconds();
  const TimedIngest timed = IngestGenerated(*store, generator, chunks, plan.batch,
                                            fmt::format("hwrec-bench writer {}", writer));
  const double end = MonotonicSeconds();
  const nlohmann::json report = {{"writer", writer},
                                 {"offered", timed.offered},
                                 {"accepted", timed.summary.accepted},
                                 {"duplicates", timed.summary.duplicates},
                                 {"conflicts", timed.summary.conflicts},
                                 {"rejected", timed.summary.rejected},
                                 {"retried_batches", timed.summary.retried_batches},
                                 {"batches", static_cast<std::int64_t>(chunks.size())},
                                 {"seconds", timed.seconds},
                                 {"start", start},
                                 {"end", end}};
  std::ofstream(report_path) << report.dump() << "\n";
  return kExitOk;
}

}  // namespace hwrec::bench
