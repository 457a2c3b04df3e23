// SPDX-License-Identifier: Apache-2.0
// simdbloom._core: the calls of the classes whose keys carry a value (SpatialFilter: an area
// label; ShiftingAssociation: which of two sets; ShiftingMultiplicity: a count), bound once as
// templates over the C++ class: insert(keys, value), add(key, value), update(iterable, value),
// the answer of one key or a batch (classify, query, count), `in` (a non-zero answer), hash.
// Kind<T> adds to the traits of locked_filter.h:
//   using Value = ...;  using Answer = ...;       the inserted value's and the answer's C++ types
//   static constexpr const char* kValue;         the value's name ("label", ...)
//   static constexpr const char* kAnswer;        the answer's method ("classify", ...)
//   static constexpr const char* kInsertDoc, kAnswerDoc;
//   template <class K> static auto Insert(T&, const K& key, Value v);  one key or a batch (Keys):
//                                                 void or a count
//   template <class K> static Answer AnswerOne(const T&, K key);
//   static void AnswerBulk(const T&, const Keys&, Answer* out);
#ifndef SIMDBLOOM_PYTHON_KEY_VALUES_H_
#define SIMDBLOOM_PYTHON_KEY_VALUES_H_

#include <cstdint>
#include <limits>
#include <string>

#include "locked_filter.h"
#include "module.h"

namespace simdbloom_py {

// A Python int as the value type V; simdbloom.Error (invalid_argument) outside V's range (the
// library checks the rest: a label within 1..num_areas, a membership 1, 2 or 4, ...).
template <class V>
V ValueFrom(int64_t v, const char* who, const char* what) {
  if (v < 0 || static_cast<uint64_t>(v) > std::numeric_limits<V>::max()) {
    throw simdbloom::Error(
        simdbloom::ErrorCode::kInvalidArgument,
        std::string(who) + ": " + what + " " + std::to_string(v) + " is out of range");
  }
  return static_cast<V>(v);
}

// T::create(n, fpp, extra, seed, key_type) of a class with one more integer (1..`most`) between
// fpp and seed (SpatialFilter's num_areas, ShiftingMultiplicity's max_count), the arguments
// checked in that order; the allocation without the GIL.
template <class T>
Ptr<T> CreateWith(const char* extra, uint64_t most, IntArg n_arg, FloatArg fpp_arg,
                  IntArg extra_arg, IntArg seed_arg, py::object key_type) {
  const char* who = Kind<T>::kName;
  const uint64_t n = IntOf(n_arg, who, "n", 1);
  const double fpp = FloatOf(fpp_arg, who, "fpp");
  const auto x = static_cast<uint32_t>(IntOf(extra_arg, who, extra, 1, most));
  const uint64_t seed = IntOf(seed_arg, who, "seed");
  const KeyType t = KeyTypeArg(key_type);
  return Wrap(WithoutGil([&] { return T::create(n, fpp, x, seed, t); }));
}

template <class T>
void BindValued(py::class_<LockedFilter<T>>& cls) {
  using G = LockedFilter<T>;
  using K = Kind<T>;
  using Value = typename K::Value;
  using Answer = typename K::Answer;
  const std::string value = K::kValue;
  cls.def(
         "insert",
         [](G& self, py::handle keys, int64_t v, bool prehashed) {
           const Value x = ValueFrom<Value>(v, "insert", K::kValue);
           return Insert(
               self, keys, prehashed, [x](T& f, auto k) { return K::Insert(f, k, x); },
               [x](T& f, const Keys& k) { return K::Insert(f, k, x); });
         },
         py::arg("keys"), py::arg(K::kValue), py::arg("prehashed") = false, K::kInsertDoc)
      .def(
          "add",
          [](G& self, py::handle key, int64_t v) {
            const Value x = ValueFrom<Value>(v, "add", K::kValue);
            InsertOne(self, key, "add", [x](T& f, auto k) { K::Insert(f, k, x); });
          },
          py::arg("key"), py::arg(K::kValue),
          ("Inserts one key with its " + value + " (insert(key, " + value +
           ") returning None). O(1).")
              .c_str())
      .def(
          "update",
          [](G& self, py::handle iterable, int64_t v) {
            const Value x = ValueFrom<Value>(v, "update", K::kValue);
            UpdateFrom(self, iterable, [x](T& f, const Keys& k) { K::Insert(f, k, x); });
          },
          py::arg("keys"), py::arg(K::kValue),
          ("Inserts the keys of any iterable with one " + value +
           ": a NumPy array, Binary or pandas Series in one bulk call; a list, tuple, "
           "generator, set, dict, range or other iterator in order, in chunks of 65536 keys "
           "(one bulk call each, without the GIL), so memory stays bounded and integer types "
           "may mix (their values). A str or bytes is one key: TypeError (use add); a "
           "memoryview is one byte-string key. Every key yielded before an error (the iterable "
           "raising, an item that is no key) is inserted before the error propagates, as "
           "set.update keeps them.")
              .c_str())
      .def(
          K::kAnswer,
          [](const G& self, py::handle keys, py::object out, bool prehashed) {
            return Query<Answer>(
                self, keys, std::move(out), prehashed, K::kAnswer,
                [](const T& f, auto k) { return K::AnswerOne(f, k); },
                [](const T& f, const Keys& k, Answer* o) { K::AnswerBulk(f, k, o); });
          },
          py::arg("keys"), py::arg("out") = py::none(), py::arg("prehashed") = false, K::kAnswerDoc)
      .def(
          "__contains__",
          [](const G& self, py::handle key) {
            return QueryOne(self, key, "`in`",
                            [](const T& f, auto k) { return K::AnswerOne(f, k) != 0; });
          },
          py::arg("key"),
          ("key in f: " + std::string(K::kAnswer) + "(key) != 0 (in some set). O(1).").c_str());
  BindHash(cls,
           "The hash insert computes first for one key (XXH3 with this object's seed, as a "
           "block512 Filter's): pass such values with prehashed=True. O(1) (strings "
           "O(length)).");
}

}  // namespace simdbloom_py

#endif  // SIMDBLOOM_PYTHON_KEY_VALUES_H_
