// SPDX-License-Identifier: Apache-2.0
// simdbloom counting Bloom filter: a filter that deletes. Each bit of a plain filter becomes a
// 4-bit saturating counter (Fan, Cao, Almeida, Broder, "Summary Cache", 2000); lib/FORMAT.md
// ("Counting filters") specifies the counters and the file format.
//
// Geometry, and why. A counting filter's counter i > 0 is exactly bit i of a plain Filter of an
// existing layout, with the same probe formula, seed and k, so to_filter() is bit-identical to
// inserting the same keys into that plain filter and every key it holds is answered by it:
// - CountingLayout::kBlocked (default): one 64-byte block of 128 counters per key, so one cache
//   line per insert/remove/contains. The counters are those of a register64 filter with two words
//   per block: the key's word W = (hi32(h) * 2 blocks) >> 32 (block W / 2), its k counters among
//   that word's 64. to_filter() gives Layout::kRegister64 with 2 * num_blocks() words. register64
//   is the only plain layout whose probes of one key fit in 64 bytes of counters (block512's span
//   512 bits = 256 bytes of counters: 4 lines); the price is register64's bits per key: 4 x 12.3 =
//   49 bits per key at 1%, 4 x 24.2 = 97 at 0.1%.
// - CountingLayout::kClassic: classic's k positions in m counters; to_filter() gives
//   Layout::kClassic with the same m. The fewest bits per key (4 x 9.65 = 39 at 1%, 4 x 14.4 = 58
//   at 0.1%), k cache misses per key.
//
// Counters saturate at 15 and then stick: a saturated counter is never decremented, so overflow
// can never cause a false negative (at worst it keeps a removed key's positions set). With distinct
// keys at the sizes create() picks, a given counter reaches 15 with probability about 5e-19
// (blocked, 1%) or 3e-15 (classic, 1%); 1e-14 and 5e-11 at twice the design load (FORMAT.md).
//
// Removing. remove(key) succeeds iff every one of the key's counters is > 0; then each counter
// below 15 is decremented. If one is 0 the key was never inserted (or already removed as often as
// inserted): the call reports it (false, or 0 in removed[i]) and changes nothing at all. Removing a
// key that was never inserted but whose counters are all > 0 (a false positive) cannot be
// detected: it decrements other keys' counters and may turn them into false negatives. Remove only
// keys you inserted. A bulk remove tells how many keys were surely absent (keys.size() minus its
// result): any such key is evidence that the keys hold some never inserted, whose false positives
// the call removed too; a caller that must lose nothing checks that first (contains(), or remove
// from a copy and keep it only when none was absent; `simdbloom remove` refuses then).
// Saturated keys: a key whose every counter is at 15 is removed without changing any counter
// (removed[i] = 2 in the bulk call, kSaturated from remove_hash): its count is unknown ("15 or
// more"), so the removal is not undone exactly and the key still answers present. size() never
// goes below 0.
//
// Thread-safety as in simdbloom.hpp: const calls may run concurrently; a non-const call needs
// exclusive access. There is no concurrent insert for counting filters.
#ifndef SIMDBLOOM_COUNTING_HPP_
#define SIMDBLOOM_COUNTING_HPP_

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>

#include "simdbloom/simdbloom.hpp"

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

namespace simdbloom {

// Geometry of a counting filter (the counting file format's layout byte).
enum class CountingLayout : uint8_t {
  // 64-byte blocks of 128 counters, one per key; to_filter() is register64. The default.
  kBlocked = 1,
  // k counters anywhere (classic); to_filter() is classic.
  kClassic = 2,
};
// "blocked", "classic"; "unknown" otherwise. O(1).
const char* counting_layout_name(CountingLayout layout) noexcept;
// The plain layout whose bits the counters are (register64, classic). Throws
// Error(kInvalidArgument) for an unknown value.
Layout plain_layout(CountingLayout layout);

namespace detail {
// The one-key path of CountingFilter::contains / count where the inline one does not go (the
// classic layout, callers compiled without AVX2, string keys, contains_hash / count_hash): the
// smallest of hash h's k counters (`layout` is the CountingLayout's value). Pure (it reads the
// counters and writes nothing a caller sees; its first call may initialise the SIMD target
// selection, which changes no result), so a caller's loop keeps the filter's fields in registers.
SIMDBLOOM_PURE uint32_t CountingCountOutOfLine(uint8_t layout, const uint64_t* counters,
                                               uint64_t num_blocks, uint32_t k,
                                               uint64_t h) noexcept;
}  // namespace detail

// A counting filter's size for (n, fpp): what CountingFilter::create builds.
struct CountingSizing {
  uint64_t counters;     // number of 4-bit counters (a whole number of blocks/units)
  uint32_t k;            // probes per key
  double predicted_fpp;  // <= kSizingHeadroom * fpp at n keys
};
// The counting filter of `layout` for `expected_items` keys at false-positive rate `fpp`. The
// counting filter's rate with n keys present is its plain layout's rate (counter > 0 = bit set),
// so this is size_for(expected_items, fpp, plain_layout(layout)) rounded up to whole counting
// blocks (kBlocked: pairs of register64 words), the predicted rate re-evaluated at that size.
// Throws as size_for, and Error(kInvalidArgument) beyond 2^31 - 1 blocks (kBlocked) or 2^30 - 1
// units of 512 counters (kClassic). Cost: as size_for (about 1 ms); no allocation.
CountingSizing counting_size_for(uint64_t expected_items, double fpp,
                                 CountingLayout layout = CountingLayout::kBlocked);

class CountingFilter {
 public:
  static constexpr uint32_t kMaxCount = 15;  // a counter at 15 is saturated (sticky)

  // An empty filter sized by counting_size_for. Throws as counting_size_for and
  // Error(kOutOfMemory). Cost: sizing, then one zeroed 64-byte-aligned allocation of counters / 2
  // bytes (2 MiB huge pages from 2 MiB on, as Filter).
  // `key_type`: what the filter holds (KeyType, as Filter::create).
  static CountingFilter create(uint64_t expected_items, double fpp,
                               CountingLayout layout = CountingLayout::kBlocked, uint64_t seed = 0,
                               KeyType key_type = KeyType::kNone);
  // At least `counters` counters (rounded up to whole blocks: 128 for kBlocked, 512 for kClassic)
  // and k probes (1..16 kBlocked, 1..32 kClassic). Throws Error(kInvalidArgument) for counters ==
  // 0, k out of range or too many blocks; Error(kOutOfMemory).
  static CountingFilter with_counters(uint64_t counters, uint32_t k,
                                      CountingLayout layout = CountingLayout::kBlocked,
                                      uint64_t seed = 0, KeyType key_type = KeyType::kNone);

  // Copies, moves as Filter (every key call on a moved-from filter throws Error(kInvalidArgument)).
  CountingFilter(const CountingFilter&) = default;
  CountingFilter(CountingFilter&&) noexcept = default;
  CountingFilter& operator=(const CountingFilter&) = default;
  CountingFilter& operator=(CountingFilter&&) noexcept = default;

  // ---- Single keys (integer keys and byte strings as Filter, key types too; O(k), no
  // allocation) ----
  // insert: true if one of the key's counters was 0 (the key was surely new). Throws
  // Error(kReadOnly) on a view.
  bool insert(Key key) {
    KeyType type;
    const bool fresh = insert_hash(
        keys_.ForInsert("insert", key, seed_, detail::Xxh3Bitflip(seed_), false, &type));
    keys_.Set(type);  // after the insert: a refused one changes nothing
    return fresh;
  }
  // remove: true if the key was removed; false if one of its counters was 0 (it was not in the
  // filter: nothing changed). See "Removing" above. Throws Error(kReadOnly) on a view.
  bool remove(Key key) {
    uint64_t h;
    if (!keys_.ForQuery("remove", key, seed_, detail::Xxh3Bitflip(seed_), false, &h)) {
      return false;
    }
    return remove_hash(h);
  }
  // contains / count of an integer key are inline in the blocked layout when the calling code is
  // compiled for AVX2 or AVX-512 (-march=x86-64-v3 / -v4 / native): the key's k counters are read
  // in one or two vectors (detail/one_key.hpp); else one call to the library's one-key path (the
  // active target's kernel on x86 with AVX2 at run time, else a loop over the k counters). Same
  // answer on every path; figures in perf/README.md, section single. (`OneKey` selects the path:
  // leave it defaulted.)
  template <class OneKey = detail::OneKey>
  SIMDBLOOM_INLINE bool contains(Key key) const {
    return count<OneKey>(key) != 0;
  }
  // The smallest of the key's counters, 0..15: 0 means absent; otherwise an upper bound of how
  // many times the key is in the filter (inserts minus removes), exact unless other keys share all
  // its counters; 15 means "15 or more".
  template <class OneKey = detail::OneKey>
  SIMDBLOOM_INLINE uint32_t count(Key key) const {
    uint64_t h;
    if (!keys_.ForQuery("count", key, seed_, detail::Xxh3Bitflip(seed_), false, &h)) {
      return 0;
    }
    return CountOne<OneKey>(h, "count");
  }

  // What a remove did (remove_hash, and the bulk remove's removed[i]): kAbsent, a counter was 0 and
  // nothing changed; kRemoved; kSaturated, every counter was at 15 and none changed (the removal
  // is not undone exactly). Converts to bool as remove() returns it: false only for kAbsent.
  enum Removal : uint8_t { kAbsent = 0, kRemoved = 1, kSaturated = 2 };
  // The same for a value of hash(); remove_hash tells a saturated removal apart.
  bool insert_hash(uint64_t hash);
  Removal remove_hash(uint64_t hash);
  bool contains_hash(uint64_t hash) const;
  uint32_t count_hash(uint64_t hash) const;

  // XXH3 of the key (by key_type(), as Filter::hash) with this filter's seed: equal to
  // Filter::hash of the plain filter to_filter() returns. O(1) (strings O(size)). Throws as
  // Filter::hash.
  uint64_t hash(Key key) const {
    return keys_.ForHash("hash", key, seed_, detail::Xxh3Bitflip(seed_), false);
  }
  // What the filter holds (KeyType, as Filter::key_type); saved in its file. O(1).
  KeyType key_type() const noexcept { return keys_.type(); }
  // As Filter::set_key_type.
  void set_key_type(KeyType type) { keys_.Declare("CountingFilter::set_key_type", type); }

  // ---- Bulk calls over Keys of any shape (as Filter's) ----
  // On the active SIMD target, in tiles on the stack: hash, locate, prefetch (filters of 1 MiB and
  // more, a fixed 64 keys ahead), apply in key order, so the result equals the single-key calls
  // applied one by one. No allocation. Cost: O(n k); out of cache one line per key (kBlocked) or
  // k (kClassic). Errors as Filter's bulk calls, detected before anything is written.
  // insert: returns how many keys found a counter at 0; fresh[i] = 1 for those (if not null).
  uint64_t insert(const Keys& keys, uint8_t* fresh = nullptr);
  // remove: returns how many keys were removed; keys.size() minus that were surely absent (a
  // counter was 0; nothing changed for them; see "Removing" above). removed[i] (if not null) = 1 if
  // key i was removed, 2 if removed but every counter of it was saturated (none changed), 0 if it
  // was absent.
  uint64_t remove(const Keys& keys, uint8_t* removed = nullptr);
  // out[i] = 1 if key i may be present; returns the number of 1s.
  uint64_t contains(const Keys& keys, uint8_t* out) const;
  // As Filter::contains_bitmap and Filter::select.
  uint64_t contains_bitmap(const Keys& keys, uint8_t* bitmap) const;
  uint64_t select(const Keys& keys, uint32_t* selection) const;
  // out[i] = count(key i) (0..15); returns the sum of out.
  uint64_t count(const Keys& keys, uint8_t* out) const;
  // contains and count on threads (see Threads): the same bytes and result as the
  // single-threaded calls, each thread on a contiguous share of the keys; errors are detected
  // before any thread starts. Thread-safe with other readers (shared access), not with a writer.
  // Cost: the single-threaded cost divided among the threads, plus starting them (a thread each).
  uint64_t contains(const Keys& keys, uint8_t* out, Threads threads) const;
  uint64_t count(const Keys& keys, uint8_t* out, Threads threads) const;

  // ---- The plain filter ----
  // The plain Bloom filter of the same keys: bit i = (counter i > 0), layout plain_layout(),
  // same k and seed, num_blocks = 2 * num_blocks() (kBlocked: register64 words) or num_blocks()
  // (kClassic). Bit-identical to Filter::with_bits(counter_count(), k, plain_layout, seed) after
  // inserting the keys now present; it answers contains() true for each of them. Its
  // inserted_count() is this filter's size(). A quarter of the memory. Cost: one pass over the
  // counters, one allocation.
  Filter to_filter() const;

  CountingLayout layout() const noexcept { return layout_; }
  Layout plain_layout() const { return simdbloom::plain_layout(layout_); }
  // Blocks of 128 counters (kBlocked) or units of 512 counters (kClassic).
  uint64_t num_blocks() const noexcept { return num_blocks_; }
  uint64_t counter_count() const noexcept;
  uint32_t num_hashes() const noexcept { return k_; }
  uint64_t seed() const noexcept { return seed_; }
  // Inserts minus successful removes so far, never below 0 (saved with the filter). Informational.
  uint64_t size() const noexcept { return present_; }
  // The counter array: counter_count() / 2 bytes, counter i = nibble i (FORMAT.md).
  const uint8_t* data() const noexcept;
  size_t size_bytes() const noexcept { return static_cast<size_t>(counter_count() / 2); }
  // Predicted false-positive rate with n distinct keys present (the plain layout's model; a few
  // hundred exp() at most, no allocation).
  double predicted_fpp(uint64_t n) const;
  // Counters at 15 (saturated). O(size_bytes()).
  uint64_t saturated_count() const noexcept;
  // Sets every counter to 0 and size() to 0: O(size_bytes()). Throws Error(kReadOnly) on a view.
  void clear();

  // ---- Set operations ----
  // Same layout, counter count, k, seed and key type (or one kNone): the condition for merge.
  // O(1).
  bool compatible(const CountingFilter& other) const noexcept;
  // Adds other's counters to this filter's, each sum capped at 15 (a saturated counter stays
  // saturated), and other's size() to size(): afterwards the filter is the one that received both
  // filters' inserts and removes (exactly, while no counter reaches 15), so the two halves of a
  // key set built apart merge into the filter of the whole (simdbloom.dask builds this way).
  // Merging a filter with itself doubles every counter. Throws Error(kIncompatible) naming the
  // differing parameter, Error(kReadOnly) on a view, Error(kInvalidArgument) for a moved-from
  // filter. Cost: one pass over both counter arrays (O(size_bytes()), no allocation).
  void merge(const CountingFilter& other);
  bool is_view() const noexcept { return store_.is_view(); }

  // ---- Persistence (FORMAT.md, "Counting filters": magic SBCOUNT1, version 1, checksums) ----
  // Bytes save() writes: a 64-byte header and the counters. O(1).
  size_t serialized_size() const noexcept { return 64 + size_bytes(); }
  // Writes the filter: a checksum pass and serialized_size() bytes. Throws Error(kIo) if the
  // stream or file fails, Error(kInvalidArgument) for a moved-from filter. save_file as
  // Filter::save_file (atomic replacement).
  void save(std::ostream& out) const;
  void save_file(const std::string& path) const;
  // Validates every header field (before any allocation) and the payload checksum; then one
  // allocation and a copy (a stream: checked in 4 MiB pieces before the allocation, read twice if
  // seekable; lib/FORMAT.md "File format"). Throws
  // Error(kFormat) for anything but a complete valid counting filter, Error(kIo) for streams and
  // paths that fail, Error(kOutOfMemory).
  static CountingFilter load(const uint8_t* data, size_t size);
  static CountingFilter load(std::istream& in);
  static CountingFilter load_file(const std::string& path);
  // A read-only filter over caller-owned bytes (64-byte aligned, e.g. mmapped), as Filter::view:
  // nothing copied, the bytes must outlive the filter; header fields always checked, the O(size)
  // payload checksum unless verify_checksum is false; mutations throw Error(kReadOnly); a copy
  // is an owning filter.
  static CountingFilter view(const uint8_t* data, size_t size, bool verify_checksum = true);
  // A read-only filter over a memory mapping of the file at `path` that owns the mapping, as
  // Filter::map_file (costs, errors and the rule against rewriting the file in place alike).
  static CountingFilter map_file(const std::string& path, bool verify_checksum = true);

 private:
  CountingFilter(CountingLayout layout, uint64_t num_blocks, uint32_t k, uint64_t seed,
                 KeyType key_type, Filter store);
  void CheckWritable(const char* who) const;
  [[noreturn]] SIMDBLOOM_COLD void RefuseQuery(const char* who) const;
  // count(key) of hash h: inline (OneKey's vectors) in the blocked layout where OneKey has them,
  // else the library's one-key path; `who` names the call in the moved-from error.
  template <class OneKey>
  SIMDBLOOM_INLINE uint32_t CountOne(uint64_t h, const char* who) const {
    const uint8_t* counters = store_.data();
    if (counters == nullptr) RefuseQuery(who);
    const auto* words = reinterpret_cast<const uint64_t*>(counters);
    if constexpr (OneKey::kInlineCells) {
      if (layout_ == CountingLayout::kBlocked) {
        return OneKey::CountingMin(words + 4 * detail::BlockOf(h, 2 * num_blocks_), h, k_);
      }
    }
    return detail::CountingCountOutOfLine(static_cast<uint8_t>(layout_), words, num_blocks_, k_, h);
  }
  uint64_t* Counters();
  const uint64_t* Counters() const noexcept;
  // The counters live in a Filter used as aligned (huge-page) storage: classic layout, k = 1,
  // size_bytes() / 64 units; its bits are counters, never a filter of their own.
  Filter store_;
  CountingLayout layout_ = CountingLayout::kBlocked;
  uint64_t num_blocks_ = 0;
  uint64_t seed_ = 0;
  uint32_t k_ = 0;
  uint64_t present_ = 0;
  detail::KeyTyping keys_;
};

}  // namespace simdbloom

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif  // SIMDBLOOM_COUNTING_HPP_
