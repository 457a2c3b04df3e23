// SPDX-License-Identifier: Apache-2.0
// The layouts, declared once. A layout is a folder kernels/<name>/ holding
//   spec.h       its constants (struct <Name>Spec: name, format id, block bits, k range, hash
//                family) and how its probes map to bits;
//   scalar.h     its one-key code, plain C++ (struct <Name>Scalar: the model the oracle,
//                kernels/reference.cc, applies key by key), and scalar.cc the same out of line
//                (<Name>Spec::Scalar*: the library's out-of-line single-key path);
//   model.cc     its false-positive model (sizing), distinct bits per key (approximate count) and
//                expected false-positive rate of a bit array;
//   kernel-inl.h its Highway kernel (struct <Name> in the tiled pipeline, simd/pipeline-inl.h);
//   kernels.cc   its per-target compilation unit (exports the kernel table of each target);
// and one entry below (its spec.h included, its name in the list). The registry includes the
// specs only (tests/scripts/check_includes.py checks the layering of kernels/). From the list come
// the LayoutId enum, the layout table the library core reads (names, sizes, k ranges, hash family,
// models), the reference's dispatch, every target's kernel table, the static_asserts on the
// public enum and the C constants, and the layout lists of the tests and the bench.
// What a kind of FILE is (its name, magic, format versions, the hash id its header records, the
// counting layouts' names and C constants) is the file format's, above this layer: the registry
// of file kinds is lib/formats/kinds.h (kernels/ does not include lib/: includes.layers).
#ifndef SIMDBLOOM_KERNELS_REGISTRY_H_
#define SIMDBLOOM_KERNELS_REGISTRY_H_

#include <cstdint>
#include <type_traits>

#include "kernels/block512/spec.h"
#include "kernels/classic/spec.h"
#include "kernels/counting/spec.h"
#include "kernels/guava/spec.h"
#include "kernels/guava32/spec.h"
#include "kernels/register64/spec.h"
#include "kernels/shbf_m/spec.h"
#include "kernels/shbf_ax/spec.h"
#include "kernels/spatial/spec.h"
#include "kernels/split_block256/spec.h"

// X(Name, C_NAME): kernels/<folder>/, struct <Name>Spec, kernel struct <Name>, simdbloom::Layout::
// k<Name> and the C constant SIMDBLOOM_<C_NAME> (both checked against <Name>Spec::kFormatId).
#define SIMDBLOOM_FOR_EACH_LAYOUT(X) \
  X(Block512, BLOCK512)              \
  X(Register64, REGISTER64)          \
  X(SplitBlock256, SPLIT_BLOCK256)   \
  X(Classic, CLASSIC)                \
  X(Shifting, SHIFTING)              \
  X(Guava, GUAVA)                    \
  X(Guava32, GUAVA32)

// The other kinds' kernels, declared once: X(member, Type, TableAt, Reference). A kind is a folder
// kernels/<kind>/ with a spec (its constants, hash family kXxh64, its table type Type, TableAt and
// Reference) and per-target units exporting the table. Every target's kernel table (struct
// Kernels, kernels/table.h) has a `Type member`: *TableAt(table_index) for a compiled target
// (kernels/dispatch.cc), Reference() for the reference target (kernels/reference.cc). The library
// reaches a kind's kernels through the active table only (detail::Active().member).
#define SIMDBLOOM_FOR_EACH_KIND(X)                                                         \
  X(counting_blocked, CountingKernels, CountingBlockedKernelsAt, CountingBlockedReference) \
  X(counting_classic, CountingKernels, CountingClassicKernelsAt, CountingClassicReference) \
  X(spatial, SpatialKernels, SpatialKernelsAt, SpatialReference)                           \
  X(shifting_sets, ShiftingSetKernels, ShiftingSetKernelsAt, ShiftingSetReference)         \
  X(block512_set, Block512SetKernels, Block512SetKernelsAt, Block512SetReference)

namespace simdbloom {
namespace detail {

// Layouts by id (= the file format's layout id = simdbloom::Layout's value).
enum class LayoutId : uint8_t {
#define SIMDBLOOM_X(Name, C_NAME) k##Name = Name##Spec::kFormatId,
  SIMDBLOOM_FOR_EACH_LAYOUT(SIMDBLOOM_X)
#undef SIMDBLOOM_X
};

// Whether a spec hashes with Murmur3 x64 128 (kMurmur128 declared true: the Guava layouts, whose
// probes need both 64-bit halves; else XXH3 or XXH64 as kXxh64 says).
template <class Spec, class = void>
struct Murmur128Of : std::false_type {};
template <class Spec>
struct Murmur128Of<Spec, std::enable_if_t<Spec::kMurmur128>> : std::true_type {};

// What the library core knows of a layout.
struct LayoutInfo {
  LayoutId id;
  const char* name;
  uint32_t block_bits;
  uint32_t min_k, max_k;
  bool xxh64;
  bool murmur128;  // Murmur3 x64 128 of the key's funnel bytes (Murmur128Of)
  // The layout's scalar one-key code (<Name>Spec::Scalar*, kernels/<layout>/scalar.cc).
  bool (*scalar_insert)(uint64_t* words, const Params& p, uint64_t h);
  bool (*scalar_contains)(const uint64_t* words, const Params& p, uint64_t h);
  bool (*scalar_insert_atomic)(uint64_t* words, const Params& p, uint64_t h);
  double (*model_fpr)(uint32_t k, double n, uint64_t num_blocks);
  double (*distinct_bits_per_key)(uint32_t k, double m);
  double (*expected_fpp)(const uint8_t* bytes, uint64_t num_blocks, uint32_t k);
};

constexpr LayoutInfo kLayoutInfos[] = {
#define SIMDBLOOM_X(Name, C_NAME)   \
  {LayoutId::k##Name,               \
   Name##Spec::kName,               \
   Name##Spec::kBlockBits,          \
   Name##Spec::kMinK,               \
   Name##Spec::kMaxK,               \
   Name##Spec::kXxh64,              \
   Murmur128Of<Name##Spec>::value,  \
   &Name##Spec::ScalarInsert,       \
   &Name##Spec::ScalarContains,     \
   &Name##Spec::ScalarInsertAtomic, \
   &Name##Spec::ModelFpr,           \
   &Name##Spec::DistinctBitsPerKey, \
   &Name##Spec::ExpectedFpp},
    SIMDBLOOM_FOR_EACH_LAYOUT(SIMDBLOOM_X)
#undef SIMDBLOOM_X
};
constexpr size_t kNumLayouts = sizeof(kLayoutInfos) / sizeof(kLayoutInfos[0]);

// One past the largest id: the size of tables indexed by LayoutId.
constexpr int MaxLayoutIdPlusOne() {
  int m = 0;
  for (const LayoutInfo& l : kLayoutInfos)
    m = static_cast<int>(l.id) + 1 > m ? static_cast<int>(l.id) + 1 : m;
  return m;
}
constexpr int kNumLayoutSlots = MaxLayoutIdPlusOne();

// The layout with format id `id`, or nullptr.
constexpr const LayoutInfo* FindLayout(uint8_t id) {
  for (const LayoutInfo& l : kLayoutInfos) {
    if (static_cast<uint8_t>(l.id) == id) return &l;
  }
  return nullptr;
}
// The layout `id` (which must be one), by table lookup.
struct LayoutsById {
  const LayoutInfo* by_id[kNumLayoutSlots] = {};
  constexpr LayoutsById() {
    for (const LayoutInfo& l : kLayoutInfos) by_id[static_cast<int>(l.id)] = &l;
  }
};
constexpr LayoutsById kLayoutsById{};
inline const LayoutInfo& InfoOf(LayoutId id) { return *kLayoutsById.by_id[static_cast<int>(id)]; }

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_REGISTRY_H_
