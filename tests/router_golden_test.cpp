// Width 1 is the legacy ladder, byte for byte: `hwrec route --width 1` for
// every seeded intent and length class is pinned by tests/golden/router/.
// Set HWREC_UPDATE_GOLDEN=1 to rewrite the files after a deliberate change.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <cstdlib>
#include <filesystem>

#include "test_support.h"

using hwrec::test::RunCli;
using hwrec::test::ShellQuote;

namespace {

const char* const kIntents[] = {"capture-7b", "capture-13b", "eval-7b",
                                "eval-13b",   "lora-7b",     "lora-13b"};
const std::pair<const char*, const char*> kLengths[] = {
    {"short", "2h"}, {"long", "2d"}, {"very_long", "8d"}};

void CheckGolden(const std::string& store) {
  const bool update = std::getenv("HWREC_UPDATE_GOLDEN") != nullptr;
  for (const char* intent : kIntents) {
    for (const auto& [length_class, length] : kLengths) {
      const std::string golden = hwrec::test::SourcePath(
          fmt::format("tests/golden/router/{}.{}.json", intent, length_class));
      INFO(golden);
      const auto r = RunCli(fmt::format("route {} --intent {} --width 1 --length {} --format json",
                                        store, intent, length));
      REQUIRE(r.exit_code == 0);
      if (update) hwrec::test::WriteFile(golden, r.out);
      REQUIRE(std::filesystem::exists(golden));
      CHECK(r.out == hwrec::test::ReadFile(golden));
    }
  }
}

}  // namespace

TEST_CASE("router: width 1 is byte-identical to the golden legacy ladder for every intent",
          "[router][golden]") {
  hwrec::test::TempDir dir;
  const std::string store = ShellQuote(dir.File("golden.db"));
  REQUIRE(RunCli("init " + store).exit_code == 0);
  CheckGolden(store);

  // Recommendations change which cards wide rungs use, never the width-1 ladder.
  std::string lines;
  for (const char* intent : kIntents) {
    for (int i = 0; i < 3; ++i) {
      lines +=
          fmt::format(
              R"({{"execution_id":"g-{}-{}","action_image":"ghcr.io/acme/{}:1.0","finished_at":{},)"
              R"("status":"success","hardware":{{"instance_type":"a3-highgpu-1g","gpu_count":1,)"
              R"("gpu_mode":"full","gpu_total":1,"gpu_brand":"NVIDIA","gpu_model":"H100 80GB"}},)"
              R"("gpu_memory_peak_gb":30}})",
              intent, i, intent, 1.78e9 + i) +
          "\n";
    }
  }
  const std::string file = dir.File("history.jsonl");
  hwrec::test::WriteFile(file, lines);
  REQUIRE(RunCli("ingest " + store + " " + ShellQuote(file)).exit_code == 0);
  const auto wide =
      RunCli("route " + store + " --intent capture-7b --width 8 --length 2d --sharded");
  CHECK_THAT(wide.out, Catch::Contains("gcp/a3-highgpu-8g/flex-start"));
  CheckGolden(store);
}
