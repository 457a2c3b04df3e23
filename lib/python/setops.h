// SPDX-License-Identifier: Apache-2.0
// simdbloom._core: set operations of the classes that have them, bound once as templates over
// the C++ class: a union or intersection in place with its operators (merge, |, |=; intersect,
// &, &=) and set comparisons (issubset, issuperset, <=, >=, <, >).
#ifndef SIMDBLOOM_PYTHON_SETOPS_H_
#define SIMDBLOOM_PYTHON_SETOPS_H_

#include <string>

#include "locked_filter.h"

namespace simdbloom_py {

// `name(other)` in place, `op` (a new object: a copy of self, then the operation) and `iop` (in
// place, returning self) for fn(T& self, const T& other), the library's operation (merge,
// intersect): the library requires equal key types (a None one takes the other's). Locks: self
// alone and other shared, in address order, the GIL released; `other` may be self.
template <class T, class Fn>
void BindSetOp(py::class_<LockedFilter<T>>& cls, const char* name, const char* op, const char* iop,
               Fn fn, const std::string& doc) {
  using G = LockedFilter<T>;
  cls.def(
         name, [fn](G& self, const G& other) { WithPair(self, other, fn); }, py::arg("other"),
         doc.c_str())
      .def(
          op,
          [fn](const G& self, const G& other) {
            Ptr<T> r = CopyOf(self);
            WithPair(*r, other, fn);
            return r;
          },
          py::is_operator(), py::arg("other"))
      .def(
          iop,
          [fn](py::object self, const G& other) {
            G& s = self.cast<G&>();
            WithPair(s, other, fn);
            return self;
          },
          py::is_operator(), py::arg("other"));
  // set's names: union(*others) for | (whose others may also be iterables of keys, inserted as
  // update() does) and intersection(*others) for &, each a new object, self unchanged.
  const bool is_union = std::string(op) == "__or__";
  const std::string kind = Kind<T>::kName;
  cls.def(
      is_union ? "union" : "intersection",
      [fn, is_union](const G& self, const py::args& others) {
        Ptr<T> r = CopyOf(self);
        for (py::handle o : others) {
          if (py::isinstance<G>(o)) {
            WithPair(*r, o.cast<const G&>(), fn);
          } else if (is_union) {
            UpdateFrom(*r, o, [](T& f, const Keys& k) { Kind<T>::InsertBulk(f, k, nullptr, 1); });
          } else {
            throw py::type_error("intersection: expected " + std::string(Kind<T>::kName) +
                                 " objects, got " +
                                 py::str(o.get_type().attr("__name__")).cast<std::string>());
          }
        }
        return r;
      },
      (is_union
           ? "union(*others): a new " + kind +
                 " holding this one's keys and every other's (as "
                 "set.union and rbloom's Bloom.union): a copy, merged with each " +
                 kind +
                 " (as "
                 "self | other; same conditions as merge) and given the keys of any other iterable "
                 "(as update()). This object is unchanged; merge() and |= change it in place."
           : "intersection(*others): a new " + kind +
                 " of the keys this one and every other "
                 "may hold (as set.intersection and rbloom's Bloom.intersection): a copy, "
                 "intersected with each " +
                 kind +
                 " (as self & other; same conditions as "
                 "intersect). This object is unchanged; intersect() and &= change it in place.")
          .c_str());
}

// issubset/issuperset and <=, >=, <, > from subset(a, b): whether every key a answers present
// is present in b too, b's bits (counters) covering a's; it throws simdbloom::Error
// (kIncompatible) for objects of other parameters. Both shared, without the GIL: O(size_bytes).
// And compatible(other): the library's compatible(), when merges and comparisons apply.
template <class T, class Subset>
void BindSubset(py::class_<LockedFilter<T>>& cls, Subset subset) {
  using G = LockedFilter<T>;
  auto le = [subset](const G& a, const G& b) { return ReadingPair(a, b, subset); };
  auto lt = [subset](const G& a, const G& b) {
    return ReadingPair(
        a, b, [&](const T& x, const T& y) { return subset(x, y) && !Kind<T>::Equal(x, y); });
  };
  cls.def("issubset", le, py::arg("other"),
          "Whether other's bits (counters) cover this object's: every key this one holds, other "
          "holds (as set.issubset; a false positive of this one is one of other's). Raises "
          "simdbloom.Error (incompatible) unless both have the same parameters. O(size_bytes), "
          "no allocation, GIL released.")
      .def(
          "issuperset", [le](const G& a, const G& b) { return le(b, a); }, py::arg("other"),
          "other.issubset(self).")
      .def("__le__", le, py::is_operator())
      .def(
          "__ge__", [le](const G& a, const G& b) { return le(b, a); }, py::is_operator())
      .def("__lt__", lt, py::is_operator())
      .def(
          "__gt__", [lt](const G& a, const G& b) { return lt(b, a); }, py::is_operator())
      .def(
          "compatible", [](const G& a, const G& b) { return a.obj.compatible(b.obj); },
          py::arg("other"),
          "True if merge, issubset and the comparisons with `other` are allowed (the same "
          "parameters). O(1).");
}

}  // namespace simdbloom_py

#endif  // SIMDBLOOM_PYTHON_SETOPS_H_
