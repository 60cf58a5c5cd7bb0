// The Runner's own records: RunnerNodePool and CompleteExecutionMetric (with
// the worker's metrics) read as they are, field by field with their units, as
// docs/RUNNER.md maps them; and the simulated capacity of `hwrec route`.
#include "base/time.h"
#include "hwrec/ladder.h"
#include "hwrec/ladder_walk.h"
#include "hwrec/runner.h"
#include "hwrec/simulated_capacity.h"

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "hwrec/ingest.h"
#include "hwrec/node_pool.h"
#include "hwrec/pool_import.h"
#include "hwrec/router.h"
#include "hwrec/store.h"
#include "test_support.h"

namespace hwrec {
namespace {

using Json = nlohmann::json;
using test::RunCli;
using test::ShellQuote;
using test::TempDir;

// An A100 80GB MIG pool as the Runner API serialises it.
Json RunnerA100Pool() {
  return Json{{"id", "np-a100-mig"},         {"name", "A100 80GB MIG 3g"},
              {"site_id", "site-1"},         {"cpu", 64},
              {"memory", 549755813888},      {"gpu", 1},
              {"architecture", "x86_64"},    {"gpu_mode", "mig-3g.40gb"},
              {"gpu_num_total", 14},         {"gpu_brand", "NVIDIA"},
              {"gpu_model", "A100 80GB"},    {"instance_type", "dgx-a100"},
              {"maximum_time_in_sec", 86400}};
}

// A finished execution as MessageToDict prints CompleteExecutionMetric, with
// the worker's metrics dict.
Json RunnerExecution() {
  return Json{{"execution_id", "ex-1"},
              {"action_container_image", "registry/llm-serve:1.4"},
              {"site_id", "site-1"},
              {"node_pool_id", "np-a100-mig"},
              {"started_at", "2026-11-29T16:00:00Z"},
              {"ended_at", "2026-11-29T16:02:37Z"},
              {"status", "Success"},
              {"hardware_profile_id", "hp:v2:0123456789abcdef"},
              {"instance_type", "dgx-a100"},
              {"node_pool_gpu", 1},
              {"node_pool_gpu_mode", "mig-3g.40gb"},
              {"node_pool_gpu_num_total", 14},
              {"gpu_brand", "NVIDIA"},
              {"gpu_model", "A100 80GB"},
              {"architecture", "x86_64"},
              {"resources_allocation",
               {{"cpu", 2.5},
                {"memory", 8589934592},
                {"gpu_memory_gb", 40},
                {"gpu_compute_fraction", 0.375}}},
              {"metrics",
               {{"gpu_compute_fraction", 0.375},
                {"gpu_util", 55},
                {"gpu_memory_max_mib", 20992},
                {"cpu_avg", 1.25},
                {"cpu_p95", 1.8},
                {"cpu_max", 2},
                {"memory_max", 4294967296}}}};
}

Observation ParsedOrFail(const Json& record, RecordForm form = RecordForm::kRunner) {
  ObservationParse parsed = ParseObservationRecord(record.dump(), form);
  for (const FieldError& e : parsed.errors) UNSCOPED_INFO(e.field << " " << e.reason);
  REQUIRE(parsed.errors.empty());
  REQUIRE(parsed.observation.has_value());
  return *parsed.observation;
}

// The first error of a record that must be rejected.
FieldError FirstError(const Json& record, RecordForm form = RecordForm::kRunner,
                      bool strict = false) {
  ObservationParse parsed = ParseObservationRecord(record.dump(), form, strict);
  REQUIRE_FALSE(parsed.observation.has_value());
  REQUIRE_FALSE(parsed.errors.empty());
  return parsed.errors.front();
}

std::unique_ptr<Store> StoreWithPool(const TempDir& dir) {
  auto store = test::OpenStoreOrFail(test::NewStoreLocation(dir, "store.db"));
  std::istringstream pools(RunnerA100Pool().dump() + "\n");
  auto summary = ImportNodePools(*store, pools, RecordForm::kRunner);
  REQUIRE(summary.ok());
  REQUIRE(summary->registered == 1);
  return store;
}

}  // namespace

TEST_CASE("runner: record forms print and parse as auto, hwrec and runner") {
  for (RecordForm form : {RecordForm::kAuto, RecordForm::kHwrec, RecordForm::kRunner}) {
    CHECK(ParseRecordForm(ToString(form)) == form);
  }
  CHECK(ToString(RecordForm::kRunner) == "runner");
  CHECK_FALSE(ParseRecordForm("Runner").has_value());
}

TEST_CASE("runner pool: every RunnerNodePool field becomes its hwrec field, with units") {
  auto pool = ParseRunnerNodePoolJson(RunnerA100Pool().dump());
  INFO(pool.status().ToString());
  REQUIRE(pool.ok());
  CHECK(pool->node_pool_id == "np-a100-mig");          // id
  CHECK(pool->name == "A100 80GB MIG 3g");             // name
  CHECK(pool->site_id == "site-1");                    // site_id
  CHECK(pool->hardware.cpu_millicores == 64000);       // cpu: cores x 1000
  CHECK(pool->hardware.memory_bytes == 549755813888);  // memory: bytes
  CHECK(pool->hardware.gpu_count == 1);                // gpu: count
  CHECK(pool->hardware.architecture == "x86_64");      // architecture
  CHECK(pool->hardware.gpu_mode == "mig-3g.40gb");     // gpu_mode
  CHECK(pool->hardware.gpu_total == 14);               // gpu_num_total
  CHECK(pool->hardware.gpu_brand == "NVIDIA");         // gpu_brand
  CHECK(pool->hardware.gpu_model == "A100 80GB");      // gpu_model
  CHECK(pool->hardware.instance_type == "dgx-a100");   // instance_type
}

TEST_CASE("runner pool: cores become millicores rounded to the nearest one") {
  Json pool = RunnerA100Pool();
  pool["cpu"] = 0.1;
  CHECK(ParseRunnerNodePoolJson(pool.dump())->hardware.cpu_millicores == 100);
  pool["cpu"] = 2.0006;
  CHECK(ParseRunnerNodePoolJson(pool.dump())->hardware.cpu_millicores == 2001);
  pool["cpu"] = 2.0004;
  CHECK(ParseRunnerNodePoolJson(pool.dump())->hardware.cpu_millicores == 2000);
}

TEST_CASE("runner pool: a CPU pool with a null gpu_mode is read as CPU-only") {
  Json pool{{"id", "np-cpu"},
            {"site_id", "site-1"},
            {"cpu", 16},
            {"memory", 68719476736},
            {"gpu", 0},
            {"gpu_mode", nullptr},
            {"architecture", "arm64"}};
  auto parsed = ParseRunnerNodePoolJson(pool.dump());
  INFO(parsed.status().ToString());
  REQUIRE(parsed.ok());
  CHECK(parsed->hardware.gpu_count == 0);
  CHECK_FALSE(parsed->hardware.gpu_mode.has_value());
}

TEST_CASE("runner pool: maximum_time_in_sec is checked but not stored") {
  Json pool = RunnerA100Pool();
  pool["maximum_time_in_sec"] = -1;
  auto bad = ParseRunnerNodePoolJson(pool.dump());
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.status().message(),
             Catch::Contains("maximum_time_in_sec is -1") && Catch::Contains("seconds"));
  pool["maximum_time_in_sec"] = "a day";
  CHECK_THAT(ParseRunnerNodePoolJson(pool.dump()).status().message(),
             Catch::Contains("maximum_time_in_sec must be a number"));
}

TEST_CASE("runner pool: a wrong type or sign names the Runner's field and its unit") {
  const std::pair<const char*, Json> cases[] = {
      {"cpu must be a number, got a string (in cores)", "four"},
      {"cpu is -2: it must be zero or more (in cores)", -2},
  };
  for (const auto& [expected, value] : cases) {
    Json pool = RunnerA100Pool();
    pool["cpu"] = value;
    CHECK_THAT(ParseRunnerNodePoolJson(pool.dump()).status().message(), Catch::Contains(expected));
  }
  Json pool = RunnerA100Pool();
  pool["gpu"] = 1.5;
  CHECK_THAT(ParseRunnerNodePoolJson(pool.dump()).status().message(),
             Catch::Contains("gpu must be a whole number of GPUs, got 1.5"));
  pool = RunnerA100Pool();
  pool["memory"] = -1;
  CHECK_THAT(ParseRunnerNodePoolJson(pool.dump()).status().message(),
             Catch::Contains("memory is -1") && Catch::Contains("(in bytes)"));
  pool = RunnerA100Pool();
  pool.erase("id");
  CHECK_THAT(ParseNodePoolRecord(pool.dump(), RecordForm::kRunner).status().message(),
             Catch::Contains("node pool: id is missing"));
}

TEST_CASE("runner pool: a field hwrec does not know is ignored with a warning, never a reject",
          "[engine]") {
  test::TempDir dir;
  auto store = test::OpenStoreOrFail(test::NewStoreLocation(dir, "s.db"));
  Json pool = RunnerA100Pool();
  pool["nme"] = "x";
  pool["created_at"] = "2026-11-01T00:00:00Z";
  std::istringstream lines(pool.dump() + "\n");
  auto summary = ImportNodePools(*store, lines, RecordForm::kAuto);
  REQUIRE(summary.ok());
  CHECK(summary->registered == 1);
  CHECK(summary->errors.empty());
  REQUIRE(summary->warnings.size() == 2);
  std::map<std::string, std::string> reasons;
  for (const PoolImportError& w : summary->warnings) {
    CHECK(w.line == 1);
    CHECK(w.node_pool_id == pool["id"].get<std::string>());
    reasons[w.field] = w.reason;
  }
  CHECK_THAT(reasons["nme"], Catch::Contains("did you mean `name`?"));
  CHECK(reasons.count("created_at") == 1);
  // hwrec's own form stays strict: its pools are the operator's to spell right.
  Json own{{"node_pool_id", "np-own"}, {"site_id", "s"}, {"nme", "x"}};
  std::istringstream own_line(own.dump() + "\n");
  auto refused = ImportNodePools(*store, own_line, RecordForm::kAuto);
  REQUIRE(refused.ok());
  REQUIRE(refused->errors.size() == 1);
  CHECK(refused->errors[0].field == "nme");
}

TEST_CASE("runner pool: auto form is the Runner's with id and no node_pool_id") {
  auto runner = ParseNodePoolRecord(RunnerA100Pool().dump(), RecordForm::kAuto);
  INFO(runner.status().ToString());
  REQUIRE(runner.ok());
  CHECK(runner->hardware.cpu_millicores == 64000);
  const Json hwrec_pool{{"node_pool_id", "np-1"}, {"site_id", "s"}, {"cpu_millicores", 4000}};
  auto own = ParseNodePoolRecord(hwrec_pool.dump(), RecordForm::kAuto);
  REQUIRE(own.ok());
  CHECK(own->hardware.cpu_millicores == 4000);
  // In hwrec's form the Runner's fields are unknown.
  CHECK_FALSE(ParseNodePoolRecord(RunnerA100Pool().dump(), RecordForm::kHwrec).ok());
}

TEST_CASE("runner pool: import keeps good lines and names the Runner's fields in rejects",
          "[engine]") {
  TempDir dir;
  auto store = test::OpenStoreOrFail(test::NewStoreLocation(dir, "store.db"));
  Json unknown_model = RunnerA100Pool();
  unknown_model["id"] = "np-bad-model";
  unknown_model["gpu_model"] = "A100 90GB";
  Json too_many = RunnerA100Pool();
  too_many["id"] = "np-too-many";
  too_many["gpu"] = 20;
  std::istringstream lines(RunnerA100Pool().dump() + "\n" + unknown_model.dump() + "\n\n" +
                           too_many.dump() + "\n");
  auto summary = ImportNodePools(*store, lines, RecordForm::kAuto);
  REQUIRE(summary.ok());
  CHECK(summary->registered == 1);
  REQUIRE(summary->errors.size() == 2);
  CHECK(summary->errors[0].line == 2);
  CHECK(summary->errors[0].node_pool_id == "np-bad-model");
  CHECK(summary->errors[0].field == "gpu_model");
  CHECK(summary->errors[1].line == 4);
  CHECK(summary->errors[1].node_pool_id == "np-too-many");
  CHECK(summary->errors[1].field == "gpu");  // hwrec's gpu_count
  auto pools = ListNodePools(*store);
  REQUIRE(pools.ok());
  REQUIRE(pools->size() == 1);
  CHECK(pools->front().hardware.gpu_total == 14);
}

TEST_CASE("runner execution: every CompleteExecutionMetric and metrics field, with units") {
  const Observation o = ParsedOrFail(RunnerExecution());
  CHECK(o.execution_id == "ex-1");                           // execution_id
  CHECK(o.action_image == "registry/llm-serve:1.4");         // action_container_image
  CHECK(o.site_id == "site-1");                              // site_id
  CHECK(o.node_pool_id == "np-a100-mig");                    // node_pool_id
  CHECK(o.finished_at == 1795968157);                        // ended_at: RFC 3339
  CHECK(o.duration_s == 157);                                // ended_at - started_at
  CHECK(o.status == ExecutionStatus::kSuccess);              // status: Success
  CHECK(o.hardware_profile_id == "hp:v2:0123456789abcdef");  // hardware_profile_id
  CHECK(o.hardware.instance_type == "dgx-a100");             // instance_type
  CHECK(o.hardware.gpu_count == 1);                          // node_pool_gpu
  CHECK(o.hardware.gpu_mode == "mig-3g.40gb");               // node_pool_gpu_mode
  CHECK(o.hardware.gpu_total == 14);                         // node_pool_gpu_num_total
  CHECK(o.hardware.gpu_brand == "NVIDIA");                   // gpu_brand
  CHECK(o.hardware.gpu_model == "A100 80GB");                // gpu_model
  CHECK(o.hardware.architecture == "x86_64");                // architecture
  CHECK(o.requested.cpu_millicores == 2500);                 // resources_allocation.cpu: cores
  CHECK(o.requested.memory_bytes == 8589934592);             // resources_allocation.memory
  CHECK(o.requested.gpu_memory_gb == 40);                    // resources_allocation.gpu_memory_gb
  CHECK(o.requested.gpu_compute_fraction == 0.375);          // .gpu_compute_fraction
  CHECK(o.gpu_compute_fraction == 0.375);                    // metrics.gpu_compute_fraction
  CHECK(o.gpu_utilization == 0.55);                          // metrics.gpu_util: percent / 100
  CHECK(o.gpu_memory_peak_gb == 20.5);                       // metrics.gpu_memory_max_mib / 1024
  CHECK(o.cpu_millicores_avg == 1250);                       // metrics.cpu_avg: cores x 1000
  CHECK(o.cpu_millicores_p95 == 1800);                       // metrics.cpu_p95
  CHECK(o.cpu_millicores_max == 2000);                       // metrics.cpu_max
  CHECK(o.memory_peak_bytes == 4294967296);                  // metrics.memory_max: bytes
}

TEST_CASE("runner execution: the Runner's statuses map to hwrec's, anything else is refused") {
  const std::pair<const char*, ExecutionStatus> table[] = {
      {"Success", ExecutionStatus::kSuccess},     {"Error", ExecutionStatus::kFailed},
      {"Canceled", ExecutionStatus::kCancelled},  {"Cancelled", ExecutionStatus::kCancelled},
      {"Stopped", ExecutionStatus::kCancelled},   {"OOMKilled", ExecutionStatus::kOom},
      {"GPUOOMKilled", ExecutionStatus::kGpuOom}, {"gpu_oom", ExecutionStatus::kGpuOom},
      {"failed", ExecutionStatus::kFailed},
  };
  for (const auto& [text, status] : table) {
    Json record = RunnerExecution();
    record["status"] = text;
    INFO(text);
    CHECK(ParsedOrFail(record).status == status);
  }
  Json record = RunnerExecution();
  record["status"] = "Running";
  const FieldError error = FirstError(record);
  CHECK(error.field == "status");
  CHECK_THAT(error.reason, Catch::Contains("'Running'") && Catch::Contains("GPUOOMKilled") &&
                               Catch::Contains("Canceled"));
}

TEST_CASE("runner execution: duration_in_sec wins over started_at, epoch seconds are read") {
  Json record = RunnerExecution();
  record["duration_in_sec"] = 150.5;
  CHECK(ParsedOrFail(record).duration_s == 150.5);
  record = RunnerExecution();
  record["started_at"] = 1795968000;
  record["ended_at"] = 1795968100.5;
  const Observation o = ParsedOrFail(record);
  CHECK(o.finished_at == 1795968100.5);
  CHECK(o.duration_s == 100.5);
  record = RunnerExecution();
  record.erase("started_at");
  CHECK_FALSE(ParsedOrFail(record).duration_s.has_value());
}

TEST_CASE("runner execution: a start after the end, or an unreadable start, names started_at") {
  Json record = RunnerExecution();
  record["started_at"] = "2026-11-29T16:05:00Z";
  FieldError error = FirstError(record);
  CHECK(error.field == "started_at");
  CHECK_THAT(error.reason, Catch::Contains("after ended_at"));
  record["started_at"] = "yesterday";
  CHECK(FirstError(record).field == "started_at");
  record["started_at"] = 0;  // an unset timestamp
  error = FirstError(record);
  CHECK(error.field == "started_at");
  CHECK_THAT(error.reason, Catch::Contains("s before ended_at, more than a year") &&
                               Catch::Contains("an unset timestamp reads as 1970"));
}

TEST_CASE("runner execution: a timestamp in milliseconds is named, not the other one") {
  Json record = RunnerExecution();
  record["started_at"] = 1795968000;
  record["ended_at"] = 1795968157000;
  FieldError error = FirstError(record);
  CHECK(error.field == "ended_at");
  CHECK_THAT(error.reason, Catch::StartsWith("is 1795968157000, which looks like milliseconds") &&
                               Catch::Contains("2026-11-29T16:02:37Z") &&
                               Catch::Contains("send seconds"));
  record["started_at"] = "2026-11-29T16:00:00Z";
  CHECK(FirstError(record).field == "ended_at");
  record.erase("started_at");  // no start to compare with
  CHECK(FirstError(record).field == "ended_at");
  record["started_at"] = 1795968000000;
  record["ended_at"] = 1795968157;
  error = FirstError(record);
  CHECK(error.field == "started_at");
  CHECK_THAT(error.reason, Catch::Contains("looks like milliseconds"));
  record["ended_at"] = 1795968157000;  // both: each is named
  ObservationParse both = ParseObservationRecord(record.dump(), RecordForm::kRunner);
  REQUIRE(both.errors.size() == 2);
  CHECK(both.errors[0].field == "ended_at");
  CHECK(both.errors[1].field == "started_at");
}

TEST_CASE("runner execution: gpu_compute_fraction from metadata, refused when it disagrees") {
  Json record = RunnerExecution();
  record["metrics"].erase("gpu_compute_fraction");
  record["metadata"] = {{"gpu_compute_fraction", 0.25}, {"queue", "batch"}};
  CHECK(ParsedOrFail(record).gpu_compute_fraction == 0.25);
  record["metrics"]["gpu_compute_fraction"] = 0.5;
  const FieldError error = FirstError(record);
  CHECK(error.field == "metadata.gpu_compute_fraction");
  CHECK_THAT(error.reason, Catch::Contains("metrics.gpu_compute_fraction is 0.5"));
  record["metadata"]["gpu_compute_fraction"] = 0.5;
  CHECK(ParsedOrFail(record).gpu_compute_fraction == 0.5);
  record["metrics"]["gpu_compute_fraction"] = 1.5;
  record["metadata"].erase("gpu_compute_fraction");
  CHECK(FirstError(record).field == "metrics.gpu_compute_fraction");
}

TEST_CASE("runner execution: bad values name the Runner's field path and the unit") {
  const std::tuple<const char*, const char*, Json, const char*> cases[] = {
      {"metrics", "gpu_util", 150, "at most 100 (in percent, 0-100)"},
      {"metrics", "gpu_util", "busy", "must be a number, got a string (in percent, 0-100)"},
      {"metrics", "gpu_memory_max_mib", -1, "zero or more (in MiB)"},
      {"metrics", "cpu_avg", -0.5, "zero or more (in cores)"},
      {"metrics", "cpu_p95", true, "(in cores)"},
      {"metrics", "cpu_max", Json::object(), "(in cores)"},
      {"metrics", "memory_max", -1, "(in bytes)"},
      {"resources_allocation", "cpu", -1, "(in cores)"},
      {"resources_allocation", "memory", "lots", "(in bytes)"},
      {"resources_allocation", "gpu_memory_gb", -1, "zero or more"},
      {"resources_allocation", "gpu_compute_fraction", 2, "at most 1"},
  };
  for (const auto& [object, key, value, words] : cases) {
    Json record = RunnerExecution();
    record[object][key] = value;
    const std::string path = std::string(object) + "." + key;
    INFO(path << " = " << value.dump());
    const FieldError error = FirstError(record);
    CHECK(error.field == path);
    CHECK_THAT(error.reason, Catch::Contains(words));
  }
  const std::tuple<const char*, Json, const char*> top[] = {
      {"node_pool_gpu", 1.5, "whole number of GPUs"},
      {"node_pool_gpu_num_total", -1, "(in GPUs)"},
      {"node_pool_gpu_mode", "", "is empty"},
      {"ended_at", "soon", "not an RFC 3339 timestamp"},
      {"action_container_image", 7, "must be a string"},
      {"duration_in_sec", -3, "zero or more"},
      {"hardware_profile_id", "hp:v9", "not a hardware profile id"},
      {"instance_type", " ", "only whitespace"},
  };
  for (const auto& [key, value, words] : top) {
    Json record = RunnerExecution();
    record[key] = value;
    INFO(key << " = " << value.dump());
    const FieldError error = FirstError(record);
    CHECK(error.field == key);
    CHECK_THAT(error.reason, Catch::Contains(words));
  }
}

TEST_CASE("runner execution: a NaN metric names its field, not the line") {
  std::string line = RunnerExecution().dump();
  const std::string from = "\"gpu_util\":55";
  line.replace(line.find(from), from.size(), "\"gpu_util\":NaN");
  ObservationParse parsed = ParseRunnerObservationJson(line);
  REQUIRE_FALSE(parsed.errors.empty());
  CHECK(parsed.errors.front().field == "metrics.gpu_util");
  CHECK_THAT(parsed.errors.front().reason, Catch::Contains("NaN"));
}

TEST_CASE("runner execution: required fields missing are named as the Runner calls them") {
  Json record = RunnerExecution();
  record.erase("action_container_image");
  record.erase("ended_at");
  record.erase("execution_id");
  ObservationParse parsed = ParseRunnerObservationJson(record.dump());
  std::vector<std::string> fields;
  for (const FieldError& e : parsed.errors) fields.push_back(e.field);
  CHECK(fields == std::vector<std::string>{"execution_id", "action_container_image", "ended_at"});
}

TEST_CASE("runner execution: 64-bit integers sent as strings, as protobuf prints them, are read") {
  Json record = RunnerExecution();
  record["resources_allocation"]["memory"] = "8589934592";
  record["metrics"]["memory_max"] = "4294967296";
  record["node_pool_gpu_num_total"] = "14";
  const Observation o = ParsedOrFail(record);
  CHECK(o.requested.memory_bytes == 8589934592);
  CHECK(o.memory_peak_bytes == 4294967296);
  CHECK(o.hardware.gpu_total == 14);
}

TEST_CASE("runner execution: a number in a string is read only as decimal digits") {
  for (const char* text : {"0x10", "1e3", " 16", "16 ", "+16", "1.5", "", "-"}) {
    INFO(text);
    Json record = RunnerExecution();
    record["metrics"]["memory_max"] = text;
    ObservationParse parsed = ParseRunnerObservationJson(record.dump());
    REQUIRE(parsed.errors.size() == 1);
    CHECK(parsed.errors[0].field == "metrics.memory_max");
  }
}

TEST_CASE("runner execution: unknown fields warn with the closest Runner field, strict refuses") {
  Json record = RunnerExecution();
  record["action_image_tag"] = "x";
  record["metrics"]["gpu_utl"] = 3;
  record["resources_allocation"]["cpus"] = 2;
  record["metadata"]["anything"] = "kept quiet: metadata is the Runner's free-form Struct";
  ObservationParse parsed = ParseRunnerObservationJson(record.dump());
  REQUIRE(parsed.observation.has_value());
  REQUIRE(parsed.warnings.size() == 3);
  CHECK(parsed.warnings[0].field == "action_image_tag");
  CHECK(parsed.warnings[1].field == "resources_allocation.cpus");
  CHECK_THAT(parsed.warnings[1].reason, Catch::Contains("`cpu`"));
  CHECK(parsed.warnings[2].field == "metrics.gpu_utl");
  CHECK_THAT(parsed.warnings[2].reason, Catch::Contains("`gpu_util`"));
  ObservationParse strict = ParseRunnerObservationJson(record.dump(), true);
  CHECK_FALSE(strict.observation.has_value());
  REQUIRE(strict.errors.size() == 3);
  CHECK_THAT(strict.errors[0].reason, Catch::Contains("strict mode"));
}

TEST_CASE("runner execution: metrics that is not an object is refused by name") {
  Json record = RunnerExecution();
  record["metrics"] = "gpu_util=55";
  CHECK(FirstError(record).field == "metrics");
}

TEST_CASE("runner execution: auto form tells the Runner's records from hwrec's") {
  const Observation runner = ParsedOrFail(RunnerExecution(), RecordForm::kAuto);
  CHECK(runner.gpu_utilization == 0.55);
  const Json own{{"execution_id", "ex-2"},
                 {"action_image", "img"},
                 {"finished_at", 1795968157},
                 {"gpu_utilization", 0.5}};
  CHECK(ParsedOrFail(own, RecordForm::kAuto).gpu_utilization == 0.5);
  // Each fixed form reads only its own fields.
  CHECK(FirstError(RunnerExecution(), RecordForm::kHwrec).field == "action_image");
  CHECK(FirstError(own, RecordForm::kRunner).field == "action_container_image");
}

TEST_CASE("runner execution: a record mixing both forms is refused, listing each form's fields") {
  Json record = RunnerExecution();
  record["finished_at"] = 1795968157;
  record["hardware"] = {{"gpu_count", 1}};
  ObservationParse parsed = ParseObservationRecord(record.dump(), RecordForm::kAuto);
  REQUIRE(parsed.errors.size() == 1);
  CHECK(parsed.errors[0].field == "json");
  CHECK_THAT(parsed.errors[0].reason,
             Catch::Contains("action_container_image, ended_at, node_pool_gpu") &&
                 Catch::Contains("finished_at, hardware") && Catch::Contains("--from"));
  CHECK(parsed.execution_id == "ex-1");
}

TEST_CASE("runner ingest: the Ingestor honours form, keeping good records beside bad ones",
          "[engine]") {
  TempDir dir;
  auto store = StoreWithPool(dir);
  Json bad = RunnerExecution();
  bad["execution_id"] = "ex-bad";
  bad["metrics"]["gpu_util"] = -4;
  Json second = RunnerExecution();
  second["execution_id"] = "ex-2";
  const std::string lines = RunnerExecution().dump() + "\n" + bad.dump() + "\n" + second.dump();
  for (RecordForm form : {RecordForm::kRunner, RecordForm::kAuto}) {
    TempDir fresh;
    auto s = StoreWithPool(fresh);
    IngestOptions options;
    options.form = form;
    std::istringstream in(lines);
    auto summary = Ingestor::Open(*s, options).value()->IngestJsonLines(in);
    REQUIRE(summary.ok());
    CHECK(summary->accepted == 2);
    REQUIRE(summary->rejected == 1);
    CHECK(summary->rejects[0].line == 2);
    CHECK(summary->rejects[0].execution_id == "ex-bad");
    CHECK(summary->rejects[0].field == "metrics.gpu_util");
  }
  IngestOptions own;
  own.form = RecordForm::kHwrec;
  std::istringstream in(lines);
  auto summary = Ingestor::Open(*store, own).value()->IngestJsonLines(in);
  REQUIRE(summary.ok());
  CHECK(summary->accepted == 0);
  CHECK(summary->rejected == 3);
}

TEST_CASE(
    "runner ingest: a record refused for one field also names each figure above its pool, by "
    "the Runner's names",
    "[engine]") {
  TempDir dir;
  auto store = StoreWithPool(dir);
  Json record = RunnerExecution();
  record["metrics"]["gpu_util"] = -4;
  record["metrics"]["gpu_memory_max_mib"] = 81920;  // 80 GB on a 3g.40gb slice
  record["metrics"]["cpu_avg"] = 500;               // cores, on a 64-core node
  std::istringstream in(record.dump() + "\n");
  auto summary = Ingestor::Open(*store, IngestOptions{}).value()->IngestJsonLines(in);
  REQUIRE(summary.ok());
  REQUIRE(summary->rejected == 1);
  std::vector<std::string> fields;
  for (const auto& e : summary->rejects[0].errors) fields.push_back(e.field);
  CHECK(fields == std::vector<std::string>{"metrics.gpu_util", "metrics.gpu_memory_max_mib",
                                           "metrics.cpu_avg"});

  // A hardware field the translation refuses: the hardware is not judged, as
  // in hwrec's form.
  Json bad_hardware = RunnerExecution();
  bad_hardware["execution_id"] = "ex-bad-hardware";
  bad_hardware["node_pool_gpu"] = -1;
  bad_hardware["metrics"]["cpu_avg"] = 500;
  std::istringstream again(bad_hardware.dump() + "\n");
  summary = Ingestor::Open(*store, IngestOptions{}).value()->IngestJsonLines(again);
  REQUIRE(summary.ok());
  REQUIRE(summary->rejected == 1);
  fields.clear();
  for (const auto& e : summary->rejects[0].errors) fields.push_back(e.field);
  CHECK(fields == std::vector<std::string>{"node_pool_gpu"});
}

TEST_CASE("runner ingest: a record that disagrees with its pool is refused by the Runner's names",
          "[engine]") {
  TempDir dir;
  auto store = StoreWithPool(dir);
  Json record = RunnerExecution();
  record["node_pool_gpu"] = 2;
  record["node_pool_gpu_num_total"] = 14;
  std::istringstream in(record.dump() + "\n");
  auto summary = Ingestor::Open(*store, IngestOptions{}).value()->IngestJsonLines(in);
  REQUIRE(summary.ok());
  REQUIRE(summary->rejected == 1);
  CHECK(summary->rejects[0].field == "node_pool_gpu");
  CHECK_THAT(summary->rejects[0].reason, Catch::StartsWith("node_pool_gpu is 2 but node pool"));
}

TEST_CASE("runner cli: --from runner on pools import and ingest, --from in their help") {
  TempDir dir;
  const std::string store = ShellQuote(dir.File("store.db"));
  REQUIRE(RunCli("init " + store).exit_code == 0);
  const std::string pools = dir.File("pools.jsonl");
  test::WriteFile(pools, RunnerA100Pool().dump() + "\n");
  auto imported = RunCli("pools import " + store + " " + ShellQuote(pools) + " --from runner");
  INFO(imported.err);
  CHECK(imported.exit_code == 0);
  CHECK_THAT(imported.out, Catch::Contains("registered 1"));
  const std::string runs = dir.File("runs.jsonl");
  test::WriteFile(runs, RunnerExecution().dump() + "\n");
  auto ingested =
      RunCli("ingest " + store + " " + ShellQuote(runs) + " --from runner --format json");
  INFO(ingested.err);
  REQUIRE(ingested.exit_code == 0);
  CHECK(Json::parse(ingested.out)["accepted"] == 1);
  auto as_hwrec = RunCli("ingest " + store + " " + ShellQuote(runs) + " --from hwrec");
  CHECK(as_hwrec.exit_code == 3);
  for (const char* command : {"ingest", "pools import"}) {
    INFO(command);
    CHECK_THAT(RunCli(std::string(command) + " --help").out,
               Catch::Contains("--from") && Catch::Contains("docs/RUNNER.md"));
    auto bad = RunCli(std::string(command) + " " + store + " " + ShellQuote(runs) + " --from rnr");
    CHECK(bad.exit_code == 2);
    CHECK_THAT(bad.err, Catch::Contains("--from must be auto, hwrec or runner, not 'rnr'"));
  }
}

// Set HWREC_UPDATE_DOCS=1 to write the actual outputs into RUNNER.md instead.
TEST_CASE("runner: every RUNNER.md example matches what the CLI prints", "[docs]") {
  test::CheckCliDocExamples("docs/RUNNER.md", 4);
}

TEST_CASE("simulated capacity: failures win, then available patterns, else a capacity miss") {
  auto capacity = ParseSimulatedCapacity(
      R"({"available": ["slurm/*", "gcp/a2-ultragpu-8g/spot"],
          "failures": {"gcp/*/spot": "quota_exceeded"}, "day": "2026-07-08"})",
      "cap.json");
  INFO(capacity.status().ToString());
  REQUIRE(capacity.ok());
  REQUIRE(capacity->now.has_value());
  CHECK(hwrec::internal::UtcDay(*capacity->now) == "2026-07-08");
  Rung rung;
  rung.id = "gcp/a2-ultragpu-8g/spot";
  LaunchResult r = SimulateLaunch(*capacity, rung);
  CHECK(r.outcome == LaunchOutcome::kQuotaExceeded);
  CHECK(r.detail == "simulated (gcp/*/spot)");
  rung.id = "slurm/a100-80gb";
  r = SimulateLaunch(*capacity, rung);
  CHECK(r.outcome == LaunchOutcome::kLaunched);
  CHECK(r.detail == "simulated");
  rung.id = "runpod/h100-80gb";
  r = SimulateLaunch(*capacity, rung);
  CHECK(r.outcome == LaunchOutcome::kCapacityMiss);
  CHECK(r.detail == "simulated: no capacity");
}

TEST_CASE("simulated capacity: a bad file is InvalidArgument naming the file and the fix") {
  const std::pair<const char*, const char*> cases[] = {
      {"[1]", "cap.json: not a JSON object: check its syntax"},
      {R"({"available": [1]})", "cap.json: available must list rung ids or patterns (strings)"},
      {R"({"failures": {"gcp/*": "launched"}})",
       "cap.json: failures 'gcp/*' must be capacity_miss, quota_exceeded, config_error, "
       "permission_error or workload_failure (a launch is listed under available; not_tried is "
       "for a recorded walk)"},
      {R"({"failures": {"gcp/*": "not_tried"}})",
       "cap.json: failures 'gcp/*' must be capacity_miss, quota_exceeded, config_error, "
       "permission_error or workload_failure (a launch is listed under available; not_tried is "
       "for a recorded walk)"},
      {R"({"day": "July 8"})",
       "cap.json: day 'July 8' is not a UTC calendar date: use YYYY-MM-DD, from 1970 on"},
      {R"({"day": "2026-02-30"})",
       "cap.json: day '2026-02-30' is not a UTC calendar date: use YYYY-MM-DD, from 1970 on"},
      {R"({"capacity": []})",
       "cap.json: 'capacity' is not understood: use available (array), failures (object) or day "
       "(YYYY-MM-DD)"},
  };
  for (const auto& [json, message] : cases) {
    auto capacity = ParseSimulatedCapacity(json, "cap.json");
    REQUIRE_FALSE(capacity.ok());
    CHECK(capacity.status().code() == StatusCode::kInvalidArgument);
    CHECK(capacity.status().message() == message);
  }
}

}  // namespace hwrec
