// SPDX-License-Identifier: Apache-2.0
// simdbloom._core.FilterSet: simdbloom::FilterSet (simdbloom/filter_set.hpp) over Filter objects.
// The set keeps its Filters alive and, for each call, takes their shared locks (in address order,
// as WithPair does, so no lock order can deadlock with a merge) and runs without the GIL.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <mutex>
#include <shared_mutex>
#include <simdbloom/filter_set.hpp>
#include <simdbloom/simdbloom.hpp>
#include <string>
#include <vector>

#include "init_checked.h"
#include "keys.h"
#include "locked_filter.h"
#include "module.h"

namespace simdbloom_py {
namespace {

using simdbloom::Filter;
using G = LockedFilter<Filter>;

struct PySet {
  std::vector<py::object> refs;  // the Filter objects, in set order
  std::vector<const G*> guards;
  simdbloom::FilterSet set;
};

}  // namespace
}  // namespace simdbloom_py
// A method on an object whose __init__ never ran raises TypeError (init_checked.h).
SIMDBLOOM_PY_INIT_CHECKED(simdbloom_py::PySet);
namespace simdbloom_py {
namespace {

// fn(set) with every filter's shared lock held and the GIL released.
template <class Fn>
auto Reading(const PySet& s, Fn&& fn) -> decltype(fn(s.set)) {
  std::vector<const G*> order(s.guards);
  std::sort(order.begin(), order.end());
  order.erase(std::unique(order.begin(), order.end()), order.end());
  py::gil_scoped_release nogil;
  std::vector<SharedLock> locks;
  locks.reserve(order.size());
  for (const G* g : order) locks.emplace_back(g->mu);
  return fn(s.set);
}

PySet Make(py::iterable filters) {
  PySet s;
  std::vector<const Filter*> ptrs;
  for (py::handle h : filters) {
    if (!py::isinstance<G>(h)) {
      throw py::type_error("FilterSet: every element must be a simdbloom.Filter, not " +
                           std::string(py::str(py::type::of(h).attr("__name__"))));
    }
    const G& g = h.cast<const G&>();
    s.refs.push_back(py::reinterpret_borrow<py::object>(h));
    s.guards.push_back(&g);
    ptrs.push_back(&g.obj);
  }
  s.set = simdbloom::FilterSet(ptrs);
  return s;
}

// The caller's index of the library's key j, for a batch with nulls skipped (b.valid set).
std::vector<uint32_t> CallerIndices(const KeyBatch& b) {
  std::vector<uint32_t> idx;
  idx.reserve(b.size());
  for (size_t i = 0; i < b.total; ++i) {
    if (b.valid[i]) idx.push_back(static_cast<uint32_t>(i));
  }
  return idx;
}

py::tuple Contains(const PySet& s, py::handle keys, unsigned threads, bool prehashed) {
  KeyBatch b;
  MakeKeys(keys, prehashed, &b);
  if (b.total_size() > std::numeric_limits<uint32_t>::max()) {
    throw py::value_error("FilterSet.contains: 2^32 keys or more do not fit 32-bit key indices");
  }
  std::vector<simdbloom::FilterSet::Match> matches;
  Reading(s, [&](const simdbloom::FilterSet& set) {
    return set.contains(*b.keys, matches, simdbloom::Threads{threads});
  });
  py::array_t<uint32_t> filter_index(static_cast<py::ssize_t>(matches.size()));
  py::array_t<uint32_t> key_index(static_cast<py::ssize_t>(matches.size()));
  uint32_t* f = filter_index.mutable_data();
  uint32_t* k = key_index.mutable_data();
  const std::vector<uint32_t> caller = b.valid ? CallerIndices(b) : std::vector<uint32_t>();
  for (size_t i = 0; i < matches.size(); ++i) {
    f[i] = matches[i].filter;
    k[i] = b.valid ? caller[matches[i].key] : matches[i].key;
  }
  return py::make_tuple(filter_index, key_index);
}

// FilterSet.first and .count: `Probe` per key into a T array; `null` for a null of the batch.
template <class T,
          uint64_t (simdbloom::FilterSet::*Probe)(const simdbloom::Keys&, T*, simdbloom::Threads)
              const,
          T null>
py::array_t<T> PerKey(const PySet& s, py::handle keys, unsigned threads, bool prehashed) {
  KeyBatch b;
  MakeKeys(keys, prehashed, &b);
  const size_t n = b.total_size();
  py::array_t<T> out(static_cast<py::ssize_t>(n));
  T* p = out.mutable_data();
  std::vector<T> library(b.valid ? b.size() : 0);
  T* dst = b.valid ? library.data() : p;
  Reading(s, [&](const simdbloom::FilterSet& set) {
    return (set.*Probe)(*b.keys, dst, simdbloom::Threads{threads});
  });
  if (b.valid) {  // nulls: `null`
    for (size_t i = 0, j = 0; i < n; ++i) p[i] = b.valid[i] ? library[j++] : null;
  }
  return out;
}

}  // namespace

void BindFilterSet(py::module_& m) {
  py::class_<PySet> cls(m, "FilterSet",
                        R"doc(FilterSet(filters): one batch of keys against many filters.

An ordered set of Filter objects (any layouts, sizes, seeds: LSM levels newest first, Parquet row
groups, join partitions), kept alive by the set. Each key is hashed once per hash of the set
(filters of one hash family, seed and key type share it), never once per filter; the answers equal
a separate call per filter. Calls release the GIL and hold every filter's read lock (a mutation of
one of them waits). Cost: O(len(keys)) hashes per distinct hash, O(len(keys) x len(set)) probes.)doc");
  cls.def(py::init(&Make), py::arg("filters"),
          "The filters (an iterable of Filter), in set order. TypeError for anything else.");
  cls.def("__len__", [](const PySet& s) { return s.refs.size(); });
  cls.def("__getitem__", [](const PySet& s, py::ssize_t i) {
    const auto n = static_cast<py::ssize_t>(s.refs.size());
    if (i < 0) i += n;
    if (i < 0 || i >= n) throw py::index_error("FilterSet index out of range");
    return s.refs[static_cast<size_t>(i)];
  });
  cls.def("__iter__", [](const PySet& s) {
    py::list l;
    for (const py::object& o : s.refs) l.append(o);
    return l.attr("__iter__")();
  });
  cls.def("contains", &Contains, py::arg("keys"), py::kw_only(), py::arg("threads") = 1,
          py::arg("prehashed") = false,
          "Every (filter, key) pair where the key may be in the filter, as two uint32 arrays "
          "(filter_index, key_index), in key order then filter order. A null of a pandas "
          "nullable batch matches nothing. `threads`: that many threads (same answers).");
  cls.def("first", &PerKey<int32_t, &simdbloom::FilterSet::first, -1>, py::arg("keys"),
          py::kw_only(), py::arg("threads") = 1, py::arg("prehashed") = false,
          "An int32 array: per key, the index of the first filter (set order) that may hold it, -1 "
          "if none (an LSM lookup newest first). Later filters are probed only for keys still "
          "unmatched.");
  cls.def("count", &PerKey<uint32_t, &simdbloom::FilterSet::count, 0>, py::arg("keys"),
          py::kw_only(), py::arg("threads") = 1, py::arg("prehashed") = false,
          "A uint32 array: per key, how many filters may hold it.");
}

}  // namespace simdbloom_py
