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
#include "kernels/common-inl.h"
#include "kernels/dispatch.h"
#include "kernels/reference.h"

HWY_BEFORE_NAMESPACE();
namespace simdbloom {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Multipliers widened to u64 lanes so a vector load gives one per word lane (FORMAT.md's M[t]).
struct Multipliers64 {
  HWY_ALIGN uint64_t m[16];
  constexpr Multipliers64() : m() {
    for (int t = 0; t < 16; ++t) m[t] = ref::kMultipliers.m[t];
  }
};
static constexpr Multipliers64 kMult64{};

// The in-block mask of one key, 8 u64 word lanes processed N at a time (N = 1, 2, 4 or 8). Probe
// i of a key goes to word (w0 + i) mod 8, so whether word w gets a probe of round r depends only
// on w0 and k: a table of lane masks per w0, built once per bulk call, replaces that arithmetic.
template <class D>
class Block512Mask {
 public:
  using V = hn::Vec<D>;

  Block512Mask(D d, uint32_t k) : k_(k), chunks_(8 / hn::Lanes(d)) {
    for (uint32_t w0 = 0; w0 < 8; ++w0) {
      for (uint32_t w = 0; w < 8; ++w) {
        const uint32_t rel = (w - w0) & 7;
        active_[0][w0][w] = rel < k ? ~uint64_t{0} : 0;
        active_[1][w0][w] = rel + 8 < k ? ~uint64_t{0} : 0;
      }
    }
  }

  // Mask for word lanes [c*N, c*N + N) of a key: `a` = lo32(h) (broadcast), w0 = hi32(h) mod 8.
  HWY_INLINE V Chunk(D d, V a, size_t w0, size_t c) const {
    const size_t N = hn::Lanes(d);
    const V one = hn::Set(d, uint64_t{1});
    const V low6 = hn::Set(d, uint64_t{63});
    const V bit0 =
        hn::And(hn::ShiftRight<26>(MulU32ToU64(d, a, hn::Load(d, kMult64.m + c * N))), low6);
    V mask = hn::And(ShlVar(one, bit0), hn::Load(d, &active_[0][w0][c * N]));
    if (k_ > 8) {  // second round
      const V bit1 =
          hn::And(hn::ShiftRight<26>(MulU32ToU64(d, a, hn::Load(d, kMult64.m + 8 + c * N))), low6);
      mask = hn::Or(mask, hn::And(ShlVar(one, bit1), hn::Load(d, &active_[1][w0][c * N])));
    }
    return mask;
  }

  // Sets the key's bits; returns true if any was clear.
  HWY_INLINE bool Insert(D d, uint64_t* HWY_RESTRICT block, uint64_t h) const {
    const size_t N = hn::Lanes(d);
    const V a = hn::Set(d, h & 0xFFFFFFFFu);
    const size_t w0 = (h >> 32) & 7;
    V missing = hn::Zero(d);
    for (size_t c = 0; c < chunks_; ++c) {
      uint64_t* p = block + c * N;
      const V old = hn::Load(d, p);
      const V mask = Chunk(d, a, w0, c);
      missing = hn::Or(missing, hn::AndNot(old, mask));
      hn::Store(hn::Or(old, mask), d, p);
    }
    return !hn::AllTrue(d, hn::Eq(missing, hn::Zero(d)));
  }

  HWY_INLINE bool Contains(D d, const uint64_t* HWY_RESTRICT block, uint64_t h) const {
    const size_t N = hn::Lanes(d);
    const V a = hn::Set(d, h & 0xFFFFFFFFu);
    const size_t w0 = (h >> 32) & 7;
    V missing = hn::Zero(d);
    for (size_t c = 0; c < chunks_; ++c) {
      missing = hn::Or(missing, hn::AndNot(hn::Load(d, block + c * N), Chunk(d, a, w0, c)));
    }
    return hn::AllTrue(d, hn::Eq(missing, hn::Zero(d)));
  }

 private:
  HWY_ALIGN uint64_t active_[2][8][8];  // [round][w0][word]: all ones if the word gets a probe
  uint32_t k_;
  size_t chunks_;
};

// block512 in the tiled pipeline (common-inl.h): one cache line per key.
struct Block512 {
  static constexpr bool kXxh64 = false;
  static constexpr size_t kTileKeys = kTile;
  struct Tile {
    HWY_ALIGN uint64_t block[kTileKeys];
  };
  using D = hn::CappedTag<uint64_t, 8>;
  struct State {
    explicit State(const detail::Params& p) : mask(D(), p.k) {}
    Block512Mask<D> mask;
  };

  static HWY_INLINE void Locate(const detail::Params& p, const uint64_t* HWY_RESTRICT hashes,
                                size_t j0, size_t j1, Tile& tile) {
    BlockIndexImpl(hashes + j0, j1 - j0, p.num_blocks, tile.block + j0);
  }

  template <bool kInsert>
  static HWY_INLINE void Prefetch(const uint64_t* words, const detail::Params&, const Tile& tile,
                                  size_t j) {
    PrefetchLine<kInsert>(words + 8 * tile.block[j]);
  }

  template <bool kInsert>
  static HWY_INLINE size_t Apply(WordsPtr<kInsert> words, const detail::Params&, const State& state,
                                 const uint64_t* HWY_RESTRICT hashes, const Tile& tile, size_t j0,
                                 size_t j1, uint8_t* HWY_RESTRICT hits) {
    const D d;
    const Block512Mask<D>& mask = state.mask;
    size_t changed = 0;
    for (size_t j = j0; j < j1; ++j) {
      if constexpr (kInsert) {
        changed += mask.Insert(d, words + 8 * tile.block[j], hashes[j]);
      } else {
        hits[j] = mask.Contains(d, words + 8 * tile.block[j], hashes[j]);
      }
    }
    return changed;
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace simdbloom
HWY_AFTER_NAMESPACE();

#endif  // include guard
