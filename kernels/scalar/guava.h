// SPDX-License-Identifier: Apache-2.0
// Guava's BloomFilter math (lib/FORMAT.md, "guava and guava32"), scalar and target-free: Murmur3
// x64 128 with seed 0 (Guava's Hashing.murmur3_128()), the bit of each probe of both strategies
// (MURMUR128_MITZ_64, MURMUR128_MITZ_32), and the exact remainder by the bit size without a
// division per probe. Shared by the two layout folders (kernels/guava/, kernels/guava32/), the
// library's single-key path and the oracle; the vector forms are in kernels/simd/guava-inl.h.
#ifndef SIMDBLOOM_KERNELS_SCALAR_GUAVA_H_
#define SIMDBLOOM_KERNELS_SCALAR_GUAVA_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/bits.h"
#include "kernels/interface.h"

namespace simdbloom {
namespace scalar {

// The two 64-bit halves of a Murmur3 x64 128 hash: h1 = its first 8 bytes as a little-endian
// long (Guava's HashCode.asLong()), h2 the next 8.
struct Hash128 {
  uint64_t h1, h2;
};

constexpr uint64_t kMurmurC1 = 0x87C37B91114253D5ULL, kMurmurC2 = 0x4CF5AD432745937FULL;

constexpr uint64_t MurmurRotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

inline uint64_t MurmurFmix64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xFF51AFD7ED558CCDULL;
  k ^= k >> 33;
  k *= 0xC4CEB9FE1A85EC53ULL;
  return k ^ (k >> 33);
}

inline uint64_t MurmurMixK1(uint64_t k1) { return MurmurRotl(k1 * kMurmurC1, 31) * kMurmurC2; }
inline uint64_t MurmurMixK2(uint64_t k2) { return MurmurRotl(k2 * kMurmurC2, 33) * kMurmurC1; }

// The finalization after the blocks and the tail.
inline Hash128 MurmurFinish(uint64_t h1, uint64_t h2, uint64_t len) {
  h1 ^= len;
  h2 ^= len;
  h1 += h2;
  h2 += h1;
  h1 = MurmurFmix64(h1);
  h2 = MurmurFmix64(h2);
  h1 += h2;
  h2 += h1;
  return {h1, h2};
}

// MurmurHash3_x64_128 (Austin Appleby's reference) of `len` bytes at `data`, with h1 = h2 = seed
// at the start: Guava's Hashing.murmur3_128() is seed 0 (murmur3_128(s) is seed (long) s).
inline Hash128 Murmur3x64_128(const void* data, size_t len, uint64_t seed = 0) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  uint64_t h1 = seed, h2 = seed;
  const size_t blocks = len / 16;
  for (size_t b = 0; b < blocks; ++b, p += 16) {
    uint64_t k1, k2;
    std::memcpy(&k1, p, 8);  // little-endian hosts only (as the whole library)
    std::memcpy(&k2, p + 8, 8);
    h1 ^= MurmurMixK1(k1);
    h1 = MurmurRotl(h1, 27) + h2;
    h1 = h1 * 5 + 0x52DCE729;
    h2 ^= MurmurMixK2(k2);
    h2 = MurmurRotl(h2, 31) + h1;
    h2 = h2 * 5 + 0x38495AB5;
  }
  const size_t tail = len & 15;
  uint64_t k1 = 0, k2 = 0;
  for (size_t i = tail; i > 8; --i) k2 = (k2 << 8) | p[i - 1];
  for (size_t i = tail < 8 ? tail : 8; i > 0; --i) k1 = (k1 << 8) | p[i - 1];
  if (tail > 8) h2 ^= MurmurMixK2(k2);
  if (tail > 0) h1 ^= MurmurMixK1(k1);
  return MurmurFinish(h1, h2, len);
}

// The same of an 8-byte key's little-endian bytes (Guava's longFunnel) and of a 4-byte key's
// (integerFunnel): one tail word, no block.
inline Hash128 Murmur3U64(uint64_t key, uint64_t seed = 0) {
  return MurmurFinish(seed ^ MurmurMixK1(key), seed, 8);
}
inline Hash128 Murmur3U32(uint32_t key, uint64_t seed = 0) {
  return MurmurFinish(seed ^ MurmurMixK1(key), seed, 4);
}

// x mod (64 * longs) for x < 2^63 and 1 <= longs < 2^31, exactly, with no division: x mod 64L =
// ((x >> 6) mod L) * 64 + (x & 63), and y mod L for y = x >> 6 < 2^57 from the reciprocal
// R = floor((2^64 - 1) / L): q = mulhi(y, R) is floor(y / L) or one less (y R / 2^64 > y / L -
// 2y / 2^64 > y / L - 2^-6), so r = y - q L is in [0, 2L) and one conditional subtraction ends it.
// lib/FORMAT.md gives the proof; tests/guava_test.cc checks the edges against `%`.
struct GuavaMod {
  uint64_t longs;
  uint64_t recip;
  explicit GuavaMod(uint64_t num_longs) : longs(num_longs), recip(~uint64_t{0} / num_longs) {}
  uint64_t operator()(uint64_t x) const {
    const uint64_t y = x >> 6;
    const uint64_t q = static_cast<uint64_t>((static_cast<unsigned __int128>(y) * recip) >> 64);
    uint64_t r = y - q * longs;
    r = r >= longs ? r - longs : r;
    return (r << 6) | (x & 63);
  }
};

// MURMUR128_MITZ_64 (Guava's ordinal 1): probe i (0 <= i < k) is bit (c_i & Long.MAX_VALUE) mod m,
// c_i = h1 + i * h2 (64-bit wrap), m = 64 * longs. Calls visit(bit) for each; stops early when it
// returns false; returns whether every call returned true.
template <class Visit>
inline bool GuavaMitz64Probes(const GuavaMod& mod, uint32_t k, Hash128 h, const Visit& visit) {
  uint64_t c = h.h1;
  for (uint32_t i = 0; i < k; ++i, c += h.h2) {
    if (!visit(mod(c & 0x7FFFFFFFFFFFFFFFULL))) return false;
  }
  return true;
}

// MURMUR128_MITZ_32 (ordinal 0): a = (int) h64, b = (int) (h64 >>> 32) with h64 = h1; probe i
// (1 <= i <= k) is c = a + i * b (32-bit wrap), complemented when negative, mod m.
inline uint64_t GuavaMitz32Value(uint64_t h64, uint32_t i) {
  const uint32_t c = static_cast<uint32_t>(h64) + i * static_cast<uint32_t>(h64 >> 32);
  return (c >> 31) != 0 ? static_cast<uint32_t>(~c) : c;
}
template <class Visit>
inline bool GuavaMitz32Probes(const GuavaMod& mod, uint32_t k, uint64_t h64, const Visit& visit) {
  for (uint32_t i = 1; i <= k; ++i) {
    if (!visit(mod(GuavaMitz32Value(h64, i)))) return false;
  }
  return true;
}

// The 128-bit hash of key i of a batch (KeySource semantics, kernels/interface.h): the Murmur3 (with
// `seed`, the filter's: 0 for Guava's filters) of its funnel bytes (u64 keys: 8 little-endian
// bytes; u32: 4; byte strings: the source's hash128_fn); pre-hashed keys are h1 with h2 = 0 (all
// MITZ_32 reads; MITZ_64 refuses them in the library).
inline Hash128 Murmur128OfKey(const detail::KeySource& keys, size_t i, uint64_t seed) {
  const size_t at = keys.sel != nullptr ? keys.sel[i] : i;
  switch (keys.kind) {
    case detail::KeyKind::kU64:
      return Murmur3U64(detail::LoadU64(static_cast<const uint64_t*>(keys.keys) + at), seed);
    case detail::KeyKind::kU32: {
      uint32_t key;
      std::memcpy(&key, static_cast<const uint32_t*>(keys.keys) + at, 4);
      return Murmur3U32(key, seed);
    }
    case detail::KeyKind::kHashes:
      return {detail::LoadU64(static_cast<const uint64_t*>(keys.keys) + at), 0};
    case detail::KeyKind::kHashFn: {
      Hash128 h;
      keys.hash128_fn(keys.ctx, keys.sel, i, 1, &h.h1, &h.h2);
      return h;
    }
  }
  return {0, 0};
}

}  // namespace scalar
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_SCALAR_GUAVA_H_
