// Scalar reference kernels: one key at a time, literally as lib/FORMAT.md says.
#include "kernels/reference.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace simdbloom {
namespace ref {
namespace {

void HashU64Bulk(const uint64_t* keys, size_t n, uint64_t seed, uint64_t* out) {
  for (size_t i = 0; i < n; ++i) out[i] = HashU64(LoadU64(keys + i), seed);
}

void BlockIndexBulk(const uint64_t* hashes, size_t n, uint64_t num_blocks, uint64_t* out) {
  for (size_t i = 0; i < n; ++i) out[i] = BlockIndex(LoadU64(hashes + i), num_blocks);
}

void InsertHashes(uint64_t* words, detail::Block512Params p, const uint64_t* hashes, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const uint64_t h = LoadU64(hashes + i);
    Block512Insert(words + 8 * BlockIndex(h, p.num_blocks), h, p.k);
  }
}

void ContainsHashes(const uint64_t* words, detail::Block512Params p, const uint64_t* hashes,
                    size_t n, uint8_t* out) {
  for (size_t i = 0; i < n; ++i) {
    const uint64_t h = LoadU64(hashes + i);
    out[i] = Block512Contains(words + 8 * BlockIndex(h, p.num_blocks), h, p.k);
  }
}

void InsertU64(uint64_t* words, detail::Block512Params p, const uint64_t* keys, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const uint64_t h = HashU64(LoadU64(keys + i), p.seed);
    Block512Insert(words + 8 * BlockIndex(h, p.num_blocks), h, p.k);
  }
}

void ContainsU64(const uint64_t* words, detail::Block512Params p, const uint64_t* keys, size_t n,
                 uint8_t* out) {
  for (size_t i = 0; i < n; ++i) {
    const uint64_t h = HashU64(LoadU64(keys + i), p.seed);
    out[i] = Block512Contains(words + 8 * BlockIndex(h, p.num_blocks), h, p.k);
  }
}

}  // namespace

uint64_t HashU64(uint64_t key, uint64_t seed) {
  uint8_t bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<uint8_t>(key >> (8 * i));
  return XXH3_64bits_withSeed(bytes, 8, seed);
}

const detail::Kernels& Kernels() {
  static const detail::Kernels k = {
      "reference",    0,         HashU64Bulk, BlockIndexBulk, InsertHashes,
      ContainsHashes, InsertU64, ContainsU64};
  return k;
}

}  // namespace ref
}  // namespace simdbloom
