// SPDX-License-Identifier: Apache-2.0
// FilterSet (simdbloom/filter_set.hpp): a batch of keys against many filters. A call checks its
// keys once and plans them once per key type present; it groups the filters by the hash their
// keys get (hash family, seed, and how the key type converts the keys: PlanKeys); then, tile by
// tile, hashes the tile once per group into a scratch on the heap (allocated once per call) and
// probes every filter with its group's hashes. block512 filters of one group and one k form a
// class: a chunk's in-block masks are computed once per class and the class's filters probed with
// them by the fused kernel (Block512SetKernels, kernels/block512/spec.h; perf/README.md, design
// note M19), a run of consecutive filters of one class per kernel call; every other filter goes
// through the bulk kernels (QueryHashes: prefetch and tuner as a bulk call's).
#include "simdbloom/filter_set.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "kernels/dispatch.h"
#include "lib/core/bulk.h"
#include "lib/core/key_source.h"
#include "lib/core/key_types.h"
#include "lib/core/layout.h"
#include "lib/core/prefetch.h"

namespace simdbloom {
namespace detail {
namespace {

// Keys per tile: their hashes (8 KiB per group) and results stay in L1/L2 while every filter is
// probed.
constexpr size_t kTile = 1024;
// Keys per chunk of a tile when the set has a fused class: their masks (64 bytes a key, 16 KiB per
// class) stay in L1 while the class's filters are probed (perf/README.md, M19).
constexpr size_t kChunk = 256;
static_assert(kTile % kChunk == 0, "whole chunks per tile");
// Filters per fused kernel call: its selections (kRun x kChunk entries) stay in L1.
constexpr size_t kRun = 16;
// A class's filters of more bytes than this together are prefetched (below it they stay in L2).
constexpr uint64_t kSetCachedBytes = uint64_t{1} << 20;
// Filters of one class below which they take the bulk kernels (callgrind, AVX2, M = 1: 65
// instructions a probe through the bulk path, 69 fused).
constexpr size_t kMinClassFilters = 2;
// The fused kernel's least prefetch distance, in probes: its probe takes about half the bulk
// kernel's instructions, so the bulk call's measured distance (in keys) falls short. 64 x 1.2 MB
// filters, count, ns a probe (5 runs, loaded VM): batch 1024 8.7-10.7 at the measured distance,
// 7.2-9.1 at 64; batch 16384 10.3-16.7 -> 5.2-12.8 (perf/README.md, M19).
constexpr uint32_t kSetDistance = 64;

// The in-block masks of one key (kernels/block512/spec.h, Block512SetKernels::masks).
struct alignas(64) MaskLine {
  uint64_t w[8];
};

// The hash of key i, for every filter of a group: equal hash family, seed and key plan (the width
// integers are converted to, or a legacy filter's 2-byte records).
struct GroupKey {
  bool xxh64;
  uint64_t seed;
  uint8_t to_width;
  bool legacy16;
  bool operator==(const GroupKey& o) const {
    return xxh64 == o.xxh64 && seed == o.seed && to_width == o.to_width && legacy16 == o.legacy16;
  }
};

// What a call knows of its filters for one batch of keys.
struct Plan {
  std::vector<KeyPlan> groups;       // the plan each group hashes with
  std::vector<GroupKey> group_keys;  // (parallel to groups)
  std::vector<uint32_t> group_of;    // per filter
  std::vector<uint8_t> clear_oor;    // per filter: its results for keys out of int32 range go
  bool any_oor = false;
  bool prehashed = false;
  // Per filter: probed through its own bulk calls on the keys themselves (Guava's layouts: their
  // Murmur3 hash is no group's, and a 64-bit pre-hash cannot carry it).
  std::vector<uint8_t> own;
  // The fused block512 classes (equal group and k) and each filter's (-1: not fused).
  struct Class {
    uint32_t group;
    uint32_t k;
    uint32_t distance;  // the fused kernel's prefetch distance, in probes
  };
  std::vector<Class> classes;
  std::vector<int32_t> class_of;               // per filter
  std::vector<Block512SetFilter> set_filters;  // per filter (fused ones only filled)
};

// The fused block512 classes of plan (PlanCall): plan.classes, class_of, set_filters.
void PlanClasses(const std::vector<const Filter*>& filters, const Keys& keys, Plan& plan) {
  // block512 filters: one fused class per (group, k) of at least kMinClassFilters filters (a
  // lone filter costs less through its bulk kernel: the masks would be computed for one probe).
  plan.class_of.assign(filters.size(), -1);
  if (filters.size() < kMinClassFilters) return;
  plan.set_filters.resize(filters.size());
  std::vector<Plan::Class> candidates;
  std::vector<uint32_t> members;
  std::vector<int32_t> candidate_of(filters.size(), -1);
  for (size_t i = 0; i < filters.size(); ++i) {
    const Filter& f = *filters[i];
    if (f.layout() != Layout::kBlock512) continue;
    size_t c = 0;
    while (c < candidates.size() &&
           !(candidates[c].group == plan.group_of[i] && candidates[c].k == f.num_hashes())) {
      ++c;
    }
    if (c == candidates.size()) {
      candidates.push_back({plan.group_of[i], f.num_hashes(), 0});
      members.push_back(0);
    }
    ++members[c];
    candidate_of[i] = static_cast<int32_t>(c);
  }
  std::vector<int32_t> renumber(candidates.size(), -1);
  std::vector<uint64_t> class_bytes;
  for (size_t i = 0; i < filters.size(); ++i) {
    const int32_t c = candidate_of[i];
    if (c < 0 || members[c] < kMinClassFilters) continue;
    if (renumber[c] < 0) {
      renumber[c] = static_cast<int32_t>(plan.classes.size());
      plan.classes.push_back(candidates[c]);
      class_bytes.push_back(0);
    }
    const Filter& f = *filters[i];
    plan.class_of[i] = renumber[c];
    plan.set_filters[i] = {reinterpret_cast<const uint64_t*>(f.data()), f.num_blocks()};
    class_bytes[renumber[c]] += f.size_bytes();
  }
  // Prefetch where a chunk's probes of a class leave L2: at the largest distance measured for
  // its filters (PrefetchDistance: 0 below 1 MiB, measured once per size class), at least
  // kSetDistance. Not for an empty batch (nothing is probed).
  if (keys.size() != 0) {
    for (size_t c = 0; c < plan.classes.size(); ++c) {
      if (class_bytes[c] <= kSetCachedBytes) continue;
      uint32_t d = 0;
      for (size_t i = 0; i < filters.size(); ++i) {
        if (plan.class_of[i] == static_cast<int32_t>(c)) {
          d = std::max(d, PrefetchDistance(*filters[i]));
        }
      }
      plan.classes[c].distance = std::max(d, kSetDistance);
    }
  }
}

Plan PlanCall(const char* who, const std::vector<const Filter*>& filters, const Keys& keys) {
  Plan plan;
  plan.prehashed = keys.kind() == Keys::Kind::kPrehashed;
  plan.group_of.resize(filters.size());
  plan.clear_oor.resize(filters.size());
  plan.own.resize(filters.size());
  // One plan per key type present (PlanKeys scans 8-byte keys for a kInt32 filter: once).
  KeyPlan by_type[5];
  bool planned[5] = {};
  for (size_t i = 0; i < filters.size(); ++i) {
    const Filter& f = *filters[i];
    if (f.data() == nullptr) {
      Invalid(std::string(who) + ": filter " + std::to_string(i) + " was moved from");
    }
    const auto t = static_cast<size_t>(f.key_type());
    if (t >= 5) Invalid(std::string(who) + ": filter " + std::to_string(i) + ": bad key type");
    if (!planned[t]) {
      try {
        by_type[t] = PlanKeys(who, f.key_type(), keys, false);
      } catch (const KeyTypeError& e) {
        throw KeyTypeError(std::string(e.what()) + " (filter " + std::to_string(i) + ")");
      }
      planned[t] = true;
    }
    const KeyPlan& kp = by_type[t];
    plan.clear_oor[i] = kp.out_of_range;
    plan.any_oor |= kp.out_of_range;
    plan.own[i] = InfoOf(IdOf(f.layout())).murmur128;
    if (plan.own[i]) {
      if (plan.prehashed && f.layout() == Layout::kGuava) {
        Invalid(std::string(who) + ": filter " + std::to_string(i) +
                " is a guava filter: a pre-hashed key cannot carry the second half of its "
                "Murmur3 hash (h2)");
      }
      plan.group_of[i] = UINT32_MAX;  // no group: its bulk calls hash the keys
      continue;
    }
    // Pre-hashed keys are every filter's hashes as they are: one group.
    const GroupKey g = plan.prehashed ? GroupKey{false, 0, 0, false}
                                      : GroupKey{InfoOf(IdOf(f.layout())).xxh64, f.seed(),
                                                 kp.to_width, kp.legacy16};
    size_t gi = 0;
    while (gi < plan.group_keys.size() && !(plan.group_keys[gi] == g)) ++gi;
    if (gi == plan.group_keys.size()) {
      plan.group_keys.push_back(g);
      plan.groups.push_back(kp);
    }
    plan.group_of[i] = static_cast<uint32_t>(gi);
  }
  PlanClasses(filters, keys, plan);
  return plan;
}

// One thread's scratch for tiles of up to `tile` keys (kTile, or fewer for a shorter call),
// allocated once per call and part, left uninitialized (every entry is written before it is read).
struct Scratch {
  template <class T>
  static std::unique_ptr<T[]> Array(size_t n) {
    return std::unique_ptr<T[]>(n == 0 ? nullptr : new T[n]);
  }
  size_t tile;
  size_t chunk;  // keys probed together: kChunk with fused classes, else the tile
  std::unique_ptr<uint64_t[]> hashes;    // `tile` per group
  std::unique_ptr<uint64_t[]> gathered;  // first(): the hashes of the keys still unresolved
  std::unique_ptr<uint32_t[]> sel;       // a filter's selection over a chunk
  std::unique_ptr<uint32_t[]> remaining;
  std::unique_ptr<uint8_t[]> oor;  // per key of the tile: out of int32 range
  // Fused classes: the chunk's masks (`chunk` per class), whether a class's are computed for the
  // current chunk, a run's selections (kRun x chunk) and counts, the active target's kernels.
  std::unique_ptr<MaskLine[]> masks;
  std::vector<uint8_t> masks_ready;
  std::unique_ptr<uint32_t[]> run_sel;
  uint32_t run_counts[kRun];
  const Block512SetKernels* set_kernels = nullptr;
  // The call's keys and the tile's first (HashTile): for the filters probed on their own.
  const Keys* keys = nullptr;
  size_t tile_begin = 0;
  Scratch(const Plan& plan, size_t n)
      : tile(std::min(n, kTile)),
        chunk(plan.classes.empty() ? tile : std::min(tile, kChunk)),
        hashes(Array<uint64_t>(plan.prehashed ? 0 : tile * plan.groups.size())),
        gathered(Array<uint64_t>(tile)),
        sel(Array<uint32_t>(tile)),
        remaining(Array<uint32_t>(tile)),
        oor(Array<uint8_t>(plan.any_oor ? tile : 0)),
        masks(Array<MaskLine>(chunk * plan.classes.size())),
        masks_ready(plan.classes.size()),
        run_sel(Array<uint32_t>(plan.classes.empty() ? 0 : kRun * chunk)) {
    if (!plan.classes.empty()) set_kernels = &Active().block512_set;
  }

  // Class c's masks of the chunk's keys, whose hashes are at h (computed on first use).
  const uint64_t* MasksOf(const Plan& plan, size_t c, const uint64_t* h, size_t mc) {
    uint64_t* m = masks[c * chunk].w;
    if (!masks_ready[c]) {
      set_kernels->masks(h, mc, plan.classes[c].k, m);
      masks_ready[c] = 1;
    }
    return m;
  }
  void NewChunk() { std::fill(masks_ready.begin(), masks_ready.end(), 0); }
  // The out-of-range flags of the chunk at key cb of the tile (null without any).
  const uint8_t* OorAt(size_t cb) const { return oor ? oor.get() + cb : nullptr; }
};

// Hashes keys [begin, begin + m) once per group; returns a pointer per group to its hashes.
void HashTile(const Plan& plan, const std::vector<const Filter*>&, const Keys& keys, size_t begin,
              size_t m, Scratch& s, std::vector<const uint64_t*>& at) {
  at.resize(std::max<size_t>(1, plan.groups.size()));  // (pre-hashed: one, even with no group)
  s.keys = &keys;
  s.tile_begin = begin;
  if (plan.prehashed) {
    at[0] = static_cast<const uint64_t*>(keys.keys()) + begin;
    return;
  }
  const Keys slice = SliceKeys(keys, begin, m);
  for (size_t g = 0; g < plan.groups.size(); ++g) {
    uint64_t* out = s.hashes.get() + g * s.tile;
    HashKeysAs(slice, plan.groups[g], plan.group_keys[g].xxh64, plan.group_keys[g].seed, out);
    at[g] = out;
  }
  if (plan.any_oor) {
    for (size_t j = 0; j < m; ++j) s.oor[j] = OutOfInt32(keys, begin + j);
  }
}

// Drops from filter i's selection sel[0 .. c) the keys out of its int32 range (key j of the
// selection is the chunk's key idx[j] when idx is set; oor: the chunk's flags). Returns the count.
size_t DropOutOfRange(const Plan& plan, size_t i, uint32_t* sel, size_t c, const uint32_t* idx,
                      const uint8_t* oor) {
  if (!plan.clear_oor[i]) return c;
  size_t kept = 0;
  for (size_t j = 0; j < c; ++j) {
    const uint32_t key = idx != nullptr ? idx[sel[j]] : sel[j];
    if (!oor[key]) sel[kept++] = sel[j];
  }
  return kept;
}

// Filter i's selection over the m keys whose hashes are at h (key j of the selection is the
// chunk's key idx[j] when idx is set; the chunk starts at key cb of the tile), through the bulk
// kernels; keys out of its int32 range dropped. Returns the count.
size_t SelectTile(const Plan& plan, size_t i, const Filter& f, const uint64_t* h, size_t m,
                  const uint32_t* idx, Scratch& s, size_t cb) {
  if (plan.own[i]) {
    // Its own bulk calls over the chunk's keys (they clear int32 out-of-range keys themselves).
    const Keys chunk = SliceKeys(*s.keys, s.tile_begin + cb, idx != nullptr ? idx[m - 1] + 1 : m);
    uint32_t* sel = s.sel.get();
    if (idx == nullptr) return f.select(chunk, sel);
    // The keys still unresolved (first()): refine keeps those that may be present; the results
    // are positions in idx, as the bulk path's.
    std::copy(idx, idx + m, sel);
    const size_t kept = f.refine(chunk, sel, m);
    for (size_t j = 0, pos = 0; j < kept; ++j) {
      while (idx[pos] != sel[j]) ++pos;
      sel[j] = static_cast<uint32_t>(pos);
    }
    return kept;
  }
  const size_t c = QueryHashes(f, h, m, ResultKind::kSelection, s.sel.get());
  return DropOutOfRange(plan, i, s.sel.get(), c, idx, s.OorAt(cb));
}

// Every filter over keys [cb, cb + mc) of the tile (group g's hashes at at[g] + cb), in set
// order: emit(i, sel, c) with filter i's selection (indices from cb, ascending). Fused filters go
// by runs of consecutive filters of one class (up to kRun) through the fused kernel.
template <class Emit>
void ProbeChunk(const Plan& plan, const std::vector<const Filter*>& filters,
                const std::vector<const uint64_t*>& at, size_t cb, size_t mc, Scratch& s,
                const Emit& emit) {
  s.NewChunk();
  const size_t n_filters = filters.size();
  for (size_t i = 0; i < n_filters;) {
    const int32_t cl = plan.class_of[i];
    if (cl < 0) {
      const uint64_t* h = plan.own[i] ? nullptr : at[plan.group_of[i]] + cb;
      const size_t c = SelectTile(plan, i, *filters[i], h, mc, nullptr, s, cb);
      emit(i, s.sel.get(), c);
      ++i;
      continue;
    }
    size_t r = 1;
    while (r < kRun && i + r < n_filters && plan.class_of[i + r] == cl) ++r;
    const Plan::Class& k = plan.classes[cl];
    const uint64_t* h = at[k.group] + cb;
    s.set_kernels->select(&plan.set_filters[i], r, k.k, h, s.MasksOf(plan, cl, h, mc), nullptr, mc,
                          k.distance, s.run_sel.get(), s.chunk, s.run_counts);
    for (size_t q = 0; q < r; ++q) {
      uint32_t* sel = s.run_sel.get() + q * s.chunk;
      emit(i + q, sel, DropOutOfRange(plan, i + q, sel, s.run_counts[q], nullptr, s.OorAt(cb)));
    }
    i += r;
  }
}

void CheckOutput(const char* who, const Keys& keys, const void* out, size_t size) {
  if (keys.size() != 0 && out == nullptr) {
    Invalid(std::string(who) + ": null output with non-zero size");
  }
  CheckExtent(who, "results", out, keys.size(), size);
}

// Keys per thread below which a thread costs more than it saves: a call probes every key against
// every filter, so the bulk calls' figure is divided among them (at least one tile).
size_t MinKeysPerPart(size_t filters) {
  return std::max<size_t>(kTile, kMinKeysPerThread / std::max<size_t>(1, filters));
}

// Runs fn(part, begin, end, scratch) over [0, n) on up to `threads` threads, in parts of whole
// tiles (PartsFor(threads, n, MinKeysPerPart(filters)) of them).
template <class Fn>
void OverParts(const Plan& plan, size_t filters, size_t n, unsigned threads, const Fn& fn) {
  RunParallel(
      threads, n, kTile,
      [&](size_t part, size_t begin, size_t end) {
        Scratch s(plan, end - begin);
        fn(part, begin, end, s);
      },
      MinKeysPerPart(filters));
}

// The matches of keys [begin, end), appended to dst in key order, then filter order.
void MatchesOf(const Plan& plan, const std::vector<const Filter*>& filters, const Keys& keys,
               size_t begin, size_t end, Scratch& s, std::vector<FilterSet::Match>& dst) {
  std::vector<const uint64_t*> at;
  std::vector<FilterSet::Match> tile;  // (filter, key in tile), filter order
  std::vector<uint32_t> per_key(std::min(kTile, end - begin) + 1);
  for (size_t b = begin; b < end; b += kTile) {
    const size_t m = std::min(kTile, end - b);
    HashTile(plan, filters, keys, b, m, s, at);
    tile.clear();
    std::fill(per_key.begin(), per_key.begin() + m + 1, 0);
    // Chunk by chunk, filter order within each: a key's matches are in filter order.
    for (size_t cb = 0; cb < m; cb += s.chunk) {
      ProbeChunk(plan, filters, at, cb, std::min(s.chunk, m - cb), s,
                 [&](size_t i, const uint32_t* sel, size_t c) {
                   for (size_t j = 0; j < c; ++j) {
                     const uint32_t key = static_cast<uint32_t>(cb + sel[j]);
                     tile.push_back({static_cast<uint32_t>(i), key});
                     ++per_key[key + 1];
                   }
                 });
    }
    // A counting sort by key (stable: filter order within a key).
    for (size_t j = 0; j < m; ++j) per_key[j + 1] += per_key[j];
    const size_t base = dst.size();
    dst.resize(base + tile.size());
    for (const FilterSet::Match& t : tile) {
      dst[base + per_key[t.key]++] = {t.filter, static_cast<uint32_t>(b + t.key)};
    }
  }
}

// first() over keys [cb, cb + mc) of the tile: out[j] = the first filter that may hold key cb + j
// (left as it is where none does). Returns how many keys matched.
uint64_t FirstOfChunk(const Plan& plan, const std::vector<const Filter*>& filters,
                      const std::vector<const uint64_t*>& at, size_t cb, size_t mc, Scratch& s,
                      int32_t* out) {
  s.NewChunk();
  uint64_t hits = 0;
  // The chunk's keys no earlier filter matched, ascending.
  size_t r = mc;
  for (size_t j = 0; j < mc; ++j) s.remaining[j] = static_cast<uint32_t>(j);
  const uint8_t* oor = s.OorAt(cb);
  for (size_t i = 0; i < filters.size() && r > 0; ++i) {
    const uint64_t* h = plan.own[i] ? nullptr : at[plan.group_of[i]] + cb;
    const uint32_t* idx = r < mc ? s.remaining.get() : nullptr;
    size_t c;
    uint32_t* sel;
    const int32_t cl = plan.class_of[i];
    if (cl >= 0) {
      // The fused kernel reads the remaining keys' hashes and masks through idx.
      const Plan::Class& k = plan.classes[cl];
      sel = s.run_sel.get();
      s.set_kernels->select(&plan.set_filters[i], 1, k.k, h, s.MasksOf(plan, cl, h, mc), idx, r,
                            k.distance, sel, s.chunk, s.run_counts);
      c = DropOutOfRange(plan, i, sel, s.run_counts[0], s.remaining.get(), oor);
    } else {
      if (idx != nullptr && h != nullptr) {
        for (size_t j = 0; j < r; ++j) s.gathered[j] = h[s.remaining[j]];
        h = s.gathered.get();
      }
      sel = s.sel.get();
      c = SelectTile(plan, i, *filters[i], h, r, s.remaining.get(), s, cb);
    }
    if (c == 0) continue;
    // Record the matches and drop them from `remaining` (both ascending).
    size_t kept = 0, next = 0;
    for (size_t j = 0; j < r; ++j) {
      if (next < c && sel[next] == j) {
        out[s.remaining[j]] = static_cast<int32_t>(i);
        ++next;
      } else {
        s.remaining[kept++] = s.remaining[j];
      }
    }
    hits += c;
    r = kept;
  }
  return hits;
}

// A per-key call (first, count): checks, plans, then out[i] = `none` and chunk(plan, at, cb, mc,
// scratch, out + b + cb) over every chunk of every tile, on up to `threads` threads; returns the
// sum of what the chunks return.
template <class T, class Chunk>
uint64_t PerKey(const char* who, const std::vector<const Filter*>& filters, const Keys& keys,
                T* out, T none, unsigned threads, const Chunk& chunk) {
  ValidateKeys(who, keys);
  CheckOutput(who, keys, out, sizeof(T));
  const Plan plan = PlanCall(who, filters, keys);
  const size_t n = keys.size();
  if (n == 0) return 0;
  std::vector<uint64_t> part_hits(PartsFor(threads, n, MinKeysPerPart(filters.size())));
  OverParts(plan, filters.size(), n, threads,
            [&](size_t part, size_t begin, size_t end, Scratch& s) {
              std::vector<const uint64_t*> at;
              uint64_t hits = 0;
              for (size_t b = begin; b < end; b += kTile) {
                const size_t m = std::min(kTile, end - b);
                std::fill(out + b, out + b + m, none);
                if (filters.empty()) continue;
                HashTile(plan, filters, keys, b, m, s, at);
                for (size_t cb = 0; cb < m; cb += s.chunk) {
                  hits += chunk(plan, at, cb, std::min(s.chunk, m - cb), s, out + b + cb);
                }
              }
              part_hits[part] = hits;
            });
  uint64_t total = 0;
  for (uint64_t h : part_hits) total += h;
  return total;
}

}  // namespace
}  // namespace detail

FilterSet::FilterSet(Span<const Filter* const> filters) : filters_(filters.begin(), filters.end()) {
  if (filters_.size() > static_cast<size_t>(INT32_MAX)) {
    detail::Invalid("FilterSet: more than 2^31 - 1 filters");
  }
  for (size_t i = 0; i < filters_.size(); ++i) {
    if (filters_[i] == nullptr) {
      detail::Invalid("FilterSet: filter " + std::to_string(i) + " is a null pointer");
    }
  }
}

FilterSet::FilterSet(std::initializer_list<const Filter*> filters)
    : FilterSet(Span<const Filter* const>(filters.begin(), filters.size())) {}

uint64_t FilterSet::contains(const Keys& keys, std::vector<Match>& out) const {
  return contains(keys, out, Threads{1});
}

uint64_t FilterSet::contains(const Keys& keys, std::vector<Match>& out, Threads threads) const {
  using namespace detail;
  const char* who = "FilterSet::contains";
  if (keys.size() >= (uint64_t{1} << 32)) {
    Invalid("FilterSet::contains: 2^32 keys or more do not fit 32-bit key indices");
  }
  ValidateKeys(who, keys);
  const Plan plan = PlanCall(who, filters_, keys);
  out.clear();
  const size_t n = keys.size();
  if (n == 0 || filters_.empty()) return 0;
  const size_t parts = PartsFor(threads.count, n, MinKeysPerPart(filters_.size()));
  if (parts <= 1) {
    Scratch s(plan, n);
    MatchesOf(plan, filters_, keys, 0, n, s, out);
    return out.size();
  }
  // Each part collects its matches in key order; the parts are concatenated in order.
  std::vector<std::vector<Match>> part_out(parts);
  OverParts(plan, filters_.size(), n, threads.count,
            [&](size_t part, size_t begin, size_t end, Scratch& s) {
              MatchesOf(plan, filters_, keys, begin, end, s, part_out[part]);
            });
  size_t total = 0;
  for (const auto& p : part_out) total += p.size();
  out.reserve(total);
  for (const auto& p : part_out) out.insert(out.end(), p.begin(), p.end());
  return total;
}

uint64_t FilterSet::first(const Keys& keys, int32_t* out) const {
  return first(keys, out, Threads{1});
}

uint64_t FilterSet::first(const Keys& keys, int32_t* out, Threads threads) const {
  using namespace detail;
  return PerKey(
      "FilterSet::first", filters_, keys, out, int32_t{-1}, threads.count,
      [&](const Plan& plan, const std::vector<const uint64_t*>& at, size_t cb, size_t mc,
          Scratch& s, int32_t* o) { return FirstOfChunk(plan, filters_, at, cb, mc, s, o); });
}

uint64_t FilterSet::count(const Keys& keys, uint32_t* out) const {
  return count(keys, out, Threads{1});
}

uint64_t FilterSet::count(const Keys& keys, uint32_t* out, Threads threads) const {
  using namespace detail;
  return PerKey("FilterSet::count", filters_, keys, out, uint32_t{0}, threads.count,
                [&](const Plan& plan, const std::vector<const uint64_t*>& at, size_t cb, size_t mc,
                    Scratch& s, uint32_t* o) {
                  uint64_t hits = 0;
                  ProbeChunk(plan, filters_, at, cb, mc, s,
                             [&](size_t, const uint32_t* sel, size_t c) {
                               for (size_t j = 0; j < c; ++j) ++o[sel[j]];
                               hits += c;
                             });
                  return hits;
                });
}

}  // namespace simdbloom
