// The width-aware router (DESIGN §8): ladder order by width and length, card
// eligibility from recommendations, quota pruning, the walker's outcome
// classes, the persisted daily GCP attempt cap, and the legacy width-1 ladder.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <algorithm>
#include <ctime>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "base/time.h"
#include "hwrec/config.h"
#include "hwrec/ingest.h"
#include "hwrec/ladder.h"
#include "hwrec/ladder_walk.h"
#include "hwrec/router.h"
#include "hwrec/router_config.h"
#include "hwrec/time_text.h"
#include "test_support.h"

using hwrec::Backend;
using hwrec::LaunchOutcome;
using hwrec::Provisioning;
using hwrec::Rung;

namespace {

constexpr double kDay = 1.78e9;  // a fixed instant: 2026-05-28, UTC

struct RouterFixture {
  hwrec::test::TempDir dir;
  std::string path = hwrec::test::NewStoreLocation(dir, "router.db");
  std::unique_ptr<hwrec::Store> store = hwrec::test::OpenStoreOrFail(path);

  // A dispatch whose launch command shards whenever it is wide.
  hwrec::RoutePlan Plan(const std::string& intent, int width, double hours) {
    auto snapshot = hwrec::RouterSnapshot::Load(*store);
    REQUIRE(snapshot.ok());
    auto plan = hwrec::BuildLadder(*snapshot, {intent, width, hours, width > 1});
    INFO(plan.status().message());
    REQUIRE(plan.ok());
    return *plan;
  }
  hwrec::RouteResult Walk(const hwrec::RoutePlan& plan, const hwrec::Launcher& launcher,
                          double now = kDay) {
    hwrec::WalkOptions options;
    options.now = now;
    auto result = hwrec::WalkLadder(*store, plan, launcher, options);
    INFO(result.status().message());
    REQUIRE(result.ok());
    return *result;
  }
  // Imports the intent lora-70b (on the 1-GPU legacy machine) with `min_width`.
  void ImportLora(int min_width, const std::string& image = "ghcr.io/acme/lora-70b:1.0") {
    const auto imported = hwrec::ImportRouterConfig(
        *store, fmt::format(R"({{"intents": [{{"intent": "lora-70b", "workload_image": "{}",
            "legacy_machine": "a2-ultragpu-1g", "min_width": {}}}]}})",
                            image, min_width));
    INFO(imported.message());
    REQUIRE(imported.ok());
  }
  // Ingests executions of `image` peaking at `peak_gb` per GPU, each holding
  // `gpus` cards of one model (the whole machine).
  // `say_held` false: the records do not say how many GPUs they held.
  void History(const std::string& image, const std::string& model, const std::string& machine,
               double peak_gb, int gpus = 1, bool say_held = true) {
    std::ostringstream lines;
    const auto now = static_cast<long long>(std::time(nullptr));
    for (int i = 0; i < 3; ++i) {
      lines
          << fmt::format(
                 R"({{"execution_id":"{}-{}-{}","action_image":"{}","finished_at":{},"status":"success",)"
                 R"("hardware":{{"instance_type":"{}","gpu_count":{},"gpu_mode":"full","gpu_total":{},)"
                 R"("gpu_brand":"NVIDIA","gpu_model":"{}"}},{})"
                 R"("gpu_memory_peak_gb":{}}})",
                 image, machine, i, image, now - 600 * i, machine, gpus, gpus, model,
                 say_held ? fmt::format(R"("gpu_count_held":{},)", gpus) : "", peak_gb)
          << "\n";
    }
    const auto ingestor_owner = hwrec::Ingestor::Open(*store).value();
    hwrec::Ingestor& ingestor = *ingestor_owner;
    std::istringstream in(lines.str());
    auto summary = ingestor.IngestJsonLines(in);
    INFO(summary.status().ToString());
    REQUIRE(summary.ok());
  }
  // The same peak per GPU on A100 80GB at every machine width, so that each
  // width has a per-shard figure of its own.
  void HistoryAtEveryWidth(const std::string& image, double peak_gb) {
    for (int gpus : {1, 2, 4, 8}) {
      History(image, "A100 80GB", fmt::format("a2-ultragpu-{}g", gpus), peak_gb, gpus);
    }
  }
};

std::vector<std::string> Ids(const std::vector<Rung>& rungs) {
  std::vector<std::string> ids;
  for (const Rung& r : rungs) ids.push_back(r.id);
  return ids;
}

// Launches the first rung whose id matches `launch`, misses capacity on the rest.
hwrec::Launcher LaunchOnly(std::set<std::string> launch, std::vector<std::string>* tried) {
  return [launch = std::move(launch), tried](const Rung& rung) {
    tried->push_back(rung.id);
    if (launch.count(rung.id) != 0) return hwrec::LaunchResult{LaunchOutcome::kLaunched, ""};
    return hwrec::LaunchResult{LaunchOutcome::kCapacityMiss, "no capacity"};
  };
}

}  // namespace

TEST_CASE("router: width 8 long job leads with a2-ultragpu-8g FLEX_START, short with SPOT",
          "[router][engine]") {
  RouterFixture f;
  const auto long_plan = f.Plan("capture-7b", 8, 48);
  REQUIRE_FALSE(long_plan.ladder.empty());
  CHECK(long_plan.ladder.front().id == "gcp/a2-ultragpu-8g/flex-start");
  CHECK(long_plan.ladder.front().provisioning == Provisioning::kFlexStart);
  CHECK(long_plan.ladder.front().width == 8);
  const auto short_plan = f.Plan("capture-7b", 8, 2);
  CHECK(short_plan.ladder.front().id == "gcp/a2-ultragpu-8g/spot");
  // Widths never grow down the ladder, and GCP comes before SLURM before RunPod.
  for (const auto* plan : {&long_plan, &short_plan}) {
    for (std::size_t i = 1; i < plan->ladder.size(); ++i) {
      CHECK(plan->ladder[i].width <= plan->ladder[i - 1].width);
      CHECK(static_cast<int>(plan->ladder[i].backend) >=
            static_cast<int>(plan->ladder[i - 1].backend));
    }
  }
}

TEST_CASE("router: history on H100 only puts the a3-highgpu-8g rung first", "[router][engine]") {
  RouterFixture f;
  f.History("ghcr.io/acme/capture-7b:1.0", "H100 80GB", "a3-highgpu-1g", 50);
  const auto plan = f.Plan("capture-7b", 8, 48);
  CHECK(plan.ladder.front().id == "gcp/a3-highgpu-8g/flex-start");
  // A card too small for the peak recorded at a width is never offered at it.
  f.History("ghcr.io/acme/eval-7b:1.0", "A100 80GB", "a2-ultragpu-4g", 60, 4);
  const auto eval = f.Plan("eval-7b", 4, 2);
  for (const Rung& r : eval.ladder) {
    if (r.width == 4) CHECK(r.gpu_model != "A100 40GB");
  }
  CHECK(eval.ladder.front().id == "gcp/a2-ultragpu-4g/spot");
}

TEST_CASE("router: capacity misses at 8 and 4 realize width 2 on GCP, and the event says 2",
          "[router][engine]") {
  RouterFixture f;
  const auto plan = f.Plan("capture-7b", 8, 48);
  std::vector<std::string> tried;
  const auto result = f.Walk(plan, LaunchOnly({"gcp/a2-ultragpu-2g/flex-start"}, &tried));
  REQUIRE(result.selected);
  CHECK(result.selected->backend == Backend::kGcp);
  CHECK(result.requested_width == 8);
  CHECK(result.realized_width == 2);
  CHECK(result.degraded);
  CHECK(result.attempts.size() == 7);  // three at 8, three at 4, then the 2-wide flex-start
  const auto event = nlohmann::json::parse(result.backend_selected_event);
  CHECK(event["event"] == "backend-selected");
  CHECK(event["realized_width"] == 2);
  CHECK(event["requested_width"] == 8);
  CHECK(event["machine_type"] == "a2-ultragpu-2g");
}

TEST_CASE("router: RunPod is reached only when every GCP and SLURM rung missed",
          "[router][engine]") {
  RouterFixture f;
  for (int width : {1, 8}) {
    const auto plan = f.Plan("eval-7b", width, 3);
    CHECK(plan.ladder.back().backend == Backend::kRunPod);
    CHECK(std::count_if(plan.ladder.begin(), plan.ladder.end(),
                        [](const Rung& r) { return r.backend == Backend::kRunPod; }) == 1);
    std::vector<std::string> tried;
    const auto result = f.Walk(plan, LaunchOnly({"runpod/h100-80gb"}, &tried));
    REQUIRE(result.selected);
    CHECK(result.selected->backend == Backend::kRunPod);
    CHECK(tried == Ids(plan.ladder));  // every earlier rung was tried first
    CHECK(result.realized_width == 1);
  }
}

TEST_CASE("router: a failure that is not a capacity miss does not cascade", "[router][engine]") {
  for (LaunchOutcome outcome : {LaunchOutcome::kConfigError, LaunchOutcome::kPermissionError,
                                LaunchOutcome::kWorkloadFailure}) {
    INFO(hwrec::ToString(outcome));
    RouterFixture f;
    const auto plan = f.Plan("lora-7b", 4, 2);
    int calls = 0;
    const auto result = f.Walk(plan, [&](const Rung&) {
      ++calls;
      return hwrec::LaunchResult{calls == 2 ? outcome : LaunchOutcome::kCapacityMiss, "boom"};
    });
    CHECK(calls == 2);
    CHECK(result.stopped);
    CHECK_FALSE(result.selected);
    CHECK(result.backend_selected_event.empty());
    CHECK(result.attempts.back().outcome == outcome);
    CHECK(hwrec::ToString(result.attempts.back()) == hwrec::ToString(outcome));
  }
}

TEST_CASE(
    "router: quota exceeded skips the rungs sharing that quota, as wide, for the rest of the day",
    "[router][engine]") {
  RouterFixture f;
  const auto plan = f.Plan("capture-7b", 8, 2);  // SPOT, FLEX_START (both preemptible), STANDARD
  std::vector<std::string> tried;
  const auto first = f.Walk(plan, [&](const Rung& rung) {
    tried.push_back(rung.id);
    if (rung.id == "gcp/a2-ultragpu-8g/spot")
      return hwrec::LaunchResult{LaunchOutcome::kQuotaExceeded, "quota"};
    return hwrec::LaunchResult{LaunchOutcome::kCapacityMiss, ""};
  });
  for (const std::string& id : tried) {
    if (id == "gcp/a2-ultragpu-8g/spot" || id.find("-8g/") == std::string::npos) continue;
    CHECK(id.find("/spot") == std::string::npos);
    CHECK(id.find("/flex-start") == std::string::npos);
  }
  CHECK(first.attempts[1].skipped == hwrec::RungSkip::kQuotaExhausted);
  // Later the same UTC day, another walk skips them without launching; the next day it does not.
  std::vector<std::string> later;
  f.Walk(plan, LaunchOnly({}, &later), kDay + 60);
  CHECK(std::none_of(later.begin(), later.end(), [](const std::string& id) {
    return id.find("-8g/spot") != std::string::npos;
  }));
  std::vector<std::string> next_day;
  f.Walk(plan, LaunchOnly({}, &next_day), kDay + 86400);
  CHECK(next_day.front() == "gcp/a2-ultragpu-8g/spot");
}

TEST_CASE("router: a degradation walk takes one unit of the daily cap, kept across reopening",
          "[router][engine]") {
  RouterFixture f;
  REQUIRE(hwrec::SetRouterSetting(*f.store, "gcp_daily_attempt_cap", "2").ok());
  const auto plan = f.Plan("capture-7b", 8, 48);
  std::vector<std::string> tried;
  const auto walk = f.Walk(plan, LaunchOnly({"gcp/a2-ultragpu-1g/spot"}, &tried));
  CHECK(tried.size() == 12);  // eleven GCP misses in one walk
  CHECK(walk.counted_gcp_attempt);
  auto day = hwrec::ReadRouterDayState(*f.store, kDay);
  REQUIRE(day.ok());
  CHECK(day->gcp_attempts == 1);

  f.store.reset();
  f.store = hwrec::test::OpenStoreOrFail(f.path);
  CHECK(hwrec::ReadRouterDayState(*f.store, kDay)->gcp_attempts == 1);
  f.Walk(plan, LaunchOnly({"gcp/a2-ultragpu-8g/flex-start"}, &tried));
  CHECK(hwrec::ReadRouterDayState(*f.store, kDay)->gcp_attempts == 2);
  // The cap is used up: GCP rungs are skipped, SLURM launches.
  std::vector<std::string> capped;
  const auto third = f.Walk(plan, LaunchOnly({"slurm/a100-80gb"}, &capped));
  CHECK(capped == std::vector<std::string>{"slurm/a100-80gb"});
  CHECK(third.attempts.front().skipped == hwrec::RungSkip::kDailyCap);
  CHECK_FALSE(third.counted_gcp_attempt);
  CHECK(hwrec::ReadRouterDayState(*f.store, kDay)->gcp_attempts == 2);
}

TEST_CASE("router: a dry-run walk reads the day's state and writes nothing", "[router][engine]") {
  RouterFixture f;
  const auto plan = f.Plan("capture-7b", 2, 2);
  hwrec::WalkOptions options;
  options.now = kDay;
  options.dry_run = true;
  auto result = hwrec::WalkLadder(
      *f.store, plan,
      [](const Rung&) {
        return hwrec::LaunchResult{LaunchOutcome::kQuotaExceeded, ""};
      },
      options);
  REQUIRE(result.ok());
  CHECK(result->counted_gcp_attempt);
  auto day = hwrec::ReadRouterDayState(*f.store, kDay);
  CHECK(day->gcp_attempts == 0);
  CHECK(day->exhausted_quotas.empty());
}

TEST_CASE("router: a3-highgpu-8g is never on-demand", "[router][engine]") {
  RouterFixture f;
  f.History("ghcr.io/acme/lora-13b:1.0", "H100 80GB", "a3-highgpu-8g", 60);
  auto snapshot = hwrec::RouterSnapshot::Load(*f.store);
  REQUIRE(snapshot.ok());
  bool seen = false;
  for (const auto& intent : snapshot->config.intents) {
    for (int width : {1, 2, 4, 8}) {
      for (double hours : {1.0, 48.0, 400.0}) {
        auto plan = hwrec::BuildLadder(*snapshot, {intent.intent, width, hours, true});
        REQUIRE(plan.ok());
        for (const Rung& r : plan->ladder) {
          if (r.machine_type != "a3-highgpu-8g") continue;
          seen = true;
          CHECK(r.provisioning != Provisioning::kStandard);
        }
      }
    }
  }
  CHECK(seen);
  const auto plan = f.Plan("lora-13b", 8, 48);
  CHECK(std::count_if(plan.pruned.begin(), plan.pruned.end(), [](const hwrec::PrunedRung& p) {
          return p.id == "gcp/a3-highgpu-8g/standard";
        }) == 1);
}

TEST_CASE("router: a job over 7 days has no FLEX_START rung", "[router][engine]") {
  RouterFixture f;
  for (const char* intent : {"capture-7b", "lora-13b"}) {
    for (int width : {1, 8}) {
      const auto plan = f.Plan(intent, width, 8 * 24);
      CHECK(plan.length_class == hwrec::LengthClass::kVeryLong);
      for (const Rung& r : plan.ladder) CHECK(r.provisioning != Provisioning::kFlexStart);
      CHECK(std::any_of(plan.pruned.begin(), plan.pruned.end(), [](const hwrec::PrunedRung& p) {
        return p.reason.find("FLEX_START runs at most 168 h") != std::string::npos;
      }));
    }
  }
  // Exactly 7 days still may use it.
  const auto seven = f.Plan("capture-7b", 8, 7 * 24);
  CHECK(seven.ladder.front().provisioning == Provisioning::kFlexStart);
}

TEST_CASE("router: a quota that can never admit 8 GPUs prunes the 8-wide rungs with the reason",
          "[router][engine]") {
  RouterFixture f;
  REQUIRE(hwrec::ImportRouterConfig(*f.store, R"({"quotas": [
      {"gpu_model": "A100 80GB", "class": "preemptible", "gpus": 4},
      {"gpu_model": "A100 80GB", "class": "on_demand", "gpus": 4}]})")
              .ok());
  const auto plan = f.Plan("capture-7b", 8, 48);
  for (const Rung& r : plan.ladder) CHECK(r.width <= 4);
  CHECK(plan.ladder.front().id == "gcp/a2-ultragpu-4g/flex-start");
  std::set<std::string> pruned;
  for (const auto& p : plan.pruned) {
    if (p.id.rfind("gcp/a2-ultragpu-8g/", 0) == 0) {
      pruned.insert(p.id);
      CHECK_THAT(p.reason, Catch::Contains("admits 4 GPU(s); a2-ultragpu-8g needs 8"));
    }
  }
  CHECK(pruned.size() == 3);
}

TEST_CASE("router: an intent's minimum width bounds degradation and the request",
          "[router][engine]") {
  RouterFixture f;
  f.ImportLora(2);
  const auto plan = f.Plan("lora-70b", 8, 48);
  for (const Rung& r : plan.ladder) CHECK(r.width >= 2);
  CHECK(plan.ladder.back().id == "runpod/h100-80gb");
  auto snapshot = hwrec::RouterSnapshot::Load(*f.store);
  auto narrow = hwrec::BuildLadder(*snapshot, {"lora-70b", 1, 48});
  REQUIRE_FALSE(narrow.ok());
  CHECK_THAT(narrow.status().message(), Catch::Contains("minimum width 2"));
  auto odd = hwrec::BuildLadder(*snapshot, {"lora-70b", 3, 48, true});  // maps down to 2: allowed
  REQUIRE(odd.ok());
  CHECK(odd->planned_width == 2);
}

TEST_CASE(
    "router: a minimum width between machine widths asks for the next machine width; one "
    "above every machine is refused at import",
    "[router][engine]") {
  RouterFixture f;
  f.ImportLora(3);
  auto snapshot = hwrec::RouterSnapshot::Load(*f.store);
  REQUIRE(snapshot.ok());
  // Machine widths are 1, 2, 4 and 8: the narrowest the intent runs on is 4, not 3.
  auto narrow = hwrec::BuildLadder(*snapshot, {"lora-70b", 2, 48, true});
  REQUIRE_FALSE(narrow.ok());
  CHECK_THAT(narrow.status().message(),
             Catch::Contains("below intent lora-70b's minimum width 3: ask for 4 or more"));
  auto three = hwrec::BuildLadder(*snapshot, {"lora-70b", 3, 48, true});
  REQUIRE_FALSE(three.ok());
  CHECK_THAT(three.status().message(), Catch::Contains("maps down to machine width 2") &&
                                           Catch::Contains("ask for a machine width of 4 or more"));
  auto four = hwrec::BuildLadder(*snapshot, {"lora-70b", 4, 48, true});
  REQUIRE(four.ok());
  for (const Rung& r : four->ladder) {
    CHECK(r.width >= 3);  // SLURM lanes run at min_width itself
    if (r.id.rfind("gcp/", 0) == 0) CHECK(r.width >= 4);
  }

  const auto before = hwrec::RouterConfigToJson(*hwrec::LoadRouterConfig(*f.store));
  const hwrec::Status wide = hwrec::ImportRouterConfig(*f.store, R"({"intents": [{"intent":
      "lora-405b", "workload_image": "ghcr.io/acme/lora-405b:1.0",
      "legacy_machine": "a2-ultragpu-1g", "min_width": 16}]})");
  CHECK(wide.code() == hwrec::StatusCode::kInvalidArgument);
  CHECK_THAT(wide.message(),
             Catch::Contains("intents 'lora-405b': min_width is 16, wider than any machine type") &&
                 Catch::Contains("the widest has 8 GPUs"));
  CHECK(hwrec::RouterConfigToJson(*hwrec::LoadRouterConfig(*f.store)) == before);
}

TEST_CASE("router config: a new intent's min_width is 1 unless given", "[router][engine]") {
  RouterFixture f;
  REQUIRE(hwrec::ImportRouterConfig(*f.store, R"({"intents": [{"intent": "embed-1b",
      "workload_image": "ghcr.io/acme/embed:1", "legacy_machine": "a2-ultragpu-1g"}]})")
              .ok());
  const auto config = hwrec::LoadRouterConfig(*f.store);
  REQUIRE(config.ok());
  bool found = false;
  for (const hwrec::Intent& intent : config->intents) {
    if (intent.intent != "embed-1b") continue;
    found = true;
    CHECK(intent.min_width == 1);
  }
  CHECK(found);
}

TEST_CASE("router config: a bad import names the entry and the fix and writes nothing",
          "[router][engine]") {
  RouterFixture f;
  const auto before = hwrec::RouterConfigToJson(*hwrec::LoadRouterConfig(*f.store));
  auto s = hwrec::ImportRouterConfig(*f.store, R"({"intents": [{"intent": "capture-7b",
      "legacy_machine": "a2-ultragpu-8g"}]})");
  CHECK(s.code() == hwrec::StatusCode::kInvalidArgument);
  CHECK_THAT(s.message(), Catch::Contains("intents 'capture-7b': legacy_machine"));
  CHECK_THAT(s.message(), Catch::Contains("a2-ultragpu-1g"));
  s = hwrec::ImportRouterConfig(*f.store, R"({"gcp_machines": [{"machine_type": "a3-megagpu-8g",
      "gpu_brand": "NVIDIA", "gpu_model": "H100 80G", "gpu_count": 8, "vcpus": 208,
      "memory_gb": 1872, "provisioning": ["SPOT"]}]})");
  CHECK_THAT(s.message(), Catch::Contains("not in the catalog"));
  s = hwrec::SetRouterSetting(*f.store, "gcp_daily_attempt_cap", "-1");
  CHECK_THAT(s.message(), Catch::Contains("gcp_daily_attempt_cap"));
  CHECK(hwrec::RouterConfigToJson(*hwrec::LoadRouterConfig(*f.store)) == before);
  // Export, then import, is a no-op.
  REQUIRE(hwrec::ImportRouterConfig(*f.store, before).ok());
  CHECK(hwrec::RouterConfigToJson(*hwrec::LoadRouterConfig(*f.store)) == before);
}

TEST_CASE("router: durations are read with their unit", "[router]") {
  CHECK(*hwrec::internal::ParseDurationHours("90m") == Approx(1.5));
  CHECK(*hwrec::internal::ParseDurationHours("1h30m") == Approx(1.5));
  CHECK(*hwrec::internal::ParseDurationHours("2d") == Approx(48));
  CHECK(*hwrec::internal::ParseDurationHours("1w") == Approx(168));
  CHECK_FALSE(hwrec::internal::ParseDurationHours("6").ok());
  CHECK_FALSE(hwrec::internal::ParseDurationHours("6x").ok());
  CHECK_FALSE(hwrec::internal::ParseDurationHours("0h").ok());
  // The public spelling reads the same.
  CHECK(*hwrec::ParseDurationHours("1h30m") == Approx(1.5));
  CHECK_THAT(hwrec::ParseDurationHours("6").status().message(), Catch::Contains("e.g. 90m"));
}

TEST_CASE("router: a UTC day is read at its noon and written back the same", "[router]") {
  const std::optional<double> noon = hwrec::ParseUtcDay("2026-07-08");
  REQUIRE(noon);
  CHECK(hwrec::FormatTime(*noon) == "2026-07-08T12:00:00Z");
  CHECK(hwrec::UtcDay(*noon) == "2026-07-08");
  CHECK(hwrec::UtcDay(*noon + 11.9 * 3600) == "2026-07-08");
  CHECK(hwrec::UtcDay(*noon + 12 * 3600) == "2026-07-09");
  CHECK_FALSE(hwrec::ParseUtcDay("2026-02-30"));
  CHECK_FALSE(hwrec::ParseUtcDay("1969-12-31"));
  CHECK_FALSE(hwrec::ParseUtcDay("2026-7-8"));
}

TEST_CASE("router: a length in hexadecimal or beyond any number is not understood", "[router]") {
  for (const char* text : {"0x10h", "1h0X2m", "1e308h1e308h", "1e307w"}) {
    INFO(text);
    const auto hours = hwrec::internal::ParseDurationHours(text);
    CHECK(hours.status().code() == hwrec::StatusCode::kInvalidArgument);
    CHECK_THAT(hours.status().message(), Catch::Contains("is not understood"));
  }
}

TEST_CASE("router: a day is a calendar day from 1970 on, never rolled over", "[router]") {
  CHECK(hwrec::internal::UtcNoonOfDay("2026-07-08") == std::optional<double>(1783512000));
  CHECK(hwrec::internal::UtcNoonOfDay("2028-02-29").has_value());
  CHECK(hwrec::internal::UtcNoonOfDay("1970-01-01") == std::optional<double>(43200));
  for (const char* day : {"2026-02-30", "2026-13-45", "2026-00-00", "2026-+1-01", "2026- 1- 1",
                          "1969-12-31", "2027-02-29", "20260708", "2026-07-08T"}) {
    INFO(day);
    CHECK_FALSE(hwrec::internal::UtcNoonOfDay(day).has_value());
  }
}

TEST_CASE("router config: a whole number beyond int is refused, not wrapped", "[router][engine]") {
  RouterFixture f;
  const auto before = hwrec::RouterConfigToJson(*hwrec::LoadRouterConfig(*f.store));
  const auto s = hwrec::ImportRouterConfig(*f.store, R"({"intents": [{"intent": "big",
      "workload_image": "ghcr.io/acme/big:1.0", "legacy_machine": "a2-ultragpu-1g",
      "min_width": 4294967298}]})");
  CHECK(s.code() == hwrec::StatusCode::kInvalidArgument);
  CHECK_THAT(s.message(), Catch::Contains("min_width is 4294967298: it must be a whole number"));
  const auto quota = hwrec::ImportRouterConfig(*f.store, R"({"quotas": [
      {"gpu_model": "A100 80GB", "class": "preemptible", "gpus": 4294967295}]})");
  CHECK_THAT(quota.message(), Catch::Contains("gpus is 4294967295"));
  CHECK(hwrec::RouterConfigToJson(*hwrec::LoadRouterConfig(*f.store)) == before);
}

TEST_CASE("router: two replicas walking at once count every walk once and lose no quota block",
          "[router][engine]") {
  RouterFixture f;
  REQUIRE(hwrec::SetRouterSetting(*f.store, "gcp_daily_attempt_cap", "1000").ok());
  const auto plan = f.Plan("capture-7b", 8, 48);
  constexpr int kWalks = 12;
  // Each replica has its own connection; Catch's assertions stay on this thread.
  auto replica = [&](hwrec::LaunchOutcome gcp_outcome, int* counted, std::string* failure) {
    auto store = hwrec::Store::Open(f.path);
    if (!store.ok()) {
      *failure = store.status().ToString();
      return;
    }
    const hwrec::Launcher launcher = [gcp_outcome](const Rung& rung) {
      if (rung.backend != Backend::kGcp) return hwrec::LaunchResult{LaunchOutcome::kLaunched, ""};
      return hwrec::LaunchResult{gcp_outcome, "none left"};
    };
    for (int i = 0; i < kWalks; ++i) {
      hwrec::WalkOptions options;
      options.now = kDay;
      auto walk = hwrec::WalkLadder(**store, plan, launcher, options);
      if (!walk.ok()) {
        *failure = walk.status().ToString();
        return;
      }
      if (walk->counted_gcp_attempt) ++*counted;
    }
  };
  for (const auto outcome : {LaunchOutcome::kCapacityMiss, LaunchOutcome::kQuotaExceeded}) {
    const auto before = hwrec::ReadRouterDayState(*f.store, kDay)->gcp_attempts;
    int counted[2] = {0, 0};
    std::string failures[2];
    std::thread first(replica, outcome, &counted[0], &failures[0]);
    std::thread second(replica, outcome, &counted[1], &failures[1]);
    first.join();
    second.join();
    CHECK(failures[0].empty());
    CHECK(failures[1].empty());
    INFO(failures[0] << failures[1]);
    const auto day = hwrec::ReadRouterDayState(*f.store, kDay);
    REQUIRE(day.ok());
    if (outcome == LaunchOutcome::kCapacityMiss) {
      CHECK(counted[0] == kWalks);  // every degradation walk takes one unit
      CHECK(counted[1] == kWalks);
    }
    CHECK(day->gcp_attempts - before == counted[0] + counted[1]);
    const std::set<std::string> distinct(day->exhausted_quotas.begin(),
                                         day->exhausted_quotas.end());
    CHECK(distinct.size() == day->exhausted_quotas.size());
    CHECK(day->exhausted_quotas.empty() == (outcome == LaunchOutcome::kCapacityMiss));
  }
}

TEST_CASE("router: without a sharded launch command a wide request keeps only width 1",
          "[router][engine]") {
  RouterFixture f;
  auto snapshot = hwrec::RouterSnapshot::Load(*f.store);
  REQUIRE(snapshot.ok());
  auto plan = hwrec::BuildLadder(*snapshot, {"capture-7b", 8, 48});
  REQUIRE(plan.ok());
  CHECK_FALSE(plan->sharded);
  for (const Rung& r : plan->ladder) CHECK(r.width == 1);
  CHECK(std::count_if(plan->pruned.begin(), plan->pruned.end(), [](const hwrec::PrunedRung& p) {
          return p.reason.find("needs a sharded launch command") != std::string::npos;
        }) == 9);
  std::vector<std::string> tried;
  const auto walk = f.Walk(*plan, LaunchOnly({"gcp/a2-ultragpu-1g/flex-start"}, &tried));
  const auto event = nlohmann::json::parse(walk.backend_selected_event);
  CHECK(event["realized_width"] == 1);
  CHECK(event["degraded"] == true);
  CHECK(event["sharded"] == false);

  f.ImportLora(2);
  snapshot = hwrec::RouterSnapshot::Load(*f.store);
  auto refused = hwrec::BuildLadder(*snapshot, {"lora-70b", 4, 48});
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.status().message(), Catch::Contains("must shard the work"));
  CHECK(hwrec::BuildLadder(*snapshot, {"lora-70b", 4, 48, true}).ok());
}

TEST_CASE("router: a launcher that did not try a rung ends the walk there, not launched",
          "[router][engine]") {
  RouterFixture f;
  const auto plan = f.Plan("eval-7b", 1, 1);
  int calls = 0;
  const auto result = f.Walk(plan, [&](const Rung&) {
    ++calls;
    return hwrec::LaunchResult{calls == 1 ? LaunchOutcome::kCapacityMiss : LaunchOutcome::kNotTried,
                               ""};
  });
  CHECK(calls == 2);
  REQUIRE(result.attempts.size() == 2);
  CHECK(result.attempts.back().outcome == hwrec::LaunchOutcome::kNotTried);
  CHECK_FALSE(result.selected);
  CHECK_FALSE(result.stopped);
  CHECK(hwrec::ParseLaunchOutcome("not_tried") == LaunchOutcome::kNotTried);
}

TEST_CASE("router: a walk that ends on the GCP rung that took the day's attempt gives it back",
          "[router][engine]") {
  RouterFixture f;
  const auto plan = f.Plan("eval-7b", 1, 1);
  REQUIRE(plan.ladder.front().backend == Backend::kGcp);
  const auto not_tried = [](const Rung&) {
    return hwrec::LaunchResult{LaunchOutcome::kNotTried, ""};
  };
  // Not tried on the first GCP rung: no GCP launch was made, so none is counted.
  const auto untried = f.Walk(plan, not_tried);
  CHECK_FALSE(untried.counted_gcp_attempt);
  CHECK(hwrec::ReadRouterDayState(*f.store, kDay)->gcp_attempts == 0);
  hwrec::WalkOptions dry;
  dry.now = kDay;
  dry.dry_run = true;
  CHECK_FALSE(hwrec::WalkLadder(*f.store, plan, not_tried, dry)->counted_gcp_attempt);

  // A GCP rung was tried before the walk ended: the attempt counts.
  int calls = 0;
  const auto tried = f.Walk(plan, [&](const Rung&) {
    return hwrec::LaunchResult{
        ++calls == 1 ? LaunchOutcome::kCapacityMiss : LaunchOutcome::kNotTried, ""};
  });
  CHECK(tried.counted_gcp_attempt);
  CHECK(hwrec::ReadRouterDayState(*f.store, kDay)->gcp_attempts == 1);

  // The unit is taken by the first GCP rung the walk does not skip: with the
  // preemptible quota blocked, that is standard, and it is given back the same way.
  const auto block_spot = [](const Rung& rung) {
    return hwrec::LaunchResult{rung.provisioning == Provisioning::kSpot
                                   ? LaunchOutcome::kQuotaExceeded
                                   : LaunchOutcome::kNotTried,
                               "quota"};
  };
  const auto blocked = f.Walk(plan, block_spot, kDay + 86400);  // the next day
  REQUIRE(blocked.attempts.size() == 3);
  CHECK(blocked.counted_gcp_attempt);  // spot was tried: its quota miss is a GCP attempt
  const auto after_block = f.Walk(plan, not_tried, kDay + 86400);
  REQUIRE(after_block.attempts.size() == 3);
  CHECK(after_block.attempts[0].skipped == hwrec::RungSkip::kQuotaExhausted);
  CHECK(after_block.attempts[1].skipped == hwrec::RungSkip::kQuotaExhausted);
  CHECK(after_block.attempts[2].outcome == hwrec::LaunchOutcome::kNotTried);
  CHECK_FALSE(after_block.counted_gcp_attempt);
  CHECK(hwrec::ReadRouterDayState(*f.store, kDay + 86400)->gcp_attempts == 1);
}

TEST_CASE("router: walk options that do not go together are refused", "[router]") {
  RouterFixture f;
  const auto plan = f.Plan("eval-7b", 1, 1);
  const auto launched = [](const Rung&) { return hwrec::LaunchResult{}; };
  hwrec::WalkOptions options;
  options.now = kDay;
  options.accept = [](const hwrec::RouteResult&) { return hwrec::Status::Ok(); };
  auto walk = hwrec::WalkLadder(*f.store, plan, launched, options);
  REQUIRE_FALSE(walk.ok());
  CHECK(walk.status().code() == hwrec::StatusCode::kInvalidArgument);
  CHECK(walk.status().message().find("set recorded too") != std::string::npos);
  options.recorded = true;
  options.dry_run = true;
  walk = hwrec::WalkLadder(*f.store, plan, launched, options);
  REQUIRE_FALSE(walk.ok());
  CHECK(walk.status().message().find("leave dry_run unset") != std::string::npos);
  CHECK(hwrec::ReadRouterDayState(*f.store, kDay)->gcp_attempts == 0);
}

TEST_CASE("router: a recorded walk writes its day state in one transaction, or nothing",
          "[router][engine]") {
  RouterFixture f;
  const auto plan = f.Plan("capture-7b", 8, 3);
  const auto quota_then_launch = [](const Rung& rung) {
    if (rung.id == "gcp/a2-ultragpu-8g/spot") {
      return hwrec::LaunchResult{LaunchOutcome::kQuotaExceeded, "quota"};
    }
    return hwrec::LaunchResult{rung.id == "gcp/a2-ultragpu-4g/standard"
                                   ? LaunchOutcome::kLaunched
                                   : LaunchOutcome::kCapacityMiss,
                               ""};
  };
  hwrec::WalkOptions options;
  options.now = kDay;
  options.recorded = true;
  int checked = 0;
  options.accept = [&](const hwrec::RouteResult& walk) {
    ++checked;
    CHECK(walk.selected);
    return hwrec::Status::InvalidArgument("the record disagrees with the walk");
  };
  const auto refused = hwrec::WalkLadder(*f.store, plan, quota_then_launch, options);
  CHECK(checked == 1);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.status().message() == "the record disagrees with the walk");
  auto day = hwrec::ReadRouterDayState(*f.store, kDay);
  CHECK(day->gcp_attempts == 0);
  CHECK(day->quota_blocks.empty());

  options.accept = [](const hwrec::RouteResult&) { return hwrec::Status::Ok(); };
  const auto accepted = hwrec::WalkLadder(*f.store, plan, quota_then_launch, options);
  REQUIRE(accepted.ok());
  CHECK(accepted->selected->id == "gcp/a2-ultragpu-4g/standard");
  day = hwrec::ReadRouterDayState(*f.store, kDay);
  CHECK(day->gcp_attempts == 1);
  REQUIRE(day->quota_blocks.size() == 1);
  CHECK(day->quota_blocks[0].gpus == 8);
}

// Rungs whose card cannot hold one shard, widths that are no machine width, and
// quota blocks that remember how many GPUs the failed launch asked for.

namespace {

// The plan's pruned reasons by rung id.
std::map<std::string, std::string> PrunedReasons(const hwrec::RoutePlan& plan) {
  std::map<std::string, std::string> reasons;
  for (const hwrec::PrunedRung& p : plan.pruned) reasons[p.id] = p.reason;
  return reasons;
}

// Quota misses on the rungs in `quota`, capacity misses elsewhere; records what was tried.
hwrec::Launcher QuotaOn(std::set<std::string> quota, std::vector<std::string>* tried) {
  return [quota = std::move(quota), tried](const Rung& rung) {
    tried->push_back(rung.id);
    if (quota.count(rung.id) != 0) {
      return hwrec::LaunchResult{LaunchOutcome::kQuotaExceeded, "quota " + rung.id};
    }
    return hwrec::LaunchResult{LaunchOutcome::kCapacityMiss, "no capacity"};
  };
}

bool Contains(const std::vector<std::string>& ids, const std::string& id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

}  // namespace

TEST_CASE(
    "router: a width whose shards fit no card plans no rung and prunes each, needed vs "
    "offered",
    "[router][engine]") {
  RouterFixture f;
  // 79 GB peaks: 86.9 GB per shard with the 10 % margin, more than any card (80 GB at most).
  f.HistoryAtEveryWidth("ghcr.io/acme/capture-7b:1.0", 79);
  const auto plan = f.Plan("capture-7b", 8, 48);
  CHECK(Ids(plan.ladder).empty());
  const auto reasons = PrunedReasons(plan);
  for (const char* id :
       {"gcp/a2-ultragpu-8g/flex-start", "gcp/a2-ultragpu-4g/spot", "gcp/a2-ultragpu-1g/standard",
        "gcp/a3-highgpu-2g/spot", "gcp/a2-highgpu-8g/standard", "slurm/a100-80gb",
        "slurm/a100-40gb", "runpod/h100-80gb"}) {
    INFO(id);
    REQUIRE(reasons.count(id) == 1);
    CHECK_THAT(reasons.at(id), Catch::Contains("needs 86.9 GiB GPU memory per shard"));
  }
  CHECK(reasons.at("gcp/a2-ultragpu-8g/spot") ==
        "needs 86.9 GiB GPU memory per shard (learned on A100 80GB at width 8); A100 80GB "
        "offers 80 GiB");
  CHECK_THAT(reasons.at("gcp/a3-highgpu-2g/spot"),
             Catch::Contains("(learned on A100 80GB at width 2); H100 80GB offers 80 GiB"));
  CHECK_THAT(reasons.at("gcp/a2-highgpu-4g/spot"), Catch::Contains("A100 40GB offers 40 GiB"));
  // A dispatcher tells "no fit" from an error: the plan is returned, with what would fit.
  CHECK_THAT(plan.no_fit, Catch::Contains("86.9 GiB"));
  CHECK_THAT(plan.no_fit, Catch::Contains("80 GiB"));
}

TEST_CASE("router: a card too small for one shard is pruned at every width, the others kept",
          "[router][engine]") {
  RouterFixture f;
  // 55 GB peaks: 60.5 GB per shard; A100 40GB (eval-7b's legacy card) cannot hold one.
  f.HistoryAtEveryWidth("ghcr.io/acme/eval-7b:1.0", 55);
  const auto plan = f.Plan("eval-7b", 4, 2);
  for (const Rung& r : plan.ladder) CHECK(r.gpu_model != "A100 40GB");
  CHECK(plan.no_fit.empty());
  CHECK(plan.ladder.front().id == "gcp/a2-ultragpu-4g/spot");
  CHECK(plan.ladder.back().id == "runpod/h100-80gb");
  const auto reasons = PrunedReasons(plan);
  for (const char* id :
       {"gcp/a2-highgpu-4g/spot", "gcp/a2-highgpu-2g/flex-start", "gcp/a2-highgpu-1g/spot",
        "gcp/a2-highgpu-1g/standard", "slurm/a100-40gb"}) {
    INFO(id);
    REQUIRE(reasons.count(id) == 1);
    CHECK_THAT(reasons.at(id), Catch::StartsWith("needs 60.5 GiB GPU memory per shard (learned on "
                                                 "A100 80GB at width "));
    CHECK_THAT(reasons.at(id), Catch::EndsWith("); A100 40GB offers 40 GiB"));
  }
  CHECK(reasons.at("gcp/a2-highgpu-2g/flex-start") ==
        "needs 60.5 GiB GPU memory per shard (learned on A100 80GB at width 2); A100 40GB offers "
        "40 GiB");
  CHECK(reasons.count("slurm/a100-80gb") == 0);
}

TEST_CASE("route: when no GPU rung holds a shard the command exits 5 and says what would fit",
          "[router][engine]") {
  RouterFixture f;
  f.HistoryAtEveryWidth("ghcr.io/acme/capture-7b:1.0", 79);
  const std::string store = hwrec::test::ShellQuote(f.path);
  const auto table = hwrec::test::RunCli("route " + store +
                                         " --intent capture-7b --width 8 --length 2d --sharded");
  CHECK(table.exit_code == 5);
  CHECK_THAT(table.err, Catch::Contains("86.9 GiB"));
  CHECK_THAT(table.err, Catch::Contains("H100 80GB"));
  // Width 8 is the widest machine width: no wider split is suggested.
  CHECK_THAT(table.err, !Catch::Contains("shard the work"));
  CHECK_THAT(table.out,
             Catch::Contains("needs 86.9 GiB GPU memory per shard (learned on A100 80GB at "
                             "width 8); A100 80GB offers 80 GiB"));
  const auto json = hwrec::test::RunCli(
      "route " + store + " --intent capture-7b --width 8 --length 2d --sharded --format json");
  CHECK(json.exit_code == 5);
  const auto out = nlohmann::json::parse(json.out);
  CHECK(out["ladder"].empty());
  CHECK_FALSE(out["pruned"].empty());
  CHECK_THAT(out["no_fit"].get<std::string>(), Catch::Contains("86.9 GiB"));
}

TEST_CASE("router: a width that is no machine width maps down to the widest one below it",
          "[router][engine]") {
  RouterFixture f;
  const auto six = f.Plan("capture-7b", 6, 48);
  CHECK(six.requested_width == 6);
  CHECK(six.planned_width == 4);
  CHECK(six.ladder.front().id == "gcp/a2-ultragpu-4g/flex-start");
  for (const Rung& r : six.ladder) CHECK(r.width <= 4);
  const auto ten = f.Plan("capture-7b", 10, 2);
  CHECK(ten.requested_width == 10);
  CHECK(ten.planned_width == 8);
  CHECK(ten.ladder.front().id == "gcp/a2-ultragpu-8g/spot");
  // The rest of the rules hold: 8 degrades to 4, 2, 1, then SLURM and RunPod.
  const auto eight = f.Plan("capture-7b", 8, 2);
  CHECK(Ids(ten.ladder) == Ids(eight.ladder));
  CHECK(eight.planned_width == 8);
  // A launch at 4 for a request of 6 is degraded: the workload must re-shard.
  std::vector<std::string> tried;
  const auto walk = f.Walk(six, LaunchOnly({"gcp/a2-ultragpu-4g/flex-start"}, &tried));
  CHECK(walk.requested_width == 6);
  CHECK(walk.realized_width == 4);
  auto snapshot = hwrec::RouterSnapshot::Load(*f.store);
  auto zero = hwrec::BuildLadder(*snapshot, {"capture-7b", 0, 48});
  REQUIRE_FALSE(zero.ok());
  CHECK_THAT(zero.status().message(), Catch::Contains("width 0"));
  // Both widths are printed.
  const std::string store = hwrec::test::ShellQuote(f.path);
  const auto table = hwrec::test::RunCli("route " + store +
                                         " --intent capture-7b --width 6 --length 2d --sharded");
  CHECK(table.exit_code == 0);
  CHECK_THAT(table.out, Catch::Contains("requested width 6 (planned width 4)"));
  const auto json = hwrec::test::RunCli(
      "route " + store + " --intent capture-7b --width 6 --length 2d --sharded --format json");
  REQUIRE(json.exit_code == 0);
  const auto out = nlohmann::json::parse(json.out);
  CHECK(out["requested_width"] == 6);
  CHECK(out["planned_width"] == 4);
}

TEST_CASE("router: a quota miss at 8 wide blocks the 8-wide rungs of that quota, not narrower ones",
          "[router][engine]") {
  RouterFixture f;
  const auto plan = f.Plan("capture-7b", 8, 2);  // SPOT, FLEX_START (preemptible), STANDARD
  std::vector<std::string> tried;
  const auto walk = f.Walk(plan, QuotaOn({"gcp/a2-ultragpu-8g/spot"}, &tried));
  CHECK(walk.attempts.at(1).rung.id == "gcp/a2-ultragpu-8g/flex-start");
  CHECK(walk.attempts.at(1).skipped == hwrec::RungSkip::kQuotaExhausted);
  CHECK_THAT(walk.attempts.at(1).detail, Catch::Contains("8"));
  CHECK(Contains(tried, "gcp/a2-ultragpu-4g/spot"));
  CHECK(Contains(tried, "gcp/a2-ultragpu-4g/flex-start"));
  CHECK(Contains(tried, "gcp/a2-ultragpu-1g/spot"));
  // The day's state records the count.
  auto day = hwrec::ReadRouterDayState(*f.store, kDay);
  REQUIRE(day.ok());
  REQUIRE(day->quota_blocks.size() == 1);
  CHECK(day->quota_blocks[0].gpu_model == "A100 80GB");
  CHECK(day->quota_blocks[0].quota_class == hwrec::QuotaClass::kPreemptible);
  CHECK(day->quota_blocks[0].gpus == 8);
  CHECK_THAT(day->exhausted_quotas.at(0), Catch::Contains("8"));
}

TEST_CASE("router: a quota block at 8 holds for the rest of the UTC day at 8 wide, not at 4",
          "[router][engine]") {
  RouterFixture f;
  const auto plan = f.Plan("capture-7b", 8, 2);
  std::vector<std::string> first;
  f.Walk(plan, QuotaOn({"gcp/a2-ultragpu-8g/spot"}, &first));
  std::vector<std::string> later;
  const auto second = f.Walk(plan, LaunchOnly({}, &later), kDay + 60);
  CHECK_FALSE(Contains(later, "gcp/a2-ultragpu-8g/spot"));
  CHECK_FALSE(Contains(later, "gcp/a2-ultragpu-8g/flex-start"));
  CHECK(Contains(later, "gcp/a2-ultragpu-8g/standard"));  // the on-demand quota is not blocked
  CHECK(Contains(later, "gcp/a2-ultragpu-4g/spot"));
  CHECK(Contains(later, "gcp/a2-ultragpu-2g/flex-start"));
  CHECK(second.attempts.front().skipped == hwrec::RungSkip::kQuotaExhausted);
  // A miss at 4 lowers the block to 4; a later miss at 8 leaves it at 4.
  std::vector<std::string> third;
  f.Walk(plan, QuotaOn({"gcp/a2-ultragpu-4g/spot"}, &third), kDay + 120);
  f.Walk(plan, QuotaOn({"gcp/a2-ultragpu-8g/standard"}, &third), kDay + 180);
  std::vector<std::string> fourth;
  f.Walk(plan, LaunchOnly({}, &fourth), kDay + 240);
  CHECK_FALSE(Contains(fourth, "gcp/a2-ultragpu-4g/flex-start"));
  CHECK(Contains(fourth, "gcp/a2-ultragpu-2g/spot"));
  auto day = hwrec::ReadRouterDayState(*f.store, kDay);
  REQUIRE(day.ok());
  REQUIRE(day->quota_blocks.size() == 2);  // on-demand at 8, preemptible at 4
  for (const auto& block : day->quota_blocks) {
    CHECK(block.gpus == (block.quota_class == hwrec::QuotaClass::kPreemptible ? 4 : 8));
  }
  // `hwrec route config show` shows the count (of today: it reads the clock).
  std::vector<std::string> today;
  f.Walk(plan, QuotaOn({"gcp/a2-ultragpu-8g/spot"}, &today),
         static_cast<double>(std::time(nullptr)));
  const auto show = hwrec::test::RunCli("route config show " + hwrec::test::ShellQuote(f.path));
  CHECK(show.exit_code == 0);
  CHECK_THAT(show.out, Catch::Contains("A100 80GB/preemptible, rungs of 8 or more GPUs"));
  std::vector<std::string> next_day;
  f.Walk(plan, LaunchOnly({}, &next_day), kDay + 86400);
  CHECK(next_day.front() == "gcp/a2-ultragpu-8g/spot");
}

// Reasons and figures a dispatcher can trust: the real reason a rung is left
// out, shard-fit pruning only on a figure learned at the rung's width, and a
// no-fit message that says what would fit.

namespace {

bool AnyNoteContains(const hwrec::RoutePlan& plan, const std::string& text) {
  return std::any_of(plan.notes.begin(), plan.notes.end(),
                     [&](const std::string& note) { return note.find(text) != std::string::npos; });
}

}  // namespace

TEST_CASE("router: without a sharded launch command a rung pruned for another reason says that one",
          "[router][engine]") {
  RouterFixture f;
  REQUIRE(hwrec::ImportRouterConfig(*f.store, R"({"quotas": [
      {"gpu_model": "A100 80GB", "class": "on_demand", "gpus": 4}]})")
              .ok());
  auto snapshot = hwrec::RouterSnapshot::Load(*f.store);
  REQUIRE(snapshot.ok());
  auto plan = hwrec::BuildLadder(*snapshot, {"capture-7b", 8, 8 * 24});  // very long, unsharded
  REQUIRE(plan.ok());
  const auto reasons = PrunedReasons(*plan);
  CHECK_THAT(reasons.at("gcp/a2-ultragpu-8g/flex-start"),
             Catch::Contains("FLEX_START runs at most 168 h"));
  CHECK_THAT(reasons.at("gcp/a2-ultragpu-8g/standard"),
             Catch::Contains("admits 4 GPU(s); a2-ultragpu-8g needs 8"));
  // A rung that passes every other check is refused for the missing sharding.
  CHECK_THAT(reasons.at("gcp/a2-ultragpu-8g/spot"),
             Catch::Contains("width 8 needs a sharded launch command"));
  CHECK_THAT(reasons.at("gcp/a2-ultragpu-4g/standard"),
             Catch::Contains("width 4 needs a sharded launch command"));
  CHECK_THAT(reasons.at("gcp/a2-ultragpu-4g/flex-start"),
             Catch::Contains("FLEX_START runs at most 168 h"));
  // With history on H100 its rungs are considered: a3-highgpu-8g is never on-demand.
  f.History("ghcr.io/acme/capture-7b:1.0", "H100 80GB", "a3-highgpu-8g", 50, 8);
  snapshot = hwrec::RouterSnapshot::Load(*f.store);
  plan = hwrec::BuildLadder(*snapshot, {"capture-7b", 8, 48});
  REQUIRE(plan.ok());
  CHECK_THAT(PrunedReasons(*plan).at("gcp/a3-highgpu-8g/standard"),
             Catch::Contains("offered with SPOT or FLEX_START only"));
}

TEST_CASE("router: a per-shard need learned at width 1 prunes width-1 rungs, not wide ones",
          "[router][engine]") {
  RouterFixture f;
  // 79 GB peaks on one A100 80GB: 86.9 GB with the margin, more than any card, at width 1.
  f.History("ghcr.io/acme/capture-7b:1.0", "A100 80GB", "a2-ultragpu-1g", 79);
  const auto plan = f.Plan("capture-7b", 8, 48);
  CHECK(plan.no_fit.empty());
  REQUIRE_FALSE(plan.ladder.empty());
  CHECK(plan.ladder.front().id == "gcp/a2-ultragpu-8g/flex-start");
  for (const Rung& r : plan.ladder) CHECK(r.width > 1);
  // The width-1 figure is named, with its card and width, and said not to prune.
  CHECK(AnyNoteContains(plan, "86.9 GiB per GPU, learned on A100 80GB at width 1"));
  CHECK(AnyNoteContains(plan, "not used to prune"));
  // Width-1 rungs are pruned on it, with its provenance.
  const auto reasons = PrunedReasons(plan);
  CHECK(reasons.at("gcp/a2-ultragpu-1g/spot") ==
        "needs 86.9 GiB GPU memory per shard (learned on A100 80GB at width 1); A100 80GB "
        "offers 80 GiB");
  CHECK_THAT(reasons.at("slurm/a100-80gb"), Catch::Contains("(learned on A100 80GB at width 1)"));
  // The same for a smaller card: 55 GB peaks (60.5 GB) at width 1 keep A100 40GB wide.
  f.History("ghcr.io/acme/eval-7b:1.0", "A100 80GB", "a2-ultragpu-1g", 55);
  const auto eval = f.Plan("eval-7b", 4, 2);
  CHECK(Contains(Ids(eval.ladder), "gcp/a2-highgpu-4g/spot"));
  CHECK(PrunedReasons(eval).at("gcp/a2-highgpu-1g/spot") ==
        "needs 60.5 GiB GPU memory per shard (learned on A100 80GB at width 1); A100 40GB offers "
        "40 GiB");
}

TEST_CASE("router: a per-shard need learned at width 8 prunes every rung of width 8 or less",
          "[router][engine]") {
  RouterFixture f;
  // 79 GB peaks on 8x A100 80GB: 86.9 GB per GPU at width 8, so at least that on fewer GPUs.
  f.History("ghcr.io/acme/eval-13b:1.0", "A100 80GB", "a2-ultragpu-8g", 79, 8);
  const auto plan = f.Plan("eval-13b", 8, 48);
  CHECK(Ids(plan.ladder).empty());
  const auto reasons = PrunedReasons(plan);
  CHECK(reasons.at("gcp/a2-ultragpu-8g/flex-start") ==
        "needs 86.9 GiB GPU memory per shard (learned on A100 80GB at width 8); A100 80GB "
        "offers 80 GiB");
  // Transferred to another card and to narrower widths, it still says where it was learned.
  CHECK(reasons.at("gcp/a3-highgpu-8g/spot") ==
        "needs 86.9 GiB GPU memory per shard (learned on A100 80GB at width 8); H100 80GB "
        "offers 80 GiB");
  // No execution held fewer GPUs: narrower rungs take the width-8 figure, a
  // lower bound of one shard there, and say it is the nearest width.
  CHECK(reasons.at("gcp/a2-ultragpu-4g/flex-start") ==
        "needs 86.9 GiB GPU memory per shard (learned on A100 80GB at width 8, the nearest wider "
        "width it ran at); A100 80GB offers 80 GiB");
  CHECK_THAT(
      reasons.at("gcp/a2-highgpu-2g/spot"),
      Catch::Contains("(learned on A100 80GB at width 8, the nearest wider width it ran at); "
                      "A100 40GB offers 40 GiB"));
  CHECK_THAT(
      reasons.at("gcp/a2-ultragpu-1g/standard"),
      Catch::Contains("(learned on A100 80GB at width 8, the nearest wider width it ran at)"));
  CHECK_THAT(
      reasons.at("slurm/a100-80gb"),
      Catch::Contains("(learned on A100 80GB at width 8, the nearest wider width it ran at)"));
  CHECK_THAT(reasons.at("runpod/h100-80gb"), Catch::Contains("H100 80GB offers 80 GiB"));
  CHECK_FALSE(AnyNoteContains(plan, "not used to prune"));
  CHECK_THAT(plan.no_fit, Catch::Contains("86.9 GiB GPU memory per shard (learned on A100 80GB at "
                                          "width 8)"));
  // At the widest machine width there is no wider split to suggest.
  CHECK_THAT(plan.no_fit, !Catch::Contains("shard the work"));
  const auto cli = hwrec::test::RunCli("route " + hwrec::test::ShellQuote(f.path) +
                                       " --intent eval-13b --width 8 --length 2d --sharded");
  CHECK(cli.exit_code == 5);
  // RunPod grants 8: pruned on the 8-wide figure.
  const auto lora = [&] {
    f.ImportLora(8, "ghcr.io/acme/eval-13b:1.0");
    auto snapshot = hwrec::RouterSnapshot::Load(*f.store);
    REQUIRE(snapshot.ok());
    auto p = hwrec::BuildLadder(*snapshot, {"lora-70b", 8, 48, true});
    REQUIRE(p.ok());
    return *p;
  }();
  CHECK(lora.ladder.empty());
  CHECK_THAT(PrunedReasons(lora).at("runpod/h100-80gb"),
             Catch::Contains("(learned on A100 80GB at width 8); H100 80GB offers 80 GiB"));
}

TEST_CASE("router: history on a SLURM partition prunes width-1 rungs, its width unknown",
          "[router][engine]") {
  RouterFixture f;
  // Executions on the SLURM partition that did not say how many GPUs they held.
  f.History("ghcr.io/acme/eval-13b:1.0", "A100 80GB", "gpu-a100-80", 79, 1, false);
  const auto plan = f.Plan("eval-13b", 1, 48);
  CHECK(Ids(plan.ladder).empty());
  const auto reasons = PrunedReasons(plan);
  CHECK(reasons.at("gcp/a2-ultragpu-1g/flex-start") ==
        "needs 86.9 GiB GPU memory per shard (learned on A100 80GB, width unknown: at least that "
        "on one GPU); A100 80GB offers 80 GiB");
  CHECK_THAT(reasons.at("slurm/a100-80gb"),
             Catch::Contains("(learned on A100 80GB, width unknown: at least that on one GPU)"));
  CHECK_THAT(reasons.at("runpod/h100-80gb"), Catch::Contains("H100 80GB offers 80 GiB"));
  const auto cli = hwrec::test::RunCli("route " + hwrec::test::ShellQuote(f.path) +
                                       " --intent eval-13b --width 1 --length 2d");
  CHECK(cli.exit_code == 5);
  // Wider, the figure says nothing about one shard: the rungs are kept and it is noted.
  const auto wide = f.Plan("eval-13b", 2, 48);
  CHECK(Contains(Ids(wide.ladder), "gcp/a2-ultragpu-2g/flex-start"));
  CHECK(AnyNoteContains(wide, "86.9 GiB per GPU, learned on A100 80GB, width unknown"));
}

TEST_CASE("router: a card no GCP machine type has takes the figure learned at its width or wider",
          "[router][engine]") {
  RouterFixture f;
  REQUIRE(hwrec::ImportRouterConfig(*f.store, R"({"slurm_lanes": [{"lane": "l40s", "position": 3,
      "partition": "gpu-l40s", "gpu_brand": "NVIDIA", "gpu_model": "L40S", "max_gpus": 4}]})")
              .ok());
  // 55 GB peaks: 60.5 GB per shard, more than an L40S (48 GB) holds.
  f.History("ghcr.io/acme/capture-7b:1.0", "A100 80GB", "a2-ultragpu-2g", 55, 2);
  for (int width : {1, 2}) {
    INFO(width);
    const auto plan = f.Plan("capture-7b", width, 48);
    // The lane is in the width-1 chain: no execution held one GPU, so the
    // width-2 figure, a lower bound of one GPU's need, sizes it.
    CHECK(PrunedReasons(plan).at("slurm/l40s") ==
          "needs 60.5 GiB GPU memory per shard (learned on A100 80GB at width 2, the nearest "
          "wider width it ran at); L40S offers 48 GiB");
    CHECK_FALSE(AnyNoteContains(plan, "L40S: no per-shard"));
  }
}

TEST_CASE(
    "router: a SLURM or RunPod card's own figure prunes width-1 rungs, whatever GCP history says",
    "[router][engine]") {
  // A card no GCP machine type has: 47 GB peaks on the L40S partition (51.7 GB
  // per shard) rule out every 48 GB or smaller card at width 1.
  {
    RouterFixture f;
    REQUIRE(hwrec::ImportRouterConfig(*f.store, R"({"slurm_lanes": [{"lane": "l40s",
        "position": 3, "partition": "gpu-l40s", "gpu_brand": "NVIDIA", "gpu_model": "L40S",
        "max_gpus": 4}]})")
                .ok());
    f.History("ghcr.io/acme/eval-7b:1.0", "L40S", "gpu-l40s", 47, 1, false);
    const auto plan = f.Plan("eval-7b", 1, 48);
    const auto reasons = PrunedReasons(plan);
    CHECK(
        reasons.at("slurm/l40s") ==
        "needs 51.7 GiB GPU memory per shard (learned on L40S, width unknown: at least that on one "
        "GPU); L40S offers 48 GiB");
    CHECK_THAT(reasons.at("gcp/a2-highgpu-1g/spot"),
               Catch::Contains("(learned on L40S, width unknown: at least that on one GPU); A100 "
                               "40GB offers 40 GiB"));
    CHECK_THAT(reasons.at("slurm/a100-40gb"), Catch::Contains("A100 40GB offers 40 GiB"));
    for (const Rung& rung : plan.ladder) CHECK(rung.gpu_model != "A100 40GB");
  }
  // Every GCP machine type of the card has its own (small) figure, from
  // executions that did not say what they held either; the SLURM partition's
  // 79 GB still says one GPU of 80 GB is too small.
  {
    RouterFixture f;
    for (const char* machine :
         {"a2-ultragpu-1g", "a2-ultragpu-2g", "a2-ultragpu-4g", "a2-ultragpu-8g"}) {
      f.History("ghcr.io/acme/eval-13b:1.0", "A100 80GB", machine, 30, 1, false);
    }
    f.History("ghcr.io/acme/eval-13b:1.0", "A100 80GB", "gpu-a100-80", 79, 1, false);
    const auto plan = f.Plan("eval-13b", 1, 48);
    CHECK(Ids(plan.ladder).empty());
    CHECK_THAT(PrunedReasons(plan).at("gcp/a2-ultragpu-1g/flex-start"),
               Catch::Contains("needs 86.9 GiB GPU memory per shard (learned on A100 80GB, width "
                               "unknown: at least that on one GPU)"));
  }
}

TEST_CASE(
    "router: the no-fit message suggests no width whose rungs its quotas prune, and says "
    "which width its need is at",
    "[router][engine]") {
  RouterFixture f;
  f.History("ghcr.io/acme/eval-13b:1.0", "A100 80GB", "a2-ultragpu-1g", 79);
  f.History("ghcr.io/acme/eval-13b:1.0", "A100 80GB", "a2-ultragpu-2g", 50, 2);
  REQUIRE(hwrec::ImportRouterConfig(*f.store, R"({"quotas": [
      {"gpu_model": "A100 80GB", "class": "preemptible", "gpus": 1},
      {"gpu_model": "A100 80GB", "class": "on_demand", "gpus": 1},
      {"gpu_model": "H100 80GB", "class": "preemptible", "gpus": 1}]})")
              .ok());
  const auto narrow = f.Plan("eval-13b", 1, 48);
  REQUIRE_FALSE(narrow.no_fit.empty());
  CHECK_THAT(narrow.no_fit, !Catch::Contains("--width 2"));  // its 2-wide rungs exceed the quota
  const auto wide = f.Plan("eval-13b", 2, 48);
  REQUIRE_FALSE(wide.no_fit.empty());
  CHECK_THAT(wide.no_fit, Catch::Contains("at width 1 it needs 86.9 GiB GPU memory per shard"));
  CHECK_THAT(wide.no_fit, Catch::Contains("A100 80GB could hold one, but its rungs were pruned"));
  CHECK_THAT(wide.no_fit, !Catch::Contains("shard the work"));
}

TEST_CASE("router: the no-fit message credits the need to the card it was learned on",
          "[router][engine]") {
  RouterFixture f;
  // 8 wide: 89.1 GB per GPU on A100 80GB, 86.9 GB on H100 80GB; both cards hold 80 GB.
  f.History("ghcr.io/acme/eval-13b:1.0", "A100 80GB", "a2-ultragpu-8g", 81, 8);
  f.History("ghcr.io/acme/eval-13b:1.0", "H100 80GB", "a3-highgpu-8g", 79, 8);
  const auto plan = f.Plan("eval-13b", 8, 48);
  REQUIRE(Ids(plan.ladder).empty());
  // Each card is sized by its own figure; of the two 80 GB cards the smaller
  // need is the one to beat, credited to the card it was learned on.
  CHECK_THAT(plan.no_fit, Catch::Contains("86.9 GiB GPU memory per shard (learned on H100 80GB at "
                                          "width 8)"));
  CHECK_THAT(plan.no_fit, !Catch::Contains("86.9 GiB GPU memory per shard (learned on A100 80GB"));
  CHECK_THAT(PrunedReasons(plan).at("gcp/a2-ultragpu-8g/flex-start"),
             Catch::Contains("89.1 GiB GPU memory per shard (learned on A100 80GB at width 8)"));
}

TEST_CASE("router: without --sharded a no-fit says to declare it, not that wide rungs held",
          "[router][engine]") {
  RouterFixture f;
  // 86.9 GB at width 1: no width-1 rung holds it; the wide rungs have no figure of their own.
  f.History("ghcr.io/acme/eval-13b:1.0", "A100 80GB", "a2-ultragpu-1g", 79);
  auto snapshot = hwrec::RouterSnapshot::Load(*f.store);
  REQUIRE(snapshot.ok());
  auto plan = hwrec::BuildLadder(*snapshot, {"eval-13b", 8, 48, false});
  REQUIRE(plan.ok());
  CHECK(plan->ladder.empty());
  const auto reasons = PrunedReasons(*plan);
  CHECK_THAT(reasons.at("gcp/a2-ultragpu-8g/flex-start"),
             Catch::Contains("width 8 needs a sharded launch command"));
  // The width-1 chain cannot hold a shard: asking for width 1 would not help.
  CHECK_THAT(reasons.at("gcp/a2-ultragpu-8g/flex-start"), !Catch::Contains("ask for width 1"));
  CHECK_THAT(plan->no_fit, Catch::Contains("--sharded"));
  CHECK_THAT(plan->no_fit, !Catch::Contains("pruned for other reasons"));
  // No wide rung reached the ladder, so no figure was "not used" for one.
  CHECK_FALSE(AnyNoteContains(*plan, "not used to prune"));
}

TEST_CASE("router: the no-fit message suggests only widths whose rungs would be built",
          "[router][engine]") {
  RouterFixture f;
  // eval-7b's own single-GPU card is A100 40GB: 86.9 GB at widths 1 and 2 fits no card.
  f.History("ghcr.io/acme/eval-7b:1.0", "A100 80GB", "a2-ultragpu-1g", 79);
  f.History("ghcr.io/acme/eval-7b:1.0", "A100 80GB", "a2-ultragpu-2g", 79, 2);
  const auto plan = f.Plan("eval-7b", 2, 48);
  REQUIRE(Ids(plan.ladder).empty());
  CHECK_THAT(plan.no_fit, !Catch::Contains("--width 1"));
  CHECK_THAT(plan.no_fit, Catch::Contains("shard the work"));
}

TEST_CASE("router: a card too small for one shard is pruned with the first reason that applies",
          "[router][engine]") {
  RouterFixture f;
  f.HistoryAtEveryWidth("ghcr.io/acme/capture-7b:1.0", 79);
  const auto plan = f.Plan("capture-7b", 8, 8 * 24);  // very long
  const auto reasons = PrunedReasons(plan);
  CHECK_THAT(reasons.at("gcp/a3-highgpu-8g/standard"),
             Catch::Contains("offered with SPOT or FLEX_START only"));
  CHECK_THAT(reasons.at("gcp/a2-ultragpu-8g/flex-start"),
             Catch::Contains("FLEX_START runs at most 168 h"));
  CHECK_THAT(reasons.at("gcp/a2-ultragpu-8g/spot"), Catch::Contains("needs 86.9 GiB GPU memory"));
  // Unsharded, a too-small card says so rather than asking for a sharded launch command.
  f.HistoryAtEveryWidth("ghcr.io/acme/eval-7b:1.0", 55);
  auto snapshot = hwrec::RouterSnapshot::Load(*f.store);
  REQUIRE(snapshot.ok());
  auto eval = hwrec::BuildLadder(*snapshot, {"eval-7b", 4, 2, false});
  REQUIRE(eval.ok());
  CHECK(PrunedReasons(*eval).at("gcp/a2-highgpu-4g/spot") ==
        "needs 60.5 GiB GPU memory per shard (learned on A100 80GB at width 4); A100 40GB offers "
        "40 GiB");
  CHECK_THAT(PrunedReasons(*eval).at("gcp/a2-ultragpu-4g/spot"),
             Catch::Contains("needs a sharded launch command"));
}

TEST_CASE("router: each machine type of a card and width is a rung of its own",
          "[router][engine]") {
  RouterFixture f;
  // A second one-GPU A100 80GB machine, sorting before the intents' legacy
  // a2-ultragpu-1g, and an eight-GPU H100 machine offered on demand beside
  // A3 High (SPOT and FLEX_START only).
  const auto imported = hwrec::ImportRouterConfig(*f.store, R"({"gcp_machines": [
      {"machine_type": "a2-custom-1g", "gpu_brand": "NVIDIA", "gpu_model": "A100 80GB",
       "gpu_count": 1, "vcpus": 12, "memory_gb": 170, "provisioning": ["SPOT", "STANDARD"]},
      {"machine_type": "a3-megagpu-8g", "gpu_brand": "NVIDIA", "gpu_model": "H100 80GB",
       "gpu_count": 8, "vcpus": 208, "memory_gb": 1872,
       "provisioning": ["SPOT", "FLEX_START", "STANDARD"]}]})");
  INFO(imported.message());
  REQUIRE(imported.ok());
  f.HistoryAtEveryWidth("ghcr.io/acme/capture-7b:1.0", 40);
  // Width 1 is the legacy ladder: the intent's own machine.
  const std::vector<std::string> one = Ids(f.Plan("capture-7b", 1, 2).ladder);
  CHECK(std::find(one.begin(), one.end(), "gcp/a2-ultragpu-1g/spot") != one.end());
  for (const std::string& id : one) CHECK(id.find("a2-custom-1g") == std::string::npos);
  // Eight wide and long: the second H100 machine is a rung of its own, and
  // its STANDARD rung is judged on its own offer (then pruned by the seeded
  // on-demand quota), not refused for A3 High's.
  const auto wide = f.Plan("capture-7b", 8, 8 * 24);
  const std::vector<std::string> ids = Ids(wide.ladder);
  CHECK(std::find(ids.begin(), ids.end(), "gcp/a3-megagpu-8g/spot") != ids.end());
  const auto pruned = PrunedReasons(wide);
  CHECK_THAT(pruned.at("gcp/a3-highgpu-8g/standard"),
             Catch::Contains("offered with SPOT or FLEX_START only"));
  CHECK_THAT(pruned.at("gcp/a3-megagpu-8g/standard"),
             Catch::StartsWith("quota NVIDIA_H100_GPUS admits 0 GPU(s)"));
}

TEST_CASE("router: the no-fit message names the card that could hold a shard and what pruned it",
          "[router][engine]") {
  RouterFixture f;
  // A lane of a card large enough for a shard, granting one GPU: pruned for width; and an L4
  // lane, too small anyway.
  REQUIRE(hwrec::ImportRouterConfig(*f.store, R"({"slurm_lanes": [{"lane": "h200", "position": 3,
      "partition": "gpu-h200", "gpu_brand": "NVIDIA", "gpu_model": "H200 141GB", "max_gpus": 1},
      {"lane": "l4", "position": 4, "partition": "gpu-l4", "gpu_brand": "NVIDIA",
      "gpu_model": "L4", "max_gpus": 1}],
      "intents": [{"intent": "lora-70b", "workload_image": "ghcr.io/acme/lora-70b:1.0",
      "legacy_machine": "a2-ultragpu-1g", "min_width": 8}]})")
              .ok());
  f.History("ghcr.io/acme/lora-70b:1.0", "A100 80GB", "a2-ultragpu-8g", 79, 8);
  auto snapshot = hwrec::RouterSnapshot::Load(*f.store);
  REQUIRE(snapshot.ok());
  auto plan = hwrec::BuildLadder(*snapshot, {"lora-70b", 8, 48, true});
  REQUIRE(plan.ok());
  CHECK(plan->ladder.empty());
  CHECK_THAT(PrunedReasons(*plan).at("slurm/h200"), Catch::Contains("at most 1 GPU(s)"));
  CHECK_THAT(PrunedReasons(*plan).at("slurm/l4"), Catch::Contains("at most 1 GPU(s)"));
  CHECK_THAT(plan->no_fit, Catch::Contains("86.9 GiB GPU memory per shard"));
  CHECK_THAT(plan->no_fit, Catch::Contains("H200 141GB"));
  CHECK_THAT(plan->no_fit, Catch::Contains("lane grants at most 1 GPU(s)"));
  CHECK_THAT(plan->no_fit, !Catch::Contains("L4"));
  // A card that holds a shard is configured: adding one would not help.
  CHECK_THAT(plan->no_fit, !Catch::Contains("add a machine type"));
  const auto cli = hwrec::test::RunCli("route " + hwrec::test::ShellQuote(f.path) +
                                       " --intent lora-70b --width 8 --length 2d --sharded");
  CHECK(cli.exit_code == 5);
  CHECK_THAT(cli.err, Catch::Contains("H200 141GB"));
}

TEST_CASE("router: a card the workload never ran on gets GPU memory transferred, said so",
          "[router][transfer][engine]") {
  RouterFixture f;
  f.ImportLora(1);
  // Four workloads seen on both cards need a fifth more GPU memory on the
  // H100; lora-70b ran on the A100 only. Records that do not say how many
  // GPUs they held: the figures of every width.
  for (int w = 0; w < 4; ++w) {
    const std::string image = fmt::format("ghcr.io/acme/job-{}:1", w);
    f.History(image, "A100 80GB", "a2-ultragpu-1g", 20 + 5 * w, 1, false);
    f.History(image, "H100 80GB", "a3-highgpu-1g", (20 + 5 * w) * 1.2, 1, false);
  }
  f.History("ghcr.io/acme/lora-70b:1.0", "A100 80GB", "a2-ultragpu-1g", 40, 1, false);
  const auto need_on_h100 = [&] {
    auto snapshot = hwrec::RouterSnapshot::Load(*f.store);
    REQUIRE(snapshot.ok());
    return snapshot->needs.at("lora-70b").at({"H100 80GB", 1});
  };
  // With transfer off the A100's figure stands for the H100, as learned on other cards.
  REQUIRE(hwrec::SetConfig(*f.store, "gpu_memory.transfer", "false").ok());
  const hwrec::CardNeed before = need_on_h100();
  CHECK(before.provenance == hwrec::Provenance::kWorkloadAnyHardware);
  CHECK(before.learned_on == "A100 80GB");

  REQUIRE(hwrec::SetConfig(*f.store, "gpu_memory.transfer", "true").ok());
  const hwrec::CardNeed after = need_on_h100();
  CHECK(after.provenance == hwrec::Provenance::kTransferred);
  CHECK(after.learned_on == "A100 80GB x1.20 by transfer");
  REQUIRE(after.gpu_memory_gb.has_value());
  REQUIRE(before.gpu_memory_gb.has_value());
  // Above the A100's, by about the factor and the transferred figure's margin.
  CHECK(*after.gpu_memory_gb > *before.gpu_memory_gb * 1.1);
}

TEST_CASE("router: GPU memory transfers at each width the workload ran at, as placement asks it",
          "[router][transfer][engine]") {
  RouterFixture f;
  f.ImportLora(1);
  // As above, but every record says how many GPUs it held; lora-70b ran on
  // one A100 at 40 GB and on eight at 60 GB per GPU.
  for (int w = 0; w < 4; ++w) {
    const std::string image = fmt::format("ghcr.io/acme/job-{}:1", w);
    f.History(image, "A100 80GB", "a2-ultragpu-1g", 20 + 5 * w, 1);
    f.History(image, "H100 80GB", "a3-highgpu-1g", (20 + 5 * w) * 1.2, 1);
  }
  const std::string lora = "ghcr.io/acme/lora-70b:1.0";
  f.History(lora, "A100 80GB", "a2-ultragpu-1g", 40, 1);
  f.History(lora, "A100 80GB", "a2-ultragpu-8g", 60, 8);
  auto snapshot = hwrec::RouterSnapshot::Load(*f.store);
  REQUIRE(snapshot.ok());
  auto query = hwrec::RecommendationQuery::Open(*f.store);
  REQUIRE(query.ok());
  hwrec::HardwareKey h100;
  h100.gpu_brand = "NVIDIA";
  h100.gpu_model = "H100 80GB";
  for (int width : {1, 8}) {
    INFO("width " << width);
    const hwrec::CardNeed& need = snapshot->needs.at("lora-70b").at({"H100 80GB", width});
    CHECK(need.provenance == hwrec::Provenance::kTransferred);
    CHECK(need.learned_width == width);
    CHECK(need.learned_on == "A100 80GB x1.20 by transfer");
    // The need placement reads for the same card and width.
    auto placed = (*query)->Recommend(lora, h100, std::nullopt, hwrec::Explain::kNo, width);
    REQUIRE(placed.ok());
    const hwrec::Figure& figure = placed->figure(hwrec::FigureKind::kGpuMemoryGb);
    CHECK(figure.provenance == hwrec::Provenance::kTransferred);
    REQUIRE(need.gpu_memory_gb.has_value());
    REQUIRE(figure.value.has_value());
    CHECK(*need.gpu_memory_gb == Approx(*figure.value));
  }
  // Eight GPUs' share is above one's, each about a fifth above the A100's.
  CHECK(*snapshot->needs.at("lora-70b").at({"H100 80GB", 8}).gpu_memory_gb >
        *snapshot->needs.at("lora-70b").at({"H100 80GB", 1}).gpu_memory_gb);
  CHECK(*snapshot->needs.at("lora-70b").at({"H100 80GB", 1}).gpu_memory_gb > 40 * 1.1);
}
