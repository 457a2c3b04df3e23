// SPDX-License-Identifier: Apache-2.0
// The guava and guava32 layouts against Guava itself: the golden files of tests/data/guava/ (made
// by Guava 31.1's own BloomFilter, tests/guava/GuavaOracle.java; tests/guava/README.md says what
// they hold). Every probe's answer equals Guava's mightContain, false positives included; our
// to_guava() bytes equal Guava's writeTo bytes for the same keys; from_guava -> to_guava is the
// identity; create() sizes as Guava's create; merge, the library's file format, views; every SIMD
// target; Murmur3 against published vectors; the exact remainder at its edges on every target.
#include "kernels/scalar/guava.h"

#include <doctest/doctest.h>
#include <sys/mman.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "kernels/dispatch.h"
#include "kernels/reference.h"
#include "simdbloom/simdbloom.hpp"
#include "tests/test_util.h"

namespace simdbloom {
namespace {

std::string GuavaDir() { return std::string(SIMDBLOOM_TEST_DATA_DIR) + "/guava/"; }

std::vector<uint8_t> ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot read ", path);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

// tests/guava/README.md, "Keys".
uint64_t Mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}
uint64_t X(uint64_t seed, uint64_t i) { return Mix(seed + (i + 1) * 0x9E3779B97F4A7C15ULL); }

struct Case {
  std::string name, funnel;
  int strategy = 0;
  uint64_t n = 0;
  double fpp = 0;
  uint64_t seed = 0;
  size_t inserted = 0, absent = 0;
  Layout layout() const { return strategy == 1 ? Layout::kGuava : Layout::kGuava32; }
  KeyType key_type() const {
    return funnel == "long" ? KeyType::kInt64 : funnel == "int" ? KeyType::kInt32 : KeyType::kBytes;
  }
  size_t probes() const { return inserted + absent; }
};

std::vector<Case> Cases() {
  std::ifstream in(GuavaDir() + "cases.txt");
  REQUIRE(in.good());
  std::vector<Case> cases;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream f(line);
    Case c;
    std::string fpp_hex;
    f >> c.name >> c.funnel >> c.strategy >> c.n >> fpp_hex >> c.seed >> c.inserted >> c.absent;
    const uint64_t bits = std::stoull(fpp_hex, nullptr, 16);
    std::memcpy(&c.fpp, &bits, 8);
    REQUIRE(!f.fail());
    cases.push_back(c);
  }
  REQUIRE(cases.size() >= 40);
  return cases;
}

// The probe keys of a case in the shape its funnel takes (the first `inserted` are members).
struct CaseKeys {
  std::vector<int64_t> longs;
  std::vector<int32_t> ints;
  std::vector<std::string> bytes;
  explicit CaseKeys(const Case& c) {
    static const char* const kSuffix[] = {"", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80"};
    for (size_t i = 0; i < c.probes(); ++i) {
      const uint64_t v = X(c.seed, i);
      if (c.funnel == "long") {
        longs.push_back(static_cast<int64_t>(v));
      } else if (c.funnel == "int") {
        ints.push_back(static_cast<int32_t>(static_cast<uint32_t>(v)));
      } else if (c.funnel == "utf8") {
        bytes.push_back("k" + std::to_string(v) + kSuffix[v >> 62]);
      } else {
        std::string b(static_cast<size_t>(v >> 58), '\0');
        for (size_t j = 0; j < b.size(); ++j) b[j] = static_cast<char>((v >> (8 * (j & 7))) + j);
        bytes.push_back(b);
      }
    }
  }
  Keys all() const {
    if (!longs.empty()) return Keys(longs);
    if (!ints.empty()) return Keys(ints);
    return Keys(bytes);
  }
  Keys first(size_t n) const {
    if (!longs.empty()) return Keys(longs.data(), n);
    if (!ints.empty()) return Keys(ints.data(), n);
    return Keys(bytes.data(), n);
  }
  Key key(size_t i) const {
    if (!longs.empty()) return longs[i];
    if (!ints.empty()) return ints[i];
    return std::string_view(bytes[i]);
  }
};

Filter Build(const Case& c, const CaseKeys& keys) {
  Filter f = Filter::create(c.n, c.fpp, c.layout(), 0, c.key_type());
  f.insert(keys.first(c.inserted));
  return f;
}

// Our answers to every probe, as a bitmap (Guava's .hits form).
std::vector<uint8_t> Hits(const Filter& f, const CaseKeys& keys) {
  std::vector<uint8_t> bitmap((keys.all().size() + 7) / 8);
  f.contains_bitmap(keys.all(), bitmap.data());
  return bitmap;
}

size_t Ones(const std::vector<uint8_t>& bitmap) {
  size_t n = 0;
  for (uint8_t b : bitmap) n += static_cast<size_t>(__builtin_popcount(b));
  return n;
}

TEST_CASE("guava: Murmur3 x64 128 equals the published vectors and its short forms") {
  // MurmurHash3_x64_128, seed 0: "" and "hello" (the reference implementation's outputs), and the
  // vectors of Guava's Murmur3Hash128Test ("The quick brown fox jumps over the lazy dog").
  const scalar::Hash128 empty = scalar::Murmur3x64_128("", 0);
  CHECK(empty.h1 == 0);
  CHECK(empty.h2 == 0);
  const scalar::Hash128 fox =
      scalar::Murmur3x64_128("The quick brown fox jumps over the lazy dog", 43);
  CHECK(fox.h1 == 0xE34BBC7BBC071B6CULL);
  CHECK(fox.h2 == 0x7A433CA9C49A9347ULL);
  const scalar::Hash128 hello = scalar::Murmur3x64_128("hello", 5);
  CHECK(hello.h1 == 0xCBD8A7B341BD9B02ULL);
  CHECK(hello.h2 == 0x5B1E906A48AE1D19ULL);
  test::Rng rng(42);
  for (int i = 0; i < 1000; ++i) {
    const uint64_t v = rng();
    uint8_t le[8];
    for (int b = 0; b < 8; ++b) le[b] = static_cast<uint8_t>(v >> (8 * b));
    const scalar::Hash128 a = scalar::Murmur3U64(v), b8 = scalar::Murmur3x64_128(le, 8);
    REQUIRE(a.h1 == b8.h1);
    REQUIRE(a.h2 == b8.h2);
    const scalar::Hash128 c = scalar::Murmur3U32(static_cast<uint32_t>(v)),
                          b4 = scalar::Murmur3x64_128(le, 4);
    REQUIRE(c.h1 == b4.h1);
    REQUIRE(c.h2 == b4.h2);
  }
}

TEST_CASE("guava: every golden case: bytes, answers and round trip equal Guava's") {
  size_t cases = 0, false_positives = 0;
  for (const Case& c : Cases()) {
    CAPTURE(c.name);
    const CaseKeys keys(c);
    const std::vector<uint8_t> golden = ReadBytes(GuavaDir() + c.name + ".guava");
    const std::vector<uint8_t> golden_hits = ReadBytes(GuavaDir() + c.name + ".hits");
    // create() sizes as Guava's create; the same keys give Guava's bytes.
    const Filter ours = Build(c, keys);
    REQUIRE(ours.to_guava() == golden);
    // Every probe's answer, bulk and single-key, equals Guava's mightContain.
    REQUIRE(Hits(ours, keys) == golden_hits);
    for (size_t i = 0; i < c.probes(); ++i) {
      REQUIRE(ours.contains(keys.key(i)) == (((golden_hits[i / 8] >> (i % 8)) & 1) != 0));
    }
    // Guava's bytes read back answer the same, and write back identically.
    const Filter read = Filter::from_guava(golden.data(), golden.size(), c.key_type());
    CHECK(read.layout() == c.layout());
    CHECK(read.num_hashes() == golden[1]);
    REQUIRE(Hits(read, keys) == golden_hits);
    REQUIRE(read.to_guava() == golden);
    false_positives += Ones(golden_hits) - c.inserted;
    ++cases;
  }
  std::printf("[guava] %zu golden cases equal to Guava 31.1, %zu false positives among them\n",
              cases, false_positives);
  CHECK(false_positives > 100);  // the cases do test Guava's false positives
}

TEST_CASE("guava: single-key inserts, threads, concurrent inserts and merge give Guava's bytes") {
  for (const Case& c : Cases()) {
    if (c.name.find("k7") == std::string::npos && c.name.find("big") == std::string::npos) continue;
    CAPTURE(c.name);
    const CaseKeys keys(c);
    const std::vector<uint8_t> golden = ReadBytes(GuavaDir() + c.name + ".guava");
    Filter one = Filter::create(c.n, c.fpp, c.layout(), 0, c.key_type());
    for (size_t i = 0; i < c.inserted; ++i) one.insert(keys.key(i));
    REQUIRE(one.to_guava() == golden);
    // Two halves merged; a filter intersected with itself keeps its bits.
    Filter a = Filter::create(c.n, c.fpp, c.layout(), 0, c.key_type());
    Filter b = Filter::create(c.n, c.fpp, c.layout(), 0, c.key_type());
    const size_t half = c.inserted / 2;
    a.insert(keys.first(half));
    for (size_t i = half; i < c.inserted; ++i) b.insert(keys.key(i));
    a.merge(b);
    REQUIRE(a.to_guava() == golden);
    a.intersect(one);
    REQUIRE(a.to_guava() == golden);
    b.intersect(one);
    CHECK(b.to_guava() != golden);
    // The filter read from Guava's bytes merges with ours.
    Filter read = Filter::from_guava(golden.data(), golden.size(), c.key_type());
    read.merge(b);
    REQUIRE(read.to_guava() == golden);
  }
}

TEST_CASE("guava: the library's file format, view and map_file keep Guava's bits") {
  for (const Case& c : Cases()) {
    if (c.name.find("k20") == std::string::npos && c.name.find("tiny") == std::string::npos) {
      continue;
    }
    CAPTURE(c.name);
    const CaseKeys keys(c);
    const std::vector<uint8_t> golden = ReadBytes(GuavaDir() + c.name + ".guava");
    const std::vector<uint8_t> golden_hits = ReadBytes(GuavaDir() + c.name + ".hits");
    const Filter f = Filter::from_guava(golden.data(), golden.size(), c.key_type());
    std::ostringstream out;
    f.save(out);
    const std::string saved = out.str();
    CHECK(saved.size() == 64 + 8 * ((golden.size() - 6) / 8));  // no padding counted as bits
    const Filter loaded =
        Filter::load(reinterpret_cast<const uint8_t*>(saved.data()), saved.size());
    CHECK(loaded.layout() == c.layout());
    CHECK(loaded.key_type() == c.key_type());
    CHECK(loaded.bit_count() == 64 * ((golden.size() - 6) / 8));
    REQUIRE(loaded.to_guava() == golden);
    REQUIRE(Hits(loaded, keys) == golden_hits);
    // A view over 64-byte-aligned bytes.
    const test::Aligned aligned(saved);
    const Filter view = Filter::view(aligned.ptr, saved.size());
    REQUIRE(Hits(view, keys) == golden_hits);
    REQUIRE(view.to_guava() == golden);
    // map_file of a saved file.
    const std::string path = "simdbloom_guava_test_" + c.name + ".sbf";
    f.save_file(path);
    {
      const Filter mapped = Filter::map_file(path);
      REQUIRE(Hits(mapped, keys) == golden_hits);
      REQUIRE(mapped.to_guava() == golden);
    }
    std::remove(path.c_str());
  }
}

TEST_CASE("guava: every SIMD target answers and writes as Guava") {
  const std::vector<Case> all = Cases();
  test::ForEachApiTarget([&](const std::string&) {
    for (const Case& c : all) {
      if (c.name.find("k1") == std::string::npos && c.name.find("pow2") == std::string::npos &&
          c.name.find("k20") == std::string::npos) {
        continue;
      }
      CAPTURE(c.name);
      const CaseKeys keys(c);
      REQUIRE(Build(c, keys).to_guava() == ReadBytes(GuavaDir() + c.name + ".guava"));
      const std::vector<uint8_t> golden = ReadBytes(GuavaDir() + c.name + ".guava");
      const Filter read = Filter::from_guava(golden.data(), golden.size(), c.key_type());
      REQUIRE(Hits(read, keys) == ReadBytes(GuavaDir() + c.name + ".hits"));
      std::vector<uint8_t> bytes(c.probes());
      read.contains(keys.all(), bytes.data(), Threads{2});
      for (size_t i = 0; i < c.probes(); ++i) REQUIRE(bytes[i] == read.contains(keys.key(i)));
    }
  });
}

TEST_CASE("guava: create() sizes exactly as Guava 31.1's create") {
  std::ifstream in(GuavaDir() + "sizing.txt");
  REQUIRE(in.good());
  std::string line;
  size_t rows = 0, refused = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream f(line);
    uint64_t n, num_bits;
    uint32_t k;
    std::string fpp_hex;
    f >> n >> fpp_hex >> num_bits >> k;
    REQUIRE(!f.fail());
    const uint64_t bits = std::stoull(fpp_hex, nullptr, 16);
    double fpp;
    std::memcpy(&fpp, &bits, 8);
    CAPTURE(line);
    const uint64_t longs = (num_bits + 63) / 64;
    if (longs > (uint64_t{1} << 31) - 1 || k > 255) {  // Guava's create throws for these
      CHECK_THROWS_AS(size_for(n, fpp, Layout::kGuava), Error);
      ++refused;
    } else {
      for (Layout l : {Layout::kGuava, Layout::kGuava32}) {
        const Sizing s = size_for(n, fpp, l);
        REQUIRE(s.bits == 64 * longs);
        REQUIRE(s.k == k);
      }
    }
    ++rows;
  }
  CHECK(rows > 300);
  CHECK(refused > 0);
  CHECK_THROWS_AS(size_for(1, 0.9, Layout::kGuava), Error);  // Guava's 0 bits
}

// The exact remainder on every target at its edges: bit sizes 64 L near powers of two and near
// 2^37 (L up to 2^31 - 1), values near 2^63 and with the top bit set (c & Long.MAX_VALUE).
// A guava kernel probes bit x mod 64L for a pre-hashed key x with k = 1 (h2 = 0): insert it into a
// sparse mapping of 64 L bits and find the bit where `%` says it goes.
TEST_CASE("guava: the remainder without division is exact at the edges, on every target") {
  std::vector<uint64_t> longs_list = {1, 2, 3, 5, 7, 63, 64, 65, 1000, 1023, 1024, 1025};
  for (int e = 11; e <= 31; e += 2) {
    for (int64_t d : {-1, 0, 1}) {
      const uint64_t l = (uint64_t{1} << e) + static_cast<uint64_t>(d);
      if (l <= (uint64_t{1} << 31) - 1) longs_list.push_back(l);
    }
  }
  for (uint64_t l : {(uint64_t{1} << 31) - 1, (uint64_t{1} << 31) - 2, uint64_t{2147483629},
                     uint64_t{1999999973}}) {
    longs_list.push_back(l);
  }
  test::Rng rng(7);
  // The scalar form, exhaustively at the edges of x for every L.
  for (uint64_t l : longs_list) {
    const scalar::GuavaMod mod(l);
    const uint64_t m = 64 * l;
    std::vector<uint64_t> xs = {0,
                                1,
                                63,
                                64,
                                m - 1,
                                m,
                                m + 1,
                                2 * m - 1,
                                2 * m,
                                0x7FFFFFFFFFFFFFFFULL,
                                0x7FFFFFFFFFFFFFC0ULL,
                                0x7FFFFFFFFFFFFFBFULL,
                                0x4000000000000000ULL,
                                0x3FFFFFFFFFFFFFFFULL};
    const uint64_t top = 0x7FFFFFFFFFFFFFFFULL / m * m;  // the last multiple of m below 2^63
    for (uint64_t d = 0; d < 70; ++d) xs.push_back(top - d), xs.push_back(top + d);
    for (int i = 0; i < 2000; ++i) xs.push_back(rng() >> 1);
    for (uint64_t x : xs) {
      x &= 0x7FFFFFFFFFFFFFFFULL;
      REQUIRE(mod(x) == x % m);
    }
  }
  // The vector forms: the target's kernel places a pre-hashed key's one probe.
  const size_t kMaxMap = size_t{1} << 34;  // 16 GiB of address space, never touched but a page
  void* map = mmap(nullptr, kMaxMap, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  REQUIRE_MESSAGE(map != MAP_FAILED, "cannot reserve 16 GiB of address space");
  uint64_t* words = static_cast<uint64_t*>(map);
  size_t checked = 0;
  test::ForEachTarget("guava remainder", [&](const detail::Kernels& k) {
    for (uint64_t l : longs_list) {
      const uint64_t m = 64 * l;
      detail::Params p{l, 1, 0};
      std::vector<uint64_t> hs;
      const uint64_t top = 0x7FFFFFFFFFFFFFFFULL / m * m;
      for (uint64_t d = 0; d < 12; ++d) {
        hs.push_back(top - d);
        hs.push_back(top + d);
        hs.push_back((top - d) | 0x8000000000000000ULL);  // the top bit set: masked off
        hs.push_back(m * (d + 1) - 1);
      }
      hs.push_back(~uint64_t{0});
      for (int i = 0; i < 40; ++i) hs.push_back(rng());
      for (uint64_t h : hs) {
        const uint64_t want = (h & 0x7FFFFFFFFFFFFFFFULL) % m;
        detail::KeySource src;
        src.kind = detail::KeyKind::kHashes;
        src.keys = &h;
        REQUIRE(k.For(detail::LayoutId::kGuava).insert(words, p, src, 1, nullptr) == 1);
        uint64_t& w = words[want >> 6];
        CAPTURE(l);
        CAPTURE(h);
        REQUIRE(w == uint64_t{1} << (want & 63));  // the one bit, where `%` puts it
        uint8_t hit = 0;
        REQUIRE(k.For(detail::LayoutId::kGuava)
                    .contains(words, p, src, 1, detail::ResultKind::kBytes, &hit) == 1);
        w = 0;
        ++checked;
      }
    }
  });
  munmap(map, kMaxMap);
  CHECK(checked > 1000);
}

TEST_CASE("guava: pre-hashed keys: guava refuses them, guava32 takes Filter::hash values") {
  Filter g = Filter::create(1000, 0.01, Layout::kGuava);
  Filter g32 = Filter::create(1000, 0.01, Layout::kGuava32);
  std::vector<uint64_t> hashes = {1, 2, 3};
  CHECK_THROWS_WITH_AS(g.insert(Prehashed{hashes.data(), hashes.size()}),
                       doctest::Contains("both 64-bit halves"), Error);
  std::vector<uint8_t> out(3);
  CHECK_THROWS_AS(g.contains(Prehashed{hashes.data(), hashes.size()}, out.data()), Error);
  CHECK_THROWS_AS(g.insert_hash(5), Error);
  CHECK_THROWS_AS(g.contains_hash(5), Error);
  CHECK_THROWS_AS(g.insert_hash_concurrent(5), Error);
  // guava32: hash(key) is Murmur3's h1 (Guava's asLong()), all MITZ_32 reads.
  std::vector<int64_t> keys;
  for (int64_t i = 0; i < 500; ++i) keys.push_back(i * 7919);
  std::vector<uint64_t> h(keys.size());
  g32.hash(keys, h.data());
  Filter by_hash = Filter::create(1000, 0.01, Layout::kGuava32);
  by_hash.insert(Prehashed{h.data(), h.size()});
  g32.insert(keys);
  REQUIRE(by_hash.to_guava() == g32.to_guava());
  for (size_t i = 0; i < keys.size(); ++i) {
    REQUIRE(g32.hash(keys[i]) == h[i]);
    REQUIRE(h[i] == scalar::Murmur3U64(static_cast<uint64_t>(keys[i])).h1);
    REQUIRE(by_hash.contains_hash(h[i]));
  }
  // guava's hash() is h1 too.
  CHECK(g.hash(int64_t{42}) == scalar::Murmur3U64(42).h1);
  // A seed seeds Murmur3 (Guava's own is 0): such a filter is no Guava filter.
  Filter seeded = Filter::create(1000, 0.01, Layout::kGuava, 1);
  seeded.insert(keys);
  for (int64_t key : keys) REQUIRE(seeded.contains(key));
  CHECK(seeded.hash(int64_t{42}) == scalar::Murmur3U64(42, 1).h1);
  CHECK(seeded.hash(int64_t{42}) != g.hash(int64_t{42}));
  CHECK_THROWS_AS(seeded.to_guava(), Error);
}

TEST_CASE("guava: every key shape of a filter of bytes or int64 answers as its single keys") {
  for (Layout layout : {Layout::kGuava, Layout::kGuava32}) {
    CAPTURE(layout_name(layout));
    // Integers of every width convert by value (an int64 filter hashes 8 bytes).
    Filter f = Filter::create(2000, 0.01, layout);
    std::vector<int16_t> i16 = {-3, 5, 300};
    std::vector<uint32_t> u32 = {7, 4000000000u};
    f.insert(i16);
    f.insert(u32);
    CHECK(f.key_type() == KeyType::kInt64);
    for (int64_t v : {int64_t{-3}, int64_t{5}, int64_t{300}, int64_t{7}, int64_t{4000000000}}) {
      CHECK(f.contains(v));
    }
    Filter one = Filter::create(2000, 0.01, layout);
    for (int64_t v : {int64_t{-3}, int64_t{5}, int64_t{300}, int64_t{7}, int64_t{4000000000}}) {
      one.insert(v);
    }
    REQUIRE(one.to_guava() == f.to_guava());
    // Byte strings in every shape: std::string, string_view, Arrow offsets, fixed-width records.
    std::vector<std::string> strs = {"", "a", "hello", std::string(40, 'x'), "\xF0\x9F\x98\x80"};
    std::vector<std::string_view> views(strs.begin(), strs.end());
    std::string blob;
    std::vector<int32_t> off32 = {0};
    for (const std::string& s : strs) off32.push_back(static_cast<int32_t>((blob += s).size()));
    Filter a = Filter::create(100, 0.01, layout), b = a, c = a, d = a;
    a.insert(strs);
    b.insert(views);
    c.insert(BinaryArray<int32_t>{off32.data(), reinterpret_cast<const uint8_t*>(blob.data()),
                                  strs.size()});
    for (const std::string& s : strs) d.insert(s);
    REQUIRE(a.to_guava() == d.to_guava());
    REQUIRE(b.to_guava() == d.to_guava());
    REQUIRE(c.to_guava() == d.to_guava());
    std::vector<uint8_t> rec = {1, 2, 3, 4, 9, 9, 5, 6, 7, 8, 9, 9};
    Filter e = Filter::create(100, 0.01, layout), g = e;
    e.insert(FixedWidth{rec.data(), 4, 6, 2});
    g.insert(std::string_view("\x01\x02\x03\x04", 4));
    g.insert(std::string_view("\x05\x06\x07\x08", 4));
    REQUIRE(e.to_guava() == g.to_guava());
    CHECK_THROWS_AS(a.insert(int64_t{1}), KeyTypeError);
    // approximate_count and expected_fpp follow the bits.
    CHECK(std::fabs(d.approximate_count() - 5) < 1.5);
    CHECK(d.expected_fpp() > 0);
    CHECK(d.expected_fpp() < 1e-6);
  }
}

TEST_CASE("guava: from_guava refuses what is not a Guava filter, reading nothing past the end") {
  const std::vector<uint8_t> good = {1, 3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 5};
  CHECK(Filter::from_guava(good.data(), good.size(), KeyType::kInt64).bit_count() == 64);
  auto code = [](std::vector<uint8_t> b, size_t* consumed = nullptr) {
    try {
      // An exact-size heap copy: any read past the end is an ASan error.
      std::unique_ptr<uint8_t[]> exact(new uint8_t[b.size() + (b.empty() ? 1 : 0)]);
      if (!b.empty()) std::memcpy(exact.get(), b.data(), b.size());
      Filter::from_guava(exact.get(), b.size(), KeyType::kInt64, consumed);
    } catch (const Error& e) {
      return e.code();
    }
    return ErrorCode{};
  };
  std::vector<uint8_t> b = good;
  b[0] = 2;
  CHECK(code(b) == ErrorCode::kFormat);  // bad ordinal
  b = good;
  b[0] = 0xFF;
  CHECK(code(b) == ErrorCode::kFormat);
  b = good;
  b[1] = 0;
  CHECK(code(b) == ErrorCode::kFormat);  // k = 0
  b = good;
  b[5] = 2;
  CHECK(code(b) == ErrorCode::kFormat);  // 2 longs claimed, 1 present
  b = good;
  b[2] = 0x80;
  CHECK(code(b) == ErrorCode::kFormat);  // a negative count
  b = good;
  b[5] = 0;
  CHECK(code(b) == ErrorCode::kFormat);  // 0 longs
  b = good;
  b[2] = 0x7F, b[3] = 0xFF, b[4] = 0xFF, b[5] = 0xFF;
  CHECK(code(b) == ErrorCode::kFormat);  // a huge count: refused before any allocation
  for (size_t n = 0; n < good.size(); ++n) {
    CHECK(code(std::vector<uint8_t>(good.begin(), good.begin() + n)) == ErrorCode::kFormat);
  }
  b = good;
  b.push_back(0);
  CHECK(code(b) == ErrorCode::kFormat);  // trailing bytes without `consumed`
  size_t consumed = 0;
  CHECK(code(b, &consumed) == ErrorCode{});
  Filter f = Filter::from_guava(b.data(), b.size(), KeyType::kBytes, &consumed);
  CHECK(consumed == good.size());
  CHECK(f.key_type() == KeyType::kBytes);
  CHECK_THROWS_AS(Filter::from_guava(good.data(), good.size(), KeyType::kLegacy), Error);
  CHECK_THROWS_AS(Filter::create(100, 0.01).to_guava(), Error);
}

TEST_CASE("concurrency: guava writers on threads lose no key and give Guava's bytes") {
  for (const Case& c : Cases()) {
    if (c.name != "long_big" && c.name != "utf8_k7") continue;
    CAPTURE(c.name);
    const CaseKeys keys(c);
    const std::vector<uint8_t> golden = ReadBytes(GuavaDir() + c.name + ".guava");
    Filter t = Filter::create(c.n, c.fpp, c.layout(), 0, c.key_type());
    t.insert(keys.first(c.inserted), Threads{3});
    REQUIRE(t.to_guava() == golden);
    Filter w = Filter::create(c.n, c.fpp, c.layout(), 0, c.key_type());
    std::vector<std::thread> pool;
    for (size_t part = 0; part < 2; ++part) {
      pool.emplace_back([&, part] {
        for (size_t i = part; i < c.inserted; i += 2) w.insert_concurrent(keys.key(i));
      });
    }
    for (std::thread& th : pool) th.join();
    REQUIRE(w.to_guava() == golden);
  }
}

}  // namespace
}  // namespace simdbloom
