// The register64 layout's specification: its constants, and the functions its folder defines
// (reference.h: the literal model of one key; model.cc: the false-positive model and statistics;
// kernel-inl.h: the Highway kernel; kernels.cc: its per-target compilation unit). Listed once in
// kernels/registry.h. lib/FORMAT.md specifies the bits.
#ifndef SIMDBLOOM_KERNELS_REGISTER64_SPEC_H_
#define SIMDBLOOM_KERNELS_REGISTER64_SPEC_H_

#include <cstdint>

#include "kernels/shared.h"

namespace simdbloom {
namespace detail {

struct Register64Spec {
  static constexpr const char* kName = "register64";
  // The file format's layout id and the value of simdbloom::Layout::kRegister64 (frozen).
  static constexpr uint8_t kFormatId = 2;
  // Bits per block: the unit of the filter's size.
  static constexpr uint32_t kBlockBits = 64;
  // Probes per key allowed.
  static constexpr uint32_t kMinK = 1, kMaxK = 16;
  // Hash family: XXH64 if true, else XXH3 (both over the key's bytes, with the filter's seed).
  static constexpr bool kXxh64 = false;
  // One u64 word per key, word hi32(h) * num_words >> 32; probe i sets bit lo32(a * M[i]) >> 26.
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

#endif  // SIMDBLOOM_KERNELS_REGISTER64_SPEC_H_
