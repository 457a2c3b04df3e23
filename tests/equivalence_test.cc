// Every SIMD target against the scalar reference, bit for bit: hashing, block index, insert and
// query of every layout, on awkward sizes, unaligned pointers, all k, several seeds and sizes.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "kernels/dispatch.h"
#include "kernels/reference.h"
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

const LayoutCase kLayouts[] = {
    {LayoutId::kBlock512, "block512", 64, 1, 16, 20000},
    {LayoutId::kRegister64, "register64", 8, 1, 16, 140000},
    {LayoutId::kSplitBlock256, "split_block256", 32, 8, 8, 40000},
    {LayoutId::kClassic, "classic", 64, 1, 32, 20000},
};

// Prefetch distances: none, short, one step, past a tile, and beyond the tile (clamped).
const uint32_t kDistances[] = {0, 1, 8, 64, 256, 1000};
// Probe lines a classic query prefetches: none, one, the default, all.
const uint32_t kQueryProbes[] = {0, 1, 2, 32};

detail::KeySource U64Source(const uint64_t* keys) {
  detail::KeySource s;
  s.kind = detail::KeyKind::kU64;
  s.keys = keys;
  return s;
}

detail::KeySource HashSource(const uint64_t* hashes) {
  detail::KeySource s;
  s.kind = detail::KeyKind::kHashes;
  s.keys = hashes;
  return s;
}

// Inserts `keys` with target and reference, compares the filter bytes and the query results on the
// inserted keys and on as many random ones.
void CompareInsertAndQuery(const Kernels& k, const LayoutCase& l, Params p,
                           const std::vector<uint64_t>& keys, size_t misalign) {
  const size_t n = keys.size();
  const size_t bytes = p.num_blocks * l.block_bytes;
  const size_t blocks512 = (bytes + 63) / 64;
  const detail::LayoutKernels& target = k.For(l.id);
  const detail::LayoutKernels& ref = detail::Reference().For(l.id);
  std::vector<uint64_t> s1, s2;
  uint64_t* got = AlignedWords(s1, blocks512);
  uint64_t* want = AlignedWords(s2, blocks512);
  Unaligned in(n * 8, misalign);
  if (n > 0) std::memcpy(in.ptr, keys.data(), n * 8);
  const uint64_t* kp = reinterpret_cast<const uint64_t*>(in.ptr);

  // The per-key "was new" bytes, written to an unaligned buffer with a guard byte past the end.
  Unaligned fresh(n + 1, misalign);
  fresh.ptr[n] = 0xEE;
  std::vector<uint8_t> want_fresh(n);
  const uint64_t changed = target.insert(got, p, U64Source(kp), n, fresh.ptr);
  REQUIRE(changed == ref.insert(want, p, U64Source(keys.data()), n, want_fresh.data()));
  REQUIRE(std::equal(want_fresh.begin(), want_fresh.end(), fresh.ptr));
  REQUIRE(fresh.ptr[n] == 0xEE);
  REQUIRE(static_cast<uint64_t>(std::count(fresh.ptr, fresh.ptr + n, 1)) == changed);
  REQUIRE(changed <= n);
  if (n > 0) REQUIRE(changed > 0);
  REQUIRE(std::memcmp(got, want, blocks512 * 64) == 0);  // includes the padding: still zero
  // Repeats change nothing, and no key is new.
  REQUIRE(target.insert(got, p, U64Source(kp), n, fresh.ptr) == 0);
  REQUIRE(std::count(fresh.ptr, fresh.ptr + n, 0) == static_cast<ptrdiff_t>(n));

  std::vector<uint64_t> probe = keys;
  std::vector<uint64_t> more = test::RandomKeys(n, p.seed ^ 0x5555);
  probe.insert(probe.end(), more.begin(), more.end());
  Unaligned out(probe.size() + 1, misalign);
  out.ptr[probe.size()] = 0xEE;
  std::vector<uint8_t> want_out(probe.size());
  const uint64_t hits = target.contains(got, p, U64Source(probe.data()), probe.size(),
                                        detail::ResultKind::kBytes, out.ptr);
  REQUIRE(hits == ref.contains(want, p, U64Source(probe.data()), probe.size(),
                               detail::ResultKind::kBytes, want_out.data()));
  REQUIRE(std::equal(want_out.begin(), want_out.end(), out.ptr));
  REQUIRE(out.ptr[probe.size()] == 0xEE);                   // nothing written past the end
  for (size_t i = 0; i < n; ++i) REQUIRE(out.ptr[i] == 1);  // no false negatives

  // The pre-hashed stages give the same filter and answers.
  std::vector<uint64_t> hashes(probe.size());
  if (l.id == LayoutId::kSplitBlock256) {
    k.hash_u64_xxh64(probe.data(), probe.size(), p.seed, hashes.data());
  } else {
    k.hash_u64(probe.data(), probe.size(), p.seed, hashes.data());
  }
  // Aligned hashes are read in place, unaligned ones copied: both must agree.
  Unaligned hashes_at(probe.size() * 8, misalign);
  if (!probe.empty()) std::memcpy(hashes_at.ptr, hashes.data(), probe.size() * 8);
  for (const uint64_t* hp : {static_cast<const uint64_t*>(hashes.data()),
                             reinterpret_cast<const uint64_t*>(hashes_at.ptr)}) {
    std::vector<uint64_t> s3;
    uint64_t* staged = AlignedWords(s3, blocks512);
    target.insert(staged, p, HashSource(hp), n, nullptr);
    REQUIRE(std::memcmp(staged, want, blocks512 * 64) == 0);
    std::vector<uint8_t> staged_out(probe.size());
    target.contains(staged, p, HashSource(hp), probe.size(), detail::ResultKind::kBytes,
                    staged_out.data());
    REQUIRE(staged_out == want_out);
  }
}

TEST_CASE("equivalence: every layout, every k, batch size and alignment") {
  test::ForEachTarget("layouts", [&](const Kernels& k) {
    for (const LayoutCase& l : kLayouts) {
      int cases = 0;
      // Tiny (1 block), odd, medium, and >= 1 MiB so the prefetching path runs.
      for (uint64_t nb : {uint64_t{1}, uint64_t{3}, uint64_t{1000}, l.prefetched_blocks}) {
        for (uint32_t kk = l.min_k; kk <= l.max_k; ++kk) {
          const uint64_t seed = kSeeds[(kk + nb) % 4];
          CAPTURE(l.name);
          CAPTURE(nb);
          CAPTURE(kk);
          Params p{nb, kk, seed};
          p.prefetch_distance = kDistances[kk % 6];
          p.query_prefetch_probes = kQueryProbes[(kk + nb) % 4];
          CompareInsertAndQuery(k, l, p, test::RandomKeys(600, kk * nb), kk % 8);
          ++cases;
        }
      }
      const uint32_t kk = l.min_k == l.max_k ? l.min_k : 7;
      for (size_t n : BatchSizes()) {
        for (size_t misalign : {0, 1, 4, 7}) {
          CAPTURE(l.name);
          CAPTURE(n);
          Params p{37, kk, kSeeds[misalign % 4]};
          p.prefetch_distance = kDistances[(n + misalign) % 6];
          p.query_prefetch_probes = kQueryProbes[misalign % 4];
          CompareInsertAndQuery(k, l, p, test::RandomKeys(n, n + 11), misalign);
          ++cases;
        }
      }
      std::printf("[%s] target %s: %d cases equal to the reference\n", l.name, k.name, cases);
    }
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

// Every key source (u64, u32, pre-hashed, hash function; each direct and through a selection
// vector) and every result form (bytes, bitmap, selection, selection in place) against the
// reference: filter bytes, changed counts, outputs byte for byte, nothing written past the end.
TEST_CASE("equivalence: every key source and result form") {
  const size_t kMax = 1100;
  const std::vector<uint64_t> keys64 = test::RandomKeys(kMax, 99);
  std::vector<uint32_t> keys32;
  std::vector<std::string> strings;
  for (uint64_t v : keys64) {
    keys32.push_back(static_cast<uint32_t>(v));
    strings.push_back(std::string(static_cast<size_t>(v % 40), static_cast<char>(v >> 8)) +
                      std::to_string(v));
  }
  // A selection vector: every third key, then a few repeats and a descending run.
  std::vector<uint32_t> sel;
  for (uint32_t i = 0; i < kMax; i += 3) sel.push_back(i);
  for (uint32_t i = 0; i < 50; ++i) sel.push_back(static_cast<uint32_t>(kMax - 1 - 2 * i));
  sel.push_back(5);
  sel.push_back(5);

  test::ForEachTarget("sources", [&](const Kernels& k) {
    int cases = 0;
    for (const LayoutCase& l : kLayouts) {
      const bool xxh64 = l.id == LayoutId::kSplitBlock256;
      for (uint64_t nb : {uint64_t{3}, l.prefetched_blocks}) {
        Params p{nb, l.min_k == l.max_k ? l.min_k : 6, 0x1234 + nb};
        std::vector<uint64_t> hashes(kMax);
        (xxh64 ? detail::Reference().hash_u64_xxh64 : detail::Reference().hash_u64)(
            keys64.data(), kMax, p.seed, hashes.data());
        StringCtx ctx{&strings, xxh64, p.seed};
        for (int kind = 0; kind < 4; ++kind) {
          for (bool use_sel : {false, true}) {
            for (size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{9}, size_t{255}, size_t{257},
                             sel.size()}) {
              CAPTURE(l.name);
              CAPTURE(nb);
              CAPTURE(kind);
              CAPTURE(use_sel);
              CAPTURE(n);
              p.prefetch_distance = kDistances[(n + kind) % 6];
              p.query_prefetch_probes = kQueryProbes[(n + kind + use_sel) % 4];
              detail::KeySource src;
              src.kind = static_cast<detail::KeyKind>(kind);
              src.keys = kind == 1   ? static_cast<const void*>(keys32.data())
                         : kind == 2 ? static_cast<const void*>(hashes.data())
                                     : static_cast<const void*>(keys64.data());
              src.hash_fn = &HashStringRun;
              src.ctx = &ctx;
              src.sel = use_sel ? sel.data() : nullptr;
              const size_t blocks512 = (nb * l.block_bytes + 63) / 64;
              std::vector<uint64_t> s1, s2;
              uint64_t* got = AlignedWords(s1, blocks512);
              uint64_t* want = AlignedWords(s2, blocks512);
              // Insert the first half (selections repeat keys: new only the first time), query
              // all n.
              std::vector<uint8_t> fresh(n / 2 + 1, 0xEE), want_fresh(n / 2 + 1, 0xEE);
              const uint64_t changed = k.For(l.id).insert(got, p, src, n / 2, fresh.data());
              REQUIRE(changed ==
                      detail::Reference().For(l.id).insert(want, p, src, n / 2, want_fresh.data()));
              REQUIRE(fresh == want_fresh);
              REQUIRE(fresh[n / 2] == 0xEE);
              REQUIRE(std::memcmp(got, want, blocks512 * 64) == 0);
              for (int r = 0; r < 4; ++r) {
                CAPTURE(r);
                const auto result = static_cast<detail::ResultKind>(r == 3 ? 2 : r);
                const size_t bytes = r == 0 ? n : r == 1 ? (n + 7) / 8 : 4 * n;
                std::vector<uint8_t> out(bytes + 8, 0xEE), want_out(bytes + 8, 0xEE);
                detail::KeySource src_got = src, src_want = src;
                std::vector<uint32_t> sel_got(sel), sel_want(sel);
                void* out_got = out.data();
                void* out_want = want_out.data();
                if (r == 3) {  // in place: the output is the source's own selection vector
                  if (!use_sel) continue;
                  src_got.sel = sel_got.data();
                  src_want.sel = sel_want.data();
                  out_got = sel_got.data();
                  out_want = sel_want.data();
                }
                const uint64_t hits = k.For(l.id).contains(got, p, src_got, n, result, out_got);
                REQUIRE(hits == detail::Reference().For(l.id).contains(want, p, src_want, n, result,
                                                                       out_want));
                if (r == 3) {
                  REQUIRE(std::equal(sel_got.begin(), sel_got.begin() + hits, sel_want.begin()));
                } else {
                  const size_t used = r == 2 ? 4 * hits : bytes;
                  REQUIRE(std::memcmp(out.data(), want_out.data(), used) == 0);
                  REQUIRE(out[bytes] == 0xEE);  // nothing past the end
                }
                ++cases;
              }
            }
          }
        }
      }
    }
    std::printf("[sources] target %s: %d cases equal to the reference\n", k.name, cases);
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
