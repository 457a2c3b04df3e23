// SPDX-License-Identifier: Apache-2.0
// The block512 layout's specification: its constants and probe mapping (the folder's files:
// kernels/registry.h). lib/FORMAT.md specifies the bits.
#ifndef SIMDBLOOM_KERNELS_BLOCK512_SPEC_H_
#define SIMDBLOOM_KERNELS_BLOCK512_SPEC_H_

#include <cstddef>
#include <cstdint>

#include "kernels/layout_spec.h"
#include "simdbloom/detail/probes.hpp"

// Probe i of hash h sets bit lo32(a * M[8r + w]) >> 26 of u64 word w = (w0 + i) mod 8 of block
// hi32(h) * num_blocks >> 32, with a = lo32(h), w0 = hi32(h) mod 8, r = i / 8.
SIMDBLOOM_LAYOUT_SPEC(Block512, "block512", 1, 512, 1, 16, kXxh3)

namespace simdbloom::detail {

// Probe i of hash h: word (w0 + i) mod 8, bit lo32(a * M[8r + w]) >> 26 (the installed header's
// probe math, simdbloom/detail/probes.hpp).
inline void Block512Probe(uint64_t h, uint32_t i, uint32_t* word, uint32_t* bit) {
  *word = Block512Word(h, i);
  *bit = Block512Bit(h, i);
}

// The kernels' lane masks, for every k: mask[k][w0][r][w] is all ones iff word w of a key whose
// probes start at word w0 gets a probe of round r (probe 8r + ((w - w0) mod 8) < k). Constant, so
// a bulk call builds nothing: building the 1 KiB table per call cost short calls (bursts of a
// few keys) a fifth of their time or more (perf/README.md, design note M15).
constexpr uint32_t Block512Slot(uint32_t rel, uint32_t r) { return 8 * r + rel; }
inline constexpr LaneMasks<Block512Spec::kMaxK, Block512Slot> kBlock512LaneMasks{};

// FilterSet's fused block512 probe (lib/core/filter_set.cc, perf/README.md design note M19): a
// key's in-block mask depends on its hash and k only, not on the filter, so a batch's masks are
// computed once for every filter of one hash and one k, and each (key, filter) probe is then a
// block index, a line load and (line & mask) == mask. One table per target (a kind of
// kernels/registry.h's list: Block512SetKernelsAt, and Block512SetReference for the oracle).
struct Block512SetFilter {
  const uint64_t* words;  // the filter's 64-byte-aligned bit array
  uint64_t num_blocks;    // 1 .. 2^32 - 1
};
struct Block512SetKernels {
  // masks[8j .. 8j + 8) = the words of a block the key of hash hashes[j] sets with k probes
  // (1 <= k <= 16), j < n. hashes may be unaligned; masks need no alignment (64-byte alignment
  // is faster).
  void (*masks)(const uint64_t* hashes, size_t n, uint32_t k, uint64_t* masks);
  // For each filter f < m: sel[f * stride ...] = every j < n, ascending, whose key may be in
  // filters[f] (the key of hash hashes[idx[j]] and mask masks[8 idx[j] ..] when idx is set, else
  // hashes[j] and masks[8j ..]: its block (line & mask) == mask); counts[f] = their number
  // (stride >= n). Returns the sum of counts. masks must be the `masks` kernel's for k (the
  // reference tests the probes of k itself). Prefetches the block `distance` probes ahead (0:
  // none), in (filter, key) order across the filters. Reads the filters with plain loads (the
  // bulk query's contract with insert_concurrent).
  uint64_t (*select)(const Block512SetFilter* filters, size_t m, uint32_t k, const uint64_t* hashes,
                     const uint64_t* masks, const uint32_t* idx, size_t n, uint32_t distance,
                     uint32_t* sel, size_t stride, uint32_t* counts);
};
const Block512SetKernels* Block512SetKernelsAt(size_t table_index);
const Block512SetKernels& Block512SetReference();

}  // namespace simdbloom::detail

#endif  // SIMDBLOOM_KERNELS_BLOCK512_SPEC_H_
