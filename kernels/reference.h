// The scalar reference: a literal implementation of lib/FORMAT.md, compiled without target flags.
// It is the specification the SIMD kernels are tested against, and the "reference" target.
#ifndef SIMDBLOOM_KERNELS_REFERENCE_H_
#define SIMDBLOOM_KERNELS_REFERENCE_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/dispatch.h"

namespace simdbloom {
namespace ref {

// M[t] = 0x9E3779B9^(t+1) mod 2^32 (FORMAT.md): block512 and register64 bit selection.
struct Multipliers {
  uint32_t m[16];
  constexpr Multipliers() : m() {
    uint32_t c = 1;
    for (int t = 0; t < 16; ++t) {
      c *= 0x9E3779B9u;
      m[t] = c;
    }
  }
};
constexpr Multipliers kMultipliers{};

// The eight salts of Parquet's split block Bloom filter (parquet-format BloomFilter.md).
constexpr uint32_t kParquetSalt[8] = {0x47b6137bu, 0x44974d91u, 0x8824ad5bu, 0xa2b7289du,
                                      0x705495c7u, 0x2df1424bu, 0x9efc4947u, 0x5c6bfb31u};

inline uint64_t LoadU64(const void* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// XXH3_64bits_withSeed over the key's 8 little-endian bytes (libxxhash's own code).
uint64_t HashU64(uint64_t key, uint64_t seed);
// XXH64 over the key's 8 little-endian bytes (libxxhash's own code).
uint64_t HashU64Xxh64(uint64_t key, uint64_t seed);
// XXH3_64bits_withSeed / XXH64 over the key's 4 little-endian bytes.
uint64_t HashU32(uint32_t key, uint64_t seed);
uint64_t HashU32Xxh64(uint32_t key, uint64_t seed);
// XXH3_64bits_withSeed / XXH64 over `size` bytes: the hash of a byte-string key.
uint64_t HashBytesXxh3(const void* data, size_t size, uint64_t seed);
uint64_t HashBytesXxh64(const void* data, size_t size, uint64_t seed);
inline uint64_t HashBytes(detail::LayoutId layout, const void* data, size_t size, uint64_t seed) {
  return layout == detail::LayoutId::kSplitBlock256 ? HashBytesXxh64(data, size, seed)
                                                    : HashBytesXxh3(data, size, seed);
}
// The file format's checksum: XXH3_64bits (seed 0) of `size` bytes.
inline uint64_t Checksum(const void* data, size_t size) { return HashBytesXxh3(data, size, 0); }

// The hash a layout applies to a u64 key: XXH64 for split_block256, XXH3 otherwise.
inline uint64_t HashFor(detail::LayoutId layout, uint64_t key, uint64_t seed) {
  return layout == detail::LayoutId::kSplitBlock256 ? HashU64Xxh64(key, seed) : HashU64(key, seed);
}

// Block (or word) index of every blocked layout: (hi32(h) * num_blocks) >> 32.
inline uint64_t BlockIndex(uint64_t h, uint64_t num_blocks) {
  return ((h >> 32) * num_blocks) >> 32;
}

// ---- block512: probe i of hash h goes to word (w0 + i) mod 8, bit lo32(a * M[8r + w]) >> 26.
inline void Block512Probe(uint64_t h, uint32_t i, uint32_t* word, uint32_t* bit) {
  const uint32_t a = static_cast<uint32_t>(h);
  const uint32_t w0 = static_cast<uint32_t>(h >> 32) & 7;
  const uint32_t w = (w0 + i) & 7;
  const uint32_t r = i >> 3;
  *word = w;
  *bit = (a * kMultipliers.m[8 * r + w]) >> 26;
}

// Every insert below returns true if it set a bit that was clear (the key was surely new).
inline bool SetBit(uint64_t* word, uint32_t bit) {
  const bool was_clear = ((*word >> bit) & 1) == 0;
  *word |= uint64_t{1} << bit;
  return was_clear;
}

inline bool Block512Insert(uint64_t* block, uint64_t h, uint32_t k) {
  bool changed = false;
  for (uint32_t i = 0; i < k; ++i) {
    uint32_t w, b;
    Block512Probe(h, i, &w, &b);
    changed |= SetBit(&block[w], b);
  }
  return changed;
}

inline bool Block512Contains(const uint64_t* block, uint64_t h, uint32_t k) {
  for (uint32_t i = 0; i < k; ++i) {
    uint32_t w, b;
    Block512Probe(h, i, &w, &b);
    if (((block[w] >> b) & 1) == 0) return false;
  }
  return true;
}

// ---- register64: one u64 word per key; probe i sets bit lo32(a * M[i]) >> 26.
inline uint64_t Register64Mask(uint64_t h, uint32_t k) {
  const uint32_t a = static_cast<uint32_t>(h);
  uint64_t mask = 0;
  for (uint32_t i = 0; i < k; ++i) mask |= uint64_t{1} << ((a * kMultipliers.m[i]) >> 26);
  return mask;
}

// ---- split_block256 (Parquet): word i of the 8-word block gets bit (lo32(h) * salt[i]) >> 27.
inline bool Split256Insert(uint32_t* block, uint64_t h) {
  const uint32_t key = static_cast<uint32_t>(h);
  bool changed = false;
  for (int i = 0; i < 8; ++i) {
    const uint32_t bit = uint32_t{1} << ((key * kParquetSalt[i]) >> 27);
    changed |= (block[i] & bit) == 0;
    block[i] |= bit;
  }
  return changed;
}

inline bool Split256Contains(const uint32_t* block, uint64_t h) {
  const uint32_t key = static_cast<uint32_t>(h);
  for (int i = 0; i < 8; ++i) {
    if (((block[i] >> ((key * kParquetSalt[i]) >> 27)) & 1) == 0) return false;
  }
  return true;
}

// ---- classic: probe i is bit floor(g_i * m / 2^64) of the whole array, m = 512 * num_blocks,
// g_i = h + i * rotl(h, 32) mod 2^64 (double hashing in the 64-bit fixed-point domain).
inline uint64_t ClassicStep(uint64_t h) { return (h << 32) | (h >> 32); }

inline uint64_t ClassicBit(uint64_t g, uint64_t num_blocks) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(g) * (num_blocks * 512)) >> 64);
}

inline bool ClassicInsert(uint64_t* words, uint64_t num_blocks, uint64_t h, uint32_t k) {
  const uint64_t step = ClassicStep(h);
  uint64_t g = h;
  bool changed = false;
  for (uint32_t i = 0; i < k; ++i, g += step) {
    const uint64_t bit = ClassicBit(g, num_blocks);
    changed |= SetBit(&words[bit >> 6], static_cast<uint32_t>(bit & 63));
  }
  return changed;
}

inline bool ClassicContains(const uint64_t* words, uint64_t num_blocks, uint64_t h, uint32_t k) {
  const uint64_t step = ClassicStep(h);
  uint64_t g = h;
  for (uint32_t i = 0; i < k; ++i, g += step) {
    const uint64_t bit = ClassicBit(g, num_blocks);
    if (((words[bit >> 6] >> (bit & 63)) & 1) == 0) return false;
  }
  return true;
}

// Any layout, one pre-hashed key: what the bulk kernels must reproduce.
// Returns true if the key set a bit that was clear.
inline bool InsertHash(detail::LayoutId layout, uint64_t* words, const detail::Params& p,
                       uint64_t h) {
  switch (layout) {
    case detail::LayoutId::kBlock512:
      return Block512Insert(words + 8 * BlockIndex(h, p.num_blocks), h, p.k);
    case detail::LayoutId::kRegister64: {
      uint64_t& word = words[BlockIndex(h, p.num_blocks)];
      const uint64_t mask = Register64Mask(h, p.k);
      const bool changed = (word & mask) != mask;
      word |= mask;
      return changed;
    }
    case detail::LayoutId::kSplitBlock256:
      return Split256Insert(reinterpret_cast<uint32_t*>(words) + 8 * BlockIndex(h, p.num_blocks),
                            h);
    case detail::LayoutId::kClassic:
      return ClassicInsert(words, p.num_blocks, h, p.k);
  }
  return false;
}

inline bool ContainsHash(detail::LayoutId layout, const uint64_t* words, const detail::Params& p,
                         uint64_t h) {
  switch (layout) {
    case detail::LayoutId::kBlock512:
      return Block512Contains(words + 8 * BlockIndex(h, p.num_blocks), h, p.k);
    case detail::LayoutId::kRegister64: {
      const uint64_t mask = Register64Mask(h, p.k);
      return (words[BlockIndex(h, p.num_blocks)] & mask) == mask;
    }
    case detail::LayoutId::kSplitBlock256:
      return Split256Contains(
          reinterpret_cast<const uint32_t*>(words) + 8 * BlockIndex(h, p.num_blocks), h);
    case detail::LayoutId::kClassic:
      return ClassicContains(words, p.num_blocks, h, p.k);
  }
  return false;
}

// The hash a layout applies to key i of a batch (KeySource semantics, dispatch.h).
uint64_t HashOf(detail::LayoutId layout, const detail::KeySource& keys, size_t i, uint64_t seed);

const detail::Kernels& Kernels();

}  // namespace ref
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_REFERENCE_H_
