// SPDX-License-Identifier: Apache-2.0
// Every SIMD target against the scalar reference, bit for bit: hashing, block index, and insert and
// query of every layout as one table of cases (layout x geometry x key source x batch), each run on
// every target: awkward sizes, unaligned pointers, all k, several seeds, every result form.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <ostream>
#include <string>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "kernels/block512/scalar.h"
#include "kernels/dispatch.h"
#include "kernels/reference.h"
#include "kernels/scalar/guava.h"
#include "tests/test_util.h"

namespace simdbloom {
namespace {

using detail::Kernels;
using detail::LayoutId;
using detail::Params;

// Batch sizes around every vector width (1..16 u64 lanes), the tile size (256) and odd tails.
const std::vector<size_t>& BatchSizes() {
  static const std::vector<size_t> sizes = {0,  1,  2,  3,  4,   5,   7,   8,   9,    15,  16,
                                            17, 31, 32, 33, 255, 256, 257, 513, 1000, 4097};
  return sizes;
}

const uint64_t kSeeds[] = {0, 1, 0x9E3779B97F4A7C15ull, ~uint64_t{0}};

// A buffer whose payload starts `misalign` bytes past a 64-byte boundary.
struct Unaligned {
  std::vector<uint8_t> storage;
  uint8_t* ptr;
  Unaligned(size_t bytes, size_t misalign) : storage(bytes + 64 + misalign) {
    uintptr_t p = reinterpret_cast<uintptr_t>(storage.data());
    ptr = storage.data() + ((64 - p % 64) % 64) + misalign;
  }
};

uint64_t* AlignedWords(std::vector<uint64_t>& storage, uint64_t num_blocks) {
  storage.assign(num_blocks * 8 + 8, 0);
  uintptr_t p = reinterpret_cast<uintptr_t>(storage.data());
  return storage.data() + ((64 - p % 64) % 64) / 8;
}

uint64_t LibXxh3(uint64_t key, uint64_t seed) {
  uint8_t bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<uint8_t>(key >> (8 * i));
  return XXH3_64bits_withSeed(bytes, 8, seed);
}

uint64_t LibXxh64(uint64_t key, uint64_t seed) {
  uint8_t bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<uint8_t>(key >> (8 * i));
  return XXH64(bytes, 8, seed);
}

TEST_CASE("equivalence: XXH3 and XXH64 of u64 keys equal libxxhash") {
  std::vector<uint64_t> keys = test::RandomKeys(1000000, 42);
  // Edge values: zero, all ones, single bits, byte patterns, the seed's own value.
  const uint64_t edges[] = {0,
                            1,
                            ~uint64_t{0},
                            uint64_t{1} << 63,
                            uint64_t{1} << 32,
                            0xFFFFFFFFull,
                            0x0123456789ABCDEFull,
                            0x8000000080000000ull,
                            0x9E3779B97F4A7C15ull};
  keys.insert(keys.begin(), std::begin(edges), std::end(edges));
  for (int b = 0; b < 64; ++b) keys.push_back(uint64_t{1} << b);
  test::ForEachTarget("hash", [&](const Kernels& k) {
    std::vector<uint64_t> got(keys.size()), got64(keys.size());
    for (uint64_t seed : kSeeds) {
      k.hash_u64(keys.data(), keys.size(), seed, got.data());
      k.hash_u64_xxh64(keys.data(), keys.size(), seed, got64.data());
      size_t mismatches = 0, mismatches64 = 0;
      for (size_t i = 0; i < keys.size(); ++i) {
        mismatches += got[i] != LibXxh3(keys[i], seed);
        mismatches64 += got64[i] != LibXxh64(keys[i], seed);
      }
      CHECK_MESSAGE(mismatches == 0, k.name, " XXH3 seed ", seed);
      CHECK_MESSAGE(mismatches64 == 0, k.name, " XXH64 seed ", seed);
    }
    // Every batch size, from an unaligned key pointer, leaves the bytes past the end untouched.
    for (size_t n : BatchSizes()) {
      for (size_t misalign : {0, 1, 3, 7}) {
        Unaligned in(n * 8, misalign);
        std::memcpy(in.ptr, keys.data(), n * 8);
        std::vector<uint64_t> out(n + 1, 0xA5A5A5A5A5A5A5A5ull);
        std::vector<uint64_t> out64(n + 1, 0xA5A5A5A5A5A5A5A5ull);
        k.hash_u64(reinterpret_cast<const uint64_t*>(in.ptr), n, 7, out.data());
        k.hash_u64_xxh64(reinterpret_cast<const uint64_t*>(in.ptr), n, 7, out64.data());
        for (size_t i = 0; i < n; ++i) REQUIRE(out[i] == LibXxh3(keys[i], 7));
        for (size_t i = 0; i < n; ++i) REQUIRE(out64[i] == LibXxh64(keys[i], 7));
        REQUIRE(out[n] == 0xA5A5A5A5A5A5A5A5ull);
        REQUIRE(out64[n] == 0xA5A5A5A5A5A5A5A5ull);
      }
    }
  });
}

TEST_CASE("equivalence: block index by multiply-high") {
  std::vector<uint64_t> hashes = test::RandomKeys(5000, 3);
  hashes.push_back(0);
  hashes.push_back(~uint64_t{0});
  const uint64_t block_counts[] = {1, 2, 3, 1000, 1u << 20, (uint64_t{1} << 32) - 1};
  test::ForEachTarget("block_index", [&](const Kernels& k) {
    for (uint64_t nb : block_counts) {
      std::vector<uint64_t> got(hashes.size()), want(hashes.size());
      k.block_index(hashes.data(), hashes.size(), nb, got.data());
      detail::Reference().block_index(hashes.data(), hashes.size(), nb, want.data());
      CHECK(got == want);
      for (uint64_t b : got) REQUIRE(b < nb);
    }
  });
}

struct LayoutCase {
  LayoutId id;
  const char* name;
  uint32_t block_bytes;
  uint32_t min_k, max_k;
  uint64_t prefetched_blocks;  // a size >= 1 MiB, so the prefetching path runs
};

// Every layout of the registry (kernels/registry.h), with a block count past 1 MiB (1.2 MiB).
const std::vector<LayoutCase>& LayoutCases() {
  static const std::vector<LayoutCase> cases = [] {
    std::vector<LayoutCase> v;
    for (const detail::LayoutInfo& l : detail::kLayoutInfos) {
      const uint32_t bytes = l.block_bits / 8;
      v.push_back({l.id, l.name, bytes, l.min_k, l.max_k, (uint64_t{12} << 20) / 10 / bytes});
    }
    return v;
  }();
  return cases;
}

// Prefetch distances: none, short, one step, past a tile, and beyond the tile (clamped).
const uint32_t kDistances[] = {0, 1, 8, 64, 256, 1000};
// Probe lines a classic query prefetches: none, one, the default, all.
const uint32_t kQueryProbes[] = {0, 1, 2, 32};

detail::KeySource HashSource(const uint64_t* hashes) {
  detail::KeySource s;
  s.kind = detail::KeyKind::kHashes;
  s.keys = hashes;
  return s;
}

// A byte-string source at the kernel level: key i is strings[i] (or strings[sel[i]]).
struct StringCtx {
  const std::vector<std::string>* strings;
  bool xxh64;
  uint64_t seed;
};

void HashStringRun(const void* ctx, const uint32_t* sel, size_t begin, size_t m, uint64_t* out) {
  const StringCtx& c = *static_cast<const StringCtx*>(ctx);
  for (size_t j = 0; j < m; ++j) {
    const std::string& s = (*c.strings)[sel != nullptr ? sel[begin + j] : begin + j];
    out[j] = c.xxh64 ? XXH64(s.data(), s.size(), c.seed)
                     : XXH3_64bits_withSeed(s.data(), s.size(), c.seed);
  }
}

// The same strings for the Murmur3 layouts (guava, guava32): both halves of Murmur3 x64 128.
void MurmurStringRun(const void* ctx, const uint32_t* sel, size_t begin, size_t m, uint64_t* h1,
                     uint64_t* h2) {
  const StringCtx& c = *static_cast<const StringCtx*>(ctx);
  for (size_t j = 0; j < m; ++j) {
    const std::string& s = (*c.strings)[sel != nullptr ? sel[begin + j] : begin + j];
    const scalar::Hash128 h = scalar::Murmur3x64_128(s.data(), s.size(), c.seed);
    h1[j] = h.h1;
    h2[j] = h.h2;
  }
}

const char* KindName(detail::KeyKind kind) {
  switch (kind) {
    case detail::KeyKind::kU64:
      return "u64";
    case detail::KeyKind::kU32:
      return "u32";
    case detail::KeyKind::kHashes:
      return "hashes";
    case detail::KeyKind::kHashFn:
      return "hash_fn(strings)";
  }
  return "?";
}

// One row of the equivalence table: a filter geometry, a key source and the batch, run on every
// target against the reference (see RunRow).
struct Row {
  const char* group;
  const LayoutCase* l;
  Params p;
  detail::KeyKind kind;
  // Key i is pool[i], or pool[sel[i]] with a selection vector (SelectionFor).
  bool sel;
  size_t pool;        // keys in the pool: test::RandomKeys(pool, key_seed) (u32: the low halves)
  uint64_t key_seed;  //
  size_t n_insert;    // keys 0 .. n_insert - 1 are inserted,
  size_t n_query;     // keys 0 .. n_query - 1 queried (n_query >= n_insert)
  size_t misalign;    // key arrays and byte outputs start this far past a 64-byte boundary
};

std::ostream& operator<<(std::ostream& os, const Row& r) {
  return os << r.group << ": " << r.l->name << " blocks=" << r.p.num_blocks << " k=" << r.p.k
            << " seed=" << r.p.seed << " prefetch_distance=" << r.p.prefetch_distance
            << " query_prefetch_probes=" << r.p.query_prefetch_probes
            << " keys=" << KindName(r.kind) << (r.sel ? " with selection" : "")
            << " pool=" << r.pool << " key_seed=" << r.key_seed << " insert=" << r.n_insert
            << " query=" << r.n_query << " misalign=" << r.misalign;
}

// The selection vector of a row (at least `len` indices). When it fits in `len`: every third key
// of the pool, then a descending run and a repeated key (the key-sources pool of 1100 keys: 419
// indices). Otherwise `len` random indices into the pool: any order, many repeats.
std::vector<uint32_t> SelectionFor(size_t pool, size_t len) {
  std::vector<uint32_t> sel;
  if (pool >= 100 && len <= (pool + 2) / 3 + 52) {
    for (uint32_t i = 0; i < pool; i += 3) sel.push_back(i);
    for (uint32_t i = 0; i < 50; ++i) sel.push_back(static_cast<uint32_t>(pool - 1 - 2 * i));
    sel.push_back(5);
    sel.push_back(5);
  } else {
    test::Rng rng(pool * 31 + len);
    for (size_t i = 0; i < len; ++i) sel.push_back(static_cast<uint32_t>(rng() % pool));
  }
  REQUIRE(sel.size() >= len);
  return sel;
}

// The table: every combination the nested loops of earlier versions ran, and more shapes.
std::vector<Row> Rows() {
  std::vector<Row> rows;
  const detail::KeyKind kKinds[] = {detail::KeyKind::kU64, detail::KeyKind::kU32,
                                    detail::KeyKind::kHashes, detail::KeyKind::kHashFn};
  for (const LayoutCase& l : LayoutCases()) {
    // Every k on a tiny (1 block), odd, medium and >= 1 MiB (prefetching) filter: 600 u64 keys
    // inserted, queried with as many others.
    for (uint64_t nb : {uint64_t{1}, uint64_t{3}, uint64_t{1000}, l.prefetched_blocks}) {
      for (uint32_t kk = l.min_k; kk <= l.max_k; ++kk) {
        // The Guava layouts (k to 255): every k to 40 (past the 32 probes a tile holds) and 255.
        if (kk > 40 && kk != l.max_k) continue;
        Params p{nb, kk, kSeeds[(kk + nb) % 4]};
        p.prefetch_distance = kDistances[kk % 6];
        p.query_prefetch_probes = kQueryProbes[(kk + nb) % 4];
        rows.push_back(
            {"every k", &l, p, detail::KeyKind::kU64, false, 1200, kk * nb, 600, 1200, kk % 8});
      }
    }
    // Every batch size around the vector widths and the tile, from every misalignment (u64 keys);
    // the other key shapes, and u64 through a selection vector, on every size up to two tiles,
    // misalignment cycling. n keys inserted, queried with n others.
    const uint32_t kk = l.min_k == l.max_k ? l.min_k : 7;
    for (size_t i = 0; i < BatchSizes().size(); ++i) {
      const size_t n = BatchSizes()[i];
      for (size_t misalign : {0, 1, 4, 7}) {
        Params p{37, kk, kSeeds[misalign % 4]};
        p.prefetch_distance = kDistances[(n + misalign) % 6];
        p.query_prefetch_probes = kQueryProbes[misalign % 4];
        rows.push_back({"batch sizes", &l, p, detail::KeyKind::kU64, false, 2 * n, n + 11, n, 2 * n,
                        misalign});
      }
      const size_t kMisalign[] = {0, 1, 2, 4};
      int shape = 0;
      for (detail::KeyKind kind : kKinds) {
        for (bool sel : {false, true}) {
          if (kind == detail::KeyKind::kU64 && !sel) continue;  // above
          if (n > 513) continue;                                // past two tiles: u64 only (time)
          const size_t misalign = kMisalign[(i + shape) % 4];
          ++shape;
          Params p{37, kk, kSeeds[(i + shape) % 4]};
          p.prefetch_distance = kDistances[(n + shape) % 6];
          p.query_prefetch_probes = kQueryProbes[(i + shape) % 4];
          // With a selection: 2n picks from n + 1 keys (repeats, any order).
          rows.push_back(
              {"batch sizes", &l, p, kind, sel, sel ? n + 1 : 2 * n, n + 12, n, 2 * n, misalign});
        }
      }
    }
    // Every key source and result form on a small and a prefetched filter: the first half of n
    // keys of one pool of 1100 inserted (selections repeat keys: new only the first time), all n
    // queried.
    const size_t sel_len = SelectionFor(1100, 0).size();
    for (uint64_t nb : {uint64_t{3}, l.prefetched_blocks}) {
      for (detail::KeyKind kind : kKinds) {
        for (bool sel : {false, true}) {
          for (size_t n :
               {size_t{0}, size_t{1}, size_t{7}, size_t{9}, size_t{255}, size_t{257}, sel_len}) {
            const int ki = static_cast<int>(kind);
            Params p{nb, l.min_k == l.max_k ? l.min_k : 6, 0x1234 + nb};
            p.prefetch_distance = kDistances[(n + ki) % 6];
            p.query_prefetch_probes = kQueryProbes[(n + ki + sel) % 4];
            rows.push_back({"key sources", &l, p, kind, sel, 1100, 99, n / 2, n, (n + ki) % 8});
          }
        }
      }
    }
  }
  return rows;
}

// The keys of a row, each shape at the row's misalignment, and a KeySource over them.
struct RowKeys {
  std::vector<uint64_t> u64, hashes;
  std::vector<uint32_t> u32, sel;
  std::vector<std::string> strings;
  StringCtx ctx;
  Unaligned at;  // the key array the row's source reads (u64, u32 or hashes)
  detail::KeySource src;

  explicit RowKeys(const Row& r)
      : u64(test::RandomKeys(r.pool, r.key_seed)),
        ctx{&strings, r.l->id == LayoutId::kSplitBlock256, r.p.seed},
        at(r.pool * 8, r.misalign) {
    const void* keys = u64.data();
    size_t width = 8;
    if (r.kind == detail::KeyKind::kU32) {
      for (uint64_t v : u64) u32.push_back(static_cast<uint32_t>(v));
      keys = u32.data();
      width = 4;
    } else if (r.kind == detail::KeyKind::kHashes) {
      hashes.resize(r.pool);
      (ctx.xxh64 ? detail::Reference().hash_u64_xxh64 : detail::Reference().hash_u64)(
          u64.data(), r.pool, r.p.seed, hashes.data());
      keys = hashes.data();
    } else if (r.kind == detail::KeyKind::kHashFn) {
      for (uint64_t v : u64) {
        strings.push_back(std::string(static_cast<size_t>(v % 40), static_cast<char>(v >> 8)) +
                          std::to_string(v));
      }
    }
    if (r.pool > 0) std::memcpy(at.ptr, keys, r.pool * width);
    if (r.sel) sel = SelectionFor(r.pool, r.n_query);
    src.kind = r.kind;
    src.keys = at.ptr;
    src.sel = r.sel ? sel.data() : nullptr;
    src.hash_fn = &HashStringRun;
    src.hash128_fn = &MurmurStringRun;  // read by the Murmur3 layouts only
    src.ctx = &ctx;
  }
};

// Runs a row on one target and the reference. Compares: the stage hashes of the source; insert's
// changed count, filter bytes (padding included) and per-key `fresh` bytes (written from an
// unaligned pointer, nothing past the end), insert without `fresh`, a repeated insert (nothing
// new); every result form of contains (bytes, bitmap, selection, selection in place), byte for
// byte, nothing past the end, no false negatives; for u64 keys without selection, the target's own
// hash stage fed back as pre-hashed keys, aligned and not. Returns the number of result forms
// compared.
int RunRow(const Kernels& k, const Row& r) {
  const size_t n = r.n_insert, q = r.n_query;
  const Params p = r.p;
  const size_t blocks512 = (p.num_blocks * r.l->block_bytes + 63) / 64;
  const detail::LayoutKernels& target = k.For(r.l->id);
  const detail::LayoutKernels& ref = detail::Reference().For(r.l->id);
  RowKeys keys(r);
  const detail::KeySource& src = keys.src;
  const bool xxh64 = keys.ctx.xxh64;

  std::vector<uint64_t> got_hashes(q + 1, 0xA5), want_hashes(q + 1, 0xA5);
  k.hash_keys(xxh64, src, q, p.seed, got_hashes.data());
  detail::Reference().hash_keys(xxh64, src, q, p.seed, want_hashes.data());
  REQUIRE(got_hashes == want_hashes);

  std::vector<uint64_t> s1, s2, s3;
  uint64_t* got = AlignedWords(s1, blocks512);
  uint64_t* want = AlignedWords(s2, blocks512);
  Unaligned fresh(n + 1, r.misalign);
  fresh.ptr[n] = 0xEE;
  std::vector<uint8_t> want_fresh(n + 1, 0xEE);
  const uint64_t changed = target.insert(got, p, src, n, fresh.ptr);
  REQUIRE(changed == ref.insert(want, p, src, n, want_fresh.data()));
  REQUIRE(std::equal(want_fresh.begin(), want_fresh.end(), fresh.ptr));  // guard byte included
  REQUIRE(static_cast<uint64_t>(std::count(fresh.ptr, fresh.ptr + n, 1)) == changed);
  REQUIRE(changed <= n);
  if (n > 0) REQUIRE(changed > 0);                       // the first key always sets bits
  REQUIRE(std::memcmp(got, want, blocks512 * 64) == 0);  // includes the padding: still zero
  // Without `fresh`: the same filter. (Filters of 1 MiB and more skip it: a third one costs more
  // than the rest of the row; their u64 rows without selection insert without `fresh` below.)
  if (blocks512 * 64 < (size_t{1} << 20)) {
    uint64_t* plain = AlignedWords(s3, blocks512);
    REQUIRE(target.insert(plain, p, src, n, nullptr) == changed);
    REQUIRE(std::memcmp(plain, want, blocks512 * 64) == 0);
    // The atomic insert (Op::kInsertAtomic, one thread here): the same filter and fresh bytes as
    // insert, on the target and in the reference.
    for (const detail::LayoutKernels* kernels : {&target, &ref}) {
      uint64_t* atomic = AlignedWords(s3, blocks512);
      std::vector<uint8_t> atomic_fresh(n + 1, 0xEE);
      REQUIRE(kernels->insert_atomic(atomic, p, src, n, atomic_fresh.data()) == changed);
      REQUIRE(atomic_fresh == want_fresh);
      REQUIRE(std::memcmp(atomic, want, blocks512 * 64) == 0);
    }
  }
  // Repeats change nothing, and no key is new.
  REQUIRE(target.insert(got, p, src, n, fresh.ptr) == 0);
  REQUIRE(std::count(fresh.ptr, fresh.ptr + n, 0) == static_cast<ptrdiff_t>(n));
  REQUIRE(fresh.ptr[n] == 0xEE);

  int forms = 0;
  std::vector<uint8_t> want_bytes;
  for (int form = 0; form < 4; ++form) {
    const char* form_name[] = {"bytes", "bitmap", "selection", "selection in place"};
    CAPTURE(form_name[form]);
    if (form == 3 && !r.sel) continue;  // in place: the output is the source's own selection
    const auto result = static_cast<detail::ResultKind>(form == 3 ? 2 : form);
    const size_t bytes = form == 0 ? q : form == 1 ? (q + 7) / 8 : 4 * q;
    // Byte outputs at the row's misalignment, selections 4-byte aligned; 8 guard bytes.
    Unaligned out(bytes + 8, form < 2 ? r.misalign : 0);
    std::fill(out.ptr, out.ptr + bytes + 8, 0xEE);
    std::vector<uint8_t> want_out(bytes + 8, 0xEE);
    detail::KeySource src_got = src, src_want = src;
    std::vector<uint32_t> sel_got(keys.sel), sel_want(keys.sel);
    void* out_got = out.ptr;
    void* out_want = want_out.data();
    if (form == 3) {
      src_got.sel = sel_got.data();
      src_want.sel = sel_want.data();
      out_got = sel_got.data();
      out_want = sel_want.data();
    }
    const uint64_t hits = target.contains(got, p, src_got, q, result, out_got);
    REQUIRE(hits == ref.contains(want, p, src_want, q, result, out_want));
    REQUIRE(hits >= n);  // inserted keys are found
    if (form == 3) {
      REQUIRE(std::equal(sel_got.begin(), sel_got.begin() + hits, sel_want.begin()));
    } else {
      const size_t used = form == 2 ? 4 * hits : bytes;
      REQUIRE(std::memcmp(out.ptr, want_out.data(), used) == 0);
      REQUIRE(std::count(out.ptr + bytes, out.ptr + bytes + 8, 0xEE) == 8);  // nothing past
    }
    if (form == 0) {
      for (size_t i = 0; i < n; ++i) REQUIRE(out.ptr[i] == 1);  // no false negatives
      want_bytes = want_out;
      want_bytes.resize(q);
    }
    ++forms;
  }

  // u64 keys (no selection): the target's hash stage, fed back as pre-hashed keys (aligned ones are
  // read in place, unaligned ones copied), gives the same filter and answers.
  // (Not the Murmur3 layouts: their pre-hashed keys are h1 alone, tested in guava_test.cc.)
  if (r.kind == detail::KeyKind::kU64 && !r.sel && !detail::InfoOf(r.l->id).murmur128) {
    std::vector<uint64_t> hashes(r.pool);
    (xxh64 ? k.hash_u64_xxh64 : k.hash_u64)(reinterpret_cast<const uint64_t*>(keys.at.ptr), r.pool,
                                            p.seed, hashes.data());
    Unaligned hashes_at(r.pool * 8, r.misalign);
    if (r.pool > 0) std::memcpy(hashes_at.ptr, hashes.data(), r.pool * 8);
    for (const uint64_t* hp : {static_cast<const uint64_t*>(hashes.data()),
                               reinterpret_cast<const uint64_t*>(hashes_at.ptr)}) {
      detail::KeySource hs = HashSource(hp);
      hs.sel = src.sel;
      std::vector<uint64_t> s4;
      uint64_t* staged = AlignedWords(s4, blocks512);
      target.insert(staged, p, hs, n, nullptr);
      REQUIRE(std::memcmp(staged, want, blocks512 * 64) == 0);
      std::vector<uint8_t> staged_out(q);
      target.contains(staged, p, hs, q, detail::ResultKind::kBytes, staged_out.data());
      REQUIRE(staged_out == want_bytes);
    }
  }
  return forms;
}

// Every row of the table on every target, the row captured so that a failure names it.
TEST_CASE("equivalence: every layout, k, size, alignment, key source and result form") {
  static const std::vector<Row> rows = Rows();
  test::ForEachTarget("layouts", [&](const Kernels& k) {
    const std::string target = k.name;
    CAPTURE(target);
    std::vector<int> rows_of(LayoutCases().size()), forms_of(LayoutCases().size());
    for (const Row& r : rows) {
      CAPTURE(r);
      const size_t li = static_cast<size_t>(r.l - LayoutCases().data());
      forms_of[li] += RunRow(k, r);
      ++rows_of[li];
    }
    int total = 0;
    for (size_t li = 0; li < LayoutCases().size(); ++li) {
      std::printf("[%s] target %s: %d cases (%d query result forms) equal to the reference\n",
                  LayoutCases()[li].name, k.name, rows_of[li], forms_of[li]);
      total += rows_of[li];
    }
    std::printf("[layouts] target %s: %d cases equal to the reference\n", k.name, total);
  });
}

// FilterSet's fused block512 probe (Block512SetKernels, kernels/block512/spec.h) on every target
// against the reference: the masks word for word against the scalar probes, and the selections of
// filters of different sizes (1 block, odd counts) in one call, every k, with and without an index
// list, at prefetch distances 0, 1 and 64, against Block512Scalar::Contains.
TEST_CASE("equivalence: block512 set kernel (masks and selections) equals the reference") {
  const detail::Block512SetKernels& ref = detail::Reference().block512_set;
  const uint64_t blocks[] = {1, 3, 7, 129, 1001};
  test::ForEachTarget("block512 set", [&](const Kernels& target) {
    const std::string name = target.name;
    CAPTURE(name);
    const detail::Block512SetKernels& set = target.block512_set;
    const bool filled = set.masks != nullptr && set.select != nullptr;
    REQUIRE(filled);
    size_t cases = 0;
    for (uint32_t k = 1; k <= 16; ++k) {
      // Filters of k probes, each holding every (2 + f)-th key of the batch (and a few others).
      std::vector<std::vector<uint64_t>> storage(std::size(blocks));
      std::vector<detail::Block512SetFilter> filters;
      const std::vector<uint64_t> hashes = test::RandomKeys(1100, 1000 + k);
      for (size_t f = 0; f < std::size(blocks); ++f) {
        uint64_t* words = AlignedWords(storage[f], blocks[f]);
        const Params p{blocks[f], k, 0};
        for (size_t j = f; j < hashes.size(); j += 2 + f) {
          detail::Block512Scalar::Insert(words, p, hashes[j]);
        }
        filters.push_back({words, blocks[f]});
      }
      for (size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{31}, size_t{1023}, size_t{1025}}) {
        CAPTURE(k);
        CAPTURE(n);
        // Masks, from unaligned hashes too.
        Unaligned at(n * 8, 3);
        if (n > 0) std::memcpy(at.ptr, hashes.data(), n * 8);
        std::vector<uint64_t> want(8 * n + 1, 7), got(8 * n + 1, 7), got_u(8 * n + 1, 7);
        ref.masks(hashes.data(), n, k, want.data());
        set.masks(hashes.data(), n, k, got.data());
        set.masks(reinterpret_cast<const uint64_t*>(at.ptr), n, k, got_u.data());
        REQUIRE(got == want);
        REQUIRE(got_u == want);
        for (size_t j = 0; j < n; ++j) {
          int bits = 0;
          for (int w = 0; w < 8; ++w) bits += __builtin_popcountll(got[8 * j + w]);
          REQUIRE(bits >= 1);
          REQUIRE(bits <= static_cast<int>(k));
        }
        // Selections of every filter in one call; then of an index list (every third key,
        // ascending, as FilterSet's remaining keys are).
        std::vector<uint32_t> idx;
        for (size_t j = 0; j < n; j += 3) idx.push_back(static_cast<uint32_t>(j));
        for (const bool with_idx : {false, true}) {
          const size_t len = with_idx ? idx.size() : n;
          const uint32_t* ip = with_idx ? idx.data() : nullptr;
          const size_t m = filters.size();
          const size_t stride = len + 2;
          std::vector<uint32_t> want_sel(m * stride, 99), want_counts(m, 99);
          const uint64_t want_total =
              ref.select(filters.data(), m, k, hashes.data(), want.data(), ip, len, 0,
                         want_sel.data(), stride, want_counts.data());
          uint64_t sum = 0;
          for (size_t f = 0; f < m; ++f) {
            // The reference itself: key j selected iff Block512Scalar::Contains.
            std::vector<uint32_t> direct;
            const Params p{blocks[f], k, 0};
            for (size_t j = 0; j < len; ++j) {
              if (detail::Block512Scalar::Contains(filters[f].words, p, hashes[ip ? ip[j] : j])) {
                direct.push_back(static_cast<uint32_t>(j));
              }
            }
            REQUIRE(want_counts[f] == direct.size());
            REQUIRE(std::equal(direct.begin(), direct.end(), want_sel.begin() + f * stride));
            sum += direct.size();
          }
          REQUIRE(want_total == sum);
          for (uint32_t distance : {0u, 1u, 64u}) {
            CAPTURE(with_idx);
            CAPTURE(distance);
            std::vector<uint32_t> sel(m * stride, 99), counts(m, 99);
            const uint64_t total =
                set.select(filters.data(), m, k, reinterpret_cast<const uint64_t*>(at.ptr),
                           got.data(), ip, len, distance, sel.data(), stride, counts.data());
            REQUIRE(total == want_total);
            REQUIRE(counts == want_counts);
            for (size_t f = 0; f < m; ++f) {
              REQUIRE(std::equal(sel.begin() + f * stride, sel.begin() + f * stride + counts[f],
                                 want_sel.begin() + f * stride));
            }
            ++cases;
          }
        }
      }
    }
    std::printf("[block512 set] target %s: %zu cases equal to the reference\n", target.name, cases);
  });
}

TEST_CASE("equivalence: XXH3 and XXH64 of u32 keys equal libxxhash") {
  std::vector<uint32_t> keys;
  for (uint64_t v : test::RandomKeys(200000, 77)) keys.push_back(static_cast<uint32_t>(v));
  for (uint32_t e : {0u, 1u, 0xFFFFFFFFu, 0x80000000u, 0x01234567u}) keys.push_back(e);
  test::ForEachTarget("hash_u32", [&](const Kernels& k) {
    for (uint64_t seed : kSeeds) {
      for (size_t n : BatchSizes()) {
        for (size_t misalign : {0, 1, 2}) {
          const size_t count = n == 4097 ? keys.size() : n;
          Unaligned in(count * 4, misalign);
          if (count > 0) std::memcpy(in.ptr, keys.data(), count * 4);
          const uint32_t* kp = reinterpret_cast<const uint32_t*>(in.ptr);
          std::vector<uint64_t> got(count + 1, 0xA5), got64(count + 1, 0xA5);
          k.hash_u32(kp, count, seed, got.data());
          k.hash_u32_xxh64(kp, count, seed, got64.data());
          size_t bad = 0;
          for (size_t i = 0; i < count; ++i) {
            bad += got[i] != XXH3_64bits_withSeed(&keys[i], 4, seed);
            bad += got64[i] != XXH64(&keys[i], 4, seed);
          }
          REQUIRE_MESSAGE(bad == 0, k.name, " n=", count, " seed ", seed);
          REQUIRE(got[count] == 0xA5);
          REQUIRE(got64[count] == 0xA5);
        }
      }
    }
  });
}

TEST_CASE("equivalence: filters beyond 2^32 bits index past bit 2^32") {
  // The block index is 64-bit: blocks past 2^23 (bit 2^32) are reached. Uses the pre-hashed stage
  // with hashes aimed at the last block, so the test needs only the top of a large index space.
  const uint64_t nb = (uint64_t{1} << 32) - 1;  // 2^41 - 512 bits
  test::ForEachTarget("big_index", [&](const Kernels& k) {
    const uint64_t hashes[] = {~uint64_t{0}, uint64_t{0xFFFFFFFF} << 32 | 12345, uint64_t{1} << 63};
    uint64_t got[3], want[3];
    k.block_index(hashes, 3, nb, got);
    detail::Reference().block_index(hashes, 3, nb, want);
    for (int i = 0; i < 3; ++i) CHECK(got[i] == want[i]);
    CHECK(got[0] == nb - 1);
    CHECK(got[2] == nb / 2);
    CHECK(got[0] * 512 > (uint64_t{1} << 32));
  });
}

}  // namespace
}  // namespace simdbloom

namespace simdbloom {
namespace {

// The split_block256 layout is Parquet's: a bitset written by parquet-mr answers as it should,
// through every target's pre-hashed query kernel and the reference.
TEST_CASE("equivalence: split_block256 reads a filter written by parquet-mr") {
  std::FILE* f = std::fopen(SIMDBLOOM_TEST_DATA_DIR "/parquet/bloom_filter.xxhash.bin", "rb");
  REQUIRE(f != nullptr);
  std::vector<uint8_t> file(2048);
  file.resize(std::fread(file.data(), 1, file.size(), f));
  std::fclose(f);
  REQUIRE(file.size() == 16 + 1024);
  std::vector<uint64_t> storage;
  uint64_t* words = AlignedWords(storage, 1024 / 64);
  std::memcpy(words, file.data() + 16, 1024);
  const detail::Params p{1024 / 32, 8, 0};

  const char* present[] = {"hello", "parquet", "bloom", "filter"};
  std::vector<uint64_t> hashes;
  for (const char* s : present) hashes.push_back(XXH64(s, std::strlen(s), 0));
  // Absent strings: at 4 keys in 32 blocks the filter's FPR is about 1e-9, so none may match.
  for (int i = 0; i < 1000; ++i) {
    const std::string s = "absent-" + std::to_string(i);
    hashes.push_back(XXH64(s.data(), s.size(), 0));
  }
  std::vector<const Kernels*> all = test::TargetsUnderTest();
  all.push_back(&detail::Reference());
  for (const Kernels* k : all) {
    CAPTURE(k->name);
    std::vector<uint8_t> out(hashes.size());
    k->For(LayoutId::kSplitBlock256)
        .contains(words, p, HashSource(hashes.data()), hashes.size(), detail::ResultKind::kBytes,
                  out.data());
    for (size_t i = 0; i < 4; ++i) CHECK(out[i] == 1);
    size_t false_positives = 0;
    for (size_t i = 4; i < out.size(); ++i) false_positives += out[i];
    CHECK(false_positives == 0);
    // Inserting the four strings into an empty filter reproduces parquet-mr's bitset exactly.
    std::vector<uint64_t> s2;
    uint64_t* rebuilt = AlignedWords(s2, 1024 / 64);
    k->For(LayoutId::kSplitBlock256).insert(rebuilt, p, HashSource(hashes.data()), 4, nullptr);
    CHECK(std::memcmp(rebuilt, words, 1024) == 0);
  }
}

}  // namespace
}  // namespace simdbloom
