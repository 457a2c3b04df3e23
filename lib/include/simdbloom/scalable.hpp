// SPDX-License-Identifier: Apache-2.0
// simdbloom::ScalableFilter: a Bloom filter that grows with its set, after Almeida, Baquero,
// Preguica and Hutchison, "Scalable Bloom Filters" (Information Processing Letters 101, 2007).
// A chain of plain simdbloom::Filter stages: stage i holds up to initial_capacity * s^i keys at a
// false-positive rate P0 (1 - r) r^i, so the compounded rate of the whole chain stays at or below
// P0 however many keys arrive. The chain's file format is in lib/FORMAT.md ("Scalable chains").
//
// Thread-safety as for Filter: const member functions may run concurrently with each other on one
// chain; a non-const member function needs exclusive access to it. Nothing here starts threads,
// and there is no insert_concurrent (a new stage cannot be added atomically).
#ifndef SIMDBLOOM_SCALABLE_HPP_
#define SIMDBLOOM_SCALABLE_HPP_

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "simdbloom/simdbloom.hpp"

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

namespace simdbloom {

// Parameters of a ScalableFilter besides its first stage's capacity and the target rate.
struct ScalableOptions {
  // s: stage i holds up to initial_capacity * s^i keys (each capacity is the previous one times
  // s, rounded up). 1..16; 2 (the default) doubles the memory at each new stage, 4 adds stages
  // less often at the price of a larger last, partly filled stage.
  double growth = 2;
  // r: stage i is sized for the rate P0 (1 - r) r^i. In (0, 1). Each new stage costs about
  // 1.44 log2(1/r) bits per key more than the previous one; the first costs 1.44 log2(1/(1 - r))
  // more than a plain filter at P0. The default 0.85 (of the paper's 0.8..0.9) takes fewer bits
  // per key than 0.9 for chains of up to 9 full stages, i.e. up to ~500x the initial capacity with
  // s = 2 at 1% (full chains, block512: 14.8 vs 15.9 bits/key at 1 stage, 16.8 vs 17.1 at 7,
  // 17.6 vs 17.7 at 9; tests/scalable_test.cc); 0.9 is cheaper for chains that grow further.
  double tightening = 0.85;
  // The layout of every stage.
  Layout layout = Layout::kBlock512;
  // The seed of every stage (one hash per key serves the whole chain).
  uint64_t seed = 0;
  // What the chain holds (KeyType, as Filter::create): every stage has it.
  KeyType key_type = KeyType::kNone;
};

class ScalableFilter {
 public:
  // Stages a chain can hold. With s = 2 the last one would hold 2^63 x initial_capacity keys,
  // far beyond the 2^32 - 1 blocks a stage may have; with s = 1 it bounds the chain at 64 x
  // initial_capacity keys.
  static constexpr size_t kMaxStages = 64;

  // A chain of one empty stage of `initial_capacity` keys at rate fpp * (1 - r). Throws
  // Error(kInvalidArgument) for initial_capacity == 0, fpp outside (0, 1), growth outside
  // [1, 16], tightening outside (0, 1), fpp * (1 - r) below 1e-9 (what size_for() can size) or an
  // unknown layout; Error(kOutOfMemory). Cost: size_for() and one allocation, as Filter::create.
  static ScalableFilter create(uint64_t initial_capacity, double fpp,
                               ScalableOptions options = ScalableOptions());

  // Moves the stages; the moved-from chain has none: every call with keys (single or bulk), merge
  // and save throw Error(kInvalidArgument). O(1).
  ScalableFilter(ScalableFilter&& other) noexcept;
  ScalableFilter& operator=(ScalableFilter&& other) noexcept;
  // Deep copy of every stage. Cost: one allocation and a copy per stage.
  ScalableFilter(const ScalableFilter&) = default;
  ScalableFilter& operator=(const ScalableFilter&) = default;
  ~ScalableFilter() = default;

  // ---- Single keys (key types as Filter's: integers by value, byte strings) ----
  // insert puts the key into the newest stage, first adding a stage if the newest one holds its
  // capacity. Returns true if the key set a bit that was clear in that stage (a key held only by
  // an older stage can be reported new, and is stored again: the chain does not query its older
  // stages on insert). Cost: as Filter::insert, plus Filter::create when a stage is added
  // (size_for, about 1 ms, and a zeroed allocation of about s times the previous stage). Throws
  // Error(kOutOfMemory) when a new stage cannot be allocated, Error(kCapacityExhausted) when the
  // chain can add no stage (kMaxStages reached, or its size or rate is beyond what Filter::create
  // allows: "capacity exhausted"); the chain is then unchanged and the key not inserted.
  // (`OneKey` selects the caller's probe path, as in Filter: leave it defaulted.)
  template <class OneKey = detail::OneKey>
  bool insert(Key key) {
    KeyType type;
    const uint64_t h = keys_.ForInsert("ScalableFilter::insert", key, seed_,
                                       detail::Xxh3Bitflip(seed_), xxh64(), &type);
    const bool fresh = insert_hash<OneKey>(h);
    if (type != keys_.type()) {  // after the insert: a refused one changes nothing
      keys_.Set(type);
      SyncStages();
    }
    return fresh;
  }
  // contains: whether any stage may hold the key, newest (largest) stage first. O(k) per stage
  // queried, one hash per key, no allocation.
  template <class OneKey = detail::OneKey>
  bool contains(Key key) const {
    uint64_t h;
    if (!keys_.ForQuery("ScalableFilter::contains", key, seed_, detail::Xxh3Bitflip(seed_), xxh64(),
                        &h)) {
      return false;
    }
    return contains_hash<OneKey>(h);
  }

  // A value of hash() (the stages' layout hash with the chain's seed, as Filter::hash).
  template <class OneKey = detail::OneKey>
  bool insert_hash(uint64_t hash) {
    if (stages_.empty() || counts_.back() >= capacities_.back()) AddStage();  // may throw
    const bool fresh = stages_.back().template insert_hash<OneKey>(hash);
    counts_.back() += fresh ? 1 : 0;
    return fresh;
  }
  template <class OneKey = detail::OneKey>
  bool contains_hash(uint64_t hash) const {
    if (stages_.empty()) CheckUsable("contains");  // throws
    for (size_t i = stages_.size(); i-- > 0;) {
      if (stages_[i].template contains_hash<OneKey>(hash)) return true;
    }
    return false;
  }
  // The hash every stage computes for `key`: equal to Filter::hash of a filter of the same
  // layout, seed and key type. O(1) (strings O(size)), no allocation. Throws as Filter::hash.
  uint64_t hash(Key key) const {
    return keys_.ForHash("ScalableFilter::hash", key, seed_, detail::Xxh3Bitflip(seed_), xxh64());
  }
  // What the chain holds (KeyType, as Filter::key_type); every stage has it. O(1).
  KeyType key_type() const noexcept { return keys_.type(); }
  // As Filter::set_key_type, for every stage.
  void set_key_type(KeyType type);

  // ---- Bulk calls over Keys of any shape (see Keys in simdbloom.hpp) ----
  // Keys are validated (Error(kInvalidArgument), as Filter's bulk calls) before anything is
  // written. None allocates: the multi-stage queries work in tiles of 1024 keys on the stack
  // (about 26 KiB: hashes, unfound hashes, result bytes, selections).

  // Inserts every key, in order, into the newest stage; whenever that stage's count of keys that
  // set a new bit reaches its capacity, the batch is split there and the rest goes to a new
  // stage, so no stage ever holds more than its capacity. Returns how many keys set a bit that
  // was clear in their stage; fresh[i] (keys.size() bytes) says it per key. Cost: as
  // Filter::insert; a batch that crosses a stage boundary is cut into pieces of at most the
  // stage's remaining capacity (one Filter call each: about one per boundary, more when many keys
  // of the batch are repeats). Throws as insert(key) when a stage cannot be added: the keys
  // before that point are inserted (and counted), the rest are not.
  uint64_t insert(const Keys& keys);
  uint64_t insert(const Keys& keys, uint8_t* fresh);
  // out[i] = 1 if key i may be present in some stage. Each key is hashed once (pre-hashed keys
  // not at all); the newest (largest) stage is queried for every key of a tile of 1024, each
  // older stage only for the keys no newer stage holds (their hashes gathered into a contiguous
  // array for Filter::contains) - or, while half the tile or more is unfound, for the whole tile
  // with the answers ORed in (cheaper than a gather and a scatter per key) - and a tile stops
  // once all of its keys are found. So a present key costs a stage query or two, an absent key
  // one per stage. A chain of one stage is one Filter call. Returns the number of 1s.
  uint64_t contains(const Keys& keys, uint8_t* out) const;
  // As contains, as an LSB-first bitmap of (keys.size() + 7) / 8 bytes (Filter::contains_bitmap).
  uint64_t contains_bitmap(const Keys& keys, uint8_t* bitmap) const;
  // As contains, as the ascending indices of the keys that may be present; keys.size() <= 2^32.
  uint64_t select(const Keys& keys, uint32_t* selection) const;
  // contains, contains_bitmap and select on threads (see Threads): the same results as the
  // single-threaded call, each thread on its own stretch of the keys (a chain of one stage: the
  // stage's Filter call on threads). Errors are detected before any thread starts. Cost: the
  // single-threaded cost divided among the threads, plus starting them. There is no threaded
  // insert: where a batch is cut into stages depends on how many of its keys, in order, set a new
  // bit, which only one thread in key order can count exactly (and the chain's bytes must not
  // depend on the thread count).
  uint64_t contains(const Keys& keys, uint8_t* out, Threads threads) const;
  uint64_t contains_bitmap(const Keys& keys, uint8_t* bitmap, Threads threads) const;
  uint64_t select(const Keys& keys, uint32_t* selection, Threads threads) const;
  // Keeps, in place and in order, the entries of selection[0 .. count) whose key may be present
  // (Filter::refine); every entry must be below keys.size(). Stages are queried newest first, each
  // only for the entries not yet found; keys are hashed once per stage queried.
  uint64_t refine(const Keys& keys, uint32_t* selection, size_t count) const;

  // ---- The chain ----
  // Parameters as given to create().
  uint64_t initial_capacity() const noexcept { return initial_capacity_; }
  double fpp() const noexcept { return fpp_; }
  double growth() const noexcept { return growth_; }
  double tightening() const noexcept { return tightening_; }
  Layout layout() const noexcept { return layout_; }
  uint64_t seed() const noexcept { return seed_; }
  // Number of stages (1 after create, 0 only when moved from). O(1).
  size_t stages() const noexcept { return stages_.size(); }
  // Stage i (0 = oldest, smallest), a plain read-only Filter: its bits, k, size, statistics.
  // Throws Error(kInvalidArgument) for i >= stages(). O(1).
  const Filter& stage(size_t i) const;
  // Keys stage i may hold at its design rate: initial_capacity * s^i, rounded up stage by stage.
  // O(1) for existing stages; O(i) otherwise (any i < kMaxStages; Error(kInvalidArgument) beyond;
  // 0 where it would exceed 2^62).
  uint64_t stage_capacity(size_t i) const;
  // The rate stage i is sized for: fpp * (1 - r) * r^i. O(i), no allocation.
  double stage_fpp(size_t i) const;
  // Keys inserted into stage i that set a bit that was clear there (the count that triggers a new
  // stage; never above stage_capacity(i)). Throws Error(kInvalidArgument) for i >= stages().
  uint64_t stage_count(size_t i) const;
  // Sum of stage_count over the stages: the distinct keys the chain holds, counted at insert
  // (a key that was a false positive of the newest stage, or repeated, is not counted). O(stages).
  uint64_t count() const noexcept;
  // Estimate of the distinct keys from the stages' bits: the sum of Filter::approximate_count.
  // O(size_bytes()).
  double approximate_count() const noexcept;
  // Bytes of the stages' bit arrays. O(stages).
  size_t size_bytes() const noexcept;
  // Memory per key: 8 * size_bytes() / count() bits (0 for an empty chain). O(stages).
  double bits_per_key() const noexcept;
  // False-positive rate of the chain for a random absent key from the actual bits:
  // 1 - prod_i (1 - stage(i).expected_fpp()), treating the stages as independent (they hold
  // different keys; the union bound, the sum of the stages' rates, is at most a few percent
  // above it at these rates). O(size_bytes()).
  double expected_fpp() const noexcept;
  // Drops every stage but the first and clears it: the chain as create() made it, same bits as a
  // new one. O(first stage's size); frees the others.
  void clear();

  // ---- Merge ----
  // Union with `other`, stage by stage (OR of stage i with stage i), offered only where it keeps
  // the rate bound: both chains have the same parameters (initial capacity, fpp, growth,
  // tightening, layout, seed; bit for bit), and for every stage i, stage_count(i) +
  // other.stage_count(i) <= stage_capacity(i) (the merged stage then holds at most its capacity
  // of keys, the model its size was chosen by). Every stage but the newest of a chain is full, so
  // this holds in practice for chains of one stage whose counts add up to at most the initial
  // capacity (e.g. shards of a set known to stay small); merging two grown chains would put up to
  // twice its capacity into a stage and break the bound, so it is refused with
  // Error(kIncompatible) naming the parameter or the stage. The counts add (an upper bound of the
  // merged stage's distinct keys). Cost: O(size_bytes()); allocates copies of stages only
  // `other` has.
  void merge(const ScalableFilter& other);
  // Whether merge(other) would succeed. O(stages), no allocation.
  bool can_merge(const ScalableFilter& other) const noexcept;

  // ---- Persistence (FORMAT.md, "Scalable chains": magic SIMDBSCL) ----
  // Bytes save() writes: a 64-byte header, 16 bytes per stage, then each stage in the Filter file
  // format. O(stages).
  size_t serialized_size() const noexcept;
  // Writes the chain. Cost: a checksum pass over every stage and a write of serialized_size()
  // bytes. Throws Error(kIo) if the stream or file fails. save_file as Filter::save_file (atomic
  // replacement).
  void save(std::ostream& out) const;
  void save_file(const std::string& path) const;
  // The same bytes in a vector (one allocation of serialized_size()).
  std::vector<uint8_t> to_bytes() const;
  // Reads a chain, validating every field and checksum before it is returned: the header and
  // stage table (sizes checked against the input before anything is allocated), then each stage
  // as Filter::load does, and that each stage's layout and seed are the chain's, its count at most
  // its capacity and its predicted rate at that capacity at most its share of fpp. Throws
  // Error(kFormat) for anything that is not one complete, valid chain (never reads past the
  // input), Error(kOutOfMemory). Cost: one allocation and copy of each stage, checksum passes,
  // the FPR model once per stage. load(istream) stages one stage at a time (transient memory: the
  // largest stage), allocated only once the stage's payload has arrived and matched its checksum
  // (checked in 4 MiB pieces, as Filter::load); a seekable stream is measured first. Error(kIo) as
  // Filter::load.
  static ScalableFilter from_bytes(const uint8_t* data, size_t size);
  static ScalableFilter load(std::istream& in);
  static ScalableFilter load_file(const std::string& path);

 private:
  ScalableFilter() = default;
  friend struct ScalableAccess;
  friend struct ScalableBulk;
  void AddStage();
  // Gives every stage the chain's key type.
  void SyncStages() noexcept;
  bool xxh64() const noexcept { return layout_ == Layout::kSplitBlock256; }
  void CheckUsable(const char* who) const;
  uint64_t InsertImpl(const Keys& keys, uint8_t* fresh);
  // Queries the keys whose indices are entries[0 .. m) (< keys.size()), or, with entries null,
  // the m pre-hashed keys of a tile; hit[j] = 1 for entry j found in some stage (hit holds m
  // bytes). `newest_done`: hit already holds the newest stage's answers for every entry.
  void QueryEntries(const Keys& keys, const uint32_t* entries, size_t m, uint8_t* hit,
                    bool newest_done) const;

  std::vector<Filter> stages_;
  std::vector<uint64_t> counts_;
  std::vector<uint64_t> capacities_;
  uint64_t initial_capacity_ = 0;
  double fpp_ = 0;
  double growth_ = 2;
  double tightening_ = 0.85;
  Layout layout_ = Layout::kBlock512;
  uint64_t seed_ = 0;
  detail::KeyTyping keys_;
};

}  // namespace simdbloom

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif  // SIMDBLOOM_SCALABLE_HPP_
