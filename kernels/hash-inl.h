// Per-target bulk hashing of 8-byte keys, bit-exact with libxxhash: XXH3_64bits_withSeed (xxHash
// 0.8, the 4..8-byte path) and XXH64 (split_block256, as Parquet). Re-included once per target.
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

// Low 64 bits of a * c for u64 lanes. x86 before AVX-512DQ has no 64-bit multiply: three 32x32->64
// MulEven (the cross terms only matter modulo 2^32).
template <class D, class V = hn::Vec<D>>
HWY_INLINE V MulLo64(D d, V a, uint64_t c) {
#if HWY_TARGET == HWY_SCALAR
  return hn::Set(d, hn::GetLane(a) * c);
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

// XXH3_64bits_withSeed of the 8 little-endian bytes of each lane.
template <class D, class V = hn::Vec<D>>
HWY_INLINE V Xxh3Len8(D d, V key, V bitflip) {
  constexpr uint64_t kPrime = 0x9FB21C651E98DF25ULL;
  // input64 = readLE32(p + 4) + (readLE32(p) << 32) = rotl(key, 32).
  V h = hn::Xor(hn::RotateRight<32>(key), bitflip);
  // rrmxmx: h ^= rotl(h, 49) ^ rotl(h, 24)
  h = hn::Xor(h, hn::Xor(hn::RotateRight<15>(h), hn::RotateRight<40>(h)));
  h = MulLo64(d, h, kPrime);
  h = hn::Xor(h, hn::Add(hn::ShiftRight<35>(h), hn::Set(d, uint64_t{8})));
  h = MulLo64(d, h, kPrime);
  return hn::Xor(h, hn::ShiftRight<28>(h));
}

// XXH64 of the 8 little-endian bytes of each lane (`start` = seed + PRIME64_5 + 8, broadcast).
template <class D, class V = hn::Vec<D>>
HWY_INLINE V Xxh64Len8(D d, V key, V start) {
  constexpr uint64_t kP1 = 0x9E3779B185EBCA87ULL, kP2 = 0xC2B2AE3D27D4EB4FULL,
                     kP3 = 0x165667B19E3779F9ULL, kP4 = 0x85EBCA77C2B2AE63ULL;
  // One round with a zero accumulator: rotl(input * P2, 31) * P1.
  const V k1 = MulLo64(d, hn::RotateRight<33>(MulLo64(d, key, kP2)), kP1);
  V h = hn::Xor(start, k1);
  h = hn::Add(MulLo64(d, hn::RotateRight<37>(h), kP1), hn::Set(d, kP4));  // rotl(h, 27)
  h = hn::Xor(h, hn::ShiftRight<33>(h));
  h = MulLo64(d, h, kP2);
  h = hn::Xor(h, hn::ShiftRight<29>(h));
  h = MulLo64(d, h, kP3);
  return hn::Xor(h, hn::ShiftRight<32>(h));
}

// Applies `hash(d, key_vector)` to n keys (may be unaligned). The tail runs through the same
// vector code on a zero-padded copy, so every key is hashed by one definition.
template <class Hash>
HWY_INLINE void HashKeys(const uint64_t* HWY_RESTRICT keys, size_t n, uint64_t* HWY_RESTRICT out,
                         const Hash& hash) {
  const hn::ScalableTag<uint64_t> d;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(hash(d, hn::LoadU(d, keys + i)), d, out + i);
  if (i < n) {
    HWY_ALIGN uint64_t buf[HWY_MAX_BYTES / sizeof(uint64_t)] = {};
    const size_t rest = n - i;
    std::memcpy(buf, keys + i, rest * sizeof(uint64_t));
    hn::Store(hash(d, hn::Load(d, buf)), d, buf);
    std::memcpy(out + i, buf, rest * sizeof(uint64_t));
  }
}

// out[i] = XXH3_64bits_withSeed(keys[i]).
HWY_INLINE void HashU64Impl(const uint64_t* HWY_RESTRICT keys, size_t n, uint64_t seed,
                            uint64_t* HWY_RESTRICT out) {
  const uint64_t bitflip = Xxh3Len8Bitflip(seed);
  HashKeys(keys, n, out,
           [bitflip](auto d, auto key) HWY_ATTR { return Xxh3Len8(d, key, hn::Set(d, bitflip)); });
}

// out[i] = XXH64(keys[i], seed).
HWY_INLINE void HashU64Xxh64Impl(const uint64_t* HWY_RESTRICT keys, size_t n, uint64_t seed,
                                 uint64_t* HWY_RESTRICT out) {
  const uint64_t start = seed + 0x27D4EB2F165667C5ULL + 8;
  HashKeys(keys, n, out,
           [start](auto d, auto key) HWY_ATTR { return Xxh64Len8(d, key, hn::Set(d, start)); });
}

}  // namespace HWY_NAMESPACE
}  // namespace simdbloom
HWY_AFTER_NAMESPACE();

#endif  // include guard
