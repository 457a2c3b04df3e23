// Scalar reference kernels: one key at a time, literally as lib/FORMAT.md says.
#include "kernels/reference.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace simdbloom {
namespace ref {
namespace {

using detail::LayoutId;
using detail::Params;

void HashU64Bulk(const uint64_t* keys, size_t n, uint64_t seed, uint64_t* out) {
  for (size_t i = 0; i < n; ++i) out[i] = HashU64(LoadU64(keys + i), seed);
}

void HashU64Xxh64Bulk(const uint64_t* keys, size_t n, uint64_t seed, uint64_t* out) {
  for (size_t i = 0; i < n; ++i) out[i] = HashU64Xxh64(LoadU64(keys + i), seed);
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

template <LayoutId L>
void InsertHashes(uint64_t* words, Params p, const uint64_t* hashes, size_t n) {
  for (size_t i = 0; i < n; ++i) InsertHash(L, words, p, LoadU64(hashes + i));
}

template <LayoutId L>
void ContainsHashes(const uint64_t* words, Params p, const uint64_t* hashes, size_t n,
                    uint8_t* out) {
  for (size_t i = 0; i < n; ++i) out[i] = ContainsHash(L, words, p, LoadU64(hashes + i));
}

template <LayoutId L>
void InsertU64(uint64_t* words, Params p, const uint64_t* keys, size_t n) {
  for (size_t i = 0; i < n; ++i) InsertHash(L, words, p, HashFor(L, LoadU64(keys + i), p.seed));
}

template <LayoutId L>
void ContainsU64(const uint64_t* words, Params p, const uint64_t* keys, size_t n, uint8_t* out) {
  for (size_t i = 0; i < n; ++i) {
    out[i] = ContainsHash(L, words, p, HashFor(L, LoadU64(keys + i), p.seed));
  }
}

template <LayoutId L>
constexpr detail::LayoutKernels For() {
  return {&InsertHashes<L>, &ContainsHashes<L>, &InsertU64<L>, &ContainsU64<L>};
}

}  // namespace

uint64_t HashU64(uint64_t key, uint64_t seed) {
  uint8_t bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<uint8_t>(key >> (8 * i));
  return XXH3_64bits_withSeed(bytes, 8, seed);
}

uint64_t HashU64Xxh64(uint64_t key, uint64_t seed) {
  uint8_t bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<uint8_t>(key >> (8 * i));
  return XXH64(bytes, 8, seed);
}

uint64_t HashBytesXxh3(const void* data, size_t size, uint64_t seed) {
  return XXH3_64bits_withSeed(data, size, seed);
}

uint64_t HashBytesXxh64(const void* data, size_t size, uint64_t seed) {
  return XXH64(data, size, seed);
}

const detail::Kernels& Kernels() {
  static const detail::Kernels k = {"reference",
                                    0,
                                    &HashU64Bulk,
                                    &HashU64Xxh64Bulk,
                                    &BlockIndexBulk,
                                    &OrWords,
                                    &AndWords,
                                    {{},
                                     For<LayoutId::kBlock512>(),
                                     For<LayoutId::kRegister64>(),
                                     For<LayoutId::kSplitBlock256>(),
                                     For<LayoutId::kClassic>()}};
  return k;
}

}  // namespace ref
}  // namespace simdbloom
