// Per-target bulk hashing: XXH3-64 of 8-byte keys, bit-exact with libxxhash's
// XXH3_64bits_withSeed (xxHash 0.8, the 4..8-byte path). Re-included once per Highway target.
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

// out[i] = XXH3(keys[i]); keys may be unaligned. The tail runs through the same vector code on a
// zero-padded copy, so every key is hashed by one definition.
HWY_INLINE void HashU64Impl(const uint64_t* HWY_RESTRICT keys, size_t n, uint64_t seed,
                            uint64_t* HWY_RESTRICT out) {
  const hn::ScalableTag<uint64_t> d;
  const size_t N = hn::Lanes(d);
  const auto bitflip = hn::Set(d, Xxh3Len8Bitflip(seed));
  size_t i = 0;
  for (; i + N <= n; i += N) {
    hn::StoreU(Xxh3Len8(d, hn::LoadU(d, keys + i), bitflip), d, out + i);
  }
  if (i < n) {
    HWY_ALIGN uint64_t buf[HWY_MAX_BYTES / sizeof(uint64_t)] = {};
    const size_t rest = n - i;
    std::memcpy(buf, keys + i, rest * sizeof(uint64_t));
    hn::Store(Xxh3Len8(d, hn::Load(d, buf), bitflip), d, buf);
    std::memcpy(out + i, buf, rest * sizeof(uint64_t));
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace simdbloom
HWY_AFTER_NAMESPACE();

#endif  // include guard
