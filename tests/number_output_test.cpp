// Figures are printed as the decimals they mean: compute shares sit exactly on
// the 0.05 ladder, and no JSON the CLI prints carries float noise such as
// 0.35000000000000003 or 0.19999999999999996.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/decimal.h"
#include "recommend/estimator.h"
#include "test_support.h"

using hwrec::test::RunCli;
using hwrec::test::ShellQuote;
using hwrec::test::SourcePath;

namespace {

// Every floating-point number in `json` whose shortest round-trip form needs
// more than 12 significant digits, with its path. Times (`as_of`, `*_at`, in
// epoch seconds) are clock readings, not derived decimals.
void CollectNoise(const nlohmann::json& json, const std::string& path,
                  std::vector<std::string>* noisy) {
  if (json.is_object()) {
    for (const auto& [key, value] : json.items()) {
      const bool time = key == "as_of" || (key.size() > 3 && key.substr(key.size() - 3) == "_at");
      if (!time) CollectNoise(value, path + "." + key, noisy);
    }
  } else if (json.is_array()) {
    for (std::size_t i = 0; i < json.size(); ++i) {
      CollectNoise(json[i], fmt::format("{}[{}]", path, i), noisy);
    }
  } else if (json.is_number_float()) {
    const double value = json.get<double>();
    if (std::stod(fmt::format("{:.12g}", value)) != value) {
      noisy->push_back(fmt::format("{} = {}", path, json.dump()));
    }
  }
}

}  // namespace

TEST_CASE("recommend: a compute share on the 0.05 ladder is the double its decimal parses to",
          "[recommend][numbers]") {
  for (int rung = 1; rung <= 20; ++rung) {
    const std::string decimal = fmt::format("{:.2f}", rung * 0.05);
    const double expected = std::stod(decimal);
    INFO(decimal);
    // From just above the rung below, from the rung itself, and from float noise around it.
    CHECK(hwrec::internal::RoundToLadder(expected - 0.04, 0.05) == expected);
    CHECK(hwrec::internal::RoundToLadder(expected, 0.05) == expected);
    CHECK(hwrec::internal::RoundToLadder(rung * 0.05, 0.05) == expected);
    CHECK(nlohmann::json(hwrec::internal::RoundToLadder(expected, 0.05)).dump() ==
          nlohmann::json::parse(decimal).dump());
  }
  CHECK(hwrec::internal::RoundToLadder(0.31, 0.025) == 0.325);
  CHECK(hwrec::internal::RoundToLadder(0.7, 0.1) == 0.7);
  CHECK(hwrec::internal::DecimalPlaces(0.05) == 2);
  CHECK(hwrec::internal::DecimalPlaces(1) == 0);
  CHECK(hwrec::internal::RoundToDecimals(0.1 + 0.2, 2) == 0.3);
}

TEST_CASE("cli: JSON from recommend, place, config list and route carries no float noise",
          "[cli][numbers]") {
  hwrec::test::TempDir dir;
  const std::string store = QuotedExampleStore(dir);
  const std::string candidates = dir.File("candidates.json");
  hwrec::test::WriteFile(candidates, R"([{"node_pool_id": "sitea-a100-80gb"},
    {"node_pool_id": "siteb-a100-40gb-mig", "free_partitions": 3},
    {"node_pool_id": "sitea-a30-mig"}, {"node_pool_id": "siteb-h100-80gb"},
    {"node_pool_id": "sitea-arm-cpu", "free_cpu_millicores": 8000}])");
  std::vector<std::string> commands = {
      "config list " + store + " --format json",
      "route " + store + " --intent capture-7b --width 8 --length 2d --sharded --format json",
  };
  for (const char* image : {"ghcr.io/acme/resnet-infer:1.8", "ghcr.io/acme/llm-finetune:2.3",
                            "ghcr.io/acme/whisper-batch:1.2", "ghcr.io/acme/feature-etl:0.9"}) {
    for (const char* pool : {"sitea-a30-mig", "siteb-a100-40gb-mig", "siteb-h100-80gb",
                             "sitea-a100-80gb", "sitea-arm-cpu"}) {
      commands.push_back(fmt::format("recommend {} --image {} --pool {} --explain --format json",
                                     store, image, pool));
    }
    commands.push_back(fmt::format("place {} --image {} --candidates {} --format json", store,
                                   image, ShellQuote(candidates)));
  }
  for (const std::string& command : commands) {
    INFO("hwrec " << command);
    const auto r = RunCli(command);
    INFO(r.out << r.err);
    REQUIRE((r.exit_code == 0 || r.exit_code == 1 || r.exit_code == 5));  // 5: place, no fit
    if (r.out.empty()) continue;
    std::vector<std::string> noisy;
    CollectNoise(nlohmann::json::parse(r.out), "", &noisy);
    INFO(fmt::format("{}", fmt::join(noisy, "\n")));
    CHECK(noisy.empty());
  }
}
