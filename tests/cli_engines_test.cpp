// Every command of the CLI on the suite's engine: the commands are read from
// `hwrec --help` (the CLI's one list of them), and each has invocations here
// that run on a store of that engine, a PostgreSQL one under
// scripts/with_pg.sh. A command added to the CLI without one fails this test.
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.h"

namespace hwrec::cli_engines_test {

namespace {

// The command names `hwrec --help` lists under "Commands:".
std::vector<std::string> ListedCommands() {
  const test::CommandResult help = test::RunCli("--help");
  REQUIRE(help.exit_code == 0);
  std::vector<std::string> names;
  std::istringstream lines(help.out);
  std::string line;
  bool in_commands = false;
  while (std::getline(lines, line)) {
    if (line == "Commands:") {
      in_commands = true;
      continue;
    }
    if (!in_commands) continue;
    if (line.rfind("  ", 0) != 0) break;  // the list ends at the next heading
    std::istringstream words(line);
    std::string name;
    words >> name;
    names.push_back(name);
  }
  return names;
}

struct Invocation {
  std::string args;  // {store}, {copy} and {dir} are replaced
  int exit_code = 0;
};

std::string Expand(std::string args, const std::map<std::string, std::string>& values) {
  for (const auto& [name, value] : values) {
    for (std::size_t at = args.find(name); at != std::string::npos; at = args.find(name)) {
      args.replace(at, name.size(), value);
    }
  }
  return args;
}

void Write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

}  // namespace

TEST_CASE("cli: every command runs on a store of the suite's engine", "[cli][engine]") {
  test::TempDir dir;
  const std::map<std::string, std::string> values = {
      {"{store}", test::ShellQuote(test::NewStoreLocation(dir, "cli.db"))},
      {"{copy}", test::ShellQuote(test::NewStoreLocation(dir, "copy.db"))},
      {"{dir}", test::ShellQuote(dir.File(""))},
      {"{examples}", test::ShellQuote(test::SourcePath("examples"))},
  };
  Write(dir.File("candidates.json"),
        R"([{"node_pool_id": "sitea-a30-mig"}, {"node_pool_id": "sitea-a100-80gb"}])");
  Write(dir.File("catalog.csv"),
        "brand,model,card_memory_gb,card_compute_slices,mode,memory_gb,compute_slices\n"
        "NVIDIA,RTX 6000 Ada,48,1,full,48,1\n");
  Write(dir.File("router.json"),
        R"({"intents": [{"intent": "etl-1", "workload_image": "ghcr.io/acme/feature-etl:0.9",
            "legacy_machine": "a2-highgpu-1g", "min_width": 1}]})");
  // In order: each command may rely on what the ones before it wrote.
  const std::vector<std::pair<std::string, std::vector<Invocation>>> runs = {
      {"init", {{"init {store}"}}},
      {"migrate", {{"migrate {store}"}, {"migrate {store} --dry-run"}}},
      {"pools", {{"pools import {store} {examples}/pools.jsonl"}, {"pools list {store}"}}},
      // The bundled observations hold rejects on purpose: exit 3.
      {"ingest", {{"ingest {store} {examples}/observations.jsonl", 3}}},
      {"status", {{"status {store}"}, {"status {store} --format json"}}},
      {"check", {{"check {store}"}}},
      {"recommend",
       {{"recommend {store} --image ghcr.io/acme/resnet-infer:1.8 --pool sitea-a30-mig --explain"},
        {"recommend {store} --image ghcr.io/acme/resnet-infer:1.8 --pool sitea-a30-mig "
         "--width 1 --format json"}}},
      {"backtest", {{"backtest {store} --preset vpa"}}},
      {"refresh", {{"refresh {store}"}, {"refresh {store} --rebuild"}}},
      {"config",
       {{"config list {store}"},
        {"config get {store} memory.margin"},
        {"config set {store} memory.margin 0.2"}}},
      {"report", {{"report {store} --html {dir}/report.html"}}},
      {"place",
       {{"place {store} --image ghcr.io/acme/resnet-infer:1.8 --candidates {dir}/candidates.json "
         "--record ex-cli-1"}}},
      {"retry-floor", {{"retry-floor {store} ex-2026-11-28-1019"}}},
      {"route",
       {{"route config import {store} {dir}/router.json"},
        {"route config show {store}"},
        {"route config day {store}"},
        {"route config set {store} gcp_daily_attempt_cap 30"},
        {"route {store} --intent capture-7b --width 8 --length 2d --sharded"}}},
      // A store that never held legacy rows has an empty quarantine.
      {"quarantine", {{"quarantine list {store}"}}},
      {"catalog",
       {{"catalog import {store} {dir}/catalog.csv"}, {"catalog list {store} --search 6000"}}},
      {"hardware-id",
       {{"hardware-id --store {store} --profile "
         "'{\"gpu_model\":\"A30\",\"gpu_count\":1,\"instance_type\":\"x\"}'"}}},
      {"schema", {{"schema {store}"}}},
      {"copy", {{"copy {store} {copy}"}, {"check {copy}"}}},
  };
  std::map<std::string, const std::vector<Invocation>*> by_name;
  for (const auto& [name, invocations] : runs) by_name[name] = &invocations;
  const std::vector<std::string> listed = ListedCommands();
  REQUIRE(listed.size() >= 19);
  for (const std::string& name : listed) {
    INFO("`hwrec " << name << "` has no invocation in this test: add one");
    CHECK(by_name.count(name) == 1);
  }
  for (const auto& [name, invocations] : runs) {
    for (const Invocation& run : invocations) {
      const std::string args = Expand(run.args, values);
      const test::CommandResult result = test::RunCli(args);
      INFO("hwrec " << args << "\n" << result.err);
      CHECK(result.exit_code == run.exit_code);
    }
  }
}

}  // namespace hwrec::cli_engines_test
