// SPDX-License-Identifier: Apache-2.0
// Per-target bulk hashing of 8- and 4-byte keys, bit-exact with libxxhash: XXH3_64bits_withSeed
// (xxHash 0.8, the 4..8-byte path) and XXH64 (as Parquet; layouts whose spec says kXxh64).
// Re-included per target.
#if defined(SIMDBLOOM_KERNELS_HASH_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMDBLOOM_KERNELS_HASH_INL_H_
#undef SIMDBLOOM_KERNELS_HASH_INL_H_
#else
#define SIMDBLOOM_KERNELS_HASH_INL_H_
#endif

#include <cstring>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace simdbloom {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Low 64 bits of a * c for u64 lanes. AVX-512 (vpmullq, AVX-512DQ) and SVE multiply 64-bit lanes
// natively; x86 before AVX-512 and NEON do not: three 32x32->64 MulEven (the cross terms only
// matter modulo 2^32). XXH3 of an 8-byte key needs two such multiplies, so on AVX3 this halves the
// hashing instructions (the equivalence tests hold both forms to libxxhash's bits).
template <class D, class V = hn::Vec<D>>
HWY_INLINE V MulLo64(D d, V a, uint64_t c) {
#if HWY_TARGET == HWY_SCALAR
  return hn::Set(d, hn::GetLane(a) * c);
#elif HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL || \
    (HWY_TARGET & (HWY_SVE | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128)) != 0
  return hn::Mul(a, hn::Set(d, c));
#else
  const hn::Repartition<uint32_t, D> d32;
  const auto c_lo = hn::BitCast(d32, hn::Set(d, c & 0xFFFFFFFFu));
  const auto c_hi = hn::BitCast(d32, hn::Set(d, c >> 32));
  const V lo = hn::MulEven(hn::BitCast(d32, a), c_lo);
  const V t1 = hn::MulEven(hn::BitCast(d32, hn::ShiftRight<32>(a)), c_lo);
  const V t2 = hn::MulEven(hn::BitCast(d32, a), c_hi);
  return hn::Add(lo, hn::ShiftLeft<32>(hn::Add(t1, t2)));
#endif
}

// XXH3's bitflip for 4..8-byte inputs: (secret[8..15] ^ secret[16..23]) - (seed ^ swap32(seed) <<
// 32) where secret is XXH3's default kSecret.
HWY_INLINE uint64_t Xxh3Len8Bitflip(uint64_t seed) {
  const uint32_t s = static_cast<uint32_t>(seed);
  const uint32_t swapped = (s >> 24) | ((s >> 8) & 0xFF00u) | ((s << 8) & 0xFF0000u) | (s << 24);
  const uint64_t mixed_seed = seed ^ (static_cast<uint64_t>(swapped) << 32);
  return (0x1CAD21F72C81017CULL ^ 0xDB979083E96DD4DEULL) - mixed_seed;
}

// XXH3's rrmxmx finalizer of the 4..8-byte path; `len` is the input length.
template <class D, class V = hn::Vec<D>>
HWY_INLINE V Xxh3Rrmxmx(D d, V h, uint64_t len) {
  constexpr uint64_t kPrime = 0x9FB21C651E98DF25ULL;
  // h ^= rotl(h, 49) ^ rotl(h, 24)
  h = hn::Xor(h, hn::Xor(hn::RotateRight<15>(h), hn::RotateRight<40>(h)));
  h = MulLo64(d, h, kPrime);
  h = hn::Xor(h, hn::Add(hn::ShiftRight<35>(h), hn::Set(d, len)));
  h = MulLo64(d, h, kPrime);
  return hn::Xor(h, hn::ShiftRight<28>(h));
}

// XXH3_64bits_withSeed of the 8 little-endian bytes of each lane.
template <class D, class V = hn::Vec<D>>
HWY_INLINE V Xxh3Len8(D d, V key, V bitflip) {
  // input64 = readLE32(p + 4) + (readLE32(p) << 32) = rotl(key, 32).
  return Xxh3Rrmxmx(d, hn::Xor(hn::RotateRight<32>(key), bitflip), 8);
}

// XXH3_64bits_withSeed of the 4 little-endian bytes of each lane (a u32 in the low half).
template <class D, class V = hn::Vec<D>>
HWY_INLINE V Xxh3Len4(D d, V key, V bitflip) {
  // Both 4-byte reads see the key: input64 = key + (key << 32).
  return Xxh3Rrmxmx(d, hn::Xor(hn::Or(key, hn::ShiftLeft<32>(key)), bitflip), 4);
}

constexpr uint64_t kXxh64P1 = 0x9E3779B185EBCA87ULL, kXxh64P2 = 0xC2B2AE3D27D4EB4FULL,
                   kXxh64P3 = 0x165667B19E3779F9ULL, kXxh64P4 = 0x85EBCA77C2B2AE63ULL,
                   kXxh64P5 = 0x27D4EB2F165667C5ULL;

// XXH64's avalanche.
template <class D, class V = hn::Vec<D>>
HWY_INLINE V Xxh64Avalanche(D d, V h) {
  h = hn::Xor(h, hn::ShiftRight<33>(h));
  h = MulLo64(d, h, kXxh64P2);
  h = hn::Xor(h, hn::ShiftRight<29>(h));
  h = MulLo64(d, h, kXxh64P3);
  return hn::Xor(h, hn::ShiftRight<32>(h));
}

// XXH64 of the 8 little-endian bytes of each lane (`start` = seed + PRIME64_5 + 8, broadcast).
template <class D, class V = hn::Vec<D>>
HWY_INLINE V Xxh64Len8(D d, V key, V start) {
  // One round with a zero accumulator: rotl(input * P2, 31) * P1.
  const V k1 = MulLo64(d, hn::RotateRight<33>(MulLo64(d, key, kXxh64P2)), kXxh64P1);
  const V h = hn::Xor(start, k1);
  // rotl(h, 27) * P1 + P4
  return Xxh64Avalanche(
      d, hn::Add(MulLo64(d, hn::RotateRight<37>(h), kXxh64P1), hn::Set(d, kXxh64P4)));
}

// XXH64 of the 4 little-endian bytes of each lane (`start` = seed + PRIME64_5 + 4, broadcast).
template <class D, class V = hn::Vec<D>>
HWY_INLINE V Xxh64Len4(D d, V key, V start) {
  const V h = hn::Xor(start, MulLo64(d, key, kXxh64P1));
  // rotl(h, 23) * P2 + P3
  return Xxh64Avalanche(
      d, hn::Add(MulLo64(d, hn::RotateRight<41>(h), kXxh64P2), hn::Set(d, kXxh64P3)));
}

// A vector of keys widened to u64 lanes.
template <class D>
HWY_INLINE hn::Vec<D> LoadKeys(D d, const uint64_t* HWY_RESTRICT p) {
  return hn::LoadU(d, p);
}
template <class D>
HWY_INLINE hn::Vec<D> LoadKeys(D d, const uint32_t* HWY_RESTRICT p) {
  return hn::PromoteTo(d, hn::LoadU(hn::Rebind<uint32_t, D>(), p));
}

// Applies `hash(d, key_vector)` to n keys (may be unaligned). The tail runs through the same
// vector code on a zero-padded copy, so every key is hashed by one definition.
template <class T, class Hash>
HWY_INLINE void HashKeys(const T* HWY_RESTRICT keys, size_t n, uint64_t* HWY_RESTRICT out,
                         const Hash& hash) {
  const hn::ScalableTag<uint64_t> d;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(hash(d, LoadKeys(d, keys + i)), d, out + i);
  if (i < n) {
    HWY_ALIGN T buf[HWY_MAX_BYTES / sizeof(uint32_t)] = {};
    HWY_ALIGN uint64_t hashes[HWY_MAX_BYTES / sizeof(uint64_t)];
    const size_t rest = n - i;
    std::memcpy(buf, keys + i, rest * sizeof(T));
    hn::Store(hash(d, LoadKeys(d, buf)), d, hashes);
    std::memcpy(out + i, hashes, rest * sizeof(uint64_t));
  }
}

// The seed-derived constants of both hashes, computed once per bulk call. Recomputing them for
// every step of the tile pipeline stalled each step on AVX2 (Zen 3, GCC 12): the compiler
// spilled the 32-bit byte-swapped seed and reloaded it as 64 bits, a store-to-load forward that
// fails and waits for the store to retire.
struct SeedConsts {
  uint64_t xxh3_bitflip;  // XXH3's 4..8-byte paths
  uint64_t xxh64_start4;  // XXH64 of 4 bytes: seed + PRIME64_5 + 4
  uint64_t xxh64_start8;  // XXH64 of 8 bytes: seed + PRIME64_5 + 8
  uint64_t seed;          // as given (Murmur3's, the Guava layouts)
  explicit SeedConsts(uint64_t s)
      : xxh3_bitflip(Xxh3Len8Bitflip(s)),
        xxh64_start4(s + kXxh64P5 + 4),
        xxh64_start8(s + kXxh64P5 + 8),
        seed(s) {}
};

// out[i] = XXH3_64bits_withSeed(keys[i]), over the key's sizeof(T) bytes.
template <class T>
HWY_INLINE void HashXxh3Impl(const T* HWY_RESTRICT keys, size_t n, const SeedConsts& c,
                             uint64_t* HWY_RESTRICT out) {
  const uint64_t bitflip = c.xxh3_bitflip;
  HashKeys(keys, n, out, [bitflip](auto d, auto key) HWY_ATTR {
    return sizeof(T) == 8 ? Xxh3Len8(d, key, hn::Set(d, bitflip))
                          : Xxh3Len4(d, key, hn::Set(d, bitflip));
  });
}

// out[i] = XXH64(keys[i], seed), over the key's sizeof(T) bytes.
template <class T>
HWY_INLINE void HashXxh64Impl(const T* HWY_RESTRICT keys, size_t n, const SeedConsts& c,
                              uint64_t* HWY_RESTRICT out) {
  const uint64_t start = sizeof(T) == 8 ? c.xxh64_start8 : c.xxh64_start4;
  HashKeys(keys, n, out, [start](auto d, auto key) HWY_ATTR {
    return sizeof(T) == 8 ? Xxh64Len8(d, key, hn::Set(d, start))
                          : Xxh64Len4(d, key, hn::Set(d, start));
  });
}

}  // namespace HWY_NAMESPACE
}  // namespace simdbloom
HWY_AFTER_NAMESPACE();

#endif  // include guard
