// The bulk calls: argument checks, the key shapes the kernels do not hash themselves (byte strings,
// Arrow arrays, fixed-width records: inlined scalar XXH3/XXH64, a tile at a time), result forms,
// and the prefetch distances chosen by measurement (perf/memory.cc, simdbloom-bench --only memory).
#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "kernels/dispatch.h"
#include "kernels/reference.h"
#include "lib/layout.h"
#include "simdbloom/simdbloom.hpp"

namespace simdbloom {
namespace detail {
namespace {

// Filters smaller than this stay in L2/L3 across a batch; prefetching them costs instructions and
// saves little (bench: --only memory, 1e5 keys).
constexpr uint64_t kPrefetchMinBytes = uint64_t{1} << 20;

std::atomic<int> g_prefetch_override{-1};

}  // namespace

uint32_t PrefetchDistance(Layout layout, uint64_t bytes) {
  const int forced = g_prefetch_override.load(std::memory_order_relaxed);
  if (forced >= 0) return static_cast<uint32_t>(forced);
  if (bytes < kPrefetchMinBytes) return 0;
  // Keys ahead, measured at 1e8 keys (perf/memory.cc, simdbloom-bench --only memory; 32 to 64 were
  // within noise of each other, 16 and 128 slower): enough lines in flight to cover DRAM latency at
  // one key's work per line. Classic touches k lines per key.
  return layout == Layout::kClassic ? 16 : 48;
}

uint32_t QueryPrefetchProbes(Layout layout, uint64_t bytes) {
  // classic queries at 1e6..5e7 keys, k 7, AVX2 (32 MiB L3): prefetching only the first 2 probe
  // lines (absent keys mostly stop there) was 10-15% faster up to 8 MB; from 12 MB on, where most
  // lines come from DRAM, prefetching all k was faster: 18 MB 64 -> 32 ns/key, 60 MB 72 -> 52 for
  // present keys, and absent keys no slower. Two demand misses cost more than 15% of the work.
  constexpr uint64_t kAllProbesMinBytes = uint64_t{8} << 20;
  return layout == Layout::kClassic && bytes >= kAllProbesMinBytes ? 32 : 2;
}

void SetPrefetchOverride(int distance) {
  g_prefetch_override.store(distance < 0 ? -1 : distance, std::memory_order_relaxed);
}

namespace {

// Hashes byte-string shapes for the kernels' KeySource::hash_fn: libxxhash's XXH3 (XXH64 for
// layouts whose spec says kXxh64) inlined into one loop per shape and hash, so a key costs no call
// and no per-key choice of hash (13-byte records: 2.2 -> 1.5 ns/key hashing alone).
struct StringHasher {
  Keys keys;
  uint64_t seed;
};

template <bool kXxh64, class Bytes>
inline void HashRun(const StringHasher& h, const uint32_t* sel, size_t begin, size_t m,
                    uint64_t* out, const Bytes& bytes) {
  for (size_t j = 0; j < m; ++j) {
    const size_t at = sel != nullptr ? sel[begin + j] : begin + j;
    size_t size;
    const void* p = bytes(at, &size);
    out[j] = kXxh64 ? XXH64(p, size, h.seed) : XXH3_64bits_withSeed(p, size, h.seed);
  }
}

template <class Offset, bool kXxh64>
void HashBinary(const void* ctx, const uint32_t* sel, size_t begin, size_t m, uint64_t* out) {
  const StringHasher& h = *static_cast<const StringHasher*>(ctx);
  const Offset* offsets = static_cast<const Offset*>(h.keys.keys());
  const uint8_t* data = h.keys.data();
  HashRun<kXxh64>(h, sel, begin, m, out, [&](size_t at, size_t* size) {
    Offset lo, hi;
    std::memcpy(&lo, offsets + at, sizeof(Offset));
    std::memcpy(&hi, offsets + at + 1, sizeof(Offset));
    *size = static_cast<size_t>(hi - lo);
    return data + lo;
  });
}

template <bool kXxh64>
void HashStrings(const void* ctx, const uint32_t* sel, size_t begin, size_t m, uint64_t* out) {
  const StringHasher& h = *static_cast<const StringHasher*>(ctx);
  const std::string_view* keys = static_cast<const std::string_view*>(h.keys.keys());
  HashRun<kXxh64>(h, sel, begin, m, out, [&](size_t at, size_t* size) {
    *size = keys[at].size();
    return static_cast<const void*>(keys[at].data());
  });
}

template <bool kXxh64>
void HashStdStrings(const void* ctx, const uint32_t* sel, size_t begin, size_t m, uint64_t* out) {
  const StringHasher& h = *static_cast<const StringHasher*>(ctx);
  const std::string* keys = static_cast<const std::string*>(h.keys.keys());
  HashRun<kXxh64>(h, sel, begin, m, out, [&](size_t at, size_t* size) {
    *size = keys[at].size();
    return static_cast<const void*>(keys[at].data());
  });
}

template <bool kXxh64>
void HashFixed(const void* ctx, const uint32_t* sel, size_t begin, size_t m, uint64_t* out) {
  const StringHasher& h = *static_cast<const StringHasher*>(ctx);
  const uint8_t* data = static_cast<const uint8_t*>(h.keys.keys());
  const size_t width = h.keys.width(), stride = h.keys.stride();
  HashRun<kXxh64>(h, sel, begin, m, out, [&](size_t at, size_t* size) {
    *size = width;
    return static_cast<const void*>(data + at * stride);
  });
}

template <class Offset>
void CheckOffsets(const char* who, const Keys& keys) {
  if (keys.keys() == nullptr) Invalid(std::string(who) + ": null Arrow offsets");
  const Offset* offsets = static_cast<const Offset*>(keys.keys());
  Offset prev;
  std::memcpy(&prev, offsets, sizeof(Offset));
  if (prev < 0) Invalid(std::string(who) + ": negative Arrow offset at 0");
  const Offset first = prev;
  for (size_t i = 1; i <= keys.size(); ++i) {
    Offset next;
    std::memcpy(&next, offsets + i, sizeof(Offset));
    if (next < prev) {
      Invalid(std::string(who) + ": Arrow offsets decrease at " + std::to_string(i));
    }
    prev = next;
  }
  if (keys.data() == nullptr && prev != first) {
    Invalid(std::string(who) + ": null Arrow data with non-empty keys");
  }
}

// A validated KeySource over `keys` (n > 0). `hasher` must outlive the source.
KeySource SourceOf(const char* who, const Keys& keys, LayoutId id, uint64_t seed,
                   StringHasher* hasher) {
  KeySource src;
  *hasher = StringHasher{keys, seed};
  const bool xxh64 = InfoOf(id).xxh64;
  switch (keys.kind()) {
    case Keys::Kind::kU64:
    case Keys::Kind::kU32:
    case Keys::Kind::kPrehashed:
    case Keys::Kind::kStrings:
    case Keys::Kind::kStdStrings:
      if (keys.keys() == nullptr) Invalid(std::string(who) + ": null keys with non-zero size");
      break;
    case Keys::Kind::kBinary32:
      CheckOffsets<int32_t>(who, keys);
      break;
    case Keys::Kind::kBinary64:
      CheckOffsets<int64_t>(who, keys);
      break;
    case Keys::Kind::kFixedWidth:
      if (keys.stride() != 0 && keys.size() - 1 > (SIZE_MAX - keys.width()) / keys.stride()) {
        Invalid(std::string(who) + ": FixedWidth records overflow the address space");
      }
      if (keys.keys() == nullptr && keys.width() != 0) {
        Invalid(std::string(who) + ": null FixedWidth data");
      }
      break;
  }
  switch (keys.kind()) {
    case Keys::Kind::kU64:
      src.kind = KeyKind::kU64;
      src.keys = keys.keys();
      break;
    case Keys::Kind::kU32:
      src.kind = KeyKind::kU32;
      src.keys = keys.keys();
      break;
    case Keys::Kind::kPrehashed:
      src.kind = KeyKind::kHashes;
      src.keys = keys.keys();
      break;
    case Keys::Kind::kStrings:
      src.kind = KeyKind::kHashFn;
      src.hash_fn = xxh64 ? &HashStrings<true> : &HashStrings<false>;
      break;
    case Keys::Kind::kStdStrings:
      src.kind = KeyKind::kHashFn;
      src.hash_fn = xxh64 ? &HashStdStrings<true> : &HashStdStrings<false>;
      break;
    case Keys::Kind::kBinary32:
      src.kind = KeyKind::kHashFn;
      src.hash_fn = xxh64 ? &HashBinary<int32_t, true> : &HashBinary<int32_t, false>;
      break;
    case Keys::Kind::kBinary64:
      src.kind = KeyKind::kHashFn;
      src.hash_fn = xxh64 ? &HashBinary<int64_t, true> : &HashBinary<int64_t, false>;
      break;
    case Keys::Kind::kFixedWidth:
      src.kind = KeyKind::kHashFn;
      src.hash_fn = xxh64 ? &HashFixed<true> : &HashFixed<false>;
      break;
  }
  src.ctx = hasher;
  return src;
}

Params BulkParams(const Filter& f) {
  Params p{f.num_blocks(), f.num_hashes(), f.seed()};
  p.prefetch_distance = PrefetchDistance(f.layout(), f.size_bytes());
  p.query_prefetch_probes = QueryPrefetchProbes(f.layout(), f.size_bytes());
  return p;
}

const uint64_t* WordsOf(const Filter& f) { return reinterpret_cast<const uint64_t*>(f.data()); }

// Tests n keys (key i = keys[sel[i]] when sel is set) and writes `result` to `out`.
uint64_t Query(const char* who, const Filter& f, const Keys& keys, const uint32_t* sel, size_t n,
               ResultKind result, void* out) {
  if (f.data() == nullptr) Invalid(std::string(who) + ": the filter was moved from");
  if (n == 0) return 0;
  if (out == nullptr) Invalid(std::string(who) + ": null output with non-zero size");
  const LayoutId id = IdOf(f.layout());
  StringHasher hasher{keys, 0};
  KeySource src = SourceOf(who, keys, id, f.seed(), &hasher);
  src.sel = sel;
  return Active().For(id).contains(WordsOf(f), BulkParams(f), src, n, result, out);
}

}  // namespace
}  // namespace detail

using detail::Invalid;
using detail::ResultKind;

uint64_t Filter::InsertBulk(const Keys& keys, uint8_t* fresh) {
  CheckWritable("insert");
  if (keys.size() == 0) return 0;
  const detail::LayoutId id = detail::IdOf(layout_);
  detail::StringHasher hasher{keys, 0};
  const detail::KeySource src = detail::SourceOf("insert", keys, id, seed_, &hasher);
  const uint64_t changed =
      detail::Active().For(id).insert(words_, detail::BulkParams(*this), src, keys.size(), fresh);
  inserted_ += keys.size();
  return changed;
}

uint64_t Filter::insert(Keys keys) { return InsertBulk(keys, nullptr); }

uint64_t Filter::insert(Keys keys, uint8_t* fresh) {
  if (fresh == nullptr && keys.size() != 0) Invalid("insert: null fresh output with non-zero size");
  return InsertBulk(keys, fresh);
}

uint64_t Filter::contains(Keys keys, uint8_t* out) const {
  return detail::Query("contains", *this, keys, nullptr, keys.size(), ResultKind::kBytes, out);
}

uint64_t Filter::contains_bitmap(Keys keys, uint8_t* bitmap) const {
  return detail::Query("contains_bitmap", *this, keys, nullptr, keys.size(), ResultKind::kBitmap,
                       bitmap);
}

uint64_t Filter::select(Keys keys, uint32_t* selection) const {
  if (keys.size() > (uint64_t{1} << 32)) {
    Invalid("select: more than 2^32 keys do not fit 32-bit selection indices");
  }
  return detail::Query("select", *this, keys, nullptr, keys.size(), ResultKind::kSelection,
                       selection);
}

uint64_t Filter::refine(Keys keys, uint32_t* selection, size_t count) const {
  if (count == 0) return 0;
  if (selection == nullptr) Invalid("refine: null selection with non-zero count");
  for (size_t i = 0; i < count; ++i) {
    if (selection[i] >= keys.size()) {
      Invalid("refine: selection[" + std::to_string(i) + "] = " + std::to_string(selection[i]) +
              " is not below the number of keys, " + std::to_string(keys.size()));
    }
  }
  return detail::Query("refine", *this, keys, selection, count, ResultKind::kSelection, selection);
}

void Filter::hash(Keys keys, uint64_t* out) const {
  if (keys.size() == 0) return;
  if (out == nullptr) Invalid("hash: null output with non-zero size");
  const detail::LayoutId id = detail::IdOf(layout_);
  detail::StringHasher hasher{keys, 0};
  const detail::KeySource src = detail::SourceOf("hash", keys, id, seed_, &hasher);
  detail::Active().hash_keys(detail::InfoOf(id).xxh64, src, keys.size(), seed_, out);
}

}  // namespace simdbloom
