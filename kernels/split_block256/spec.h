// The split_block256 layout's specification: its constants, and the functions its folder defines
// (reference.h: the literal model of one key; model.cc: the false-positive model and statistics;
// kernel-inl.h: the Highway kernel; kernels.cc: its per-target compilation unit). Listed once in
// kernels/registry.h. lib/FORMAT.md specifies the bits.
#ifndef SIMDBLOOM_KERNELS_SPLIT_BLOCK256_SPEC_H_
#define SIMDBLOOM_KERNELS_SPLIT_BLOCK256_SPEC_H_

#include <cstdint>

#include "kernels/shared.h"

namespace simdbloom {
namespace detail {

struct SplitBlock256Spec {
  static constexpr const char* kName = "split_block256";
  // The file format's layout id and the value of simdbloom::Layout::kSplitBlock256 (frozen).
  static constexpr uint8_t kFormatId = 3;
  // Bits per block: the unit of the filter's size.
  static constexpr uint32_t kBlockBits = 256;
  // Probes per key allowed.
  static constexpr uint32_t kMinK = 8, kMaxK = 8;
  // Hash family: XXH64 if true, else XXH3 (both over the key's bytes, with the filter's seed).
  static constexpr bool kXxh64 = true;
  // Parquet's split block Bloom filter: 32-byte blocks of eight u32 words; word i of block
  // hi32(h) * num_blocks >> 32 gets bit (lo32(h) * kSalt[i]) >> 27. k is always 8.
  static constexpr uint32_t kSalt[8] = {0x47b6137bu, 0x44974d91u, 0x8824ad5bu, 0xa2b7289du,
                                        0x705495c7u, 0x2df1424bu, 0x9efc4947u, 0x5c6bfb31u};
  // ---- reference.h: the literal model (the oracle every SIMD kernel is tested against) ----
  // Sets the probes of hash h; returns true if one was clear.
  static bool RefInsert(uint64_t* words, const Params& p, uint64_t h);
  // True iff every probe of hash h is set.
  static bool RefContains(const uint64_t* words, const Params& p, uint64_t h);
  // RefInsert with every word ORed atomically (AtomicOr): safe against concurrent writers;
  // returns true if one of the probes was clear when it was set.
  static bool RefInsertAtomic(uint64_t* words, const Params& p, uint64_t h);

  // ---- model.cc (FORMAT.md "False-positive models", "Statistics") ----
  // Predicted false-positive rate with n distinct keys in num_blocks blocks and k probes.
  static double ModelFpr(uint32_t k, double n, uint64_t num_blocks);
  // Expected number of distinct bits one key sets in an array of m bits.
  static double DistinctBitsPerKey(uint32_t k, double m);
  // False-positive rate of the bit array at `bytes` (num_blocks blocks) for a random absent key.
  static double ExpectedFpp(const uint8_t* bytes, uint64_t num_blocks, uint32_t k);
};

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_SPLIT_BLOCK256_SPEC_H_
