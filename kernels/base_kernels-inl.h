// SPDX-License-Identifier: Apache-2.0
// Per-target kernels of what every layout shares: bulk hashing of u64/u32 keys (XXH3, XXH64), the
// block index, hashing any key source, and the word-wise OR/AND of set operations: each target's
// base kernel table (base_kernels.cc compiles it; kernels/dispatch.cc adds the layouts' tables).
// Re-included once per target.
#if defined(SIMDBLOOM_KERNELS_BASE_KERNELS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMDBLOOM_KERNELS_BASE_KERNELS_INL_H_
#undef SIMDBLOOM_KERNELS_BASE_KERNELS_INL_H_
#else
#define SIMDBLOOM_KERNELS_BASE_KERNELS_INL_H_
#endif

#include "hwy/highway.h"
#include "kernels/bits.h"
#include "kernels/interface.h"
#include "kernels/simd/hash-inl.h"
#include "kernels/simd/ops-inl.h"
#include "kernels/simd/sources-inl.h"
#include "kernels/table.h"

HWY_BEFORE_NAMESPACE();
namespace simdbloom {
namespace HWY_NAMESPACE {

void HashU64(const uint64_t* keys, size_t n, uint64_t seed, uint64_t* out) {
  HashXxh3Impl(keys, n, SeedConsts(seed), out);
}

void HashU64Xxh64(const uint64_t* keys, size_t n, uint64_t seed, uint64_t* out) {
  HashXxh64Impl(keys, n, SeedConsts(seed), out);
}

void HashU32(const uint32_t* keys, size_t n, uint64_t seed, uint64_t* out) {
  HashXxh3Impl(keys, n, SeedConsts(seed), out);
}

void HashU32Xxh64(const uint32_t* keys, size_t n, uint64_t seed, uint64_t* out) {
  HashXxh64Impl(keys, n, SeedConsts(seed), out);
}

void HashAny(bool xxh64, const detail::KeySource& keys, size_t n, uint64_t seed, uint64_t* out) {
  HashKeysAny(xxh64, keys, n, seed, out);
}

void BlockIndex(const uint64_t* hashes, size_t n, uint64_t num_blocks, uint64_t* out) {
  BlockIndexImpl(hashes, n, num_blocks, out);
}

template <bool kOr>
void CombineWords(uint64_t* HWY_RESTRICT dst, const uint64_t* HWY_RESTRICT src, size_t n) {
  const hn::ScalableTag<uint64_t> d;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const auto a = hn::Load(d, dst + i), b = hn::Load(d, src + i);
    hn::Store(kOr ? hn::Or(a, b) : hn::And(a, b), d, dst + i);
  }
  for (; i < n; ++i) dst[i] = kOr ? (dst[i] | src[i]) : (dst[i] & src[i]);
}

void OrWords(uint64_t* dst, const uint64_t* src, size_t n) { CombineWords<true>(dst, src, n); }
void AndWords(uint64_t* dst, const uint64_t* src, size_t n) { CombineWords<false>(dst, src, n); }

// This target's base table: everything but the layouts.
const detail::Kernels* BaseKernels() {
  static const detail::Kernels kernels = {hwy::TargetName(HWY_TARGET),
                                          HWY_TARGET,
                                          &HashU64,
                                          &HashU64Xxh64,
                                          &HashU32,
                                          &HashU32Xxh64,
                                          &HashAny,
                                          &BlockIndex,
                                          &OrWords,
                                          &AndWords,
                                          {}};
  return &kernels;
}

}  // namespace HWY_NAMESPACE
}  // namespace simdbloom
HWY_AFTER_NAMESPACE();

#endif  // include guard
