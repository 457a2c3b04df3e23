// SPDX-License-Identifier: Apache-2.0
// Per-target split_block256 kernels (lib/FORMAT.md; Parquet's split block Bloom filter): a key's
// mask is eight u32 lanes, lane i holding bit (lo32(h) * salt[i]) >> 27, ORed into or tested
// against its 32-byte block. Re-included once per target.
#if defined(SIMDBLOOM_KERNELS_SPLIT_BLOCK256_KERNEL_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMDBLOOM_KERNELS_SPLIT_BLOCK256_KERNEL_INL_H_
#undef SIMDBLOOM_KERNELS_SPLIT_BLOCK256_KERNEL_INL_H_
#else
#define SIMDBLOOM_KERNELS_SPLIT_BLOCK256_KERNEL_INL_H_
#endif

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "kernels/concurrency.h"
#include "kernels/interface.h"
#include "kernels/simd/ops-inl.h"
#include "kernels/split_block256/spec.h"

HWY_BEFORE_NAMESPACE();
namespace simdbloom {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

struct SplitBlock256Salts {
  HWY_ALIGN uint32_t salt[8];
  constexpr SplitBlock256Salts() : salt() {
    for (int i = 0; i < 8; ++i) salt[i] = detail::SplitBlock256Spec::kSalt[i];
  }
};
static constexpr SplitBlock256Salts kSplitSalts{};

// split_block256 in the tiled pipeline (simd/pipeline-inl.h): one 32-byte block per key.
struct SplitBlock256 {
  static constexpr bool kXxh64 = detail::SplitBlock256Spec::kXxh64;
  static constexpr size_t kTileKeys = kTile;
  static constexpr bool kExactHits = true;  // Apply: hits[j0 .. j1) only; a query's, counted
  struct State {
    explicit State(const detail::Params&) {}
  };
  struct Tile {
    HWY_ALIGN uint64_t block[kTileKeys];
  };

  static HWY_INLINE void Locate(const detail::Params& p, const uint64_t* HWY_RESTRICT hashes,
                                size_t j0, size_t j1, Tile& tile) {
    BlockIndexImpl(hashes + j0, j1 - j0, p.num_blocks, tile.block + j0);
  }

  template <detail::Op kOp>
  static HWY_INLINE void Prefetch(const uint64_t* words, const detail::Params&, const Tile& tile,
                                  size_t j) {
    PrefetchLine<kOp>(words + 4 * tile.block[j]);
  }

  // One key per call (LayoutKernels::insert_one / contains_one, for Filter's single-key calls): the
  // eight u32 masks in one vector on x86 AVX2 and up; elsewhere the inline scalar path.
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
  static constexpr bool kOneKey = true;
#else
  static constexpr bool kOneKey = false;
#endif
  static bool InsertOne(uint64_t* block, uint64_t h, uint32_t) { return OneKey<true>(block, h); }
  static bool ContainsOne(const uint64_t* block, uint64_t h, uint32_t) {
    return OneKey<false>(const_cast<uint64_t*>(block), h);
  }

  template <detail::Op kOp, class A>
  static HWY_INLINE size_t Apply(WordsPtr<kOp> words, const detail::Params&, const State&,
                                 const uint64_t* HWY_RESTRICT hashes, const Tile& tile, size_t j0,
                                 size_t j1, uint8_t* HWY_RESTRICT hits, const A& ahead) {
    using Word = std::conditional_t<detail::Mutates(kOp), uint32_t, const uint32_t>;
    Word* blocks32 = reinterpret_cast<Word*>(words);
    const hn::CappedTag<uint32_t, 8> d;
    const size_t N = hn::Lanes(d);
    const size_t chunks = 8 / N;
    const auto one = hn::Set(d, 1u);
    size_t changed = 0;
    for (size_t j = j0; j < j1; ++j) {
      ahead(j);
      const auto key = hn::Set(d, static_cast<uint32_t>(hashes[j]));
      Word* block = blocks32 + 8 * tile.block[j];
      bool all_set;
      if constexpr (kOp == detail::Op::kInsertAtomic) {
        // The eight u32 masks to the stack, then ORed atomically as four u64 words (u32 word 2i
        // is the low half of u64 word i: little-endian).
        HWY_ALIGN uint32_t masks[8];
        for (size_t c = 0; c < chunks; ++c) {
          const auto bits = hn::ShiftRight<27>(hn::Mul(key, hn::Load(d, kSplitSalts.salt + c * N)));
          hn::Store(ShlVar(one, bits), d, masks + c * N);
        }
        uint64_t clear = 0;
        uint64_t* block64 = reinterpret_cast<uint64_t*>(block);
        for (size_t i = 0; i < 4; ++i) {
          clear |= detail::AtomicOr(block64 + i, masks[2 * i] | uint64_t{masks[2 * i + 1]} << 32);
        }
        all_set = clear == 0;
      } else {
        auto missing = hn::Zero(d);
        for (size_t c = 0; c < chunks; ++c) {
          const auto bits = hn::ShiftRight<27>(hn::Mul(key, hn::Load(d, kSplitSalts.salt + c * N)));
          const auto mask = ShlVar(one, bits);
          const auto old = hn::Load(d, block + c * N);
          missing = hn::Or(missing, hn::AndNot(old, mask));
          if constexpr (detail::Mutates(kOp)) hn::Store(hn::Or(old, mask), d, block + c * N);
        }
        all_set = AllZero(d, missing);
      }
      if constexpr (detail::Mutates(kOp)) {
        if (hits != nullptr) hits[j] = !all_set;
        changed += !all_set;
      } else {
        hits[j] = all_set;
        changed += all_set;
      }
    }
    return changed;
  }

 private:
  template <bool kInsert>
  static HWY_INLINE bool OneKey(uint64_t* HWY_RESTRICT block64, uint64_t h) {
    const hn::CappedTag<uint32_t, 8> d;
    const size_t N = hn::Lanes(d);
    uint32_t* block = reinterpret_cast<uint32_t*>(block64);
    const auto key = hn::Set(d, static_cast<uint32_t>(h));
    const auto one = hn::Set(d, 1u);
    auto missing = hn::Zero(d);
    for (size_t c = 0; c < 8 / N; ++c) {
      const auto mask =
          ShlVar(one, hn::ShiftRight<27>(hn::Mul(key, hn::Load(d, kSplitSalts.salt + c * N))));
      const auto old = hn::Load(d, block + c * N);
      missing = hn::Or(missing, hn::AndNot(old, mask));
      if constexpr (kInsert) hn::Store(hn::Or(old, mask), d, block + c * N);
    }
    return kInsert ? !AllZero(d, missing) : AllZero(d, missing);
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace simdbloom
HWY_AFTER_NAMESPACE();

#endif  // include guard
