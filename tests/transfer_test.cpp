// TransferTable (src/recommend/transfer.h): factors between hardware keys
// learned from workloads seen on both, on constructed tables and on Gavel's
// measured per-GPU throughputs (../shared/data; skipped when absent).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "recommend/transfer.h"
#include "test_support.h"

namespace {

using hwrec::internal::TransferSettings;
using hwrec::internal::TransferTable;

constexpr char kA100[] = "NVIDIA|A100 80GB";
constexpr char kH100[] = "NVIDIA|H100 80GB";
constexpr char kL4[] = "NVIDIA|L4";

// A deterministic wobble of a few percent, so that no two ratios are equal.
double Wobble(int i) { return 1 + 0.03 * std::sin(1.7 * i); }

}  // namespace

TEST_CASE("transfer: a workload seen only on A100 gets its H100 share from the pair factor",
          "[transfer]") {
  TransferTable table;
  for (int i = 0; i < 14; ++i) {
    const double share = 0.2 + 0.05 * i;
    table.Add(i, kA100, share);
    table.Add(i, kH100, share * 0.5 * Wobble(i));
  }
  table.Add(100, kA100, 0.62);

  const auto estimate = table.Estimate(100, kH100);
  REQUIRE(estimate.has_value());
  CHECK(estimate->source_key == kA100);
  CHECK(estimate->source_value == 0.62);
  CHECK(estimate->sources == 1);
  CHECK(estimate->factor.workloads == 14);
  CHECK(estimate->factor.neighbours == 0);  // the median of all: no other key to compare by
  CHECK(estimate->factor.factor == Approx(0.5).epsilon(0.03));
  // Right within the factor's spread.
  CHECK(std::fabs(std::log(estimate->value / 0.31)) <= estimate->spread);
  CHECK(estimate->spread >= TransferSettings{}.min_spread);
}

TEST_CASE("transfer: under min_workloads seen on both keys there is no estimate", "[transfer]") {
  TransferTable table;
  table.Add(1, kA100, 0.4);
  table.Add(1, kH100, 0.2);
  table.Add(2, kA100, 0.6);
  table.Add(2, kH100, 0.3);
  table.Add(3, kA100, 0.5);
  CHECK_FALSE(table.Estimate(3, kH100).has_value());
  CHECK_FALSE(table.PairFactor(kA100, kH100).has_value());
  table.Add(4, kA100, 0.8);
  table.Add(4, kH100, 0.4);
  CHECK(table.PairFactor(kA100, kH100)->workloads == 3);
  CHECK(table.Estimate(3, kH100).has_value());
  // A key nobody else ran on, and a workload with no history, give nothing.
  CHECK_FALSE(table.Estimate(3, kL4).has_value());
  CHECK_FALSE(table.Estimate(99, kH100).has_value());
}

TEST_CASE("transfer: one workload unlike the rest does not move the pair factor", "[transfer]") {
  TransferTable table;
  for (int i = 0; i < 9; ++i) {
    table.Add(i, kA100, 0.3 + 0.05 * i);
    table.Add(i, kH100, (0.3 + 0.05 * i) * 0.5 * Wobble(i));
  }
  table.Add(9, kA100, 0.1);
  table.Add(9, kH100, 0.9);  // 9x where the others are 0.5x
  const auto factor = table.PairFactor(kA100, kH100);
  REQUIRE(factor.has_value());
  CHECK(factor->factor == Approx(0.5).epsilon(0.04));
  CHECK(factor->spread < 0.1);
}

TEST_CASE("transfer: the nearest workloads set the factor when the workload ran on a third key",
          "[transfer]") {
  // Two kinds of work: compute-bound (much faster on H100 and L4 alike) and
  // input-bound (barely faster on either).
  TransferTable table;
  for (int i = 0; i < 6; ++i) {
    table.Add(i, kA100, 0.6 * Wobble(i));
    table.Add(i, kL4, 0.6 * 0.3 * Wobble(i + 10));
    table.Add(i, kH100, 0.6 * 0.25 * Wobble(i + 20));
    table.Add(10 + i, kA100, 0.5 * Wobble(i + 30));
    table.Add(10 + i, kL4, 0.5 * 0.9 * Wobble(i + 40));
    table.Add(10 + i, kH100, 0.5 * 0.85 * Wobble(i + 50));
  }
  // A compute-bound workload never run on H100.
  table.Add(100, kA100, 0.8);
  table.Add(100, kL4, 0.8 * 0.31);

  const auto estimate = table.Estimate(100, kH100);
  REQUIRE(estimate.has_value());
  CHECK(estimate->sources == 2);  // from A100 and from L4
  CHECK(estimate->factor.neighbours == TransferSettings{}.neighbours);
  CHECK(estimate->factor.workloads == 12);
  // The whole population's median ratio would say ~0.55x; its neighbours say 0.25x.
  CHECK(estimate->value == Approx(0.8 * 0.25).epsilon(0.1));
  const auto pair = table.PairFactor(kA100, kH100);
  REQUIRE(pair.has_value());
  CHECK(pair->spread > estimate->spread);
}

TEST_CASE("transfer: Gavel's measured throughputs, each (workload, card) held out in turn",
          "[transfer][data]") {
  const std::string path = hwrec::test::SharedDataPath("gavel-throughputs/oracle_throughputs.json");
  if (!std::filesystem::exists(path)) {
    WARN("skipped: " + path + " is absent");
    return;
  }
  std::ifstream in(path);
  const nlohmann::json oracle = nlohmann::json::parse(in);
  const std::vector<std::string> cards = {"k80", "p100", "v100"};
  // A job's used share on a card is its work rate over the card's
  // throughput running alone (the "null" key): derived shares, measured
  // throughputs. The rate puts every share within [0.05, 1].
  std::vector<std::vector<double>> shares;
  for (const auto& [job, entry] : oracle.at("k80").items()) {
    std::vector<double> throughput;
    for (const std::string& card : cards) throughput.push_back(oracle[card][job].at("null"));
    if (*std::min_element(throughput.begin(), throughput.end()) <= 0) continue;
    const double lowest = *std::min_element(throughput.begin(), throughput.end());
    const double highest = *std::max_element(throughput.begin(), throughput.end());
    const double rate = std::sqrt(0.05 * highest * lowest);
    std::vector<double> row;
    for (double t : throughput) row.push_back(rate / t);
    shares.push_back(row);
  }
  REQUIRE(shares.size() == 26);

  std::vector<double> transferred, copied;
  for (std::size_t j = 0; j < shares.size(); ++j) {
    for (std::size_t c = 0; c < cards.size(); ++c) {
      // Held out: the table without this workload's value on this card.
      TransferTable held;
      for (std::size_t k = 0; k < shares.size(); ++k) {
        for (std::size_t d = 0; d < cards.size(); ++d) {
          if (k != j || d != c) held.Add(static_cast<std::int64_t>(k), cards[d], shares[k][d]);
        }
      }
      const auto estimate = held.Estimate(static_cast<std::int64_t>(j), cards[c]);
      REQUIRE(estimate.has_value());
      transferred.push_back(std::fabs(estimate->value - shares[j][c]) / shares[j][c]);
      const double copy = shares[j][(c + 1) % cards.size()];
      copied.push_back(std::fabs(copy - shares[j][c]) / shares[j][c]);
    }
  }
  const auto quantile = [](std::vector<double> v, double q) {
    std::sort(v.begin(), v.end());
    return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))];
  };
  INFO("transferred: median " << quantile(transferred, 0.5) << ", p90 "
                              << quantile(transferred, 0.9) << "; copied: median "
                              << quantile(copied, 0.5) << ", p90 " << quantile(copied, 0.9));
  CHECK(quantile(transferred, 0.5) <= 0.25);
  CHECK(quantile(transferred, 0.9) <= 0.75);
  CHECK(quantile(transferred, 0.5) < quantile(copied, 0.5) / 2);
}
