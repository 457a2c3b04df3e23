// SPDX-License-Identifier: Apache-2.0
// The API edge: which C++ types are keys and how each is hashed (one key, one hash, whatever call
// carries it), the spellings of bulk calls, and bulk insert reporting which keys were new.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "kernels/dispatch.h"
#include "kernels/reference.h"
#include "simdbloom/counting.hpp"
#include "simdbloom/scalable.hpp"
#include "simdbloom/simdbloom.hpp"
#include "simdbloom/spatial.hpp"
#include "tests/test_util.h"

namespace simdbloom {
namespace {

// Every layout, from the registry (simdbloom::layouts()).
const Span<const Layout> kAllLayouts = layouts();

// ---- Detection idiom: what insert/contains/hash accept ----
template <class T, class = void>
struct CanInsert : std::false_type {};
template <class T>
struct CanInsert<T, std::void_t<decltype(std::declval<Filter&>().insert(std::declval<T>()))>>
    : std::true_type {};
template <class T, class = void>
struct CanContain : std::false_type {};
template <class T>
struct CanContain<T,
                  std::void_t<decltype(std::declval<const Filter&>().contains(std::declval<T>()))>>
    : std::true_type {};
template <class T, class = void>
struct CanHash : std::false_type {};
template <class T>
struct CanHash<T, std::void_t<decltype(std::declval<const Filter&>().hash(std::declval<T>()))>>
    : std::true_type {};
template <class T>
constexpr bool kSingleKey = CanInsert<T>::value&& CanContain<T>::value&& CanHash<T>::value;
template <class T>
constexpr bool kNoSingleKey = !CanInsert<T>::value && !CanContain<T>::value && !CanHash<T>::value;

enum Color { kRed };
enum class Scoped : uint64_t { kA };

// Integers of 2, 4 and 8 bytes, signed or not, are keys.
static_assert(kSingleKey<short> && kSingleKey<unsigned short> && kSingleKey<int16_t> &&
                  kSingleKey<uint16_t>,
              "2-byte integers");
static_assert(kSingleKey<int> && kSingleKey<unsigned> && kSingleKey<int32_t> &&
                  kSingleKey<uint32_t>,
              "4-byte integers");
static_assert(kSingleKey<long> && kSingleKey<unsigned long> && kSingleKey<long long> &&
                  kSingleKey<unsigned long long> && kSingleKey<int64_t> && kSingleKey<uint64_t> &&
                  kSingleKey<size_t> && kSingleKey<ptrdiff_t>,
              "8-byte integers");
static_assert(kSingleKey<const uint64_t&> && kSingleKey<volatile int>, "cv-qualified integers");
// Byte strings are keys.
static_assert(kSingleKey<std::string_view> && kSingleKey<std::string> && kSingleKey<const char*> &&
                  kSingleKey<char*> && kSingleKey<const char (&)[4]>,
              "byte strings");
// Nothing else compiles: bool, characters (so int8_t/uint8_t), floating point, enums, pointers.
static_assert(kNoSingleKey<bool> && kNoSingleKey<char> && kNoSingleKey<signed char> &&
                  kNoSingleKey<unsigned char> && kNoSingleKey<int8_t> && kNoSingleKey<uint8_t> &&
                  kNoSingleKey<wchar_t> && kNoSingleKey<char16_t> && kNoSingleKey<char32_t>,
              "bool and characters are not keys");
static_assert(kNoSingleKey<float> && kNoSingleKey<double> && kNoSingleKey<long double>,
              "floating point is not a key");
static_assert(kNoSingleKey<Color> && kNoSingleKey<Scoped>, "enums are not keys");
static_assert(kNoSingleKey<const uint64_t*> && kNoSingleKey<uint32_t*> && kNoSingleKey<void*> &&
                  kNoSingleKey<const void*> && kNoSingleKey<std::nullptr_t> &&
                  kNoSingleKey<const uint8_t*>,
              "pointers other than C strings are not keys");

// Every class takes the same key types (simdbloom/detail/keys.hpp): a double or a pointer does not
// compile, an integer or a string does.
template <class F, class T, class = void>
struct CanContainIn : std::false_type {};
template <class F, class T>
struct CanContainIn<F, T,
                    std::void_t<decltype(std::declval<const F&>().contains(std::declval<T>()))>>
    : std::true_type {};
template <class F, class T, class = void>
struct CanHashIn : std::false_type {};
template <class F, class T>
struct CanHashIn<F, T, std::void_t<decltype(std::declval<const F&>().hash(std::declval<T>()))>>
    : std::true_type {};
template <class T, class = void>
struct CanClassify : std::false_type {};
template <class T>
struct CanClassify<
    T, std::void_t<decltype(std::declval<const SpatialFilter&>().classify(std::declval<T>()))>>
    : std::true_type {};
template <class F>
constexpr bool kSameKeyRules =
    CanContainIn<F, uint32_t>::value&& CanContainIn<F, int16_t>::value&&
        CanContainIn<F, std::string>::value&& CanContainIn<F, const char*>::value&&
            CanHashIn<F, uint64_t>::value &&
    !CanContainIn<F, double>::value && !CanContainIn<F, char>::value &&
    !CanContainIn<F, bool>::value && !CanContainIn<F, const uint64_t*>::value &&
    !CanContainIn<F, Color>::value && !CanHashIn<F, double>::value && !CanHashIn<F, uint8_t>::value;
static_assert(kSameKeyRules<CountingFilter> && kSameKeyRules<ScalableFilter>,
              "CountingFilter and ScalableFilter take Filter's key types");
static_assert(CanClassify<uint64_t>::value && CanClassify<std::string_view>::value &&
                  !CanClassify<double>::value && !CanClassify<uint8_t>::value &&
                  !CanClassify<const int*>::value && CanHashIn<SpatialFilter, int>::value &&
                  !CanHashIn<SpatialFilter, double>::value,
              "SpatialFilter takes Filter's key types");

// Keys (the bulk calls' argument) from containers and pointer + count of every element type.
static_assert(std::is_convertible<std::vector<uint64_t>, Keys>::value &&
                  std::is_convertible<std::vector<int64_t>, Keys>::value &&
                  std::is_convertible<std::vector<unsigned long long>, Keys>::value &&
                  std::is_convertible<std::vector<int>, Keys>::value &&
                  std::is_convertible<std::vector<uint16_t>, Keys>::value &&
                  std::is_convertible<std::array<uint32_t, 3>, Keys>::value &&
                  std::is_convertible<std::vector<std::string>, Keys>::value &&
                  std::is_convertible<std::vector<std::string_view>, Keys>::value &&
                  std::is_convertible<Span<const long>, Keys>::value,
              "containers of keys");
static_assert(!std::is_convertible<std::vector<double>, Keys>::value &&
                  !std::is_convertible<std::vector<uint8_t>, Keys>::value &&
                  !std::is_convertible<std::vector<bool>, Keys>::value &&
                  !std::is_convertible<std::vector<char>, Keys>::value &&
                  !std::is_convertible<std::string, Keys>::value,
              "containers of non-keys");

// Little-endian bytes of the low `width` bytes of v.
std::string LeBytes(uint64_t v, size_t width) {
  std::string s(width, '\0');
  for (size_t i = 0; i < width; ++i) s[i] = static_cast<char>(v >> (8 * i));
  return s;
}

// For one integer type: single inserts are found by bulk contains over std::vector<T> and a
// pointer + count, bulk inserts are found by single contains, and the hash is that of the key's
// value as 8 little-endian bytes (sign-extended for signed types), as libxxhash computes it.
template <class T>
void CheckIntegerType(Layout layout, const char* type_name) {
  CAPTURE(type_name);
  CAPTURE(layout_name(layout));
  const size_t n = 600;
  std::vector<T> keys(n);
  test::Rng rng(sizeof(T) * 1000 + static_cast<uint64_t>(layout));
  for (T& k : keys) k = static_cast<T>(rng());
  keys[0] = static_cast<T>(7);  // the key of the reported false negative
  keys[1] = static_cast<T>(-1);
  Filter single = Filter::create(2 * n, 0.01, layout, 5);
  Filter bulk = Filter::create(2 * n, 0.01, layout, 5);
  for (T k : keys) single.insert(k);
  bulk.insert(keys);
  // The same filter either way.
  REQUIRE(std::memcmp(single.data(), bulk.data(), single.size_bytes()) == 0);
  std::vector<uint8_t> out(n, 0);
  REQUIRE(single.contains(keys, out.data()) == n);
  REQUIRE(single.contains({keys.data(), keys.size()}, out.data()) == n);
  for (T k : keys) REQUIRE(bulk.contains(k));
  CHECK(single.key_type() == KeyType::kInt64);
  const Filter bytes_twin = Filter::create(2 * n, 0.01, layout, 5, KeyType::kBytes);
  for (size_t i = 0; i < n; i += 37) {
    const uint64_t value = detail::IntBits(keys[i]);
    REQUIRE(single.hash(keys[i]) == single.hash(value));
    REQUIRE(single.hash(keys[i]) == bytes_twin.hash(LeBytes(value, 8)));
    // (XXH3 but for split_block256's XXH64 and the Guava layouts' Murmur3: guava_test.cc.)
    if (layout != Layout::kSplitBlock256 && layout != Layout::kGuava &&
        layout != Layout::kGuava32) {
      const std::string le = LeBytes(value, 8);
      REQUIRE(single.hash(keys[i]) == XXH3_64bits_withSeed(le.data(), 8, 5));
    }
  }
  std::vector<uint64_t> hashes(n);
  single.hash(keys, hashes.data());
  for (size_t i = 0; i < n; ++i) REQUIRE(hashes[i] == single.hash(keys[i]));
}

TEST_CASE("api: one key, one hash, whatever integer type carries it") {
  for (Layout layout : kAllLayouts) {
    CheckIntegerType<int16_t>(layout, "int16_t");
    CheckIntegerType<uint16_t>(layout, "uint16_t");
    CheckIntegerType<int>(layout, "int");
    CheckIntegerType<unsigned>(layout, "unsigned");
    CheckIntegerType<int32_t>(layout, "int32_t");
    CheckIntegerType<uint32_t>(layout, "uint32_t");
    CheckIntegerType<long>(layout, "long");
    CheckIntegerType<unsigned long>(layout, "unsigned long");
    CheckIntegerType<long long>(layout, "long long");
    CheckIntegerType<unsigned long long>(layout, "unsigned long long");
    CheckIntegerType<int64_t>(layout, "int64_t");
    CheckIntegerType<uint64_t>(layout, "uint64_t");
    CheckIntegerType<size_t>(layout, "size_t");
    CheckIntegerType<ptrdiff_t>(layout, "ptrdiff_t");
  }
}

TEST_CASE("api: the reported false negatives: 7 is 7 in every integer type and call") {
  for (Layout layout : kAllLayouts) {
    CAPTURE(layout_name(layout));
    Filter f = Filter::create(1000, 0.01, layout);
    CHECK(f.insert(uint32_t{7}));
    const std::vector<uint32_t> probe = {7};
    uint8_t out = 0;
    CHECK(f.contains(probe, &out) == 1);
    CHECK(out == 1);
    // A key is its value: every width hashes alike; signed types are sign-extended, so -1 is
    // 2^64 - 1 (one 64-bit pattern), not 2^32 - 1.
    CHECK(f.key_type() == KeyType::kInt64);
    CHECK(f.contains(int64_t{7}));
    CHECK(f.contains(int16_t{7}));
    CHECK(f.contains(7));
    CHECK(f.hash(uint32_t{7}) == f.hash(uint64_t{7}));
    CHECK(f.hash(7) == f.hash(uint64_t{7}));
    CHECK(f.hash(int32_t{-1}) == f.hash(~uint64_t{0}));
    CHECK(f.hash(int32_t{-1}) != f.hash(uint32_t{0xFFFFFFFFu}));
    CHECK(f.hash(int64_t{-2}) == f.hash(~uint64_t{1}));
    CHECK(f.hash(static_cast<long long>(42)) == f.hash(uint64_t{42}));
    CHECK(f.hash(int16_t{-3}) == f.hash(int64_t{-3}));
    CHECK(f.hash(uint16_t{0xFFFD}) == f.hash(uint64_t{0xFFFD}));
    // The reproducer: insert(int{7}), contains(int64_t{7}).
    Filter g = Filter::create(1000, 0.01, layout);
    g.insert(int{7});
    CHECK(g.contains(int64_t{7}));
    const std::vector<int64_t> probe64 = {7};
    CHECK(g.contains(probe64, &out) == 1);
  }
}

TEST_CASE("api: bulk calls spelled as people write them") {
  for (Layout layout : kAllLayouts) {
    CAPTURE(layout_name(layout));
    const std::vector<uint64_t> keys = test::RandomKeys(300, 11);
    const std::vector<uint64_t> absent = test::RandomKeys(300, 12);
    const size_t n = keys.size();
    Filter want = Filter::create(1000, 0.01, layout, 3);
    for (uint64_t k : keys) want.insert(k);
    std::vector<uint8_t> want_hits(n);
    const uint64_t want_absent_hits = want.contains(absent, want_hits.data());

    // Pointer + count.
    Filter f = Filter::create(1000, 0.01, layout, 3);
    const uint64_t* ptr = keys.data();
    CHECK(f.insert({ptr, n}) == n);
    CHECK(std::memcmp(f.data(), want.data(), f.size_bytes()) == 0);
    std::vector<uint8_t> out(n);
    CHECK(f.contains({ptr, n}, out.data()) == n);
    std::vector<uint8_t> bits((n + 7) / 8);
    CHECK(f.contains_bitmap({ptr, n}, bits.data()) == n);
    CHECK(bits[0] == 0xFF);
    std::vector<uint32_t> sel(n);
    CHECK(f.select({absent.data(), n}, sel.data()) == want_absent_hits);
    CHECK(f.contains({absent.data(), n}, out.data()) == want_absent_hits);
    CHECK(out == want_hits);
    std::vector<uint64_t> hashes(n);
    f.hash({ptr, n}, hashes.data());
    CHECK(hashes[5] == f.hash(keys[5]));
    for (size_t i = 0; i < n; ++i) sel[i] = static_cast<uint32_t>(i);
    CHECK(f.refine({ptr, n}, sel.data(), n) == n);

    // Braced pointer + count, std::array, other 8-byte integer vectors: the same keys.
    Filter g = Filter::create(1000, 0.01, layout, 3);
    g.insert({ptr, n / 2});
    const std::vector<int64_t> signed_keys(keys.begin() + n / 2, keys.end() - 3);
    g.insert(signed_keys);
    const std::vector<unsigned long long> ull(keys.end() - 3, keys.end() - 1);
    g.insert(ull);
    const std::array<uint64_t, 1> last = {keys.back()};
    g.insert(last);
    CHECK(std::memcmp(g.data(), want.data(), g.size_bytes()) == 0);
    CHECK(g.contains({ptr, n}, out.data()) == n);

    // Strings: std::vector<std::string>, string_views, a C array of views, const char*.
    std::vector<std::string> strings;
    for (uint64_t k : keys) strings.push_back("https://example.com/" + std::to_string(k));
    Filter s1 = Filter::create(1000, 0.01, layout, 3);
    Filter s2 = Filter::create(1000, 0.01, layout, 3);
    CHECK(s1.insert(strings) == n);
    for (const std::string& s : strings) s2.insert(s);
    CHECK(std::memcmp(s1.data(), s2.data(), s1.size_bytes()) == 0);
    std::vector<std::string_view> views(strings.begin(), strings.end());
    CHECK(s1.contains(views, out.data()) == n);
    CHECK(s1.contains({strings.data(), strings.size()}, out.data()) == n);
    const std::string_view two[] = {views[0], views[1]};
    CHECK(s1.contains(two, out.data()) == 2);
    CHECK(s1.contains(strings[7].c_str()));
    s1.insert("literal");
    CHECK(s1.contains(std::string("literal")));
  }
}

// insert(keys, fresh) is the single-key insert's result applied key by key, repeats included, on
// every target, layout and key shape.
TEST_CASE("api: bulk insert says which keys were new") {
  std::vector<uint64_t> keys = test::RandomKeys(2000, 21);
  // Repeats inside the batch: the second copy of a key is never new.
  for (size_t i = 0; i < 300; ++i) keys[1000 + i] = keys[i * 3];
  std::vector<std::string> strings;
  for (uint64_t k : keys) strings.push_back("u" + std::to_string(k % 1500));  // more repeats
  test::ForEachApiTarget([&](const std::string&) {
    for (Layout layout : kAllLayouts) {
      CAPTURE(layout_name(layout));
      // A small, crowded filter (keys collide, so "new" is not always true for distinct keys) and
      // a prefetched one (2 MiB).
      for (uint64_t items : {uint64_t{500}, uint64_t{2000000}}) {
        CAPTURE(items);
        Filter single = Filter::create(items, 0.05, layout, 9);
        Filter bulk = Filter::create(items, 0.05, layout, 9);
        std::vector<uint8_t> want(keys.size()), fresh(keys.size() + 1, 0xEE);
        uint64_t want_count = 0;
        for (size_t i = 0; i < keys.size(); ++i) want_count += want[i] = single.insert(keys[i]);
        CHECK(bulk.insert(keys, fresh.data()) == want_count);
        CHECK(std::equal(want.begin(), want.end(), fresh.begin()));
        CHECK(fresh.back() == 0xEE);
        CHECK(std::memcmp(single.data(), bulk.data(), single.size_bytes()) == 0);
        for (size_t i = 0; i < 300; ++i) CHECK(fresh[1000 + i] == 0);
        // Strings, through pointer + count.
        Filter s_single = Filter::create(items, 0.05, layout, 9);
        Filter s_bulk = Filter::create(items, 0.05, layout, 9);
        want_count = 0;
        for (size_t i = 0; i < strings.size(); ++i) {
          want_count += want[i] = s_single.insert(strings[i]);
        }
        CHECK(s_bulk.insert({strings.data(), strings.size()}, fresh.data()) == want_count);
        CHECK(std::equal(want.begin(), want.end(), fresh.begin()));
        // Inserting all of them again: nothing is new.
        CHECK(s_bulk.insert(strings, fresh.data()) == 0);
        CHECK(std::count(fresh.begin(), fresh.end() - 1, 0) ==
              static_cast<ptrdiff_t>(strings.size()));
      }
    }
  });
  Filter f = Filter::create(100, 0.01);
  CHECK(f.insert(std::vector<uint64_t>{}, nullptr) == 0);  // nothing to write
  bool threw = false;
  try {
    f.insert(std::vector<uint64_t>{1}, nullptr);
  } catch (const Error& e) {
    threw = e.code() == ErrorCode::kInvalidArgument;
  }
  CHECK(threw);
}

// The inline single-key path (simdbloom/detail/one_key.hpp) against libxxhash and the literal
// reference (kernels/reference.h): hashes of 4/8-byte keys for many seeds, and insert/contains of
// every layout and k, bit for bit, with the same "was new" answers.
TEST_CASE("api: the single-key path equals libxxhash and the reference on every target") {
  test::Rng rng(77);
  for (int i = 0; i < 20000; ++i) {
    const uint64_t key = i < 4 ? static_cast<uint64_t>(i) : rng();
    const uint64_t seed = i % 3 == 0 ? 0 : rng();
    uint8_t b[8];
    for (int j = 0; j < 8; ++j) b[j] = static_cast<uint8_t>(key >> (8 * j));
    REQUIRE(detail::Xxh3U64(key, seed) == XXH3_64bits_withSeed(b, 8, seed));
    REQUIRE(detail::Xxh3U32(static_cast<uint32_t>(key), seed) == XXH3_64bits_withSeed(b, 4, seed));
    REQUIRE(detail::Xxh64U64(key, seed) == XXH64(b, 8, seed));
    REQUIRE(detail::Xxh64U32(static_cast<uint32_t>(key), seed) == XXH64(b, 4, seed));
  }
  struct Case {
    Layout layout;
    uint32_t k_min, k_max;
  };
  const Case cases[] = {{Layout::kBlock512, 1, 16},
                        {Layout::kRegister64, 1, 16},
                        {Layout::kSplitBlock256, 8, 8},
                        {Layout::kClassic, 1, 32},
                        {Layout::kShifting, 1, 16}};
  // The single-key calls follow the active target: the scalar loops, or the target's one-key
  // kernels (on x86 AVX2 and up; detail::ActiveOneKey(), never a null entry).
  using Fn = void (*)();
  auto entries = [] {
    const detail::OneKeyTable& t = detail::ActiveOneKey();
    return std::vector<Fn>{reinterpret_cast<Fn>(t.block512_insert),
                           reinterpret_cast<Fn>(t.block512_contains),
                           reinterpret_cast<Fn>(t.split_block256_insert),
                           reinterpret_cast<Fn>(t.split_block256_contains),
                           reinterpret_cast<Fn>(t.counting_count),
                           reinterpret_cast<Fn>(t.spatial_classify)};
  };
  set_target("reference");
  const std::vector<Fn> scalar = entries();
  for (Fn f : scalar) REQUIRE((f != nullptr));
  reset_target();
  test::ForEachApiTarget([&](const std::string& target) {
    // AVX2, AVX3, AVX3_ZEN4, ... (every x86 target from AVX2 up is named AVX*).
    const bool wide_x86 = target.rfind("AVX", 0) == 0;
    const std::vector<Fn> now = entries();
    for (size_t e = 0; e < now.size(); ++e) {
      CAPTURE(e);
      CHECK((now[e] != scalar[e]) == wide_x86);
    }
    for (const Case& c : cases) {
      for (uint32_t k = c.k_min; k <= c.k_max; ++k) {
        for (uint64_t bits : {uint64_t{512}, uint64_t{3} * 4096 + 64, uint64_t{1} << 17}) {
          CAPTURE(layout_name(c.layout));
          CAPTURE(k);
          CAPTURE(bits);
          Filter f = Filter::with_bits(bits, k, c.layout, 1);
          std::vector<uint64_t> want((f.size_bytes() + 7) / 8 + 8, 0);
          const detail::Params p{f.num_blocks(), k, 1};
          const auto id = static_cast<detail::LayoutId>(c.layout);
          const size_t n = static_cast<size_t>(bits / 16);
          std::vector<uint64_t> inserted(n);
          for (size_t i = 0; i < n; ++i) {
            const uint64_t h = inserted[i] = rng();
            REQUIRE(f.insert_hash(h) == ref::InsertHash(id, want.data(), p, h));
          }
          REQUIRE(std::memcmp(f.data(), want.data(), f.size_bytes()) == 0);
          for (uint64_t h : inserted) REQUIRE(f.contains_hash(h));  // every member, whatever k
          for (size_t i = 0; i < 2 * n; ++i) {
            const uint64_t h = rng();
            REQUIRE(f.contains_hash(h) == ref::ContainsHash(id, want.data(), p, h));
            f.prefetch_hash(h);  // never changes anything
          }
          REQUIRE(std::memcmp(f.data(), want.data(), f.size_bytes()) == 0);
        }
      }
    }
  });
}

}  // namespace
}  // namespace simdbloom
