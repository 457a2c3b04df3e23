// SPDX-License-Identifier: Apache-2.0
// A key is its value (lib/FORMAT.md, "Keys"): for every kind of filter, a value inserted through
// one integer type (2, 4 or 8 bytes, signed or not, single or bulk) is found through every other,
// also after the filter went through its file; what a filter holds (KeyType) is declared or set by
// its first insert and saved; a 4-byte filter refuses values beyond 32 bits on insert and answers
// them absent; integers and byte strings never mix; files from before key types answer as before;
// the new headers are frozen by golden files.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "simdbloom/counting.hpp"
#include "simdbloom/scalable.hpp"
#include "simdbloom/shifting.hpp"
#include "simdbloom/simdbloom.hpp"
#include "simdbloom/spatial.hpp"
#include "tests/test_util.h"

namespace simdbloom {
namespace {

// Values every integer type can carry (0..32767) and some only wide or signed types can.
std::vector<int64_t> Values() {
  std::vector<int64_t> v = {0, 1, 5, 7, 255, 256, 32767};
  test::Rng rng(39);
  for (int i = 0; i < 33; ++i) v.push_back(static_cast<int64_t>(rng() % 32768));
  return v;
}

// The typed calls of one kind (F), for one integer type T.
template <class F>
struct Calls;

template <>
struct Calls<Filter> {
  template <class T>
  static void Insert(Filter& f, T key) {
    f.insert(key);
  }
  template <class T>
  static bool Query(const Filter& f, T key) {
    return f.contains(key);
  }
  template <class T>
  static void InsertBulk(Filter& f, const std::vector<T>& keys) {
    f.insert(keys);
  }
  template <class T>
  static std::vector<uint8_t> QueryBulk(const Filter& f, const std::vector<T>& keys) {
    std::vector<uint8_t> out(keys.size());
    f.contains(keys, out.data());
    // Every result form and threads agree with the bytes.
    std::vector<uint8_t> bits((keys.size() + 7) / 8);
    f.contains_bitmap(keys, bits.data(), Threads{2});
    for (size_t i = 0; i < keys.size(); ++i) REQUIRE(((bits[i / 8] >> (i % 8)) & 1) == out[i]);
    return out;
  }
  static Filter RoundTrip(const Filter& f) {
    std::stringstream s;
    f.save(s);
    return Filter::load(s);
  }
};

template <>
struct Calls<CountingFilter> {
  template <class T>
  static void Insert(CountingFilter& f, T key) {
    f.insert(key);
  }
  template <class T>
  static bool Query(const CountingFilter& f, T key) {
    return f.contains(key) && f.count(key) >= 1;
  }
  template <class T>
  static void InsertBulk(CountingFilter& f, const std::vector<T>& keys) {
    f.insert(keys);
  }
  template <class T>
  static std::vector<uint8_t> QueryBulk(const CountingFilter& f, const std::vector<T>& keys) {
    std::vector<uint8_t> out(keys.size()), counts(keys.size());
    f.contains(keys, out.data());
    f.count(keys, counts.data());
    for (size_t i = 0; i < keys.size(); ++i) REQUIRE((counts[i] != 0) == (out[i] != 0));
    return out;
  }
  static CountingFilter RoundTrip(const CountingFilter& f) {
    std::stringstream s;
    f.save(s);
    return CountingFilter::load(s);
  }
};

template <>
struct Calls<ScalableFilter> {
  template <class T>
  static void Insert(ScalableFilter& f, T key) {
    f.insert(key);
  }
  template <class T>
  static bool Query(const ScalableFilter& f, T key) {
    return f.contains(key);
  }
  template <class T>
  static void InsertBulk(ScalableFilter& f, const std::vector<T>& keys) {
    f.insert(keys);
  }
  template <class T>
  static std::vector<uint8_t> QueryBulk(const ScalableFilter& f, const std::vector<T>& keys) {
    std::vector<uint8_t> out(keys.size());
    f.contains(keys, out.data());
    return out;
  }
  static ScalableFilter RoundTrip(const ScalableFilter& f) {
    const std::vector<uint8_t> b = f.to_bytes();
    return ScalableFilter::from_bytes(b.data(), b.size());
  }
};

template <>
struct Calls<SpatialFilter> {
  template <class T>
  static void Insert(SpatialFilter& f, T key) {
    f.insert(1, key);
  }
  template <class T>
  static bool Query(const SpatialFilter& f, T key) {
    return f.classify(key) == 1;
  }
  template <class T>
  static void InsertBulk(SpatialFilter& f, const std::vector<T>& keys) {
    f.insert(1, keys);
  }
  template <class T>
  static std::vector<uint8_t> QueryBulk(const SpatialFilter& f, const std::vector<T>& keys) {
    std::vector<uint16_t> labels(keys.size());
    f.classify(keys, labels.data());
    std::vector<uint8_t> out(keys.size());
    for (size_t i = 0; i < keys.size(); ++i) out[i] = labels[i] == 1;
    return out;
  }
  static SpatialFilter RoundTrip(const SpatialFilter& f) {
    std::stringstream s;
    f.save(s);
    return SpatialFilter::load(s);
  }
};

template <>
struct Calls<ShiftingAssociation> {
  template <class T>
  static void Insert(ShiftingAssociation& f, T key) {
    f.insert(key, ShiftingAssociation::kBoth);
  }
  template <class T>
  static bool Query(const ShiftingAssociation& f, T key) {
    return (f.query(key) & ShiftingAssociation::kBoth) != 0;
  }
  template <class T>
  static void InsertBulk(ShiftingAssociation& f, const std::vector<T>& keys) {
    f.insert(keys, ShiftingAssociation::kBoth);
  }
  template <class T>
  static std::vector<uint8_t> QueryBulk(const ShiftingAssociation& f, const std::vector<T>& keys) {
    std::vector<uint8_t> out(keys.size());
    f.query(keys, out.data());
    for (uint8_t& o : out) o = (o & ShiftingAssociation::kBoth) != 0;
    return out;
  }
  static ShiftingAssociation RoundTrip(const ShiftingAssociation& f) {
    const std::string b = f.save();
    return ShiftingAssociation::load(b.data(), b.size());
  }
};

template <>
struct Calls<ShiftingMultiplicity> {
  template <class T>
  static void Insert(ShiftingMultiplicity& f, T key) {
    f.insert(key, 3);
  }
  template <class T>
  static bool Query(const ShiftingMultiplicity& f, T key) {
    return f.count(key) >= 1;
  }
  template <class T>
  static void InsertBulk(ShiftingMultiplicity& f, const std::vector<T>& keys) {
    f.insert(keys, 3);
  }
  template <class T>
  static std::vector<uint8_t> QueryBulk(const ShiftingMultiplicity& f, const std::vector<T>& keys) {
    std::vector<uint32_t> counts(keys.size());
    f.count(keys, counts.data());
    std::vector<uint8_t> out(keys.size());
    for (size_t i = 0; i < keys.size(); ++i) out[i] = counts[i] >= 1;
    return out;
  }
  static ShiftingMultiplicity RoundTrip(const ShiftingMultiplicity& f) {
    const std::string b = f.save();
    return ShiftingMultiplicity::load(b.data(), b.size());
  }
};

// Fresh empty filters of each kind, holding `type`.
// (Fixed sizes, no sizing search: the matrix makes thousands, and exp() is slow under qemu.)
Filter MakeFilter(Layout layout, KeyType type) {
  return Filter::with_bits(1 << 15, layout == Layout::kSplitBlock256 ? 8 : 6, layout, 3, type);
}
CountingFilter MakeCounting(KeyType type) {
  return CountingFilter::with_counters(1 << 15, 6, CountingLayout::kBlocked, 3, type);
}
ScalableFilter MakeScalable(KeyType type) {
  ScalableOptions o;
  o.seed = 3;
  o.key_type = type;
  return ScalableFilter::create(100, 0.01, o);  // a few stages for 200+ keys
}
SpatialFilter MakeSpatial(KeyType type) { return SpatialFilter::with_blocks(512, 4, 2, 3, type); }
ShiftingAssociation MakeAssoc(KeyType type) {
  return ShiftingAssociation::with_bits(1 << 15, 3, type);
}
ShiftingMultiplicity MakeMult(KeyType type) {
  return ShiftingMultiplicity::with_bits(1 << 15, 8, 3, type);
}

template <class T>
std::vector<T> As(const std::vector<int64_t>& v) {
  std::vector<T> out;
  for (int64_t x : v) out.push_back(static_cast<T>(x));
  return out;
}

// Inserted as T (single, or bulk), every value is found as U, single and bulk, before and after
// the file round trip.
template <class T, class U, class F, class Make>
void CheckPair(const Make& make, KeyType declared, bool bulk_insert) {
  using C = Calls<F>;
  const std::vector<int64_t> values = Values();
  F f = make(declared);
  if (bulk_insert) {
    C::InsertBulk(f, As<T>(values));
  } else {
    for (int64_t v : values) C::Insert(f, static_cast<T>(v));
  }
  CHECK(f.key_type() == (declared == KeyType::kNone ? KeyType::kInt64 : declared));
  const F loaded = C::RoundTrip(f);
  CHECK(loaded.key_type() == f.key_type());
  for (const F* g : {static_cast<const F*>(&f), &loaded}) {
    for (int64_t v : values) REQUIRE(C::Query(*g, static_cast<U>(v)));
    const std::vector<uint8_t> hits = C::QueryBulk(*g, As<U>(values));
    for (uint8_t h : hits) REQUIRE(h == 1);
  }
}

template <class F, class Make>
void CheckEveryType(const char* kind, const Make& make) {
  for (KeyType declared : {KeyType::kNone, KeyType::kInt32}) {
    for (bool bulk : {false, true}) {
      CAPTURE(kind);
      CAPTURE(key_type_name(declared));
      CAPTURE(bulk);
#define SIMDBLOOM_QUERY_AS(T)                                \
  CheckPair<T, int16_t, F>(make, declared, bulk);            \
  CheckPair<T, uint16_t, F>(make, declared, bulk);           \
  CheckPair<T, int, F>(make, declared, bulk);                \
  CheckPair<T, unsigned, F>(make, declared, bulk);           \
  CheckPair<T, long, F>(make, declared, bulk);               \
  CheckPair<T, unsigned long long, F>(make, declared, bulk); \
  CheckPair<T, size_t, F>(make, declared, bulk);             \
  CheckPair<T, int64_t, F>(make, declared, bulk);            \
  CheckPair<T, uint64_t, F>(make, declared, bulk)
      SIMDBLOOM_QUERY_AS(int16_t);
      SIMDBLOOM_QUERY_AS(uint16_t);
      SIMDBLOOM_QUERY_AS(int32_t);
      SIMDBLOOM_QUERY_AS(uint32_t);
      SIMDBLOOM_QUERY_AS(long long);
      SIMDBLOOM_QUERY_AS(uint64_t);
#undef SIMDBLOOM_QUERY_AS
    }
  }
}

TEST_CASE("api: key types - a value inserted as any integer type is found as any other") {
  for (Layout layout : layouts()) {
    CAPTURE(layout_name(layout));
    CheckEveryType<Filter>("Filter", [layout](KeyType t) { return MakeFilter(layout, t); });
  }
  CheckEveryType<CountingFilter>("CountingFilter", MakeCounting);
  CheckEveryType<ScalableFilter>("ScalableFilter", MakeScalable);
  CheckEveryType<SpatialFilter>("SpatialFilter", MakeSpatial);
  CheckEveryType<ShiftingAssociation>("ShiftingAssociation", MakeAssoc);
  CheckEveryType<ShiftingMultiplicity>("ShiftingMultiplicity", MakeMult);
}

// -1 and 2^64 - 1 are one key in an 8-byte filter; in a 4-byte one -1 and 2^32 - 1 are.
TEST_CASE("api: key types - one 64-bit pattern, and one 32-bit pattern in int32 filters") {
  Filter f = Filter::create(1000, 0.01);
  f.insert(int32_t{-1});
  CHECK(f.contains(~uint64_t{0}));
  CHECK(f.contains(int16_t{-1}));
  CHECK(f.hash(uint32_t{0xFFFFFFFFu}) != f.hash(int64_t{-1}));  // another value
  Filter g = Filter::create(1000, 0.01, Layout::kBlock512, 0, KeyType::kInt32);
  g.insert(int64_t{-1});
  CHECK(g.contains(uint32_t{0xFFFFFFFFu}));
  CHECK(g.contains(uint64_t{0xFFFFFFFFu}));
  CHECK(g.hash(int16_t{-1}) == g.hash(uint32_t{0xFFFFFFFFu}));
}

// A 4-byte filter: values outside [-2^31, 2^32) are refused by every insert, naming the value and
// the key type, before anything is written; every query answers them absent, in every form.
TEST_CASE("api: key types - values beyond 32 bits in an int32 filter") {
  const std::vector<int64_t> wide = {int64_t{1} << 32, -(int64_t{1} << 31) - 1, INT64_MIN,
                                     INT64_MAX};
  for (Layout layout : layouts()) {
    CAPTURE(layout_name(layout));
    Filter f = Filter::create(1000, 0.001, layout, 1, KeyType::kInt32);
    // Fill the filter so an out-of-range key's low 32 bits would be found if it were truncated.
    std::vector<int64_t> keys;
    for (int64_t i = 0; i < 500; ++i) keys.push_back(i);
    keys.push_back(-(int64_t{1} << 31));
    keys.push_back((int64_t{1} << 32) - 1);
    f.insert(keys);
    for (int64_t w : wide) {
      f.insert(static_cast<uint32_t>(w));  // its low 32 bits are present
      REQUIRE(f.contains(static_cast<uint32_t>(w)));
    }
    const std::vector<uint8_t> before(f.data(), f.data() + f.size_bytes());
    for (int64_t w : wide) {
      CAPTURE(w);
      CHECK(!f.contains(w));
      try {
        f.insert(w);
        FAIL("accepted");
      } catch (const Error& e) {
        CHECK(e.code() == ErrorCode::kInvalidArgument);
        CHECK(std::string(e.what()).find(std::to_string(w)) != std::string::npos);
        CHECK(std::string(e.what()).find("int32") != std::string::npos);
      }
      CHECK_THROWS_AS(f.hash(w), Error);
    }
    CHECK(!f.contains(uint64_t{1} << 63));
    // Bulk: a batch with one wide value is refused whole.
    std::vector<int64_t> batch = {1, 2, int64_t{1} << 40, 3};
    CHECK_THROWS_WITH_AS(f.insert(batch), doctest::Contains("1099511627776"), Error);
    CHECK(std::vector<uint8_t>(f.data(), f.data() + f.size_bytes()) == before);
    // Queries: absent in bytes, bitmaps, selections, refine, threads.
    std::vector<int64_t> probe = wide;
    probe.insert(probe.end(), {0, 1, 499});
    std::vector<uint8_t> out(probe.size(), 9);
    CHECK(f.contains(probe, out.data()) == 3);
    CHECK(out == std::vector<uint8_t>{0, 0, 0, 0, 1, 1, 1});
    std::vector<uint8_t> bits(1, 0xFF);
    CHECK(f.contains_bitmap(probe, bits.data()) == 3);
    CHECK(bits[0] == 0x70);
    std::vector<uint32_t> sel(probe.size());
    CHECK(f.select(probe, sel.data()) == 3);
    CHECK(sel[0] == 4);
    CHECK(sel[2] == 6);
    std::vector<uint32_t> chain = {0, 4, 2, 6};
    CHECK(f.refine(probe, chain.data(), chain.size()) == 2);
    CHECK(chain[0] == 4);
    CHECK(chain[1] == 6);
  }
  // The other kinds: absent on query, refused on insert.
  CountingFilter c = MakeCounting(KeyType::kInt32);
  c.insert(uint32_t{0});
  CHECK(c.count(uint64_t{1} << 32) == 0);
  CHECK_THROWS_AS(c.insert(uint64_t{1} << 32), Error);
  const std::vector<uint64_t> wide_u = {uint64_t{1} << 32, 0};
  CHECK_THROWS_AS(c.remove(wide_u), Error);
  uint8_t counts[2];
  CHECK(c.count(wide_u, counts) == 1);
  CHECK(counts[0] == 0);
  CHECK(counts[1] == 1);
  SpatialFilter s = MakeSpatial(KeyType::kInt32);
  s.insert(1, uint32_t{0});
  uint16_t labels[2];
  CHECK(s.classify(wide_u, labels) == 1);
  CHECK(labels[0] == 0);
  ScalableFilter sc = MakeScalable(KeyType::kInt32);
  sc.insert(uint32_t{0});
  uint8_t hit[2];
  CHECK(sc.contains(wide_u, hit) == 1);
  CHECK(hit[0] == 0);
  ShiftingAssociation a = MakeAssoc(KeyType::kInt32);
  a.insert(uint32_t{0}, ShiftingAssociation::kOnlyFirst);
  uint8_t answers[2];
  a.query(wide_u, answers);
  CHECK(answers[0] == 0);
  CHECK(answers[1] == ShiftingAssociation::kOnlyFirst);
  CHECK_THROWS_AS(a.insert(uint64_t{1} << 32, ShiftingAssociation::kOnlyFirst), Error);
}

// Values beyond 32 bits under threads (a "concurrency" case: real threads do not run under the
// aarch64 emulation, which runs the "api" cases).
TEST_CASE("concurrency: key types - values beyond 32 bits are absent under threads") {
  for (Layout layout : layouts()) {
    CAPTURE(layout_name(layout));
    Filter f = MakeFilter(layout, KeyType::kInt32);
    for (int64_t i = 0; i < 500; ++i) f.insert(i);
    std::vector<uint64_t> many_u64;
    for (int i = 0; i < 100000; ++i)
      many_u64.push_back(i % 3 == 0 ? (uint64_t{1} << 32) + i : i % 500);
    std::vector<uint8_t> many(many_u64.size());
    const uint64_t hits = f.contains(many_u64, many.data(), Threads{2});
    uint64_t want = 0;
    for (size_t i = 0; i < many_u64.size(); ++i) {
      REQUIRE(many[i] == (i % 3 != 0));
      want += i % 3 != 0;
    }
    CHECK(hits == want);
  }
}

// Integers on a byte-string filter and byte strings on an integer filter: KeyTypeError naming
// both, in every kind, single and bulk; nothing is written.
TEST_CASE("api: key types - integers and byte strings never mix") {
  auto names_both = [](auto&& fn, const char* a, const char* b) {
    try {
      fn();
    } catch (const KeyTypeError& e) {
      const std::string what = e.what();
      return e.code() == ErrorCode::kInvalidArgument && what.find(a) != std::string::npos &&
             what.find(b) != std::string::npos;
    }
    return false;
  };
  const std::vector<uint64_t> ints = {1, 2};
  const std::vector<std::string> strs = {"a", "b"};
  uint8_t out[2];
  for (Layout layout : layouts()) {
    Filter words = MakeFilter(layout, KeyType::kNone);
    words.insert(std::string_view("x"));
    CHECK(words.key_type() == KeyType::kBytes);
    CHECK(names_both([&] { words.contains(uint64_t{1}); }, "integer", "bytes"));
    CHECK(names_both([&] { words.insert(7); }, "integer", "bytes"));
    CHECK(names_both([&] { words.contains(ints, out); }, "uint64", "bytes"));
    CHECK(names_both([&] { words.insert(ints); }, "uint64", "bytes"));
    Filter numbers = MakeFilter(layout, KeyType::kNone);
    numbers.insert(uint64_t{1});
    CHECK(numbers.key_type() == KeyType::kInt64);
    const std::vector<uint8_t> bits(numbers.data(), numbers.data() + numbers.size_bytes());
    CHECK(names_both([&] { numbers.contains("x"); }, "byte", "int64"));
    CHECK(names_both([&] { numbers.insert("x"); }, "byte", "int64"));
    CHECK(names_both([&] { numbers.insert(strs); }, "byte", "int64"));
    CHECK(names_both([&] { numbers.contains(strs, out, Threads{2}); }, "byte", "int64"));
    CHECK(names_both([&] { numbers.insert(FixedWidth{out, 1, 1, 2}); }, "fixed-width", "int64"));
    CHECK(std::vector<uint8_t>(numbers.data(), numbers.data() + numbers.size_bytes()) == bits);
    // Pre-hashed calls bypass key types.
    const uint64_t h = words.hash("x");
    if (layout != Layout::kGuava) {  // (guava refuses pre-hashed keys: guava_test.cc)
      CHECK(numbers.contains_hash(h) == (numbers.contains(Keys(Prehashed{&h, 1}), out) > 0));
    }
    // Merging needs equal key types; a filter without one takes the other's.
    CHECK(!numbers.compatible(words));
    CHECK_THROWS_AS(numbers.merge(words), Error);
    Filter empty = MakeFilter(layout, KeyType::kNone);
    CHECK(empty.compatible(numbers));
    empty.merge(numbers);
    CHECK(empty.key_type() == KeyType::kInt64);
    CHECK(empty.contains(uint16_t{1}));
  }
  CountingFilter c = MakeCounting(KeyType::kBytes);
  CHECK(names_both([&] { c.insert(1); }, "integer", "bytes"));
  CHECK(names_both([&] { c.remove(ints); }, "uint64", "bytes"));
  CountingFilter c2 = MakeCounting(KeyType::kInt64);
  CHECK_THROWS_AS(c2.merge(c), Error);
  ScalableFilter sc = MakeScalable(KeyType::kInt64);
  CHECK(names_both([&] { sc.insert("x"); }, "byte", "int64"));
  CHECK(names_both([&] { sc.contains(strs, out); }, "byte", "int64"));
  SpatialFilter sp = MakeSpatial(KeyType::kBytes);
  CHECK(names_both([&] { sp.classify(1); }, "integer", "bytes"));
  ShiftingMultiplicity m = MakeMult(KeyType::kInt32);
  CHECK(names_both([&] { m.count("x"); }, "byte", "int32"));
  // Declaring: once, to int64, int32 or bytes, from none or legacy.
  Filter d = MakeFilter(Layout::kBlock512, KeyType::kNone);
  CHECK_THROWS_AS(d.set_key_type(KeyType::kLegacy), Error);
  d.set_key_type(KeyType::kInt32);
  d.set_key_type(KeyType::kInt32);
  CHECK_THROWS_AS(d.set_key_type(KeyType::kInt64), Error);
  CHECK_THROWS_AS(MakeFilter(Layout::kBlock512, KeyType::kLegacy), Error);
  CHECK(std::string(key_type_name(KeyType::kInt32)) == "int32");
  CHECK(std::string(key_type_name(static_cast<KeyType>(9))) == "unknown");
}

// The single-key fast path follows the key type: a declared int32 block512 filter must not take
// the 8-byte hash, and a loaded filter keeps its type.
TEST_CASE("api: key types - single-key paths of every layout and key type equal the bulk calls") {
  for (Layout layout : layouts()) {
    for (KeyType type : {KeyType::kNone, KeyType::kInt64, KeyType::kInt32}) {
      CAPTURE(layout_name(layout));
      CAPTURE(key_type_name(type));
      Filter single = MakeFilter(layout, type);
      Filter bulk = MakeFilter(layout, type);
      const std::vector<int32_t> keys = As<int32_t>(Values());
      for (int32_t k : keys) single.insert(k);
      bulk.insert(keys);
      REQUIRE(std::memcmp(single.data(), bulk.data(), single.size_bytes()) == 0);
      std::vector<uint64_t> hashes(keys.size());
      bulk.hash(keys, hashes.data());
      for (size_t i = 0; i < keys.size(); ++i) REQUIRE(hashes[i] == single.hash(keys[i]));
      for (int32_t k : keys) REQUIRE(Calls<Filter>::RoundTrip(single).contains(int64_t{k}));
    }
  }
}

// ---- Golden files of the headers with key types (tests/data/golden/keytypes/) ----

std::string Dir() { return SIMDBLOOM_TEST_DATA_DIR "/golden/keytypes/"; }

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Each file: what the library writes for these filters. SIMDBLOOM_WRITE_GOLDEN=1 rewrites them
// (only for a new format version: a difference is a format break).
void Golden(const std::string& name, const std::string& bytes) {
  CAPTURE(name);
  if (std::getenv("SIMDBLOOM_WRITE_GOLDEN") != nullptr) {
    std::ofstream(Dir() + name, std::ios::binary) << bytes;
  }
  CHECK(ReadAll(Dir() + name) == bytes);
}

TEST_CASE("format: golden files of every kind with key types are reproduced bit for bit") {
  std::vector<int64_t> ints;
  for (int64_t i = -10; i < 10; ++i) ints.push_back(i);
  std::vector<std::string> words;
  for (int i = 0; i < 20; ++i) words.push_back("k" + std::to_string(i));
  test::ForEachApiTarget([&](const std::string&) {
    auto saved = [](const auto& f) {
      std::stringstream s;
      f.save(s);
      return s.str();
    };
    for (KeyType type : {KeyType::kInt64, KeyType::kInt32, KeyType::kBytes}) {
      Filter f = Filter::with_bits(1024, 6, Layout::kBlock512, 3, type);
      type == KeyType::kBytes ? (void)f.insert(words) : (void)f.insert(ints);
      const std::string name = std::string("block512_") + key_type_name(type) + ".bin";
      Golden(name, saved(f));
      const std::string bytes = ReadAll(Dir() + name);
      const Filter loaded =
          Filter::load(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
      CHECK(loaded.key_type() == type);
    }
    Filter none = Filter::with_bits(512, 3, Layout::kRegister64, 3);
    Golden("register64_none.bin", saved(none));
    CountingFilter c = CountingFilter::with_counters(256, 3, CountingLayout::kBlocked, 3);
    c.insert(ints);
    Golden("counting_int64.bin", saved(c));
    ScalableOptions o;
    o.seed = 3;
    ScalableFilter s = ScalableFilter::create(8, 0.01, o);
    s.insert(words);
    Golden("scalable_bytes.bin", saved(s));
    SpatialFilter sp = SpatialFilter::with_blocks(4, 3, 2, 3, KeyType::kInt32);
    sp.insert(1, ints);
    Golden("spatial_int32.bin", saved(sp));
    ShiftingAssociation a = ShiftingAssociation::with_bits(1024, 3);
    a.insert(ints, ShiftingAssociation::kBoth);
    Golden("shbf_a_int64.bin", a.save());
    ShiftingMultiplicity m = ShiftingMultiplicity::with_bits(1024, 4, 3);
    m.insert(words, 2);
    Golden("shbf_x_bytes.bin", m.save());
  });
}

// A filter's bytes: save(std::ostream&), or save() for the shifting set filters.
template <class F>
std::string Saved(const F& f) {
  std::stringstream s;
  f.save(s);
  return s.str();
}
std::string Saved(const ShiftingAssociation& f) { return f.save(); }
std::string Saved(const ShiftingMultiplicity& f) { return f.save(); }

// `bytes` loaded by F's stream loader, then saved again.
template <class F>
std::string SavedAgain(const std::string& bytes) {
  std::stringstream in(bytes);
  return Saved(F::load(in));
}

// Every golden file, of every kind, loads through its kind's loader and saves again to exactly its
// bytes: the file format code reads what it writes, header fields and payload alike.
TEST_CASE("format: every golden file loads and saves again to the same bytes") {
  const struct {
    const char* name;
    std::string (*again)(const std::string&);
  } files[] = {{"block512.bin", SavedAgain<Filter>},
               {"register64.bin", SavedAgain<Filter>},
               {"split_block256.bin", SavedAgain<Filter>},
               {"classic.bin", SavedAgain<Filter>},
               {"shifting.bin", SavedAgain<Filter>},
               {"spatial_u8.bin", SavedAgain<SpatialFilter>},
               {"spatial_u16.bin", SavedAgain<SpatialFilter>},
               {"keytypes/block512_bytes.bin", SavedAgain<Filter>},
               {"keytypes/block512_int32.bin", SavedAgain<Filter>},
               {"keytypes/block512_int64.bin", SavedAgain<Filter>},
               {"keytypes/register64_none.bin", SavedAgain<Filter>},
               {"keytypes/counting_int64.bin", SavedAgain<CountingFilter>},
               {"keytypes/scalable_bytes.bin", SavedAgain<ScalableFilter>},
               {"keytypes/spatial_int32.bin", SavedAgain<SpatialFilter>},
               {"keytypes/shbf_a_int64.bin", SavedAgain<ShiftingAssociation>},
               {"keytypes/shbf_x_bytes.bin", SavedAgain<ShiftingMultiplicity>}};
  for (const auto& file : files) {
    CAPTURE(file.name);
    const std::string bytes = ReadAll(SIMDBLOOM_TEST_DATA_DIR "/golden/" + std::string(file.name));
    CHECK(bytes.size() > 64);
    CHECK(file.again(bytes) == bytes);
  }
}

}  // namespace
}  // namespace simdbloom

namespace simdbloom {
namespace {

// A single-key insert that is refused (a bad label, count or membership, a read-only view) leaves
// the key type as it was.
TEST_CASE("api: key types - a refused single-key insert leaves the key type") {
  SpatialFilter s = MakeSpatial(KeyType::kNone);
  CHECK_THROWS_AS(s.insert(3, uint64_t{5}), Error);  // label 3 of 2 areas
  CHECK(s.key_type() == KeyType::kNone);
  ShiftingMultiplicity m = ShiftingMultiplicity::with_bits(1024, 4, 3);
  CHECK_THROWS_AS(m.insert("x", 9), Error);  // count 9 of at most 4
  CHECK(m.key_type() == KeyType::kNone);
  ShiftingAssociation a = ShiftingAssociation::with_bits(1024, 3);
  CHECK_THROWS_AS(a.insert(1, 9), Error);  // no such membership
  CHECK(a.key_type() == KeyType::kNone);
  const CountingFilter c = MakeCounting(KeyType::kNone);
  std::stringstream cs;
  c.save(cs);
  const std::string cbytes = cs.str();
  const test::Aligned aligned(cbytes);
  CountingFilter cv = CountingFilter::view(aligned.ptr, cbytes.size());
  CHECK_THROWS_AS(cv.insert(5), Error);
  CHECK(cv.key_type() == KeyType::kNone);
  const Filter f = MakeFilter(Layout::kBlock512, KeyType::kNone);
  std::stringstream fs;
  f.save(fs);
  const std::string fbytes = fs.str();
  const test::Aligned faligned(fbytes);
  Filter fv = Filter::view(faligned.ptr, fbytes.size());
  CHECK_THROWS_AS(fv.insert(5), Error);
  CHECK_THROWS_AS(fv.insert("x"), Error);
  CHECK(fv.key_type() == KeyType::kNone);
}

}  // namespace
}  // namespace simdbloom
