#include "bench/go_random.h"

#include <stdexcept>
#include <string>

namespace hwrec::bench {

namespace {

constexpr std::size_t kLength = 607;
constexpr std::size_t kTap = 273;
constexpr std::int32_t kInt32Max = 0x7fffffff;

// x[n+1] = 48271 * x[n] mod (2^31 - 1), by Schrage's method as Go computes it.
std::int32_t SeedStep(std::int32_t x) {
  constexpr std::int32_t kA = 48271;
  constexpr std::int32_t kQ = 44488;
  constexpr std::int32_t kR = 3399;
  const std::int32_t hi = x / kQ;
  const std::int32_t lo = x % kQ;
  x = kA * lo - kR * hi;
  if (x < 0) x += kInt32Max;
  return x;
}

// The generator's 607 values from `seed` (1 to 2^31 - 2): the seed stepped
// 20 times, then three steps per value, mixed in at shifts `high`, `middle`
// and 0.
std::array<std::uint64_t, kLength> SeedStates(std::int32_t seed, int high, int middle) {
  std::array<std::uint64_t, kLength> states{};
  std::int32_t x = seed;
  for (int i = -20; i < static_cast<int>(kLength); ++i) {
    x = SeedStep(x);
    if (i < 0) continue;
    std::uint64_t u = static_cast<std::uint64_t>(x) << high;
    x = SeedStep(x);
    u ^= static_cast<std::uint64_t>(x) << middle;
    x = SeedStep(x);
    u ^= static_cast<std::uint64_t>(x);
    states[static_cast<std::size_t>(i)] = u;
  }
  return states;
}

// A polynomial in the generator's shift, below degree 607, over integers
// modulo 2^64: the recurrence y[k] = y[k-607] + y[k-273] makes
// x^607 = x^334 + 1.
using Shift = std::array<std::uint64_t, kLength>;

Shift Multiply(const Shift& a, const Shift& b) {
  std::array<std::uint64_t, 2 * kLength - 1> product{};
  for (std::size_t i = 0; i < kLength; ++i) {
    if (a[i] == 0) continue;
    for (std::size_t j = 0; j < kLength; ++j) product[i + j] += a[i] * b[j];
  }
  // x^d = x^(d-273) + x^(d-607), from the top down.
  for (std::size_t d = 2 * kLength - 2; d >= kLength; --d) {
    product[d - kTap] += product[d];
    product[d - kLength] += product[d];
  }
  Shift reduced{};
  for (std::size_t i = 0; i < kLength; ++i) reduced[i] = product[i];
  return reduced;
}

// x^n modulo the recurrence's polynomial.
Shift ShiftPower(std::uint64_t n) {
  Shift result{};
  result[0] = 1;
  Shift base{};
  base[1] = 1;
  for (; n > 0; n >>= 1) {
    if (n & 1) result = Multiply(result, base);
    base = Multiply(base, base);
  }
  return result;
}

// The table Go mixes into every seed: the state of the generator, started
// from the seed 1 of a simpler mixing, after 7.8e12 steps. Go's own program
// for it steps the generator 7.8e12 times; the steps are linear, so the state
// is found here by raising the shift to that power instead (milliseconds).
std::array<std::uint64_t, kLength> ComputeCooked() {
  // The starting state: rngVec after srand(1).
  const std::array<std::uint64_t, kLength> start = SeedStates(1, 20, 10);
  // Step k writes y[k] = y[k-607] + y[k-273] at position (334 - k) mod 607,
  // so position p holds y[j] for j in [-606, 0] with (334 - j) mod 607 = p.
  constexpr auto kLength64 = static_cast<std::int64_t>(kLength);
  auto position = [](std::int64_t k) {
    const std::int64_t p = (kLength64 - static_cast<std::int64_t>(kTap) - k) % kLength64;
    return static_cast<std::size_t>(p < 0 ? p + kLength64 : p);
  };
  Shift y0{};  // y[-606 + i]
  for (std::size_t i = 0; i < kLength; ++i) {
    y0[i] = start[position(static_cast<std::int64_t>(i) - (kLength64 - 1))];
  }
  constexpr std::uint64_t kSteps = 7'800'000'000'000;
  // y[-606 + m] = sum of c_i * y[-606 + i] for x^m = sum of c_i x^i; the
  // state after kSteps holds y[kSteps - 606 .. kSteps].
  Shift c = ShiftPower(kSteps);
  std::array<std::uint64_t, kLength> cooked{};
  for (std::int64_t m = 0; m < kLength64; ++m) {
    std::uint64_t y = 0;
    for (std::size_t i = 0; i < kLength; ++i) y += c[i] * y0[i];
    cooked[position(static_cast<std::int64_t>(kSteps) - (kLength64 - 1) + m)] = y;
    // c *= x
    const std::uint64_t top = c[kLength - 1];
    for (std::size_t i = kLength - 1; i > 0; --i) c[i] = c[i - 1];
    c[0] = top;
    c[kLength - kTap] += top;
  }
  return cooked;
}

const std::array<std::uint64_t, kLength>& Cooked() {
  static const std::array<std::uint64_t, kLength> cooked = ComputeCooked();
  return cooked;
}

}  // namespace

GoRandom::GoRandom(std::int64_t seed) {
  seed %= kInt32Max;
  if (seed < 0) seed += kInt32Max;
  if (seed == 0) seed = 89482311;
  const auto states = SeedStates(static_cast<std::int32_t>(seed), 40, 20);
  const auto& cooked = Cooked();
  for (std::size_t i = 0; i < states.size(); ++i) vec_[i] = states[i] ^ cooked[i];
}

std::uint64_t GoRandom::Uint64() {
  if (--tap_ < 0) tap_ += GoRandom::kLength;
  if (--feed_ < 0) feed_ += GoRandom::kLength;
  const std::uint64_t x =
      vec_[static_cast<std::size_t>(feed_)] + vec_[static_cast<std::size_t>(tap_)];
  vec_[static_cast<std::size_t>(feed_)] = x;
  return x;
}

int GoRandom::Intn(int n) {
  if (n <= 0)
    throw std::invalid_argument("GoRandom::Intn: n must be positive, got " + std::to_string(n));
  if ((n & (n - 1)) == 0) return Int31() & (n - 1);
  const auto range = static_cast<std::uint32_t>(n);
  const auto max = static_cast<std::int32_t>(kInt32Max - (std::uint32_t{1} << 31) % range);
  std::int32_t v = Int31();
  while (v > max) v = Int31();
  return v % n;
}

std::int32_t GoRandom::ShuffleIndex(std::int32_t n) {
  const auto range = static_cast<std::uint32_t>(n);
  std::uint64_t product = std::uint64_t{Uint32()} * range;
  auto low = static_cast<std::uint32_t>(product);
  if (low < range) {
    const std::uint32_t threshold = (0u - range) % range;
    while (low < threshold) {
      product = std::uint64_t{Uint32()} * range;
      low = static_cast<std::uint32_t>(product);
    }
  }
  return static_cast<std::int32_t>(product >> 32);
}

std::vector<int> GoRandom::Perm(int n) {
  std::vector<int> m(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const int j = Intn(i + 1);
    m[static_cast<std::size_t>(i)] = m[static_cast<std::size_t>(j)];
    m[static_cast<std::size_t>(j)] = i;
  }
  return m;
}

}  // namespace hwrec::bench
