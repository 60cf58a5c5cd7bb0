#include <catch2/catch.hpp>

#include "test_support.h"

TEST_CASE("schema: a fresh store equals schema/schema.sql", "[schema]") {
  hwrec::test::TempDir dir;
  auto store = hwrec::test::OpenStoreOrFail(dir.File("fresh.db"));
  auto dumped = store->DumpSchema();
  REQUIRE(dumped.ok());
  const std::string committed = hwrec::test::ReadFile(hwrec::test::SourcePath("schema/schema.sql"));
  INFO("regenerate with: cmake --build <build dir> --target schema");
  CHECK(*dumped == committed);
}
