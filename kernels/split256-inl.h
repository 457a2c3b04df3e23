// Per-target split_block256 kernels (lib/FORMAT.md; Parquet's split block Bloom filter): a key's
// mask is eight u32 lanes, lane i holding bit (lo32(h) * salt[i]) >> 27, ORed into or tested
// against its 32-byte block. Re-included once per target.
#if defined(SIMDBLOOM_KERNELS_SPLIT256_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SIMDBLOOM_KERNELS_SPLIT256_INL_H_
#undef SIMDBLOOM_KERNELS_SPLIT256_INL_H_
#else
#define SIMDBLOOM_KERNELS_SPLIT256_INL_H_
#endif

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "kernels/common-inl.h"
#include "kernels/dispatch.h"
#include "kernels/reference.h"

HWY_BEFORE_NAMESPACE();
namespace simdbloom {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

struct Split256Salts {
  HWY_ALIGN uint32_t salt[8];
  constexpr Split256Salts() : salt() {
    for (int i = 0; i < 8; ++i) salt[i] = ref::kParquetSalt[i];
  }
};
static constexpr Split256Salts kSplitSalts{};

struct Split256 {
  static constexpr bool kXxh64 = true;
  static constexpr size_t kTileKeys = kTile;

  template <bool kInsert>
  static HWY_INLINE void Apply(WordsPtr<kInsert> words, const detail::Params& p,
                               const uint64_t* HWY_RESTRICT hashes, size_t m,
                               uint8_t* HWY_RESTRICT out) {
    using Word = std::conditional_t<kInsert, uint32_t, const uint32_t>;
    Word* blocks32 = reinterpret_cast<Word*>(words);
    const hn::CappedTag<uint32_t, 8> d;
    const size_t N = hn::Lanes(d);
    const size_t chunks = 8 / N;
    const auto one = hn::Set(d, 1u);
    HWY_ALIGN uint64_t blocks[kTile];
    BlockIndexImpl(hashes, m, p.num_blocks, blocks);
    if (p.num_blocks * 32 >= kPrefetchMinBytes) {
      for (size_t j = 0; j < m; ++j) hwy::Prefetch(blocks32 + 8 * blocks[j]);
    }
    for (size_t j = 0; j < m; ++j) {
      const auto key = hn::Set(d, static_cast<uint32_t>(ref::LoadU64(hashes + j)));
      Word* block = blocks32 + 8 * blocks[j];
      auto missing = hn::Zero(d);
      for (size_t c = 0; c < chunks; ++c) {
        const auto bits = hn::ShiftRight<27>(hn::Mul(key, hn::Load(d, kSplitSalts.salt + c * N)));
        const auto mask = ShlVar(one, bits);
        if constexpr (kInsert) {
          hn::Store(hn::Or(hn::Load(d, block + c * N), mask), d, block + c * N);
        } else {
          missing = hn::Or(missing, hn::AndNot(hn::Load(d, block + c * N), mask));
        }
      }
      if constexpr (!kInsert) out[j] = hn::AllTrue(d, hn::Eq(missing, hn::Zero(d)));
    }
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace simdbloom
HWY_AFTER_NAMESPACE();

#endif  // include guard
