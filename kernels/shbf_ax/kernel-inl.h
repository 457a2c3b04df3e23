// SPDX-License-Identifier: Apache-2.0
// Per-target kernel of the shifting set filters' candidates (kernels/shbf_ax/spec.h):
// for each key, its cache line's 8 words rotated right by the key's 8 bit positions and ANDed — a
// vector of 8 u64 lanes per key (one on AVX-512, with vprorvq), word by word on HWY_SCALAR —
// run in the tile pipeline with the block as its layout (SetScan).
// Re-included once per target; kernels.cc is its per-target unit.
#if defined(SIMDBLOOM_KERNELS_SHBF_AX_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMDBLOOM_KERNELS_SHBF_AX_INL_H_
#undef SIMDBLOOM_KERNELS_SHBF_AX_INL_H_
#else
#define SIMDBLOOM_KERNELS_SHBF_AX_INL_H_
#endif

#include "hwy/highway.h"
#include "kernels/bits.h"
#include "kernels/interface.h"
#include "kernels/shbf_ax/spec.h"
#include "kernels/simd/ops-inl.h"
#include "kernels/simd/pipeline-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simdbloom {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

inline uint64_t Rotr64(uint64_t x, uint32_t r) { return (x >> r) | (x << ((64 - r) & 63)); }

#if HWY_TARGET != HWY_SCALAR
// Each lane of w rotated right by the lane of `bits` (0..63).
template <class D, class V = hn::Vec<D>>
HWY_INLINE V RotrLanes(D d, V w, V bits) {
#if HWY_TARGET == HWY_AVX3
  if constexpr (sizeof(w.raw) == 64) {
    (void)d;
    return V{_mm512_rorv_epi64(w.raw, bits.raw)};
  }
#endif
  // bits = 0: both shifts by 0, w | w = w.
  return hn::Or(ShrVar(w, bits), ShlVar(w, hn::And(hn::Sub(hn::Set(d, uint64_t{64}), bits),
                                                   hn::Set(d, uint64_t{63}))));
}

template <class D, class V = hn::Vec<D>>
HWY_INLINE uint64_t AndOfLanes(D d, V v) {
#if HWY_TARGET == HWY_AVX3
  if constexpr (sizeof(v.raw) == 64) {
    (void)d;
    return static_cast<uint64_t>(_mm512_reduce_and_epi64(v.raw));
  }
#endif
  HWY_ALIGN uint64_t lanes[HWY_MAX_BYTES / sizeof(uint64_t)];
  hn::Store(v, d, lanes);
  uint64_t r = ~uint64_t{0};
  for (size_t i = 0; i < hn::Lanes(d); ++i) r &= lanes[i];
  return r;
}
#endif

// The candidates of the key with hash h in `block` (its 8 words).
HWY_INLINE uint64_t CandidatesOf(const uint64_t* HWY_RESTRICT block, uint64_t h) {
#if HWY_TARGET == HWY_SCALAR
  const uint32_t a = static_cast<uint32_t>(h);
  uint64_t c = ~uint64_t{0};
  for (uint32_t w = 0; w < 8; ++w) c &= Rotr64(block[w], (a * detail::kMultipliers.m[w]) >> 26);
  return c;
#else
  const hn::CappedTag<uint64_t, 8> d;
  const hn::Repartition<uint32_t, decltype(d)> d32;
  const size_t N = hn::Lanes(d);
  const auto a = hn::Set(d32, static_cast<uint32_t>(h));
  auto acc = hn::Set(d, ~uint64_t{0});
  for (size_t c = 0; c < 8; c += N) {
    // lo32(a * M[w]) in each u64 lane (M[w] < 2^32: the odd u32 lanes multiply by 0).
    const auto prod = hn::BitCast(d, hn::Mul(a, hn::BitCast(d32, hn::Load(d, kMult64.m + c))));
    acc = hn::And(acc, RotrLanes(d, hn::LoadU(d, block + c), hn::ShiftRight<26>(prod)));
  }
  return AndOfLanes(d, acc);
#endif
}

// The shifting sets' block as a layout of the tile pipeline: its cell is a block of 8 words read
// as a whole, its one operation (Op::kQuery) the candidates word of each key (Out = uint64_t).
struct SetScan {
  using Out = uint64_t;
  static constexpr bool kXxh64 = false;
  static constexpr size_t kTileKeys = kTile;
  struct Tile {
    uint64_t index[kTile];  // the key's first word
  };
  struct State {
    explicit State(const detail::Params&) {}
  };

  static HWY_INLINE void Locate(const detail::Params& p, const uint64_t* HWY_RESTRICT hashes,
                                size_t j0, size_t j1, Tile& tile) {
    const hn::ScalableTag<uint64_t> d;
    const auto nb = hn::Set(d, p.num_blocks);
    ForEachHashVector(d, hashes, j0, j1, [&](hn::Vec<decltype(d)> h, size_t j) HWY_ATTR {
      const auto block = hn::ShiftRight<32>(MulU32ToU64(d, hn::ShiftRight<32>(h), nb));
      hn::Store(hn::ShiftLeft<3>(block), d, tile.index + j);
    });
  }

  template <detail::Op kOp>
  static HWY_INLINE void Prefetch(WordsPtr<kOp> words, const detail::Params&, const Tile& tile,
                                  size_t j) {
    PrefetchLine<kOp>(words + tile.index[j]);
  }

  template <detail::Op kOp, class Ahead>
  static HWY_INLINE uint64_t Apply(WordsPtr<kOp> words, const detail::Params&, const State&,
                                   const uint64_t* HWY_RESTRICT hashes, const Tile& tile, size_t j0,
                                   size_t j1, Out* HWY_RESTRICT out, const Ahead& ahead) {
    static_assert(kOp == detail::Op::kQuery, "the candidates kernel only reads");
    for (size_t j = j0; j < j1; ++j) {
      ahead(j);
      out[j] = CandidatesOf(words + tile.index[j], hashes[j]);
    }
    return 0;
  }
};

void SetCandidates(const uint64_t* words, const detail::Params& p, const detail::KeySource& keys,
                   size_t n, uint64_t* out) {
  Pipeline<SetScan, detail::Op::kQuery, true>(words, p, keys, n, detail::ResultKind::kBytes, out);
}

const detail::ShiftingSetKernels* SetKernels() {
  static constexpr detail::ShiftingSetKernels kernels = {&SetCandidates};
  return &kernels;
}

}  // namespace HWY_NAMESPACE
}  // namespace simdbloom
HWY_AFTER_NAMESPACE();

#endif  // include guard
