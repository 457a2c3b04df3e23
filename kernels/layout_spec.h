// SPDX-License-Identifier: Apache-2.0
// What every layout's spec struct (kernels/<layout>/spec.h) is made of: its constants (LayoutSpec,
// its base), the functions it declares (SIMDBLOOM_LAYOUT_SPEC_FUNCTIONS), the macro that declares
// it (SIMDBLOOM_LAYOUT_SPEC) and the macro that defines its scalar.cc from its scalar.h
// (SIMDBLOOM_DEFINE_SCALAR_FUNCTIONS).
#ifndef SIMDBLOOM_KERNELS_LAYOUT_SPEC_H_
#define SIMDBLOOM_KERNELS_LAYOUT_SPEC_H_

#include <cstddef>
#include <cstdint>

#include "kernels/interface.h"

namespace simdbloom {
namespace detail {

// The hash a layout applies to a key: XXH3 or XXH64 of its bytes with the filter's seed, or
// Murmur3 x64 128 (seed 0) of its funnel bytes (the Guava layouts; the filter's seed must be 0).
enum class HashFamily : uint8_t { kXxh3, kXxh64, kMurmur128 };

// A layout's constants: the base of its <Name>Spec, which adds kName, its probe mapping and
// SIMDBLOOM_LAYOUT_SPEC_FUNCTIONS.
template <uint8_t kId, uint32_t kBits, uint32_t kLowK, uint32_t kHighK, HashFamily kHash>
struct LayoutSpec {
  // The file format's layout id and the value of simdbloom::Layout's enumerator (frozen).
  static constexpr uint8_t kFormatId = kId;
  // Bits per block: the unit of the filter's size.
  static constexpr uint32_t kBlockBits = kBits;
  // Probes per key allowed.
  static constexpr uint32_t kMinK = kLowK, kMaxK = kHighK;
  // Hash family: XXH64 if kXxh64, Murmur3 x64 128 if kMurmur128, else XXH3.
  static constexpr bool kXxh64 = kHash == HashFamily::kXxh64;
  static constexpr bool kMurmur128 = kHash == HashFamily::kMurmur128;
};

// The constant lane masks of a layout whose key sets words (w0 + rel) mod 8 of a 512-bit block
// (block512, shifting; their kernels read them, kernel-inl.h): mask[k][w0][r][w] is all ones iff
// kSlot(rel, r) < k, rel = (w - w0) mod 8, i.e. iff word w gets bit r's probe of a key with k
// probes whose probes start at word w0. Constant, so a bulk call builds nothing.
template <uint32_t kMaxK, uint32_t (*kSlot)(uint32_t rel, uint32_t r)>
struct alignas(64) LaneMasks {
  uint64_t mask[kMaxK + 1][8][2][8];
  constexpr LaneMasks() : mask() {
    for (uint32_t k = 0; k <= kMaxK; ++k) {
      for (uint32_t w0 = 0; w0 < 8; ++w0) {
        for (uint32_t r = 0; r < 2; ++r) {
          for (uint32_t w = 0; w < 8; ++w)
            mask[k][w0][r][w] = kSlot((w - w0) & 7, r) < k ? ~0ull : 0;
        }
      }
    }
  }
};

}  // namespace detail
}  // namespace simdbloom

// The functions every layout's spec struct declares (kernels/<layout>/spec.h) and its folder
// defines: scalar.cc the one-key code of scalar.h out of line (production: the library's
// out-of-line single-key path; the oracle applies it key by key), model.cc the false-positive model
// and statistics (FORMAT.md), kernels.cc the per-target kernel tables.
//   ScalarInsert: sets the probes of hash h; true if one was clear. ScalarContains: every probe
//     set. ScalarInsertAtomic: ScalarInsert with each word ORed atomically (AtomicOr), safe against
//     concurrent writers; true if a probe was clear when it was set.
//   ModelFpr: predicted false-positive rate with n distinct keys in num_blocks blocks, k probes.
//   DistinctBitsPerKey: expected distinct bits one key sets in an array of m bits.
//   ExpectedFpp: false-positive rate of the bit array at `bytes` for a random absent key.
//   KernelsAt: entry `table_index` of the layout's per-target table (kernels/simd/export.h), read
//     by kernels/dispatch.cc.
#define SIMDBLOOM_LAYOUT_SPEC_FUNCTIONS                                             \
  static bool ScalarInsert(uint64_t* words, const Params& p, uint64_t h);           \
  static bool ScalarContains(const uint64_t* words, const Params& p, uint64_t h);   \
  static bool ScalarInsertAtomic(uint64_t* words, const Params& p, uint64_t h);     \
  static double ModelFpr(uint32_t k, double n, uint64_t num_blocks);                \
  static double DistinctBitsPerKey(uint32_t k, double m);                           \
  static double ExpectedFpp(const uint8_t* bytes, uint64_t num_blocks, uint32_t k); \
  static const LayoutKernels* KernelsAt(size_t table_index);

// Declares struct simdbloom::detail::<Name>Spec, a layout's specification: LayoutSpec<ID, BITS,
// MIN_K, MAX_K, HashFamily::HASH> (format id, block bits, k range, hash family), kName = NAME (the
// layout's name), the members given after HASH if any (constants the layout adds), and
// SIMDBLOOM_LAYOUT_SPEC_FUNCTIONS. Written at namespace scope, outside namespace simdbloom, with
// the layout's probe mapping above it (kernels/<layout>/spec.h).
#define SIMDBLOOM_LAYOUT_SPEC(Name, NAME, ID, BITS, MIN_K, MAX_K, HASH, ...)         \
  namespace simdbloom::detail {                                                      \
  struct Name##Spec : LayoutSpec<ID, BITS, MIN_K, MAX_K, HashFamily::HASH> {         \
    static constexpr const char* kName = NAME;                                       \
    __VA_ARGS__                                                                      \
    SIMDBLOOM_LAYOUT_SPEC_FUNCTIONS /* defined in scalar.cc, model.cc, kernels.cc */ \
  };                                                                                 \
  }  // namespace simdbloom::detail

// Defines SPEC's out-of-line one-key functions from the inline code of SCALAR (the layout's
// scalar.h): the whole of each layout's scalar.cc, inside namespace detail.
#define SIMDBLOOM_DEFINE_SCALAR_FUNCTIONS(SPEC, SCALAR)                           \
  bool SPEC::ScalarInsert(uint64_t* words, const Params& p, uint64_t h) {         \
    return SCALAR::Insert(words, p, h);                                           \
  }                                                                               \
  bool SPEC::ScalarContains(const uint64_t* words, const Params& p, uint64_t h) { \
    return SCALAR::Contains(words, p, h);                                         \
  }                                                                               \
  bool SPEC::ScalarInsertAtomic(uint64_t* words, const Params& p, uint64_t h) {   \
    return SCALAR::InsertAtomic(words, p, h);                                     \
  }

#endif  // SIMDBLOOM_KERNELS_LAYOUT_SPEC_H_
