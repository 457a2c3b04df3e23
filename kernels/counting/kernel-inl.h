// SPDX-License-Identifier: Apache-2.0
// Per-target counting kernels (kernels/counting/spec.h, lib/FORMAT.md "Counting filters"): the
// counting cell applied in the tiled pipeline (simd/pipeline-inl.h) over register64's and
// classic's probe positions. Re-included once per target.
#if defined(SIMDBLOOM_KERNELS_COUNTING_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMDBLOOM_KERNELS_COUNTING_INL_H_
#undef SIMDBLOOM_KERNELS_COUNTING_INL_H_
#else
#define SIMDBLOOM_KERNELS_COUNTING_INL_H_
#endif

#include <cstring>

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "kernels/counting/spec.h"
#include "kernels/interface.h"
#include "kernels/simd/ops-inl.h"
#include "kernels/simd/pipeline-inl.h"
#include "kernels/simd/probes-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simdbloom {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Shift of counter word q's 16 mask bits: 16 q.
struct CountingShifts {
  HWY_ALIGN uint64_t s[4] = {0, 16, 32, 48};
};
static constexpr CountingShifts kCountingShifts{};

// The blocked counting filter: a key's 64 counters are 4 u64 words (32 bytes, half a block) at
// word 4W; its mask (register64's) picks up to k of them. The per-key work is SWAR on those 4 words
// in vectors of up to 4 u64 lanes (one AVX2 vector; two SSE4 vectors; 4 steps on HWY_SCALAR):
// the mask is spread to one 1 per selected nibble, then the counters are tested for 0 and 15 and
// added to or subtracted from in parallel.
struct CountingBlocked {
  static constexpr bool kXxh64 = false;
  static constexpr bool kCountOne = true;  // CountingCountOne below is its one-key count
  static constexpr size_t kTileKeys = kTile;
  struct State {
    explicit State(const detail::Params&) {}
  };
  struct Tile {
    HWY_ALIGN uint64_t index[kTileKeys];  // register64 word W: counters at u64 word 4W
    HWY_ALIGN uint64_t mask[kTileKeys];
  };
  using D = hn::CappedTag<uint64_t, 4>;
  using V = hn::Vec<D>;

  static HWY_INLINE void Locate(const detail::Params& p, const uint64_t* HWY_RESTRICT hashes,
                                size_t j0, size_t j1, Tile& tile) {
    static_assert(detail::kCountingWordsPerKey == 4, "a key's words at 4 W: W << 2");
    const hn::ScalableTag<uint64_t> d;
    const auto nw = hn::Set(d, 2 * p.num_blocks);
    ForEachHashVector(d, hashes, j0, j1, [&](hn::Vec<decltype(d)> h, size_t j) HWY_ATTR {
      const auto w = hn::ShiftRight<32>(MulU32ToU64(d, hn::ShiftRight<32>(h), nw));
      hn::Store(hn::ShiftLeft<2>(w), d, tile.index + j);  // CountingBlockedWords (probes.hpp)
      hn::Store(Register64MaskV(d, h, p.k), d, tile.mask + j);
    });
  }

  template <detail::Op kOp>
  static HWY_INLINE void Prefetch(const uint64_t* words, const detail::Params&, const Tile& tile,
                                  size_t j) {
    PrefetchLine<kOp>(words + tile.index[j]);
  }

  // One 1 in each nibble of lanes [c N, c N + N) that the mask selects.
  static HWY_INLINE V Ones(D d, V mask, size_t c) {
    V x = hn::And(ShrVar(mask, hn::Load(d, kCountingShifts.s + c * hn::Lanes(d))),
                  hn::Set(d, uint64_t{0xFFFF}));
    x = hn::And(hn::Or(x, hn::ShiftLeft<24>(x)), hn::Set(d, uint64_t{0x000000FF000000FFull}));
    x = hn::And(hn::Or(x, hn::ShiftLeft<12>(x)), hn::Set(d, uint64_t{0x000F000F000F000Full}));
    x = hn::And(hn::Or(x, hn::ShiftLeft<6>(x)), hn::Set(d, uint64_t{0x0303030303030303ull}));
    return hn::And(hn::Or(x, hn::ShiftLeft<3>(x)), hn::Set(d, detail::kNibbleLow));
  }
  static HWY_INLINE V NonZero(D d, V w) {
    return hn::And(
        hn::Or(hn::Or(w, hn::ShiftRight<1>(w)), hn::Or(hn::ShiftRight<2>(w), hn::ShiftRight<3>(w))),
        hn::Set(d, detail::kNibbleLow));
  }
  static HWY_INLINE V Full(D d, V w) {
    return hn::And(hn::And(hn::And(w, hn::ShiftRight<1>(w)),
                           hn::And(hn::ShiftRight<2>(w), hn::ShiftRight<3>(w))),
                   hn::Set(d, detail::kNibbleLow));
  }

  template <detail::Op kOp, class A>
  static HWY_INLINE size_t Apply(WordsPtr<kOp> words, const detail::Params&, const State&,
                                 const uint64_t* HWY_RESTRICT, const Tile& tile, size_t j0,
                                 size_t j1, uint8_t* HWY_RESTRICT hits, const A& ahead) {
    const D d;
    const size_t N = hn::Lanes(d);
    const size_t chunks = 4 / N;
    size_t total = 0;
    for (size_t j = j0; j < j1; ++j) {
      ahead(j);
      const auto p = words + tile.index[j];
      const V mask = hn::Set(d, tile.mask[j]);
      // Selected counters at 0. (No arrays of vectors: SVE has none; the update below loads and
      // spreads again, which the compiler merges with this pass where the chunk count is fixed.)
      V zero = hn::Zero(d);
      for (size_t c = 0; c < chunks; ++c) {
        zero = hn::Or(zero, hn::AndNot(NonZero(d, hn::LoadU(d, p + c * N)), Ones(d, mask, c)));
      }
      const bool any_zero = !AllZero(d, zero);
      if constexpr (kOp == detail::Op::kQuery) {
        hits[j] = !any_zero;
      } else if constexpr (kOp == detail::Op::kCount) {
        // 0 from the vector test (most absent keys); else the smallest selected counter, a
        // scalar walk over the (at most 16) mask bits.
        uint32_t least = 0;
        if (!any_zero) {
          least = detail::CountingSpec::kMaxCount;
          for (uint64_t m = tile.mask[j]; m != 0; m &= m - 1) {
            const uint32_t c = static_cast<uint32_t>(__builtin_ctzll(m));
            const uint32_t v =
                static_cast<uint32_t>((p[detail::CounterWord(c)] >> detail::CounterShift(c)) & 15);
            least = v < least ? v : least;
          }
        }
        hits[j] = static_cast<uint8_t>(least);
      } else if constexpr (kOp == detail::Op::kInsert) {
        for (size_t c = 0; c < chunks; ++c) {
          const V old = hn::LoadU(d, p + c * N);
          hn::StoreU(hn::Add(old, hn::AndNot(Full(d, old), Ones(d, mask, c))), d, p + c * N);
        }
        if (hits != nullptr) hits[j] = any_zero;
        total += any_zero;
      } else {
        static_assert(kOp == detail::Op::kRemove, "counting ops");
        uint8_t flag = 0;
        if (!any_zero) {
          V step_any = hn::Zero(d);  // the counters decremented: none when all are saturated
          for (size_t c = 0; c < chunks; ++c) {
            const V old = hn::LoadU(d, p + c * N);
            const V step = hn::AndNot(Full(d, old), Ones(d, mask, c));
            hn::StoreU(hn::Sub(old, step), d, p + c * N);
            step_any = hn::Or(step_any, step);
          }
          flag = AllZero(d, step_any) ? 2 : 1;
        }
        if (hits != nullptr) hits[j] = flag;
        total += !any_zero;
      }
    }
    return total;
  }
};

// The classic counting filter: classic's k positions (ClassicPositions::Locate, simd/probes-inl.h,
// vectorized over keys) index
// counters; each key is applied scalar, probe by probe, its repeated positions counted once. Its
// tile, State and Locate are ClassicPositions'.
struct CountingClassic : ClassicPositions {
  static constexpr bool kXxh64 = false;
  static constexpr bool kCountOne = false;  // k counters anywhere: the scalar loop

  // Counter b is nibble b of the array: byte b / 2.
  template <detail::Op kOp>
  static HWY_INLINE void Prefetch(const uint64_t* words, const detail::Params& p, const Tile& tile,
                                  size_t j) {
    const uint32_t probes = detail::Mutates(kOp) ? p.k : HWY_MIN(p.k, p.query_prefetch_probes);
    for (uint32_t i = 0; i < probes; ++i) {
      PrefetchLine<kOp>(reinterpret_cast<const char*>(words) + (tile.bit[i * kTileKeys + j] >> 1));
    }
  }

  template <detail::Op kOp, class A>
  static HWY_INLINE size_t Apply(WordsPtr<kOp> words, const detail::Params& p, const State&,
                                 const uint64_t* HWY_RESTRICT, const Tile& tile, size_t j0,
                                 size_t j1, uint8_t* HWY_RESTRICT hits, const A& ahead) {
    const uint32_t k = p.k;
    const uint64_t* HWY_RESTRICT bit = tile.bit;
    auto get = [&](uint64_t pos) HWY_ATTR {
      return static_cast<uint32_t>((words[pos >> 4] >> (4 * (pos & 15))) & 15);
    };
    size_t total = 0;
    for (size_t j = j0; j < j1; ++j) {
      ahead(j);
      if constexpr (kOp == detail::Op::kInsert) {
        // One pass, load-add-store per probe as the plain classic insert does (a first pass of
        // loads, then the stores, was slower: perf/README.md, design note M14). A repeated
        // position (found by a 64-bit set of the positions' low 6 bits first, pairwise only on a
        // collision) is skipped.
        uint64_t seen = 0;
        bool maybe_repeat = false;
        for (uint32_t i = 0; i < k; ++i) {
          const uint64_t low = uint64_t{1} << (bit[i * kTileKeys + j] & 63);
          maybe_repeat |= (seen & low) != 0;
          seen |= low;
        }
        bool fresh = false;
        for (uint32_t i = 0; i < k; ++i) {
          const uint64_t b = bit[i * kTileKeys + j];
          bool repeat = false;
          if (HWY_UNLIKELY(maybe_repeat)) {
            for (uint32_t q = 0; q < i; ++q) repeat |= bit[q * kTileKeys + j] == b;
          }
          const uint32_t shift = static_cast<uint32_t>(4 * (b & 15));
          const uint64_t w = words[b >> 4];
          const uint64_t v = (w >> shift) & 15;
          fresh |= v == 0;  // (a repeat reads its counter after the first visit: never 0)
          const uint64_t keep = repeat || v == detail::CountingSpec::kMaxCount ? 0 : 1;
          words[b >> 4] = w + (keep << shift);
        }
        if (hits != nullptr) hits[j] = fresh;
        total += fresh;
        continue;
      }
      // Each probe's counter read once; a 64-bit set of the positions' low 6 bits tells when no
      // two probes can share a position (the common case: no pairwise search).
      uint64_t b[kMaxProbes];
      uint32_t v[kMaxProbes];
      uint32_t least = detail::CountingSpec::kMaxCount;
      uint64_t seen = 0;
      bool maybe_repeat = false;
      for (uint32_t i = 0; i < k; ++i) {
        b[i] = bit[i * kTileKeys + j];
        v[i] = get(b[i]);
        least = v[i] < least ? v[i] : least;
        const uint64_t low = uint64_t{1} << (b[i] & 63);
        maybe_repeat |= (seen & low) != 0;
        seen |= low;
        // A counter at 0 decides every op but insert: stop (a large filter prefetched only the
        // first probes' lines; the rest would miss).
        if (kOp != detail::Op::kInsert && v[i] == 0) break;
      }
      if constexpr (kOp == detail::Op::kCount) {
        hits[j] = static_cast<uint8_t>(least);
      } else if constexpr (kOp == detail::Op::kQuery) {
        hits[j] = least != 0;
      } else {
        const bool apply = kOp == detail::Op::kInsert || least != 0;
        if (apply) {
          for (uint32_t i = 0; i < k; ++i) {
            bool repeat = false;  // an earlier probe of this key at the same counter
            if (HWY_UNLIKELY(maybe_repeat)) {
              for (uint32_t q = 0; q < i; ++q) repeat |= b[q] == b[i];
            }
            // v[i] is still current: distinct positions of one key do not change each other.
            // Branch-free: a step of 0 for repeats and saturated counters.
            const uint64_t keep = repeat || v[i] == detail::CountingSpec::kMaxCount ? 0 : 1;
            const uint64_t one = keep << (4 * (b[i] & 15));
            if constexpr (kOp == detail::Op::kInsert) {
              words[b[i] >> 4] += one;
            } else {
              words[b[i] >> 4] -= one;
            }
          }
        }
        // remove: 2 when every counter was saturated (nothing decremented).
        const bool flag = kOp == detail::Op::kInsert ? least == 0 : apply;
        if (hits != nullptr) {
          hits[j] = static_cast<uint8_t>(
              kOp == detail::Op::kRemove && least == detail::CountingSpec::kMaxCount ? 2 : flag);
        }
        total += flag;
      }
    }
    return total;
  }
};

template <class L, detail::Op kOp>
uint64_t CountingMutateT(uint64_t* words, detail::Params p, const detail::KeySource& src, size_t n,
                         uint8_t* flags) {
  return p.prefetch_distance != 0
             ? Pipeline<L, kOp, true>(words, p, src, n, detail::ResultKind::kBytes, flags)
             : Pipeline<L, kOp, false>(words, p, src, n, detail::ResultKind::kBytes, flags);
}

template <class L>
uint64_t CountingCountT(const uint64_t* words, detail::Params p, const detail::KeySource& src,
                        size_t n, uint8_t* out) {
  return p.prefetch_distance != 0 ? Pipeline<L, detail::Op::kCount, true>(
                                        words, p, src, n, detail::ResultKind::kBytes, out)
                                  : Pipeline<L, detail::Op::kCount, false>(
                                        words, p, src, n, detail::ResultKind::kBytes, out);
}

// One key of the blocked geometry per call (CountingKernels::count_one): probe i's counter
// c = lo32(lo32(h) * M[i]) >> 26 is nibble c mod 16 of word c / 16 of the key's 4 words; lane i
// reads it with a table lookup of the word and a variable shift, and the minimum over the k probes
// is taken as in the spatial one-key kernel. Only on x86 AVX2 and up.
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
// (inline: this header is compiled in two units, the blocked and the classic table's)
inline HWY_NOINLINE uint32_t CountingCountOne(const uint64_t* words, uint64_t h, uint32_t k) {
  const hn::CappedTag<uint64_t, 8> d;
  const hn::RebindToSigned<decltype(d)> di;
  const size_t N = hn::Lanes(d);
  const auto a = hn::Set(d, h & 0xFFFFFFFFu);
  const auto probes = hn::Set(di, static_cast<int64_t>(k));
  const auto lane = hn::Iota(di, int64_t{0});
  // The 4 words as the lookup table (indices 0..3), repeated in both halves of an 8-lane vector
  // (the key's words are half a 64-byte block: the other half may lie past the array).
#if HWY_TARGET <= HWY_AVX3
  const hn::Half<decltype(d)> dh;
  const auto quarter = hn::LoadU(dh, words);
  const auto w = hn::Combine(d, quarter, quarter);
#else
  const auto w = hn::LoadU(d, words);
#endif
  MinOfU64Lanes<decltype(d)> least(d);  // lanes past k all ones
  for (size_t c = 0; c < (k + N - 1) / N; ++c) {
    const auto prod = MulU32ToU64(d, a, hn::Load(d, kMult64.m + c * N));
    const auto word = hn::TableLookupLanes(
        w, hn::IndicesFromVec(d, hn::And(hn::ShiftRight<30>(prod), hn::Set(d, uint64_t{3}))));
    const auto nibble = hn::And(hn::ShiftRight<24>(prod), hn::Set(d, uint64_t{0x3C}));
    const auto counter = hn::And(ShrVar(word, nibble), hn::Set(d, uint64_t{15}));
    // (Iota from 0 plus a broadcast: an Iota from a run-time start is built on the stack.)
    const auto exists = hn::Lt(hn::Add(lane, hn::Set(di, static_cast<int64_t>(c * N))), probes);
    least.Add(hn::IfThenElse(hn::RebindMask(d, exists), counter, hn::Set(d, ~uint64_t{0})));
  }
  return least.Get();
}
constexpr uint32_t (*kCountingCountOne)(const uint64_t*, uint64_t, uint32_t) = &CountingCountOne;
#else
constexpr uint32_t (*kCountingCountOne)(const uint64_t*, uint64_t, uint32_t) = nullptr;
#endif

// The geometry's table; the one-key count only for the geometry that declares kCountOne.
template <class L>
const detail::CountingKernels* CountingKernelsOf() {
  static constexpr detail::CountingKernels kernels = {
      &CountingMutateT<L, detail::Op::kInsert>, &CountingMutateT<L, detail::Op::kRemove>,
      &ContainsT<L>, &CountingCountT<L>, L::kCountOne ? kCountingCountOne : nullptr};
  return &kernels;
}

}  // namespace HWY_NAMESPACE
}  // namespace simdbloom
HWY_AFTER_NAMESPACE();

#endif  // include guard
