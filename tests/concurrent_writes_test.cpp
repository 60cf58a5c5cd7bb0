// Two Stores on one store location (two connections: the same SQLite file, or
// the same PostgreSQL schema) writing the same pools and the same config at
// once: both writes succeed (PostgreSQL's cancelled transactions are retried)
// and the store ends as one of the two serial orders left it.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <functional>
#include <future>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "hwrec/config.h"
#include "hwrec/node_pool.h"
#include "hwrec/pool_import.h"
#include "hwrec/store.h"
#include "test_support.h"

namespace hwrec {
namespace {

constexpr int kPools = 12;
constexpr int kRounds = 6;

// kPools CPU pools whose names all say `writer`.
std::string PoolLines(const std::string& writer) {
  std::string lines;
  for (int i = 0; i < kPools; ++i) {
    lines += fmt::format(
        R"({{"site_id":"site-a","node_pool_id":"pool-{}","name":"{} {}",)"
        R"("instance_type":"c6i.8xlarge","architecture":"x86_64","cpu_millicores":32000,)"
        R"("memory_bytes":68719476736}})"
        "\n",
        i, writer, i);
  }
  return lines;
}

// Runs `first` and `second` on two threads started together; returns their Statuses.
std::pair<Status, Status> AtOnce(const std::function<Status()>& first,
                                 const std::function<Status()>& second) {
  std::promise<void> go;
  std::shared_future<void> start = go.get_future().share();
  auto a = std::async(std::launch::async, [&] {
    start.wait();
    return first();
  });
  auto b = std::async(std::launch::async, [&] {
    start.wait();
    return second();
  });
  go.set_value();
  Status sa = a.get();
  Status sb = b.get();
  return {sa, sb};
}

Status Import(Store& store, const std::string& lines) {
  std::istringstream in(lines);
  auto summary = ImportNodePools(store, in);
  if (!summary.ok()) return summary.status();
  if (!summary->errors.empty()) return Status::Internal(summary->errors.front().reason);
  return Status::Ok();
}

// The writers whose names the stored pools carry ("alpha", "beta").
std::set<std::string> WritersOfPools(const Store& store) {
  auto pools = ListNodePools(store);
  REQUIRE(pools.ok());
  REQUIRE(pools->size() == static_cast<std::size_t>(kPools));
  std::set<std::string> writers;
  for (const NodePool& pool : *pools) writers.insert(pool.name.substr(0, pool.name.find(' ')));
  return writers;
}

// Two Stores opened on one new store location: two connections to it.
struct TwoStores {
  explicit TwoStores(const std::string& name)
      : location(test::NewStoreLocation(dir, name)),
        alpha(test::OpenStoreOrFail(location)),
        beta(test::OpenStoreOrFail(location)) {}
  test::TempDir dir;
  std::string location;
  std::unique_ptr<Store> alpha;
  std::unique_ptr<Store> beta;
};

}  // namespace

TEST_CASE(
    "concurrent writes: two stores importing the same pools at once both succeed, as one after "
    "the other",
    "[engine]") {
  TwoStores stores("pools.db");
  Store& alpha = *stores.alpha;
  Store& beta = *stores.beta;
  const std::string alpha_lines = PoolLines("alpha");
  const std::string beta_lines = PoolLines("beta");
  for (int round = 0; round < kRounds; ++round) {
    INFO("round " << round);
    auto [a, b] = AtOnce([&] { return Import(alpha, alpha_lines); },
                         [&] { return Import(beta, beta_lines); });
    INFO(a.message() << " / " << b.message());
    CHECK(a.ok());
    CHECK(b.ok());
    // One import wrote every pool last: no pool keeps the other's name.
    CHECK(WritersOfPools(alpha).size() == 1);
    CHECK(WritersOfPools(beta) == WritersOfPools(alpha));
  }
}

TEST_CASE(
    "concurrent writes: two stores setting the same config key and importing the same pools "
    "at once both succeed",
    "[engine]") {
  TwoStores stores("config.db");
  Store& alpha = *stores.alpha;
  Store& beta = *stores.beta;
  REQUIRE(Import(alpha, PoolLines("seed")).ok());
  for (int round = 0; round < kRounds; ++round) {
    INFO("round " << round);
    const std::string alpha_value = std::to_string(10 + round);
    const std::string beta_value = std::to_string(100 + round);
    auto [a, b] = AtOnce(
        [&] {
          Status set = SetConfig(alpha, "half_life_hours", alpha_value);
          return set.ok() ? Import(alpha, PoolLines("alpha")) : set;
        },
        [&] {
          Status set = SetConfig(beta, "half_life_hours", beta_value);
          return set.ok() ? Import(beta, PoolLines("beta")) : set;
        });
    INFO(a.message() << " / " << b.message());
    CHECK(a.ok());
    CHECK(b.ok());
    auto value = GetConfig(alpha, "half_life_hours");
    REQUIRE(value.ok());
    CHECK((value->value == alpha_value || value->value == beta_value));
    CHECK(WritersOfPools(beta).size() == 1);
  }
}

}  // namespace hwrec
