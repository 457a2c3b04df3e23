// SPDX-License-Identifier: Apache-2.0
// Internal (not installed): the one bulk entry point every kind's bulk calls go through. RunBulk
// makes the checks (moved from, no keys, null output, select's limit, the keys, the output's
// extent; one message each), plans the keys, makes their KeySource (SourceOf), takes the kind's
// parameters with the prefetch distance measured on first use (DistanceOf) and tuned in large
// calls (DistanceTuner, lib/core/prefetch.h), runs the kernel over the keys in pieces (byte
// strings in chunks hashed ahead: OverHashedChunks), on threads when asked, and writes each
// piece's results in their place (bytes, bitmap, selection, counts, labels, per-key flags).
// A kind describes itself to it by a traits struct (see BulkTraits below). Filter (bulk.cc),
// CountingFilter, SpatialFilter, the shifting set filters and ScalableFilter's chain queries
// (lib/kinds/*_bulk.cc) use it; the last two as kinds that hash first (kHashFirst: a tile of
// hashes per RunTile, HashTile).
#ifndef SIMDBLOOM_LIB_CORE_DRIVER_H_
#define SIMDBLOOM_LIB_CORE_DRIVER_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernels/interface.h"
#include "lib/core/bulk.h"
#include "lib/core/key_source.h"
#include "lib/core/key_types.h"
#include "lib/core/prefetch.h"

namespace simdbloom {
namespace detail {

static_assert(DistanceTuner::kMinTrialKeys % kStringChunk == 0 &&
                  DistanceTuner::kMinTrialKeys % kStringChunkSmall == 0,
              "trials end at chunk ends");
static_assert(kStringChunk % 8 == 0 && kStringChunkSmall % 8 == 0 &&
                  DistanceTuner::kMinTrialKeys % 8 == 0,
              "bitmap pieces start at whole bytes");

// Keys from `begin` on of a source the kernels read in place (u64, u32, pre-hashed; no sel).
inline KeySource SliceSource(KeySource src, size_t begin) {
  const size_t width = src.kind == KeyKind::kU32 ? 4 : 8;
  src.keys = static_cast<const uint8_t*>(src.keys) + begin * width;
  return src;
}

// Runs run(source, begin, m) over the n keys of src in the pieces the tuner asks for (one piece
// when it is inactive), byte strings in hashed chunks; returns the sum of its results.
template <class Run>
inline uint64_t OverPieces(const KeySource& src, size_t n, DistanceTuner& tuner, const Run& run) {
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

// ---- The checks (driver.cc): one message each, for every kind ----
// "WHO: the filter was moved from".
[[noreturn]] void RefuseMovedFrom(const char* who);
// "WHO: null output with non-zero size".
[[noreturn]] void RefuseNullOutput(const char* who);
// The most keys a select call takes: its indices, 0 .. n - 1, are uint32_t.
constexpr uint64_t kMaxSelectKeys = uint64_t{1} << 32;
// Throws Error(kInvalidArgument) "WHO: more than 2^32 keys do not fit 32-bit selection indices"
// when n > kMaxSelectKeys.
void CheckSelectKeys(const char* who, uint64_t n);

// What a bulk call writes per key, and where (lib/core/driver.h's writer places each piece's).
enum class Form : uint8_t {
  kBytes,      // out[i]: 1 if key i may be present
  kBitmap,     // bit i % 8 of out[i / 8]
  kSelection,  // the indices of the keys that may be present, ascending (uint32_t)
  kCounts,     // out[i]: key i's count (uint8_t); the call returns their sum
  kLabels,     // out[i]: key i's label (uint16_t); the call returns how many are not 0
  kCounts32,   // out[i]: key i's count (uint32_t): ShiftingMultiplicity's
  kFlags,      // inserts' and removes' optional per-key bytes (out may be null)
};
// The kernels' ResultKind of a query form (kBytes for the forms that have none).
inline ResultKind ResultOf(Form form) {
  return form == Form::kBitmap      ? ResultKind::kBitmap
         : form == Form::kSelection ? ResultKind::kSelection
                                    : ResultKind::kBytes;
}
struct BulkCall;
// The checks of the output of n > 0 keys of call c, in this order: not null (but per-key flags),
// select's limit (without a selection vector), within the address space.
void CheckOutput(const BulkCall& c, size_t n);
// Writes hit bytes (0 or 1) of keys [base, base + m) in c.form to c.out (base a multiple of 8 for
// a bitmap; a selection's entries go after the *selected of earlier calls); returns the hits.
// For kinds that compute hits a tile at a time (ScalableFilter's chain).
uint64_t WriteHits(const BulkCall& c, size_t base, size_t m, const uint8_t* hit,
                   uint64_t* selected);
// After a query whose keys' plan has out_of_range: clears the results of the keys out of a
// kInt32 filter's range and returns `total` less theirs. O(n).
uint64_t ClearOutput(const Keys& keys, const uint32_t* sel, size_t n, Form form, void* out,
                     uint64_t total);

// What a kind's bulk call asks of the driver.
enum class BulkOp : uint8_t { kQuery, kInsert, kInsertAtomic, kRemove, kCount };
struct BulkCall {
  const char* who;  // starts every message
  BulkOp op = BulkOp::kQuery;
  Form form = Form::kBytes;
  void* out = nullptr;
  unsigned threads = 1;  // queries only: parts on threads (RunParallel)
  uint16_t label = 0;    // SpatialFilter's insert label; ShiftingAssociation's insert membership,
                         // ShiftingMultiplicity's insert count and its count's max_count
  const uint32_t* sel = nullptr;  // refine: key i is keys[sel[i]], n of them (runs whole)
  size_t n = 0;                   // with sel
};

// Whether CheckOutput passes c's output of n > 0 keys, inline (RunBulk calls CheckOutput only when
// it does not: a short call, such as a packet burst, paid its call and switches).
inline bool OutputFits(const BulkCall& c, size_t n) {
  size_t size = 1;  // bytes per key
  switch (c.form) {
    case Form::kBitmap:
      return c.out != nullptr && FitsAddressSpace(c.out, uint64_t{n / 8 + (n % 8 != 0)});
    case Form::kSelection:
      if (c.sel == nullptr && n > kMaxSelectKeys) return false;
      size = 4;
      break;
    case Form::kLabels:
      size = 2;
      break;
    case Form::kCounts32:
      size = 4;
      break;
    case Form::kFlags:
      if (c.out == nullptr) return true;
      break;
    case Form::kBytes:
    case Form::kCounts:
      break;
  }
  return c.out != nullptr && n <= kMaxExtentBytes / size &&
         FitsAddressSpace(c.out, uint64_t{n} * size);
}

// A kind, for the driver: a struct with
//   using Filter, Table (its kernels), P (their parameters: num_blocks, prefetch_distance, ...);
//   static bool Usable(const Filter&);            not moved from
//   static KeyType KeyTypeOf(const Filter&);
//   static void CheckKeys(const char* who, const Filter&, const Keys&);   extra refusals
//   static TuneTarget Tune(const Filter&);        its row in the distance table
//   static const Table& Kernels(const Filter&);
//   static P ParamsOf(const Filter&);             prefetch distance not yet set
//   static KeySource Source(const Filter&, const Keys&, const KeyPlan&, StringHasher*);
//   static constexpr KeyKind kCalibKind;          the first-use measurement's keys (kU64, kHashes)
//   static uint64_t Run(const Table&, const Filter&, const BulkCall&, const P&, const KeySource&,
//                       size_t m, void* piece_out);   one piece: the kernel of call.op
// Run with call.op == BulkOp::kQuery and form kBytes is the first-use measurement's kernel.

// What most kinds' traits share: their kernels' table T and parameters Params, the first-use
// measurement's keys (kKind), usable while data() is there, the filter's key type, no extra
// refusals, keys hashed by XXH64 (kXxh64) or XXH3 with the filter's seed (SourceOf).
template <class F, bool kXxh64, class T, class Params, KeyKind kKind>
struct KindBulk {
  using Filter = F;
  using Table = T;
  using P = Params;
  static constexpr KeyKind kCalibKind = kKind;
  static bool Usable(const F& f) { return f.data() != nullptr; }
  static KeyType KeyTypeOf(const F& f) { return f.key_type(); }
  static void CheckKeys(const char*, const F&, const Keys&) {}
  static KeySource Source(const F& f, const Keys& keys, const KeyPlan& plan, StringHasher* hasher) {
    return SourceOf(keys, plan, kXxh64, f.seed(), hasher);
  }
};

// The keys f's bulk calls prefetch ahead: measured on first use of f's size class with K::Run's
// query on kCalibKeys keys (MeasureDistance: the fastest candidate), cached after.
// (The measurement is out of line: its vector and std::function gave every call a stack frame.)
template <class K>
__attribute__((noinline)) uint32_t MeasureDistanceOf(const typename K::Filter& f,
                                                     const typename K::P& p) {
  std::vector<uint64_t> out(kCalibKeys);  // the measurement only: one buffer for every run
  const BulkCall calib{"calibration"};
  return MeasureDistance(K::Tune(f), [&](uint32_t distance, const uint64_t* keys) {
    typename K::P q = p;
    q.prefetch_distance = distance;
    KeySource src;
    src.kind = K::kCalibKind;
    src.keys = keys;
    K::Run(K::Kernels(f), f, calib, q, src, kCalibKeys, out.data());
  });
}
template <class K>
uint32_t DistanceOf(const typename K::Filter& f, const typename K::P& p) {
  const int64_t d = CachedDistance(K::Tune(f));
  if (__builtin_expect(d >= 0, 1)) return static_cast<uint32_t>(d);
  return MeasureDistanceOf<K>(f, p);
}

// Where the results of keys [begin, begin + m) go: their place in c.out in c.form; a selection's
// piece goes after the *selected entries of earlier pieces. Pieces start at multiples of 8 keys.
inline void* PieceOut(const BulkCall& c, size_t begin, uint64_t selected) {
  auto* o = static_cast<uint8_t*>(c.out);
  switch (c.form) {
    case Form::kBitmap:
      return o + begin / 8;
    case Form::kSelection:
      return static_cast<uint32_t*>(c.out) + selected;
    case Form::kLabels:
      return static_cast<uint16_t*>(c.out) + begin;
    case Form::kCounts32:
      return static_cast<uint32_t*>(c.out) + begin;
    default:
      return o == nullptr ? nullptr : o + begin;
  }
}

// ---- Kinds that hash first (the shifting set filters, ScalableFilter's chain) ----
// A kind whose kernels take a tile of hashes rather than a KeySource says so in its traits, and
// has no Source:
//   static constexpr bool kHashFirst = true;
//   static constexpr bool kTuned;        its calls have a size class (DistanceOf, the tuner); a
//                                        chain of filters has none: one untuned piece, no Run
//   static constexpr size_t kQueryTile, kWriteTile;   keys hashed per tile (queries, writes)
//   static const uint64_t* Hash(const Table&, const Filter&, const P&, const Keys&,
//                               const KeyPlan&, size_t at, size_t m, uint64_t* to);
//       the hashes of keys [at, at + m): written to `to` (kTile of them), or the keys' own
//       pre-hashed values in place
//   static uint64_t RunTile(const Table&, const Filter&, const BulkCall&, const P&,
//                           const HashTile&);   one tile: results at c.out's [begin, begin + m)
// RunBulk then hashes the keys a tile at a time: queries in the tuner's pieces, writes in one
// piece (the tuner's row is the queries') with the next tile hashed before the current one runs,
// so that its last keys can prefetch the next tile's blocks. No selection vector (c.sel).
struct HashTile {
  const uint64_t* h;     // the hashes of keys begin .. begin + m - 1
  size_t m;              // 1 .. the tile size
  const uint64_t* next;  // writes: the next tile's hashes (next_m of them; 0 after the last tile)
  size_t next_m;
  size_t begin;   // the call's index of h[0]
  uint64_t done;  // the results of the call's earlier tiles (where a selection's entries go on)
  bool first;     // the first tile of its piece
};
template <class K, class = void>
struct HashesFirst : std::false_type {};
template <class K>
struct HashesFirst<K, std::void_t<decltype(K::kHashFirst)>> : std::bool_constant<K::kHashFirst> {};

// Runs K::RunTile over keys [begin, end) hashed kTile at a time (kAhead: the next tile hashed
// before the current one runs), `done` the results of the call's keys before `begin`; returns
// the sum of its results. kTile (kAhead: 2 kTile) hashes on the stack, no allocation.
template <class K, size_t kTile, bool kAhead>
uint64_t OverHashTiles(const typename K::Table& k, const typename K::Filter& f, const BulkCall& c,
                       const typename K::P& p, const Keys& keys, const KeyPlan& plan, size_t begin,
                       size_t end, uint64_t done) {
  alignas(64) uint64_t buf[kAhead ? 2 : 1][kTile];
  auto hash = [&](size_t at, uint64_t* to, size_t* m) {
    *m = std::min(kTile, end - at);
    return K::Hash(k, f, p, keys, plan, at, *m, to);
  };
  uint64_t total = 0;
  if constexpr (!kAhead) {
    for (size_t at = begin, m = 0; at < end; at += kTile) {
      const uint64_t* h = hash(at, buf[0], &m);
      total += K::RunTile(k, f, c, p, HashTile{h, m, nullptr, 0, at, done + total, at == begin});
    }
  } else {
    size_t cur = 0, m = 0, next_m = 0;
    const uint64_t* h = hash(begin, buf[0], &m);
    for (size_t at = begin; at < end; at += kTile, cur ^= 1) {
      const uint64_t* next = nullptr;
      next_m = 0;
      if (at + kTile < end) next = hash(at + kTile, buf[cur ^ 1], &next_m);
      total += K::RunTile(k, f, c, p, HashTile{h, m, next, next_m, at, done + total, at == begin});
      h = next;
      m = next_m;
    }
  }
  return total;
}

// The keys of a hash-first kind's call (checked and planned, n > 0): untuned kinds in one piece;
// else after the parameters and first-use distance, writes in one piece, queries in the tuner's.
template <class K>
uint64_t RunHashed(const typename K::Filter& f, const Keys& keys, const KeyPlan& plan,
                   const BulkCall& c, size_t n, bool writes) {
  const auto& kernels = K::Kernels(f);
  typename K::P p = K::ParamsOf(f);
  if constexpr (!K::kTuned) {
    return writes ? OverHashTiles<K, K::kWriteTile, true>(kernels, f, c, p, keys, plan, 0, n, 0)
                  : OverHashTiles<K, K::kQueryTile, false>(kernels, f, c, p, keys, plan, 0, n, 0);
  } else {
    p.prefetch_distance = DistanceOf<K>(f, p);
    if (writes) {
      return OverHashTiles<K, K::kWriteTile, true>(kernels, f, c, p, keys, plan, 0, n, 0);
    }
    DistanceTuner tuner(K::Tune(f), n, false, &p.prefetch_distance);
    uint64_t total = 0;
    for (size_t begin = 0, piece = 0; begin < n; begin += piece) {
      piece = tuner.Piece(begin, n);
      total += OverHashTiles<K, K::kQueryTile, false>(kernels, f, c, p, keys, plan, begin,
                                                      begin + piece, total);
    }
    return total;
  }
}

template <class K>
uint64_t RunBulk(const typename K::Filter& f, const Keys& keys, const BulkCall& c,
                 KeyPlan* planned = nullptr, const KeyPlan* checked = nullptr);

// A query split across threads (c.threads parts at most, RunParallel): each part, checked and
// planned (`plan`), writes its own stretch of the output; a selection's parts are then moved
// together.
template <class K>
uint64_t RunParts(const typename K::Filter& f, const Keys& keys, const KeyPlan& plan,
                  const BulkCall& c) {
  const size_t n = keys.size();
  const size_t parts = PartsFor(c.threads, n);  // per-part state for the parts made
  std::vector<uint64_t> counts(parts, 0);
  std::vector<size_t> begins(parts, 0);
  RunParallel(static_cast<unsigned>(parts), n, c.form == Form::kBitmap ? 8 : 1,
              [&](size_t part, size_t begin, size_t end) {
                const Keys slice = SliceKeys(keys, begin, end - begin);
                BulkCall pc = c;
                pc.out = c.form == Form::kSelection ? static_cast<uint32_t*>(c.out) + begin
                                                    : PieceOut(c, begin, 0);
                counts[part] = RunBulk<K>(f, slice, pc, nullptr, &plan);
                begins[part] = begin;
                if (c.form == Form::kSelection) {  // the part's indices count from its begin
                  uint32_t* sel = static_cast<uint32_t*>(pc.out);
                  for (uint64_t i = 0; i < counts[part]; ++i) sel[i] += uint32_t(begin);
                }
              });
  uint64_t total = 0;
  for (size_t part = 0; part < parts; ++part) {
    if (c.form == Form::kSelection && counts[part] != 0 && begins[part] != total) {
      uint32_t* sel = static_cast<uint32_t*>(c.out);
      std::memmove(sel + total, sel + begins[part], counts[part] * sizeof(uint32_t));
    }
    total += counts[part];
  }
  return total;
}

// The bulk entry point. Unless `checked` gives the keys' plan (a part of a call, or keys the
// library made): every check in one order (RefuseMovedFrom, CheckOutput, ValidateKeys, the
// kind's CheckKeys), then the keys planned (as an insert for inserts and removes: values out of a
// kInt32 filter's range refused; `*planned` receives the plan, whose type is the one an insert
// gives an untyped filter), and a query on threads split (RunParts). Then the kind's source,
// parameters and first-use distance, the tuner's pieces (byte strings in hashed chunks), each
// piece's results written in place (PieceOut; a selection's indices shifted to the call's), and
// the results of keys out of range cleared. Writers check that the filter is writable before.
// Returns the sum of the kernels' results.
template <class K>
uint64_t RunBulk(const typename K::Filter& f, const Keys& keys, const BulkCall& c, KeyPlan* planned,
                 const KeyPlan* checked) {
  const size_t n = c.sel != nullptr ? c.n : keys.size();
  const bool writes = c.op != BulkOp::kQuery && c.op != BulkOp::kCount;
  KeyPlan plan;
  if (checked == nullptr) {
    if (!K::Usable(f)) RefuseMovedFrom(c.who);
    if (planned != nullptr) planned->type = K::KeyTypeOf(f);  // no keys: the type stays
    if (n == 0) return 0;
    if (!OutputFits(c, n)) CheckOutput(c, n);
    if (!InPlaceKeysValid(keys)) ValidateKeys(c.who, keys);
    K::CheckKeys(c.who, f, keys);
    plan = PlanKeys(c.who, K::KeyTypeOf(f), keys, writes);
    if (planned != nullptr) *planned = plan;
    if (c.threads > 1 && !writes && c.sel == nullptr && PartsFor(c.threads, n) > 1) {
      const uint64_t total = RunParts<K>(f, keys, plan, c);
      return plan.out_of_range ? ClearOutput(keys, nullptr, n, c.form, c.out, total) : total;
    }
  } else {
    if (n == 0) return 0;
    plan = *checked;
  }
  if constexpr (HashesFirst<K>::value) {
    const uint64_t total = RunHashed<K>(f, keys, plan, c, n, writes);
    return checked == nullptr && plan.out_of_range && !writes
               ? ClearOutput(keys, nullptr, n, c.form, c.out, total)
               : total;
  } else {
    StringHasher hasher;
    KeySource src = K::Source(f, keys, plan, &hasher);
    src.sel = c.sel;
    const auto& kernels = K::Kernels(f);
    typename K::P p = K::ParamsOf(f);
    p.prefetch_distance = DistanceOf<K>(f, p);
    const bool atomic = c.op == BulkOp::kInsertAtomic;
    DistanceTuner tuner(K::Tune(f), atomic ? 0 : n, c.sel != nullptr, &p.prefetch_distance);
    uint64_t selected = 0;
    const uint64_t total =
        OverPieces(src, n, tuner, [&](const KeySource& s, size_t begin, size_t m) {
          void* at = PieceOut(c, begin, selected);
          const uint64_t r = K::Run(kernels, f, c, p, s, m, at);
          if (c.form == Form::kSelection) {  // the kernel counts indices from 0
            if (begin != 0) {
              for (uint64_t i = 0; i < r; ++i) static_cast<uint32_t*>(at)[i] += uint32_t(begin);
            }
            selected += r;
          }
          return r;
        });
    return checked == nullptr && plan.out_of_range && !writes
               ? ClearOutput(keys, c.sel, n, c.form, c.out, total)
               : total;
  }
}

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_LIB_CORE_DRIVER_H_
