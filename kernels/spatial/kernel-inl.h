// SPDX-License-Identifier: Apache-2.0
// Per-target spatial filter kernels (spec.h, lib/FORMAT.md "Spatial filter"): a key's block is
// loaded as u64 word lanes (8 words for 1-byte cells, 16 for 2-byte), every lane computes its
// group's cell position with one 32-bit multiply, extracts the cell with a variable shift and
// either raises it to the label (insert) or takes the minimum over the key's lanes (classify).
// Keys are hashed, located, prefetched and applied by the tile pipeline
// (kernels/simd/pipeline-inl.h) with the spatial cell as its layout. Re-included once per target.
#if defined(SIMDBLOOM_KERNELS_SPATIAL_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMDBLOOM_KERNELS_SPATIAL_INL_H_
#undef SIMDBLOOM_KERNELS_SPATIAL_INL_H_
#else
#define SIMDBLOOM_KERNELS_SPATIAL_INL_H_
#endif

#include <cstring>

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "kernels/bits.h"
#include "kernels/interface.h"
#include "kernels/simd/ops-inl.h"
#include "kernels/simd/pipeline-inl.h"
#include "kernels/simd/probes-inl.h"
#include "kernels/spatial/spec.h"

HWY_BEFORE_NAMESPACE();
namespace simdbloom {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Per-call tables of a spatial filter with kCellBytes-byte cells: the kWords u64 words of a block,
// each word's multiplier M[group], which half of its group it holds (2-byte cells), and per first
// group w0 which words hold a probe of the key.
template <uint32_t kCellBytes>
class SpatialLanes {
 public:
  using D = hn::CappedTag<uint64_t, 8>;
  using V = hn::Vec<D>;
  static constexpr size_t kWords = 8 * kCellBytes;
  static constexpr uint64_t kCellMask = kCellBytes == 1 ? 0xFF : 0xFFFF;

  explicit SpatialLanes(uint32_t k) {
    for (size_t w = 0; w < kWords; ++w) {
      const uint32_t group = static_cast<uint32_t>(w / kCellBytes);
      mult_[w] = detail::kMultipliers.m[group];
      half_[w] = w % kCellBytes;
      for (uint32_t w0 = 0; w0 < 8; ++w0) active_[w0][w] = ((group - w0) & 7) < k ? ~0ull : 0;
    }
  }

  // Cells of the key's probes in word lanes [c*N, c*N + N): the cell value in probe lanes,
  // all ones elsewhere (neutral for a minimum). `shift` receives each lane's cell offset, `act`
  // all ones in probe lanes.
  HWY_INLINE V Cells(D d, V words, V a, const uint64_t* HWY_RESTRICT active, size_t c, V* shift,
                     V* act) const {
    const size_t N = hn::Lanes(d);
    const V m = hn::Load(d, mult_ + c * N);
#if HWY_TARGET == HWY_SCALAR
    const V pos = hn::And(hn::ShiftRight<29>(MulU32ToU64(d, a, m)), hn::Set(d, uint64_t{7}));
#else
    // M has a zero upper half: the 32-bit multiply leaves lo32(a * M) zero-extended in each lane.
    const hn::Repartition<uint32_t, D> d32;
    const V pos =
        hn::ShiftRight<29>(hn::BitCast(d, hn::Mul(hn::BitCast(d32, a), hn::BitCast(d32, m))));
#endif
    V on = hn::Load(d, active + c * N);
    if constexpr (kCellBytes == 1) {
      *shift = hn::ShiftLeft<3>(pos);
    } else {
      // Cells 0-3 of a group are in its first word, 4-7 in its second.
      *shift = hn::ShiftLeft<4>(hn::And(pos, hn::Set(d, uint64_t{3})));
      on = hn::And(on,
                   hn::VecFromMask(d, hn::Eq(hn::ShiftRight<2>(pos), hn::Load(d, half_ + c * N))));
    }
    *act = on;
    return hn::Or(hn::And(ShrVar(words, *shift), hn::Set(d, kCellMask)), hn::Not(on));
  }

  static HWY_INLINE V Operand(D d, uint64_t h) { return KeyOperand(d, h); }

  HWY_INLINE const uint64_t* Active(uint64_t w0) const { return active_[w0]; }

 private:
  HWY_ALIGN uint64_t mult_[kWords];
  HWY_ALIGN uint64_t half_[kWords];
  HWY_ALIGN uint64_t active_[8][kWords];
};

// Block byte offsets and first groups of hashes [j0, j1) (entries up to j1 rounded up to the
// vector width are written).
template <uint32_t kCellBytes>
HWY_INLINE void SpatialLocate(uint64_t num_blocks, const uint64_t* HWY_RESTRICT hashes, size_t j0,
                              size_t j1, uint64_t* HWY_RESTRICT offset, uint64_t* HWY_RESTRICT w0) {
  const hn::ScalableTag<uint64_t> d;
  const auto nb = hn::Set(d, num_blocks);
  const auto seven = hn::Set(d, uint64_t{7});
  constexpr int kShift = kCellBytes == 1 ? 6 : 7;  // bytes per block: 64 or 128
  ForEachHashVector(d, hashes, j0, j1, [&](hn::Vec<decltype(d)> h, size_t j) HWY_ATTR {
    const auto hi = hn::ShiftRight<32>(h);
    hn::Store(hn::ShiftLeft<kShift>(hn::ShiftRight<32>(MulU32ToU64(d, hi, nb))), d, offset + j);
    hn::Store(hn::And(hi, seven), d, w0 + j);
  });
}

// The spatial filter as a layout of the tile pipeline (kernels/simd/pipeline-inl.h): its cell is
// a 1- or 2-byte label, insert (Op::kInsert) raises a key's cells to the call's label (State) and
// returns how many it raised, classify (Op::kQuery) writes the smallest label over a key's cells
// (Out = uint16_t; 0: the key is in no area) and returns how many keys had one.
template <uint32_t kCellBytes>
struct SpatialCells {
  using Lanes = SpatialLanes<kCellBytes>;
  using Out = uint16_t;
  using Arg = uint16_t;  // insert: the label
  static constexpr bool kXxh64 = false;
  static constexpr size_t kTileKeys = kTile;

  struct Tile {
    uint64_t offset[kTile];  // the key's block, in bytes from the cells
    uint64_t w0[kTile];      // its first group
  };

  struct State {
    State(const detail::Params& p, uint16_t l) : lanes(p.k), label(l) {}
    Lanes lanes;
    uint16_t label;
  };

  static HWY_INLINE void Locate(const detail::Params& p, const uint64_t* HWY_RESTRICT hashes,
                                size_t j0, size_t j1, Tile& tile) {
    SpatialLocate<kCellBytes>(p.num_blocks, hashes, j0, j1, tile.offset, tile.w0);
  }

  template <detail::Op kOp>
  static HWY_INLINE void Prefetch(WordsPtr<kOp> words, const detail::Params&, const Tile& tile,
                                  size_t j) {
    const char* line = reinterpret_cast<const char*>(words) + tile.offset[j];
    PrefetchLine<kOp>(line);
    if (kCellBytes == 2) PrefetchLine<kOp>(line + 64);
  }

  template <detail::Op kOp, class Ahead>
  static HWY_INLINE uint64_t Apply(WordsPtr<kOp> words, const detail::Params&, const State& s,
                                   const uint64_t* HWY_RESTRICT hashes, const Tile& tile, size_t j0,
                                   size_t j1, Out* HWY_RESTRICT hits, const Ahead& ahead) {
    using D = typename Lanes::D;
    using V = typename Lanes::V;
    const D d;
    const size_t N = hn::Lanes(d);
    constexpr size_t kWords = Lanes::kWords;
    const V label_v = hn::Set(d, uint64_t{s.label});
    uint64_t total = 0;
    for (size_t j = j0; j < j1; ++j) {
      ahead(j);
      const auto block = reinterpret_cast<WordsPtr<kOp>>(
          reinterpret_cast<std::conditional_t<detail::Mutates(kOp), char*, const char*>>(words) +
          tile.offset[j]);
      const uint64_t* HWY_RESTRICT active = s.lanes.Active(tile.w0[j]);
      const V a = Lanes::Operand(d, hashes[j]);
      if constexpr (kOp == detail::Op::kInsert) {
        uint64_t raised = 0;
        for (size_t c = 0; c < kWords / N; ++c) {
          const V w = hn::Load(d, block + c * N);
          V shift, act;
          const V cell = s.lanes.Cells(d, w, a, active, c, &shift, &act);
          // Probe lanes below the label are raised: (cell ^ label) << shift flips exactly the
          // cell's bits to the label's.
          const auto raise = hn::And(hn::Lt(cell, label_v), hn::MaskFromVec(act));
          raised += hn::CountTrue(d, raise);
          const V flip = hn::IfThenElseZero(raise, ShlVar(hn::Xor(cell, label_v), shift));
          hn::Store(hn::Xor(w, flip), d, block + c * N);
        }
        if (hits != nullptr) hits[j] = static_cast<Out>(raised != 0);
        total += raised;
      } else {
        static_assert(kOp == detail::Op::kQuery, "spatial ops: insert, classify (query)");
        V shift, act;
#if HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL || SIMDBLOOM_SVE
        // Targets with a native u64 minimum.
        V low = s.lanes.Cells(d, hn::Load(d, block), a, active, 0, &shift, &act);
        for (size_t c = 1; c < kWords / N; ++c) {
          low = hn::Min(low,
                        s.lanes.Cells(d, hn::Load(d, block + c * N), a, active, c, &shift, &act));
        }
        const Out least = static_cast<Out>(hn::GetLane(hn::MinOfLanes(d, low)));
#else
        // A lane is its cell (<= 0xFFFF, high u32 half 0) or all ones (not a probe of the key).
        // With every high half set to ones, the minimum over u32 halves is the key's minimum: a
        // native u32 min instead of an emulated u64 one (x86 before AVX-512, NEON; perf/README.md,
        // design note M11).
        const hn::Repartition<uint32_t, D> d32;
        const V high = hn::Set(d, 0xFFFFFFFF00000000ull);
        auto low = hn::BitCast(
            d32, hn::Or(s.lanes.Cells(d, hn::Load(d, block), a, active, 0, &shift, &act), high));
        for (size_t c = 1; c < kWords / N; ++c) {
          low = hn::Min(low, hn::BitCast(d32, hn::Or(s.lanes.Cells(d, hn::Load(d, block + c * N), a,
                                                                   active, c, &shift, &act),
                                                     high)));
        }
        const Out least = static_cast<Out>(hn::GetLane(hn::MinOfLanes(d32, low)));
#endif
        hits[j] = least;
        total += least != 0;
      }
    }
    return total;
  }
};

// Insert or classify n keys through the tile pipeline. One instantiation per cell size and op:
// distance 0 (small filters) prefetches each key's own line just before it is applied, which
// costs one instruction against the ~30 of a key's apply.
template <uint32_t kCellBytes>
uint64_t SpatialInsertT(void* cells, const detail::SpatialParams& sp, const detail::KeySource& src,
                        size_t n, uint16_t label) {
  return Pipeline<SpatialCells<kCellBytes>, detail::Op::kInsert, true>(
      static_cast<uint64_t*>(cells), sp.Geometry(), src, n, detail::ResultKind::kBytes, nullptr,
      label);
}

template <uint32_t kCellBytes>
uint64_t SpatialClassifyT(const void* cells, const detail::SpatialParams& sp,
                          const detail::KeySource& src, size_t n, uint16_t* labels) {
  return Pipeline<SpatialCells<kCellBytes>, detail::Op::kQuery, true>(
      static_cast<const uint64_t*>(cells), sp.Geometry(), src, n, detail::ResultKind::kBytes,
      labels, 0);
}

HWY_NOINLINE uint64_t SpatialInsert(void* cells, detail::SpatialParams p,
                                    const detail::KeySource& src, size_t n, uint16_t label) {
  return p.cell_bytes == 1 ? SpatialInsertT<1>(cells, p, src, n, label)
                           : SpatialInsertT<2>(cells, p, src, n, label);
}

HWY_NOINLINE uint64_t SpatialClassify(const void* cells, detail::SpatialParams p,
                                      const detail::KeySource& src, size_t n, uint16_t* labels) {
  return p.cell_bytes == 1 ? SpatialClassifyT<1>(cells, p, src, n, labels)
                           : SpatialClassifyT<2>(cells, p, src, n, labels);
}

// One key of 1-byte cells per call (SpatialKernels::classify_one): as the query above, with the
// groups that hold a probe from arithmetic, (g - hi32(h)) mod 8 < k, instead of the per-call
// table, and group g's cell at bit 8 ((lo32(h) * M[g]) >> 29) of word g. Only on x86 AVX2 and up,
// where the 8 words fit in one or two vectors.
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
HWY_NOINLINE uint32_t SpatialClassifyOne(const uint8_t* block, uint64_t h, uint32_t k) {
  const hn::CappedTag<uint64_t, 8> d;
  const hn::RebindToSigned<decltype(d)> di;
  const size_t N = hn::Lanes(d);
  const auto* words = reinterpret_cast<const uint64_t*>(block);
  const auto a = hn::Set(d, h & 0xFFFFFFFFu);
  const auto w0 = hn::Set(di, static_cast<int64_t>((h >> 32) & 7));
  const auto probes = hn::Set(di, static_cast<int64_t>(k));
  const auto lane = hn::Iota(di, int64_t{0});
  MinOfU64Lanes<decltype(d)> least(d);  // unprobed lanes all ones
  for (size_t c = 0; c < 8 / N; ++c) {
    const auto prod = MulU32ToU64(d, a, hn::Load(d, kMult64.m + c * N));
    const auto at = hn::And(hn::ShiftRight<26>(prod), hn::Set(d, uint64_t{0x38}));
    const auto cell = hn::And(ShrVar(hn::Load(d, words + c * N), at), hn::Set(d, uint64_t{0xFF}));
    // (Iota from 0 plus a broadcast: an Iota from a run-time start is built on the stack.)
    const auto rel = hn::And(hn::Sub(hn::Add(lane, hn::Set(di, static_cast<int64_t>(c * N))), w0),
                             hn::Set(di, int64_t{7}));
    least.Add(
        hn::IfThenElse(hn::RebindMask(d, hn::Lt(rel, probes)), cell, hn::Set(d, ~uint64_t{0})));
  }
  return least.Get();
}
constexpr uint32_t (*kSpatialClassifyOne)(const uint8_t*, uint64_t, uint32_t) = &SpatialClassifyOne;
#else
constexpr uint32_t (*kSpatialClassifyOne)(const uint8_t*, uint64_t, uint32_t) = nullptr;
#endif

// This target's spatial kernel table (kernels.cc exports it).
inline const detail::SpatialKernels* SpatialKernelTable() {
  static constexpr detail::SpatialKernels kernels = {&SpatialInsert, &SpatialClassify,
                                                     kSpatialClassifyOne};
  return &kernels;
}

}  // namespace HWY_NAMESPACE
}  // namespace simdbloom
HWY_AFTER_NAMESPACE();

#endif  // include guard
