// The documented real-inventory example (docs/PLACEMENT.md): the 1,523 nodes of
// the Alibaba openb trace imported as pools, its pods placed through hwrec.
// Runs when ../shared/data/alibaba-gpu-v2023 is present; skips with a message
// otherwise.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "test_support.h"

namespace hwrec::test {
namespace {

const std::string kOpenbDir = SharedDataPath("alibaba-gpu-v2023");

bool OpenbPresent() {
  return std::filesystem::exists(kOpenbDir + "/openb_node_list_all_node.csv") &&
         std::filesystem::exists(kOpenbDir + "/openb_pod_list_default.csv");
}

std::string FileLine(const std::string& path, int number) {
  std::ifstream in(path);
  std::string line;
  for (int i = 0; i < number && std::getline(in, line); ++i) {
  }
  return line;
}

}  // namespace

TEST_CASE("placement: the openb inventory imports as pools and its pods are placed",
          "[placement][openb]") {
  if (!OpenbPresent()) {
    WARN("skipped: the openb trace is not at " + kOpenbDir + " (see docs/PLACEMENT.md)");
    return;
  }
  TempDir dir;
  const CommandResult replay =
      RunShell(ShellQuote(BenchPath()) + " place --openb " + ShellQuote(kOpenbDir) +
               " --pods 200 --format json --emit " + ShellQuote(dir.path().string()));
  INFO(replay.err);
  REQUIRE(replay.exit_code == 0);
  const auto report = nlohmann::json::parse(replay.out);
  CHECK(report["pools"] == 1523);
  const auto& models = report["pools_by_model"];
  CHECK(models["CPU only"] == 310);
  CHECK(models["unknown (G2)"] == 549);
  CHECK(models["unknown (G3)"] == 39);
  CHECK(models["T4"] == 404);
  CHECK(models["P100 16GB"] == 134);
  CHECK(models["V100 16GB"] == 55);
  CHECK(models["V100 32GB"] == 30);
  CHECK(models["A10"] == 2);
  CHECK(report["pods"] == 200);
  CHECK(report["placed"].get<int>() > 0);

  // The same inputs through the CLI, as docs/PLACEMENT.md shows them.
  const std::string store = ShellQuote(dir.File("openb.hwrec"));
  REQUIRE(RunCli("init " + store).exit_code == 0);
  const CommandResult imported =
      RunCli("pools import " + store + " " + ShellQuote(dir.File("pools.jsonl")));
  INFO(imported.err);
  REQUIRE(imported.exit_code == 0);
  const std::string declared = FileLine(dir.File("declared.jsonl"), 2);  // openb-pod-0001
  const CommandResult placed =
      RunCli("place " + store + " --image openb/openb-pod-0001 --candidates " +
             ShellQuote(dir.File("candidates.json")) + " --declared " + ShellQuote(declared) +
             " --format json");
  INFO(placed.err);
  REQUIRE(placed.exit_code == 0);
  const auto payload = nlohmann::json::parse(placed.out);
  CHECK(payload["candidates"].size() == 1523);
  CHECK(payload["chosen"]["request"]["gpu_count"] == 1);
  CHECK(payload["chosen"]["request"]["cpu_request_millicores"] == 6000);
  // CPU-only nodes are never chosen for a GPU pod, and say why.
  for (const auto& entry : payload["candidates"]) {
    if (entry["node_pool_id"] == "openb-node-0000") {
      CHECK(entry["feasible"] == false);
      CHECK(entry["reason"] == "needs 1 GPU; this pool has none");
    }
  }
}

}  // namespace hwrec::test
