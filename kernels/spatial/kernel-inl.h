// Per-target spatial filter kernels (spec.h, lib/FORMAT.md "Spatial filter"): a key's block is
// loaded as u64 word lanes (8 words for 1-byte cells, 16 for 2-byte), every lane computes its
// group's cell position with one 32-bit multiply, extracts the cell with a variable shift and
// either raises it to the label (insert) or takes the minimum over the key's lanes (classify).
// Blocks are located a tile ahead and prefetched `prefetch_distance` keys ahead. Re-included once
// per target.
#if defined(SIMDBLOOM_KERNELS_SPATIAL_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMDBLOOM_KERNELS_SPATIAL_INL_H_
#undef SIMDBLOOM_KERNELS_SPATIAL_INL_H_
#else
#define SIMDBLOOM_KERNELS_SPATIAL_INL_H_
#endif

#include <cstring>

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "kernels/shared.h"
#include "kernels/simd/ops-inl.h"
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

  static HWY_INLINE V Operand(D d, uint64_t h) {
#if HWY_TARGET == HWY_SCALAR
    return hn::Set(d, h & 0xFFFFFFFFu);
#else
    const hn::Repartition<uint32_t, D> d32;
    return hn::BitCast(d, hn::Set(d32, static_cast<uint32_t>(h)));
#endif
  }

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

template <uint32_t kCellBytes, bool kInsert>
HWY_INLINE void SpatialPrefetch(const char* base, uint64_t offset) {
  const detail::Op op = kInsert ? detail::Op::kInsert : detail::Op::kQuery;
  if (op == detail::Op::kInsert) {
    PrefetchLine<detail::Op::kInsert>(base + offset);
    if (kCellBytes == 2) PrefetchLine<detail::Op::kInsert>(base + offset + 64);
  } else {
    PrefetchLine<detail::Op::kQuery>(base + offset);
    if (kCellBytes == 2) PrefetchLine<detail::Op::kQuery>(base + offset + 64);
  }
}

// Insert (kInsert) or classify n hashes, a tile at a time: tile t + 1 is located before tile t is
// applied, so prefetches run across tile boundaries.
template <uint32_t kCellBytes, bool kInsert>
uint64_t SpatialRun(char* base, detail::SpatialParams p, const uint64_t* hashes, size_t n,
                    uint16_t label, uint16_t* labels) {
  using Lanes = SpatialLanes<kCellBytes>;
  using D = typename Lanes::D;
  using V = typename Lanes::V;
  const D d;
  const size_t N = hn::Lanes(d);
  constexpr size_t kWords = Lanes::kWords;
  const Lanes lanes(p.k);
  constexpr size_t T = kTile;
  HWY_ALIGN uint64_t offset[2][T];
  HWY_ALIGN uint64_t w0[2][T];
  const size_t dist = HWY_MIN(size_t{p.prefetch_distance}, T);
  const V label_v = hn::Set(d, uint64_t{label});
  uint64_t total = 0;
  if (n == 0) return 0;
  SpatialLocate<kCellBytes>(p.num_blocks, hashes, 0, HWY_MIN(T, n), offset[0], w0[0]);
  for (size_t q = 0; q < HWY_MIN(dist, n); ++q) {
    SpatialPrefetch<kCellBytes, kInsert>(base, offset[0][q]);
  }
  size_t cur = 0;
  for (size_t begin = 0; begin < n; begin += T, cur ^= 1) {
    const size_t m = HWY_MIN(T, n - begin);
    const size_t next_m = begin + T < n ? HWY_MIN(T, n - begin - T) : 0;
    if (next_m != 0) {
      SpatialLocate<kCellBytes>(p.num_blocks, hashes + begin + T, 0, next_m, offset[cur ^ 1],
                                w0[cur ^ 1]);
    }
    for (size_t j = 0; j < m; ++j) {
      if (dist != 0) {
        const size_t q = j + dist;
        if (q < m) {
          SpatialPrefetch<kCellBytes, kInsert>(base, offset[cur][q]);
        } else if (q - m < next_m) {
          SpatialPrefetch<kCellBytes, kInsert>(base, offset[cur ^ 1][q - m]);
        }
      }
      const uint64_t h = detail::LoadU64(hashes + begin + j);
      uint64_t* HWY_RESTRICT block = reinterpret_cast<uint64_t*>(base + offset[cur][j]);
      const uint64_t* HWY_RESTRICT active = lanes.Active(w0[cur][j]);
      const V a = Lanes::Operand(d, h);
      if constexpr (kInsert) {
        for (size_t c = 0; c < kWords / N; ++c) {
          const V words = hn::Load(d, block + c * N);
          V shift, act;
          const V cell = lanes.Cells(d, words, a, active, c, &shift, &act);
          // Probe lanes below the label are raised: (cell ^ label) << shift flips exactly the
          // cell's bits to the label's.
          const auto raise = hn::And(hn::Lt(cell, label_v), hn::MaskFromVec(act));
          total += hn::CountTrue(d, raise);
          const V flip = hn::IfThenElseZero(raise, ShlVar(hn::Xor(cell, label_v), shift));
          hn::Store(hn::Xor(words, flip), d, block + c * N);
        }
      } else {
        V shift, act;
#if HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL || SIMDBLOOM_SVE
        // Targets with a native u64 minimum.
        V low = lanes.Cells(d, hn::Load(d, block), a, active, 0, &shift, &act);
        for (size_t c = 1; c < kWords / N; ++c) {
          low =
              hn::Min(low, lanes.Cells(d, hn::Load(d, block + c * N), a, active, c, &shift, &act));
        }
        const uint16_t out = static_cast<uint16_t>(hn::GetLane(hn::MinOfLanes(d, low)));
#else
        // A lane is its cell (<= 0xFFFF, high u32 half 0) or all ones (not a probe of the key).
        // With every high half set to ones, the minimum over u32 halves is the key's minimum: a
        // native u32 min instead of an emulated u64 one (x86 before AVX-512, NEON): AVX2 classify
        // 4.0 -> 3.6 ns/key (1-byte cells), 7.4 -> 6.7 (2-byte), 10% fewer instructions.
        const hn::Repartition<uint32_t, D> d32;
        const V high = hn::Set(d, 0xFFFFFFFF00000000ull);
        auto low = hn::BitCast(
            d32, hn::Or(lanes.Cells(d, hn::Load(d, block), a, active, 0, &shift, &act), high));
        for (size_t c = 1; c < kWords / N; ++c) {
          low = hn::Min(low, hn::BitCast(d32, hn::Or(lanes.Cells(d, hn::Load(d, block + c * N), a,
                                                                 active, c, &shift, &act),
                                                     high)));
        }
        const uint16_t out = static_cast<uint16_t>(hn::GetLane(hn::MinOfLanes(d32, low)));
#endif
        std::memcpy(labels + begin + j, &out, sizeof(out));
        total += out != 0;
      }
    }
  }
  return total;
}

HWY_NOINLINE uint64_t SpatialInsert(void* cells, detail::SpatialParams p, const uint64_t* hashes,
                                    size_t n, uint16_t label) {
  char* base = static_cast<char*>(cells);
  return p.cell_bytes == 1 ? SpatialRun<1, true>(base, p, hashes, n, label, nullptr)
                           : SpatialRun<2, true>(base, p, hashes, n, label, nullptr);
}

HWY_NOINLINE uint64_t SpatialClassify(const void* cells, detail::SpatialParams p,
                                      const uint64_t* hashes, size_t n, uint16_t* labels) {
  // The classify instantiation only reads through `base`.
  char* base = const_cast<char*>(static_cast<const char*>(cells));
  return p.cell_bytes == 1 ? SpatialRun<1, false>(base, p, hashes, n, 0, labels)
                           : SpatialRun<2, false>(base, p, hashes, n, 0, labels);
}

}  // namespace HWY_NAMESPACE
}  // namespace simdbloom
HWY_AFTER_NAMESPACE();

#endif  // include guard
