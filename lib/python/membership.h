// SPDX-License-Identifier: Apache-2.0
// simdbloom._core: the membership calls of the classes that answer "may key be present" (Filter,
// CountingFilter, ScalableFilter), bound once as templates over the C++ class: insert,
// insert_fresh, contains, `in`, contains_bitmap, select, add, update, hash. Kind<T> adds to the
// traits of locked_filter.h:
//   static constexpr bool kThreads;     the bulk calls take `threads` (Filter only)
//   static constexpr const char* kCost; what a key costs, for the docstrings
//   static uint64_t InsertBulk(T&, const Keys&, uint8_t* fresh /* or null */, unsigned threads);
//   static void ContainsBulk(const T&, const Keys&, uint8_t* out, unsigned threads);
//   static void BitmapBulk(const T&, const Keys&, uint8_t* bitmap, unsigned threads);
//   static uint64_t SelectBulk(const T&, const Keys&, uint32_t* selection, unsigned threads);
#ifndef SIMDBLOOM_PYTHON_MEMBERSHIP_H_
#define SIMDBLOOM_PYTHON_MEMBERSHIP_H_

#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "locked_filter.h"
#include "onekey.h"

namespace simdbloom_py {

template <class T>
py::object InsertKeys(LockedFilter<T>& self, py::handle keys, unsigned threads, bool prehashed) {
  return Insert(
      self, keys, prehashed, [](T& f, auto k) { return f.insert(k); },
      [threads](T& f, const Keys& k) { return Kind<T>::InsertBulk(f, k, nullptr, threads); });
}

template <class T>
py::array InsertFresh(LockedFilter<T>& self, py::handle keys, unsigned threads, bool prehashed) {
  return MutateFlags(self, keys, prehashed, true, [threads](T& f, const Keys& k, uint8_t* fresh) {
    Kind<T>::InsertBulk(f, k, fresh, threads);
  });
}

template <class T>
py::object ContainsKeys(const LockedFilter<T>& self, py::handle keys, py::object out,
                        unsigned threads, bool prehashed) {
  return Query<bool>(
      self, keys, std::move(out), prehashed, "contains",
      [](const T& f, auto k) { return f.contains(k); },
      [threads](const T& f, const Keys& k, uint8_t* o) {
        Kind<T>::ContainsBulk(f, k, o, threads);
      });
}

// A batch with nulls: contains of the non-null keys, each key's answer (a null's: false) passed
// to emit(i, hit) in order. No GIL needed.
template <class T, class Emit>
void EachAnswer(const T& f, const KeyBatch& b, unsigned threads, Emit&& emit) {
  std::vector<uint8_t> hits(b.size());
  Kind<T>::ContainsBulk(f, *b.keys, hits.data(), threads);
  for (size_t i = 0, j = 0; i < b.total; ++i) emit(i, b.valid[i] ? hits[j++] != 0 : false);
}

template <class T>
py::array BitmapOf(const LockedFilter<T>& self, py::handle keys, unsigned threads, bool prehashed) {
  KeyBatch b;
  MakeKeys(keys, prehashed, &b);
  const size_t n = b.total_size();
  py::array_t<uint8_t> out(static_cast<py::ssize_t>((n + 7) / 8));
  uint8_t* p = out.mutable_data();
  Reading(self, [&](const T& f) {
    if (b.valid == nullptr) return Kind<T>::BitmapBulk(f, *b.keys, p, threads);
    std::memset(p, 0, (n + 7) / 8);
    EachAnswer(f, b, threads, [p](size_t i, bool hit) {
      p[i / 8] |= static_cast<uint8_t>(uint8_t{hit} << (i % 8));
    });
  });
  return out;
}

template <class T>
py::object SelectOf(const LockedFilter<T>& self, py::handle keys, unsigned threads,
                    bool prehashed) {
  KeyBatch b;
  MakeKeys(keys, prehashed, &b);
  const size_t n = b.total_size();
  if (n > (uint64_t{1} << 32)) {
    throw py::value_error("select: more than 2^32 keys do not fit 32-bit selection indices");
  }
  py::array_t<uint32_t> out(static_cast<py::ssize_t>(n));
  uint32_t* p = out.mutable_data();
  const uint64_t count = Reading(self, [&](const T& f) -> uint64_t {
    if (b.valid == nullptr) return Kind<T>::SelectBulk(f, *b.keys, p, threads);
    uint64_t c = 0;  // the indices of the caller's keys, nulls never selected
    EachAnswer(f, b, threads, [&](size_t i, bool hit) {
      if (hit) p[c++] = static_cast<uint32_t>(i);
    });
    return c;
  });
  py::object sliced = out[py::slice(0, static_cast<py::ssize_t>(count), 1)];
  // A few hits out of many keys: give the memory back (a copy of the hits).
  if (count * 2 < n) return sliced.attr("copy")();
  return sliced;
}

constexpr const char kInsertDoc[] =
    R"doc(Inserts one key (returns True if it was surely new) or a batch (returns how many keys were
surely new). Batches run the SIMD bulk path without the GIL. `prehashed=True`: `keys` are uint64
values of hash()/hashes() (no hashing). A pandas nullable integer batch (Int32, UInt64, ...) is
its values, its nulls skipped. A key is its value (5 as int, numpy.int32 or numpy.uint64); the
first insert into an object of key_type None sets it ('int64' or 'bytes'). Cost: )doc";
constexpr const char kInsertFreshDoc[] =
    "Inserts a batch; returns a bool array, True where the key was surely new, in key order: a "
    "key repeated within the batch is new only the first time (de-duplication). A null of a "
    "pandas nullable batch is skipped (False). Cost: insert's and one byte per key. ";
constexpr const char kContainsDoc[] =
    R"doc(One key: True if it may be present. A batch: a bool array, True where the key may be
present; `out` (a contiguous bool/uint8 array of len(keys)) is written instead of allocating. A
pandas nullable integer batch is probed as its NumPy dtype; a null is never present (False). Runs
without the GIL. No false negatives: every inserted key is found. Cost: )doc";
constexpr const char kBitmapDoc[] =
    "A uint8 bitmap, bit i (LSB first, Arrow's order: numpy.unpackbits(bitmap, "
    "bitorder='little')) set if key i may be present (a null: clear). Cost: as contains.";
constexpr const char kSelectDoc[] =
    "The indices (uint32, ascending) of the keys that may be present: the semi-join's selection "
    "vector. Needs len(keys) <= 2**32. Cost: as contains, and a copy of the hits when fewer than "
    "half the keys hit.";
constexpr const char kThreadsDoc[] =
    " `threads`: the bulk call runs on that many threads (same results as one).";

template <class T>
void BindMembership(py::class_<LockedFilter<T>>& cls) {
  using G = LockedFilter<T>;
  const std::string cost = Kind<T>::kCost;
  const std::string threads_doc = Kind<T>::kThreads ? kThreadsDoc : "";
  const std::string insert_doc = kInsertDoc + cost + threads_doc;
  const std::string fresh_doc = kInsertFreshDoc + threads_doc;
  const std::string contains_doc = kContainsDoc + cost + threads_doc;
  const std::string bitmap_doc = kBitmapDoc + threads_doc;
  const std::string select_doc = kSelectDoc + threads_doc;
  if constexpr (Kind<T>::kThreads) {
    cls.def("insert", &InsertKeys<T>, py::arg("keys"), py::arg("threads") = 1,
            py::arg("prehashed") = false, insert_doc.c_str())
        .def("insert_fresh", &InsertFresh<T>, py::arg("keys"), py::arg("threads") = 1,
             py::arg("prehashed") = false, fresh_doc.c_str())
        .def("contains", &ContainsKeys<T>, py::arg("keys"), py::arg("out") = py::none(),
             py::arg("threads") = 1, py::arg("prehashed") = false, contains_doc.c_str())
        .def("contains_bitmap", &BitmapOf<T>, py::arg("keys"), py::arg("threads") = 1,
             py::arg("prehashed") = false, bitmap_doc.c_str())
        .def("select", &SelectOf<T>, py::arg("keys"), py::arg("threads") = 1,
             py::arg("prehashed") = false, select_doc.c_str());
  } else {
    cls.def(
           "insert", [](G& s, py::handle k, bool p) { return InsertKeys(s, k, 1, p); },
           py::arg("keys"), py::arg("prehashed") = false, insert_doc.c_str())
        .def(
            "insert_fresh", [](G& s, py::handle k, bool p) { return InsertFresh(s, k, 1, p); },
            py::arg("keys"), py::arg("prehashed") = false, fresh_doc.c_str())
        .def(
            "contains",
            [](const G& s, py::handle k, py::object o, bool p) {
              return ContainsKeys(s, k, std::move(o), 1, p);
            },
            py::arg("keys"), py::arg("out") = py::none(), py::arg("prehashed") = false,
            contains_doc.c_str())
        .def(
            "contains_bitmap",
            [](const G& s, py::handle k, bool p) { return BitmapOf(s, k, 1, p); }, py::arg("keys"),
            py::arg("prehashed") = false, bitmap_doc.c_str())
        .def(
            "select", [](const G& s, py::handle k, bool p) { return SelectOf(s, k, 1, p); },
            py::arg("keys"), py::arg("prehashed") = false, select_doc.c_str());
  }
  cls.def(
         "__contains__",
         [](const G& self, py::handle key) {
           return QueryOne(self, key, "`in`", [](const T& f, auto k) { return f.contains(k); });
         },
         py::arg("key"), "key in f: contains(key) for one key. O(k).")
      .def(
          "add",
          [](G& self, py::handle key) {
            InsertOne(self, key, "add", [](T& f, auto k) { f.insert(k); });
          },
          py::arg("key"), "Inserts one key, as set.add (returns None). O(k).")
      .def(
          "update",
          [](G& self, py::handle iterable) {
            UpdateFrom(self, iterable,
                       [](T& f, const Keys& k) { Kind<T>::InsertBulk(f, k, nullptr, 1); });
          },
          py::arg("keys"),
          R"doc(Inserts the keys of any iterable, as set.update: a NumPy array, Binary or pandas Series
in one bulk call; a list, tuple, generator, set, dict, range or other iterator in order, in chunks
of 65536 keys (one bulk call each, without the GIL), so memory stays bounded whatever its length,
and its items may mix integer types (ints, NumPy integers: their values) or bytes and str (a
filter holds one kind). A str or bytes is one key: TypeError (use add); a memoryview is one
byte-string key. Every key yielded before an error (the iterable raising, an item that is no key)
is inserted before the error propagates, as set.update keeps them. Returns None.)doc");
  BindHash(cls,
           "The hash insert computes first for one key (this object's layout and seed): pass "
           "such values with prehashed=True. O(1) (strings O(length)).");
  BindOneKey(cls);  // in, add, contains, insert: the raw one-key path in front of the above
}

}  // namespace simdbloom_py

#endif  // SIMDBLOOM_PYTHON_MEMBERSHIP_H_
