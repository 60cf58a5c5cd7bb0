// hwrec route as a dispatcher runs it: the sharded launch command a wide
// request needs, the exit codes of a walk (--simulate, --record), recording a
// walk's outcomes into the store's day state, and the backend-selected event.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "test_support.h"

using hwrec::test::RunCli;
using hwrec::test::ShellQuote;
using Json = nlohmann::json;

namespace {

constexpr const char* kDay = "2026-07-08";

struct RouteStore {
  hwrec::test::TempDir dir;
  std::string store = ShellQuote(dir.File("route.db"));

  RouteStore() { REQUIRE(RunCli("init " + store).exit_code == 0); }

  // A file in the scratch directory, shell-quoted.
  std::string File(const std::string& name, const std::string& text) const {
    hwrec::test::WriteFile(dir.File(name), text);
    return ShellQuote(dir.File(name));
  }
  hwrec::test::CommandResult Route(const std::string& args, const std::string& stdin_text = "") {
    return RunCli("route " + store + " " + args, stdin_text);
  }
};

std::string Outcome(const std::string& rung, const std::string& outcome,
                    const std::string& detail = "") {
  return Json{{"rung", rung}, {"outcome", outcome}, {"detail", detail}}.dump() + "\n";
}

}  // namespace

TEST_CASE("cli route: a wide request without a sharded launch command keeps only width-1 rungs",
          "[router][cli]") {
  RouteStore s;
  const auto narrow = s.Route("--intent capture-7b --width 8 --length 2d --format json");
  INFO(narrow.err);
  REQUIRE(narrow.exit_code == 0);
  const Json plan = Json::parse(narrow.out);
  CHECK(plan["requested_width"] == 8);
  for (const Json& rung : plan["ladder"]) CHECK(rung["width"] == 1);
  std::set<std::string> refused;
  for (const Json& p : plan["pruned"]) {
    const std::string reason = p["reason"];
    if (reason.find("needs a sharded launch command") != std::string::npos) refused.insert(p["id"]);
  }
  CHECK(refused.count("gcp/a2-ultragpu-8g/flex-start") == 1);
  CHECK(refused.count("gcp/a2-ultragpu-4g/spot") == 1);
  CHECK(refused.count("gcp/a2-ultragpu-2g/standard") == 1);
  CHECK(refused.size() == 9);  // three provisioning models at 8, 4 and 2 wide

  const auto wide = s.Route("--intent capture-7b --width 8 --length 2d --sharded --format json");
  REQUIRE(wide.exit_code == 0);
  CHECK(Json::parse(wide.out)["ladder"][0]["id"] == "gcp/a2-ultragpu-8g/flex-start");
  CHECK(Json::parse(wide.out)["pruned"].size() == 1);  // the small SLURM lane only

  // An intent that never runs on one GPU cannot downsize: the request is refused.
  const std::string intent = s.File("lora-70b.json", R"({"intents": [{"intent": "lora-70b",
      "workload_image": "ghcr.io/acme/lora-70b:1.0", "legacy_machine": "a2-ultragpu-1g",
      "min_width": 2}]})");
  REQUIRE(RunCli("route config import " + s.store + " " + intent).exit_code == 0);
  const auto refused_request = s.Route("--intent lora-70b --width 4 --length 1d");
  CHECK(refused_request.exit_code == 1);
  CHECK(refused_request.err.find("--sharded") != std::string::npos);
  CHECK(s.Route("--intent lora-70b --width 4 --length 1d --sharded").exit_code == 0);
}

TEST_CASE("cli route: --simulate exits 0 when launched, 6 when nothing launched, 7 when stopped",
          "[router][cli]") {
  RouteStore s;
  const std::string launched = s.File("launched.json", R"({"available": ["slurm/*"]})");
  const std::string nothing = s.File("nothing.json", R"({"available": []})");
  const std::string denied = s.File(
      "denied.json", R"({"failures": {"gcp/a2-highgpu-1g/flex-start": "permission_error"}})");
  const std::string args = "--intent eval-7b --width 1 --length 1h --simulate ";
  CHECK(s.Route(args + launched).exit_code == 0);
  const auto missed = s.Route(args + nothing);
  CHECK(missed.exit_code == 6);
  CHECK(missed.out.find("no rung launched") != std::string::npos);
  const auto stopped = s.Route(args + denied + " --format json");
  CHECK(stopped.exit_code == 7);
  CHECK(Json::parse(stopped.out)["stopped"] == true);
}

TEST_CASE("cli route: --record writes the walk's GCP attempt and quota block into the store",
          "[router][cli]") {
  RouteStore s;
  const std::string walk = std::string("--intent capture-7b --width 8 --length 3h --sharded ") +
                           "--record --day " + kDay + " --format json";
  const std::string outcomes = Outcome("gcp/a2-ultragpu-8g/spot", "quota_exceeded",
                                       "Quota 'PREEMPTIBLE_NVIDIA_A100_80GB_GPUS' exceeded") +
                               Outcome("gcp/a2-ultragpu-8g/standard", "capacity_miss") +
                               Outcome("gcp/a2-ultragpu-4g/spot", "capacity_miss") +
                               Outcome("gcp/a2-ultragpu-4g/flex-start", "capacity_miss") +
                               Outcome("gcp/a2-ultragpu-4g/standard", "launched", "vm-17");
  const auto first = s.Route(walk, outcomes);
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  const Json result = Json::parse(first.out);
  CHECK(result["selected"] == "gcp/a2-ultragpu-4g/standard");
  CHECK(result["attempts"][0]["outcome"] == "quota_exceeded");
  CHECK(result["attempts"][1]["outcome"] == "skipped_quota_exhausted");  // 8-wide flex-start
  CHECK(result["attempts"][2]["outcome"] == "capacity_miss");

  const auto show = RunCli("route config show " + s.store + " --day " + kDay);
  INFO(show.err);
  REQUIRE(show.exit_code == 0);
  CHECK(show.out.find(fmt::format("day {} (UTC): 1 GCP attempt(s)", kDay)) != std::string::npos);
  CHECK(show.out.find("exhausted: A100 80GB/preemptible, rungs of 8 or more GPUs: Quota "
                      "'PREEMPTIBLE_NVIDIA_A100_80GB_GPUS' exceeded") != std::string::npos);

  // Later the same day the block stands: the 8-wide preemptible rungs are skipped.
  const auto second = s.Route(walk, Outcome("gcp/a2-ultragpu-8g/standard", "launched"));
  INFO(second.err);
  REQUIRE(second.exit_code == 0);
  const Json again = Json::parse(second.out);
  CHECK(again["attempts"][0]["outcome"] == "skipped_quota_exhausted");
  CHECK(again["selected"] == "gcp/a2-ultragpu-8g/standard");
  CHECK(RunCli("route config show " + s.store + " --day " + kDay).out.find("2 GCP attempt(s)") !=
        std::string::npos);
}

TEST_CASE("cli route: --record stops at the first rung without an outcome and exits 6",
          "[router][cli]") {
  RouteStore s;
  const std::string file =
      s.File("outcomes.jsonl", Outcome("gcp/a2-highgpu-1g/spot", "capacity_miss", "no A100"));
  const auto r = s.Route(std::string("--intent eval-7b --width 1 --length 1h --record --day ") +
                         kDay + " --outcomes " + file + " --format json");
  INFO(r.err);
  CHECK(r.exit_code == 6);
  const Json result = Json::parse(r.out);
  REQUIRE(result["attempts"].size() == 2);
  CHECK(result["attempts"][0]["detail"] == "no A100");
  CHECK(result["attempts"][1]["id"] == "gcp/a2-highgpu-1g/flex-start");
  CHECK(result["attempts"][1]["outcome"] == "not_tried");
  CHECK(result["stopped"] == false);
  CHECK(result["selected"].is_null());

  const auto stopped =
      s.Route(std::string("--intent eval-7b --width 1 --length 1h --record --day ") + kDay,
              Outcome("gcp/a2-highgpu-1g/spot", "workload_failure", "exit 137"));
  CHECK(stopped.exit_code == 7);
  CHECK(stopped.out.find("stopped: the failure is not a capacity miss") != std::string::npos);
}

TEST_CASE("cli route: --record refuses outcomes it cannot place on the ladder, writing nothing",
          "[router][cli]") {
  RouteStore s;
  const std::string walk =
      std::string("--intent eval-7b --width 1 --length 1h --record --day ") + kDay;
  const auto off_ladder = s.Route(walk, Outcome("gcp/a2-highgpu-1g/spot", "capacity_miss") +
                                            Outcome("gcp/a2-ultragpu-8g/spot", "launched"));
  CHECK(off_ladder.exit_code == 1);
  CHECK(off_ladder.err.find("line 2") != std::string::npos);
  CHECK(off_ladder.err.find("\"rung\"") != std::string::npos);
  CHECK(off_ladder.err.find("not on this dispatch's ladder") != std::string::npos);
  CHECK(off_ladder.err.find("gcp/a2-highgpu-1g/flex-start") != std::string::npos);  // the fix

  const auto bad_outcome = s.Route(walk, Outcome("gcp/a2-highgpu-1g/spot", "sold_out"));
  CHECK(bad_outcome.exit_code == 1);
  CHECK(bad_outcome.err.find("\"outcome\"") != std::string::npos);
  CHECK(bad_outcome.err.find("capacity_miss") != std::string::npos);

  const auto twice = s.Route(walk, Outcome("gcp/a2-highgpu-1g/spot", "capacity_miss") +
                                       Outcome("gcp/a2-highgpu-1g/spot", "launched"));
  CHECK(twice.exit_code == 1);
  CHECK(twice.err.find("twice") != std::string::npos);

  CHECK(s.Route(walk, "").exit_code == 1);
  CHECK(s.Route(walk + " --simulate x.json").exit_code == 2);
  CHECK(s.Route("--intent eval-7b --width 1 --length 1h --outcomes x.jsonl").exit_code == 2);

  const auto show = RunCli("route config show " + s.store + " --day " + kDay);
  CHECK(show.out.find("0 GCP attempt(s)") != std::string::npos);
}

TEST_CASE("cli route: --record of a walk that never tried GCP counts no GCP attempt",
          "[router][cli]") {
  RouteStore s;
  const std::string walk = std::string("--intent eval-7b --width 1 --length 1h --record --day ") +
                           kDay + " --format json";
  // The dispatcher did not try the first GCP rung: the walk ends there, exit 6.
  const auto r = s.Route(walk, Outcome("gcp/a2-highgpu-1g/spot", "not_tried"));
  INFO(r.err);
  CHECK(r.exit_code == 6);
  const Json result = Json::parse(r.out);
  CHECK(result["counted_gcp_attempt"] == false);
  CHECK(result["attempts"].size() == 1);
  CHECK(RunCli("route config show " + s.store + " --day " + kDay).out.find("0 GCP attempt(s)") !=
        std::string::npos);
  // A SLURM launch the walk cannot reach past the untried GCP rung is refused,
  // and nothing is counted either.
  const auto slurm_only = s.Route(walk, Outcome("slurm/a100-80gb", "launched"));
  CHECK(slurm_only.exit_code == 1);
  CHECK(slurm_only.err.find("stdin line 1") != std::string::npos);
  CHECK(slurm_only.err.find("ended at 'gcp/a2-highgpu-1g/spot' (not_tried), before that rung") !=
        std::string::npos);
  CHECK(RunCli("route config show " + s.store + " --day " + kDay).out.find("0 GCP attempt(s)") !=
        std::string::npos);
}

TEST_CASE("cli route: --record writes what happened, even where the day's state would skip",
          "[router][cli]") {
  RouteStore s;
  const std::string walk = std::string("--intent capture-7b --width 8 --length 3h --sharded ") +
                           "--record --day " + kDay + " --format json";
  const auto day = [&] {
    const auto r = RunCli("route config day " + s.store + " --day " + kDay + " --format json");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return Json::parse(r.out);
  };

  // An outcome after the rung that launched cannot have happened: refused whole.
  const auto after_launch =
      s.Route(walk, Outcome("gcp/a2-ultragpu-8g/spot", "launched") +
                        Outcome("gcp/a2-ultragpu-8g/standard", "quota_exceeded", "Quota exceeded"));
  CHECK(after_launch.exit_code == 1);
  CHECK(after_launch.out.empty());
  CHECK(after_launch.err.find("nothing was recorded") != std::string::npos);
  CHECK(after_launch.err.find("stdin line 2") != std::string::npos);
  CHECK(after_launch.err.find("ended at 'gcp/a2-ultragpu-8g/spot' (launched), before that rung") !=
        std::string::npos);
  CHECK(day()["gcp_attempts"] == 0);
  // A line saying a rung was not tried agrees with a walk that never reached it.
  const auto launched = s.Route(walk, Outcome("gcp/a2-ultragpu-8g/spot", "launched") +
                                          Outcome("gcp/a2-ultragpu-8g/flex-start", "not_tried"));
  INFO(launched.err);
  CHECK(launched.exit_code == 0);
  CHECK(day()["gcp_attempts"] == 1);

  // The day's cap is used up, yet the dispatcher tried GCP and found the
  // preemptible quota exhausted: the attempt counts past the cap, the block is kept.
  REQUIRE(RunCli("route config set " + s.store + " gcp_daily_attempt_cap 1").exit_code == 0);
  const auto capped = s.Route(walk, Outcome("gcp/a2-ultragpu-8g/spot", "quota_exceeded",
                                            "PREEMPTIBLE_NVIDIA_A100_80GB_GPUS") +
                                        Outcome("gcp/a2-ultragpu-8g/standard", "launched"));
  INFO(capped.err);
  REQUIRE(capped.exit_code == 0);
  const Json result = Json::parse(capped.out);
  CHECK(result["counted_gcp_attempt"] == true);
  CHECK(result["attempts"][0]["outcome"] == "quota_exceeded");
  CHECK(result["attempts"][0]["detail"] ==
        "PREEMPTIBLE_NVIDIA_A100_80GB_GPUS (tried although the daily GCP attempt cap (1) is used "
        "up for today)");
  CHECK(result["attempts"][1]["outcome"] == "skipped_quota_exhausted");  // 8-wide flex-start
  CHECK(result["selected"] == "gcp/a2-ultragpu-8g/standard");
  Json state = day();
  CHECK(state["gcp_attempts"] == 2);
  REQUIRE(state["quota_blocks"].size() == 1);
  CHECK(state["quota_blocks"][0] == Json::parse(R"({"gpu_model": "A100 80GB",
      "quota_class": "preemptible", "gpus": 8, "reason": "PREEMPTIBLE_NVIDIA_A100_80GB_GPUS"})"));

  // The quota is blocked at 8: a dispatcher that respected it skipped the
  // 8-wide preemptible rungs (no line for them) ...
  REQUIRE(RunCli("route config set " + s.store + " gcp_daily_attempt_cap 5").exit_code == 0);
  const auto respected = s.Route(walk, Outcome("gcp/a2-ultragpu-8g/standard", "launched"));
  INFO(respected.err);
  REQUIRE(respected.exit_code == 0);
  CHECK(Json::parse(respected.out)["attempts"][0]["outcome"] == "skipped_quota_exhausted");
  // ... and one that tried one anyway and found it at 4 GPUs lowers the block.
  const auto again = s.Route(walk, Outcome("gcp/a2-ultragpu-8g/spot", "capacity_miss") +
                                       Outcome("gcp/a2-ultragpu-8g/standard", "capacity_miss") +
                                       Outcome("gcp/a2-ultragpu-4g/spot", "quota_exceeded", "4") +
                                       Outcome("gcp/a2-ultragpu-4g/standard", "launched"));
  INFO(again.err);
  REQUIRE(again.exit_code == 0);
  CHECK(Json::parse(again.out)["attempts"][0]["detail"].get<std::string>().find(
            "(tried although A100 80GB preemptible quota was found exhausted today at 8") !=
        std::string::npos);
  state = day();
  CHECK(state["gcp_attempts"] == 4);
  CHECK(state["quota_blocks"][0]["gpus"] == 4);
}

TEST_CASE("cli route: --record takes today or an earlier day, not a future one", "[router][cli]") {
  RouteStore s;
  const auto r = s.Route("--intent eval-7b --width 1 --length 1h --record --day 2999-01-01",
                         Outcome("gcp/a2-highgpu-1g/spot", "launched"));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--day 2999-01-01 is in the future") != std::string::npos);
  CHECK(RunCli("route config show " + s.store + " --day 2999-01-01").out.find("0 GCP attempt(s)") !=
        std::string::npos);
}

TEST_CASE("cli route: the JSON says whether the plan is sharded and whether the walk counted",
          "[router][cli]") {
  RouteStore s;
  const std::string capacity = s.File("slurm.json", R"({"available": ["slurm/*"]})");
  const auto plain = s.Route("--intent eval-7b --width 1 --length 1h --format json");
  REQUIRE(plain.exit_code == 0);
  CHECK(Json::parse(plain.out)["sharded"] == false);
  CHECK(Json::parse(plain.out).count("counted_gcp_attempt") == 0);  // no walk
  const auto walked = s.Route("--intent capture-7b --width 8 --length 3h --sharded --simulate " +
                              capacity + " --format json");
  REQUIRE(walked.exit_code == 0);
  const Json result = Json::parse(walked.out);
  CHECK(result["sharded"] == true);
  CHECK(result["counted_gcp_attempt"] == true);  // GCP rungs were tried before SLURM
}

TEST_CASE("cli route: a degraded launch's backend-selected event carries the realized width",
          "[router][cli]") {
  RouteStore s;
  const std::string capacity = s.File("two.json", R"({"available": ["gcp/a2-ultragpu-2g/*"]})");
  const auto r = s.Route("--intent capture-7b --width 8 --length 2d --sharded --simulate " +
                         capacity + " --format json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const Json event = Json::parse(r.out)["event"];
  CHECK(event == Json::parse(R"({"event": "backend-selected", "intent": "capture-7b",
      "rung": "gcp/a2-ultragpu-2g/flex-start", "backend": "gcp", "machine_type": "a2-ultragpu-2g",
      "gpu_model": "A100 80GB", "provisioning": "FLEX_START", "requested_width": 8,
      "realized_width": 2, "degraded": true, "sharded": true})"));

  // Without a sharded launch command the request downsizes to one GPU, and says so.
  const auto narrow =
      s.Route("--intent capture-7b --width 8 --length 2d --simulate " +
              s.File("one.json", R"({"available": ["gcp/a2-ultragpu-1g/*"]})") + " --format json");
  REQUIRE(narrow.exit_code == 0);
  const Json downsized = Json::parse(narrow.out)["event"];
  CHECK(downsized["realized_width"] == 1);
  CHECK(downsized["requested_width"] == 8);
  CHECK(downsized["degraded"] == true);
  CHECK(downsized["sharded"] == false);
}

TEST_CASE(
    "cli route: a length is read to the whole second and printed so; one second past a "
    "bound reads as past it",
    "[router][cli]") {
  RouteStore s;
  const auto just_past = s.Route("--intent capture-7b --width 1 --length 168h1s --explain");
  INFO(just_past.err);
  REQUIRE(just_past.exit_code == 0);
  CHECK_THAT(just_past.out,
             Catch::Contains("length 168.0003 h (very_long)") &&
                 Catch::Contains("FLEX_START runs at most 168 h; this job is expected to run "
                                 "168.0003 h"));
  // A fraction of a second past 168 h is 168 h: long, not very long.
  const auto on_bound = s.Route("--intent capture-7b --width 1 --length 168.0000001h");
  REQUIRE(on_bound.exit_code == 0);
  CHECK_THAT(on_bound.out, Catch::Contains("length 168 h (long)"));
  const auto minutes = s.Route("--intent capture-7b --width 1 --length 10m");
  REQUIRE(minutes.exit_code == 0);
  CHECK_THAT(minutes.out, Catch::Contains("length 0.1667 h (short)"));
  const auto json = s.Route("--intent capture-7b --width 1 --length 168.0000001h --format json");
  REQUIRE(json.exit_code == 0);
  CHECK(Json::parse(json.out)["length_hours"] == 168.0);
}
