// SPDX-License-Identifier: Apache-2.0
// Shifting Bloom filters for set queries beyond membership (Yang, Liu, Shahzad et al., "A Shifting
// Bloom Filter Framework for Set Queries", VLDB 2016): ShBF_A answers which of two sets holds a key
// and ShBF_x how many times a key occurs in a multiset, from one bit array, by encoding the answer
// in an offset o(e) that shifts where a key's bits go. (Membership alone, ShBF_M, is
// simdbloom::Layout::kShifting of Filter.) lib/FORMAT.md, "Shifting set filters", specifies the
// bits; this header is SIMD-free.
//
// Geometry shared by both (chosen for the cache line; the paper leaves it open): a key owns one
// 512-bit block (8 u64 words, one cache line) chosen by hi32(h), and sets one bit in each of the 8
// words, bit (b_w + o) mod 64 with b_w = lo32(lo32(h) * M[w]) >> 26. Because the offset rotates
// inside each word, a query reads the key's 8 words once and gets every candidate offset at once:
// AND over w of rotr(W[w], b_w) has bit o set iff the pattern at offset o is complete. k is
// therefore fixed at 8 (one bit per word); the size sets the error rates.
//
// Thread-safety: const calls may run concurrently with each other; insert must not run
// concurrently with anything on the same object. Objects are movable, not copyable; every key call
// on a moved-from object (insert, query, count, single or bulk) and save throw
// Error(kInvalidArgument) "CALL: the filter was moved from".
#ifndef SIMDBLOOM_SHIFTING_HPP_
#define SIMDBLOOM_SHIFTING_HPP_

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "simdbloom/simdbloom.hpp"

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

namespace simdbloom {

namespace detail {
struct FreeDeleter {
  void operator()(void* p) const noexcept;
};
// The bit array and hashing both set filters share (lib/kinds/shifting_sets.cc).
class ShiftingBlocks {
 public:
  ShiftingBlocks() = default;
  ShiftingBlocks(uint64_t num_blocks,
                 uint64_t seed);  // zeroed; throws kInvalidArgument/kOutOfMemory
  uint64_t hash(uint64_t key) const noexcept;
  uint64_t hash(std::string_view key) const noexcept;
  // Sets the key's 8 bits at offset o (0..63).
  void set(uint64_t h, uint32_t o) noexcept;
  // Bit o set iff the key's pattern at offset o is complete.
  uint64_t candidates(uint64_t h) const noexcept;
  uint64_t num_blocks() const noexcept { return num_blocks_; }
  uint64_t seed() const noexcept { return seed_; }
  const uint64_t* words() const noexcept { return words_.get(); }
  uint64_t* words() noexcept { return words_.get(); }
  // What the filter holds (KeyType) and its rules.
  const KeyTyping& typing() const noexcept { return typing_; }
  KeyTyping& typing() noexcept { return typing_; }
  uint64_t flip() const noexcept { return Xxh3Bitflip(seed_); }
  // The hash of a key for hash(): by the key type, throwing where it has none.
  uint64_t HashFor(const char* who, Key key) const {
    return typing_.ForHash(who, key, seed_, flip(), false);
  }

 private:
  KeyTyping typing_;
  std::unique_ptr<uint64_t[], FreeDeleter> words_;
  uint64_t num_blocks_ = 0;
  uint64_t seed_ = 0;
};
}  // namespace detail

// The probability that a given set of t patterns (t bits in each word of a block, distinct) are
// all set in a shifting set filter holding `keys` keys in `num_blocks` blocks: the blocked form of
// the paper's f^t, sum over the block's Poisson(keys / num_blocks) load L of P(t given bits of a
// 64-bit word are all set after L uniform throws)^8. F(0) = 1; F(1) is the false-positive rate of
// one pattern. O((L range) * t) time, no allocation. Throws Error(kInvalidArgument) for t > 64 or
// num_blocks == 0.
double shifting_patterns_set_probability(uint32_t t, double keys, uint64_t num_blocks);

// ShBF_A: which of two sets S1, S2 holds a key. A key of S1 only is inserted at offset 0, of both
// at o1(e) in 1..31, of S2 only at o2(e) = o1(e) + 1..31 (the paper's three offsets with w̄ = 64:
// o1 = 1 + h'(e) mod 31, o2 = o1 + 1 + h''(e) mod 31, here by multiply-high instead of mod). A
// query reports every offset whose pattern is complete: one bit for a clear answer, two or three
// when false positives make it ambiguous, none for a key in neither set.
class ShiftingAssociation {
 public:
  // Candidate bits of an answer (any combination; 0 = in neither set).
  static constexpr uint8_t kOnlyFirst = 1;   // S1 \ S2
  static constexpr uint8_t kBoth = 2;        // S1 ∩ S2
  static constexpr uint8_t kOnlySecond = 4;  // S2 \ S1
  // Exactly one candidate: the answer is certain for a key of S1 ∪ S2.
  static bool is_clear(uint8_t answer) noexcept {
    return answer != 0 && (answer & (answer - 1)) == 0;
  }

  // An empty filter sized for `expected_items` keys of S1 ∪ S2 so that one wrong pattern is
  // complete with probability at most `fpp` (the paper's f; then a key of S1 ∪ S2 gets a clear
  // answer with probability about 1 - 2 fpp). Throws Error(kInvalidArgument) for
  // expected_items == 0, fpp outside [1e-9, 1) or more than 2^32 - 1 blocks; kOutOfMemory.
  // `key_type`: what the filter holds (KeyType, as Filter::create).
  static ShiftingAssociation create(uint64_t expected_items, double fpp, uint64_t seed = 0,
                                    KeyType key_type = KeyType::kNone);
  // `bits` rounded up to whole 512-bit blocks. Throws as create.
  static ShiftingAssociation with_bits(uint64_t bits, uint64_t seed = 0,
                                       KeyType key_type = KeyType::kNone);
  // Sized by create(|S1 ∪ S2|, fpp) and filled with both sets (duplicates allowed). Cost:
  // O((|s1| + |s2|) log) to sort copies of the keys (allocates them), then one bulk insert per
  // membership.
  static ShiftingAssociation build(Span<const uint64_t> s1, Span<const uint64_t> s2, double fpp,
                                   uint64_t seed = 0);

  // Keys follow the rules of every class (KeyType, detail/keys.hpp): an integer key is its value
  // (insert(uint32_t{7}), int64_t{7} and a bulk call over any integer array agree), byte strings
  // their bytes, Keys any bulk shape (Prehashed: values of hash()).

  // Inserts a key with its membership: kOnlyFirst, kBoth or kOnlySecond (else
  // Error(kInvalidArgument)). A key must be inserted with one membership only (the paper's
  // ShBF_A has no update). O(1): one cache line.
  void insert(Key key, uint8_t membership) {
    KeyType type;
    insert_hash(blocks_.typing().ForInsert("ShiftingAssociation::insert", key, blocks_.seed(),
                                           blocks_.flip(), false, &type),
                membership);
    blocks_.typing().Set(type);  // after the insert: a refused one changes nothing
  }
  void insert_hash(uint64_t hash, uint8_t membership);
  // Inserts every key of `keys` (any shape: integers of 2, 4 or 8 bytes, strings, Arrow offsets,
  // fixed-width records, pre-hashed) with one membership: hashed in tiles (vectorized XXH3 of the
  // active target for integers), each key's line prefetched 64 keys ahead. Keys are checked as
  // Filter's bulk calls check them (Error(kInvalidArgument)) before any bit changes. No
  // allocation; O(n).
  void insert(const Keys& keys, uint8_t membership);

  // The candidate bits of a key (see above). O(1): one cache line, 8 rotates; no allocation.
  uint8_t query(Key key) const {
    uint64_t h;
    if (!blocks_.typing().ForQuery("ShiftingAssociation::query", key, blocks_.seed(),
                                   blocks_.flip(), false, &h)) {
      return 0;
    }
    return query_hash(h);
  }
  uint8_t query_hash(uint64_t hash) const;
  // out[i] = query(key i), keys of any shape (as insert). Dispatches to the best SIMD target
  // (simdbloom::active_target()): keys hashed 2048 at a time (vectorized XXH3 for integers, 32 KiB
  // of stack), then run through the tile pipeline: each key's line prefetched 64 keys ahead, its 8
  // words rotated and ANDed as one vector (kernels/shbf_ax/kernels.cc; the reference target:
  // a scalar loop). Same answers on every target. No allocation; O(n). Throws
  // Error(kInvalidArgument) for keys Filter's bulk calls refuse, Error(kUnknownTarget) only if
  // SIMDBLOOM_TARGET names no usable target.
  void query(const Keys& keys, uint8_t* out) const;
  // query on threads (see Threads): the same bytes as the single-threaded call, each thread on a
  // contiguous share of the keys; errors are detected before any thread starts. Thread-safe with
  // other readers (shared access), not with a writer.
  void query(const Keys& keys, uint8_t* out, Threads threads) const;

  // XXH3-64 of the key with seed(): integers by key_type() (as Filter::hash, throwing as it
  // does), strings their bytes. O(1).
  uint64_t hash(Key key) const { return blocks_.HashFor("ShiftingAssociation::hash", key); }
  // What the filter holds (KeyType, as Filter::key_type); saved in its file. O(1).
  KeyType key_type() const noexcept { return blocks_.typing().type(); }
  // As Filter::set_key_type.
  void set_key_type(KeyType type) {
    blocks_.typing().Declare("ShiftingAssociation::set_key_type", type);
  }

  // Model (blocked form of the paper's analysis, at the keys inserted so far):
  // probability that a key of S1 ∪ S2 gets a clear answer, 1 - 2 F(1) + F(2) (the paper's
  // (1 - f)^2 with f = F(1), which treats the two wrong patterns as independent; here the pair
  // shares the block's load, F(2) >= F(1)^2). O(L range).
  double clear_answer_probability() const;
  // The paper's form (1 - f)^2, for comparison.
  double paper_clear_answer_probability() const;
  // Probability that a key in neither set gets a non-zero answer: 3 F(1) - 3 F(2) + F(3).
  double false_positive_probability() const;

  uint64_t items() const noexcept { return items_; }  // inserts so far
  uint64_t num_blocks() const noexcept { return blocks_.num_blocks(); }
  uint64_t bit_count() const noexcept { return blocks_.num_blocks() * 512; }
  uint64_t seed() const noexcept { return blocks_.seed(); }
  const uint8_t* data() const noexcept { return reinterpret_cast<const uint8_t*>(blocks_.words()); }

  // Persistence (lib/FORMAT.md, "Shifting set filters"): magic "SIMDSHBA". load validates every
  // field and the checksum; a bad input is Error(kFormat), never a crash or an over-read. Both
  // O(size), allocating the result.
  std::string save() const;
  static ShiftingAssociation load(const void* bytes, size_t size);
  // The same from a stream (a file or a pipe): the 64-byte header, then the payload it claims
  // read as FORMAT.md's "File format" says (4 MiB pieces, allocated once they arrived and matched
  // the checksum), so memory follows the bytes present, never the claim. Bytes past the payload
  // are Error(kFormat); a failing stream Error(kIo).
  static ShiftingAssociation load(std::istream& in);
  // save() into `path`, atomically (a temporary file renamed over it: on any failure the old file
  // is unchanged), and the bytes of `path` through load(). Error(kIo) names the path and the
  // reason. O(size).
  void save_file(const std::string& path) const;
  static ShiftingAssociation load_file(const std::string& path);

 private:
  ShiftingAssociation(uint64_t num_blocks, uint64_t seed) : blocks_(num_blocks, seed) {}
  detail::ShiftingBlocks blocks_;
  uint64_t items_ = 0;
};

// ShBF_x: the multiplicity of a key in a multiset, 1..max_count (max_count <= 64): a key with count
// x is inserted at offset x - 1. A query finds every complete pattern among offsets 0..max_count-1
// and reports the smallest (the paper's rule as we read it): a false positive at an offset below
// the true one makes it report too small a count; one above it is never seen. So the answer is
// never larger than the true count for a key of the multiset; a key not in it gets 0 unless some
// pattern is complete by chance (then a count is reported for it).
class ShiftingMultiplicity {
 public:
  // An empty filter for `expected_items` distinct keys with counts up to max_count (1..64), sized
  // so that one wrong pattern is complete with probability at most fpp. Throws
  // Error(kInvalidArgument) for expected_items == 0, max_count outside 1..64, fpp outside
  // [1e-9, 1); kOutOfMemory.
  static ShiftingMultiplicity create(uint64_t expected_items, double fpp, uint32_t max_count,
                                     uint64_t seed = 0, KeyType key_type = KeyType::kNone);
  static ShiftingMultiplicity with_bits(uint64_t bits, uint32_t max_count, uint64_t seed = 0,
                                        KeyType key_type = KeyType::kNone);
  // From a multiset (each occurrence once in `keys`): counts by sorting a copy (allocates), sized
  // by create(distinct, fpp, max_count), then one bulk insert per count. A key occurring more than
  // max_count times is Error(kInvalidArgument) (the paper's ShBF_x has no saturation; choose
  // max_count to cover it).
  static ShiftingMultiplicity build(Span<const uint64_t> keys, double fpp, uint32_t max_count,
                                    uint64_t seed = 0);

  // Keys as ShiftingAssociation's (detail/keys.hpp).
  // Inserts a key with its count 1..max_count (else Error(kInvalidArgument)). A key must be
  // inserted once, with its final count. O(1).
  void insert(Key key, uint32_t count) {
    KeyType type;
    insert_hash(blocks_.typing().ForInsert("ShiftingMultiplicity::insert", key, blocks_.seed(),
                                           blocks_.flip(), false, &type),
                count);
    blocks_.typing().Set(type);  // after the insert: a refused one changes nothing
  }
  void insert_hash(uint64_t hash, uint32_t count);
  // Inserts every key of `keys` (any shape) with one count (as ShiftingAssociation's bulk insert).
  void insert(const Keys& keys, uint32_t count);

  // The smallest candidate count, 0 if none. O(1): one cache line; no allocation.
  uint32_t count(Key key) const {
    uint64_t h;
    if (!blocks_.typing().ForQuery("ShiftingMultiplicity::count", key, blocks_.seed(),
                                   blocks_.flip(), false, &h)) {
      return 0;
    }
    return count_hash(h);
  }
  uint32_t count_hash(uint64_t hash) const;
  // out[i] = count(key i), keys of any shape; dispatched like ShiftingAssociation::query. No
  // allocation; O(n).
  void count(const Keys& keys, uint32_t* out) const;
  // count on threads, as ShiftingAssociation::query on threads.
  void count(const Keys& keys, uint32_t* out, Threads threads) const;

  // As ShiftingAssociation::hash.
  uint64_t hash(Key key) const { return blocks_.HashFor("ShiftingMultiplicity::hash", key); }
  KeyType key_type() const noexcept { return blocks_.typing().type(); }
  void set_key_type(KeyType type) {
    blocks_.typing().Declare("ShiftingMultiplicity::set_key_type", type);
  }

  // Model: probability that a key inserted with count x (1..max_count) is reported as x: none of
  // the x - 1 patterns below it complete, sum_t (-1)^t C(x-1, t) F(t) (the paper's (1 - f)^(x-1)
  // when the patterns are taken as independent). Throws Error(kInvalidArgument) for x outside
  // 1..max_count.
  double correct_probability(uint32_t x) const;
  // Probability that a key not in the multiset gets a non-zero count.
  double false_positive_probability() const;

  uint32_t max_count() const noexcept { return max_count_; }
  uint64_t items() const noexcept { return items_; }
  uint64_t num_blocks() const noexcept { return blocks_.num_blocks(); }
  uint64_t bit_count() const noexcept { return blocks_.num_blocks() * 512; }
  uint64_t seed() const noexcept { return blocks_.seed(); }
  const uint8_t* data() const noexcept { return reinterpret_cast<const uint8_t*>(blocks_.words()); }

  // Persistence: magic "SIMDSHBX" (as ShiftingAssociation).
  std::string save() const;
  static ShiftingMultiplicity load(const void* bytes, size_t size);
  static ShiftingMultiplicity load(std::istream& in);  // as ShiftingAssociation's
  void save_file(const std::string& path) const;       // as ShiftingAssociation's
  static ShiftingMultiplicity load_file(const std::string& path);

 private:
  ShiftingMultiplicity(uint64_t num_blocks, uint32_t max_count, uint64_t seed)
      : blocks_(num_blocks, seed), max_count_(max_count) {}
  detail::ShiftingBlocks blocks_;
  uint32_t max_count_ = 1;
  uint64_t items_ = 0;
};

}  // namespace simdbloom

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif  // SIMDBLOOM_SHIFTING_HPP_
