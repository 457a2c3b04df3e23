// The scalar reference: a literal implementation of lib/FORMAT.md, compiled without target flags.
// It is the specification the SIMD kernels are tested against, and the "reference" target.
#ifndef SIMDBLOOM_KERNELS_REFERENCE_H_
#define SIMDBLOOM_KERNELS_REFERENCE_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/dispatch.h"

namespace simdbloom {
namespace ref {

// M[t] = 0x9E3779B9^(t+1) mod 2^32 (FORMAT.md).
struct Multipliers {
  uint32_t m[16];
  constexpr Multipliers() : m() {
    uint32_t c = 1;
    for (int t = 0; t < 16; ++t) {
      c *= 0x9E3779B9u;
      m[t] = c;
    }
  }
};
constexpr Multipliers kMultipliers{};

inline uint64_t LoadU64(const void* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// XXH3_64bits_withSeed over the key's 8 little-endian bytes (via libxxhash's own code).
uint64_t HashU64(uint64_t key, uint64_t seed);

inline uint64_t BlockIndex(uint64_t h, uint64_t num_blocks) {
  return ((h >> 32) * num_blocks) >> 32;
}

// Probe i of hash h: word (w0 + i) mod 8, bit lo32(a * M[8r + w]) >> 26.
inline void Block512Probe(uint64_t h, uint32_t i, uint32_t* word, uint32_t* bit) {
  const uint32_t a = static_cast<uint32_t>(h);
  const uint32_t w0 = static_cast<uint32_t>(h >> 32) & 7;
  const uint32_t w = (w0 + i) & 7;
  const uint32_t r = i >> 3;
  *word = w;
  *bit = (a * kMultipliers.m[8 * r + w]) >> 26;
}

inline void Block512Insert(uint64_t* block, uint64_t h, uint32_t k) {
  for (uint32_t i = 0; i < k; ++i) {
    uint32_t w, b;
    Block512Probe(h, i, &w, &b);
    block[w] |= uint64_t{1} << b;
  }
}

inline bool Block512Contains(const uint64_t* block, uint64_t h, uint32_t k) {
  for (uint32_t i = 0; i < k; ++i) {
    uint32_t w, b;
    Block512Probe(h, i, &w, &b);
    if (((block[w] >> b) & 1) == 0) return false;
  }
  return true;
}

const detail::Kernels& Kernels();

}  // namespace ref
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_REFERENCE_H_
