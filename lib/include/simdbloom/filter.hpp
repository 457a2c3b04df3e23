// SPDX-License-Identifier: Apache-2.0
// Part of simdbloom.hpp (include that): the plain filter, simdbloom::Filter.
#ifndef SIMDBLOOM_FILTER_HPP_
#define SIMDBLOOM_FILTER_HPP_

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// Exported ABI, the detail headers included too: the library is compiled with hidden visibility.
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#include "simdbloom/basics.hpp"
#include "simdbloom/detail/keys.hpp"
#include "simdbloom/detail/one_key.hpp"
#include "simdbloom/keys.hpp"

namespace simdbloom {

// ---- The filter ----
class Filter {
 public:
  // The filter size_for(expected_items, fpp, layout) describes, empty. Throws as size_for (the
  // message starts "Filter::create: "), and Error(kOutOfMemory). Cost: size_for, then one zeroed
  // 64-byte-aligned allocation.
  // `key_type`: what the filter holds (KeyType; kNone: its first insert decides).
  static Filter create(uint64_t expected_items, double fpp, Layout layout = Layout::kBlock512,
                       uint64_t seed = 0, KeyType key_type = KeyType::kNone);
  // A filter of at least `bits` bits (rounded up to whole blocks of the layout) and `k` probes
  // per key. k: 1..16 (block512, register64, shifting), 8 (split_block256), 1..32 (classic).
  // Throws Error(kInvalidArgument) for bits == 0, k out of range, more than 2^32 - 1 blocks or an
  // unknown layout; Error(kOutOfMemory). Cost: one zeroed 64-byte-aligned allocation.
  static Filter with_bits(uint64_t bits, uint32_t k, Layout layout = Layout::kBlock512,
                          uint64_t seed = 0, KeyType key_type = KeyType::kNone);

  // Moves the bit array. The moved-from filter keeps its parameters but has no bits: it can be
  // assigned to, destroyed or copied (giving another such filter), and its accessors and
  // statistics describe an empty filter; every call with keys, single or bulk, query or insert,
  // and every call that needs the bits (merge and intersect on either side, save, to_parquet)
  // throws Error(kInvalidArgument) "CALL: the filter was moved from". So does every kind of the
  // family. prefetch does nothing. Cost: O(1).
  Filter(Filter&& other) noexcept;
  Filter& operator=(Filter&& other) noexcept;
  // Deep copy. Cost: one allocation and a copy of the bit array.
  Filter(const Filter& other);
  Filter& operator=(const Filter& other);
  ~Filter();

  // ---- Single keys: inline, scalar, branch-free; O(k), no allocation ----
  // A Key: any integer type (see "Which C++ types are keys": its value, hashed for key_type()
  // exactly as a bulk call over an array of that type) or a byte string (std::string_view,
  // std::string, C string; hashed out of line, O(k + size)). insert returns true if the key set a
  // bit that was clear (it was surely new) and throws Error(kReadOnly) on a view; a key of the
  // other kind than key_type() throws KeyTypeError, an integer out of a kInt32 filter's range is
  // absent (contains) or refused (insert, Error(kInvalidArgument)). Integer keys are hashed inline
  // (XXH3/XXH64 of 4 or 8 bytes, bit-exact with libxxhash), then probed inline with the caller's
  // own instruction set (detail/one_key.hpp): block512 and split_block256 with AVX-512 or AVX2
  // intrinsics when the calling code is compiled for them (-march=x86-64-v4 / -v3 or native), with
  // NEON on AArch64; in code compiled for baseline x86-64 by one call to the library's one-key
  // kernel of the active SIMD target, or the inline scalar loops; register64 inline scalar; classic
  // out of line (its k cache misses dwarf a call). In cache, a few ns (perf/README.md, section
  // single); out of it, one cache miss. Same bits and answers as the bulk calls on every path.
  // (`OneKey` selects that path: leave it defaulted.)
  template <class OneKey = detail::OneKey>
  SIMDBLOOM_INLINE bool insert(Key key) {
    // The default layout and key type first, with one test for its hash and its probe (the
    // switches of hash() and insert_hash() cost a caller's loop about 10% of a key).
    if (key.is_integer()) {
      const uint8_t fast = Fast();
      if (fast & kFastInsert) {
        const uint64_t h = detail::Xxh3U64Flip(key.bits(), xxh3_bitflip_);
        ++inserted_;
        return OneKey::Block512Insert(words_ + 8 * detail::BlockOf(h, num_blocks_), h, k_);
      }
      if (fast & kFastInsertHash) return insert_hash<OneKey>(IntegerHash(key.bits()));
    }
    return InsertSlow<OneKey>(key.bits(), key.bytes().data(), key.bytes().size(),
                              detail::KeyFlags(key));
  }
  template <class OneKey = detail::OneKey>
  SIMDBLOOM_INLINE bool contains(Key key) const {
    if (key.is_integer()) {
      const uint8_t fast = Fast();
      if (fast & kFastQuery) {
        const uint64_t h = detail::Xxh3U64Flip(key.bits(), xxh3_bitflip_);
        return OneKey::Block512Contains(words_ + 8 * detail::BlockOf(h, num_blocks_), h, k_);
      }
      if (fast & kFastQueryHash) return contains_hash<OneKey>(IntegerHash(key.bits()));
    }
    return ContainsSlow<OneKey>(key.bits(), key.bytes().data(), key.bytes().size(),
                                detail::KeyFlags(key));
  }

  // Prefetches the cache line(s) a later insert or contains of `key` touches (classic: its k
  // lines), so a caller who knows the next keys (a packet ring, a request queue) can overlap their
  // cache misses: prefetch(next) ... contains(current). Never changes results; O(1) (classic O(k)).
  // It hashes the key, and contains(key) hashes it again: a caller that can keep 8-16 hashes
  // saves one hash a key with h = hash(next); prefetch_hash(h) ... contains_hash(h) (about 1 ns
  // a key; perf/README.md, section single, column "pf hash1").
  SIMDBLOOM_INLINE void prefetch(Key key) const noexcept {
    uint64_t h;
    if (key.is_integer() && (Fast() & kFastQuery)) {
      prefetch_hash(detail::Xxh3U64Flip(key.bits(), xxh3_bitflip_));
    } else if (murmur()) {
      PrefetchMurmur(key);
    } else if (keys_.TryHash(key, seed_, xxh3_bitflip_, xxh64(), &h)) {
      prefetch_hash(h);
    }
  }

  // A value of hash(): no hashing.
  template <class OneKey = detail::OneKey>
  SIMDBLOOM_INLINE bool insert_hash(uint64_t hash) {
    if (!owned_ || words_ == nullptr) RefuseInsert("insert");
    ++inserted_;
    const uint64_t block = detail::BlockOf(hash, num_blocks_);
    switch (layout_) {
      case Layout::kBlock512:
        return OneKey::Block512Insert(words_ + 8 * block, hash, k_);
      case Layout::kRegister64: {
        const uint64_t mask = OneKey::Register64Mask(hash, k_), old = words_[block];
        words_[block] = old | mask;
        return (mask & ~old) != 0;
      }
      case Layout::kSplitBlock256:
        return OneKey::SplitBlock256Insert(reinterpret_cast<uint8_t*>(words_ + 4 * block), hash);
      case Layout::kGuava:
        RefusePrehashed("insert_hash");
      default:
        return detail::InsertHashOutOfLine(static_cast<uint8_t>(layout_), words_, num_blocks_, k_,
                                           hash);
    }
  }
  template <class OneKey = detail::OneKey>
  SIMDBLOOM_INLINE bool contains_hash(uint64_t hash) const {
    if (words_ == nullptr) RefuseQuery("contains");
    const uint64_t block = detail::BlockOf(hash, num_blocks_);
    switch (layout_) {
      case Layout::kBlock512:
        return OneKey::Block512Contains(words_ + 8 * block, hash, k_);
      case Layout::kRegister64: {
        const uint64_t mask = OneKey::Register64Mask(hash, k_);
        return (detail::LoadWord(words_ + block) & mask) == mask;
      }
      case Layout::kSplitBlock256:
        return OneKey::SplitBlock256Contains(reinterpret_cast<const uint8_t*>(words_ + 4 * block),
                                             hash);
      case Layout::kGuava:
        RefusePrehashed("contains_hash");
      default:
        return detail::ContainsHashOutOfLine(static_cast<uint8_t>(layout_), words_, num_blocks_, k_,
                                             hash);
    }
  }
  SIMDBLOOM_INLINE void prefetch_hash(uint64_t hash) const noexcept {
#if defined(__GNUC__) || defined(__clang__)
    if (words_ == nullptr) return;
    const uint64_t block = detail::BlockOf(hash, num_blocks_);
    switch (layout_) {
      case Layout::kBlock512:
        __builtin_prefetch(words_ + 8 * block);
        break;
      case Layout::kRegister64:
        __builtin_prefetch(words_ + block);
        break;
      case Layout::kSplitBlock256:
        __builtin_prefetch(reinterpret_cast<const uint8_t*>(words_) + 32 * block);
        break;
      default:
        detail::PrefetchHashOutOfLine(static_cast<uint8_t>(layout_), words_, num_blocks_, k_, hash);
    }
#else
    (void)hash;
#endif
  }
  // The layout's hash of a key with this filter's seed (XXH64 for split_block256, XXH3 otherwise)
  // and key type (kNone: as kInt64; a kNone filter stays kNone); equal across filters of the same
  // hash family, seed and key type. O(1), inline (strings: O(size)). Throws KeyTypeError for a
  // key of the other kind than key_type(), Error(kInvalidArgument) for an integer out of a kInt32
  // filter's range (it has no hash there).
  // guava, guava32: h1, the first 64 bits of the key's Murmur3 x64 128 (Guava's
  // HashCode.asLong()); guava32's insert_hash and contains_hash take it, guava's refuse it.
  SIMDBLOOM_INLINE uint64_t hash(Key key) const {
    if (murmur()) return HashMurmur(key);
    return keys_.ForHash("hash", key, seed_, xxh3_bitflip_, xxh64());
  }

  // What the filter holds (KeyType): declared at create(), or set by its first insert; saved in
  // its file. O(1).
  KeyType key_type() const noexcept { return keys_.type(); }
  // Declares what a kNone or kLegacy filter holds (kInt64, kInt32 or kBytes), e.g. a filter loaded
  // from a file saved before key types, or one read from Parquet. Throws Error(kInvalidArgument)
  // for kNone/kLegacy or when the filter already holds another type; Error(kReadOnly) is not
  // thrown: a view may be declared (it changes no bit). O(1).
  void set_key_type(KeyType type);

 private:
  // insert(key) and contains(key) past their inline fast path (another layout or key type, a byte
  // string, a kNone filter's first insert, errors): out of the caller's code, so that the fast path
  // needs no stack frame and keeps its registers (a call of a few ns on these paths). The key
  // comes as scalars (detail::KeyOf): as a Key it was stored first (perf/README.md, design note
  // M26).
  template <class OneKey>
  SIMDBLOOM_NOINLINE bool InsertSlow(uint64_t bits, const char* data, size_t size, uint32_t flags) {
    const Key key = detail::KeyOf(bits, data, size, flags);
    if (murmur()) return InsertMurmur("insert", key, false);
    KeyType type;
    const bool fresh = insert_hash<OneKey>(key_hash_for_insert("insert", key, &type));
    if (type != keys_.type()) SetKeyTypeOnInsert(type);
    return fresh;
  }
  template <class OneKey>
  SIMDBLOOM_NOINLINE bool ContainsSlow(uint64_t bits, const char* data, size_t size,
                                       uint32_t flags) const {
    const Key key = detail::KeyOf(bits, data, size, flags);
    if (words_ == nullptr) RefuseQuery("contains");
    if (murmur()) return ContainsMurmur(key);
    uint64_t h;
    if (!keys_.ForQuery("contains", key, seed_, xxh3_bitflip_, xxh64(), &h)) return false;
    return contains_hash<OneKey>(h);
  }
  // The hash of a key for an insert, and the key type after it: the slow path of insert(key).
  SIMDBLOOM_INLINE uint64_t key_hash_for_insert(const char* who, Key key, KeyType* type) {
    if (!owned_ || words_ == nullptr) RefuseInsert(who);
    return keys_.ForInsert(who, key, seed_, xxh3_bitflip_, xxh64(), type);
  }
  // A kNone filter's first insert fixes its key type (out of line: once per filter).
  void SetKeyTypeOnInsert(KeyType type) noexcept;
  // The same for writers that may race (insert_concurrent): throws KeyTypeError naming `who` if
  // another thread gave the filter another type first.
  void ClaimKeyType(const char* who, KeyType type);
  bool xxh64() const noexcept { return layout_ == Layout::kSplitBlock256; }
  // The Guava layouts' single-key calls, out of line (lib/formats/guava.cc): Murmur3 x64 128 of
  // the key's funnel bytes (8 little-endian bytes for kInt64, 4 for kInt32, a byte string's
  // bytes), the key type rules of KeyTyping.
  bool murmur() const noexcept { return layout_ == Layout::kGuava || layout_ == Layout::kGuava32; }
  bool InsertMurmur(const char* who, Key key, bool concurrent);
  bool ContainsMurmur(Key key) const;
  void PrefetchMurmur(Key key) const noexcept;
  uint64_t HashMurmur(Key key) const;
  // A pre-hashed call on a guava (MITZ_64) filter: Error(kInvalidArgument).
  [[noreturn]] SIMDBLOOM_COLD void RefusePrehashed(const char* who) const;
  // Which inline fast paths hold: an 8-byte integer hash (kInt64; queries kNone too), bits present
  // (insert: owned), and block512 (kFastQuery, kFastInsert: hash and probe in one test) or another
  // layout hashed inline (kFastQueryHash, kFastInsertHash: its hash, then contains_hash's switch;
  // not Guava's). Recomputed whenever one of those changes.
  static constexpr uint8_t kFastQuery = 1, kFastInsert = 2, kFastQueryHash = 4, kFastInsertHash = 8;
  void UpdateFast() noexcept {
    const bool int64 = keys_.type() == KeyType::kInt64;
    const bool q = words_ != nullptr && (int64 || keys_.type() == KeyType::kNone) && !murmur();
    const bool i = q && int64 && owned_;
    const bool b = layout_ == Layout::kBlock512;
    __atomic_store_n(&fast_,
                     static_cast<uint8_t>((q ? (b ? kFastQuery : kFastQueryHash) : 0) |
                                          (i ? (b ? kFastInsert : kFastInsertHash) : 0)),
                     __ATOMIC_RELAXED);
  }
  // The hash of an integer key of an int64 (or none) filter: its 8 bytes by XXH64 or XXH3.
  SIMDBLOOM_INLINE uint64_t IntegerHash(uint64_t bits) const noexcept {
    return xxh64() ? detail::Xxh64U64(bits, seed_) : detail::Xxh3U64Flip(bits, xxh3_bitflip_);
  }
  // (Relaxed atomic: an insert_concurrent's first key changes it while other threads read it.)
  SIMDBLOOM_INLINE uint8_t Fast() const noexcept {
    return __atomic_load_n(&fast_, __ATOMIC_RELAXED);
  }

 public:
  // ---- Bulk calls over Keys of any shape ----
  // All run on the active SIMD target in tiles of keys on the stack: hash (u64/u32 keys vectorized;
  // byte strings scalar XXH3/XXH64, 16384 at a time into a 128 KiB buffer that each thread
  // allocates on its first call of more than 4096 of them and keeps until it exits (else 4096 at a
  // time on the stack), before their tiles run), locate, software-prefetch some keys ahead (filters
  // of 1 MiB and more), apply. No other allocation. Cost: O(n k) plus, out of cache, about one
  // cache-line miss per key (k for classic), overlapped. How far ahead is measured on this machine:
  // the first bulk call on a filter of a new power-of-two size (per layout and SIMD target) times
  // its query kernel on the filter at a few distances, 0.3-1.5 ms once per process (one allocation
  // of 72 KiB); it never changes a result. Errors: Error(kInvalidArgument) for a null pointer with
  // a non-zero size, bad Arrow offsets (past a declared data_size too) or FixedWidth geometry, and
  // an array (of keys, offsets, records, Arrow data, or an output) whose pointer plus size wraps
  // the address space or exceeds PTRDIFF_MAX bytes, detected before anything is written. That a
  // pointer really points at so many readable bytes cannot be checked. An output must not overlap
  // the keys (results may be written while later keys are still to be read), except refine's
  // selection, which is both. A call has a fixed cost of a few dozen ns on top of its keys' share
  // of a large call: it weighs on short calls such as a packet burst of 32 keys (perf/README.md,
  // "Bursts").

  // Inserts every key; returns how many set a bit that was clear (surely new keys; in key order,
  // so a repeat within the batch does not count). Throws Error(kReadOnly) on a view.
  uint64_t insert(const Keys& keys);
  // The same, and fresh[i] = 1 iff inserting key i (in key order) set a bit that was clear, else
  // 0: exactly the single-key insert's result applied key by key, so a key repeated within the
  // batch is new only the first time (de-duplication). `fresh` holds keys.size() bytes. Costs one
  // byte store per key more than insert(keys) (perf: simdbloom-bench --only speed, "fresh").
  uint64_t insert(const Keys& keys, uint8_t* fresh);

  // ---- Many writers ----
  // insert_concurrent: as insert, but any number of threads may call it on one filter at once, and
  // const calls (contains, select, ...) may run at the same time: each word is set with an atomic
  // OR (relaxed order; the hashing, locating and masks stay vectorized, only the final OR is
  // atomic). No key is lost. A query racing with writers sees every key whose insert
  // happened-before it (e.g. finished before the query started, or synchronized with it by the
  // caller); a key being inserted concurrently may or may not be seen, never half of a previous
  // key. Plain insert, merge, clear and the other mutations still need exclusive access. Atomic
  // read-modify-writes are slow (a locked instruction per word; perf/README.md, design note M9):
  // for throughput, give each writer its own filter and merge() them, or use
  // insert(keys, Threads{T}); insert_concurrent is for writers that cannot be batched.
  // The filter's bytes afterwards equal a sequential insert of the same keys in any order.
  // "Was new" (the return value, fresh[i]) comes from the atomics' previous values: a key is new
  // iff one of its bits was clear when this call set it; if two threads insert the same key at
  // once, at least one of them reports it new. Cost: as insert, plus one atomic RMW per word
  // touched (8 for block512 and shifting, 1 register64, 4 split_block256, k classic).
  // The first key into a kNone filter sets its key type atomically, before its bits: a racing
  // insert_concurrent of the other kind is refused (KeyTypeError), never mixed in.
  bool insert_concurrent(Key key) {
    if (murmur()) return InsertMurmur("insert_concurrent", key, true);
    KeyType type;
    const uint64_t h = key_hash_for_insert("insert_concurrent", key, &type);
    if (type != keys_.type()) ClaimKeyType("insert_concurrent", type);
    return insert_hash_concurrent(h);
  }
  bool insert_hash_concurrent(uint64_t hash);
  uint64_t insert_concurrent(const Keys& keys);
  uint64_t insert_concurrent(const Keys& keys, uint8_t* fresh);

  // ---- Parallel bulk calls (see Threads) ----
  // Same results as the single-threaded calls: the filter's bytes after a parallel insert equal a
  // sequential insert's, contains and contains_bitmap write the same bytes, select the same
  // indices in the same order. Errors are detected before any thread starts. Needs exclusive
  // access like the single-threaded form (insert), or shared access (queries).
  // insert(keys, Threads): on block512, register64, split_block256 and shifting, when the filter
  // is large (64 MiB or more) or copies would not be used (below), the keys are split by block:
  // each thread owns a contiguous range of blocks, the threads hash the keys a chunk (64K keys) at
  // a time, sort the hashes by owner, and each inserts those of its own blocks, in key order, with
  // no atomics, copies or merge (at most 2 MiB of scratch for the call). The count returned is
  // then exactly the single-threaded call's. The threads meet once per chunk: on cores busy with
  // other work a descheduled thread stalls them all. Otherwise (other layouts, smaller filters)
  // each thread but the first inserts its share into a private zeroed copy of the filter, then the
  // copies are ORed in (split among the threads); this allocates (T - 1) x size_bytes() for the
  // call, and while that would exceed 1 GiB (or cannot be allocated) the threads insert with
  // atomic ORs instead, as insert_concurrent. A batch of fewer keys than size_bytes() / 8 does not
  // use copies: it runs on the calling thread alone (zeroing and ORing a copy would cost more than
  // the keys it takes off). With copies or atomic ORs the count returned is the sum of each
  // share's count (a key is new within its own share).
  // insert(keys, fresh, Threads) always uses atomic ORs: fresh[i] follows insert_concurrent (a key
  // repeated within the batch may be reported new by more than one thread).
  // Cost: the single-threaded cost divided among the threads, plus starting them (a thread each)
  // and, for insert, the OR of the copies (a streaming pass); out-of-cache filters scale until
  // memory bandwidth or latency-bound parallelism runs out (simdbloom-bench --only threads).
  uint64_t insert(const Keys& keys, Threads threads);
  uint64_t insert(const Keys& keys, uint8_t* fresh, Threads threads);
  uint64_t contains(const Keys& keys, uint8_t* out, Threads threads) const;
  uint64_t contains_bitmap(const Keys& keys, uint8_t* bitmap, Threads threads) const;
  uint64_t select(const Keys& keys, uint32_t* selection, Threads threads) const;
  // out[i] = 1 if key i may be present, else 0 (keys.size() bytes). Returns the number of 1s.
  uint64_t contains(const Keys& keys, uint8_t* out) const;
  // Bit i of bitmap (LSB first within each byte, as Arrow validity bitmaps) = key i may be
  // present; writes (keys.size() + 7) / 8 bytes, unused high bits of the last byte 0. Returns the
  // number of set bits.
  uint64_t contains_bitmap(const Keys& keys, uint8_t* bitmap) const;
  // Writes the indices (ascending) of the keys that may be present to selection[0 .. count) and
  // returns count. `selection` must hold keys.size() entries; keys.size() must be at most 2^32.
  uint64_t select(const Keys& keys, uint32_t* selection) const;
  // Chains filters: keeps, in place and in order, the entries of selection[0 .. count) whose key
  // keys[selection[i]] may be present; returns how many remain. Every entry must be below
  // keys.size() (checked before anything is written: Error(kInvalidArgument)).
  uint64_t refine(const Keys& keys, uint32_t* selection, size_t count) const;
  // out[i] = hash of key i (what insert/contains compute first); keys.size() values.
  void hash(const Keys& keys, uint64_t* out) const;

  // A pointer and a count are one Keys: f.contains({ptr, n}, out).

  Layout layout() const noexcept { return layout_; }
  uint64_t bit_count() const noexcept { return num_blocks_ * block_bits_; }
  // Blocks of block_bits(layout()) bits each.
  uint64_t num_blocks() const noexcept { return num_blocks_; }
  uint32_t num_hashes() const noexcept { return k_; }
  uint64_t seed() const noexcept { return seed_; }
  // Predicted false-positive rate after `n` distinct keys, for this filter's size and k.
  double predicted_fpp(uint64_t n) const {
    return simdbloom::predicted_fpp(layout_, bit_count(), k_, n);
  }
  // The bit array: bit_count() / 8 bytes, 64-byte aligned, little-endian (FORMAT.md).
  const uint8_t* data() const noexcept { return reinterpret_cast<const uint8_t*>(words_); }
  size_t size_bytes() const noexcept { return static_cast<size_t>(bit_count() / 8); }
  // Clears every bit. O(size_bytes()), no allocation.
  // Throws Error(kReadOnly) on a view.
  void clear();
  // Keys passed to insert so far, repeats included (merge adds, intersect keeps the smaller;
  // saved with the filter): a count of inserts, not of distinct keys, so merging a filter with
  // itself or with a copy of itself doubles it. Informational: approximate_count() estimates
  // distinct keys.
  uint64_t inserted_count() const noexcept { return __atomic_load_n(&inserted_, __ATOMIC_RELAXED); }
  // True for filters made by view(): their bits belong to the caller and cannot change.
  bool is_view() const noexcept { return !owned_; }

  // ---- Set operations (vectorized; O(size_bytes()), no allocation) ----
  // Same layout, size, k, seed and key type (or one of them kNone): the condition for merge and
  // intersect to be meaningful.
  bool compatible(const Filter& other) const noexcept;
  // Union: afterwards this filter answers "may be present" for every key either filter held; a
  // kNone filter takes the other's key type. Throws Error(kIncompatible) naming the differing
  // parameter, Error(kReadOnly) on a view.
  void merge(const Filter& other);
  // Intersection (AND of the bits): keeps every key both filters held; its false-positive rate
  // is at most that of either input. Same errors as merge.
  void intersect(const Filter& other);

  // ---- Persistence (FORMAT.md, "File format") ----
  // Bytes save() writes: a 64-byte header and the bit array. O(1).
  size_t serialized_size() const noexcept { return 64 + size_bytes(); }
  // Writes the filter. Cost: a checksum pass and a write of serialized_size() bytes. Throws
  // Error(kIo) if the stream or file fails, naming the path and the reason; save_file replaces
  // `path` atomically (lib/formats/file_io.h has every rule): the bytes go to a temporary file in
  // its directory, fsync'ed and renamed over it, so on any failure (a full disk, a write error, a
  // kill) the old file stays byte-identical, and a process that maps the old file keeps its bytes;
  // symbolic links are followed; a device or FIFO (/dev/stdout) is written in place. Needs write
  // permission on the file and its directory; keeps the old mode (and owner where permitted), not
  // ACLs or hard links. Cost: two fsyncs more than the write.
  void save(std::ostream& out) const;
  void save_file(const std::string& path) const;
  // Reads a saved filter, validating every header field and the payload checksum before it is
  // returned. Throws Error(kFormat) for anything that is not a complete, valid filter (never reads
  // past the input), Error(kIo) for a path that is missing, unreadable or a directory and for a
  // stream that fails while reading (badbit), Error(kOutOfMemory). Cost: one allocation
  // of the bit array, a copy and a checksum pass. From a stream the allocation waits until the
  // payload has arrived and matched its checksum (checked in 4 MiB pieces), so memory follows the
  // bytes present, not the header's claim: a seekable stream is read twice (two checksum passes),
  // a pipe's bytes are held in pieces until the check.
  static Filter load(std::istream& in);
  static Filter load_file(const std::string& path);
  static Filter load(const uint8_t* data, size_t size);
  // A read-only filter over caller-owned bytes (e.g. an mmapped file), copying nothing: the bytes
  // must stay valid and unchanged while the filter or its moves live. `data` must be 64-byte
  // aligned (Error(kInvalidArgument) otherwise) and hold exactly one saved filter. Validates like
  // load; `verify_checksum = false` skips the O(size) payload checksum (header fields are always
  // checked). Mutations throw Error(kReadOnly); a copy is an ordinary, owning filter.
  static Filter view(const uint8_t* data, size_t size, bool verify_checksum = true);
  // A read-only filter over a memory mapping of the file at `path` (mmap, PROT_READ, MAP_PRIVATE),
  // validated as view() validates; the filter owns the mapping, which is unmapped when the filter
  // (or the last filter it was moved into) is destroyed. A copy is an ordinary owning filter.
  // For services that load a large prebuilt filter: with verify_checksum = false, the cost is
  // open + mmap + reading the 64-byte header, O(1) whatever the size (microseconds), and each page
  // of bits is read from the page cache or the disk on its first query; with true (the default),
  // one checksum pass reads the whole file first. Mutations throw Error(kReadOnly). Throws
  // Error(kIo) for a path that is missing, unreadable or not a regular file, or a failed mmap,
  // Error(kFormat) as view. The file must not be truncated or rewritten in place while mapped
  // (SIGBUS or changed answers): save_file replaces files by rename, which a mapping survives (it
  // keeps the old bytes).
  static Filter map_file(const std::string& path, bool verify_checksum = true);

  // ---- Parquet split block Bloom filters (split_block256 only) ----
  // The Parquet form: Thrift-compact BloomFilterHeader (numBytes, BLOCK, XXHASH, UNCOMPRESSED),
  // then the bitset. Throws Error(kIncompatible) unless the layout is split_block256 with seed 0.
  // Allocates the result.
  std::vector<uint8_t> to_parquet() const;
  // Reads the Parquet form at `data`: any numBytes that is a positive multiple of 32 (whole
  // blocks), any field order, unknown fields skipped. `consumed`, if given, receives header +
  // bitset bytes. Throws Error(kFormat) for malformed or unsupported headers (other algorithm,
  // hash or compression) and truncated input. Cost: one allocation and a copy of the bitset.
  // `key_type`: what the column holds (INT32: kInt32, INT64: kInt64, BYTE_ARRAY and
  // FIXED_LEN_BYTE_ARRAY: kBytes); Parquet's bytes do not say. kNone leaves it to the caller.
  static Filter from_parquet(const uint8_t* data, size_t size, size_t* consumed = nullptr,
                             KeyType key_type = KeyType::kNone);

  // ---- Guava's BloomFilter (guava and guava32 only; lib/FORMAT.md, "guava and guava32") ----
  // Guava's writeTo form: 1 byte strategy ordinal (1: MURMUR128_MITZ_64, layout guava; 0:
  // MURMUR128_MITZ_32, guava32), 1 byte k (unsigned), a big-endian int32 count of longs, then the
  // longs big-endian. Throws Error(kIncompatible) for another layout or a seed other than 0
  // (Guava's Murmur3 seed). Allocates the result
  // (6 + size_bytes() bytes). Cost: one pass over the bits (byte swaps).
  std::vector<uint8_t> to_guava() const;
  // Reads Guava's writeTo form at `data`: what Guava's readFrom reads (ordinal 0 or 1, k 1..255,
  // 1 to 2^31 - 1 longs, then exactly that many longs). `key_type` says which funnel the Java
  // side used (Guava's bytes do not record it): longFunnel kInt64, integerFunnel kInt32,
  // stringFunnel(UTF_8) and byteArrayFunnel kBytes (keys as their bytes), unencodedCharsFunnel
  // kBytes with each key given as its UTF-16LE bytes; kNone leaves it to the first insert.
  // `consumed`, if given, receives the bytes read (6 + 8 longs) and bytes may follow; without it
  // the size must be exactly that. Throws Error(kFormat) for any other stream (a bad ordinal,
  // k = 0, a count that is not positive or does not match the bytes, truncation), reading no byte
  // past `size`; Error(kInvalidArgument) for a bad key_type; Error(kOutOfMemory). Cost: one
  // allocation and a pass over the bits.
  static Filter from_guava(const uint8_t* data, size_t size, KeyType key_type,
                           size_t* consumed = nullptr);

  // What the filter knows from its bits. Each reads the whole bit array once: O(size_bytes()),
  // no allocation.
  // Fraction of bits set, in [0, 1].
  double fill_ratio() const noexcept;
  // Estimated number of distinct keys inserted, from the number of set bits (FORMAT.md); +infinity
  // if every bit is set.
  double approximate_count() const noexcept;
  // False-positive rate of this bit array for a random absent key: every block's (or word's)
  // probability that all of a key's probes find set bits, averaged (FORMAT.md). Unlike
  // predicted_fpp(n) it needs no n and reflects the actual fill, including skew.
  double expected_fpp() const noexcept;

 private:
  Filter(Layout layout, uint64_t num_blocks, uint32_t k, uint64_t seed, KeyType key_type);
  Filter(Layout layout, uint64_t num_blocks, uint32_t k, uint64_t seed, KeyType key_type,
         const uint64_t* view);
  void CheckWritable(const char* who) const;
  void CheckNotMovedFrom(const char* who) const;
  // The single-key calls' refusals (a view, a moved-from filter): out of line, cold, never
  // returning, so a caller's loop keeps the filter's fields in registers around them.
  [[noreturn]] SIMDBLOOM_COLD void RefuseInsert(const char* who) const;
  [[noreturn]] SIMDBLOOM_COLD void RefuseQuery(const char* who) const;
  uint64_t InsertBulk(const Keys& keys, uint8_t* fresh, bool atomic, unsigned threads);
  friend struct FilterAccess;
  uint64_t* words_ = nullptr;
  uint64_t num_blocks_ = 0;
  uint64_t seed_ = 0;
  uint64_t xxh3_bitflip_ = detail::Xxh3Bitflip(0);  // of seed_: the inline XXH3 path's constant
  uint32_t k_ = 0;
  uint32_t block_bits_ = 512;
  Layout layout_ = Layout::kBlock512;
  bool owned_ = true;
  detail::KeyTyping keys_;
  uint8_t fast_ = 0;
  uint64_t inserted_ = 0;
  // What keeps a view's bytes alive when the filter owns them (map_file); null otherwise.
  std::shared_ptr<const void> keeper_;
};

}  // namespace simdbloom

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif  // SIMDBLOOM_FILTER_HPP_
