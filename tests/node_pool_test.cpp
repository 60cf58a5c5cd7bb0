// Node pools: validation against the GPU catalog, registration with hp ids,
// JSON-lines import, and the `hwrec pools` commands.
#include "hwrec/node_pool.h"
#include "hwrec/pool_import.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "hwrec/catalog.h"
#include "hwrec/store.h"
#include "store/database.h"
#include "test_support.h"

namespace hwrec {
namespace {

// The A30 MIG pool of docs/CLI.md ("Node pools").
NodePool A30Pool() {
  NodePool pool;
  pool.node_pool_id = "sitea-a30-mig";
  pool.site_id = "site-a";
  pool.name = "A30 MIG";
  pool.hardware.instance_type = "on-prem-a30";
  pool.hardware.architecture = "x86_64";
  pool.hardware.cpu_millicores = 64000;
  pool.hardware.memory_bytes = 549755813888;
  pool.hardware.gpu_brand = "NVIDIA";
  pool.hardware.gpu_model = "A30";
  pool.hardware.gpu_count = 4;
  pool.hardware.gpu_mode = "mig-2g.12gb";
  pool.hardware.gpu_total = 8;
  return pool;
}

NodePool CpuPool() {
  NodePool pool;
  pool.node_pool_id = "arm-cpu";
  pool.site_id = "site-a";
  pool.hardware.instance_type = "c6g.16xlarge";
  pool.hardware.architecture = "aarch64";
  pool.hardware.cpu_millicores = 64000;
  pool.hardware.memory_bytes = 137438953472;
  return pool;
}

GpuCatalog Catalog() {
  auto store = test::OpenStoreOrFail(":memory:");
  auto catalog = GpuCatalog::Load(*store);
  REQUIRE(catalog.ok());
  return *catalog;
}

std::string ValidationError(const NodePool& pool) {
  const Status status = ValidateNodePool(pool, Catalog());
  REQUIRE_FALSE(status.ok());
  CHECK(status.code() == StatusCode::kInvalidArgument);
  return status.message();
}

NodePool FindOrFail(const Store& store, const std::string& id) {
  auto found = FindNodePool(store, id);
  INFO(found.status().ToString());
  REQUIRE(found.ok());
  REQUIRE(found->has_value());
  return **found;
}

PoolImportSummary ImportOrFail(Store& store, const std::string& lines) {
  std::istringstream in(lines);
  auto summary = ImportNodePools(store, in);
  INFO(summary.status().ToString());
  REQUIRE(summary.ok());
  return *summary;
}

}  // namespace

TEST_CASE("pools: a valid GPU pool and a CPU-only pool pass validation", "[pools]") {
  CHECK(ValidateNodePool(A30Pool(), Catalog()).ok());
  CHECK(ValidateNodePool(CpuPool(), Catalog()).ok());
}

TEST_CASE("pools: an unknown gpu_model is refused with the closest catalog spellings", "[pools]") {
  NodePool pool = A30Pool();
  pool.hardware.gpu_model = "A100 80G";
  pool.hardware.gpu_mode = "full";
  const std::string message = ValidationError(pool);
  CHECK_THAT(message, Catch::Contains("gpu_model 'A100 80G' is not in the GPU catalog"));
  CHECK_THAT(message, Catch::Contains("did you mean A100 80GB"));
}

TEST_CASE("pools: a gpu_mode that is not a partition of the model lists the valid modes",
          "[pools]") {
  NodePool pool = A30Pool();
  pool.hardware.gpu_mode = "mig-3g.20gb";
  CHECK(ValidationError(pool) ==
        "node pool 'sitea-a30-mig': gpu_mode 'mig-3g.20gb' is not a partition of NVIDIA A30: "
        "use full, mig-1g.6gb, mig-2g.12gb or mig-4g.24gb");
}

TEST_CASE("pools: negative sizes are refused naming the field", "[pools]") {
  NodePool pool = CpuPool();
  pool.hardware.memory_bytes = -1;
  CHECK_THAT(ValidationError(pool), Catch::Contains("memory_bytes is -1"));
  pool = A30Pool();
  pool.hardware.gpu_total = -8;
  CHECK_THAT(ValidationError(pool), Catch::Contains("gpu_total is -8"));

  auto parsed = ParseNodePoolJson(R"({"site_id":"s","node_pool_id":"p","cpu_millicores":-5})");
  REQUIRE_FALSE(parsed.ok());
  CHECK_THAT(parsed.status().message(), Catch::Contains("cpu_millicores"));
}

TEST_CASE("pools: node_pool_id and site_id are required", "[pools]") {
  NodePool pool = CpuPool();
  pool.node_pool_id = "";
  CHECK_THAT(ValidationError(pool), Catch::Contains("node_pool_id is missing"));
  pool = CpuPool();
  pool.site_id = " ";
  CHECK_THAT(ValidationError(pool), Catch::Contains("site_id is missing"));

  for (const std::string json : {R"({"site_id":"site-a"})", R"({"site_id":"a","node_pool_id":""})",
                                 R"({"site_id":"a","node_pool_id":null})"}) {
    INFO(json);
    auto parsed = ParseNodePoolJson(json);
    REQUIRE_FALSE(parsed.ok());
    CHECK_THAT(parsed.status().message(), Catch::Contains("node_pool_id"));
  }
}

TEST_CASE("pools: a pool with gpu_count 0 must not describe a GPU", "[pools]") {
  NodePool pool = A30Pool();
  pool.hardware.gpu_count = 0;
  CHECK_THAT(ValidationError(pool), Catch::Contains("gpu_model is set but gpu_count is 0"));
  pool = CpuPool();
  pool.hardware.gpu_mode = "full";
  CHECK_THAT(ValidationError(pool), Catch::Contains("gpu_mode is set but gpu_count is 0"));
}

TEST_CASE("pools: a GPU pool's gpu_mode is well formed even when the model is unknown", "[pools]") {
  NodePool pool = A30Pool();
  pool.hardware.gpu_model.reset();
  pool.hardware.gpu_mode = "half";
  CHECK_THAT(ValidationError(pool), Catch::Contains("gpu_mode is 'half'"));
  pool.hardware.gpu_mode = "mig-3g.20gb";
  CHECK(ValidateNodePool(pool, Catalog()).ok());
}

TEST_CASE("pools: a brand that does not make the model names the catalog's brand", "[pools]") {
  NodePool pool = A30Pool();
  pool.hardware.gpu_brand = "Nvidia";
  CHECK_THAT(ValidationError(pool),
             Catch::Contains("gpu_brand 'Nvidia' has no A30") && Catch::Contains("'NVIDIA'"));
  pool.hardware.gpu_model.reset();
  CHECK_THAT(ValidationError(pool), Catch::Contains("not a brand in the GPU catalog"));
}

TEST_CASE("pools: unknown JSON keys and wrong types are refused by name", "[pools]") {
  auto typo = ParseNodePoolJson(R"({"site_id":"s","node_pool_id":"p","gpu_modle":"A30"})");
  REQUIRE_FALSE(typo.ok());
  CHECK_THAT(typo.status().message(), Catch::Contains("gpu_modle is not a known field"));
  auto wrong = ParseNodePoolJson(R"({"site_id":"s","node_pool_id":"p","gpu_count":"4"})");
  REQUIRE_FALSE(wrong.ok());
  CHECK_THAT(wrong.status().message(), Catch::Contains("gpu_count must be a whole number"));
}

TEST_CASE("pools: JSON with every field parses into the pool", "[pools]") {
  auto parsed = ParseNodePoolJson(
      R"({"site_id":"site-a","node_pool_id":"sitea-a30-mig","name":"A30 MIG",)"
      R"("instance_type":"on-prem-a30","architecture":"x86_64","cpu_millicores":64000,)"
      R"("memory_bytes":549755813888,"gpu_brand":"NVIDIA","gpu_model":"A30","gpu_count":4,)"
      R"("gpu_mode":"mig-2g.12gb","gpu_total":8})");
  INFO(parsed.status().ToString());
  REQUIRE(parsed.ok());
  CHECK(parsed->node_pool_id == "sitea-a30-mig");
  CHECK(parsed->site_id == "site-a");
  CHECK(parsed->name == "A30 MIG");
  CHECK(parsed->hardware == A30Pool().hardware);
}

TEST_CASE("pools: a registered pool stores the hp ids of its hardware profile", "[pools][engine]") {
  test::TempDir dir;
  auto store = test::OpenStoreOrFail(test::NewStoreLocation(dir, "store.db"));
  NodePool a100;
  a100.node_pool_id = "a100-80";
  a100.site_id = "site-a";
  a100.hardware = {"a2-ultragpu-1g", "x86_64", 12000,    182536110080, 1,
                   "full",           1,        "NVIDIA", "A100 80GB"};
  for (const NodePool& pool : {a100, A30Pool(), CpuPool()}) {
    REQUIRE(RegisterNodePool(*store, pool).ok());
  }
  store::Connection& db = store::ConnectionOf(*store);
  auto rows = db.Prepare("SELECT node_pool_id, hp_v1, hp_v2 FROM node_pools");
  int count = 0;
  while (rows->Step()) {
    ++count;
    const NodePool pool = FindOrFail(*store, rows->String(0));
    CHECK(rows->String(1) == *HardwareProfileId(pool.hardware, ProfileIdVersion::kV1));
    CHECK(rows->String(2) == *HardwareProfileId(pool.hardware, ProfileIdVersion::kV2));
  }
  CHECK(count == 3);
  // The reference vectors of DESIGN §3 for this shape.
  auto ids = db.Prepare("SELECT hp_v1, hp_v2 FROM node_pools WHERE node_pool_id = 'a100-80'");
  REQUIRE(ids->Step());
  CHECK(ids->String(0) == "hp:v1:a458059131523990");
  CHECK(ids->String(1) == "hp:v2:93062af5d26b055e");
  // A CPU-only pool is stored with no GPUs, as the Runner describes it.
  const NodePool cpu = FindOrFail(*store, "arm-cpu");
  CHECK(cpu.hardware.gpu_count == 0);
  CHECK(cpu.hardware.gpu_total == 0);
  CHECK(*HardwareProfileId(cpu.hardware, ProfileIdVersion::kV2) == "hp:v2:266bf09813fdcb3d");
}

TEST_CASE("pools: a gpu_model without gpu_brand takes its brand from the catalog",
          "[pools][engine]") {
  test::TempDir dir;
  auto store = test::OpenStoreOrFail(test::NewStoreLocation(dir, "store.db"));
  NodePool pool = A30Pool();
  pool.hardware.gpu_brand.reset();
  REQUIRE(RegisterNodePool(*store, pool).ok());
  CHECK(FindOrFail(*store, pool.node_pool_id).hardware.gpu_brand == "NVIDIA");
}

TEST_CASE("pools: a GPU pool without a recorded model is kept and marked unknown",
          "[pools][engine]") {
  test::TempDir dir;
  auto store = test::OpenStoreOrFail(test::NewStoreLocation(dir, "store.db"));
  NodePool pool = A30Pool();
  pool.node_pool_id = "mystery";
  pool.hardware.gpu_brand.reset();
  pool.hardware.gpu_model.reset();
  pool.hardware.gpu_mode = "full";
  REQUIRE(RegisterNodePool(*store, pool).ok());
  const NodePool stored = FindOrFail(*store, "mystery");
  CHECK_FALSE(stored.gpu_model_known());
  CHECK_FALSE(stored.hardware.gpu_brand.has_value());
  CHECK(stored.hardware.gpu_count == 4);
}

TEST_CASE("pools: registering again replaces the pool; unknown ids are not found",
          "[pools][engine]") {
  test::TempDir dir;
  auto store = test::OpenStoreOrFail(test::NewStoreLocation(dir, "store.db"));
  REQUIRE(RegisterNodePool(*store, A30Pool()).ok());
  NodePool changed = A30Pool();
  changed.hardware.gpu_mode = "mig-1g.6gb";
  changed.hardware.gpu_total = 16;
  REQUIRE(RegisterNodePool(*store, changed).ok());
  CHECK(FindOrFail(*store, changed.node_pool_id).hardware == changed.hardware);
  auto pools = ListNodePools(*store);
  REQUIRE(pools.ok());
  CHECK(pools->size() == 1);
  auto missing = FindNodePool(*store, "nope");
  REQUIRE(missing.ok());
  CHECK_FALSE(missing->has_value());

  NodePool bad = A30Pool();
  bad.hardware.gpu_model = "A31";
  CHECK_FALSE(RegisterNodePool(*store, bad).ok());
  CHECK(FindOrFail(*store, changed.node_pool_id).hardware == changed.hardware);
}

TEST_CASE("pools import: good lines are registered, bad ones reported with line and field",
          "[pools][engine]") {
  test::TempDir dir;
  auto store = test::OpenStoreOrFail(test::NewStoreLocation(dir, "store.db"));
  std::ifstream lines(test::TestDataPath("pools.jsonl"));
  auto summary = ImportNodePools(*store, lines);
  REQUIRE(summary.ok());
  CHECK(summary->registered == 4);
  CHECK(summary->updated == 0);
  CHECK(summary->unchanged == 0);
  std::map<std::int64_t, std::pair<std::string, std::string>> errors;
  for (const auto& e : summary->errors) errors[e.line] = {e.node_pool_id, e.field};
  CHECK(errors == std::map<std::int64_t, std::pair<std::string, std::string>>{
                      {2, {"typo", "gpu_model"}},
                      {5, {"bad-mode", "gpu_mode"}},
                      {6, {"negative", "memory_bytes"}},
                      {7, {"", "json"}}});
  auto pools = ListNodePools(*store);
  REQUIRE(pools.ok());
  std::vector<std::string> ids;
  for (const NodePool& pool : *pools) ids.push_back(pool.node_pool_id);
  CHECK(ids == std::vector<std::string>{"a100-80", "arm", "a30-mig", "mystery"});
  CHECK(FindOrFail(*store, "a30-mig").hardware.gpu_brand == "NVIDIA");
  CHECK_FALSE(FindOrFail(*store, "mystery").gpu_model_known());
}

TEST_CASE("pools import: an id or name too long to key rows is one line's error",
          "[pools][engine]") {
  test::TempDir dir;
  auto store = test::OpenStoreOrFail(test::NewStoreLocation(dir, "store.db"));
  // Random letters: no compression shortens them below PostgreSQL's index limit.
  std::mt19937 random(20261206);
  const auto noise = [&](std::size_t bytes) {
    std::string text;
    for (std::size_t i = 0; i < bytes; ++i) text += static_cast<char>('a' + random() % 26);
    return text;
  };
  const std::string good = R"({"site_id":"s","node_pool_id":"good","instance_type":"c6g.large"})";
  const std::string long_id =
      R"({"site_id":"s","node_pool_id":")" + noise(3000) + R"(","instance_type":"c6g.large"})";
  const std::string long_type =
      R"({"site_id":"s","node_pool_id":"wide","instance_type":")" + noise(3000) + R"("})";
  const auto summary = ImportOrFail(*store, good + "\n" + long_id + "\n" + long_type + "\n");
  CHECK(summary.registered == 1);
  REQUIRE(summary.errors.size() == 2);
  CHECK(summary.errors[0].field == "node_pool_id");
  CHECK_THAT(summary.errors[0].reason, Catch::Contains("at most 256 bytes"));
  CHECK(summary.errors[1].field == "instance_type");
  CHECK(FindOrFail(*store, "good").node_pool_id == "good");
}

TEST_CASE("pools import: re-imported pools count as unchanged, changed ones as updated",
          "[pools][engine]") {
  test::TempDir dir;
  auto store = test::OpenStoreOrFail(test::NewStoreLocation(dir, "store.db"));
  const std::string a = R"({"site_id":"s","node_pool_id":"a","gpu_model":"T4","gpu_count":1,)"
                        R"("gpu_mode":"full","gpu_total":1})";
  const std::string b = R"({"site_id":"s","node_pool_id":"b","instance_type":"c6g.large"})";
  const auto first = ImportOrFail(*store, a + "\n" + b + "\n");
  CHECK(first.registered == 2);
  const std::string b2 = R"({"site_id":"s","node_pool_id":"b","instance_type":"c6g.xlarge"})";
  const auto second = ImportOrFail(*store, a + "\r\n\n" + b2);
  CHECK(second.registered == 0);
  CHECK(second.updated == 1);
  CHECK(second.unchanged == 1);
  CHECK(second.errors.empty());
  CHECK(FindOrFail(*store, "b").hardware.instance_type == "c6g.xlarge");
}

TEST_CASE("pools cli: import exits 0 when every pool is registered and 3 when some are not",
          "[pools][cli]") {
  test::TempDir dir;
  const std::string store = dir.File("store.db");
  test::OpenStoreOrFail(store);
  const std::string quoted = test::ShellQuote(store);
  const auto ok = test::RunCli("pools import " + quoted + " " +
                               test::ShellQuote(test::SourcePath("examples/pools.jsonl")));
  INFO(ok.out << ok.err);
  CHECK(ok.exit_code == 0);
  CHECK_THAT(ok.out, Catch::Contains("registered 6"));

  const auto partial = test::RunCli("pools import " + quoted + " - --format json",
                                    test::ReadFile(test::TestDataPath("pools.jsonl")));
  INFO(partial.out << partial.err);
  CHECK(partial.exit_code == 3);
  const auto summary = nlohmann::json::parse(partial.out);
  CHECK(summary["registered"] == 4);
  CHECK(summary["errors"].size() == 4);
  CHECK(summary["errors"][0]["line"] == 2);
  CHECK(summary["errors"][0]["field"] == "gpu_model");

  CHECK(test::RunCli("pools import " + test::ShellQuote(dir.File("absent.db")) + " -", "")
            .exit_code == 1);
}

TEST_CASE("pools cli: list --format json shows every field, both ids, and unknown models as null",
          "[pools][cli]") {
  test::TempDir dir;
  const std::string store = dir.File("store.db");
  test::OpenStoreOrFail(store);
  const std::string quoted = test::ShellQuote(store);
  REQUIRE(test::RunCli("pools import " + quoted + " " +
                       test::ShellQuote(test::SourcePath("examples/pools.jsonl")))
              .exit_code == 0);
  const auto result = test::RunCli("pools list " + quoted + " --format json");
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  const auto pools = nlohmann::json::parse(result.out);
  REQUIRE(pools.size() == 6);
  std::map<std::string, nlohmann::json> by_id;
  for (const auto& pool : pools) by_id[pool["node_pool_id"]] = pool;
  const auto& unknown = by_id.at("siteb-gpu-unrecorded");
  CHECK(unknown["gpu_model"].is_null());
  CHECK(unknown["gpu_count"] == 1);
  const auto& a100 = by_id.at("sitea-a100-80gb");
  CHECK(a100["hp_v1"] == "hp:v1:a458059131523990");
  CHECK(a100["hp_v2"] == "hp:v2:93062af5d26b055e");
  for (const char* key :
       {"site_id", "name", "instance_type", "architecture", "cpu_millicores", "memory_bytes",
        "gpu_brand", "gpu_model", "gpu_count", "gpu_mode", "gpu_total", "hp_v1", "hp_v2"}) {
    CHECK(a100.contains(key));
  }
  CHECK(by_id.at("siteb-h100-80gb")["gpu_brand"] == "NVIDIA");

  const auto table = test::RunCli("pools list " + quoted);
  CHECK_THAT(table.out, Catch::Contains("unknown") && Catch::Contains("NVIDIA A30") &&
                            Catch::Contains("hp:v2:93062af5d26b055e"));
}

TEST_CASE("pools cli: a missing or unknown subcommand is a usage error", "[pools][cli]") {
  for (const std::string args : {"pools", "pools remove x"}) {
    const auto result = test::RunCli(args);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.err, Catch::Contains("import") && Catch::Contains("list"));
  }
  CHECK(test::RunCli("pools import --help").exit_code == 0);
  CHECK(test::RunCli("pools list --help").exit_code == 0);
  CHECK(test::RunCli("pools list").exit_code == 2);
}

TEST_CASE("pools: a GPU pool without a recorded gpu_mode is kept as unknown partitioning",
          "[pools][parse][engine]") {
  test::TempDir dir;
  const std::string location = test::NewStoreLocation(dir, "store.db");
  auto store = test::OpenStoreOrFail(location);
  NodePool pool = A30Pool();
  pool.hardware.gpu_mode.reset();
  pool.hardware.gpu_brand.reset();
  REQUIRE(RegisterNodePool(*store, pool).ok());
  const NodePool stored = FindOrFail(*store, pool.node_pool_id);
  CHECK_FALSE(stored.hardware.gpu_mode.has_value());
  CHECK(stored.hardware.gpu_brand == "NVIDIA");  // the model is still checked and resolved
  pool.hardware.gpu_model = "A31";
  CHECK_THAT(ValidationError(pool), Catch::Contains("not in the GPU catalog"));

  const auto summary =
      ImportOrFail(*store, R"({"site_id":"s","node_pool_id":"old","gpu_model":"T4","gpu_count":2})"
                           "\n");
  CHECK(summary.registered == 1);
  CHECK(summary.errors.empty());

  const auto list = test::RunCli("pools list " + test::ShellQuote(location));
  INFO(list.out << list.err);
  CHECK(list.exit_code == 0);
  std::istringstream rows(list.out);
  std::string row;
  bool shown_unknown = false;
  while (std::getline(rows, row)) {
    if (row.rfind("old", 0) == 0) shown_unknown = row.find("unknown") != std::string::npos;
  }
  CHECK(shown_unknown);
}

TEST_CASE("pools: gpu_count above gpu_total is refused", "[pools][parse]") {
  NodePool pool = A30Pool();
  pool.hardware.gpu_count = 9;
  CHECK_THAT(ValidationError(pool), Catch::Contains("gpu_count is 9, more than gpu_total 8"));
  pool.hardware.gpu_count = 8;
  CHECK(ValidateNodePool(pool, Catalog()).ok());
}

TEST_CASE("pools: ids that are only whitespace or hold control characters are refused",
          "[pools][parse]") {
  NodePool pool = A30Pool();
  pool.node_pool_id = "pool\x01";
  CHECK_THAT(ValidationError(pool), Catch::Contains("node_pool_id holds the control character"));
  pool.node_pool_id = "\t ";
  CHECK_THAT(ValidationError(pool), Catch::Contains("node_pool_id is missing"));
  auto parsed = ParseNodePoolJson(R"({"site_id":"s\u0000","node_pool_id":"p"})");
  REQUIRE_FALSE(parsed.ok());
  CHECK_THAT(parsed.status().message(), Catch::Contains("site_id holds the control character"));
  auto dup = ParseNodePoolJson(R"({"site_id":"s","node_pool_id":"p","site_id":"t"})");
  REQUIRE_FALSE(dup.ok());
  CHECK_THAT(dup.status().message(), Catch::Contains("site_id appears more than once"));
}

TEST_CASE("pools import: CR-only line endings separate pools", "[pools][parse][engine]") {
  test::TempDir dir;
  auto store = test::OpenStoreOrFail(test::NewStoreLocation(dir, "store.db"));
  const auto summary =
      ImportOrFail(*store, R"({"site_id":"s","node_pool_id":"a","instance_type":"c6g.large"})"
                           "\r"
                           R"({"site_id":"s","node_pool_id":"b","instance_type":"c6g.large"})");
  CHECK(summary.registered == 2);
  CHECK(summary.errors.empty());
}

}  // namespace hwrec
