#include <SQLiteCpp/SQLiteCpp.h>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "hwrec/ingest.h"
#include "hwrec/node_pool.h"
#include "store/database.h"
#include "store/migration.h"
#include "store/migrator.h"
#include "store/sqlite_util.h"
#include "test_support.h"

using hwrec::IngestOptions;
using hwrec::Ingestor;
using hwrec::IngestSummary;
using hwrec::NodePool;
using hwrec::Observation;
using hwrec::test::TempDir;

namespace {

constexpr double kFinishedAt = 1795968157;  // 2026-11-29T16:02:37Z

// A store with three registered pools: A30 split 2g.12gb, a GPU pool whose
// card is not recorded (split 3g), and an arm64 CPU pool.
struct IngestFixture {
  IngestFixture() : store(hwrec::test::OpenStoreOrFail(location)) {
    Register("a30-mig", "a30-node", "x86_64", 1, "mig-2g.12gb", "A30");
    Register("gpu-unknown", "on-prem-gpu", "x86_64", 1, "mig-3g.20gb", std::nullopt);
    Register("arm-cpu", "c7g.4xlarge", "arm64", 0, std::nullopt, std::nullopt);
  }

  void Register(const std::string& id, const std::string& instance_type,
                const std::string& architecture, std::int64_t gpu_count,
                std::optional<std::string> gpu_mode, std::optional<std::string> gpu_model) {
    NodePool pool;
    pool.node_pool_id = id;
    pool.site_id = "site-a";
    pool.name = id;
    pool.hardware.instance_type = instance_type;
    pool.hardware.architecture = architecture;
    pool.hardware.cpu_millicores = 32000;
    pool.hardware.memory_bytes = 137438953472;
    pool.hardware.gpu_count = gpu_count;
    pool.hardware.gpu_total = gpu_count;
    pool.hardware.gpu_mode = std::move(gpu_mode);
    pool.hardware.gpu_model = std::move(gpu_model);
    const hwrec::Status registered = hwrec::RegisterNodePool(*store, pool);
    INFO(registered.ToString());
    REQUIRE(registered.ok());
  }

  IngestSummary IngestLines(const std::string& lines, IngestOptions options = {}) {
    std::istringstream in(lines);
    const auto ingestor_owner = Ingestor::Open(*store, std::move(options)).value();
    Ingestor& ingestor = *ingestor_owner;
    auto summary = ingestor.IngestJsonLines(in);
    INFO(summary.status().ToString());
    REQUIRE(summary.ok());
    return std::move(summary).value();
  }

  IngestSummary IngestBatch(const std::vector<Observation>& observations) {
    const auto ingestor_owner = Ingestor::Open(*store).value();
    Ingestor& ingestor = *ingestor_owner;
    auto summary = ingestor.Ingest(observations);
    INFO(summary.status().ToString());
    REQUIRE(summary.ok());
    return std::move(summary).value();
  }

  hwrec::store::Connection& db() { return hwrec::store::ConnectionOf(*store); }

  std::int64_t Count(const std::string& table) {
    // Table names come from the tests themselves.
    return db().QueryInt64("SELECT count(*) FROM " + table).value_or(-1);
  }

  // One stored column of one execution, quoted as SQL writes it ("NULL", 'text', 12).
  std::string Stored(const std::string& execution_id, const std::string& column) {
    auto query = db().Prepare("SELECT " + column + " FROM observations WHERE execution_id = ?");
    query->Bind(1, execution_id);
    REQUIRE(query->Step());
    switch (query->Kind(0)) {
      case hwrec::store::ValueKind::kNull:
        return "NULL";
      case hwrec::store::ValueKind::kInteger:
        return std::to_string(query->Int64(0));
      case hwrec::store::ValueKind::kReal:
        return fmt::format("{}", query->Double(0));
      default:
        return "'" + query->String(0) + "'";
    }
  }

  double StoredDouble(const std::string& execution_id, const std::string& column) {
    auto query = db().Prepare("SELECT " + column + " FROM observations WHERE execution_id = ?");
    query->Bind(1, execution_id);
    REQUIRE(query->Step());
    return query->Double(0);
  }

  TempDir dir;
  std::string location = hwrec::test::NewStoreLocation(dir, "store.db");
  std::unique_ptr<hwrec::Store> store;
};

Observation MakeObservation(const std::string& execution_id) {
  Observation o;
  o.execution_id = execution_id;
  o.action_image = "registry.example/infer:3.1";
  o.finished_at = kFinishedAt;
  return o;
}

std::string JsonLine(const std::string& execution_id, const std::string& extra = "") {
  return R"({"execution_id":")" + execution_id +
         R"(","action_image":"registry.example/infer:3.1","finished_at":1795968157)" +
         (extra.empty() ? std::string() : "," + extra) + "}\n";
}

}  // namespace

TEST_CASE("ingest: a mixed file keeps the good lines and names each reject's field and line",
          "[ingest][engine]") {
  IngestFixture f;
  const std::string content =
      hwrec::test::ReadFile(hwrec::test::TestDataPath("observations_mixed.jsonl"));
  IngestOptions options;
  options.source = "observations_mixed.jsonl";
  const IngestSummary summary = f.IngestLines(content, options);
  CHECK(summary.accepted == 6);  // line 15 is kept with a warning
  CHECK(summary.duplicates == 1);
  CHECK(summary.conflicts == 1);
  CHECK(summary.rejected == 9);
  CHECK(summary.conflict_execution_ids == std::vector<std::string>{"mix-05"});

  const std::vector<std::pair<std::int64_t, std::string>> expected = {
      {4, "gpu_compute_fraction"},
      {6, "hardware.gpu_count"},
      {7, "json"},
      {9, "action_image"},
      {10, "status"},
      {11, "requested.memory_bytes"},
      {12, "gpu_utilization"},
      {14, "hardware.gpu_model"},
      {17, "finished_at"}};
  std::vector<std::pair<std::int64_t, std::string>> actual;
  for (const auto& reject : summary.rejects) actual.emplace_back(reject.line, reject.field);
  CHECK(actual == expected);
  CHECK(summary.rejects[0].execution_id == "mix-04");
  CHECK(summary.rejects[2].execution_id.empty());  // line 7 is not JSON
  CHECK_THAT(summary.rejects[7].reason, Catch::Contains("A100 80GB"));
  REQUIRE(summary.warnings.size() == 1);
  CHECK(summary.warnings[0].line == 15);
  CHECK(summary.warnings[0].field == "gpu_utilisation");
  CHECK(summary.warnings[0].message == "is not a known field: did you mean `gpu_utilization`?");

  CHECK(f.Count("observations") == 6);
  CHECK(f.Count("ingest_rejects") == 9);
  CHECK(f.Count("ingest_conflicts") == 1);
  auto reject = f.db().Prepare(
      "SELECT source, execution_id, field, record FROM ingest_rejects WHERE line = 10");
  REQUIRE(reject->Step());
  CHECK(reject->String(0) == "observations_mixed.jsonl");
  CHECK(reject->String(1) == "mix-10");
  CHECK(reject->String(2) == "status");
  CHECK_THAT(content, Catch::Contains(reject->String(3) + "\n"));
}

TEST_CASE("ingest: the same file in small batches gives the same result", "[ingest][engine]") {
  IngestFixture f;
  IngestOptions options;
  options.batch_size = 2;
  const IngestSummary summary = f.IngestLines(
      hwrec::test::ReadFile(hwrec::test::TestDataPath("observations_mixed.jsonl")), options);
  CHECK(summary.accepted == 6);  // line 15 is kept with a warning
  CHECK(summary.duplicates == 1);
  CHECK(summary.conflicts == 1);
  CHECK(summary.rejected == 9);
  CHECK(f.Count("observations") == 6);
}

TEST_CASE("ingest: a bad record built in C++ does not stop the good ones beside it",
          "[ingest][engine]") {
  IngestFixture f;
  Observation bad = MakeObservation("c-2");
  bad.gpu_utilization = 1.5;
  Observation unknown_card = MakeObservation("c-3");
  unknown_card.hardware.gpu_model = "A100-80GB";
  const IngestSummary summary =
      f.IngestBatch({MakeObservation("c-1"), bad, unknown_card, MakeObservation("c-4")});
  CHECK(summary.accepted == 2);
  CHECK(summary.rejected == 2);
  REQUIRE(summary.rejects.size() == 2);
  CHECK(summary.rejects[0].line == 2);
  CHECK(summary.rejects[0].execution_id == "c-2");
  CHECK(summary.rejects[0].field == "gpu_utilization");
  CHECK(summary.rejects[1].line == 3);
  CHECK(summary.rejects[1].field == "hardware.gpu_model");
  CHECK_THAT(summary.rejects[1].reason, Catch::Contains("A100 80GB"));

  auto reject = f.db().Prepare("SELECT source, record FROM ingest_rejects WHERE line = 2");
  REQUIRE(reject->Step());
  CHECK(reject->String(0) == "api");
  CHECK_THAT(reject->String(1), Catch::Contains(R"("gpu_utilization":1.5)"));
  CHECK_THAT(reject->String(1), Catch::Contains(R"("execution_id":"c-2")"));
  CHECK(f.Count("observations") == 2);
}

TEST_CASE("ingest: a re-sent execution is counted once", "[ingest][engine]") {
  IngestFixture f;
  const std::string lines = JsonLine("r-1") + "\n" + JsonLine("r-2") + JsonLine("r-1");
  const IngestSummary first = f.IngestLines(lines);
  CHECK(first.accepted == 2);
  CHECK(first.duplicates == 1);
  CHECK(first.rejected == 0);

  const IngestSummary second = f.IngestLines(lines);
  CHECK(second.accepted == 0);
  CHECK(second.duplicates == 3);
  CHECK(second.conflicts == 0);
  CHECK(f.Count("observations") == 2);

  // The same execution built in C++ is the same content.
  const IngestSummary from_api = f.IngestBatch({MakeObservation("r-1")});
  CHECK(from_api.duplicates == 1);
  CHECK(f.Count("observations") == 2);
}

TEST_CASE("ingest: re-ingesting the mixed file stores nothing twice", "[ingest][engine]") {
  IngestFixture f;
  const std::string content =
      hwrec::test::ReadFile(hwrec::test::TestDataPath("observations_mixed.jsonl"));
  f.IngestLines(content);
  const IngestSummary second = f.IngestLines(content);
  CHECK(second.accepted == 0);
  CHECK(second.duplicates == 7);  // six stored lines and the re-sent one
  CHECK(second.conflicts == 1);
  CHECK(second.rejected == 9);
  CHECK(f.Count("observations") == 6);
}

TEST_CASE("ingest: a re-sent execution with different content is a conflict; the first stays",
          "[ingest][engine]") {
  IngestFixture f;
  const IngestSummary within =
      f.IngestLines(JsonLine("k-1", R"("duration_s":10)") + JsonLine("k-1", R"("duration_s":99)"));
  CHECK(within.accepted == 1);
  CHECK(within.conflicts == 1);
  CHECK(within.conflict_execution_ids == std::vector<std::string>{"k-1"});

  Observation changed = MakeObservation("k-1");
  changed.duration_s = 50;
  const IngestSummary across = f.IngestBatch({changed});
  CHECK(across.accepted == 0);
  CHECK(across.conflicts == 1);

  CHECK(f.StoredDouble("k-1", "duration_s") == 10);
  CHECK(f.Count("observations") == 1);
  auto conflicts =
      f.db().Prepare("SELECT execution_id, line, record FROM ingest_conflicts ORDER BY id");
  REQUIRE(conflicts->Step());
  CHECK(conflicts->String(0) == "k-1");
  CHECK(conflicts->Int64(1) == 2);
  CHECK_THAT(conflicts->String(2), Catch::Contains(R"("duration_s":99)"));
  REQUIRE(conflicts->Step());
  CHECK_THAT(conflicts->String(2), Catch::Contains(R"("duration_s":50)"));
}

TEST_CASE("ingest: a record with only node_pool_id takes its hardware from the pool",
          "[ingest][engine]") {
  IngestFixture f;
  const IngestSummary summary = f.IngestLines(JsonLine("p-1", R"("node_pool_id":"a30-mig")"));
  REQUIRE(summary.accepted == 1);
  CHECK(f.Stored("p-1", "instance_type") == "'a30-node'");
  CHECK(f.Stored("p-1", "architecture") == "'x86_64'");
  CHECK(f.Stored("p-1", "cpu_millicores") == "32000");
  CHECK(f.Stored("p-1", "gpu_count") == "1");
  CHECK(f.Stored("p-1", "gpu_mode") == "'mig-2g.12gb'");
  CHECK(f.Stored("p-1", "gpu_brand") == "'NVIDIA'");
  CHECK(f.Stored("p-1", "gpu_model") == "'A30'");

  auto pool = hwrec::FindNodePool(*f.store, "a30-mig");
  REQUIRE(pool.ok());
  REQUIRE(pool->has_value());
  const auto hp_v2 = hwrec::HardwareProfileId((*pool)->hardware, hwrec::ProfileIdVersion::kV2);
  REQUIRE(hp_v2.ok());
  CHECK(f.Stored("p-1", "hp_v2") == "'" + *hp_v2 + "'");
}

TEST_CASE("ingest: a field the record sends that its pool contradicts is a reject naming both",
          "[ingest][engine]") {
  IngestFixture f;
  const auto summary = f.IngestLines(
      JsonLine("p-2", R"("node_pool_id":"a30-mig","hardware":{"gpu_mode":"mig-1g.6gb"})") +
      JsonLine("p-3", R"("node_pool_id":"a30-mig","hardware":{"gpu_mode":"mig-2g.12gb"})"));
  CHECK(summary.accepted == 1);
  REQUIRE(summary.rejects.size() == 1);
  CHECK(summary.rejects[0].field == "hardware.gpu_mode");
  CHECK_THAT(summary.rejects[0].reason,
             Catch::Contains(R"(is "mig-1g.6gb" but node pool a30-mig has "mig-2g.12gb")"));
  CHECK(f.Stored("p-3", "gpu_model") == "'A30'");
  CHECK(f.StoredDouble("p-3", "gpu_compute_fraction") == 0.5);
}

TEST_CASE("ingest: an A30 mig-2g.12gb without a stamped share gets 0.5 from the catalog",
          "[ingest][engine]") {
  IngestFixture f;
  f.IngestLines(JsonLine("f-1", R"("hardware":{"gpu_model":"A30","gpu_mode":"mig-2g.12gb"})"));
  CHECK(f.StoredDouble("f-1", "gpu_compute_fraction") == 0.5);
  CHECK(f.Stored("f-1", "fraction_source") == "'catalog'");
  CHECK(f.Stored("f-1", "gpu_brand") == "'NVIDIA'");  // resolved from the catalog
}

TEST_CASE("ingest: a MIG mode of an unknown card gets N / total_compute_slices, assumed",
          "[ingest][engine]") {
  IngestFixture f;
  f.IngestLines(JsonLine("f-2", R"("node_pool_id":"gpu-unknown")"));
  CHECK(f.StoredDouble("f-2", "gpu_compute_fraction") == Approx(3.0 / 7));
  CHECK(f.Stored("f-2", "fraction_source") == "'assumed'");
  CHECK(f.Stored("f-2", "gpu_model") == "NULL");  // never guessed
  CHECK(f.Stored("f-2", "gpu_brand") == "NULL");

  f.db().Execute("UPDATE config SET value = '8' WHERE key = 'total_compute_slices'");
  f.IngestLines(JsonLine("f-3", R"("hardware":{"gpu_mode":"mig-2g.10gb"})"));
  CHECK(f.StoredDouble("f-3", "gpu_compute_fraction") == Approx(2.0 / 8));
}

TEST_CASE("ingest: a stamped share is kept; a record without GPU has none", "[ingest][engine]") {
  IngestFixture f;
  f.IngestLines(JsonLine("f-4", R"("node_pool_id":"a30-mig","gpu_compute_fraction":0.3)") +
                JsonLine("f-5", R"("node_pool_id":"arm-cpu")") +
                JsonLine("f-6", R"("hardware":{"gpu_model":"H100 80GB","gpu_mode":"full"})"));
  CHECK(f.StoredDouble("f-4", "gpu_compute_fraction") == 0.3);
  CHECK(f.Stored("f-4", "fraction_source") == "'stamped'");
  CHECK(f.Stored("f-5", "gpu_compute_fraction") == "NULL");
  CHECK(f.Stored("f-5", "fraction_source") == "'none'");
  CHECK(f.StoredDouble("f-6", "gpu_compute_fraction") == 1.0);
  CHECK(f.Stored("f-6", "fraction_source") == "'catalog'");
}

TEST_CASE("ingest: GPU models and modes are checked against the catalog", "[ingest][engine]") {
  IngestFixture f;
  const IngestSummary summary =
      f.IngestLines(JsonLine("g-1", R"("hardware":{"gpu_model":"A30","gpu_mode":"mig-3g.20gb"})") +
                    JsonLine("g-2", R"("hardware":{"gpu_brand":"AMD","gpu_model":"A30"})") +
                    JsonLine("g-3", R"("hardware":{"gpu_model":"H100"})") +
                    JsonLine("g-4", R"("hardware":{"gpu_mode":"shared"})"));
  REQUIRE(summary.rejects.size() == 4);
  CHECK(summary.rejects[0].field == "hardware.gpu_mode");
  CHECK_THAT(summary.rejects[0].reason,
             Catch::Contains("use full, mig-1g.6gb, mig-2g.12gb or mig-4g.24gb"));
  CHECK(summary.rejects[1].field == "hardware.gpu_brand");
  CHECK_THAT(summary.rejects[1].reason, Catch::Contains("NVIDIA"));
  CHECK(summary.rejects[2].field == "hardware.gpu_model");
  CHECK_THAT(summary.rejects[2].reason, Catch::Contains("H100 80GB"));
  CHECK(summary.rejects[3].field == "hardware.gpu_mode");
}

TEST_CASE("ingest: a sent hardware_profile_id that differs is kept and counted",
          "[ingest][engine]") {
  IngestFixture f;
  auto pool = hwrec::FindNodePool(*f.store, "arm-cpu");
  REQUIRE(pool.ok());
  REQUIRE(pool->has_value());
  const auto hp_v1 = hwrec::HardwareProfileId((*pool)->hardware, hwrec::ProfileIdVersion::kV1);
  REQUIRE(hp_v1.ok());
  const IngestSummary summary = f.IngestLines(
      JsonLine("h-1", R"("node_pool_id":"arm-cpu","hardware_profile_id":")" + *hp_v1 + "\"") +
      JsonLine("h-2",
               R"("node_pool_id":"arm-cpu","hardware_profile_id":"hp:v2:0000000000000000")"));
  CHECK(summary.accepted == 2);
  CHECK(summary.profile_id_mismatches == 1);
  CHECK(f.Stored("h-1", "profile_id_mismatch") == "0");
  CHECK(f.Stored("h-2", "profile_id_mismatch") == "1");
  CHECK(f.Stored("h-2", "sent_profile_id") == "'hp:v2:0000000000000000'");
}

TEST_CASE("ingest: blank lines are skipped but keep the line numbers", "[ingest][engine]") {
  IngestFixture f;
  const IngestSummary summary =
      f.IngestLines("\n   \r\n" + JsonLine("b-1") + "\n" + JsonLine("b-2", R"("duration_s":-1)"));
  CHECK(summary.accepted == 1);
  REQUIRE(summary.rejects.size() == 1);
  CHECK(summary.rejects[0].line == 5);
}

TEST_CASE("ingest: a store at an older schema is refused with the fix", "[ingest]") {
  TempDir dir;
  const std::string path = dir.File("legacy.db");
  {
    SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    const std::vector<hwrec::internal::Migration> first = {
        hwrec::internal::EmbeddedMigrations().front()};
    REQUIRE(hwrec::internal::Migrator(db, first).ApplyPending().ok());
  }
  auto store = hwrec::test::OpenStoreOrFail(path);
  const auto ingestor_owner = Ingestor::Open(*store).value();
  Ingestor& ingestor = *ingestor_owner;
  auto summary = ingestor.Ingest({MakeObservation("o-1")});
  REQUIRE_FALSE(summary.ok());
  CHECK(summary.status().code() == hwrec::StatusCode::kSchemaMismatch);
  CHECK_THAT(summary.status().message(), Catch::Contains("hwrec migrate"));

  const auto cli =
      hwrec::test::RunCli("ingest " + hwrec::test::ShellQuote(path) + " -", JsonLine("o-1"));
  CHECK(cli.exit_code == 1);
  CHECK_THAT(cli.err, Catch::Contains("hwrec migrate"));
}

TEST_CASE("ingest cli: reads stdin and prints the JSON summary", "[ingest]") {
  IngestFixture f;
  const std::string store = hwrec::test::ShellQuote(f.location);
  f.store.reset();
  const auto ok = hwrec::test::RunCli("ingest " + store + " - --format json",
                                      JsonLine("s-1") + JsonLine("s-2") + JsonLine("s-1"));
  INFO(ok.err);
  CHECK(ok.exit_code == 0);
  CHECK_THAT(ok.out, Catch::Contains(R"("accepted": 2)"));
  CHECK_THAT(ok.out, Catch::Contains(R"("duplicates": 1)"));

  const auto partial =
      hwrec::test::RunCli("ingest " + store + " - --format json",
                          JsonLine("s-3") + "{broken\n" + JsonLine("s-1", R"("duration_s":5)"));
  CHECK(partial.exit_code == 3);
  const std::string expected_start =
      "{\n  \"accepted\": 1,\n  \"duplicates\": 0,\n  \"conflicts\": 1,\n  \"rejected\": 1,\n"
      "  \"rejects\": [\n    {\n      \"line\": 2,\n      \"field\": \"json\",\n";
  CHECK(partial.out.substr(0, expected_start.size()) == expected_start);
  CHECK_THAT(partial.out, Catch::Contains(R"("conflict_execution_ids": [)"));
}

TEST_CASE("ingest cli: the table lists counts and rejects; errors exit 1, usage 2", "[ingest]") {
  TempDir dir;
  const std::string store = hwrec::test::ShellQuote(dir.File("store.db"));
  REQUIRE(hwrec::test::RunCli("init " + store).exit_code == 0);
  const std::string file = dir.File("obs.jsonl");
  hwrec::test::WriteFile(file, JsonLine("t-1") + JsonLine("t-2", R"("status":"done")"));
  const auto table = hwrec::test::RunCli("ingest " + store + " " + hwrec::test::ShellQuote(file));
  CHECK(table.exit_code == 3);
  CHECK_THAT(table.out, Catch::Contains("accepted"));
  CHECK_THAT(table.out, Catch::Contains("t-2"));
  CHECK_THAT(table.out, Catch::Contains("status"));
  CHECK_THAT(table.out, Catch::Contains("'done' is not a status"));

  const auto missing_store =
      hwrec::test::RunCli("ingest " + hwrec::test::ShellQuote(dir.File("none.db")) + " -", "");
  CHECK(missing_store.exit_code == 1);
  CHECK_THAT(missing_store.err, Catch::Contains("hwrec init"));
  const auto missing_file =
      hwrec::test::RunCli("ingest " + store + " " + hwrec::test::ShellQuote(dir.File("no.jsonl")));
  CHECK(missing_file.exit_code == 1);
  CHECK(hwrec::test::RunCli("ingest " + store).exit_code == 2);
  CHECK(hwrec::test::RunCli("ingest " + store + " - --format yaml").exit_code == 2);
  const auto help = hwrec::test::RunCli("ingest --help");
  CHECK(help.exit_code == 0);
  CHECK_THAT(help.out, Catch::Contains("FILE|-"));
}

TEST_CASE("ingest: a long rejected or conflicting record is kept once, on either engine",
          "[ingest][engine]") {
  TempDir dir;
  const std::string location = hwrec::test::NewStoreLocation(dir, "long.db");
  auto store = hwrec::test::OpenStoreOrFail(location);
  // 24 KiB that compress poorly: longer than any index entry PostgreSQL keeps.
  std::string note;
  std::uint32_t x = 2463534242u;
  for (int i = 0; i < 24 * 1024; ++i) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    note += static_cast<char>('a' + x % 26);
  }
  const std::string rejected =
      R"({"execution_id":"long-1","action_image":"registry.example/long:1","finished_at":1795968157,)"
      R"("cpu_millicores_avg":-5,"memory_peak_bytes":1073741824,"note":")" +
      note + "\"}\n";
  const std::string stored =
      R"({"execution_id":"long-2","action_image":"registry.example/long:1","finished_at":1795968157,)"
      R"("cpu_millicores_avg":900,"memory_peak_bytes":1073741824,"note":")" +
      note + "\"}\n";
  const std::string conflicting =
      R"({"execution_id":"long-2","action_image":"registry.example/long:1","finished_at":1795968157,)"
      R"("cpu_millicores_avg":901,"memory_peak_bytes":1073741824,"note":")" +
      note + "\"}\n";
  for (int round = 0; round < 2; ++round) {
    auto ingestor = Ingestor::Open(*store, IngestOptions{});
    REQUIRE(ingestor.ok());
    std::istringstream in(rejected + stored + conflicting);
    auto summary = (*ingestor)->IngestJsonLines(in);
    INFO(summary.status().ToString());
    REQUIRE(summary.ok());
    CHECK(summary->rejected == 1);
    CHECK(summary->conflicts == 1);
  }
  hwrec::store::Connection& db = hwrec::store::ConnectionOf(*store);
  CHECK(db.QueryInt64("SELECT count(*) FROM ingest_rejects") == 1);
  CHECK(db.QueryInt64("SELECT count(*) FROM ingest_conflicts") == 1);
  CHECK(db.QueryInt64("SELECT count(*) FROM observations") == 1);
}

TEST_CASE("ingest: a line of invalid UTF-8 is one reject, its text kept readable, on either engine",
          "[ingest][engine]") {
  TempDir dir;
  const std::string location = hwrec::test::NewStoreLocation(dir, "utf8.db");
  auto store = hwrec::test::OpenStoreOrFail(location);
  auto good = [](int n) {
    return fmt::format(
               R"({{"execution_id":"good-{}","action_image":"registry.example/utf8:1","finished_at":1795968157,"cpu_millicores_avg":900,"memory_peak_bytes":1073741824}})",
               n) +
           "\n";
  };
  // A byte that is no UTF-8, and a line cut at its 1024th byte inside a
  // two-byte character (1023 ASCII bytes, then é repeated past the limit).
  const std::string bad_byte = R"({"execution_id":"bad)" + std::string("\xff") + "\"}\n";
  std::string split = R"({"execution_id":"long","note":")";
  split += std::string(1023 - split.size(), 'a');
  while (split.size() < 4096) split += "\xc3\xa9";
  split += "\"}\n";
  IngestOptions options;
  options.max_line_bytes = 2048;
  auto ingestor = Ingestor::Open(*store, options);
  REQUIRE(ingestor.ok());
  std::istringstream in(good(1) + good(2) + bad_byte + good(3) + split + good(4));
  auto summary = (*ingestor)->IngestJsonLines(in);
  INFO(summary.status().ToString());
  REQUIRE(summary.ok());
  CHECK(summary->accepted == 4);
  CHECK(summary->rejected == 2);
  hwrec::store::Connection& db = hwrec::store::ConnectionOf(*store);
  CHECK(db.QueryInt64("SELECT count(*) FROM observations") == 4);
  CHECK(db.QueryInt64("SELECT count(*) FROM ingest_rejects") == 2);
  auto records = db.Prepare("SELECT record FROM ingest_rejects ORDER BY line");
  std::vector<std::string> kept;
  while (records->Step()) kept.push_back(records->String(0));
  REQUIRE(kept.size() == 2);
  // The bad byte reads as U+FFFD; the long line is cut before the character it would split.
  CHECK(kept[0] == R"({"execution_id":"bad)"
                   "\xef\xbf\xbd"
                   "\"}");
  CHECK(kept[1].rfind(split.substr(0, 1023) + "... [line 5: ", 0) == 0);

  // A limit below 1 KiB cuts the line as it is read (inside é here); and a
  // source named in bytes that are no UTF-8.
  options.max_line_bytes = 200;
  options.source = "feed-\xff.jsonl";
  auto small = Ingestor::Open(*store, options);
  REQUIRE(small.ok());
  std::string cut = R"({"execution_id":"cut","note":")";
  cut += std::string(199 - cut.size(), 'b');
  cut += "\xc3\xa9\xc3\xa9\"}\n";
  std::istringstream cut_in(good(5) + cut);
  summary = (*small)->IngestJsonLines(cut_in);
  INFO(summary.status().ToString());
  REQUIRE(summary.ok());
  CHECK(summary->accepted == 1);
  CHECK(summary->rejected == 1);
  auto last =
      db.Prepare("SELECT source, record FROM ingest_rejects WHERE line = 2 AND source <> 'api'");
  REQUIRE(last->Step());
  CHECK(last->String(0) == "feed-\xef\xbf\xbd.jsonl");
  CHECK(last->String(1).rfind(cut.substr(0, 199) + "... [line 2: ", 0) == 0);
}
