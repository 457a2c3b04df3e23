// SPDX-License-Identifier: Apache-2.0
// The bulk calls: argument checks, the key shapes the kernels do not hash themselves (byte strings,
// Arrow arrays, fixed-width records: inlined scalar XXH3/XXH64, a tile at a time), result forms,
// and the parallel forms. Prefetch distances: lib/prefetch.cc.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "kernels/dispatch.h"
#include "lib/key_source.h"
#include "lib/layout.h"
#include "simdbloom/simdbloom.hpp"

namespace simdbloom {
namespace detail {
namespace {

// Hashes byte-string shapes for the kernels' KeySource::hash_fn: libxxhash's XXH3 (XXH64 for
// layouts whose spec says kXxh64) inlined into one loop per shape and hash, so a key costs no call
// and no per-key choice of hash (13-byte records: 2.2 -> 1.5 ns/key hashing alone).
// (StringHasher: lib/key_source.h.)

// The seed is copied to a local and the loop specialised on `sel`: reloading the seed after each
// store to out[] (which may alias it for all the compiler knows) and a per-key test of sel cost
// 36-byte UUIDs 6.0 -> 4.7 ns/key (Zen 5), within 10% of a bare XXH3 loop.
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

// "0x..." for messages.
std::string Address(const void* p) {
  char text[2 + 2 * sizeof(uintptr_t) + 1];
  std::snprintf(text, sizeof(text), "0x%jx",
                static_cast<uintmax_t>(reinterpret_cast<uintptr_t>(p)));
  return text;
}

// Throws unless `count` entries of `size` bytes from p fit the address space; `what` names them.
void CheckArray(const char* who, const char* what, const void* p, size_t count, size_t size) {
  if (count > SIZE_MAX / size || !FitsAddressSpace(p, uint64_t{count} * size)) {
    Invalid(std::string(who) + ": " + std::to_string(count) + " " + what +
            (size == 1 ? std::string() : " of " + std::to_string(size) + " bytes") + " at " +
            Address(p) + " pass the end of the address space");
  }
}

// Offsets must start >= 0 and never decrease. The check is a branch-free reduction over blocks of
// offsets (the compiler vectorizes it); only a failing block is searched for the index to report.
// A separate pass over the offsets either way, so the bulk calls validate once per call, not once
// per thread or step (10M UUIDs: the second pass cost ~1 ns/key).
template <class Offset>
void CheckOffsets(const char* who, const Keys& keys) {
  if (keys.keys() == nullptr) Invalid(std::string(who) + ": null Arrow offsets");
  const Offset* offsets = static_cast<const Offset*>(keys.keys());
  auto at = [offsets](size_t i) {
    Offset v;
    std::memcpy(&v, offsets + i, sizeof(Offset));
    return v;
  };
  const Offset first = at(0);
  if (first < 0) Invalid(std::string(who) + ": negative Arrow offset at 0");
  const size_t n = keys.size();
  constexpr size_t kBlock = 1024;
  for (size_t b = 1; b <= n; b += kBlock) {
    const size_t e = std::min(n + 1, b + kBlock);
    bool bad = false;
    for (size_t i = b; i < e; ++i) bad |= at(i) < at(i - 1);
    if (bad) {
      for (size_t i = b; i < e; ++i) {
        if (at(i) < at(i - 1)) {
          Invalid(std::string(who) + ": Arrow offsets decrease at " + std::to_string(i));
        }
      }
    }
  }
  if (keys.data() == nullptr && at(n) != first) {
    Invalid(std::string(who) + ": null Arrow data with non-empty keys");
  }
  // The last offset is the largest: the keys span data[0 .. at(n)).
  const uint64_t end = static_cast<uint64_t>(at(n));
  const size_t declared = keys.data_size();
  if (declared != 0 && end > declared) {
    size_t i = 0;
    while (static_cast<uint64_t>(at(i)) <= declared) ++i;
    Invalid(std::string(who) + ": Arrow offsets[" + std::to_string(i) +
            "] = " + std::to_string(at(i)) + " passes the data's size, " +
            std::to_string(declared) + " bytes");
  }
  if (!FitsAddressSpace(keys.data(), end)) {
    Invalid(std::string(who) + ": Arrow offsets[" + std::to_string(n) + "] = " +
            std::to_string(end) + " bytes from the data pointer pass the end of the address space");
  }
}

}  // namespace

// Declared in lib/key_source.h.
void ValidateKeys(const char* who, const Keys& keys) {
  const size_t n = keys.size();
  if (n == 0) return;  // nothing is read
  switch (keys.kind()) {
    case Keys::Kind::kU64:
    case Keys::Kind::kU32:
    case Keys::Kind::kPrehashed:
    case Keys::Kind::kStrings:
    case Keys::Kind::kStdStrings:
      if (keys.keys() == nullptr) Invalid(std::string(who) + ": null keys with non-zero size");
      break;
    case Keys::Kind::kBinary32:
    case Keys::Kind::kBinary64:
    case Keys::Kind::kFixedWidth:
      break;
  }
  switch (keys.kind()) {
    case Keys::Kind::kU64:
    case Keys::Kind::kPrehashed:
      CheckArray(who, "keys", keys.keys(), n, 8);
      break;
    case Keys::Kind::kU32:
      CheckArray(who, "keys", keys.keys(), n, 4);
      break;
    case Keys::Kind::kStrings:
      CheckArray(who, "keys", keys.keys(), n, sizeof(std::string_view));
      break;
    case Keys::Kind::kStdStrings:
      CheckArray(who, "keys", keys.keys(), n, sizeof(std::string));
      break;
    case Keys::Kind::kBinary32:
      if (n == SIZE_MAX) CheckArray(who, "Arrow offsets", keys.keys(), n, 4);
      CheckArray(who, "Arrow offsets", keys.keys(), n + 1, 4);
      CheckOffsets<int32_t>(who, keys);
      break;
    case Keys::Kind::kBinary64:
      if (n == SIZE_MAX) CheckArray(who, "Arrow offsets", keys.keys(), n, 8);
      CheckArray(who, "Arrow offsets", keys.keys(), n + 1, 8);
      CheckOffsets<int64_t>(who, keys);
      break;
    case Keys::Kind::kFixedWidth: {
      // The records span (n - 1) * stride + width bytes from data.
      const size_t width = keys.width(), stride = keys.stride();
      if (stride != 0 && n - 1 > (SIZE_MAX - width) / stride) {
        Invalid(std::string(who) + ": FixedWidth records overflow the address space");
      }
      if (keys.keys() == nullptr && width != 0) {
        Invalid(std::string(who) + ": null FixedWidth data");
      }
      const uint64_t extent = uint64_t{n - 1} * stride + width;
      if (width != 0 && !FitsAddressSpace(keys.keys(), extent)) {
        Invalid(std::string(who) + ": FixedWidth records of width " + std::to_string(width) +
                " and stride " + std::to_string(stride) + " span " + std::to_string(extent) +
                " bytes from " + Address(keys.keys()) + ", past the end of the address space");
      }
      break;
    }
  }
}

void CheckExtent(const char* who, const char* what, const void* p, size_t count, size_t size) {
  CheckArray(who, what, p, count, size);
}

KeySource SourceOf(const Keys& keys, LayoutId id, uint64_t seed, StringHasher* hasher) {
  KeySource src;
  *hasher = StringHasher{keys, seed};
  const bool xxh64 = InfoOf(id).xxh64;
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

namespace {

static_assert(DistanceTuner::kMinTrialKeys % kStringChunk == 0, "trials end at chunk ends");

// Keys from `begin` on of a source the kernels read in place (u64, u32, pre-hashed; no sel).
KeySource SliceSource(KeySource src, size_t begin) {
  const size_t width = src.kind == KeyKind::kU32 ? 4 : 8;
  src.keys = static_cast<const uint8_t*>(src.keys) + begin * width;
  return src;
}

// Runs run(source, begin, m) over the n keys of src in the pieces the tuner asks for (one piece
// when it is inactive), byte strings in hashed chunks; returns the sum of its results.
template <class Run>
uint64_t OverPieces(const KeySource& src, size_t n, DistanceTuner& tuner, const Run& run) {
  if (ChunkStrings(src, n)) {
    return OverHashedChunks(
        src, n, [&](size_t begin, size_t count) { return tuner.Piece(begin, count); }, run);
  }
  if (!tuner.active()) return run(src, 0, n);
  uint64_t total = 0;
  for (size_t begin = 0, m = 0; begin < n; begin += m) {
    m = tuner.Piece(begin, n);
    total += run(SliceSource(src, begin), begin, m);
  }
  return total;
}

Params BulkParams(const Filter& f) {
  Params p{f.num_blocks(), f.num_hashes(), f.seed()};
  p.prefetch_distance = PrefetchDistance(f);
  p.query_prefetch_probes = QueryPrefetchProbes(f.layout(), f.size_bytes());
  return p;
}

const uint64_t* WordsOf(const Filter& f) { return reinterpret_cast<const uint64_t*>(f.data()); }

// Throws unless the output of n keys in form `result` at `out` fits the address space.
void CheckResult(const char* who, ResultKind result, const void* out, size_t n) {
  switch (result) {
    case ResultKind::kBytes:
      CheckExtent(who, "result bytes", out, n, 1);
      break;
    case ResultKind::kBitmap:
      CheckExtent(who, "bitmap bytes", out, n / 8 + (n % 8 != 0), 1);
      break;
    case ResultKind::kSelection:
      CheckExtent(who, "selection entries", out, n, 4);
      break;
  }
}

// Tests n keys (key i = keys[sel[i]] when sel is set) and writes `result` to `out`.
// `validated`: ValidateKeys has already run on keys (or a slice of keys it checked).
uint64_t Query(const char* who, const Filter& f, const Keys& keys, const uint32_t* sel, size_t n,
               ResultKind result, void* out, bool validated = false) {
  if (f.data() == nullptr) Invalid(std::string(who) + ": the filter was moved from");
  if (n == 0) return 0;
  if (out == nullptr) Invalid(std::string(who) + ": null output with non-zero size");
  if (!validated) {
    ValidateKeys(who, keys);
    CheckResult(who, result, out, n);
  }
  const LayoutId id = IdOf(f.layout());
  StringHasher hasher{keys, 0};
  KeySource src = SourceOf(keys, id, f.seed(), &hasher);
  src.sel = sel;
  const LayoutKernels& kernels = Active().For(id);
  Params p = BulkParams(f);
  DistanceTuner tuner(f, n, sel != nullptr, &p);
  static_assert(kStringChunk % 8 == 0 && DistanceTuner::kMinTrialKeys % 8 == 0,
                "bitmap pieces start at whole bytes");
  uint64_t selected = 0;
  // Keys [begin, begin + m), read from h (begin is 0 when sel is set: such calls run whole).
  return OverPieces(src, n, tuner, [&](const KeySource& h, size_t begin, size_t m) {
    switch (result) {
      case ResultKind::kBytes:
        return kernels.contains(WordsOf(f), p, h, m, result, static_cast<uint8_t*>(out) + begin);
      case ResultKind::kBitmap:
        return kernels.contains(WordsOf(f), p, h, m, result,
                                static_cast<uint8_t*>(out) + begin / 8);
      case ResultKind::kSelection: {
        // The piece's hits as indices from 0, after those of the pieces before; then shifted.
        uint32_t* dst = static_cast<uint32_t*>(out) + selected;
        const uint64_t c = kernels.contains(WordsOf(f), p, h, m, result, dst);
        if (begin != 0) {
          for (uint64_t i = 0; i < c; ++i) dst[i] += static_cast<uint32_t>(begin);
        }
        selected += c;
        return c;
      }
    }
    return uint64_t{0};
  });
}

// Keys [begin, begin + count) of `keys`, in the same shape.
Keys Slice(const Keys& keys, size_t begin, size_t count) {
  switch (keys.kind()) {
    case Keys::Kind::kU64:
      return Keys(static_cast<const uint64_t*>(keys.keys()) + begin, count);
    case Keys::Kind::kU32:
      return Keys(static_cast<const uint32_t*>(keys.keys()) + begin, count);
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

// Below this many keys per thread, starting a thread costs more than it saves.
constexpr size_t kMinKeysPerThread = 32768;

// How many parts RunParallel splits n keys into for `threads`.
size_t PartsFor(unsigned threads, size_t n) {
  const size_t t = std::max<size_t>(1, threads);
  return std::min(t, std::max<size_t>(1, n / kMinKeysPerThread));
}

// Parallel inserts without atomics use private copies of the filter only while they take at most
// this much memory together; beyond it, atomic ORs.
constexpr uint64_t kMaxPrivateCopyBytes = uint64_t{1} << 30;
// ... and only for batches of at least one key per 8 bytes of filter (see InsertBulk).
constexpr uint64_t kMinKeysPerCopyByte = 8;

// Runs fn(begin, end) over n_words 64-byte-aligned words split into `parts` ranges (multiples of 8
// words), on parts - 1 new threads and this one.
template <class Fn>
void RunParallelWords(size_t parts, size_t n_words, const Fn& fn) {
  const size_t per = ((n_words + parts - 1) / parts + 7) / 8 * 8;
  std::vector<std::thread> pool;
  for (size_t t = 1; t < parts; ++t) {
    const size_t begin = std::min(n_words, t * per), end = std::min(n_words, begin + per);
    if (begin >= end) continue;
    try {
      pool.emplace_back(fn, begin, end);
    } catch (const std::system_error&) {
      fn(begin, end);
    }
  }
  fn(size_t{0}, std::min(n_words, per));
  for (std::thread& th : pool) th.join();
}

// Runs fn(part, begin, end) over [0, n) split into `threads` contiguous parts (each but the last a
// multiple of `align` keys), on threads - 1 new threads and the calling one; joins them and
// rethrows the first exception. A thread that cannot be started runs its part here.
template <class Fn>
void RunParallel(unsigned threads, size_t n, size_t align, const Fn& fn) {
  const size_t t = PartsFor(threads, n);
  if (t <= 1) {
    fn(size_t{0}, size_t{0}, n);
    return;
  }
  size_t per = (n + t - 1) / t;
  per = (per + align - 1) / align * align;
  std::vector<std::exception_ptr> errors(t);
  std::vector<std::thread> pool;
  pool.reserve(t);
  auto run = [&](size_t part) {
    const size_t begin = std::min(n, part * per), end = std::min(n, begin + per);
    try {
      if (begin < end) fn(part, begin, end);
    } catch (...) {
      errors[part] = std::current_exception();
    }
  };
  for (size_t part = 1; part < t; ++part) {
    try {
      pool.emplace_back(run, part);
    } catch (const std::system_error&) {
      run(part);
    }
  }
  run(0);
  for (std::thread& th : pool) th.join();
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace
}  // namespace detail

using detail::Invalid;
using detail::ResultKind;

uint64_t Filter::InsertBulk(const Keys& keys, uint8_t* fresh, bool atomic, unsigned threads) {
  CheckWritable(atomic && threads <= 1 ? "insert_concurrent" : "insert");
  if (keys.size() == 0) return 0;
  const detail::LayoutId id = detail::IdOf(layout_);
  // every argument error before anything is written or any thread starts
  const char* who = atomic && threads <= 1 ? "insert_concurrent" : "insert";
  detail::ValidateKeys(who, keys);
  if (fresh != nullptr) detail::CheckExtent(who, "fresh bytes", fresh, keys.size(), 1);
  const detail::LayoutKernels& kernels = detail::Active().For(id);
  const detail::Params p = detail::BulkParams(*this);
  std::atomic<uint64_t> changed{0};
  bool tune = false;  // set below: true when the call runs as one part
  auto insert_part = [&](uint64_t* words, bool use_atomic, size_t begin, size_t end) {
    const Keys part = detail::Slice(keys, begin, end - begin);
    detail::StringHasher hasher{part, 0};
    const detail::KeySource src = detail::SourceOf(part, id, seed_, &hasher);
    uint8_t* out = fresh != nullptr ? fresh + begin : nullptr;
    // A sequential, non-atomic call may tune the prefetch distance on its keys.
    detail::Params lp = p;
    detail::DistanceTuner tuner(*this, tune && !use_atomic ? end - begin : 0, false, &lp);
    auto run = [&](const detail::KeySource& s, size_t at, size_t m) {
      uint8_t* o = out != nullptr ? out + at : nullptr;
      return use_atomic ? kernels.insert_atomic(words, lp, s, m, o)
                        : kernels.insert(words, lp, s, m, o);
    };
    changed.fetch_add(detail::OverPieces(src, end - begin, tuner, run), std::memory_order_relaxed);
  };
  size_t parts = detail::PartsFor(threads, keys.size());
  // A batch small against the filter: zeroing and ORing a copy costs more than the share of keys
  // it takes off this thread (and atomic ORs cost ~6 ns a word), so it runs on this thread.
  // A copy costs ~3 streaming passes of size_bytes(); a key ~2-10 ns: below one key per 8 bytes
  // of filter the copy loses (an 8 MiB batch of 100k lines into a 1 GB filter on 2 threads took
  // 2.5x one thread's time before this rule).
  if (parts > 1 && !atomic && fresh == nullptr &&
      keys.size() * detail::kMinKeysPerCopyByte < size_bytes()) {
    parts = 1;
  }
  if (parts > 1 && !atomic && fresh == nullptr &&
      (parts - 1) * size_bytes() <= detail::kMaxPrivateCopyBytes) {
    // Parallel insert without atomics: part 0 into this filter, part t into a private zeroed copy
    // (allocated by its own thread), then the copies ORed in, split by word ranges. Same bytes as
    // a sequential insert (OR is commutative); a locked RMW per word costs ~k x 6 ns a key.
    // Each thread allocates (and so faults in) its own copy; a share whose copy cannot be
    // allocated is inserted into this filter afterwards, by this thread.
    std::vector<std::unique_ptr<Filter>> copies(parts);
    std::vector<std::pair<size_t, size_t>> deferred(parts, {0, 0});
    detail::RunParallel(
        static_cast<unsigned>(parts), keys.size(), 1, [&](size_t part, size_t begin, size_t end) {
          if (part == 0) {
            insert_part(words_, false, begin, end);
            return;
          }
          try {
            copies[part] =
                std::make_unique<Filter>(FilterAccess::Make(layout_, num_blocks_, k_, seed_));
          } catch (const std::exception&) {
            deferred[part] = {begin, end};
            return;
          }
          insert_part(FilterAccess::Words(*copies[part]), false, begin, end);
        });
    for (const auto& d : deferred) {
      if (d.first < d.second) insert_part(words_, false, d.first, d.second);
    }
    const size_t n_words = size_bytes() / 8;
    const detail::Kernels& k = detail::Active();
    detail::RunParallelWords(parts, n_words, [&](size_t begin, size_t end) {
      for (const auto& c : copies) {
        if (c) k.or_words(words_ + begin, FilterAccess::Words(*c) + begin, end - begin);
      }
    });
    __atomic_fetch_add(&inserted_, keys.size(), __ATOMIC_RELAXED);
    return changed.load(std::memory_order_relaxed);
  }
  // Several threads with per-key results, or other writers (insert_concurrent): atomic ORs.
  const bool use_atomic = atomic || parts > 1;
  tune = parts == 1;
  detail::RunParallel(
      static_cast<unsigned>(parts), keys.size(), 1,
      [&](size_t, size_t begin, size_t end) { insert_part(words_, use_atomic, begin, end); });
  __atomic_fetch_add(&inserted_, keys.size(), __ATOMIC_RELAXED);
  return changed.load(std::memory_order_relaxed);
}

uint64_t Filter::insert(Keys keys) { return InsertBulk(keys, nullptr, false, 1); }

uint64_t Filter::insert(Keys keys, uint8_t* fresh) {
  if (fresh == nullptr && keys.size() != 0) Invalid("insert: null fresh output with non-zero size");
  return InsertBulk(keys, fresh, false, 1);
}

uint64_t Filter::insert(Keys keys, Threads threads) {
  return InsertBulk(keys, nullptr, false, threads.count);
}

uint64_t Filter::insert(Keys keys, uint8_t* fresh, Threads threads) {
  if (fresh == nullptr && keys.size() != 0) Invalid("insert: null fresh output with non-zero size");
  return InsertBulk(keys, fresh, false, threads.count);
}

uint64_t Filter::insert_concurrent(Keys keys) { return InsertBulk(keys, nullptr, true, 1); }

uint64_t Filter::insert_concurrent(Keys keys, uint8_t* fresh) {
  if (fresh == nullptr && keys.size() != 0) {
    Invalid("insert_concurrent: null fresh output with non-zero size");
  }
  return InsertBulk(keys, fresh, true, 1);
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
  detail::CheckExtent("refine", "selection entries", selection, count, 4);
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
  detail::ValidateKeys("hash", keys);
  detail::CheckExtent("hash", "hashes", out, keys.size(), 8);
  const detail::KeySource src = detail::SourceOf(keys, id, seed_, &hasher);
  detail::Active().hash_keys(detail::InfoOf(id).xxh64, src, keys.size(), seed_, out);
}

namespace detail {
namespace {

// A query split across threads: each part writes its own stretch of the output.
uint64_t ParallelQuery(const char* who, const Filter& f, const Keys& keys, ResultKind result,
                       void* out, unsigned threads) {
  if (f.data() == nullptr) Invalid(std::string(who) + ": the filter was moved from");
  if (keys.size() == 0) return 0;
  if (out == nullptr) Invalid(std::string(who) + ": null output with non-zero size");
  ValidateKeys(who, keys);  // errors before threads start
  CheckResult(who, result, out, keys.size());
  std::vector<uint64_t> counts(std::max<unsigned>(1, threads), 0);
  std::vector<size_t> begins(counts.size(), 0);
  // Bitmap parts start on whole bytes.
  const size_t align = result == ResultKind::kBitmap ? 8 : 1;
  RunParallel(threads, keys.size(), align, [&](size_t part, size_t begin, size_t end) {
    const Keys slice = Slice(keys, begin, end - begin);
    void* at = result == ResultKind::kBytes ? static_cast<void*>(static_cast<uint8_t*>(out) + begin)
               : result == ResultKind::kBitmap
                   ? static_cast<void*>(static_cast<uint8_t*>(out) + begin / 8)
                   : static_cast<void*>(static_cast<uint32_t*>(out) + begin);
    counts[part] = Query(who, f, slice, nullptr, end - begin, result, at, true);
    begins[part] = begin;
    if (result == ResultKind::kSelection) {  // the part's indices are relative to its begin
      uint32_t* sel = static_cast<uint32_t*>(at);
      for (uint64_t i = 0; i < counts[part]; ++i) sel[i] += static_cast<uint32_t>(begin);
    }
  });
  uint64_t total = 0;
  for (size_t part = 0; part < counts.size(); ++part) {
    if (result == ResultKind::kSelection && counts[part] != 0 && begins[part] != total) {
      uint32_t* sel = static_cast<uint32_t*>(out);
      std::memmove(sel + total, sel + begins[part], counts[part] * sizeof(uint32_t));
    }
    total += counts[part];
  }
  return total;
}

}  // namespace
}  // namespace detail

uint64_t Filter::contains(Keys keys, uint8_t* out, Threads threads) const {
  return detail::ParallelQuery("contains", *this, keys, ResultKind::kBytes, out, threads.count);
}

uint64_t Filter::contains_bitmap(Keys keys, uint8_t* bitmap, Threads threads) const {
  return detail::ParallelQuery("contains_bitmap", *this, keys, ResultKind::kBitmap, bitmap,
                               threads.count);
}

uint64_t Filter::select(Keys keys, uint32_t* selection, Threads threads) const {
  if (keys.size() > (uint64_t{1} << 32)) {
    Invalid("select: more than 2^32 keys do not fit 32-bit selection indices");
  }
  return detail::ParallelQuery("select", *this, keys, ResultKind::kSelection, selection,
                               threads.count);
}

// For the kinds of filter built from Filters (lib/scalable.cc): the same key checks and slices.
namespace detail {
void ValidateBulkKeys(const char* who, const Keys& keys) { ValidateKeys(who, keys); }
Keys SliceKeys(const Keys& keys, size_t begin, size_t count) { return Slice(keys, begin, count); }
}  // namespace detail

}  // namespace simdbloom

// ---- Key handling for other filter kinds (lib/keys.h) ----
// (Included here, with the code it declares, to keep this addition in one place.)
#include "lib/keys.h"  // NOLINT(build/include_order)

namespace simdbloom {
namespace detail {

void CheckKeys(const char* who, const Keys& keys) {
  if (keys.size() != 0) ValidateKeys(who, keys);
}

void HashKeyRange(const Kernels& kernels, const Keys& keys, uint64_t seed, size_t begin, size_t m,
                  uint64_t* out) {
  if (m == 0) return;
  const Keys part = Slice(keys, begin, m);
  StringHasher hasher{part, 0};
  const KeySource src = SourceOf(part, LayoutId::kBlock512, seed, &hasher);
  kernels.hash_keys(false, src, m, seed, out);
}

}  // namespace detail
}  // namespace simdbloom
