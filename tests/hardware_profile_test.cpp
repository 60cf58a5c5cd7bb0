#include "hwrec/hardware_profile.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <nlohmann/json.hpp>

#include "test_support.h"

using hwrec::HardwareProfile;
using hwrec::ProfileIdVersion;

namespace {

template <typename T>
std::optional<T> Field(const nlohmann::json& object, const char* key) {
  if (!object.contains(key) || object[key].is_null()) return std::nullopt;
  return object[key].get<T>();
}

HardwareProfile FromJson(const nlohmann::json& p) {
  HardwareProfile profile;
  profile.instance_type = Field<std::string>(p, "instance_type");
  profile.architecture = Field<std::string>(p, "architecture");
  profile.cpu_millicores = Field<std::int64_t>(p, "cpu_millicores");
  profile.memory_bytes = Field<std::int64_t>(p, "memory_bytes");
  profile.gpu_count = Field<std::int64_t>(p, "gpu_count");
  profile.gpu_mode = Field<std::string>(p, "gpu_mode");
  profile.gpu_total = Field<std::int64_t>(p, "gpu_total");
  profile.gpu_brand = Field<std::string>(p, "gpu_brand");
  profile.gpu_model = Field<std::string>(p, "gpu_model");
  return profile;
}

HardwareProfile OnPremGpu(const char* model) {
  HardwareProfile p;
  p.instance_type = "on-prem-gpu";
  p.architecture = "x86_64";
  p.cpu_millicores = 32000;
  p.memory_bytes = 274877906944;
  p.gpu_count = 1;
  p.gpu_mode = "full";
  p.gpu_total = 1;
  p.gpu_brand = "NVIDIA";
  p.gpu_model = model;
  return p;
}

}  // namespace

TEST_CASE("hardware ids: every reference vector is reproduced", "[hardware-id]") {
  std::ifstream in(hwrec::test::TestDataPath("hardware_profile_ids.jsonl"));
  REQUIRE(in.good());
  std::string line;
  int checked = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto vector = nlohmann::json::parse(line);
    const auto version =
        vector["version"].get<int>() == 1 ? ProfileIdVersion::kV1 : ProfileIdVersion::kV2;
    const HardwareProfile profile = FromJson(vector["profile"]);
    INFO(line);
    const auto canonical = hwrec::CanonicalProfile(profile, version);
    REQUIRE(canonical.ok());
    CHECK(*canonical == vector["canonical"].get<std::string>());
    const auto id = hwrec::HardwareProfileId(profile, version);
    REQUIRE(id.ok());
    CHECK(*id == vector["id"].get<std::string>());
    CHECK(hwrec::ProfileIdVersionOf(*id) == version);
    ++checked;
  }
  CHECK(checked == 24);
}

TEST_CASE("hardware ids: hp:v1 collides for A100 and H100 pools, hp:v2 tells them apart",
          "[hardware-id]") {
  const HardwareProfile a100 = OnPremGpu("A100 80GB");
  const HardwareProfile h100 = OnPremGpu("H100 80GB");
  CHECK(*hwrec::HardwareProfileId(a100, ProfileIdVersion::kV1) ==
        *hwrec::HardwareProfileId(h100, ProfileIdVersion::kV1));
  CHECK(*hwrec::HardwareProfileId(a100, ProfileIdVersion::kV2) !=
        *hwrec::HardwareProfileId(h100, ProfileIdVersion::kV2));
}

TEST_CASE("hardware ids: a string that is not UTF-8 is refused", "[hardware-id]") {
  HardwareProfile p;
  p.instance_type = std::string("bad\xff");
  const auto id = hwrec::HardwareProfileId(p, ProfileIdVersion::kV2);
  REQUIRE_FALSE(id.ok());
  CHECK_THAT(id.status().message(), Catch::Contains("UTF-8"));
}

TEST_CASE("hardware ids: profiles parse from JSON and name a wrong field", "[hardware-id]") {
  const auto parsed = hwrec::ParseHardwareProfile(
      R"({"instance_type":"x","gpu_count":2,"gpu_model":null,"gpu_mode":"full"})");
  REQUIRE(parsed.ok());
  CHECK(parsed->gpu_count == 2);
  CHECK_FALSE(parsed->gpu_model.has_value());

  const auto wrong = hwrec::ParseHardwareProfile(R"({"gpu_count":"two"})");
  REQUIRE_FALSE(wrong.ok());
  CHECK_THAT(wrong.status().message(), Catch::Contains("gpu_count"));
  const auto unknown = hwrec::ParseHardwareProfile(R"({"gpu_modle":"A30"})");
  REQUIRE_FALSE(unknown.ok());
  CHECK_THAT(unknown.status().message(), Catch::Contains("gpu_modle"));
}

TEST_CASE("hardware ids: id prefixes are recognised only when well formed", "[hardware-id]") {
  CHECK(hwrec::ProfileIdVersionOf("hp:v1:a458059131523990") == ProfileIdVersion::kV1);
  CHECK(hwrec::ProfileIdVersionOf("hp:v2:93062af5d26b055e") == ProfileIdVersion::kV2);
  CHECK_FALSE(hwrec::ProfileIdVersionOf("hp:v3:93062af5d26b055e").has_value());
  CHECK_FALSE(hwrec::ProfileIdVersionOf("hp:v2:93062AF5D26B055E").has_value());
  CHECK_FALSE(hwrec::ProfileIdVersionOf("hp:v2:93062af5").has_value());
}
