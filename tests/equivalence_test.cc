// Every SIMD target against the scalar reference, bit for bit: hashing, block index, insert and
// query, on awkward sizes, unaligned pointers, all k, several seeds and filter sizes.
#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "kernels/dispatch.h"
#include "kernels/reference.h"
#include "tests/test_util.h"

namespace simdbloom {
namespace {

using detail::Block512Params;
using detail::Kernels;

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

TEST_CASE("equivalence: XXH3 of u64 keys equals libxxhash") {
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
    std::vector<uint64_t> got(keys.size());
    for (uint64_t seed : kSeeds) {
      k.hash_u64(keys.data(), keys.size(), seed, got.data());
      size_t mismatches = 0;
      for (size_t i = 0; i < keys.size(); ++i) mismatches += got[i] != LibXxh3(keys[i], seed);
      CHECK_MESSAGE(mismatches == 0, k.name, " seed ", seed);
    }
    // Every batch size, from an unaligned key pointer, leaves the bytes past the end untouched.
    for (size_t n : BatchSizes()) {
      for (size_t misalign : {0, 1, 3, 7}) {
        Unaligned in(n * 8, misalign);
        std::memcpy(in.ptr, keys.data(), n * 8);
        std::vector<uint64_t> out(n + 1, 0xA5A5A5A5A5A5A5A5ull);
        k.hash_u64(reinterpret_cast<const uint64_t*>(in.ptr), n, 7, out.data());
        for (size_t i = 0; i < n; ++i) REQUIRE(out[i] == LibXxh3(keys[i], 7));
        REQUIRE(out[n] == 0xA5A5A5A5A5A5A5A5ull);
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

// Inserts `keys` with target and reference, compares the filter bytes and the query results on the
// inserted keys and on as many random ones.
void CompareInsertAndQuery(const Kernels& k, Block512Params p, const std::vector<uint64_t>& keys,
                           size_t misalign) {
  const size_t n = keys.size();
  std::vector<uint64_t> s1, s2;
  uint64_t* got = AlignedWords(s1, p.num_blocks);
  uint64_t* want = AlignedWords(s2, p.num_blocks);
  Unaligned in(n * 8, misalign);
  std::memcpy(in.ptr, keys.data(), n * 8);
  const uint64_t* kp = reinterpret_cast<const uint64_t*>(in.ptr);

  k.insert_u64(got, p, kp, n);
  detail::Reference().insert_u64(want, p, keys.data(), n);
  REQUIRE(std::memcmp(got, want, p.num_blocks * 64) == 0);

  std::vector<uint64_t> probe = keys;
  std::vector<uint64_t> more = test::RandomKeys(n, p.seed ^ 0x5555);
  probe.insert(probe.end(), more.begin(), more.end());
  Unaligned out(probe.size() + 1, misalign);
  out.ptr[probe.size()] = 0xEE;
  std::vector<uint8_t> want_out(probe.size());
  k.contains_u64(got, p, probe.data(), probe.size(), out.ptr);
  detail::Reference().contains_u64(want, p, probe.data(), probe.size(), want_out.data());
  REQUIRE(std::memcmp(out.ptr, want_out.data(), probe.size()) == 0);
  REQUIRE(out.ptr[probe.size()] == 0xEE);                   // nothing written past the end
  for (size_t i = 0; i < n; ++i) REQUIRE(out.ptr[i] == 1);  // no false negatives

  // The pre-hashed stages give the same filter and answers.
  std::vector<uint64_t> hashes(probe.size());
  k.hash_u64(probe.data(), probe.size(), p.seed, hashes.data());
  std::vector<uint64_t> s3;
  uint64_t* staged = AlignedWords(s3, p.num_blocks);
  k.insert_hashes(staged, p, hashes.data(), n);
  REQUIRE(std::memcmp(staged, want, p.num_blocks * 64) == 0);
  std::vector<uint8_t> staged_out(probe.size());
  k.contains_hashes(staged, p, hashes.data(), probe.size(), staged_out.data());
  REQUIRE(staged_out == want_out);
}

TEST_CASE("equivalence: block512 insert and query, every k, batch size and alignment") {
  test::ForEachTarget("block512", [&](const Kernels& k) {
    int cases = 0;
    // Tiny (1 block), odd, medium, and > 1 MiB so the prefetching path runs.
    for (uint64_t nb : {uint64_t{1}, uint64_t{3}, uint64_t{1000}, uint64_t{20000}}) {
      for (uint32_t kk = 1; kk <= 16; ++kk) {
        const uint64_t seed = kSeeds[(kk + nb) % 4];
        CAPTURE(nb);
        CAPTURE(kk);
        CompareInsertAndQuery(k, Block512Params{nb, kk, seed}, test::RandomKeys(600, kk * nb),
                              kk % 8);
        ++cases;
      }
    }
    for (size_t n : BatchSizes()) {
      for (size_t misalign : {0, 1, 4, 7}) {
        CAPTURE(n);
        CompareInsertAndQuery(k, Block512Params{37, 7, kSeeds[misalign % 4]},
                              test::RandomKeys(n, n + 11), misalign);
        ++cases;
      }
    }
    std::printf("[block512] target %s: %d cases equal to the reference\n", k.name, cases);
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
