// SPDX-License-Identifier: Apache-2.0
// Scalar reference kernels: one key at a time, literally as lib/FORMAT.md says.
#include "kernels/reference.h"

#include <new>

#include "kernels/counting/reference.h"

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

void HashU32Bulk(const uint32_t* keys, size_t n, uint64_t seed, uint64_t* out) {
  for (size_t i = 0; i < n; ++i) {
    uint32_t key;
    std::memcpy(&key, keys + i, 4);
    out[i] = HashU32(key, seed);
  }
}

void HashU32Xxh64Bulk(const uint32_t* keys, size_t n, uint64_t seed, uint64_t* out) {
  for (size_t i = 0; i < n; ++i) {
    uint32_t key;
    std::memcpy(&key, keys + i, 4);
    out[i] = HashU32Xxh64(key, seed);
  }
}

void HashAny(bool xxh64, const detail::KeySource& keys, size_t n, uint64_t seed, uint64_t* out) {
  for (size_t i = 0; i < n; ++i) out[i] = HashOfKey(xxh64, keys, i, seed);
}

// The layout's model (Spec::Ref*) is called directly, inlined: the reference target runs at the
// speed of plain scalar code, not through the registry's function pointers.
template <class Spec>
uint64_t Insert(uint64_t* words, Params p, const detail::KeySource& keys, size_t n,
                uint8_t* fresh) {
  uint64_t changed = 0;
  for (size_t i = 0; i < n; ++i) {
    const bool is_new = Spec::RefInsert(words, p, HashOfKey(Spec::kXxh64, keys, i, p.seed));
    if (fresh != nullptr) fresh[i] = is_new;
    changed += is_new;
  }
  return changed;
}

template <class Spec>
uint64_t InsertAtomic(uint64_t* words, Params p, const detail::KeySource& keys, size_t n,
                      uint8_t* fresh) {
  uint64_t changed = 0;
  for (size_t i = 0; i < n; ++i) {
    const bool is_new = Spec::RefInsertAtomic(words, p, HashOfKey(Spec::kXxh64, keys, i, p.seed));
    if (fresh != nullptr) fresh[i] = is_new;
    changed += is_new;
  }
  return changed;
}

template <class Spec>
uint64_t Contains(const uint64_t* words, Params p, const detail::KeySource& keys, size_t n,
                  detail::ResultKind result, void* out) {
  uint64_t hits = 0;
  for (size_t i = 0; i < n; ++i) {
    const bool hit = Spec::RefContains(words, p, HashOfKey(Spec::kXxh64, keys, i, p.seed));
    switch (result) {
      case detail::ResultKind::kBytes:
        static_cast<uint8_t*>(out)[i] = hit;
        break;
      case detail::ResultKind::kBitmap: {
        uint8_t& byte = static_cast<uint8_t*>(out)[i / 8];
        if (i % 8 == 0) byte = 0;
        byte = static_cast<uint8_t>(byte | (hit << (i % 8)));
        break;
      }
      case detail::ResultKind::kSelection: {
        const uint32_t index = keys.sel != nullptr ? keys.sel[i] : static_cast<uint32_t>(i);
        if (hit) static_cast<uint32_t*>(out)[hits] = index;
        break;
      }
    }
    hits += hit;
  }
  return hits;
}

template <class Spec>
constexpr detail::LayoutKernels For() {
  return {&Insert<Spec>, &InsertAtomic<Spec>, &Contains<Spec>};
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

uint64_t HashU32(uint32_t key, uint64_t seed) {
  uint8_t bytes[4];
  for (int i = 0; i < 4; ++i) bytes[i] = static_cast<uint8_t>(key >> (8 * i));
  return XXH3_64bits_withSeed(bytes, 4, seed);
}

uint64_t HashU32Xxh64(uint32_t key, uint64_t seed) {
  uint8_t bytes[4];
  for (int i = 0; i < 4; ++i) bytes[i] = static_cast<uint8_t>(key >> (8 * i));
  return XXH64(bytes, 4, seed);
}

uint64_t HashOf(LayoutId layout, const detail::KeySource& keys, size_t i, uint64_t seed) {
  return HashOfKey(detail::InfoOf(layout).xxh64, keys, i, seed);
}

uint64_t HashOfKey(bool xxh64, const detail::KeySource& keys, size_t i, uint64_t seed) {
  const size_t at = keys.sel != nullptr ? keys.sel[i] : i;
  switch (keys.kind) {
    case detail::KeyKind::kU64: {
      const uint64_t key = LoadU64(static_cast<const uint64_t*>(keys.keys) + at);
      return xxh64 ? HashU64Xxh64(key, seed) : HashU64(key, seed);
    }
    case detail::KeyKind::kU32: {
      uint32_t key;
      std::memcpy(&key, static_cast<const uint32_t*>(keys.keys) + at, 4);
      return xxh64 ? HashU32Xxh64(key, seed) : HashU32(key, seed);
    }
    case detail::KeyKind::kHashes:
      return LoadU64(static_cast<const uint64_t*>(keys.keys) + at);
    case detail::KeyKind::kHashFn: {
      uint64_t h;
      keys.hash_fn(keys.ctx, keys.sel, i, 1, &h);
      return h;
    }
  }
  return 0;
}

uint64_t HashBytesXxh3(const void* data, size_t size, uint64_t seed) {
  return XXH3_64bits_withSeed(data, size, seed);
}

ChecksumStream::ChecksumStream() : state_(XXH3_createState()) {
  if (state_ == nullptr) throw std::bad_alloc();
  XXH3_64bits_reset(static_cast<XXH3_state_t*>(state_));  // seed 0, as Checksum
}
ChecksumStream::~ChecksumStream() { XXH3_freeState(static_cast<XXH3_state_t*>(state_)); }
void ChecksumStream::Update(const void* data, size_t size) {
  XXH3_64bits_update(static_cast<XXH3_state_t*>(state_), data, size);
}
uint64_t ChecksumStream::Digest() const {
  return XXH3_64bits_digest(static_cast<const XXH3_state_t*>(state_));
}

uint64_t HashBytesXxh64(const void* data, size_t size, uint64_t seed) {
  return XXH64(data, size, seed);
}

const detail::Kernels& Kernels() {
  static const detail::Kernels k = [] {
    detail::Kernels t = {"reference",
                         0,
                         &HashU64Bulk,
                         &HashU64Xxh64Bulk,
                         &HashU32Bulk,
                         &HashU32Xxh64Bulk,
                         &HashAny,
                         &BlockIndexBulk,
                         &OrWords,
                         &AndWords,
                         {}};
#define SIMDBLOOM_X(Name, C_NAME) \
  t.layout[static_cast<int>(LayoutId::k##Name)] = For<detail::Name##Spec>();
    SIMDBLOOM_FOR_EACH_LAYOUT(SIMDBLOOM_X)
#undef SIMDBLOOM_X
    for (detail::CountingId id : {detail::CountingId::kBlocked, detail::CountingId::kClassic})
      t.counting[static_cast<int>(id)] = CountingKernelsFor(id);
    return t;
  }();
  return k;
}

}  // namespace ref
}  // namespace simdbloom
