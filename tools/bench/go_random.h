// The generator of Go's math/rand (its Go 1 source, an additive lagged
// Fibonacci generator after Mitchell and Reeds) and the draws built on it
// that the openb replay needs: Intn, Shuffle and Perm, value for value as Go
// gives them for a seed. The ATC'23 simulator draws and orders its pods with
// math/rand; with the same generator the replay draws the same pods for a
// seed as the paper's runs did.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

namespace hwrec::bench {

class GoRandom {
 public:
  // As rand.New(rand.NewSource(seed)), or the package's generator after
  // rand.Seed(seed).
  explicit GoRandom(std::int64_t seed);

  std::uint64_t Uint64();
  std::int64_t Int63() { return static_cast<std::int64_t>(Uint64() & kMask63); }
  std::int32_t Int31() { return static_cast<std::int32_t>(Int63() >> 32); }
  std::uint32_t Uint32() { return static_cast<std::uint32_t>(Int63() >> 31); }
  // rand.Int on a 64-bit machine.
  std::int64_t Int() { return Int63(); }
  // rand.Intn for 0 < n < 2^31 (every size the replay draws from).
  int Intn(int n);
  // rand.Shuffle: the same swaps in the same order, for fewer than 2^31
  // items (Go draws differently above).
  template <typename T>
  void Shuffle(std::vector<T>& items) {
    if (items.size() > 0x7fffffff) throw std::length_error("GoRandom::Shuffle: 2^31 items or more");
    for (std::size_t i = items.size(); i > 1; --i) {
      const auto j = static_cast<std::size_t>(ShuffleIndex(static_cast<std::int32_t>(i)));
      std::swap(items[i - 1], items[j]);
    }
  }
  // rand.Perm(n).
  std::vector<int> Perm(int n);

 private:
  static constexpr std::uint64_t kMask63 = (std::uint64_t{1} << 63) - 1;
  static constexpr int kLength = 607;
  static constexpr int kTap = 273;

  // Below n by Lemire's multiply-and-shift, as Shuffle draws.
  std::int32_t ShuffleIndex(std::int32_t n);

  std::array<std::uint64_t, kLength> vec_{};
  int tap_ = 0;
  int feed_ = kLength - kTap;
};

}  // namespace hwrec::bench
