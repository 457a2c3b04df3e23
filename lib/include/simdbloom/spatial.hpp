// SPDX-License-Identifier: Apache-2.0
// simdbloom::SpatialFilter: a spatial Bloom filter (Calderoni, Palmieri, Maio, "Spatial Bloom
// Filters: Enabling Privacy in Location-aware Applications", 2014/2015): one array of small
// integer cells instead of bits, holding keys of up to 65535 disjoint sets ("areas", labels
// 1..num_areas); a query answers which area a key is in (0: none), with the paper's a-priori
// error probabilities per area. Same key shapes (Keys), hashing (XXH3 with the filter's seed) and
// run-time SIMD dispatch as Filter. lib/FORMAT.md ("Spatial filter") specifies the cells, the
// formulas and the file format.
//
// Geometry (our choice where the paper leaves one open; FORMAT.md says why): cells of 1 byte when
// num_areas <= 255, else 2 bytes (the paper's rule); cells are blocked: a key's k (1..8) cells lie
// in one block of 64 cells (one 64-byte cache line for 1-byte cells, two adjacent lines for 2-byte
// cells), one cell in each of k of the block's 8 groups of 8, so a key costs one memory access.
// Blocking needs more cells per key than the paper's unblocked array (12.4 instead of 9.6 at 1%,
// 24.7 instead of 14.4 at 0.1%), and its formulas are the paper's with the blocks' Poisson loads
// in place of (1 - 1/m)^(kn) (stats()).
//
// Thread-safety as Filter: const calls may run concurrently; insert needs exclusive access.
#ifndef SIMDBLOOM_SPATIAL_HPP_
#define SIMDBLOOM_SPATIAL_HPP_

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
namespace detail {
// The one-key path of SpatialFilter::classify where the inline one does not go (2-byte cells,
// callers compiled without AVX2, string keys, classify_hash): the smallest of hash h's k cells.
// Pure (it reads the cells and writes nothing a caller sees; its first call may initialise the
// SIMD target selection, which changes no result), so a caller's loop keeps the filter's fields
// in registers.
SIMDBLOOM_PURE uint32_t SpatialClassifyOutOfLine(const uint8_t* cells, uint64_t num_blocks,
                                                 uint32_t k, uint32_t cell_bytes,
                                                 uint64_t h) noexcept;
}  // namespace detail

// One area's numbers (SpatialFilter::stats()). "A priori" values come from the paper's formulas
// (blocked form, FORMAT.md) with the filter's size, k and members per area; "measured" ones from
// the cells (only when stats(true) was asked; else 0).
struct SpatialAreaStats {
  uint16_t label = 0;
  // Keys inserted with this label (repeats included).
  uint64_t members = 0;
  // A priori: probability that a cell written by this area keeps its label (is not overwritten by a
  // higher area), the paper's expected emersion.
  double expected_emersion = 0;
  // A priori: probability that a key in no area is classified as this area.
  double apriori_fpp = 0;
  // A priori: probability that a key of this area is classified as a higher one (inter-set error;
  // a key is never classified lower than its own area, never 0).
  double apriori_isep = 0;
  // A priori: expected cells holding the label once every area is inserted.
  double expected_cells = 0;
  // Cells raised to this label by its inserts (each cell counted once per raise; counted by insert,
  // always available).
  uint64_t cells_written = 0;
  // Measured: cells holding the label; emersion = cells / cells_written (the paper's a-posteriori
  // emersion; 1 when nothing was written); fpp = the paper's a-posteriori false-positive
  // probability of this cell array for a random key in no area (blocked form, FORMAT.md).
  uint64_t cells = 0;
  double emersion = 0;
  double fpp = 0;
};

struct SpatialStats {
  uint64_t num_cells = 0;   // 64 per block
  uint32_t cell_bytes = 0;  // 1 or 2
  uint32_t k = 0;           // cells per key
  uint64_t members = 0;     // keys inserted, all areas
  // A priori: probability that a key in no area is classified as some area.
  double apriori_fpp = 0;
  // Whether the measured fields below and in `areas` were computed (stats(true)).
  bool measured = false;
  double sparsity = 0;  // measured: fraction of empty cells
  double fpp = 0;       // measured: a-posteriori probability a key in no area gets a label
  std::vector<SpatialAreaStats> areas;  // areas[i] is label i + 1
};

class SpatialFilter {
 public:
  // A filter for `expected_items` keys in all (at most) `num_areas` areas, sized so that a key in
  // no area gets a label with probability at most kSizingHeadroom * fpp (the blocked formula over
  // k = 1..8, smallest size wins). Throws Error(kInvalidArgument) for expected_items == 0, fpp
  // outside [1e-9, 1), num_areas outside 1..65535 or a size beyond 2^32 - 1 blocks;
  // Error(kOutOfMemory). Cost: one zeroed allocation of size_bytes() (+ 16 bytes per area).
  // `key_type`: what the filter holds (KeyType, as Filter::create).
  static SpatialFilter create(uint64_t expected_items, double fpp, uint32_t num_areas,
                              uint64_t seed = 0, KeyType key_type = KeyType::kNone);
  // A filter of `num_blocks` blocks of 64 cells and k cells per key (1..8). Same errors.
  static SpatialFilter with_blocks(uint64_t num_blocks, uint32_t k, uint32_t num_areas,
                                   uint64_t seed = 0, KeyType key_type = KeyType::kNone);

  SpatialFilter(const SpatialFilter& other);
  SpatialFilter& operator=(const SpatialFilter& other);
  SpatialFilter(SpatialFilter&& other) noexcept;
  SpatialFilter& operator=(SpatialFilter&& other) noexcept;
  ~SpatialFilter();

  // ---- Insert: areas in ascending label order ----
  // Writes `label` (1..num_areas()) into each key's k cells (a cell keeps the largest label
  // written). Labels must come in ascending order, as the paper requires: any number of calls with
  // one label, then the next (a call moves current_label() to its label even with no keys); a
  // label below current_label() throws Error(kInvalidArgument)
  // (the filter is unchanged), as does a label outside 1..num_areas(), a null pointer with a
  // non-zero size, bad Arrow offsets or FixedWidth geometry. Returns the number of cells raised.
  // Bulk: the tile pipeline of the active SIMD target (hashed a tile ahead, blocks prefetched
  // ahead at the distance measured for the filter's size); no allocation; O(n k), about one
  // cache miss per key out of cache.
  uint64_t insert(uint16_t label, const Keys& keys);
  // One key (an integer key type or a byte string, as Filter). Same rules; O(k).
  uint64_t insert(uint16_t label, Key key) {
    KeyType type;
    const uint64_t raised =
        insert_hash(label, keys_.ForInsert("SpatialFilter::insert", key, seed_,
                                           detail::Xxh3Bitflip(seed_), false, &type));
    keys_.Set(type);  // after the insert: a refused one changes nothing
    return raised;
  }
  uint64_t insert_hash(uint16_t label, uint64_t hash);

  // ---- Classify ----
  // labels[i] = the area of key i: the smallest of its k cells, 0 if one is empty (in no area).
  // A key of area a gets a, or with probability apriori_isep a higher label; a key in no area
  // gets 0, or a label with probability apriori_fpp of that label. `labels` holds keys.size()
  // values and may be unaligned. Returns the number of non-zero labels. Runs on the active SIMD
  // target (results equal the reference's on every target); no allocation; O(n k), about one
  // cache miss per key out of cache. Errors as insert's (before anything is written).
  uint64_t classify(const Keys& keys, uint16_t* labels) const;
  // classify on threads (see Threads): the same labels and result as the single-threaded call,
  // each thread on a contiguous share of the keys; errors are detected before any thread starts.
  // Thread-safe with other readers (shared access), not with a writer. Cost: the single-threaded
  // cost divided among the threads, plus starting them (a thread each).
  uint64_t classify(const Keys& keys, uint16_t* labels, Threads threads) const;
  // One key; O(k), no allocation. Inline where the cells are 1 byte and the calling code is
  // compiled for AVX2 or AVX-512 (-march=x86-64-v3 / -v4 / native): the key's cells are read in
  // one or two vectors (detail/one_key.hpp); other callers make one call to the library's one-key
  // path (the active target's kernel for 1-byte cells on x86 with AVX2 at run time, else a loop
  // over the k cells). Same answer on every path; figures in perf/README.md, section single.
  // (`OneKey` selects the path: leave it defaulted.)
  template <class OneKey = detail::OneKey>
  SIMDBLOOM_INLINE uint16_t classify(Key key) const {
    uint64_t h;
    const bool hashed = keys_.ForQuery("SpatialFilter::classify", key, seed_,
                                       detail::Xxh3Bitflip(seed_), false, &h);
    if (cells_ == nullptr) RefuseQuery("classify");
    if (!hashed) return 0;
    if constexpr (OneKey::kInlineCells) {
      if (cell_bytes_ == 1) {
        return static_cast<uint16_t>(
            OneKey::SpatialClassify8(cells_ + 64 * detail::BlockOf(h, num_blocks_), h, k_));
      }
    }
    return static_cast<uint16_t>(
        detail::SpatialClassifyOutOfLine(cells_, num_blocks_, k_, cell_bytes_, h));
  }
  uint16_t classify_hash(uint64_t hash) const;

  // The hash insert and classify compute first (XXH3 of the key's little-endian bytes with the
  // filter's seed, as Filter's block512): pass such values as Prehashed keys to hash once.
  // By key_type(), as Filter::hash (and throwing as it does).
  uint64_t hash(Key key) const {
    return keys_.ForHash("SpatialFilter::hash", key, seed_, detail::Xxh3Bitflip(seed_), false);
  }
  // What the filter holds (KeyType, as Filter::key_type); saved in its file. O(1).
  KeyType key_type() const noexcept { return keys_.type(); }
  // As Filter::set_key_type.
  void set_key_type(KeyType type) { keys_.Declare("SpatialFilter::set_key_type", type); }

  // ---- Statistics ----
  // The paper's per-area a-priori emersion, false-positive and inter-set error probabilities
  // (FORMAT.md gives the blocked formulas), members and cells written per area. O(num_areas) exp()
  // evaluations (a few hundred each) and one allocation. With measure = true also the measured
  // values (cells per area, a-posteriori emersion and false-positive probabilities, sparsity): one
  // pass over the cells, O(size_bytes() x distinct labels per block), plus 8 bytes per area.
  SpatialStats stats(bool measure = false) const;

  // ---- Geometry ----
  uint32_t num_areas() const noexcept { return num_areas_; }
  uint32_t num_hashes() const noexcept { return k_; }
  uint64_t num_blocks() const noexcept { return num_blocks_; }
  uint64_t num_cells() const noexcept { return num_blocks_ * 64; }
  uint32_t cell_bytes() const noexcept { return cell_bytes_; }
  uint64_t seed() const noexcept { return seed_; }
  // The highest label inserted so far (0: none); insert accepts labels from it up.
  uint16_t current_label() const noexcept { return current_; }
  // The cells: num_cells() little-endian u8 or u16 values, 64-byte aligned.
  const uint8_t* data() const noexcept { return cells_; }
  size_t size_bytes() const noexcept { return static_cast<size_t>(num_cells() * cell_bytes_); }
  // Keys inserted with `label` (repeats included); 0 for labels outside 1..num_areas() and on a
  // moved-from filter.
  uint64_t members(uint16_t label) const noexcept;
  // Probability that a key in no area gets a label after `n` keys (all areas together).
  double predicted_fpp(uint64_t n) const;

  // ---- Area names ----
  // Names the area `label` (1..num_areas()): any bytes, at most kMaxAreaNameBytes; "" removes
  // the name. Names are saved with the filter (a file with names is format version 2, see
  // save()); they take no part in insert or classify, and may be set at any time, for areas
  // inserted or not. Throws Error(kInvalidArgument) for a label outside 1..num_areas(), a longer
  // name or a moved-from filter (the filter unchanged). Cost: O(name size); the first name
  // allocates one (empty) string per area.
  static constexpr size_t kMaxAreaNameBytes = 65535;
  void set_area_name(uint16_t label, std::string_view name);
  // The name of area `label`; "" for an area without one and for labels outside 1..num_areas().
  // Valid until the name is set again or the filter is destroyed. O(1), no allocation.
  std::string_view area_name(uint16_t label) const noexcept;
  // Whether some area has a name (save() then writes format version 2). O(num_areas()).
  bool has_area_names() const noexcept;

  // ---- Persistence (FORMAT.md, "Spatial filter: file format") ----
  // A 64-byte header (magic "SIMDBSBF"), the cells, then 16 bytes per area (members, cells
  // written); with area names (has_area_names()), then the names table: 16 bytes and 2 + size
  // bytes per area. O(1) without names, O(num_areas()) with them.
  size_t serialized_size() const noexcept;
  // Writes the filter: format version 1 when no area has a name (byte for byte what versions
  // without names wrote), version 2 (version 1 + the names table) otherwise. Cost: a checksum pass
  // and a write. Throws Error(kIo) if the stream fails. save_file as Filter::save_file (atomic
  // replacement).
  void save(std::ostream& out) const;
  void save_file(const std::string& path) const;
  // Reads a saved filter of version 1 or 2, validating every header field, the sizes (before
  // allocating anything), the checksums, the cells (none above the highest label inserted) and
  // every length of the names table. Error(kFormat) for anything that is not a complete valid
  // spatial filter (never reads past the input), Error(kIo) for unreadable paths or failing
  // streams, Error(kOutOfMemory). Cost: one allocation, a copy, a checksum pass and a pass over the
  // cells; from a stream, the payload (and the names table) is first checked in 4 MiB pieces,
  // before anything of its size is allocated (as Filter::load).
  static SpatialFilter load(const uint8_t* data, size_t size);
  static SpatialFilter load(std::istream& in);
  static SpatialFilter load_file(const std::string& path);

 private:
  SpatialFilter(uint64_t num_blocks, uint32_t k, uint32_t num_areas, uint64_t seed);
  void CheckLabel(const char* who, uint16_t label) const;
  [[noreturn]] SIMDBLOOM_COLD void RefuseQuery(const char* who) const;
  void Release() noexcept;
  uint8_t* cells_ = nullptr;
  uint64_t num_blocks_ = 0;
  uint64_t seed_ = 0;
  uint32_t k_ = 0;
  uint32_t cell_bytes_ = 1;
  uint32_t num_areas_ = 0;
  uint16_t current_ = 0;
  detail::KeyTyping keys_;
  // Per area (index label - 1): keys inserted and cells raised.
  std::vector<uint64_t> members_;
  std::vector<uint64_t> written_;
  // Area names (index label - 1): empty until the first set_area_name, then num_areas_ strings.
  std::vector<std::string> names_;
};

}  // namespace simdbloom

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif  // SIMDBLOOM_SPATIAL_HPP_
