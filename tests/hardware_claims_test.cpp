// What a record may claim about its hardware and its time (DESIGN §3, §5):
// no finished_at beyond the allowed clock skew, no peak beyond what the
// hardware holds, no hardware that contradicts its registered pool, one rule
// for a missing GPU brand in ingest and `hwrec hardware-id`, and records on an
// unregistered pool learned as the unknown population.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <ctime>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "hwrec/config.h"
#include "hwrec/ingest.h"
#include "hwrec/node_pool.h"
#include "hwrec/recommend.h"
#include "hwrec/refresh.h"
#include "ingest/observation_writer.h"
#include "ingest/record_bounds.h"
#include "store/database.h"
#include "test_support.h"

using hwrec::FigureKind;
using hwrec::HardwareKey;
using hwrec::IngestSummary;
using hwrec::Provenance;
using hwrec::test::RunCli;
using hwrec::test::ShellQuote;

namespace {

constexpr std::int64_t kGiB = 1024LL * 1024 * 1024;
const double kNow = static_cast<double>(std::time(nullptr));

struct ClaimsFixture {
  ClaimsFixture() : store(hwrec::test::OpenStoreOrFail(location)) {
    Register("sitea-a30-mig", "on-prem-a30", 4, "mig-2g.12gb", "A30");
    Register("h100", "a3-highgpu-1g", 1, "full", "H100 80GB");
    Register("gpu-unknown", "on-prem-gpu", 1, "mig-3g.20gb", std::nullopt);
  }

  void Register(const std::string& id, const std::string& instance_type, std::int64_t gpus,
                const std::string& mode, std::optional<std::string> model) {
    hwrec::NodePool pool;
    pool.node_pool_id = id;
    pool.site_id = "site-a";
    pool.name = id;
    pool.hardware.instance_type = instance_type;
    pool.hardware.architecture = "x86_64";
    pool.hardware.cpu_millicores = 32000;
    pool.hardware.memory_bytes = 128 * kGiB;
    pool.hardware.gpu_count = gpus;
    pool.hardware.gpu_total = mode == "full" ? gpus : 2 * gpus;
    pool.hardware.gpu_mode = mode;
    pool.hardware.gpu_model = std::move(model);
    const hwrec::Status registered = hwrec::RegisterNodePool(*store, pool);
    INFO(registered.ToString());
    REQUIRE(registered.ok());
  }

  IngestSummary Ingest(const std::string& lines) {
    std::istringstream in(lines);
    const auto ingestor_owner = hwrec::Ingestor::Open(*store).value();
    hwrec::Ingestor& ingestor = *ingestor_owner;
    auto summary = ingestor.IngestJsonLines(in);
    INFO(summary.status().ToString());
    REQUIRE(summary.ok());
    return std::move(summary).value();
  }

  hwrec::Recommendation Recommend(const HardwareKey& key) {
    const auto opened = hwrec::RecommendationQuery::Open(*store).value();
    hwrec::RecommendationQuery& query = *opened;
    auto r = query.Recommend("train:1", key);
    INFO(r.status().ToString());
    REQUIRE(r.ok());
    return *r;
  }

  hwrec::Recommendation RecommendA30() {
    HardwareKey key;
    key.gpu_brand = "NVIDIA";
    key.gpu_model = "A30";
    key.instance_type = "on-prem-a30";
    return Recommend(key);
  }

  hwrec::store::Connection& db() { return hwrec::store::ConnectionOf(*store); }

  hwrec::test::TempDir dir;
  std::string location = hwrec::test::NewStoreLocation(dir, "claims.db");
  std::unique_ptr<hwrec::Store> store;
};

// Ten executions on the A30 pool, an hour apart, that a key's figures rest on.
std::string GoodLines() {
  std::string lines;
  for (int i = 0; i < 10; ++i) {
    lines += fmt::format(
        R"({{"execution_id": "good-{}", "action_image": "train:1", "finished_at": {:.0f},)"
        R"( "node_pool_id": "sitea-a30-mig", "gpu_memory_peak_gb": 10, "cpu_millicores_p95": 2373,)"
        R"( "cpu_millicores_max": 3000, "memory_peak_bytes": {}}})"
        "\n",
        i, kNow - 3600.0 * (i + 1), 8 * kGiB);
  }
  return lines;
}

std::string ClaimLine(const std::string& id, const std::string& fields) {
  return fmt::format(
      R"({{"execution_id": "{}", "action_image": "train:1", "node_pool_id": "sitea-a30-mig", {}}})"
      "\n",
      id, fields);
}

std::map<std::string, hwrec::IngestReject> RejectsById(const IngestSummary& summary) {
  std::map<std::string, hwrec::IngestReject> out;
  for (const auto& reject : summary.rejects) out[reject.execution_id] = reject;
  return out;
}

void CheckSameFigures(const hwrec::Recommendation& before, const hwrec::Recommendation& after) {
  for (FigureKind kind : {FigureKind::kCpuRequestMillicores, FigureKind::kCpuLimitMillicores,
                          FigureKind::kMemoryBytes, FigureKind::kGpuMemoryGb}) {
    INFO(hwrec::ToString(kind));
    REQUIRE(before.figure(kind).value.has_value());
    REQUIRE(after.figure(kind).value.has_value());
    CHECK(*after.figure(kind).value == Approx(*before.figure(kind).value));
    CHECK(after.figure(kind).samples == before.figure(kind).samples);
  }
}

}  // namespace

TEST_CASE(
    "ingest: a finished_at beyond the allowed clock skew rejects its record, naming finished_at, "
    "the bound and milliseconds, keeps the batch and leaves the figures as they were",
    "[ingest][hardware-claims][engine]") {
  ClaimsFixture f;
  REQUIRE(f.Ingest(GoodLines()).accepted == 10);
  const auto before = f.RecommendA30();

  const std::string tiny =
      R"("gpu_memory_peak_gb": 0.01, "cpu_millicores_p95": 2, "memory_peak_bytes": 1200000)";
  const std::string lines =
      ClaimLine("millis", fmt::format(R"("finished_at": {:.0f}, {})", kNow * 1000, tiny)) +
      ClaimLine("year-9999", R"("finished_at": "9999-12-31T23:59:59Z", )" + tiny) +
      ClaimLine("huge", R"("finished_at": 1e300, )" + tiny) +
      ClaimLine("days-300",
                fmt::format(R"("finished_at": {:.0f}, {})", kNow + 300 * 86400.0, tiny)) +
      ClaimLine("good-late", fmt::format(R"("finished_at": {:.0f}, "memory_peak_bytes": {})",
                                         kNow + 3600.0, 8 * kGiB));
  const IngestSummary summary = f.Ingest(lines);
  CHECK(summary.accepted == 1);  // an hour ahead is within the default day of skew
  CHECK(summary.rejected == 4);
  const auto rejects = RejectsById(summary);
  for (const char* id : {"millis", "year-9999", "huge", "days-300"}) {
    INFO(id);
    REQUIRE(rejects.count(id) == 1);
    CHECK(rejects.at(id).field == "finished_at");
    CHECK_THAT(rejects.at(id).reason, Catch::Contains("ingest.max_clock_skew_hours"));
    CHECK_THAT(rejects.at(id).reason, Catch::Contains("24 h"));
  }
  CHECK_THAT(rejects.at("millis").reason, Catch::Contains("looks like milliseconds"));
  CHECK_THAT(rejects.at("millis").reason, Catch::Contains("send seconds"));
  CHECK_THAT(rejects.at("days-300").reason, Catch::Contains("check the clock"));

  const auto after = f.RecommendA30();
  CHECK(*after.figure(FigureKind::kGpuMemoryGb).value ==
        Approx(*before.figure(FigureKind::kGpuMemoryGb).value));
  CHECK(*after.figure(FigureKind::kCpuRequestMillicores).value ==
        Approx(*before.figure(FigureKind::kCpuRequestMillicores).value));
  CHECK(*after.figure(FigureKind::kMemoryBytes).value > 8.0 * kGiB);
}

TEST_CASE("config: ingest.max_clock_skew_hours is listed, validated and bounds ingest",
          "[config][hardware-claims][engine]") {
  ClaimsFixture f;
  auto listed = hwrec::GetConfig(*f.store, "ingest.max_clock_skew_hours");
  REQUIRE(listed.ok());
  CHECK(listed->value == "24");
  CHECK_FALSE(hwrec::SetConfig(*f.store, "ingest.max_clock_skew_hours", "-1").ok());
  CHECK_FALSE(hwrec::SetConfig(*f.store, "ingest.max_clock_skew_hours", "soon").ok());
  REQUIRE(hwrec::SetConfig(*f.store, "ingest.max_clock_skew_hours", "0.5").ok());
  const IngestSummary summary =
      f.Ingest(ClaimLine("hour-ahead", fmt::format(R"("finished_at": {:.0f})", kNow + 3600.0)));
  CHECK(summary.rejected == 1);
  REQUIRE(summary.rejects.size() == 1);
  CHECK(summary.rejects[0].field == "finished_at");
  CHECK_THAT(summary.rejects[0].reason, Catch::Contains("0.5 h"));

  const auto list = RunCli("config list " + ShellQuote(f.location));
  CHECK(list.exit_code == 0);
  CHECK_THAT(list.out, Catch::Contains("ingest.max_clock_skew_hours"));
  CHECK_THAT(list.out, Catch::Contains("fallback.cpu_memory_any_hardware"));
}

TEST_CASE(
    "ingest: a record wrong in its time and in several figures names every bad field, in one "
    "reject",
    "[ingest][hardware-claims][engine]") {
  ClaimsFixture f;
  // finished_at in milliseconds, CPU and memory above the node: three fields.
  const std::string line =
      ClaimLine("many", fmt::format(R"("finished_at": {:.0f}, "cpu_millicores_avg": 50000, )"
                                    R"("memory_peak_bytes": {})",
                                    kNow * 1000, 1000 * kGiB));
  const IngestSummary summary = f.Ingest(GoodLines() + line);
  CHECK(summary.accepted == 10);
  REQUIRE(summary.rejected == 1);
  const hwrec::IngestReject& reject = summary.rejects.front();
  std::vector<std::string> fields;
  for (const auto& e : reject.errors) fields.push_back(e.field);
  CHECK(fields ==
        std::vector<std::string>{"finished_at", "cpu_millicores_avg", "memory_peak_bytes"});
  CHECK(reject.field == "finished_at");
  // The stored reject names them all too.
  CHECK(f.db().QueryText("SELECT reason FROM ingest_rejects").value_or("") ==
        fmt::format("finished_at: {}; cpu_millicores_avg: {}; memory_peak_bytes: {}",
                    reject.errors[0].reason, reject.errors[1].reason, reject.errors[2].reason));
}

TEST_CASE(
    "ingest: a record refused for its own fields also names what its good fields break: the "
    "clock and each figure above its hardware (JSON lines and records built in C++)",
    "[ingest][hardware-claims][engine]") {
  ClaimsFixture f;
  auto fields_of = [](const hwrec::IngestReject& reject) {
    std::vector<std::string> fields;
    for (const auto& e : reject.errors) fields.push_back(e.field);
    return fields;
  };
  const std::string late_and_busy =
      fmt::format(R"("finished_at": {:.0f}, "cpu_millicores_avg": 50000, "memory_peak_bytes": {})",
                  kNow * 1000, 1000 * kGiB);
  // A bad status; a bad GPU count, so the hardware is not judged; memory
  // that is not a number, so it is not judged either.
  const std::string lines =
      ClaimLine("bad-status", R"("status": "exploded", )" + late_and_busy) +
      ClaimLine("bad-hardware", R"("hardware": {"gpu_count": -1}, )" + late_and_busy) +
      ClaimLine("bad-memory", fmt::format(R"("finished_at": {:.0f}, "cpu_millicores_avg": 50000, )"
                                          R"("memory_peak_bytes": "lots")",
                                          kNow - 60));
  const IngestSummary summary = f.Ingest(GoodLines() + lines);
  CHECK(summary.accepted == 10);
  REQUIRE(summary.rejected == 3);
  auto rejects = RejectsById(summary);
  CHECK(fields_of(rejects["bad-status"]) == std::vector<std::string>{"status", "finished_at",
                                                                     "cpu_millicores_avg",
                                                                     "memory_peak_bytes"});
  CHECK(rejects["bad-status"].field == "status");
  CHECK(fields_of(rejects["bad-hardware"]) ==
        std::vector<std::string>{"hardware.gpu_count", "finished_at"});
  CHECK(fields_of(rejects["bad-memory"]) ==
        std::vector<std::string>{"memory_peak_bytes", "cpu_millicores_avg"});
  // The stored reject lists them all.
  CHECK(f.db()
            .QueryText("SELECT reason FROM ingest_rejects WHERE execution_id = 'bad-status'")
            .value_or("") == hwrec::internal::JoinedReasons(rejects["bad-status"].errors));

  // The same for a record built in C++.
  hwrec::Observation o;
  o.execution_id = "built";
  o.action_image = "train:1";
  o.node_pool_id = "sitea-a30-mig";
  o.finished_at = kNow * 1000;
  o.gpu_utilization = -4;
  o.gpu_memory_peak_gb = 500;
  const auto ingestor = hwrec::Ingestor::Open(*f.store).value();
  const auto built = ingestor->Ingest({o});
  REQUIRE(built.ok());
  REQUIRE(built->rejected == 1);
  CHECK(fields_of(built->rejects.front()) ==
        std::vector<std::string>{"gpu_utilization", "finished_at", "gpu_memory_peak_gb"});
}

TEST_CASE(
    "refresh: a rebuild leaves out a stored observation that finished beyond the allowed clock "
    "skew, so it no longer sets a figure",
    "[refresh][hardware-claims][engine]") {
  ClaimsFixture f;
  REQUIRE(f.Ingest(GoodLines()).accepted == 10);
  const auto before = f.RecommendA30();

  // A row stored by a build that did not bound finished_at: a copy of a good
  // one, 300 days ahead, with tiny values.
  std::string columns = hwrec::internal::kObservationColumns;
  std::string values = columns;
  const std::map<std::string, std::string> replaced = {
      {"execution_id", "'poison'"}, {"finished_at", "?"},        {"gpu_memory_peak_gb", "0.01"},
      {"cpu_millicores_p95", "2"},  {"cpu_millicores_max", "2"}, {"memory_peak_bytes", "1200000"},
      {"content_hash", "?"},
  };
  for (const auto& [column, value] : replaced) {
    const auto at = values.find(column + ",");
    REQUIRE(at != std::string::npos);
    values.replace(at, column.size(), value);
  }
  auto insert = f.db().Prepare("INSERT INTO observations (" + columns + ") SELECT " + values +
                               " FROM observations WHERE execution_id = 'good-0'");
  insert->Bind(1, kNow + 300 * 86400.0);  // finished_at comes before content_hash
  insert->BindBlob(2, std::string(32, 'p'));
  REQUIRE(insert->Run() == 1);

  auto rebuilt = hwrec::RebuildRecommendations(*f.store);
  INFO(rebuilt.status().ToString());
  REQUIRE(rebuilt.ok());
  CheckSameFigures(before, f.RecommendA30());

  const auto cli = RunCli("refresh " + ShellQuote(f.location) + " --rebuild");
  CHECK(cli.exit_code == 0);
  CheckSameFigures(before, f.RecommendA30());
}

TEST_CASE(
    "ingest: a peak beyond what the record's hardware holds rejects it, naming the value and the "
    "bound, and keeps the good records beside it",
    "[ingest][hardware-claims][engine]") {
  ClaimsFixture f;
  const std::string at = fmt::format(R"("finished_at": {:.0f}, )", kNow - 60);
  const auto on = [&](const std::string& id, const std::string& pool, const std::string& rest) {
    return fmt::format(
        R"({{"execution_id": "{}", "action_image": "train:1", "node_pool_id": "{}", {}{}}})"
        "\n",
        id, pool, at, rest);
  };
  const std::string lines =
      on("mig-over", "sitea-a30-mig", R"("gpu_memory_peak_gb": 13)") +
      on("mig-within-tolerance", "sitea-a30-mig", R"("gpu_memory_peak_gb": 12.5)") +
      on("full-over", "h100", R"("gpu_memory_peak_gb": 90)") +
      on("full-within", "h100", R"("gpu_memory_peak_gb": 79)") +
      on("unknown-card", "gpu-unknown", R"("gpu_memory_peak_gb": 500)") +
      on("cpu-over", "sitea-a30-mig", R"("cpu_millicores_max": 40000)") +
      on("cpu-avg-over", "h100", R"("cpu_millicores_avg": 1e307)") +
      on("cpu-within", "sitea-a30-mig", R"("cpu_millicores_p95": 32000)") +
      on("memory-over", "sitea-a30-mig", fmt::format(R"("memory_peak_bytes": {})", 200 * kGiB)) +
      on("memory-within", "sitea-a30-mig", fmt::format(R"("memory_peak_bytes": {})", 120 * kGiB));
  const IngestSummary summary = f.Ingest(lines);
  CHECK(summary.accepted == 5);
  CHECK(summary.rejected == 5);
  const auto rejects = RejectsById(summary);
  const std::map<std::string, std::vector<std::string>> expected = {
      {"mig-over", {"gpu_memory_peak_gb", "13 GiB", "12 GiB", "A30 mig-2g.12gb"}},
      {"full-over", {"gpu_memory_peak_gb", "90 GiB", "80 GiB", "H100 80GB full"}},
      {"cpu-over", {"cpu_millicores_max", "40000 millicores", "32000 millicores"}},
      {"cpu-avg-over", {"cpu_millicores_avg", "1e+307 millicores", "32000 millicores"}},
      {"memory-over", {"memory_peak_bytes", "214748364800 bytes", "137438953472 bytes"}},
  };
  for (const auto& [id, parts] : expected) {
    INFO(id);
    REQUIRE(rejects.count(id) == 1);
    CHECK(rejects.at(id).field == parts[0]);
    for (std::size_t i = 1; i < parts.size(); ++i) {
      CHECK_THAT(rejects.at(id).reason, Catch::Contains(parts[i]));
    }
  }
}

TEST_CASE(
    "ingest: hardware that contradicts its registered node pool is rejected naming both values, "
    "and missing parts still come from the pool",
    "[ingest][hardware-claims][engine]") {
  ClaimsFixture f;
  const std::string at = fmt::format(R"("finished_at": {:.0f}, )", kNow - 60);
  const std::string lines =
      ClaimLine(
          "a100-on-a30",
          at + R"("hardware": {"gpu_model": "A100 80GB", "gpu_mode": "full", "gpu_count": 4})") +
      ClaimLine("count-differs", at + R"("hardware": {"gpu_count": 8})") +
      ClaimLine("partial", at + R"("hardware": {"gpu_brand": "NVIDIA", "gpu_model": "A30"})") +
      ClaimLine("none", at + R"("gpu_memory_peak_gb": 9)");
  const IngestSummary summary = f.Ingest(lines);
  CHECK(summary.accepted == 2);
  CHECK(summary.rejected == 2);
  const auto rejects = RejectsById(summary);
  REQUIRE(rejects.count("a100-on-a30") == 1);
  CHECK(rejects.at("a100-on-a30").field == "hardware.gpu_model");
  CHECK_THAT(rejects.at("a100-on-a30").reason,
             Catch::Contains(R"(hardware.gpu_model is "A100 80GB" but node pool sitea-a30-mig )"
                             R"(has "A30")"));
  REQUIRE(rejects.count("count-differs") == 1);
  CHECK(rejects.at("count-differs").field == "hardware.gpu_count");
  CHECK_THAT(rejects.at("count-differs").reason, Catch::Contains("is 8 but node pool"));
  CHECK_THAT(rejects.at("count-differs").reason, Catch::Contains("has 4"));

  auto row = f.db().Prepare(
      "SELECT instance_type, gpu_mode, gpu_count FROM observations WHERE execution_id = 'partial'");
  REQUIRE(row->Step());
  CHECK(row->String(0) == "on-prem-a30");
  CHECK(row->String(1) == "mig-2g.12gb");
  CHECK(row->Int64(2) == 4);
}

TEST_CASE(
    "ingest: a record on an unregistered node pool is kept, learned as unknown hardware with its "
    "GPU memory, and counted as unresolved_hardware",
    "[ingest][hardware-claims][engine]") {
  ClaimsFixture f;
  std::string lines;
  for (int i = 0; i < 3; ++i) {
    lines += fmt::format(
        R"({{"execution_id": "lost-{}", "action_image": "train:1", "finished_at": {:.0f},)"
        R"( "node_pool_id": "nowhere", "gpu_memory_peak_gb": 20, "memory_peak_bytes": {}}})"
        "\n",
        i, kNow - 600.0 * (i + 1), 4 * kGiB);
  }
  const IngestSummary summary = f.Ingest(lines);
  CHECK(summary.accepted == 3);
  CHECK(summary.unresolved_hardware == 3);

  const auto unknown = f.Recommend(HardwareKey{});
  const auto& gpu_memory = unknown.figure(FigureKind::kGpuMemoryGb);
  CHECK(gpu_memory.provenance == Provenance::kExact);
  CHECK(gpu_memory.samples == 3);
  REQUIRE(gpu_memory.value.has_value());
  CHECK(*gpu_memory.value == Approx(22.0));  // the 20 GB peak +10 %
  CHECK(unknown.figure(FigureKind::kMemoryBytes).provenance == Provenance::kExact);

  hwrec::test::WriteFile(
      f.dir.File("more.jsonl"),
      ClaimLine("elsewhere", fmt::format(R"("finished_at": {:.0f})", kNow - 60)) +
          fmt::format(R"({{"execution_id": "lost-3", "action_image": "x",)"
                      R"( "finished_at": {:.0f}, "node_pool_id": "nowhere"}})"
                      "\n",
                      kNow - 60));
  const auto json = RunCli("ingest " + ShellQuote(f.location) + " " +
                           ShellQuote(f.dir.File("more.jsonl")) + " --format json");
  CHECK(json.exit_code == 0);
  CHECK(nlohmann::json::parse(json.out)["unresolved_hardware"] == 1);
  hwrec::test::WriteFile(
      f.dir.File("again.jsonl"),
      fmt::format(R"({{"execution_id": "lost-4", "action_image": "x", "finished_at": {:.0f},)"
                  R"( "node_pool_id": "nowhere"}})"
                  "\n",
                  kNow - 60));
  const auto table =
      RunCli("ingest " + ShellQuote(f.location) + " " + ShellQuote(f.dir.File("again.jsonl")));
  CHECK(table.exit_code == 0);
  CHECK_THAT(table.out, Catch::Contains("unresolved hardware    1"));
  CHECK_THAT(table.out, Catch::Contains("hwrec pools import"));
}

TEST_CASE(
    "hardware-id: a profile without a GPU brand gets the brand its catalog model implies, so the "
    "id matches what ingest computes",
    "[cli][hardware-id][hardware-claims]") {
  const std::string brandless =
      R"({"instance_type": "a3-highgpu-1g", "architecture": "x86_64", "cpu_millicores": 32000,)"
      R"( "memory_bytes": 137438953472, "gpu_count": 1, "gpu_mode": "full", "gpu_total": 1,)"
      R"( "gpu_model": "H100 80GB"})";
  auto profile = hwrec::ParseHardwareProfile(brandless);
  REQUIRE(profile.ok());
  hwrec::HardwareProfile branded = *profile;
  branded.gpu_brand = "NVIDIA";
  const std::string expected = *hwrec::HardwareProfileId(branded, hwrec::ProfileIdVersion::kV2);

  const auto r = RunCli("hardware-id --profile " + ShellQuote(brandless) + " --format json");
  REQUIRE(r.exit_code == 0);
  const std::string cli_id = nlohmann::json::parse(r.out)["hp_v2"];
  CHECK(cli_id == expected);

  ClaimsFixture f;
  const IngestSummary summary = f.Ingest(fmt::format(
      R"({{"execution_id": "sent-id", "action_image": "train:1", "finished_at": {:.0f},)"
      R"( "hardware": {}, "hardware_profile_id": "{}"}})"
      "\n",
      kNow - 60, brandless, cli_id));
  CHECK(summary.accepted == 1);
  CHECK(summary.profile_id_mismatches == 0);

  const auto with_store = RunCli("hardware-id --profile " + ShellQuote(brandless) + " --store " +
                                 ShellQuote(f.location) + " --format json");
  REQUIRE(with_store.exit_code == 0);
  CHECK(nlohmann::json::parse(with_store.out)["hp_v2"] == expected);
}

TEST_CASE("claims: absurd values on hardware of unknown size are refused by name",
          "[ingest][claims][engine]") {
  ClaimsFixture f;
  // An unregistered pool: neither the card nor the node's size is known.
  const auto summary = f.Ingest(fmt::format(
      R"({{"execution_id": "absurd", "action_image": "train:1", "finished_at": {0:.0f},)"
      R"( "node_pool_id": "nowhere", "gpu_memory_peak_gb": 1e307, "memory_peak_bytes": 9e18,)"
      R"( "cpu_millicores_avg": 1e300}})"
      "\n"
      R"({{"execution_id": "big-but-real", "action_image": "train:1", "finished_at": {0:.0f},)"
      R"( "node_pool_id": "nowhere", "gpu_memory_peak_gb": 1200, "memory_peak_bytes": {1},)"
      R"( "cpu_millicores_avg": 1900000}})"
      "\n",
      kNow - 60, 30LL * 1024 * kGiB));
  CHECK(summary.accepted == 1);
  const auto rejects = RejectsById(summary);
  REQUIRE(rejects.count("absurd") == 1);
  std::map<std::string, std::string> reasons;
  for (const hwrec::RecordError& e : rejects.at("absurd").errors) reasons[e.field] = e.reason;
  REQUIRE(reasons.count("gpu_memory_peak_gb") == 1);
  // 16 × the largest catalogued card (80 GiB or more).
  CHECK_THAT(reasons["gpu_memory_peak_gb"],
             Catch::Contains("more than a card of unknown size is taken to hold"));
  CHECK_THAT(reasons["gpu_memory_peak_gb"],
             Catch::Contains("ingest.unknown_hardware.gpu_memory_factor"));
  REQUIRE(reasons.count("memory_peak_bytes") == 1);
  CHECK_THAT(reasons["memory_peak_bytes"], Catch::Contains("35184372088832 bytes"));
  REQUIRE(reasons.count("cpu_millicores_avg") == 1);
  CHECK_THAT(reasons["cpu_millicores_avg"], Catch::Contains("2048000 millicores"));

  // The bounds are settings: 16 cores refuse what 2,048 accepted.
  const auto set =
      RunCli("config set " + ShellQuote(f.location) + " ingest.unknown_hardware.max_cpu_cores 16");
  INFO(set.err);
  REQUIRE(set.exit_code == 0);
  const auto again = f.Ingest(fmt::format(
      R"({{"execution_id": "twenty-cores", "action_image": "train:1", "finished_at": {:.0f},)"
      R"( "node_pool_id": "nowhere", "cpu_millicores_avg": 20000}})"
      "\n",
      kNow - 30));
  CHECK(again.accepted == 0);
  REQUIRE(again.rejects.size() == 1);
  CHECK(again.rejects[0].field == "cpu_millicores_avg");
  CHECK_THAT(again.rejects[0].reason, Catch::Contains("16000 millicores"));
}

TEST_CASE("claims: an OOM's request on hardware of unknown size is held to the same bounds",
          "[ingest][claims][engine]") {
  ClaimsFixture f;
  // The figure of an OOM is bumped from its request, and nothing of unknown
  // size caps it: a request sent in MiB as GB would set a 49,000 GB figure.
  const auto summary = f.Ingest(fmt::format(
      R"({{"execution_id": "mib-as-gb", "action_image": "train:1", "finished_at": {0:.0f},)"
      R"( "status": "gpu_oom", "gpu_count_held": 1, "node_pool_id": "nowhere",)"
      R"( "gpu_memory_peak_gb": 39, "requested": {{"gpu_memory_gb": 40960}}}})"
      "\n"
      R"({{"execution_id": "bytes-as-kib", "action_image": "train:1", "finished_at": {0:.0f},)"
      R"( "status": "oom", "node_pool_id": "nowhere", "memory_peak_bytes": 1000,)"
      R"( "requested": {{"memory_bytes": 9000000000000000000}}}})"
      "\n"
      R"({{"execution_id": "real-oom", "action_image": "train:1", "finished_at": {0:.0f},)"
      R"( "status": "gpu_oom", "gpu_count_held": 1, "node_pool_id": "nowhere",)"
      R"( "gpu_memory_peak_gb": 39, "requested": {{"gpu_memory_gb": 40}}}})"
      "\n",
      kNow - 60));
  CHECK(summary.accepted == 1);
  const auto rejects = RejectsById(summary);
  REQUIRE(rejects.count("mib-as-gb") == 1);
  REQUIRE(rejects.at("mib-as-gb").errors.size() == 1);
  CHECK(rejects.at("mib-as-gb").errors[0].field == "requested.gpu_memory_gb");
  CHECK_THAT(rejects.at("mib-as-gb").errors[0].reason,
             Catch::Contains("more than a card of unknown size is taken to hold"));
  REQUIRE(rejects.count("bytes-as-kib") == 1);
  CHECK(rejects.at("bytes-as-kib").errors[0].field == "requested.memory_bytes");
}
