// SPDX-License-Identifier: Apache-2.0
// Per-target block512 kernels (lib/FORMAT.md): the lane-parallel in-block mask and the apply step
// of the tiled pipeline (block index, prefetch, insert or test). Re-included once per target.
#if defined(SIMDBLOOM_KERNELS_BLOCK512_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMDBLOOM_KERNELS_BLOCK512_INL_H_
#undef SIMDBLOOM_KERNELS_BLOCK512_INL_H_
#else
#define SIMDBLOOM_KERNELS_BLOCK512_INL_H_
#endif

#include <cstring>

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "kernels/block512/spec.h"
#include "kernels/concurrency.h"
#include "kernels/interface.h"
#include "kernels/simd/ops-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simdbloom {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The in-block mask of one key, 8 u64 word lanes processed N at a time (N = 1, 2, 4 or 8). Probe
// i of a key goes to word (w0 + i) mod 8, so whether word w gets a probe of round r depends only
// on w0 and k: a constant table of lane masks per k and w0 (spec.h) replaces that arithmetic.
template <class D>
class Block512Mask {
 public:
  using V = hn::Vec<D>;

  Block512Mask(D d, uint32_t k)
      : active_(detail::kBlock512LaneMasks.mask[k]),
        two_rounds_(k > 8),
        chunks_(8 / hn::Lanes(d)) {}

  bool two_rounds() const { return two_rounds_; }

  // The key's multiplier operand in every lane (simd/ops-inl.h).
  static HWY_INLINE V Operand(D d, uint64_t h) { return KeyOperand(d, h); }

  // Bit positions lo32(a * M[t]) >> 26 of word lanes [c*N, c*N + N).
  template <int kRound>
  static HWY_INLINE V Bits(D d, V a, size_t c) {
    const V m = hn::Load(d, kMult64.m + 8 * kRound + c * hn::Lanes(d));
#if HWY_TARGET == HWY_SCALAR
    return hn::And(hn::ShiftRight<26>(MulU32ToU64(d, a, m)), hn::Set(d, uint64_t{63}));
#else
    // M[t] has a zero upper half, so a 32-bit multiply of the u32 lanes leaves lo32(a * M[t]) in
    // each u64 lane, zero-extended: one shift gives the bit position.
    const hn::Repartition<uint32_t, D> d32;
    return hn::ShiftRight<26>(hn::BitCast(d, hn::Mul(hn::BitCast(d32, a), hn::BitCast(d32, m))));
#endif
  }

  // Byte offset of the lane-mask table of w0 = hi32(h) mod 8 (computed per tile by Locate).
  static constexpr uint64_t kTableBytes = 2 * 8 * sizeof(uint64_t);

  // Mask for word lanes [c*N, c*N + N) of a key; `table` = the key's lane masks.
  template <bool kTwoRounds>
  HWY_INLINE V Chunk(D d, V a, const uint64_t* HWY_RESTRICT table, size_t c) const {
    const size_t N = hn::Lanes(d);
    const V one = hn::Set(d, uint64_t{1});
    V mask = hn::And(ShlVar(one, Bits<0>(d, a, c)), hn::Load(d, table + c * N));
    if constexpr (kTwoRounds) {
      mask = hn::Or(mask, hn::And(ShlVar(one, Bits<1>(d, a, c)), hn::Load(d, table + 8 + c * N)));
    }
    return mask;
  }

  // (Byte arithmetic: dividing the offset by 8 made GCC mask its low bits on every key.)
  HWY_INLINE const uint64_t* Table(uint64_t table_offset) const {
    return reinterpret_cast<const uint64_t*>(reinterpret_cast<const char*>(&active_[0][0][0]) +
                                             table_offset);
  }

  // Sets the key's bits; returns true if any was clear.
  template <bool kTwoRounds>
  HWY_INLINE bool Insert(D d, uint64_t* HWY_RESTRICT block, uint64_t h,
                         uint64_t table_offset) const {
    const size_t N = hn::Lanes(d);
    const V a = Operand(d, h);
    const uint64_t* table = Table(table_offset);
    V missing = hn::Zero(d);
    for (size_t c = 0; c < chunks_; ++c) {
      uint64_t* p = block + c * N;
      const V old = hn::Load(d, p);
      const V mask = Chunk<kTwoRounds>(d, a, table, c);
      missing = hn::Or(missing, hn::AndNot(old, mask));
      hn::Store(hn::Or(old, mask), d, p);
    }
    return !AllZero(d, missing);
  }

  // Insert with each of the block's words ORed atomically (only the apply is atomic: the masks are
  // computed in vectors, then stored to the stack and ORed word by word).
  template <bool kTwoRounds>
  HWY_INLINE bool InsertAtomic(D d, uint64_t* HWY_RESTRICT block, uint64_t h,
                               uint64_t table_offset) const {
    const size_t N = hn::Lanes(d);
    const V a = Operand(d, h);
    const uint64_t* table = Table(table_offset);
    HWY_ALIGN uint64_t masks[8];
    for (size_t c = 0; c < chunks_; ++c)
      hn::Store(Chunk<kTwoRounds>(d, a, table, c), d, masks + c * N);
    uint64_t missing = 0;
    for (size_t w = 0; w < 8; ++w) missing |= detail::AtomicOr(block + w, masks[w]);
    return missing != 0;
  }

  template <bool kTwoRounds>
  HWY_INLINE bool Contains(D d, const uint64_t* HWY_RESTRICT block, uint64_t h,
                           uint64_t table_offset) const {
    const size_t N = hn::Lanes(d);
    const V a = Operand(d, h);
    const uint64_t* table = Table(table_offset);
    V missing = hn::Zero(d);
    for (size_t c = 0; c < chunks_; ++c) {
      missing = hn::Or(missing,
                       hn::AndNot(hn::Load(d, block + c * N), Chunk<kTwoRounds>(d, a, table, c)));
    }
    return AllZero(d, missing);
  }

 private:
  const uint64_t (*active_)[2][8];  // [w0][round][word]: all ones if the word gets a probe
  bool two_rounds_;
  size_t chunks_;
};

// block512 in the tiled pipeline (simd/pipeline-inl.h): one cache line per key. Locate turns each
// hash into the byte offsets of its block and of its lane-mask table, so Apply is loads and vector
// ops.
struct Block512 {
  static constexpr bool kXxh64 = detail::Block512Spec::kXxh64;
  static constexpr size_t kTileKeys = kTile;
  struct Tile {
    HWY_ALIGN uint64_t offset[kTileKeys];  // byte offset of the key's block
    HWY_ALIGN uint64_t table[kTileKeys];   // byte offset of the key's lane masks (w0 * 128)
  };
  static constexpr bool kExactHits = true;  // Apply: hits[j0 .. j1) only; a query's, counted
  using D = hn::CappedTag<uint64_t, 8>;
  struct State {
    explicit State(const detail::Params& p) : mask(D(), p.k) {}
    Block512Mask<D> mask;
  };

  static HWY_INLINE void Locate(const detail::Params& p, const uint64_t* HWY_RESTRICT hashes,
                                size_t j0, size_t j1, Tile& tile) {
    const hn::ScalableTag<uint64_t> d;
    const auto nb = hn::Set(d, p.num_blocks);
    const auto seven = hn::Set(d, uint64_t{7});
    static_assert(Block512Mask<D>::kTableBytes == 128, "w0 * 128");
    ForEachHashVector(d, hashes, j0, j1, [&](hn::Vec<decltype(d)> h, size_t j) HWY_ATTR {
      const auto hi = hn::ShiftRight<32>(h);
      hn::Store(hn::ShiftLeft<6>(hn::ShiftRight<32>(MulU32ToU64(d, hi, nb))), d, tile.offset + j);
      hn::Store(hn::ShiftLeft<7>(hn::And(hi, seven)), d, tile.table + j);
    });
  }

  template <detail::Op kOp>
  static HWY_INLINE void Prefetch(const uint64_t* words, const detail::Params&, const Tile& tile,
                                  size_t j) {
    PrefetchLine<kOp>(reinterpret_cast<const char*>(words) + tile.offset[j]);
  }

  template <detail::Op kOp, class A>
  static HWY_INLINE size_t Apply(WordsPtr<kOp> words, const detail::Params&, const State& state,
                                 const uint64_t* HWY_RESTRICT hashes, const Tile& tile, size_t j0,
                                 size_t j1, uint8_t* HWY_RESTRICT hits, const A& ahead) {
    // k <= 8 (one round of probes) is the common case; k > 8 gets its own loop.
    return state.mask.two_rounds()
               ? ApplyT<kOp, true>(words, state.mask, hashes, tile, j0, j1, hits, ahead)
               : ApplyT<kOp, false>(words, state.mask, hashes, tile, j0, j1, hits, ahead);
  }

  // One key per call (Filter's single-key insert/contains, through LayoutKernels::insert_one /
  // contains_one). The lanes a probe reaches come from arithmetic, (w - w0) mod 8 < k (and < k - 8
  // for the second round), instead of the bulk call's per-call table. Only where the 8 words fit in
  // at most two vectors (x86 AVX2 and up): with narrower vectors the inline scalar path
  // (detail/one_key/scalar.hpp), which needs no call, is as fast.
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
  static constexpr bool kOneKey = true;
#else
  static constexpr bool kOneKey = false;
#endif
  static bool InsertOne(uint64_t* block, uint64_t h, uint32_t k) {
    return OneKey<true>(block, h, k);
  }
  static bool ContainsOne(const uint64_t* block, uint64_t h, uint32_t k) {
    return OneKey<false>(const_cast<uint64_t*>(block), h, k);
  }

 private:
  template <bool kInsert>
  static HWY_INLINE bool OneKey(uint64_t* HWY_RESTRICT block, uint64_t h, uint32_t k) {
    const D d;
    const hn::RebindToSigned<D> di;
    using Mask = Block512Mask<D>;
    const size_t N = hn::Lanes(d);
    const auto a = Mask::Operand(d, h);
    const auto w0 = hn::Set(di, static_cast<int64_t>((h >> 32) & 7));
    const auto seven = hn::Set(di, int64_t{7});
    const auto k1 = hn::Set(di, static_cast<int64_t>(k));
    const auto one = hn::Set(d, uint64_t{1});
    auto missing = hn::Zero(d);
    for (size_t c = 0; c < 8 / N; ++c) {
      const auto rel = hn::And(hn::Sub(hn::Iota(di, static_cast<int64_t>(c * N)), w0), seven);
      auto mask = hn::IfThenElseZero(hn::RebindMask(d, hn::Lt(rel, k1)),
                                     ShlVar(one, Mask::template Bits<0>(d, a, c)));
      if (k > 8) {
        const auto k2 = hn::Set(di, static_cast<int64_t>(k) - 8);
        mask = hn::Or(mask, hn::IfThenElseZero(hn::RebindMask(d, hn::Lt(rel, k2)),
                                               ShlVar(one, Mask::template Bits<1>(d, a, c))));
      }
      const auto old = hn::Load(d, block + c * N);
      missing = hn::Or(missing, hn::AndNot(old, mask));
      if constexpr (kInsert) hn::Store(hn::Or(old, mask), d, block + c * N);
    }
    return kInsert ? !AllZero(d, missing) : AllZero(d, missing);
  }

  template <detail::Op kOp, bool kTwoRounds, class A>
  static HWY_INLINE size_t ApplyT(WordsPtr<kOp> words, const Block512Mask<D>& mask,
                                  const uint64_t* HWY_RESTRICT hashes, const Tile& tile, size_t j0,
                                  size_t j1, uint8_t* HWY_RESTRICT hits, const A& ahead) {
    const D d;
    using Byte = std::conditional_t<detail::Mutates(kOp), char, const char>;
    Byte* base = reinterpret_cast<Byte*>(words);
    size_t changed = 0;
    for (size_t j = j0; j < j1; ++j) {
      ahead(j);
      if constexpr (kOp == detail::Op::kInsertAtomic) {
        const bool fresh = mask.template InsertAtomic<kTwoRounds>(
            d, reinterpret_cast<uint64_t*>(base + tile.offset[j]), hashes[j], tile.table[j]);
        if (hits != nullptr) hits[j] = fresh;
        changed += fresh;
      } else if constexpr (detail::Mutates(kOp)) {
        const bool fresh = mask.template Insert<kTwoRounds>(
            d, reinterpret_cast<uint64_t*>(base + tile.offset[j]), hashes[j], tile.table[j]);
        if (hits != nullptr) hits[j] = fresh;
        changed += fresh;
      } else {
        const bool hit = mask.template Contains<kTwoRounds>(
            d, reinterpret_cast<const uint64_t*>(base + tile.offset[j]), hashes[j], tile.table[j]);
        hits[j] = hit;
        changed += hit;
      }
    }
    return changed;
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace simdbloom
HWY_AFTER_NAMESPACE();

#endif  // include guard
