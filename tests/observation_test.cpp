#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "hwrec/observation.h"

using hwrec::ExecutionStatus;
using hwrec::FieldError;
using hwrec::Observation;
using hwrec::ParseObservationJson;

namespace {

constexpr double kFinishedAt = 1795968157;  // 2026-11-29T16:02:37Z

Observation ParseOrFail(const std::string& json) {
  auto parsed = ParseObservationJson(json);
  if (const auto* error = std::get_if<FieldError>(&parsed)) {
    FAIL(error->field << ": " << error->reason);
  }
  return std::get<Observation>(std::move(parsed));
}

FieldError ParseError(const std::string& json) {
  auto parsed = ParseObservationJson(json);
  INFO(json);
  REQUIRE(std::holds_alternative<FieldError>(parsed));
  return std::get<FieldError>(parsed);
}

// A minimal valid record with `extra` fields appended.
std::string Record(const std::string& extra) {
  return R"({"execution_id":"e1","action_image":"img:1","finished_at":1795968157)" +
         (extra.empty() ? std::string() : "," + extra) + "}";
}

Observation ValidObservation() {
  Observation o;
  o.execution_id = "e1";
  o.action_image = "img:1";
  o.finished_at = kFinishedAt;
  return o;
}

}  // namespace

TEST_CASE("observation: every field of a full record is parsed", "[observation]") {
  const Observation o = ParseOrFail(
      R"({"execution_id":"exec-1","action_image":"registry.example/train:1.4",)"
      R"("finished_at":"2026-11-29T16:02:37Z","site_id":"site-a","node_pool_id":"pool-1",)"
      R"("status":"gpu_oom","duration_s":812.5,"hardware":{"instance_type":"a2-ultragpu-1g",)"
      R"("architecture":"x86_64","cpu_millicores":12000,"memory_bytes":170000000000,)"
      R"("gpu_count":1,"gpu_mode":"mig-3g.40gb","gpu_total":1,"gpu_brand":"NVIDIA",)"
      R"("gpu_model":"A100 80GB"},"hardware_profile_id":"hp:v2:0123456789abcdef",)"
      R"("gpu_compute_fraction":0.4286,"gpu_utilization":0.82,"gpu_memory_peak_gb":37.5,)"
      R"("cpu_millicores_avg":3100,"cpu_millicores_p95":5200.5,"cpu_millicores_max":7900,)"
      R"("memory_peak_bytes":41000000000,"requested":{"cpu_millicores":8000,)"
      R"("memory_bytes":64000000000,"gpu_memory_gb":40,"gpu_compute_fraction":0.5}})");
  CHECK(o.execution_id == "exec-1");
  CHECK(o.action_image == "registry.example/train:1.4");
  CHECK(o.finished_at == kFinishedAt);
  CHECK(o.site_id == "site-a");
  CHECK(o.node_pool_id == "pool-1");
  CHECK(o.status == ExecutionStatus::kGpuOom);
  CHECK(o.duration_s == 812.5);
  CHECK(o.hardware.instance_type == "a2-ultragpu-1g");
  CHECK(o.hardware.architecture == "x86_64");
  CHECK(o.hardware.cpu_millicores == 12000);
  CHECK(o.hardware.memory_bytes == 170000000000);
  CHECK(o.hardware.gpu_count == 1);
  CHECK(o.hardware.gpu_mode == "mig-3g.40gb");
  CHECK(o.hardware.gpu_total == 1);
  CHECK(o.hardware.gpu_brand == "NVIDIA");
  CHECK(o.hardware.gpu_model == "A100 80GB");
  CHECK(o.hardware_profile_id == "hp:v2:0123456789abcdef");
  CHECK(o.gpu_compute_fraction == 0.4286);
  CHECK(o.gpu_utilization == 0.82);
  CHECK(o.gpu_memory_peak_gb == 37.5);
  CHECK(o.cpu_millicores_avg == 3100);
  CHECK(o.cpu_millicores_p95 == 5200.5);
  CHECK(o.cpu_millicores_max == 7900);
  CHECK(o.memory_peak_bytes == 41000000000);
  CHECK(o.requested.cpu_millicores == 8000);
  CHECK(o.requested.memory_bytes == 64000000000);
  CHECK(o.requested.gpu_memory_gb == 40);
  CHECK(o.requested.gpu_compute_fraction == 0.5);
}

TEST_CASE("observation: absent fields stay absent and status defaults to success",
          "[observation]") {
  const Observation o = ParseOrFail(Record(R"("site_id":null)"));
  CHECK(o.status == ExecutionStatus::kSuccess);
  CHECK_FALSE(o.site_id.has_value());
  CHECK_FALSE(o.node_pool_id.has_value());
  CHECK(o.hardware == hwrec::HardwareProfile{});
  CHECK(o.requested == hwrec::RequestedResources{});
  CHECK_FALSE(o.gpu_compute_fraction.has_value());
}

TEST_CASE("observation: every status name parses and prints back", "[observation]") {
  for (const char* name : {"success", "oom", "gpu_oom", "failed", "cancelled"}) {
    const auto status = hwrec::ParseExecutionStatus(name);
    REQUIRE(status.has_value());
    CHECK(hwrec::ToString(*status) == name);
    CHECK(ParseOrFail(Record(std::string(R"("status":")") + name + "\"")).status == *status);
  }
  CHECK_FALSE(hwrec::ParseExecutionStatus("OOM").has_value());
  CHECK(hwrec::ToString(hwrec::FractionSource::kNone) == "none");
  CHECK(hwrec::ToString(hwrec::FractionSource::kStamped) == "stamped");
  CHECK(hwrec::ToString(hwrec::FractionSource::kCatalog) == "catalog");
  CHECK(hwrec::ToString(hwrec::FractionSource::kAssumed) == "assumed");
}

TEST_CASE(
    "observation: finished_at takes RFC 3339 with Z, a fraction or an offset, or epoch "
    "seconds",
    "[observation]") {
  CHECK(hwrec::ParseRfc3339("2026-11-29T16:02:37Z") == kFinishedAt);
  CHECK(hwrec::ParseRfc3339("2026-11-29t16:02:37z") == kFinishedAt);
  CHECK(hwrec::ParseRfc3339("2026-11-29T16:02:37.5Z") == kFinishedAt + 0.5);
  CHECK(hwrec::ParseRfc3339("2026-11-29T17:02:37.5+01:00") == kFinishedAt + 0.5);
  CHECK(hwrec::ParseRfc3339("2026-11-29T10:32:37-05:30") == kFinishedAt);
  CHECK(hwrec::ParseRfc3339("2026-11-29T16:02:37.123456789Z") ==
        Approx(kFinishedAt + 0.123456).margin(1e-6));
  CHECK(hwrec::ParseRfc3339("1970-01-01T00:00:00Z") == 0);

  CHECK(ParseOrFail(Record("")).finished_at == kFinishedAt);
  const auto with_offset = ParseOrFail(
      R"({"execution_id":"e","action_image":"i","finished_at":"2026-11-29T17:02:37+01:00"})");
  CHECK(with_offset.finished_at == kFinishedAt);
  const auto with_fraction =
      ParseOrFail(R"({"execution_id":"e","action_image":"i","finished_at":1795968157.25})");
  CHECK(with_fraction.finished_at == kFinishedAt + 0.25);
}

TEST_CASE("observation: text that is not an RFC 3339 time is refused", "[observation]") {
  for (const char* bad :
       {"", "2026-11-29", "2026-11-29T16:02:37", "2026-02-30T00:00:00Z", "2026-13-01T00:00:00Z",
        "2026-11-29T25:00:00Z", "2026-11-29T16:02:37+0100", "2026-11-29T16:02:37.Z",
        "26-11-29T16:02:37Z", "2026-11-29T16:02:37Z trailing", "yesterday"}) {
    INFO(bad);
    CHECK_FALSE(hwrec::ParseRfc3339(bad).has_value());
  }
}

TEST_CASE("observation: times print as RFC 3339 UTC with a trailing Z", "[observation]") {
  CHECK(hwrec::FormatRfc3339(kFinishedAt) == "2026-11-29T16:02:37Z");
  CHECK(hwrec::FormatRfc3339(kFinishedAt + 0.5) == "2026-11-29T16:02:37.5Z");
  CHECK(hwrec::FormatRfc3339(0) == "1970-01-01T00:00:00Z");
  CHECK(hwrec::ParseRfc3339(hwrec::FormatRfc3339(kFinishedAt + 0.125)) == kFinishedAt + 0.125);
}

TEST_CASE("observation: each kind of bad value is refused naming its field", "[observation]") {
  struct Case {
    std::string json;
    std::string field;
    std::string reason;  // a part of the reason
  };
  const std::vector<Case> cases = {
      {"{not json", "json", "malformed JSON"},
      {"[1, 2]", "json", "expected a JSON object"},
      {R"({"action_image":"i","finished_at":1})", "execution_id", "missing"},
      {R"({"execution_id":"e","finished_at":1})", "action_image", "missing"},
      {R"({"execution_id":"e","action_image":"i"})", "finished_at", "missing"},
      {R"({"execution_id":7,"action_image":"i","finished_at":1})", "execution_id",
       "must be a string"},
      {R"({"execution_id":"","action_image":"i","finished_at":1})", "execution_id", "empty"},
      {Record(R"("gpu_utilisation":0.5)"), "gpu_utilisation", "not a known field"},
      {Record(R"("hardware":{"gpu_modle":"A30"})"), "hardware.gpu_modle", "not a known field"},
      {Record(R"("requested":{"cpu":1})"), "requested.cpu", "not a known field"},
      {Record(R"("hardware":"A30")"), "hardware", "must be an object"},
      {Record(R"("requested":[1])"), "requested", "must be an object"},
      {Record(R"("hardware":{"gpu_count":-1})"), "hardware.gpu_count", "zero or more"},
      {Record(R"("hardware":{"gpu_count":1.5})"), "hardware.gpu_count", "whole number"},
      {Record(R"("hardware":{"memory_bytes":"8Gi"})"), "hardware.memory_bytes", "whole number"},
      {Record(R"("hardware":{"gpu_model":""})"), "hardware.gpu_model", "empty"},
      {Record(R"("requested":{"memory_bytes":-1})"), "requested.memory_bytes", "zero or more"},
      {Record(R"("requested":{"gpu_compute_fraction":0})"), "requested.gpu_compute_fraction",
       "greater than 0 and at most 1"},
      {Record(R"("gpu_compute_fraction":1.5)"), "gpu_compute_fraction",
       "greater than 0 and at most 1"},
      {Record(R"("gpu_compute_fraction":0)"), "gpu_compute_fraction", "greater than 0"},
      {Record(R"("gpu_utilization":1.01)"), "gpu_utilization", "between 0 and 1"},
      {Record(R"("gpu_utilization":NaN)"), "gpu_utilization", "NaN"},
      {Record(R"("gpu_memory_peak_gb":Infinity)"), "gpu_memory_peak_gb", "infinite"},
      {Record(R"("duration_s":-3)"), "duration_s", "zero or more"},
      {Record(R"("cpu_millicores_p95":"high")"), "cpu_millicores_p95", "must be a number"},
      {Record(R"("memory_peak_bytes":-5)"), "memory_peak_bytes", "zero or more"},
      {Record(R"("status":"done")"), "status", "use success, oom, gpu_oom, failed or cancelled"},
      {Record(R"("status":1)"), "status", "must be a string"},
      {Record(R"("hardware_profile_id":"hp:v3:0123456789abcdef")"), "hardware_profile_id",
       "hp:v1:<16 hex digits>"},
      {R"({"execution_id":"e","action_image":"i","finished_at":"2026-11-31T00:00:00Z"})",
       "finished_at", "not an RFC 3339 timestamp"},
      {R"({"execution_id":"e","action_image":"i","finished_at":true})", "finished_at", "RFC 3339"},
      {R"({"execution_id":"e","action_image":"i","finished_at":-1})", "finished_at",
       "zero or more"},
  };
  for (const Case& c : cases) {
    const FieldError error = ParseError(c.json);
    INFO(c.json << " -> " << error.field << ": " << error.reason);
    CHECK(error.field == c.field);
    CHECK_THAT(error.reason, Catch::Contains(c.reason));
  }
}

TEST_CASE("observation: a record built in C++ is checked like JSON", "[observation]") {
  CHECK_FALSE(hwrec::ValidateObservation(ValidObservation()).has_value());

  struct Case {
    void (*change)(Observation&);
    const char* field;
  };
  const std::vector<Case> cases = {
      {[](Observation& o) { o.execution_id.clear(); }, "execution_id"},
      {[](Observation& o) { o.action_image.clear(); }, "action_image"},
      {[](Observation& o) { o.finished_at = std::nan(""); }, "finished_at"},
      {[](Observation& o) { o.finished_at = -1; }, "finished_at"},
      {[](Observation& o) { o.site_id = ""; }, "site_id"},
      {[](Observation& o) { o.status = static_cast<ExecutionStatus>(42); }, "status"},
      {[](Observation& o) { o.duration_s = HUGE_VAL; }, "duration_s"},
      {[](Observation& o) { o.hardware.gpu_total = -1; }, "hardware.gpu_total"},
      {[](Observation& o) { o.hardware.instance_type = ""; }, "hardware.instance_type"},
      {[](Observation& o) { o.hardware_profile_id = "hp:v2:XYZ"; }, "hardware_profile_id"},
      {[](Observation& o) { o.gpu_compute_fraction = 1.2; }, "gpu_compute_fraction"},
      {[](Observation& o) { o.gpu_utilization = std::nan(""); }, "gpu_utilization"},
      {[](Observation& o) { o.cpu_millicores_max = -1; }, "cpu_millicores_max"},
      {[](Observation& o) { o.requested.gpu_memory_gb = -2; }, "requested.gpu_memory_gb"},
      {[](Observation& o) { o.requested.gpu_compute_fraction = 0; },
       "requested.gpu_compute_fraction"},
  };
  for (const Case& c : cases) {
    Observation o = ValidObservation();
    c.change(o);
    const auto error = hwrec::ValidateObservation(o);
    INFO(c.field);
    REQUIRE(error.has_value());
    CHECK(error->field == c.field);
  }
}

TEST_CASE("observation: a parsed record equals the same record built in C++", "[observation]") {
  Observation expected = ValidObservation();
  expected.hardware.gpu_model = "A30";
  expected.gpu_compute_fraction = 0.5;
  CHECK(ParseOrFail(Record(R"("hardware":{"gpu_model":"A30"},"gpu_compute_fraction":0.5)")) ==
        expected);
  expected.gpu_compute_fraction = 0.25;
  CHECK_FALSE(ParseOrFail(Record(R"("hardware":{"gpu_model":"A30"},"gpu_compute_fraction":0.5)")) ==
              expected);
}
