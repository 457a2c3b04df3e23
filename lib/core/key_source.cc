// SPDX-License-Identifier: Apache-2.0
// Key sources (lib/core/key_source.h; the keys' check is key_check.cc): the shapes the kernels
// do not hash themselves (byte strings, Arrow arrays, fixed-width records: inlined scalar
// XXH3/XXH64, a tile at a time), slices of keys, and hashing any shape for the kinds that hash
// first (SpatialFilter).
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "kernels/dispatch.h"
#include "kernels/scalar/guava.h"
#include "lib/core/filter_access.h"
#include "lib/core/key_source.h"
#include "lib/core/layout.h"
#include "lib/core/prefetch.h"
#include "simdbloom/simdbloom.hpp"

namespace simdbloom {
namespace detail {
namespace {

// Hashes byte-string shapes for the kernels' KeySource::hash_fn: libxxhash's XXH3 (XXH64 for
// layouts whose spec says kXxh64) inlined into one loop per shape and hash, so a key costs no call
// and no per-key choice of hash (perf/README.md, design note M7).
// (StringHasher: lib/core/key_source.h.)

// The seed is copied to a local and the loop specialised on `sel`: reloading the seed after each
// store to out[] (which may alias it for all the compiler knows) and a per-key test of sel were
// slower (perf/README.md, design note M7).
template <bool kXxh64, class Bytes>
inline void HashRun(const StringHasher& h, const uint32_t* sel, size_t begin, size_t m,
                    uint64_t* __restrict out, const Bytes& bytes) {
  const uint64_t seed = h.seed;
  auto one = [&](size_t at) {
    size_t size;
    const void* p = bytes(at, &size);
    return kXxh64 ? XXH64(p, size, seed) : XXH3_64bits_withSeed(p, size, seed);
  };
  if (sel == nullptr) {
    for (size_t j = 0; j < m; ++j) out[j] = one(begin + j);
  } else {
    for (size_t j = 0; j < m; ++j) out[j] = one(sel[begin + j]);
  }
}

// Where key `at` of each byte shape lies (built once per call from the keys, then bytes(at,
// &size) per key): the shapes both hash families read.
template <class Offset>
struct BinaryBytes {
  const Offset* offsets;
  const uint8_t* data;
  explicit BinaryBytes(const Keys& k)
      : offsets(static_cast<const Offset*>(k.keys())), data(k.data()) {}
  const void* operator()(size_t at, size_t* size) const {
    Offset lo, hi;
    std::memcpy(&lo, offsets + at, sizeof(Offset));
    std::memcpy(&hi, offsets + at + 1, sizeof(Offset));
    *size = static_cast<size_t>(hi - lo);
    return data + lo;
  }
};
template <class S>
struct StringBytes {
  const S* keys;
  explicit StringBytes(const Keys& k) : keys(static_cast<const S*>(k.keys())) {}
  const void* operator()(size_t at, size_t* size) const {
    *size = keys[at].size();
    return static_cast<const void*>(keys[at].data());
  }
};
struct FixedBytes {
  const uint8_t* data;
  size_t width, stride;
  explicit FixedBytes(const Keys& k)
      : data(static_cast<const uint8_t*>(k.keys())), width(k.width()), stride(k.stride()) {}
  const void* operator()(size_t at, size_t* size) const {
    *size = width;
    return static_cast<const void*>(data + at * stride);
  }
};
// 2-byte keys of a kLegacy filter: their 2 little-endian bytes.
struct Legacy16Bytes {
  const uint8_t* data;
  explicit Legacy16Bytes(const Keys& k) : data(static_cast<const uint8_t*>(k.keys())) {}
  const void* operator()(size_t at, size_t* size) const {
    *size = 2;
    return static_cast<const void*>(data + 2 * at);
  }
};

// KeySource::hash_fn for one byte shape.
template <class Bytes, bool kXxh64>
void HashShape(const void* ctx, const uint32_t* sel, size_t begin, size_t m, uint64_t* out) {
  const StringHasher& h = *static_cast<const StringHasher*>(ctx);
  const Bytes bytes(*h.keys);
  HashRun<kXxh64>(h, sel, begin, m, out, bytes);
}

// Integer keys converted by value to the filter's width (FORMAT.md, "Keys"), then hashed by the
// active target's vectorized kernel: a run of at most kConvertRun keys at a time is converted into
// a buffer on the stack. From: the caller's element type; To: uint64_t (kInt64) or uint32_t
// (kInt32: 8-byte values out of its range are truncated here, and their results cleared by the
// caller, ClearOutOfRange).
constexpr size_t kConvertRun = 1024;

template <class From, class To>
void ConvertHash(const void* ctx, const uint32_t* sel, size_t begin, size_t m, uint64_t* out) {
  const StringHasher& h = *static_cast<const StringHasher*>(ctx);
  const From* keys = static_cast<const From*>(h.keys->keys());
  const Kernels& kernels = Active();
  alignas(64) To run[kConvertRun];
  KeySource src;
  src.kind = sizeof(To) == 8 ? KeyKind::kU64 : KeyKind::kU32;
  src.keys = run;
  for (size_t done = 0; done < m;) {
    const size_t r = std::min(kConvertRun, m - done);
    if (sel == nullptr) {
      const From* from = keys + begin + done;
      for (size_t j = 0; j < r; ++j) {
        From v;
        std::memcpy(&v, from + j, sizeof(From));  // unaligned input
        run[j] = static_cast<To>(v);              // sign- or zero-extends by From's signedness
      }
    } else {
      for (size_t j = 0; j < r; ++j) {
        From v;
        std::memcpy(&v, keys + sel[begin + done + j], sizeof(From));
        run[j] = static_cast<To>(v);
      }
    }
    kernels.hash_keys(false, src, r, h.seed, out + done);
    done += r;
  }
}
// The same for XXH64 layouts (split_block256): the scalar hash of the converted value.
template <class From, class To>
void ConvertHashXxh64(const void* ctx, const uint32_t* sel, size_t begin, size_t m, uint64_t* out) {
  const StringHasher& h = *static_cast<const StringHasher*>(ctx);
  const From* keys = static_cast<const From*>(h.keys->keys());
  const uint64_t seed = h.seed;
  for (size_t j = 0; j < m; ++j) {
    From v;
    std::memcpy(&v, keys + (sel == nullptr ? begin + j : sel[begin + j]), sizeof(From));
    const To t = static_cast<To>(v);
    out[j] = sizeof(To) == 8 ? Xxh64U64(static_cast<uint64_t>(t), seed)
                             : Xxh64U32(static_cast<uint32_t>(t), seed);
  }
}
// ---- Murmur3 x64 128 (the Guava layouts): both halves of each key's hash ----
// The byte-string shapes, integers converted by value and 2-byte legacy keys through
// KeySource::hash128_fn: scalar Murmur3 of the key's bytes (the kernels hash u64 and u32 keys
// themselves, vectorized).
template <class Bytes>
inline void MurmurRun(const StringHasher& h, const uint32_t* sel, size_t begin, size_t m,
                      uint64_t* __restrict h1, uint64_t* __restrict h2, const Bytes& bytes) {
  const uint64_t seed = h.seed;
  for (size_t j = 0; j < m; ++j) {
    size_t size;
    const void* p = bytes(sel == nullptr ? begin + j : sel[begin + j], &size);
    const scalar::Hash128 r = scalar::Murmur3x64_128(p, size, seed);
    h1[j] = r.h1;
    h2[j] = r.h2;
  }
}

// KeySource::hash128_fn for one byte shape.
template <class Bytes>
void MurmurShape(const void* ctx, const uint32_t* sel, size_t begin, size_t m, uint64_t* h1,
                 uint64_t* h2) {
  const StringHasher& h = *static_cast<const StringHasher*>(ctx);
  const Bytes bytes(*h.keys);
  MurmurRun(h, sel, begin, m, h1, h2, bytes);
}

// Integer keys converted by value to the filter's width (To: uint64_t or uint32_t), then hashed
// as their little-endian bytes.
template <class From, class To>
void MurmurConvert(const void* ctx, const uint32_t* sel, size_t begin, size_t m, uint64_t* h1,
                   uint64_t* h2) {
  const StringHasher& h = *static_cast<const StringHasher*>(ctx);
  const From* keys = static_cast<const From*>(h.keys->keys());
  for (size_t j = 0; j < m; ++j) {
    From v;
    std::memcpy(&v, keys + (sel == nullptr ? begin + j : sel[begin + j]), sizeof(From));
    const To t = static_cast<To>(v);
    const scalar::Hash128 r = sizeof(To) == 8
                                  ? scalar::Murmur3U64(static_cast<uint64_t>(t), h.seed)
                                  : scalar::Murmur3U32(static_cast<uint32_t>(t), h.seed);
    h1[j] = r.h1;
    h2[j] = r.h2;
  }
}
using Hash128Fn = void (*)(const void*, const uint32_t*, size_t, size_t, uint64_t*, uint64_t*);
template <class From>
Hash128Fn MurmurConverterOf(unsigned to_width) {
  return to_width == 8 ? &MurmurConvert<From, uint64_t> : &MurmurConvert<From, uint32_t>;
}

using HashFn = void (*)(const void*, const uint32_t*, size_t, size_t, uint64_t*);
template <class From>
HashFn ConverterOf(unsigned to_width, bool xxh64) {
  if (to_width == 8) {
    return xxh64 ? &ConvertHashXxh64<From, uint64_t> : &ConvertHash<From, uint64_t>;
  }
  return xxh64 ? &ConvertHashXxh64<From, uint32_t> : &ConvertHash<From, uint32_t>;
}

// The hash functions of one family, for SourceWith: Murmur3 x64 128 (both halves, hash128_fn) or
// XXH3/XXH64 (hash_fn).
struct MurmurFamily {
  static void Set(KeySource* src, Hash128Fn fn) {
    src->kind = KeyKind::kHashFn;
    src->hash128_fn = fn;
  }
  template <class From>
  Hash128Fn Converter(unsigned to_width) const {
    return MurmurConverterOf<From>(to_width);
  }
  Hash128Fn Legacy16() const { return &MurmurShape<Legacy16Bytes>; }
  template <class S>
  Hash128Fn Strings() const {
    return &MurmurShape<StringBytes<S>>;
  }
  template <class Offset>
  Hash128Fn Binary() const {
    return &MurmurShape<BinaryBytes<Offset>>;
  }
  Hash128Fn Fixed() const { return &MurmurShape<FixedBytes>; }
};

struct XxFamily {
  bool xxh64;
  static void Set(KeySource* src, HashFn fn) {
    src->kind = KeyKind::kHashFn;
    src->hash_fn = fn;
  }
  template <class From>
  HashFn Converter(unsigned to_width) const {
    return ConverterOf<From>(to_width, xxh64);
  }
  template <class Bytes>
  HashFn Of() const {
    return xxh64 ? &HashShape<Bytes, true> : &HashShape<Bytes, false>;
  }
  HashFn Legacy16() const { return Of<Legacy16Bytes>(); }
  template <class S>
  HashFn Strings() const {
    return Of<StringBytes<S>>();
  }
  template <class Offset>
  HashFn Binary() const {
    return Of<BinaryBytes<Offset>>();
  }
  HashFn Fixed() const { return Of<FixedBytes>(); }
};

// The key source of `keys` under `plan`: u64/u32/prehashed keys as they are (the kernels hash
// them), every other shape through one of the family's functions.
template <class Family>
KeySource SourceWith(const Keys& keys, const KeyPlan& plan, uint64_t seed, StringHasher* hasher,
                     const Family& family) {
  KeySource src;
  *hasher = StringHasher{&keys, seed};
  src.ctx = hasher;
  if (plan.legacy16) {
    Family::Set(&src, family.Legacy16());
    return src;
  }
  if (plan.to_width != 0) {
    const unsigned w = plan.to_width;
    switch (keys.kind()) {
      case Keys::Kind::kU64:
        Family::Set(&src, family.template Converter<uint64_t>(w));
        break;
      case Keys::Kind::kI64:
        Family::Set(&src, family.template Converter<int64_t>(w));
        break;
      case Keys::Kind::kU32:
        Family::Set(&src, family.template Converter<uint32_t>(w));
        break;
      case Keys::Kind::kI32:
        Family::Set(&src, family.template Converter<int32_t>(w));
        break;
      case Keys::Kind::kU16:
        Family::Set(&src, family.template Converter<uint16_t>(w));
        break;
      default:
        Family::Set(&src, family.template Converter<int16_t>(w));
        break;
    }
    return src;
  }
  switch (keys.kind()) {
    case Keys::Kind::kU64:
    case Keys::Kind::kI64:
      src.kind = KeyKind::kU64;
      src.keys = keys.keys();
      break;
    case Keys::Kind::kU32:
    case Keys::Kind::kI32:
      src.kind = KeyKind::kU32;
      src.keys = keys.keys();
      break;
    case Keys::Kind::kU16:
    case Keys::Kind::kI16:  // (PlanKeys converts or sets legacy16: not reached)
      Family::Set(&src, family.Legacy16());
      break;
    case Keys::Kind::kPrehashed:
      src.kind = KeyKind::kHashes;
      src.keys = keys.keys();
      break;
    case Keys::Kind::kStrings:
      Family::Set(&src, family.template Strings<std::string_view>());
      break;
    case Keys::Kind::kStdStrings:
      Family::Set(&src, family.template Strings<std::string>());
      break;
    case Keys::Kind::kBinary32:
      Family::Set(&src, family.template Binary<int32_t>());
      break;
    case Keys::Kind::kBinary64:
      Family::Set(&src, family.template Binary<int64_t>());
      break;
    case Keys::Kind::kFixedWidth:
      Family::Set(&src, family.Fixed());
      break;
  }
  return src;
}

}  // namespace

KeySource MurmurSourceOf(const Keys& keys, const KeyPlan& plan, uint64_t seed,
                         StringHasher* hasher) {
  return SourceWith(keys, plan, seed, hasher, MurmurFamily{});
}

KeySource SourceForAny(LayoutId id, const Keys& keys, const KeyPlan& plan, uint64_t seed,
                       StringHasher* hasher) {
  const LayoutInfo& info = InfoOf(id);
  if (info.murmur128) return MurmurSourceOf(keys, plan, seed, hasher);
  return SourceOf(keys, plan, info.xxh64, seed, hasher);
}

KeySource SourceOfAny(const Keys& keys, const KeyPlan& plan, bool xxh64, uint64_t seed,
                      StringHasher* hasher) {
  return SourceWith(keys, plan, seed, hasher, XxFamily{xxh64});
}

namespace {
struct ThreadChunkBuffer {
  uint64_t* p = static_cast<uint64_t*>(
      ::operator new (kStringChunk * sizeof(uint64_t), std::align_val_t{64}, std::nothrow));
  bool held = false;
  ~ThreadChunkBuffer() { ::operator delete (p, std::align_val_t{64}); }
};
thread_local ThreadChunkBuffer t_chunk_buffer;
}  // namespace

StringChunkBuffer::StringChunkBuffer(bool wanted) : p_(nullptr) {
  if (!wanted) return;
  ThreadChunkBuffer& b = t_chunk_buffer;
  if (!b.held && b.p != nullptr) {
    b.held = true;
    p_ = b.p;
  }
}

StringChunkBuffer::~StringChunkBuffer() {
  if (p_ != nullptr) t_chunk_buffer.held = false;
}

Keys SliceKeys(const Keys& keys, size_t begin, size_t count) {
  switch (keys.kind()) {
    case Keys::Kind::kU64:
      return Keys(static_cast<const uint64_t*>(keys.keys()) + begin, count);
    case Keys::Kind::kU32:
      return Keys(static_cast<const uint32_t*>(keys.keys()) + begin, count);
    case Keys::Kind::kI64:
      return Keys(static_cast<const int64_t*>(keys.keys()) + begin, count);
    case Keys::Kind::kI32:
      return Keys(static_cast<const int32_t*>(keys.keys()) + begin, count);
    case Keys::Kind::kU16:
      return Keys(static_cast<const uint16_t*>(keys.keys()) + begin, count);
    case Keys::Kind::kI16:
      return Keys(static_cast<const int16_t*>(keys.keys()) + begin, count);
    case Keys::Kind::kPrehashed:
      return Prehashed{static_cast<const uint64_t*>(keys.keys()) + begin, count};
    case Keys::Kind::kStrings:
      return Keys(static_cast<const std::string_view*>(keys.keys()) + begin, count);
    case Keys::Kind::kStdStrings:
      return Keys(static_cast<const std::string*>(keys.keys()) + begin, count);
    case Keys::Kind::kBinary32:
      return BinaryArray<int32_t>{static_cast<const int32_t*>(keys.keys()) + begin, keys.data(),
                                  count, keys.data_size()};
    case Keys::Kind::kBinary64:
      return BinaryArray<int64_t>{static_cast<const int64_t*>(keys.keys()) + begin, keys.data(),
                                  count, keys.data_size()};
    case Keys::Kind::kFixedWidth:
      return FixedWidth{static_cast<const uint8_t*>(keys.keys()) + begin * keys.stride(),
                        keys.width(), keys.stride(), count};
  }
  return keys;
}

void HashKeyRange(const Kernels& kernels, const Keys& keys, const KeyPlan& plan, uint64_t seed,
                  size_t begin, size_t m, uint64_t* out) {
  if (m == 0) return;
  const Keys part = SliceKeys(keys, begin, m);
  StringHasher hasher;
  const KeySource src = SourceOf(part, plan, /*xxh64=*/false, seed, &hasher);
  kernels.hash_keys(false, src, m, seed, out);
}

void HashKeysAs(const Keys& keys, const KeyPlan& plan, bool xxh64, uint64_t seed, uint64_t* out) {
  if (keys.size() == 0) return;
  StringHasher hasher;
  const KeySource src = SourceOf(keys, plan, xxh64, seed, &hasher);
  Active().hash_keys(xxh64, src, keys.size(), seed, out);
}

void HashKeysMurmur(const Keys& keys, const KeyPlan& plan, uint64_t seed, uint64_t* out) {
  StringHasher hasher;
  const KeySource src = MurmurSourceOf(keys, plan, seed, &hasher);
  for (size_t i = 0; i < keys.size(); ++i) out[i] = scalar::Murmur128OfKey(src, i, seed).h1;
}

}  // namespace detail
}  // namespace simdbloom
