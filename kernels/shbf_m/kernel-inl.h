// SPDX-License-Identifier: Apache-2.0
// Per-target shifting kernels (lib/FORMAT.md, spec.h): block512's lane-parallel in-block mask with
// a second bit per word at the key's offset, and the apply step of the tiled pipeline. Re-included
// once per target.
#if defined(SIMDBLOOM_KERNELS_SHBF_M_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMDBLOOM_KERNELS_SHBF_M_INL_H_
#undef SIMDBLOOM_KERNELS_SHBF_M_INL_H_
#else
#define SIMDBLOOM_KERNELS_SHBF_M_INL_H_
#endif

#include <cstring>

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "kernels/bits.h"
#include "kernels/concurrency.h"
#include "kernels/interface.h"
#include "kernels/shbf_m/spec.h"
#include "kernels/simd/ops-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simdbloom {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The in-block mask of one key, 8 u64 word lanes processed N at a time. Whether word w holds a
// pair, and whether the pair has its second bit, depends only on w0 and k: a constant table of lane
// masks per k and w0 (spec.h).
template <class D>
class ShiftingMask {
 public:
  using V = hn::Vec<D>;

  ShiftingMask(D d, uint32_t k)
      : active_(detail::kShiftingLaneMasks.mask[k]), even_(k % 2 == 0), chunks_(8 / hn::Lanes(d)) {}

  // lo32(h) in every lane (simd/ops-inl.h).
  static HWY_INLINE V Operand(D d, uint64_t h) { return KeyOperand(d, h); }

  // Bit positions lo32(a * M[w]) >> 26 of word lanes [c*N, c*N + N).
  static HWY_INLINE V Bits(D d, V a, size_t c) {
    const V m = hn::Load(d, kMult64.m + c * hn::Lanes(d));
#if HWY_TARGET == HWY_SCALAR
    return hn::And(hn::ShiftRight<26>(MulU32ToU64(d, a, m)), hn::Set(d, uint64_t{63}));
#else
    const hn::Repartition<uint32_t, D> d32;
    return hn::ShiftRight<26>(hn::BitCast(d, hn::Mul(hn::BitCast(d32, a), hn::BitCast(d32, m))));
#endif
  }

  static constexpr uint64_t kTableBytes = 2 * 8 * sizeof(uint64_t);

  // The first bits of lanes [c*N, c*N + N) rotated left by o (each lane by the key's offset).
  static HWY_INLINE V Rotated(D d, V first, V bits, V o) {
    (void)first;  // AVX3's vprolvq path only
#if HWY_TARGET == HWY_AVX3
    (void)d;
    (void)bits;
    if constexpr (sizeof(first.raw) == 64) {  // one vprolvq
      return V{_mm512_rolv_epi64(first.raw, o.raw)};
    }
#endif
    return ShlVar(hn::Set(d, uint64_t{1}), hn::And(hn::Add(bits, o), hn::Set(d, uint64_t{63})));
  }

  // Mask for word lanes [c*N, c*N + N): bit b and bit (b + o) mod 64 where active. With k even
  // every pair has both bits, so one lane mask serves both.
  HWY_INLINE V Chunk(D d, V a, V o, const uint64_t* HWY_RESTRICT table, size_t c) const {
    const size_t N = hn::Lanes(d);
    const V bits = Bits(d, a, c);
    const V first = ShlVar(hn::Set(d, uint64_t{1}), bits);
    const V second = Rotated(d, first, bits, o);
    if (even_) return hn::And(hn::Or(first, second), hn::Load(d, table + c * N));
    return hn::Or(hn::And(first, hn::Load(d, table + c * N)),
                  hn::And(second, hn::Load(d, table + 8 + c * N)));
  }

  HWY_INLINE const uint64_t* Table(uint64_t table_offset) const {
    return reinterpret_cast<const uint64_t*>(reinterpret_cast<const char*>(&active_[0][0][0]) +
                                             table_offset);
  }

  HWY_INLINE bool Insert(D d, uint64_t* HWY_RESTRICT block, uint64_t h, uint64_t o,
                         uint64_t table_offset) const {
    const size_t N = hn::Lanes(d);
    const V a = Operand(d, h), ov = hn::Set(d, o);
    const uint64_t* table = Table(table_offset);
    V missing = hn::Zero(d);
    for (size_t c = 0; c < chunks_; ++c) {
      uint64_t* p = block + c * N;
      const V old = hn::Load(d, p);
      const V mask = Chunk(d, a, ov, table, c);
      missing = hn::Or(missing, hn::AndNot(old, mask));
      hn::Store(hn::Or(old, mask), d, p);
    }
    return !AllZero(d, missing);
  }

  // Insert with each word ORed atomically (masks computed in vectors, ORed word by word).
  HWY_INLINE bool InsertAtomic(D d, uint64_t* HWY_RESTRICT block, uint64_t h, uint64_t o,
                               uint64_t table_offset) const {
    const size_t N = hn::Lanes(d);
    const V a = Operand(d, h), ov = hn::Set(d, o);
    const uint64_t* table = Table(table_offset);
    HWY_ALIGN uint64_t masks[8];
    for (size_t c = 0; c < chunks_; ++c) hn::Store(Chunk(d, a, ov, table, c), d, masks + c * N);
    uint64_t missing = 0;
    for (size_t w = 0; w < 8; ++w) missing |= detail::AtomicOr(block + w, masks[w]);
    return missing != 0;
  }

  HWY_INLINE bool Contains(D d, const uint64_t* HWY_RESTRICT block, uint64_t h, uint64_t o,
                           uint64_t table_offset) const {
    const size_t N = hn::Lanes(d);
    const V a = Operand(d, h), ov = hn::Set(d, o);
    const uint64_t* table = Table(table_offset);
    V missing = hn::Zero(d);
    for (size_t c = 0; c < chunks_; ++c) {
      missing = hn::Or(missing, hn::AndNot(hn::Load(d, block + c * N), Chunk(d, a, ov, table, c)));
    }
    return AllZero(d, missing);
  }

 private:
  const uint64_t (*active_)[2][8];  // [w0][first/shifted bit][word]: all ones if set
  bool even_;
  size_t chunks_;
};

// shifting in the tiled pipeline (simd/pipeline-inl.h): one cache line per key. Locate computes,
// a vector of keys at a time, each key's block offset, lane-mask table and offset o(e).
struct Shifting {
  static constexpr bool kXxh64 = detail::ShiftingSpec::kXxh64;
  static constexpr size_t kTileKeys = kTile;
  struct Tile {
    HWY_ALIGN uint64_t offset[kTileKeys];  // byte offset of the key's block
    HWY_ALIGN uint64_t table[kTileKeys];   // byte offset of the key's lane masks (w0 * 128)
    HWY_ALIGN uint64_t shift[kTileKeys];   // o(e), 1..63
  };
  using D = hn::CappedTag<uint64_t, 8>;
  struct State {
    explicit State(const detail::Params& p) : mask(D(), p.k) {}
    ShiftingMask<D> mask;
  };

  static HWY_INLINE void Locate(const detail::Params& p, const uint64_t* HWY_RESTRICT hashes,
                                size_t j0, size_t j1, Tile& tile) {
    const hn::ScalableTag<uint64_t> d;
    const auto nb = hn::Set(d, p.num_blocks);
    const auto seven = hn::Set(d, uint64_t{7});
    const auto low32 = hn::Set(d, uint64_t{0xFFFFFFFFu});
    const auto m8 = hn::Set(d, uint64_t{detail::kMultipliers.m[8]});
    const auto sixty_three = hn::Set(d, uint64_t{63});
    const auto one = hn::Set(d, uint64_t{1});
    static_assert(ShiftingMask<D>::kTableBytes == 128, "w0 * 128");
    ForEachHashVector(d, hashes, j0, j1, [&](hn::Vec<decltype(d)> h, size_t j) HWY_ATTR {
      const auto hi = hn::ShiftRight<32>(h);
      hn::Store(hn::ShiftLeft<6>(hn::ShiftRight<32>(MulU32ToU64(d, hi, nb))), d, tile.offset + j);
      hn::Store(hn::ShiftLeft<7>(hn::And(hi, seven)), d, tile.table + j);
      const auto r = hn::And(MulU32ToU64(d, hn::And(h, low32), m8), low32);
      hn::Store(hn::Add(hn::ShiftRight<32>(MulU32ToU64(d, r, sixty_three)), one), d,
                tile.shift + j);
    });
  }

  template <detail::Op kOp>
  static HWY_INLINE void Prefetch(const uint64_t* words, const detail::Params&, const Tile& tile,
                                  size_t j) {
    PrefetchLine<kOp>(reinterpret_cast<const char*>(words) + tile.offset[j]);
  }

#if HWY_TARGET == HWY_SCALAR
  // One lane per vector: the lane-parallel mask would visit all 8 words of the line; word by word,
  // a key touches only its ceil(k/2) words (the paper's half of the word reads). Tests every pair
  // without an early exit, as the single-key paths do. Returns the bits that were clear.
  template <detail::Op kOp>
  static HWY_INLINE uint64_t Pairs(WordsPtr<kOp> block, uint32_t k, uint64_t h, uint64_t o,
                                   uint64_t table_offset) {
    const uint32_t a = static_cast<uint32_t>(h);
    const uint32_t w0 = static_cast<uint32_t>(table_offset >> 7);
    uint64_t missing = 0;
    for (uint32_t i = 0; 2 * i < k; ++i) {
      const uint32_t w = (w0 + i) & 7;
      const uint32_t b = (a * detail::kMultipliers.m[w]) >> 26;
      uint64_t mask = uint64_t{1} << b;
      if (2 * i + 1 < k) mask |= uint64_t{1} << ((b + o) & 63);
      if constexpr (kOp == detail::Op::kInsertAtomic) {
        missing |= detail::AtomicOr(block + w, mask);
      } else if constexpr (detail::Mutates(kOp)) {
        const uint64_t old = block[w];
        missing |= mask & ~old;
        block[w] = old | mask;
      } else {
        missing |= mask & ~block[w];
      }
    }
    return missing;
  }

  template <detail::Op kOp, class A>
  static HWY_INLINE size_t Apply(WordsPtr<kOp> words, const detail::Params& p, const State&,
                                 const uint64_t* HWY_RESTRICT hashes, const Tile& tile, size_t j0,
                                 size_t j1, uint8_t* HWY_RESTRICT hits, const A& ahead) {
    using Byte = std::conditional_t<detail::Mutates(kOp), char, const char>;
    using Word = std::conditional_t<detail::Mutates(kOp), uint64_t, const uint64_t>;
    Byte* base = reinterpret_cast<Byte*>(words);
    size_t changed = 0;
    for (size_t j = j0; j < j1; ++j) {
      ahead(j);
      const uint64_t missing = Pairs<kOp>(reinterpret_cast<Word*>(base + tile.offset[j]), p.k,
                                          hashes[j], tile.shift[j], tile.table[j]);
      if constexpr (detail::Mutates(kOp)) {
        const bool fresh = missing != 0;
        if (hits != nullptr) hits[j] = fresh;
        changed += fresh;
      } else {
        hits[j] = missing == 0;
      }
    }
    return changed;
  }
#else
  template <detail::Op kOp, class A>
  static HWY_INLINE size_t Apply(WordsPtr<kOp> words, const detail::Params&, const State& state,
                                 const uint64_t* HWY_RESTRICT hashes, const Tile& tile, size_t j0,
                                 size_t j1, uint8_t* HWY_RESTRICT hits, const A& ahead) {
    const D d;
    using Byte = std::conditional_t<detail::Mutates(kOp), char, const char>;
    Byte* base = reinterpret_cast<Byte*>(words);
    const ShiftingMask<D>& mask = state.mask;
    size_t changed = 0;
    for (size_t j = j0; j < j1; ++j) {
      ahead(j);
      if constexpr (kOp == detail::Op::kInsertAtomic) {
        const bool fresh = mask.InsertAtomic(d, reinterpret_cast<uint64_t*>(base + tile.offset[j]),
                                             hashes[j], tile.shift[j], tile.table[j]);
        if (hits != nullptr) hits[j] = fresh;
        changed += fresh;
      } else if constexpr (detail::Mutates(kOp)) {
        const bool fresh = mask.Insert(d, reinterpret_cast<uint64_t*>(base + tile.offset[j]),
                                       hashes[j], tile.shift[j], tile.table[j]);
        if (hits != nullptr) hits[j] = fresh;
        changed += fresh;
      } else {
        hits[j] = mask.Contains(d, reinterpret_cast<const uint64_t*>(base + tile.offset[j]),
                                hashes[j], tile.shift[j], tile.table[j]);
      }
    }
    return changed;
  }
#endif
};

}  // namespace HWY_NAMESPACE
}  // namespace simdbloom
HWY_AFTER_NAMESPACE();

#endif  // include guard
