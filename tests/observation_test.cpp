#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "base/time.h"
#include "hwrec/config.h"
#include "hwrec/observation.h"
#include "hwrec/time_text.h"

using hwrec::ExecutionStatus;
using hwrec::FieldError;
using hwrec::Observation;
using hwrec::ParseObservationJson;

namespace {

constexpr double kFinishedAt = 1795968157;  // 2026-11-29T16:02:37Z

Observation ParseOrFail(const std::string& json) {
  auto parsed = ParseObservationJson(json);
  if (!parsed.errors.empty()) {
    FAIL(parsed.errors[0].field << ": " << parsed.errors[0].reason);
  }
  REQUIRE(parsed.observation.has_value());
  return std::move(*parsed.observation);
}

// The first error of a record that must be rejected.
FieldError ParseError(const std::string& json, bool strict = false) {
  auto parsed = ParseObservationJson(json, strict);
  INFO(json);
  REQUIRE_FALSE(parsed.errors.empty());
  CHECK_FALSE(parsed.observation.has_value());
  return parsed.errors.front();
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

TEST_CASE("time text: the public API reads and writes times and lengths as the records do",
          "[observation]") {
  CHECK(hwrec::ParseTime("2026-11-29T17:02:37.5+01:00") == kFinishedAt + 0.5);
  CHECK_FALSE(hwrec::ParseTime("29/11/2026").has_value());
  CHECK(hwrec::FormatTime(kFinishedAt + 0.5) == "2026-11-29T16:02:37.5Z");
  CHECK(hwrec::ParseTime(hwrec::FormatTime(kFinishedAt)) == kFinishedAt);
  CHECK(*hwrec::ParseDurationHours("1h30m") == 1.5);
  const auto zero = hwrec::ParseDurationHours("0h");
  REQUIRE_FALSE(zero.ok());
  CHECK(zero.status().message().find("e.g. 6h") != std::string::npos);
  CHECK(hwrec::FormatHours(6) == "6");
  CHECK(hwrec::FormatHours(1.5) == "1.5");
  CHECK(hwrec::FormatHours(1.0 / 12) == "0.0833");
  CHECK(hwrec::FormatHours(-0.00001) == "0");
  CHECK(hwrec::CheckConfigValue("memory.margin", "0.2").ok());
  const hwrec::Status bad = hwrec::CheckConfigValue("memory.margin", "lots");
  CHECK(bad.code() == hwrec::StatusCode::kInvalidArgument);
  CHECK(bad.message().find("memory.margin") != std::string::npos);
  CHECK(hwrec::CheckConfigValue("memory.margn", "0.2").code() ==
        hwrec::StatusCode::kInvalidArgument);
}

TEST_CASE(
    "observation: finished_at takes RFC 3339 with Z, a fraction or an offset, or epoch "
    "seconds",
    "[observation]") {
  CHECK(hwrec::internal::ParseRfc3339("2026-11-29T16:02:37Z") == kFinishedAt);
  CHECK(hwrec::internal::ParseRfc3339("2026-11-29t16:02:37z") == kFinishedAt);
  CHECK(hwrec::internal::ParseRfc3339("2026-11-29T16:02:37.5Z") == kFinishedAt + 0.5);
  CHECK(hwrec::internal::ParseRfc3339("2026-11-29T17:02:37.5+01:00") == kFinishedAt + 0.5);
  CHECK(hwrec::internal::ParseRfc3339("2026-11-29T10:32:37-05:30") == kFinishedAt);
  CHECK(hwrec::internal::ParseRfc3339("2026-11-29T16:02:37.123456789Z") ==
        Approx(kFinishedAt + 0.123456).margin(1e-6));
  CHECK(hwrec::internal::ParseRfc3339("1970-01-01T00:00:00Z") == 0);

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
    CHECK_FALSE(hwrec::internal::ParseRfc3339(bad).has_value());
  }
}

TEST_CASE("observation: times print as RFC 3339 UTC with a trailing Z", "[observation]") {
  CHECK(hwrec::internal::FormatRfc3339(kFinishedAt) == "2026-11-29T16:02:37Z");
  CHECK(hwrec::internal::FormatRfc3339(kFinishedAt + 0.5) == "2026-11-29T16:02:37.5Z");
  CHECK(hwrec::internal::FormatRfc3339(0) == "1970-01-01T00:00:00Z");
  CHECK(hwrec::internal::ParseRfc3339(hwrec::internal::FormatRfc3339(kFinishedAt + 0.125)) ==
        kFinishedAt + 0.125);
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

TEST_CASE("observation: ObservationToJson writes what ParseObservationJson reads back",
          "[observation]") {
  const std::string full =
      R"({"execution_id":"exec-1","action_image":"registry.example/train:1.4",)"
      R"("finished_at":1795968157.0,"site_id":"site-a","node_pool_id":"pool-1",)"
      R"("status":"gpu_oom","duration_s":812.5,"hardware":{"instance_type":"a2-ultragpu-1g",)"
      R"("gpu_count":1,"gpu_mode":"mig-3g.40gb","gpu_total":1,"gpu_brand":"NVIDIA",)"
      R"("gpu_model":"A100 80GB"},"gpu_compute_fraction":0.4286,"gpu_memory_peak_gb":37.5,)"
      R"("cpu_millicores_p95":5200.5,"requested":{"cpu_millicores":8000},"gpu_count_held":1})";
  const Observation o = ParseOrFail(full);
  // One line, absent fields left out, the fields in the order of the format;
  // finished_at is epoch seconds, a number with a fraction.
  CHECK(hwrec::ObservationToJson(o) == full);
  CHECK(ParseOrFail(hwrec::ObservationToJson(o)) == o);

  const Observation minimal = ValidObservation();
  CHECK(hwrec::ObservationToJson(minimal) ==
        R"({"execution_id":"e1","action_image":"img:1","finished_at":1795968157.0,)"
        R"("status":"success"})");
  CHECK(ParseOrFail(hwrec::ObservationToJson(minimal)) == minimal);
}

TEST_CASE("observation: a number out of double range rejects its record, naming the field",
          "[observation][parse]") {
  const std::string digits400(400, '9');
  struct Case {
    std::string json;
    std::string field;
  };
  const std::vector<Case> cases = {
      {Record(R"("hardware":{"cpu_millicores":1e400})"), "hardware.cpu_millicores"},
      {Record(R"("gpu_memory_peak_gb":-1e400)"), "gpu_memory_peak_gb"},
      {Record(R"("memory_peak_bytes":)" + digits400), "memory_peak_bytes"},
      {Record(R"("requested":{"memory_bytes":1e400})"), "requested.memory_bytes"},
      {R"({"execution_id":"e1","action_image":"i","finished_at":1e400})", "finished_at"},
      // With a bare NaN elsewhere in the line, the out-of-range field is still named.
      {Record(R"("gpu_utilization":NaN,"duration_s":1e999)"), "duration_s"},
  };
  for (const Case& c : cases) {
    const FieldError error = ParseError(c.json);
    INFO(c.json.substr(0, 120) << " -> " << error.field << ": " << error.reason);
    CHECK(error.field == c.field);
    CHECK_THAT(error.reason, Catch::Contains("beyond the range of a number") &&
                                 Catch::Contains("send a finite number"));
  }
  CHECK(ParseError(Record(R"("gpu_utilization":NaN)")).field == "gpu_utilization");
}

TEST_CASE("observation: invalid UTF-8 or a raw control character in a string names its field",
          "[observation][parse]") {
  const FieldError utf8 = ParseError(Record("\"site_id\":\"caf\xC3\x28\""));
  CHECK(utf8.field == "site_id");
  CHECK_THAT(utf8.reason, Catch::Contains("UTF-8"));
  const FieldError raw_tab = ParseError(Record("\"hardware\":{\"gpu_model\":\"A\t30\"}"));
  CHECK(raw_tab.field == "hardware.gpu_model");
  CHECK_THAT(raw_tab.reason, Catch::Contains("control character U+0009"));
  const FieldError in_key = ParseError(Record("\"hardware\":{\"gpu\xFF\":1}"));
  CHECK(in_key.field == "hardware");
  CHECK_THAT(in_key.reason, Catch::Contains("key") && Catch::Contains("UTF-8"));
  // A plain syntax error still names the byte.
  const FieldError syntax = ParseError(Record(R"("duration_s":12,,)"));
  CHECK(syntax.field == "json");
  CHECK_THAT(syntax.reason, Catch::Contains("malformed JSON at byte"));
}

TEST_CASE("observation: a key repeated at any depth rejects the record, naming the key",
          "[observation][parse]") {
  const FieldError top = ParseError(Record(R"("execution_id":"e2")"));
  CHECK(top.field == "execution_id");
  CHECK_THAT(top.reason, Catch::Contains("more than once"));
  CHECK(ParseError(Record(R"("hardware":{"gpu_count":1,"gpu_model":"A30","gpu_count":2})")).field ==
        "hardware.gpu_count");
  // The same key in two different objects is not a repeat.
  ParseOrFail(Record(R"("hardware":{"memory_bytes":1},"requested":{"memory_bytes":1})"));
}

TEST_CASE(
    "observation: ids and text that are only whitespace or hold control characters are "
    "refused",
    "[observation][parse]") {
  struct Case {
    std::string json;
    std::string field;
    std::string reason;
  };
  const std::vector<Case> cases = {
      {R"({"execution_id":"   ","action_image":"i","finished_at":1})", "execution_id",
       "only whitespace"},
      {R"({"execution_id":"e","action_image":"\t","finished_at":1})", "action_image",
       "only whitespace"},
      {R"({"execution_id":"e\u0000x","action_image":"i","finished_at":1})", "execution_id",
       "control character U+0000"},
      {R"({"execution_id":"e","action_image":"img\u001f","finished_at":1})", "action_image",
       "control character U+001F"},
      {Record(R"("site_id":"a\u007fb")"), "site_id", "control character U+007F"},
      {Record(R"("node_pool_id":" ")"), "node_pool_id", "only whitespace"},
      {Record(R"("hardware":{"gpu_model":"A30\u0001"})"), "hardware.gpu_model",
       "control character U+0001"},
  };
  for (const Case& c : cases) {
    const FieldError error = ParseError(c.json);
    INFO(c.json << " -> " << error.field << ": " << error.reason);
    CHECK(error.field == c.field);
    CHECK_THAT(error.reason, Catch::Contains(c.reason));
  }
  // A record built in C++ gets the same checks, invalid UTF-8 included.
  Observation o = ValidObservation();
  o.execution_id = " ";
  o.action_image = std::string("img\0x", 5);
  o.node_pool_id = "pool\xC3\x28";
  const std::vector<FieldError> problems = hwrec::ObservationProblems(o);
  REQUIRE(problems.size() == 3);
  CHECK(problems[0].field == "execution_id");
  CHECK(problems[1].field == "action_image");
  CHECK(problems[2].field == "node_pool_id");
  CHECK_THAT(problems[2].reason, Catch::Contains("UTF-8"));
}

TEST_CASE("observation: an RFC 3339 offset beyond 23:59 is refused", "[observation][parse]") {
  CHECK(hwrec::internal::ParseRfc3339("2026-11-29T16:02:37+23:59").has_value());
  CHECK(hwrec::internal::ParseRfc3339("2026-11-29T16:02:37-00:00") == kFinishedAt);
  for (const char* bad : {"2026-11-29T16:02:37+25:00", "2026-11-29T16:02:37+24:00",
                          "2026-11-29T16:02:37-23:60", "2026-11-29T16:02:37+99:99"}) {
    INFO(bad);
    CHECK_FALSE(hwrec::internal::ParseRfc3339(bad).has_value());
  }
  const FieldError error = ParseError(
      R"({"execution_id":"e","action_image":"i","finished_at":"2026-11-29T16:02:37+25:00"})");
  CHECK(error.field == "finished_at");
  CHECK_THAT(error.reason, Catch::Contains("23:59"));
}

TEST_CASE("observation: hardware with gpu_count above gpu_total is refused",
          "[observation][parse]") {
  const FieldError error = ParseError(Record(R"("hardware":{"gpu_count":4,"gpu_total":2})"));
  CHECK(error.field == "hardware.gpu_count");
  CHECK_THAT(error.reason, Catch::Contains("more than gpu_total 2"));
  ParseOrFail(Record(R"("hardware":{"gpu_count":2,"gpu_total":8})"));
  Observation o = ValidObservation();
  o.hardware.gpu_count = 3;
  o.hardware.gpu_total = 1;
  REQUIRE(hwrec::ValidateObservation(o).has_value());
  CHECK(hwrec::ValidateObservation(o)->field == "hardware.gpu_count");
}

TEST_CASE(
    "observation: an unknown field is a warning naming the closest known field; strict "
    "mode rejects it",
    "[observation][parse]") {
  const std::string json = Record(
      R"("memory_peak_gib":12,"hardware":{"gpu_modell":"A30"},"requested":{"cpu":1},"zzz":1)");
  const hwrec::ObservationParse parsed = ParseObservationJson(json);
  CHECK(parsed.errors.empty());
  REQUIRE(parsed.observation.has_value());
  CHECK(parsed.observation->execution_id == "e1");
  std::vector<std::pair<std::string, std::string>> warnings;
  for (const FieldError& w : parsed.warnings) warnings.emplace_back(w.field, w.reason);
  CHECK(warnings ==
        std::vector<std::pair<std::string, std::string>>{
            {"memory_peak_gib", "is not a known field: did you mean `memory_peak_bytes`?"},
            {"zzz", "is not a known field: check its spelling"},
            {"hardware.gpu_modell", "is not a known field: did you mean `gpu_model`?"},
            {"requested.cpu", "is not a known field: check its spelling"}});

  const hwrec::ObservationParse strict = ParseObservationJson(json, true);
  CHECK_FALSE(strict.observation.has_value());
  CHECK(strict.warnings.empty());
  REQUIRE(strict.errors.size() == 4);
  CHECK(strict.errors[0].field == "memory_peak_gib");
  CHECK_THAT(strict.errors[0].reason, Catch::Contains("strict"));
}

TEST_CASE("observation: every bad field of a record is reported, not only the first",
          "[observation][parse]") {
  const hwrec::ObservationParse parsed = ParseObservationJson(
      R"({"execution_id":"e1","finished_at":1,"duration_s":-1,"gpu_utilization":2,)"
      R"("hardware":{"gpu_count":-1,"gpu_model":""},"requested":{"memory_bytes":"x"}})");
  CHECK_FALSE(parsed.observation.has_value());
  CHECK(parsed.execution_id == "e1");
  std::vector<std::string> fields;
  for (const FieldError& e : parsed.errors) fields.push_back(e.field);
  CHECK(fields == std::vector<std::string>{"action_image", "duration_s", "hardware.gpu_count",
                                           "hardware.gpu_model", "requested.memory_bytes",
                                           "gpu_utilization"});
  Observation o = ValidObservation();
  o.duration_s = -1;
  o.gpu_utilization = 3;
  CHECK(hwrec::ObservationProblems(o).size() == 2);
}
