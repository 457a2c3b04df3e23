// SPDX-License-Identifier: Apache-2.0
// Per-target kernels of FilterSet's fused block512 probe (Block512SetKernels, kernels/block512/
// spec.h): the in-block masks of a run of keys (Block512Mask, kernel-inl.h, stored 64 bytes a
// key), and the probe of those keys against many filters of one k, which reads each mask instead
// of recomputing it per filter: block index (multiply-high), prefetch ahead across keys and
// filters, (line & mask) == mask, a branch-free selection store. Re-included once
// per target; kernels_set.cc is its per-target unit.
#if defined(SIMDBLOOM_KERNELS_BLOCK512_SET_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMDBLOOM_KERNELS_BLOCK512_SET_INL_H_
#undef SIMDBLOOM_KERNELS_BLOCK512_SET_INL_H_
#else
#define SIMDBLOOM_KERNELS_BLOCK512_SET_INL_H_
#endif

#include "hwy/highway.h"
#include "kernels/bits.h"
#include "kernels/block512/kernel-inl.h"
#include "kernels/block512/spec.h"
#include "kernels/concurrency.h"
#include "kernels/interface.h"
#include "kernels/simd/ops-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simdbloom {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using SetD = hn::CappedTag<uint64_t, 8>;

template <bool kTwoRounds>
HWY_INLINE void SetMasksT(const Block512Mask<SetD>& mask, const uint64_t* HWY_RESTRICT hashes,
                          size_t n, uint64_t* HWY_RESTRICT out) {
  const SetD d;
  const size_t N = hn::Lanes(d);
  for (size_t j = 0; j < n; ++j) {
    const uint64_t h = detail::LoadU64(hashes + j);
    const auto a = Block512Mask<SetD>::Operand(d, h);
    const uint64_t* table = mask.Table(((h >> 32) & 7) * Block512Mask<SetD>::kTableBytes);
    for (size_t c = 0; c < 8 / N; ++c) {
      hn::StoreU(mask.template Chunk<kTwoRounds>(d, a, table, c), d, out + 8 * j + c * N);
    }
  }
}

void SetMasks(const uint64_t* hashes, size_t n, uint32_t k, uint64_t* out) {
  const Block512Mask<SetD> mask(SetD(), k);
  if (mask.two_rounds()) {
    SetMasksT<true>(mask, hashes, n, out);
  } else {
    SetMasksT<false>(mask, hashes, n, out);
  }
}

// Whether every bit of the 8-word mask at `mask` is set in the 8-word block at `line`.
HWY_INLINE bool Covers(const uint64_t* HWY_RESTRICT line, const uint64_t* HWY_RESTRICT mask) {
  const SetD d;
  const size_t N = hn::Lanes(d);
  auto missing = hn::AndNot(hn::Load(d, line), hn::LoadU(d, mask));
  for (size_t c = 1; c < 8 / N; ++c) {
    missing = hn::Or(missing, hn::AndNot(hn::Load(d, line + c * N), hn::LoadU(d, mask + c * N)));
  }
  return AllZero(d, missing);
}

// The byte offset of hash h's block in a filter of nb blocks.
HWY_INLINE uint64_t LineOffset(uint64_t h, uint64_t nb) { return ((h >> 32) * nb >> 32) << 6; }

// Key j of the run: its position in hashes and masks.
template <bool kIdx>
HWY_INLINE size_t At(const uint32_t* HWY_RESTRICT idx, size_t j) {
  if constexpr (kIdx) {
    return idx[j];
  } else {
    (void)idx;
    return j;
  }
}

template <bool kIdx, bool kPrefetch>
uint64_t SetSelectT(const detail::Block512SetFilter* filters, size_t m,
                    const uint64_t* HWY_RESTRICT hashes, const uint64_t* HWY_RESTRICT masks,
                    const uint32_t* HWY_RESTRICT idx, size_t n, uint32_t distance,
                    uint32_t* HWY_RESTRICT sel, size_t stride, uint32_t* HWY_RESTRICT counts) {
  // The prefetch cursor: probe (pf, pj), `distance` probes ahead of the one tested, in (filter,
  // key) order, so the first keys of the next filter are on their way while this one ends.
  size_t pf = 0, pj = 0;
  const char* pf_base = nullptr;
  uint64_t pf_nb = 0;
  auto advance = [&]() HWY_ATTR {
    if (pf >= m || n == 0) return;  // (no keys: no hash to read)
    if (pj == 0) {
      pf_base = reinterpret_cast<const char*>(filters[pf].words);
      pf_nb = filters[pf].num_blocks;
    }
    PrefetchLine<detail::Op::kQuery>(
        pf_base + LineOffset(detail::LoadU64(hashes + At<kIdx>(idx, pj)), pf_nb));
    if (++pj == n) {
      pj = 0;
      ++pf;
    }
  };
  if constexpr (kPrefetch) {
    for (uint64_t q = 0; q < distance && pf < m; ++q) advance();
  }
  uint64_t total = 0;
  // Keys are located kLocateKeys at a time: their blocks' addresses by vector multiply-high, so
  // the probe loop is an address load and the line's loads and test.
  constexpr size_t kLocateKeys = 256;
  HWY_ALIGN uint64_t off[kLocateKeys + HWY_MAX_BYTES / sizeof(uint64_t)];
  const hn::ScalableTag<uint64_t> dl;
  for (size_t f = 0; f < m; ++f) {
    const uint64_t base_addr = reinterpret_cast<uintptr_t>(filters[f].words);
    const uint64_t nb = filters[f].num_blocks;
    uint32_t* HWY_RESTRICT const out = sel + f * stride;
    uint32_t* HWY_RESTRICT p = out;  // the next selection entry: written always, kept on a hit
    for (size_t jb = 0; jb < n; jb += kLocateKeys) {
      const size_t je = HWY_MIN(n, jb + kLocateKeys);
      if constexpr (kIdx) {
        for (size_t j = jb; j < je; ++j) {
          off[j - jb] = base_addr + LineOffset(detail::LoadU64(hashes + idx[j]), nb);
        }
      } else {
        const auto vnb = hn::Set(dl, nb);
        const auto vbase = hn::Set(dl, base_addr);
        ForEachHashVector(dl, hashes, jb, je, [&](hn::Vec<decltype(dl)> h, size_t j) HWY_ATTR {
          const auto block = hn::ShiftRight<32>(MulU32ToU64(dl, hn::ShiftRight<32>(h), vnb));
          hn::Store(hn::Add(vbase, hn::ShiftLeft<6>(block)), dl, off + (j - jb));
        });
      }
      auto probe = [&](size_t j) HWY_ATTR {
        if constexpr (kPrefetch) advance();
        const uint64_t* line = reinterpret_cast<const uint64_t*>(off[j - jb]);
        const bool hit = Covers(line, masks + 8 * At<kIdx>(idx, j));
        *p = static_cast<uint32_t>(j);
        p += hit;
      };
      // Two keys an iteration: the loop's own instructions are a tenth of a probe's.
      size_t j = jb;
      for (; j + 2 <= je; j += 2) {
        probe(j);
        probe(j + 1);
      }
      if (j < je) probe(j);
    }
    const size_t c = static_cast<size_t>(p - out);
    counts[f] = static_cast<uint32_t>(c);
    total += c;
  }
  return total;
}

uint64_t SetSelect(const detail::Block512SetFilter* filters, size_t m, uint32_t,
                   const uint64_t* hashes, const uint64_t* masks, const uint32_t* idx, size_t n,
                   uint32_t distance, uint32_t* sel, size_t stride, uint32_t* counts) {
  // The bulk query's contract with insert_concurrent: racing plain loads (kernels/concurrency.h).
  detail::ReadRaceScope race;
  if (distance == 0) {
    return idx != nullptr
               ? SetSelectT<true, false>(filters, m, hashes, masks, idx, n, 0, sel, stride, counts)
               : SetSelectT<false, false>(filters, m, hashes, masks, idx, n, 0, sel, stride,
                                          counts);
  }
  return idx != nullptr ? SetSelectT<true, true>(filters, m, hashes, masks, idx, n, distance, sel,
                                                 stride, counts)
                        : SetSelectT<false, true>(filters, m, hashes, masks, idx, n, distance, sel,
                                                  stride, counts);
}

const detail::Block512SetKernels* SetKernelTable() {
  static constexpr detail::Block512SetKernels kernels = {&SetMasks, &SetSelect};
  return &kernels;
}

}  // namespace HWY_NAMESPACE
}  // namespace simdbloom
HWY_AFTER_NAMESPACE();

#endif  // include guard
