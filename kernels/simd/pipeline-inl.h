// SPDX-License-Identifier: Apache-2.0
// The tiled pipeline every layout runs in, per target: keys hashed and located a tile ahead, a
// step at a time, while the tile before is applied; rolling software prefetch D keys ahead across
// tiles; the operation (Op: insert, query) applied by the layout's Apply; results emitted per tile.
// A layout is a struct with the members described above Pipeline. Re-included once per target.
#if defined(SIMDBLOOM_KERNELS_SIMD_PIPELINE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMDBLOOM_KERNELS_SIMD_PIPELINE_INL_H_
#undef SIMDBLOOM_KERNELS_SIMD_PIPELINE_INL_H_
#else
#define SIMDBLOOM_KERNELS_SIMD_PIPELINE_INL_H_
#endif

#include <cstring>
#include <type_traits>

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "kernels/concurrency.h"
#include "kernels/interface.h"
#include "kernels/simd/ops-inl.h"
#include "kernels/simd/results-inl.h"
#include "kernels/simd/sources-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simdbloom {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Prefetches, for the key `dist` places after key j of the current tile, what L's Apply will touch
// (crossing into the next tile, located far enough ahead by Pipeline). Layouts call it once per key
// (or per vector of keys) as they apply, so prefetches are issued evenly, one per key: bursts of
// them were measured slower (perf/memory.cc, simdbloom-bench --only memory). Does nothing when
// kEnabled is false.
template <class L, detail::Op kOp, bool kEnabled>
struct Ahead {
  WordsPtr<kOp> words;
  const detail::Params& p;
  const typename L::Tile& cur;
  const typename L::Tile& next;
  size_t m;       // keys of the current tile
  size_t next_m;  // keys of the next tile (0 at the end)
  size_t dist;

  HWY_INLINE void operator()(size_t j) const {
    if constexpr (kEnabled) {
      const size_t q = j + dist;
      if (HWY_LIKELY(q < m)) {
        L::template Prefetch<kOp>(words, p, cur, q);
      } else if (q - m < next_m) {
        L::template Prefetch<kOp>(words, p, next, q - m);
      }
    } else {
      (void)j;
    }
  }
};

// Ahead for a step whose keys j + dist all lie in one tile: key j prefetches entry j + delta of
// `tile` (the current tile, or the next with delta = dist - m), without a branch per key.
template <class L, detail::Op kOp>
struct AheadIn {
  WordsPtr<kOp> words;
  const detail::Params& p;
  const typename L::Tile& tile;
  ptrdiff_t delta;

  HWY_INLINE void operator()(size_t j) const {
    L::template Prefetch<kOp>(words, p, tile, static_cast<size_t>(j + delta));
  }
};

// The tiled pipeline, shared by every layout and key source. A tile's keys are hashed and located
// (block or bit indices, vectorized) one tile ahead, a step at a time while the tile before it is
// applied; as key j is applied, the lines of key j + D are prefetched (D = p.prefetch_distance,
// crossing into the next tile), so a DRAM-sized filter has D lines in flight.
//
// A layout L provides: kXxh64; kTileKeys (a multiple of 16 and of the vector width, <= kTile);
// struct Tile (per-key locations of one tile); Locate(p, hashes, j0, j1, tile) (locates keys
// [j0, j1) of the tile from hashes[j0 .. j1); j0 is a multiple of the step; entries up to j1
// rounded up to the vector width may be written); Prefetch<kOp>(words, p, tile, j); struct
// State (built from p once per call); and Apply<kOp>(words, p, state, hashes, tile, j0, j1,
// hits, ahead) -> keys that changed the filter and, unless hits is null, hits[j] = 1 iff key j
// did (insert) / writes hits[j0 .. j1) (query; may write up to the next multiple of the vector
// width, unless L::kExactHits; with a uint8_t Out returns 0, or the number of hits with
// kExactHits; with another Out, the number of keys with a non-zero result), calling
// ahead(j) for every key j it applies. Inserts with a non-null `out` copy each tile's hits (the
// per-key "was new" bytes) to out + begin.
//
// The cell and its result are the layout's too: L::Out, when declared, is the per-key result type
// of a query (default uint8_t, a 0/1 byte written as `result` says; any other type, such as the
// spatial filter's uint16_t labels, is copied to out as an array of n). A layout whose operation
// needs per-call data besides p (the spatial filter's label) declares its type as L::Arg and a
// State(p, arg) constructor; the caller passes it last.
// MemberOr<L, Member, Default>::type: Member<L> (a member type of L) if L declares it, else
// Default.
template <class L, template <class> class Member, class Default, class = void>
struct MemberOr {
  using type = Default;
};
template <class L, template <class> class Member, class Default>
struct MemberOr<L, Member, Default, std::void_t<Member<L>>> {
  using type = Member<L>;
};
template <class L>
using OutMember = typename L::Out;
template <class L>
using OutOf = MemberOr<L, OutMember, uint8_t>;
struct NoArg {};
template <class L>
using ArgMember = typename L::Arg;
template <class L>
using ArgOf = MemberOr<L, ArgMember, NoArg>;
// L::kExactHits (declared true): a query's Apply writes hits[j0 .. j1) only, and returns how many
// are 1. Its results as bytes (ResultKind::kBytes; bitmaps and selections still go through
// EmitTile) are then written straight into the caller's `out`, with no copy and no count pass
// (both read bytes just stored one at a time: a store-forwarding stall a tile, which a short call
// such as a packet burst pays in full).
template <class L, class = void>
struct ExactHits : std::false_type {};
template <class L>
struct ExactHits<L, std::enable_if_t<L::kExactHits>> : std::true_type {};

// The State of a call, built where it is used: the compiler then sees its constants (block512's
// chunk count, for one) and keeps them out of memory. Built by the caller and passed by reference,
// they were loads, and slower (perf/README.md, design note M12).
// L::kMurmur128 (declared true, the Guava layouts): L hashes a tile itself, two words per key
// (L::Hash(src, begin, m, seed, hashes, j) writes h1 at hashes[j ..], h2 at hashes[kTileKeys + j
// ..]), so the pipeline's hash buffers hold 2 * kTileKeys words and pre-hashed keys are never read
// in place.
template <class L, class = void>
struct OwnHash : std::false_type {};
template <class L>
struct OwnHash<L, std::enable_if_t<L::kMurmur128>> : std::true_type {};

// Hashes batch keys [begin, begin + m) into entry j on of a tile's hash buffer `hashes`.
template <class L>
HWY_INLINE void HashStep(const detail::KeySource& src, size_t begin, size_t m,
                         const SeedConsts& seed, uint64_t* HWY_RESTRICT hashes, size_t j) {
  if constexpr (OwnHash<L>::value) {
    L::Hash(src, begin, m, seed.seed, hashes, j);
  } else {
    TileHashes<L::kXxh64>(src, begin, m, seed, hashes + j);
  }
}

template <class L, class A>
HWY_INLINE typename L::State MakeState(const detail::Params& p, const A& arg) {
  if constexpr (std::is_same<A, NoArg>::value) {
    (void)arg;
    return typename L::State(p);
  } else {
    return typename L::State(p, arg);
  }
}

template <class L, detail::Op kOp, bool kPrefetch>
uint64_t Pipeline(WordsPtr<kOp> words, const detail::Params& p, const detail::KeySource& src,
                  size_t n, detail::ResultKind result, void* out,
                  typename ArgOf<L>::type arg = {}) {
  using Out = typename OutOf<L>::type;
  const typename L::State state = MakeState<L>(p, arg);
  constexpr size_t T = L::kTileKeys;
  static_assert(T % 16 == 0 && T <= kTile, "tile size");
  // Keys per step: each step hashes and locates the same stretch of the next tile, then applies
  // its own keys. Long enough to amortize the calls, short enough that hashing never stops the
  // flow of prefetches for long (1e8 keys: 16 beat 8, 32 and 64).
  const hn::ScalableTag<uint64_t> d;
  const size_t step = HWY_MAX(size_t{16}, hn::Lanes(d));
  const size_t D = kPrefetch ? HWY_MIN(size_t{p.prefetch_distance}, T) : 0;
  HWY_ALIGN uint64_t hashes[2][OwnHash<L>::value ? 2 * T : T];
  HWY_ALIGN typename L::Tile tiles[2];
  HWY_ALIGN Out hits_buf[T + 8];
  // Inserts write per-key "new" flags only when the caller asked for them (a byte store per key
  // may alias everything and slowed register64 inserts): layouts skip the store for null hits.
  // Byte results of an exact-hits layout go to `out` directly (its tile's stretch, set per tile).
  constexpr bool kMayDirect =
      !detail::Mutates(kOp) && ExactHits<L>::value && std::is_same<Out, uint8_t>::value;
  const bool direct = kMayDirect && result == detail::ResultKind::kBytes;
  Out* hits = detail::Mutates(kOp) && out == nullptr ? nullptr : hits_buf;
  uint64_t total = 0;
  size_t selected = 0;
  (void)result;
  (void)selected;
  // Layouts with another Out take no result kind: their callers pass kBytes, and `out` is always
  // written as an array of n Out.
  if (n == 0) return 0;

  // Tile 0 is hashed and located whole; every later tile a step at a time while the tile before
  // it is applied.
  size_t cur = 0;
  size_t m = HWY_MIN(T, n);
  const SeedConsts seed(p.seed);
  // Pre-hashed keys without a selection vector, 8-byte aligned, are read in place rather than
  // copied into a tile (the copy missed the cache once per line: design note M13, perf/README.md).
  const uint64_t* in_place = !OwnHash<L>::value && src.kind == detail::KeyKind::kHashes &&
                                     src.sel == nullptr &&
                                     reinterpret_cast<uintptr_t>(src.keys) % alignof(uint64_t) == 0
                                 ? static_cast<const uint64_t*>(src.keys)
                                 : nullptr;
  const uint64_t* tile_hashes[2] = {in_place != nullptr ? in_place : hashes[0], hashes[1]};
  if (in_place == nullptr) HashStep<L>(src, 0, m, seed, hashes[0], 0);
  L::Locate(p, tile_hashes[0], 0, m, tiles[0]);
  for (size_t q = 0; q < HWY_MIN(D, m); ++q) L::template Prefetch<kOp>(words, p, tiles[0], q);

  if (n <= T) {
    // A call of one tile (a packet burst) has no next tile to hash between its steps: applied in
    // one go, without the tile loop's bookkeeping (perf/README.md, design note M28). Its keys'
    // lines were all prefetched above when D >= n; the others are prefetched D keys ahead, as in
    // the loop.
    if (direct) hits = reinterpret_cast<Out*>(out);
    const Ahead<L, kOp, kPrefetch> ahead{words, p, tiles[0], tiles[1], n, 0, D};
    const detail::ReadRaceScopeIf<kOp == detail::Op::kQuery> benign;
    const uint64_t applied =
        L::template Apply<kOp>(words, p, state, tile_hashes[0], tiles[0], 0, n, hits, ahead);
    if constexpr (!detail::Mutates(kOp) && std::is_same<Out, uint8_t>::value) {
      if (direct) return applied;
      std::memset(hits + n, 0, 8);
      return EmitTile(hits, 0, n, src.sel, result, out, &selected);
    } else {
      if (out != nullptr) std::memcpy(out, hits, n * sizeof(Out));
      return applied;
    }
  }

  for (size_t begin = 0; begin < n; begin += T, cur ^= 1) {
    m = HWY_MIN(T, n - begin);
    const size_t next_begin = begin + T;
    const size_t next_m = next_begin < n ? HWY_MIN(T, n - next_begin) : 0;
    if (in_place != nullptr && next_m != 0) tile_hashes[cur ^ 1] = in_place + next_begin;
    if (direct) hits = reinterpret_cast<Out*>(static_cast<uint8_t*>(out) + begin);
    const uint64_t* HWY_RESTRICT h = tile_hashes[cur];
    // Key j + D of this step lies before the next tile's j + step (D <= T), located first.
    const Ahead<L, kOp, kPrefetch> ahead{words, p, tiles[cur], tiles[cur ^ 1], m, next_m, D};
    size_t applied = 0;  // an insert's changed keys; an exact-hits query's hits
    for (size_t j = 0; j < m; j += step) {
      const size_t j1 = HWY_MIN(j + step, m);
      if (j < next_m) {  // the same stretch of the next tile
        const size_t c1 = HWY_MIN(j + step, next_m);
        PrefetchSource(src, n, next_begin + T + j, step);
        if (in_place == nullptr) {
          HashStep<L>(src, next_begin + j, c1 - j, seed, hashes[cur ^ 1], j);
        }
        L::Locate(p, tile_hashes[cur ^ 1], j, c1, tiles[cur ^ 1]);
      }
      // A query's loads race with insert_concurrent by contract (kernels/concurrency.h).
      const detail::ReadRaceScopeIf<kOp == detail::Op::kQuery> benign;
      if (kPrefetch && j1 - 1 + D < m) {  // every key of the step prefetches in this tile
        const AheadIn<L, kOp> in{words, p, tiles[cur], static_cast<ptrdiff_t>(D)};
        applied += L::template Apply<kOp>(words, p, state, h, tiles[cur], j, j1, hits, in);
      } else if (kPrefetch && j + D >= m && j1 - 1 + D - m < next_m) {  // ... in the next one
        const AheadIn<L, kOp> in{words, p, tiles[cur ^ 1],
                                 static_cast<ptrdiff_t>(D) - static_cast<ptrdiff_t>(m)};
        applied += L::template Apply<kOp>(words, p, state, h, tiles[cur], j, j1, hits, in);
      } else {
        applied += L::template Apply<kOp>(words, p, state, h, tiles[cur], j, j1, hits, ahead);
      }
    }
    if constexpr (!detail::Mutates(kOp) && std::is_same<Out, uint8_t>::value) {
      if (direct) {
        total += applied;
      } else {  // (an exact-hits layout's count is the tile's, which EmitTile counts again)
        std::memset(hits + m, 0, 8);
        total += EmitTile(hits, begin, m, src.sel, result, out, &selected);
      }
    } else {
      total += applied;
      // Results other than bytes are arrays of Out (ResultKind::kBytes only); `out` may be
      // unaligned for Out, so the offset is taken in bytes.
      if (out != nullptr) {
        std::memcpy(static_cast<uint8_t*>(out) + begin * sizeof(Out), hits, m * sizeof(Out));
      }
    }
  }
  return total;
}

template <class L>
uint64_t InsertT(uint64_t* words, detail::Params p, const detail::KeySource& src, size_t n,
                 uint8_t* fresh) {
  return p.prefetch_distance != 0 ? Pipeline<L, detail::Op::kInsert, true>(
                                        words, p, src, n, detail::ResultKind::kBytes, fresh)
                                  : Pipeline<L, detail::Op::kInsert, false>(
                                        words, p, src, n, detail::ResultKind::kBytes, fresh);
}

// One instantiation for the atomic insert (it is bound by its locked instructions, not by the
// prefetch branch): a distance of 0 prefetches each key's own line just before it is applied.
template <class L>
uint64_t InsertAtomicT(uint64_t* words, detail::Params p, const detail::KeySource& src, size_t n,
                       uint8_t* fresh) {
  return Pipeline<L, detail::Op::kInsertAtomic, true>(words, p, src, n, detail::ResultKind::kBytes,
                                                      fresh);
}

template <class L>
uint64_t ContainsT(const uint64_t* words, detail::Params p, const detail::KeySource& src, size_t n,
                   detail::ResultKind result, void* out) {
  return p.prefetch_distance != 0
             ? Pipeline<L, detail::Op::kQuery, true>(words, p, src, n, result, out)
             : Pipeline<L, detail::Op::kQuery, false>(words, p, src, n, result, out);
}

// The kernel table of layout L on this target (exported by the layout's kernels.cc).
// A layout with a vector one-key path declares kOneKey (true where it beats the inline scalar path
// on this target) and InsertOne / ContainsOne.
template <class L, class = void>
struct HasOneKey : std::false_type {};
template <class L>
struct HasOneKey<L, std::enable_if_t<L::kOneKey>> : std::true_type {};

template <class L>
const detail::LayoutKernels* LayoutKernelsOf() {
  if constexpr (HasOneKey<L>::value) {
    static constexpr detail::LayoutKernels kernels = {&InsertT<L>, &InsertAtomicT<L>, &ContainsT<L>,
                                                      &L::InsertOne, &L::ContainsOne};
    return &kernels;
  } else {
    static constexpr detail::LayoutKernels kernels = {&InsertT<L>, &InsertAtomicT<L>,
                                                      &ContainsT<L>};
    return &kernels;
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace simdbloom
HWY_AFTER_NAMESPACE();

#endif  // include guard
