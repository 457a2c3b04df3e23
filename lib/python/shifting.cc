// SPDX-License-Identifier: Apache-2.0
// simdbloom._core: simdbloom.ShiftingAssociation (ShBF_A: which of two sets holds a key) and
// simdbloom.ShiftingMultiplicity (ShBF_x: how many times a key occurs), the shifting set filters
// of simdbloom/shifting.hpp.
#include <algorithm>
#include <cstring>
#include <simdbloom/shifting.hpp>
#include <string>
#include <vector>

#include "key_values.h"
#include "module.h"
#include "persist.h"

namespace simdbloom_py {

using simdbloom::ShiftingAssociation;
using simdbloom::ShiftingMultiplicity;

// The traits both classes share: a value of type V per key (insert(keys, v)); the library saves
// them as strings and loads them from bytes.
template <class T, class V>
struct ShiftingKind : Persisted<T> {
  using Value = V;
  using Answer = V;
  template <class K>
  static void Insert(T& f, const K& keys, V v) {
    f.insert(keys, v);
  }
  static T Copy(const T& f) {
    const std::string s = f.save();
    return T::load(s.data(), s.size());
  }
  static bool Equal(const T& a, const T& b) {
    return a.num_blocks() == b.num_blocks() && a.seed() == b.seed() &&
           KeyTypesMatch(a.key_type(), b.key_type()) &&
           std::memcmp(a.data(), b.data(), a.bit_count() / 8) == 0;
  }
  static std::string SaveString(const T& f) { return f.save(); }
  static void Save(const T& f, std::ostream& os) {
    const std::string s = f.save();
    os.write(s.data(), static_cast<std::streamsize>(s.size()));
  }
  using Persisted<T>::Load;
  // One saved object from a stream that ends with it (as the other classes' stream loads): the
  // 64-byte header, then the block count's 64 bytes per block (lib/FORMAT.md, "Shifting set
  // filters"), read in 4 MiB pieces so that memory follows the bytes present, not the header's
  // claim; the library validates them. A byte after them is Error(kFormat).
  static T Load(std::istream& in) {
    std::string bytes(64, '\0');
    in.read(&bytes[0], 64);
    bytes.resize(static_cast<size_t>(in.gcount()));
    uint64_t blocks = 0;
    if (bytes.size() == 64) std::memcpy(&blocks, bytes.data() + 24, 8);  // little-endian hosts
    const uint64_t payload = blocks < (uint64_t{1} << 32) ? blocks * 64 : 0;
    std::vector<char> piece(std::min<uint64_t>(payload, uint64_t{4} << 20));
    for (uint64_t left = payload; left > 0 && in;) {
      in.read(piece.data(), static_cast<std::streamsize>(std::min<uint64_t>(left, piece.size())));
      const size_t got = static_cast<size_t>(in.gcount());
      bytes.append(piece.data(), got);
      left -= got;
    }
    T f = T::load(bytes.data(), bytes.size());
    if (in.peek() != std::char_traits<char>::eof()) {
      throw simdbloom::Error(simdbloom::ErrorCode::kFormat,
                             "not a valid shifting set filter: trailing bytes after the payload");
    }
    return f;
  }
};

template <>
struct Kind<ShiftingAssociation> : ShiftingKind<ShiftingAssociation, uint8_t> {
  static constexpr const char* kName = "ShiftingAssociation";
  static constexpr const char* kValue = "membership";
  static constexpr const char* kAnswer = "query";
  static constexpr const char* kInsertDoc =
      R"doc(Inserts one key or a batch with its membership: ONLY_FIRST (1: in S1 only), BOTH (2) or
ONLY_SECOND (4: in S2 only); anything else raises simdbloom.Error (invalid_argument). A key must be
inserted with one membership only (ShBF_A has no update). A null of a pandas nullable batch is
skipped. Returns None. Cost: O(1) per key, one cache line; batches hashed in tiles, lines
prefetched, the GIL released.)doc";
  static constexpr const char* kAnswerDoc =
      R"doc(One key: its candidate bits, any combination of ONLY_FIRST | BOTH | ONLY_SECOND (0: in
neither set); a key of S1 or S2 gets exactly its membership with probability
clear_answer_probability(), several bits when false positives make it ambiguous (is_clear()). A
batch: a uint8 array of those (`out`: a uint8 array to write instead; a null gets 0), on the best
SIMD target without the GIL. Cost: O(1) per key, one cache line; no allocation but the result.)doc";
  template <class K>
  static uint8_t AnswerOne(const ShiftingAssociation& f, K key) {
    return f.query(key);
  }
  static void AnswerBulk(const ShiftingAssociation& f, const Keys& k, uint8_t* out) {
    f.query(k, out);
  }
};

template <>
struct Kind<ShiftingMultiplicity> : ShiftingKind<ShiftingMultiplicity, uint32_t> {
  static constexpr const char* kName = "ShiftingMultiplicity";
  static constexpr const char* kValue = "count";
  static constexpr const char* kAnswer = "count";
  static constexpr const char* kInsertDoc =
      R"doc(Inserts one key or a batch with its count (1..max_count; else simdbloom.Error
invalid_argument). A key must be inserted once, with its final count (ShBF_x has no update). A null
of a pandas nullable batch is skipped. Returns None. Cost: O(1) per key, one cache line; batches
hashed in tiles, lines prefetched, the GIL released.)doc";
  static constexpr const char* kAnswerDoc =
      R"doc(One key: its count, the smallest complete candidate (0: none). For a key of the multiset
never more than its true count, and exactly it with probability correct_probability(count); a key
not in it gets 0 or, with probability false_positive_probability(), a count. A batch: a uint32
array of those (`out`: a uint32 array to write instead; a null gets 0), on the best SIMD target
without the GIL. Cost: O(1) per key, one cache line; no allocation but the result.)doc";
  template <class K>
  static uint32_t AnswerOne(const ShiftingMultiplicity& f, K key) {
    return f.count(key);
  }
  static void AnswerBulk(const ShiftingMultiplicity& f, const Keys& k, uint32_t* out) {
    f.count(k, out);
  }
};

namespace {

// The integer keys of `keys` (an integer array of any dtype or a list of ints) as 8-byte values,
// for build(): the library's build takes them only (and makes an 'int64' filter). An array of
// another width is converted by value (a copy). TypeError for other keys.
struct U64Keys {
  KeyBatch batch;
  simdbloom::Span<const uint64_t> span;
};
void U64KeysOf(py::handle keys, U64Keys* out) {
  MakeKeys(keys, false, &out->batch);
  const Keys::Kind kind = out->batch.keys->kind();
  if (out->batch.keys->is_integer() && kind != Keys::Kind::kU64 && kind != Keys::Kind::kI64 &&
      out->batch.array) {
    py::object wide = out->batch.array.attr("astype")("<i8");
    out->batch = KeyBatch();
    MakeKeys(wide, false, &out->batch);
  }
  if ((out->batch.keys->kind() != Keys::Kind::kU64 &&
       out->batch.keys->kind() != Keys::Kind::kI64) ||
      out->batch.valid) {
    throw py::type_error(
        "build takes integer keys (an integer array or a list of ints) without nulls; for "
        "other keys create the filter and insert them");
  }
  out->span = simdbloom::Span<const uint64_t>(static_cast<const uint64_t*>(out->batch.keys->keys()),
                                              out->batch.keys->size());
}

// What both classes bind alike: their bits, counts, clear, len, repr, the common traits.
template <class T, class Fresh>
void BindShiftingBits(py::class_<LockedFilter<T>>& cls, Fresh fresh) {
  using G = LockedFilter<T>;
  BindValued(cls);
  BindCommon(cls);
  BindClear(
      cls, [fresh](T& f) { f = fresh(f); },
      "Clears every bit (and len; key_type is kept): the filter as created. Cost: a new zeroed "
      "allocation of bit_count / 8 bytes.");
  cls.def("__len__", Locked<T>(&T::items), "Keys inserted so far (repeats included). O(1).")
      .def("__bool__", Locked<T>([](const T& f) { return f.items() != 0; }),
           "Whether any key was inserted: len(f) != 0. O(1).")
      .def("fill_ratio", Scan<T>([](const T& f) { return BitFill(f.data(), f.bit_count() / 8); }),
           "Fraction of bits set. O(size_bytes).")
      .def("false_positive_probability", Locked<T>(&T::false_positive_probability),
           "The model's probability that a key inserted nowhere gets a non-zero answer, at the "
           "keys inserted so far. A sum over the blocks' Poisson loads: a few hundred terms, no "
           "allocation.")
      .def_property_readonly("num_blocks", Param<T>(&T::num_blocks))
      .def_property_readonly("bit_count", Param<T>(&T::bit_count))
      .def_property_readonly("size_bytes", Param<T>([](const T& f) { return f.bit_count() / 8; }))
      .def_property_readonly("num_hashes", Param<T>([](const T&) { return 8; }))
      .def_property_readonly("seed", Param<T>(&T::seed))
      .def("__repr__", [](const G& self) {
        uint64_t items = 0;
        const double fill = Reading(self, [&](const T& f) {
          items = f.items();
          return BitFill(f.data(), f.bit_count() / 8);
        });
        return Repr(Kind<T>::kName, {{"bits", std::to_string(self.obj.bit_count())},
                                     {"num_hashes", "8"},
                                     {"seed", std::to_string(self.obj.seed())},
                                     {"fill", FormatDouble(fill)},
                                     {"items", std::to_string(items)}});
      });
}

using GA = LockedFilter<ShiftingAssociation>;
using GX = LockedFilter<ShiftingMultiplicity>;

}  // namespace

void BindShifting(py::module_& m) {
  py::class_<GA> a(m, "ShiftingAssociation",
                   R"doc(Which of two sets holds a key (ShBF_A, Yang et al., VLDB 2016):
ShiftingAssociation(n, fpp, seed=0).

One bit array for two sets S1 and S2: insert(keys, membership) with membership ONLY_FIRST,
BOTH or ONLY_SECOND; query(keys) answers the candidate memberships (0: in neither; one bit: a
clear answer; several: ambiguous). k is 8 (one bit in each word of the key's cache line); the size
sets the error rates. `key in f` is query(key) != 0, len() the keys inserted.

Thread-safety as Filter: queries run concurrently, inserts alone (the GIL released by bulk
calls).)doc");
  a.attr("ONLY_FIRST") = ShiftingAssociation::kOnlyFirst;
  a.attr("BOTH") = ShiftingAssociation::kBoth;
  a.attr("ONLY_SECOND") = ShiftingAssociation::kOnlySecond;
  const char* create_a =
      "An empty filter for `n` keys of S1 | S2 so that one wrong pattern is complete with "
      "probability at most `fpp` (a key of S1 | S2 then gets a clear answer with probability "
      "about 1 - 2 fpp). Raises simdbloom.Error (invalid_argument). Cost: one zeroed allocation, "
      "GIL released.";
  auto make_a = [](IntArg n_arg, FloatArg fpp_arg, IntArg seed_arg, py::object key_type) {
    const char* who = "ShiftingAssociation";
    const uint64_t n = IntOf(n_arg, who, "n", 1);
    const double fpp = FloatOf(fpp_arg, who, "fpp");
    const uint64_t seed = IntOf(seed_arg, who, "seed");
    const KeyType t = KeyTypeArg(key_type);
    return Wrap(WithoutGil([&] { return ShiftingAssociation::create(n, fpp, seed, t); }));
  };
  BindCreate(a, make_a, py::arg("n"), py::arg("fpp"), py::arg("seed") = 0,
             py::arg("key_type") = py::none(), create_a);
  a.def_static(
       "with_bits",
       [](uint64_t bits, uint64_t seed, py::object key_type) {
         const KeyType t = KeyTypeArg(key_type);
         return Wrap(WithoutGil([&] { return ShiftingAssociation::with_bits(bits, seed, t); }));
       },
       py::arg("bits"), py::arg("seed") = 0, py::arg("key_type") = py::none(),
       "An empty filter of `bits` rounded up to whole 512-bit blocks.")
      .def_static(
          "build",
          [](py::handle s1, py::handle s2, double fpp, uint64_t seed) {
            U64Keys x, y;
            U64KeysOf(s1, &x);
            U64KeysOf(s2, &y);
            return Wrap(
                WithoutGil([&] { return ShiftingAssociation::build(x.span, y.span, fpp, seed); }));
          },
          py::arg("s1"), py::arg("s2"), py::arg("fpp"), py::arg("seed") = 0,
          "A filter sized for |S1 | S2| at `fpp` and filled with both sets (integer keys, by "
          "value: an 'int64' filter; duplicates allowed). Cost: sorts copies of the keys "
          "(allocates them), then one bulk "
          "insert per membership; GIL released.")
      .def_static(
          "is_clear",
          [](int64_t answer) {
            return ShiftingAssociation::is_clear(ValueFrom<uint8_t>(answer, "is_clear", "answer"));
          },
          py::arg("answer"), "Whether a query answer has exactly one candidate bit. O(1).")
      .def("clear_answer_probability",
           Locked<ShiftingAssociation>(&ShiftingAssociation::clear_answer_probability),
           "The model's probability that a key of S1 | S2 gets a clear answer, at the keys "
           "inserted so far (the blocked form of the paper's (1 - f)**2). A sum over the blocks' "
           "Poisson loads: a few hundred terms, no allocation.")
      .def("paper_clear_answer_probability",
           Locked<ShiftingAssociation>(&ShiftingAssociation::paper_clear_answer_probability),
           "The paper's (1 - f)**2, for comparison. Cost as clear_answer_probability.");
  BindShiftingBits(a, [](const ShiftingAssociation& f) {
    return ShiftingAssociation::with_bits(f.bit_count(), f.seed(), f.key_type());
  });

  py::class_<GX> x(m, "ShiftingMultiplicity",
                   R"doc(How many times a key occurs in a multiset (ShBF_x, Yang et al., VLDB 2016):
ShiftingMultiplicity(n, fpp, max_count, seed=0).

insert(keys, count) with each key's final count (1..max_count, at most 64), once per key;
count(keys) answers the smallest complete candidate: never more than the true count for a key of
the multiset, 0 for most keys not in it. `key in f` is count(key) != 0, len() the keys inserted.

Thread-safety as Filter: queries run concurrently, inserts alone (the GIL released by bulk
calls).)doc");
  const char* create_x =
      "An empty filter for `n` distinct keys with counts up to max_count (1..64), sized so that "
      "one wrong pattern is complete with probability at most `fpp`. Raises simdbloom.Error "
      "(invalid_argument). Cost: one zeroed allocation, GIL released.";
  auto make_x = [](IntArg n_arg, FloatArg fpp_arg, IntArg max_arg, IntArg seed_arg,
                   py::object key_type) {
    return CreateWith<ShiftingMultiplicity>("max_count", 64, n_arg, fpp_arg, max_arg, seed_arg,
                                            key_type);
  };
  BindCreate(x, make_x, py::arg("n"), py::arg("fpp"), py::arg("max_count"), py::arg("seed") = 0,
             py::arg("key_type") = py::none(), create_x);
  x.def_static(
       "with_bits",
       [](uint64_t bits, uint32_t max_count, uint64_t seed, py::object key_type) {
         const KeyType t = KeyTypeArg(key_type);
         return Wrap(
             WithoutGil([&] { return ShiftingMultiplicity::with_bits(bits, max_count, seed, t); }));
       },
       py::arg("bits"), py::arg("max_count"), py::arg("seed") = 0, py::arg("key_type") = py::none(),
       "An empty filter of `bits` rounded up to whole 512-bit blocks.")
      .def_static(
          "build",
          [](py::handle keys, double fpp, uint32_t max_count, uint64_t seed) {
            U64Keys k;
            U64KeysOf(keys, &k);
            return Wrap(WithoutGil(
                [&] { return ShiftingMultiplicity::build(k.span, fpp, max_count, seed); }));
          },
          py::arg("keys"), py::arg("fpp"), py::arg("max_count"), py::arg("seed") = 0,
          "A filter of a multiset given as its occurrences (integer keys by value, each occurrence "
          "once): counted by sorting a copy (allocates it), sized for the distinct keys, one bulk "
          "insert per count. A key occurring more than max_count times raises simdbloom.Error "
          "(invalid_argument). GIL released.")
      .def("correct_probability",
           Locked<ShiftingMultiplicity, uint32_t>(&ShiftingMultiplicity::correct_probability),
           py::arg("count"),
           "The model's probability that a key inserted with `count` is reported as `count`, at "
           "the keys inserted so far. O(count) sums over the blocks' Poisson loads, no "
           "allocation.")
      .def_property_readonly("max_count",
                             Param<ShiftingMultiplicity>(&ShiftingMultiplicity::max_count));
  BindShiftingBits(x, [](const ShiftingMultiplicity& f) {
    return ShiftingMultiplicity::with_bits(f.bit_count(), f.max_count(), f.seed(), f.key_type());
  });
}

}  // namespace simdbloom_py
