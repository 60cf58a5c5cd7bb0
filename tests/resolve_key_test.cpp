// RecommendationQuery::ResolveKey: the key a host names per call, read with a
// catalog kept between calls and read again when any connection changes it.
#include <catch2/catch.hpp>

#include <sstream>

#include "hwrec/catalog.h"
#include "hwrec/recommend.h"
#include "test_support.h"

namespace hwrec::resolve_key_test {

TEST_CASE("resolve key: a kept catalog sees another connection's import", "[recommend][engine]") {
  hwrec::test::TempDir dir;
  const std::string location = hwrec::test::NewStoreLocation(dir, "resolve_key");
  auto store = hwrec::test::OpenStoreOrFail(location);
  auto query = RecommendationQuery::Open(*store);
  REQUIRE(query.ok());

  HardwareKey named;
  named.gpu_model = "A100 80GB";  // its brand is filled in
  auto known = (*query)->ResolveKey(named);
  REQUIRE(known.ok());
  CHECK(known->gpu_brand == "NVIDIA");
  CHECK(known->gpu_model == "A100 80GB");

  named.gpu_model = "Z9 96GB";
  auto unknown = (*query)->ResolveKey(named, "--gpu-model");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.status().code() == StatusCode::kInvalidArgument);
  CHECK_THAT(unknown.status().message(), Catch::StartsWith("--gpu-model: "));

  {  // another connection adds the card
    auto other = hwrec::test::OpenStoreOrFail(location);
    std::istringstream csv(
        "brand,model,card_memory_gb,card_compute_slices,mode,memory_gb,compute_slices\n"
        "Acme,Z9 96GB,96,1,full,96,1\n");
    auto imported = ImportCatalogCsv(*other, csv);
    REQUIRE(imported.ok());
    REQUIRE(imported->added == 1);
  }
  auto now_known = (*query)->ResolveKey(named);
  REQUIRE(now_known.ok());
  CHECK(now_known->gpu_brand == "Acme");
  CHECK(now_known->gpu_model == "Z9 96GB");

  // Keys that name no model, or wrongly name one on a CPU-only key, need no catalog.
  HardwareKey cpu;
  cpu.cpu_only = true;
  CHECK((*query)->ResolveKey(cpu).ok());
  cpu.gpu_model = "A100 80GB";
  CHECK((*query)->ResolveKey(cpu).status().code() == StatusCode::kInvalidArgument);
}

}  // namespace hwrec::resolve_key_test

namespace hwrec::resolve_key_test {

TEST_CASE("recommend named: the key resolved and answered in one read, as in two",
          "[recommend][engine]") {
  hwrec::test::TempDir dir;
  const std::string location = hwrec::test::NewStoreLocation(dir, "recommend_named");
  auto store = hwrec::test::OpenStoreOrFail(location);
  auto query = RecommendationQuery::Open(*store);
  REQUIRE(query.ok());

  HardwareKey named;
  named.gpu_model = "A100 80GB";
  auto one = (*query)->RecommendNamed("registry/train:1", named, 1795968000.0);
  REQUIRE(one.ok());
  CHECK(one->hardware.gpu_brand == "NVIDIA");
  auto key = (*query)->ResolveKey(named);
  REQUIRE(key.ok());
  auto two = (*query)->Recommend("registry/train:1", *key, 1795968000.0);
  REQUIRE(two.ok());
  CHECK(one->hardware == two->hardware);
  CHECK(one->figures.size() == two->figures.size());

  named.gpu_model = "Z9 96GB";
  auto unknown = (*query)->RecommendNamed("registry/train:1", named);
  REQUIRE_FALSE(unknown.ok());
  CHECK_THAT(unknown.status().message(), Catch::StartsWith("gpu_model: "));
  CHECK((*query)->RecommendNamed("", named).status().message() ==
        "image is empty: give the action image of the workload");
}

}  // namespace hwrec::resolve_key_test
