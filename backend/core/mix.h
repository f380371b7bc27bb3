#pragma once
// Stateless pseudo-randomness for simulations: a value drawn from a hash of (seed, what, when)
// instead of a generator's position, so the same inputs give the same draw in any order and
// after a restart.
#include <cstdint>

namespace tessera {

// The splitmix64 finalizer: cheap, well spread, deterministic.
constexpr uint64_t mixBits(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A hash as a double uniform in [0, 1).
constexpr double unitOf(uint64_t h) {
  return double(h >> 11) / double(1ULL << 53);
}

}  // namespace tessera
