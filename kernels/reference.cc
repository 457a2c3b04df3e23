// SPDX-License-Identifier: Apache-2.0
// The "reference" target's kernel table: one key at a time, literally as lib/FORMAT.md says.
#include "kernels/reference.h"

#include <cstring>

#include "kernels/bits.h"
#include "kernels/block512/scalar.h"
#include "kernels/classic/scalar.h"
#include "kernels/counting/reference.h"
#include "kernels/guava/scalar.h"
#include "kernels/guava32/scalar.h"
#include "kernels/interface.h"
#include "kernels/register64/scalar.h"
#include "kernels/scalar/guava.h"
#include "kernels/scalar/hash_inline.h"
#include "kernels/scalar/results.h"
#include "kernels/shbf_m/scalar.h"
#include "kernels/split_block256/scalar.h"

namespace simdbloom {
namespace ref {
namespace {

using detail::LayoutId;
using detail::Params;

void HashU64Bulk(const uint64_t* keys, size_t n, uint64_t seed, uint64_t* out) {
  for (size_t i = 0; i < n; ++i) out[i] = scalar::inlined::HashU64(LoadU64(keys + i), seed);
}

void HashU64Xxh64Bulk(const uint64_t* keys, size_t n, uint64_t seed, uint64_t* out) {
  for (size_t i = 0; i < n; ++i) out[i] = scalar::inlined::HashU64Xxh64(LoadU64(keys + i), seed);
}

void BlockIndexBulk(const uint64_t* hashes, size_t n, uint64_t num_blocks, uint64_t* out) {
  for (size_t i = 0; i < n; ++i) out[i] = BlockIndex(LoadU64(hashes + i), num_blocks);
}

void OrWords(uint64_t* dst, const uint64_t* src, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] |= src[i];
}

void AndWords(uint64_t* dst, const uint64_t* src, size_t n) {
  for (size_t i = 0; i < n; ++i) dst[i] &= src[i];
}

void HashU32Bulk(const uint32_t* keys, size_t n, uint64_t seed, uint64_t* out) {
  for (size_t i = 0; i < n; ++i) {
    uint32_t key;
    std::memcpy(&key, keys + i, 4);
    out[i] = scalar::inlined::HashU32(key, seed);
  }
}

void HashU32Xxh64Bulk(const uint32_t* keys, size_t n, uint64_t seed, uint64_t* out) {
  for (size_t i = 0; i < n; ++i) {
    uint32_t key;
    std::memcpy(&key, keys + i, 4);
    out[i] = scalar::inlined::HashU32Xxh64(key, seed);
  }
}

void HashAny(bool xxh64, const detail::KeySource& keys, size_t n, uint64_t seed, uint64_t* out) {
  for (size_t i = 0; i < n; ++i) out[i] = scalar::inlined::HashOfKey(xxh64, keys, i, seed);
}

// The layout's one-key code (<Name>Scalar, kernels/<layout>/scalar.h) and the hashes
// (kernels/scalar/hash_inline.h) are inlined: the reference target runs at the speed of plain
// scalar code, not through the registry's function pointers.
// Key i through the layout's one-key code: XXH3/XXH64 hash, or the two Murmur3 halves of a
// kMurmur128 layout (the Guava layouts, kernels/scalar/guava.h).
template <class Spec, class Scalar>
bool InsertKey(uint64_t* words, const Params& p, const detail::KeySource& keys, size_t i) {
  if constexpr (detail::Murmur128Of<Spec>::value) {
    return Scalar::Insert128(words, p, scalar::Murmur128OfKey(keys, i, p.seed));
  } else {
    return Scalar::Insert(words, p, scalar::inlined::HashOfKey(Spec::kXxh64, keys, i, p.seed));
  }
}
template <class Spec, class Scalar>
bool InsertAtomicKey(uint64_t* words, const Params& p, const detail::KeySource& keys, size_t i) {
  if constexpr (detail::Murmur128Of<Spec>::value) {
    return Scalar::InsertAtomic128(words, p, scalar::Murmur128OfKey(keys, i, p.seed));
  } else {
    return Scalar::InsertAtomic(words, p,
                                scalar::inlined::HashOfKey(Spec::kXxh64, keys, i, p.seed));
  }
}
template <class Spec, class Scalar>
bool ContainsKey(const uint64_t* words, const Params& p, const detail::KeySource& keys, size_t i) {
  if constexpr (detail::Murmur128Of<Spec>::value) {
    return Scalar::Contains128(words, p, scalar::Murmur128OfKey(keys, i, p.seed));
  } else {
    return Scalar::Contains(words, p, scalar::inlined::HashOfKey(Spec::kXxh64, keys, i, p.seed));
  }
}

// Every key in order; returns how many set a bit that was clear. kAtomic: with AtomicOr.
template <class Spec, class Scalar, bool kAtomic>
uint64_t Insert(uint64_t* words, Params p, const detail::KeySource& keys, size_t n,
                uint8_t* fresh) {
  uint64_t changed = 0;
  for (size_t i = 0; i < n; ++i) {
    const bool is_new = kAtomic ? InsertAtomicKey<Spec, Scalar>(words, p, keys, i)
                                : InsertKey<Spec, Scalar>(words, p, keys, i);
    if (fresh != nullptr) fresh[i] = is_new;
    changed += is_new;
  }
  return changed;
}

template <class Spec, class Scalar>
uint64_t Contains(const uint64_t* words, Params p, const detail::KeySource& keys, size_t n,
                  detail::ResultKind result, void* out) {
  uint64_t hits = 0;
  for (size_t i = 0; i < n; ++i) {
    scalar::WriteResult(result, keys, i, ContainsKey<Spec, Scalar>(words, p, keys, i), out, hits);
  }
  return hits;
}

template <class Spec, class Scalar>
constexpr detail::LayoutKernels For() {
  return {&Insert<Spec, Scalar, false>, &Insert<Spec, Scalar, true>, &Contains<Spec, Scalar>};
}

// The shifting set filters' candidates of each key, key by key (kernels/shbf_ax/spec.h).
void ShiftingSetCandidates(const uint64_t* words, const detail::Params& p,
                           const detail::KeySource& keys, size_t n, uint64_t* out) {
  for (size_t i = 0; i < n; ++i) {
    const uint64_t h = HashOfKey(detail::kShiftingSetsXxh64, keys, i, p.seed);
    out[i] = detail::ShiftingSetCandidatesAt(words, p.num_blocks, h);
  }
}

// FilterSet's fused block512 probe (kernels/block512/spec.h), probe by probe: the masks from
// Block512Probe, and the selection from Block512Scalar::Contains with k (ignoring the masks), so
// a target's masks and its selection are each checked against the scalar layout.
void Block512SetMasks(const uint64_t* hashes, size_t n, uint32_t k, uint64_t* masks) {
  for (size_t j = 0; j < n; ++j) {
    const uint64_t h = LoadU64(hashes + j);
    uint64_t* out = masks + 8 * j;
    for (int w = 0; w < 8; ++w) out[w] = 0;
    for (uint32_t i = 0; i < k; ++i) {
      uint32_t w, b;
      detail::Block512Probe(h, i, &w, &b);
      out[w] |= uint64_t{1} << b;
    }
  }
}

uint64_t Block512SetSelect(const detail::Block512SetFilter* filters, size_t m, uint32_t k,
                           const uint64_t* hashes, const uint64_t*, const uint32_t* idx, size_t n,
                           uint32_t, uint32_t* sel, size_t stride, uint32_t* counts) {
  uint64_t total = 0;
  for (size_t f = 0; f < m; ++f) {
    const Params p{filters[f].num_blocks, k, 0};
    uint32_t c = 0;
    for (size_t j = 0; j < n; ++j) {
      const uint64_t h = LoadU64(hashes + (idx != nullptr ? idx[j] : j));
      if (detail::Block512Scalar::Contains(filters[f].words, p, h)) {
        sel[f * stride + c++] = static_cast<uint32_t>(j);
      }
    }
    counts[f] = c;
    total += c;
  }
  return total;
}

}  // namespace
}  // namespace ref

namespace detail {

const Block512SetKernels& Block512SetReference() {
  static constexpr Block512SetKernels kernels = {&ref::Block512SetMasks, &ref::Block512SetSelect};
  return kernels;
}

const ShiftingSetKernels& ShiftingSetReference() {
  static constexpr ShiftingSetKernels kernels = {&ref::ShiftingSetCandidates};
  return kernels;
}

const Kernels& Reference() {
  static const Kernels k = [] {
    Kernels t = {"reference",
                 0,
                 &ref::HashU64Bulk,
                 &ref::HashU64Xxh64Bulk,
                 &ref::HashU32Bulk,
                 &ref::HashU32Xxh64Bulk,
                 &ref::HashAny,
                 &ref::BlockIndexBulk,
                 &ref::OrWords,
                 &ref::AndWords,
                 {}};
#define SIMDBLOOM_X(Name, C_NAME) \
  t.layout[static_cast<int>(LayoutId::k##Name)] = ref::For<Name##Spec, Name##Scalar>();
    SIMDBLOOM_FOR_EACH_LAYOUT(SIMDBLOOM_X)
#undef SIMDBLOOM_X
#define SIMDBLOOM_X(member, Type, TableAt, Reference) t.member = Reference();
    SIMDBLOOM_FOR_EACH_KIND(SIMDBLOOM_X)
#undef SIMDBLOOM_X
    return t;
  }();
  return k;
}

}  // namespace detail
}  // namespace simdbloom
