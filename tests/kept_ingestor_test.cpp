// An Ingestor keeps the catalog and the settings between its calls: a change
// another connection commits between two calls is seen by the second.
#include <sqlite3.h>
#include <catch2/catch.hpp>

#include <unistd.h>

#include <chrono>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include "hwrec/catalog.h"
#include "hwrec/config.h"
#include "hwrec/ingest.h"
#include "hwrec/node_pool.h"
#include "hwrec/time_text.h"
#include "store/database.h"
#include "store/sqlite_connection.h"
#include "test_support.h"

namespace hwrec::kept_ingestor_test {

std::string Record(const std::string& id, double finished_at, const std::string& hardware) {
  return R"({"execution_id":")" + id + R"(","action_image":"registry.example/train:1",)" +
         R"("finished_at":)" + std::to_string(finished_at) + R"(,"hardware":{)" + hardware + "}}\n";
}

// A new store on the engine under test and one Ingestor kept on it.
struct KeptStore {
  explicit KeptStore(const std::string& name)
      : location(hwrec::test::NewStoreLocation(dir, name)),
        store(hwrec::test::OpenStoreOrFail(location)) {
    auto opened = Ingestor::Open(*store);
    REQUIRE(opened.ok());
    ingestor = std::move(opened).value();
  }
  hwrec::test::TempDir dir;
  std::string location;
  std::unique_ptr<Store> store;
  std::unique_ptr<Ingestor> ingestor;
};

// Now, as the store's time text reads it back.
double Now() { return *ParseTime(FormatTime(static_cast<double>(std::time(nullptr)))); }

IngestSummary IngestOne(Ingestor& ingestor, const std::string& line) {
  std::istringstream in(line);
  auto summary = ingestor.IngestJsonLines(in);
  REQUIRE(summary.ok());
  return *summary;
}

TEST_CASE("kept ingestor: a catalog import and a setting by another connection are seen",
          "[ingest][engine]") {
  KeptStore kept("kept_ingestor");
  Ingestor* ingestor = kept.ingestor.get();
  const std::string& location = kept.location;
  const double now = Now();
  const std::string z9 = R"("gpu_brand":"Acme","gpu_model":"Z9 96GB","gpu_count":1)";

  // Read once: the card is unknown, a record two hours ahead is within the skew.
  CHECK(IngestOne(*ingestor, Record("k-1", now, z9)).rejected == 1);
  CHECK(IngestOne(*ingestor, Record("k-2", now + 7200, R"("gpu_count":0)")).accepted == 1);

  {  // another connection adds the card and narrows the clock skew
    auto other = hwrec::test::OpenStoreOrFail(location);
    std::istringstream csv(
        "brand,model,card_memory_gb,card_compute_slices,mode,memory_gb,compute_slices\n"
        "Acme,Z9 96GB,96,1,full,96,1\n");
    REQUIRE(ImportCatalogCsv(*other, csv).ok());
    REQUIRE(SetConfig(*other, "ingest.max_clock_skew_hours", "1").ok());
  }
  CHECK(IngestOne(*ingestor, Record("k-3", now, z9)).accepted == 1);
  const IngestSummary ahead = IngestOne(*ingestor, Record("k-4", now + 7200, R"("gpu_count":0)"));
  CHECK(ahead.rejected == 1);
  REQUIRE(ahead.rejects.size() == 1);
  CHECK(ahead.rejects[0].field == "finished_at");
}

// The executions the store's aggregate of every execution of the test's
// workload counts, on any hardware.
std::int64_t SamplesOnAnyHardware(Store& store) {
  return store::ConnectionOf(store)
      .QueryInt64("SELECT samples FROM aggregates WHERE scope = 'any' AND width = 0")
      .value_or(-1);
}

TEST_CASE("kept ingestor: aggregates another writer changed between calls are read again",
          "[ingest][engine]") {
  hwrec::test::TempDir dir;
  const std::string location = hwrec::test::NewStoreLocation(dir, "kept_aggregates");
  auto store = hwrec::test::OpenStoreOrFail(location);
  auto other_store = hwrec::test::OpenStoreOrFail(location);
  auto kept = Ingestor::Open(*store);
  auto other_process = Ingestor::Open(*other_store);  // another connection
  auto same_connection = Ingestor::Open(*store);      // the same connection, its own states
  REQUIRE(kept.ok());
  REQUIRE(other_process.ok());
  REQUIRE(same_connection.ok());
  const double now = Now();
  const std::string cpu = R"("gpu_count":0,"instance_type":"n2-standard-8")";

  // Each ingest adds one execution of the same workload on the same hardware:
  // an ingestor that kept its states across the others' writes would write
  // back a count that misses theirs.
  int sent = 0;
  auto send = [&](Ingestor& ingestor) {
    ++sent;
    const std::string id = "kept-agg-" + std::to_string(sent);
    REQUIRE(IngestOne(ingestor, Record(id, now - 60.0 * sent, cpu)).accepted == 1);
    CHECK(SamplesOnAnyHardware(*store) == sent);
  };
  send(**kept);
  send(**kept);  // its own states, kept
  send(**other_process);
  send(**kept);
  send(**same_connection);
  send(**kept);
  send(**kept);
  CHECK(SamplesOnAnyHardware(*other_store) == 7);
}

// Sends one record through `ingestor` the moment another connection's
// commit has released the write lock, from SQLite's WAL hook: the gap between
// that commit and anything the committing writer does after it.
struct RightAfterCommit {
  Ingestor* ingestor = nullptr;
  std::string line;
  bool sent = false;
  static int Hook(void* self, sqlite3* /*db*/, const char* /*name*/, int /*pages*/) {
    auto* after = static_cast<RightAfterCommit*>(self);
    if (after->ingestor != nullptr && !after->sent) {
      after->sent = true;
      std::istringstream in(after->line);
      after->sent = after->ingestor->IngestJsonLines(in).ok();
    }
    return SQLITE_OK;
  }
};

TEST_CASE("kept ingestor: a commit another writer makes right after ours is not taken as ours",
          "[ingest]") {
  if (hwrec::test::TestingPostgresql()) return;  // PostgreSQL keeps no states
  KeptStore kept("kept_race");
  auto other_store = hwrec::test::OpenStoreOrFail(kept.location);
  auto other = Ingestor::Open(*other_store);
  REQUIRE(other.ok());
  const double now = Now();
  const std::string cpu = R"("gpu_count":0,"instance_type":"n2-standard-8")";
  REQUIRE(IngestOne(*kept.ingestor, Record("r-1", now - 60, cpu)).accepted == 1);
  // The other writer commits between this ingest's COMMIT and its return.
  RightAfterCommit after{other->get(), Record("r-2", now - 120, cpu)};
  {
    sqlite3* db = store::SqliteHandleOf(store::ConnectionOf(*kept.store));
    sqlite3_wal_hook(db, &RightAfterCommit::Hook, &after);
    struct Unhook {  // SQLite's own hook again, as it was, however the block ends
      sqlite3* db;
      ~Unhook() { sqlite3_wal_autocheckpoint(db, 1000); }
    } unhook{db};
    REQUIRE(IngestOne(*kept.ingestor, Record("r-3", now - 180, cpu)).accepted == 1);
  }
  REQUIRE(after.sent);
  CHECK(SamplesOnAnyHardware(*kept.store) == 3);
  // The next record starts from the store's states, the other writer's included.
  REQUIRE(IngestOne(*kept.ingestor, Record("r-4", now - 240, cpu)).accepted == 1);
  CHECK(SamplesOnAnyHardware(*kept.store) == 4);
}

TEST_CASE("kept ingestor: a batch whose commit fails leaves no kept state behind",
          "[ingest][engine]") {
  if (hwrec::test::TestingPostgresql()) return;  // PostgreSQL keeps no states
  KeptStore kept("kept_commit");
  const double now = Now();
  const std::string cpu = R"("gpu_count":0,"instance_type":"n2-standard-8")";
  REQUIRE(IngestOne(*kept.ingestor, Record("c-1", now - 60, cpu)).accepted == 1);
  {  // another connection sets a trap that fails one record's COMMIT, not its statements
    auto other = hwrec::test::OpenStoreOrFail(kept.location);
    store::Connection& db = store::ConnectionOf(*other);
    db.Execute(
        "CREATE TABLE commit_trap (workload_id INTEGER REFERENCES workloads (id) DEFERRABLE "
        "INITIALLY DEFERRED)");
    db.Execute(
        "CREATE TRIGGER commit_trap_on_insert AFTER INSERT ON observations "
        "WHEN NEW.execution_id = 'c-trap' BEGIN INSERT INTO commit_trap VALUES (-1); END");
  }
  REQUIRE(IngestOne(*kept.ingestor, Record("c-2", now - 120, cpu)).accepted == 1);
  std::istringstream trapped(Record("c-trap", now - 180, cpu));
  REQUIRE_FALSE(kept.ingestor->IngestJsonLines(trapped).ok());  // rolled back at COMMIT
  CHECK(SamplesOnAnyHardware(*kept.store) == 2);
  // The states of the rolled-back batch must not be the next one's start.
  REQUIRE(IngestOne(*kept.ingestor, Record("c-3", now - 240, cpu)).accepted == 1);
  CHECK(SamplesOnAnyHardware(*kept.store) == 3);
}

// A record of an execution on "late-pool", finished at `finished_at`.
std::string OnLatePool(const std::string& id, double finished_at) {
  return R"({"execution_id":")" + id +
         R"(","action_image":"registry.example/train:1","site_id":"site-a",)" +
         R"("node_pool_id":"late-pool","finished_at":)" + std::to_string(finished_at) + "}\n";
}

// The one reject of a record two hours past a clock skew narrowed to one.
void CheckOnlyAheadRefused(const IngestSummary& summary) {
  REQUIRE(summary.rejects.size() == 1);
  CHECK(summary.rejects[0].execution_id == "ahead");
  CHECK(summary.rejects[0].field == "finished_at");
}

// The instance type stored with an execution ("" when none is stored).
std::string StoredInstanceType(Store& store, const std::string& execution_id) {
  auto query = store::ConnectionOf(store).Prepare(
      "SELECT instance_type FROM observations WHERE execution_id = ?");
  query->Bind(1, execution_id);
  return query->Step() ? query->String(0) : "";
}

// A CPU pool another connection registers while records of it arrive.
NodePool LatePool() {
  NodePool pool;
  pool.node_pool_id = "late-pool";
  pool.site_id = "site-a";
  pool.name = "late-pool";
  pool.hardware.instance_type = "n2-standard-8";
  pool.hardware.cpu_millicores = 8000;
  pool.hardware.memory_bytes = std::int64_t{32} << 30;
  pool.hardware.gpu_count = 0;
  return pool;
}

TEST_CASE("kept ingestor: a pool another connection registers between calls is resolved",
          "[ingest][engine]") {
  KeptStore kept("kept_pools");
  const double now = Now();
  auto on_pool = [&](const std::string& id) { return OnLatePool(id, now); };
  // Not registered yet: the record stands on its own hardware, which it lacks.
  CHECK(IngestOne(*kept.ingestor, on_pool("p-1")).unresolved_hardware == 1);
  {
    auto other = hwrec::test::OpenStoreOrFail(kept.location);
    REQUIRE(RegisterNodePool(*other, LatePool()).ok());
  }
  const IngestSummary resolved = IngestOne(*kept.ingestor, on_pool("p-2"));
  CHECK(resolved.accepted == 1);
  CHECK(resolved.unresolved_hardware == 0);
  CHECK(StoredInstanceType(*kept.store, "p-2") == "n2-standard-8");
}

TEST_CASE("ingest: a batch after another writer registered a pool or changed a setting uses them",
          "[ingest][engine]") {
  KeptStore kept("streamed_inputs");
  const double now = Now();
  const std::string on_pool = OnLatePool("late-1", now);
  // One stream, a record per batch: between the first batch and the next,
  // another connection registers the pool the next record ran on and
  // narrows the clock skew the last one is two hours past.
  IngestOptions options;
  options.batch_size = 1;
  std::string changed;
  options.on_batch_committed = [&](const IngestProgress& progress) {
    if (progress.batches != 1) return;
    auto other = hwrec::test::OpenStoreOrFail(kept.location);
    const Status registered = RegisterNodePool(*other, LatePool());
    const Status set = SetConfig(*other, "ingest.max_clock_skew_hours", "1");
    changed = registered.ToString() + " / " + set.ToString();
  };
  auto opened = Ingestor::Open(*kept.store, options);
  REQUIRE(opened.ok());
  std::istringstream in(Record("first", now, R"("gpu_count":0)") + on_pool +
                        Record("ahead", now + 7200, R"("gpu_count":0)"));
  auto summary = (*opened)->IngestJsonLines(in);
  REQUIRE(summary.ok());
  CHECK(changed == "ok / ok");
  CHECK(summary->accepted == 2);
  CHECK(summary->unresolved_hardware == 0);
  CheckOnlyAheadRefused(*summary);
  CHECK(StoredInstanceType(*kept.store, "late-1") == "n2-standard-8");
}

TEST_CASE("ingest: a stream that waited for its first line checks it with the settings then",
          "[ingest][engine]") {
  KeptStore kept("waited_stream");
  const double now = Now();
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  hwrec::Result<IngestSummary> summary = Status::Internal("not run");
  // `hwrec ingest STORE -` started before anything arrived: it has read the
  // settings and waits for its first line.
  std::thread stream([&] { summary = kept.ingestor->IngestJsonLines(fds[0]); });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // orders, asserts nothing
  {
    auto other = hwrec::test::OpenStoreOrFail(kept.location);
    REQUIRE(SetConfig(*other, "ingest.max_clock_skew_hours", "1").ok());
  }
  const std::string lines =
      Record("now", now, R"("gpu_count":0)") + Record("ahead", now + 7200, R"("gpu_count":0)");
  REQUIRE(write(fds[1], lines.data(), lines.size()) == static_cast<ssize_t>(lines.size()));
  close(fds[1]);
  stream.join();
  close(fds[0]);
  REQUIRE(summary.ok());
  CHECK(summary->accepted == 1);
  CheckOnlyAheadRefused(*summary);
}

TEST_CASE("kept ingestor: a store another writer put behind the schema is refused next call",
          "[ingest][engine]") {
  KeptStore kept("kept_writable");
  const std::string cpu = R"("gpu_count":0)";
  CHECK(IngestOne(*kept.ingestor, Record("w-1", Now(), cpu)).accepted == 1);
  CHECK(IngestOne(*kept.ingestor, Record("w-2", Now(), cpu)).accepted == 1);  // checked once more
  {  // another connection leaves the store one schema behind this build
    auto other = hwrec::test::OpenStoreOrFail(kept.location);
    store::Connection& db = store::ConnectionOf(*other);
    const int behind = other->schema_version() - 1;
    store::WriteTransaction transaction(db);
    if (hwrec::test::TestingPostgresql()) {
      db.Execute(
          "DELETE FROM schema_migrations WHERE version = (SELECT max(version) FROM "
          "schema_migrations)");
    } else {
      db.Execute("PRAGMA user_version = " + std::to_string(behind));
    }
    transaction.Commit();
  }
  std::istringstream in(Record("w-3", Now(), cpu));
  const Result<IngestSummary> refused = kept.ingestor->IngestJsonLines(in);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.status().code() == StatusCode::kSchemaMismatch);
}

}  // namespace hwrec::kept_ingestor_test
