// SPDX-License-Identifier: Apache-2.0
// simdbloom._core: one C++ filter of any class as a Python object, and the calls that reach it.
// Every class of the module is a LockedFilter<T>: the library's object (which keeps its key type)
// and a reader/writer lock, so that a mutation running without the GIL never overlaps another call
// on the same object (queries share the lock; an insert, merge, clear takes it alone). Bulk calls,
// set operations, scans and file I/O release the GIL. No call waits for that lock holding the GIL
// (single-key calls try it first, and release the GIL to wait): the lock's holder may need the GIL
// to finish (a save into a Python file object, a FIFO read by a Python thread). The templates
// below are the only place where keys meet locks and the GIL; each class's file (filter.cc, ...)
// passes the library calls as lambdas.
#ifndef SIMDBLOOM_PYTHON_LOCKED_FILTER_H_
#define SIMDBLOOM_PYTHON_LOCKED_FILTER_H_

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "init_checked.h"
#include "keys.h"

namespace simdbloom_py {

// What the generic bindings need of class T, specialized in T's file (filter.cc, ...):
//   static constexpr const char* kName;             the Python class name ("Filter")
//   static T Copy(const T&);                         an independent copy
//   static bool Equal(const T&, const T&);           same parameters and the same bits
//   static size_t SerializedSize(const T&);          bytes Save writes, or instead
//   static std::string SaveString(const T&);         the saved form as a string (persist.h)
//   static void Save(const T&, std::ostream&);       the saved form (lib/FORMAT.md)
//   static T Load(const uint8_t*, size_t);           validated
//   static T Load(std::istream&);                    reads one saved object
//   static void SaveFile(const T&, const std::string&);  static T LoadFile(const std::string&);
template <class T>
struct Kind;

// The object and its lock. Not copyable or movable (the lock): Python owns it by pointer.
template <class T>
struct LockedFilter {
  explicit LockedFilter(T&& o) : obj(std::move(o)) {}
  T obj;
  mutable std::shared_mutex mu;
  // Bits that came without an insert count (Filter.from_parquet): __bool__ looks at the bits.
  bool uncounted = false;
};

}  // namespace simdbloom_py

// A method on an object whose __init__ never ran raises TypeError (init_checked.h).
namespace pybind11::detail {
template <class T>
class type_caster<simdbloom_py::LockedFilter<T>>
    : public simdbloom_py::InitCheckedCaster<simdbloom_py::LockedFilter<T>> {};
}  // namespace pybind11::detail

namespace simdbloom_py {

template <class T>
using Ptr = std::unique_ptr<LockedFilter<T>>;

template <class T>
Ptr<T> Wrap(T&& obj) {
  return std::make_unique<LockedFilter<T>>(std::move(obj));
}

// Runs fn() without the GIL and returns its value: the library's constructors (sizing, a zeroed
// allocation), loads and copies.
template <class Fn>
auto WithoutGil(Fn&& fn) -> decltype(fn()) {
  std::optional<decltype(fn())> r;
  {
    py::gil_scoped_release nogil;
    r.emplace(fn());
  }
  return std::move(*r);
}

// Locks `mu` (Lock: std::unique_lock or std::shared_lock) for a call that holds the GIL. Never
// waits with the GIL held: the uncontended case is one try_lock; on contention the GIL is released
// while waiting, then taken back (holding the lock: everyone else waits for the lock without the
// GIL, so this cannot deadlock).
template <class Lock>
Lock LockWithGil(std::shared_mutex& mu) {
  Lock lock(mu, std::try_to_lock);
  if (!lock.owns_lock()) {
    py::gil_scoped_release nogil;
    lock.lock();
  }
  return lock;
}

using SharedLock = std::shared_lock<std::shared_mutex>;
using UniqueLock = std::unique_lock<std::shared_mutex>;

// fn(obj) under the shared lock without the GIL (fn must not touch Python objects): bulk queries,
// scans of the bits, saving.
template <class T, class Fn>
auto Reading(const LockedFilter<T>& g, Fn&& fn) -> decltype(fn(g.obj)) {
  py::gil_scoped_release nogil;
  SharedLock lock(g.mu);
  return fn(g.obj);
}
// fn(obj) under the exclusive lock without the GIL: bulk inserts, merges, clear.
template <class T, class Fn>
auto Writing(LockedFilter<T>& g, Fn&& fn) -> decltype(fn(g.obj)) {
  py::gil_scoped_release nogil;
  UniqueLock lock(g.mu);
  return fn(g.obj);
}

// fn(self.obj, other.obj) with `self` locked alone and `other` shared, in address order, without
// the GIL; `other` may be `self`.
template <class T, class Fn>
void WithPair(LockedFilter<T>& self, const LockedFilter<T>& other, Fn&& fn) {
  py::gil_scoped_release nogil;
  if (&self == &other) {
    UniqueLock lock(self.mu);
    fn(self.obj, other.obj);
  } else if (&self < &other) {
    UniqueLock a(self.mu);
    SharedLock b(other.mu);
    fn(self.obj, other.obj);
  } else {
    SharedLock b(other.mu);
    UniqueLock a(self.mu);
    fn(self.obj, other.obj);
  }
}
// fn(a.obj, b.obj) with both shared, in address order, without the GIL (comparisons); a may be b.
template <class T, class Fn>
auto ReadingPair(const LockedFilter<T>& a, const LockedFilter<T>& b, Fn&& fn)
    -> decltype(fn(a.obj, b.obj)) {
  py::gil_scoped_release nogil;
  const LockedFilter<T>* first = &a < &b ? &a : &b;
  const LockedFilter<T>* second = &a < &b ? &b : &a;
  SharedLock l1(first->mu);
  std::optional<SharedLock> l2;  // one shared lock for a == b
  if (second != first) l2.emplace(second->mu);
  return fn(a.obj, b.obj);
}

// An independent copy (Kind<T>::Copy under the shared lock, without the GIL), key type included.
template <class T>
Ptr<T> CopyOf(const LockedFilter<T>& self) {
  std::optional<T> copy;
  Reading(self, [&](const T& obj) { copy.emplace(Kind<T>::Copy(obj)); });
  Ptr<T> r = Wrap(std::move(*copy));
  r->uncounted = self.uncounted;
  return r;
}

// ---- Getters ----
// A Python getter from m: a const member function of T without arguments (or any callable on
// const T&), called under the lock the value needs:
// Param: a parameter fixed at construction (size, k, seed): no lock. O(1).
template <class T, class M>
auto Param(M m) {
  return [m](const LockedFilter<T>& g) { return std::invoke(m, g.obj); };
}
// Locked: state that mutations change, read in O(1) (or O(stages), O(num_areas)): the shared lock
// taken with the GIL held (LockWithGil). Locked<T, A...>(m): a method taking arguments of types
// A... (stage_count(i)), passed on.
template <class T, class... A, class M>
auto Locked(M m) {
  return [m](const LockedFilter<T>& g, A... a) {
    auto lock = LockWithGil<SharedLock>(g.mu);
    return std::invoke(m, g.obj, a...);
  };
}
// Scan: a pass over the bits (fill ratio, estimates): the shared lock without the GIL (Reading).
template <class T, class M>
auto Scan(M m) {
  return [m](const LockedFilter<T>& g) {
    return Reading(g, [&](const T& o) { return std::invoke(m, o); });
  };
}

// Binds each (name, m) pair as the read-only property Param<T>(m) of cls, in order:
// BindParams<Filter>(cls, "seed", &Filter::seed, "num_hashes", &Filter::num_hashes).
template <class T, class Cls>
void BindParams(Cls&) {}
template <class T, class Cls, class M, class... Rest>
void BindParams(Cls& cls, const char* name, M m, Rest... rest) {
  cls.def_property_readonly(name, Param<T>(m));
  BindParams<T>(cls, rest...);
}

// ---- One key ----
[[noreturn]] void NotOneKey(const char* who);

// An int beyond 64 bits for a call on a filter of key type `type` (read under its lock): on a
// byte-string filter TypeError (an integer key, as the library's KeyTypeError); else, for a
// query, nothing (absent: the caller answers 0), for an insert (or hash: it has none) ValueError.
void BeyondRange(const char* who, KeyType type, const OutOfRange& key, bool refuse);

// fn(obj, key) for the one key `key` stands for, under the shared lock, with the GIL (O(k): a
// release of the GIL would cost more than the call). TypeError if `key` is not one key. An int
// beyond 64 bits is absent (fn's zero value), or refused when `refuse` (hash).
template <class T, class Fn>
auto QueryOne(const LockedFilter<T>& g, py::handle key, const char* who, Fn&& fn,
              bool refuse = false) -> decltype(fn(g.obj, uint64_t{})) {
  decltype(fn(g.obj, uint64_t{})) r{};
  if (!WithSingleKey(key, [&](auto k) {
        auto lock = LockWithGil<SharedLock>(g.mu);
        if constexpr (std::is_same<decltype(k), OutOfRange>::value) {
          BeyondRange(who, g.obj.key_type(), k, refuse);
        } else {
          r = fn(g.obj, k);
        }
      })) {
    NotOneKey(who);
  }
  return r;
}
// The same for a mutation (the exclusive lock); `insert`: an int beyond 64 bits is refused
// (inserts), else absent (removes: fn's zero value, False). Returns fn's value as a Python object
// (None for void).
template <class T, class Fn>
py::object MutateOne(LockedFilter<T>& g, py::handle key, const char* who, bool insert, Fn&& fn) {
  py::object r = py::none();
  if (!WithSingleKey(key, [&](auto k) {
        auto lock = LockWithGil<UniqueLock>(g.mu);
        if constexpr (std::is_same<decltype(k), OutOfRange>::value) {
          BeyondRange(who, g.obj.key_type(), k, insert);
          lock.unlock();
          using R = decltype(fn(g.obj, int64_t{}));
          if constexpr (!std::is_void<R>::value) r = py::cast(R{});
        } else if constexpr (std::is_void<decltype(fn(g.obj, k))>::value) {
          fn(g.obj, k);
        } else {
          const auto value = fn(g.obj, k);
          lock.unlock();
          r = py::cast(value);
        }
      })) {
    NotOneKey(who);
  }
  return r;
}
template <class T, class Fn>
py::object InsertOne(LockedFilter<T>& g, py::handle key, const char* who, Fn&& fn) {
  return MutateOne(g, key, who, true, fn);
}

// hash(key): the library's hash of one key (what insert computes first), for prehashed=True.
template <class T>
void BindHash(py::class_<LockedFilter<T>>& cls, const char* doc) {
  cls.def(
      "hash",
      [](const LockedFilter<T>& self, py::handle key) {
        return QueryOne(
            self, key, "hash", [](const T& f, auto k) { return f.hash(k); }, true);
      },
      py::arg("key"), doc);
}

// ---- Batches ----
// fn(obj, keys) under the exclusive lock without the GIL; `insert`: a batch holding an int beyond
// 64 bits is refused first (inserts; removes leave it out). Returns fn's value as a Python object
// (None for void).
template <class T, class Fn>
py::object MutateBatch(LockedFilter<T>& g, const KeyBatch& b, bool insert, Fn&& fn) {
  if (insert) b.CheckInsert("insert");
  py::object r = py::none();
  if constexpr (std::is_void<decltype(fn(g.obj, *b.keys))>::value) {
    Writing(g, [&](T& obj) { fn(obj, *b.keys); });
  } else {
    r = py::cast(Writing(g, [&](T& obj) { return fn(obj, *b.keys); }));
  }
  return r;
}
template <class T, class Fn>
py::object InsertBatch(LockedFilter<T>& g, const KeyBatch& b, Fn&& fn) {
  return MutateBatch(g, b, true, fn);
}

// update(iterable): fn(obj, keys) for each chunk of ForEachChunk (one call for a batch form),
// each under the exclusive lock without the GIL. Every key yielded before an error (the iterable
// raising, an item that is no key) is inserted before the error propagates.
template <class T, class Fn>
void UpdateFrom(LockedFilter<T>& g, py::handle iterable, Fn&& fn) {
  ForEachChunk(iterable, [&](const KeyBatch& b) { InsertBatch(g, b, fn); });
}

// ---- Results ----
// The element type of a result of Out values (bool results are bytes 0/1).
template <class Out>
using Elem = std::conditional_t<std::is_same<Out, bool>::value, uint8_t, Out>;

// `out` checked as the caller's result array for n values of Out (bool results: bool or uint8;
// others: Out's dtype): 1-D, contiguous, writable.
template <class Out>
py::array CheckedOut(py::object out, size_t n);

// A new array of n Out values, or the caller's `out` (checked).
template <class Out>
py::array ResultArray(py::object out, size_t n) {
  if (out.is_none()) return py::array_t<Out>(static_cast<py::ssize_t>(n));
  return CheckedOut<Out>(std::move(out), n);
}

// Runs fn(obj, keys, p) (writes keys.size() Out values at p) under the shared lock without the
// GIL and returns the values as a NumPy array, one per key of the caller's batch: a null of a
// pandas nullable batch gets 0 (never present, no label, count 0). Allocates the result unless
// `out` is given (and, for a batch with nulls, one value per non-null key).
// ValueError if the caller's `out` shares bytes with what the batch reads in place (its NumPy
// array, its nulls mask, a Binary's data): the results would overwrite keys not yet read.
void CheckOutApart(const py::array& out, const KeyBatch& b);

template <class Out, class T, class Fn>
py::array QueryBatch(const LockedFilter<T>& g, const KeyBatch& b, py::object out, Fn&& fn) {
  const bool given = !out.is_none();
  py::array result = ResultArray<Out>(std::move(out), b.total_size());
  if (given) CheckOutApart(result, b);
  auto* p = static_cast<Elem<Out>*>(result.mutable_data());
  Reading(g, [&](const T& obj) {
    if (b.valid == nullptr) {
      fn(obj, *b.keys, p);
      return;
    }
    std::vector<Elem<Out>> values(b.size());
    fn(obj, *b.keys, values.data());
    Spread(b, values.data(), p);
  });
  return result;
}

// A query of one key (one(obj, key), returned as a Python object) or of a batch (bulk(obj, keys,
// p), returned as an array of Out). `out` and `prehashed` apply to batches.
template <class Out, class T, class One, class Bulk>
py::object Query(const LockedFilter<T>& g, py::handle keys, py::object out, bool prehashed,
                 const char* who, One&& one, Bulk&& bulk) {
  if (!prehashed && out.is_none() && IsSingle(keys)) {
    return py::cast(QueryOne(g, keys, who, one));
  }
  KeyBatch b;
  MakeKeys(keys, prehashed, &b);
  if (!out.is_none()) return QueryBatch<Out>(g, b, std::move(out), bulk);
  return LikeKeys(keys, QueryBatch<Out>(g, b, std::move(out), bulk));
}

// A mutation of one key (one(obj, key)) or of a batch (bulk(obj, keys)); their values as Python
// objects (None for void). `insert`: inserts (ints beyond 64 bits refused), not removes.
template <class T, class One, class Bulk>
py::object Mutate(LockedFilter<T>& g, py::handle keys, bool prehashed, const char* who, bool insert,
                  One&& one, Bulk&& bulk) {
  if (!prehashed && IsSingle(keys)) return MutateOne(g, keys, who, insert, one);
  KeyBatch b;
  MakeKeys(keys, prehashed, &b);
  return MutateBatch(g, b, insert, bulk);
}
template <class T, class One, class Bulk>
py::object Insert(LockedFilter<T>& g, py::handle keys, bool prehashed, One&& one, Bulk&& bulk) {
  return Mutate(g, keys, prehashed, "insert", true, one, bulk);
}

// Per-key flags of a mutation of a batch (insert_fresh, remove_flags): bulk(obj, keys, flags)
// writes one byte per key; a null of a pandas nullable batch is skipped (False). A bool array
// (Out = uint8_t: the bytes as the call wrote them).
template <class Out = bool, class T, class Bulk>
py::array MutateFlags(LockedFilter<T>& g, py::handle keys, bool prehashed, bool insert,
                      Bulk&& bulk) {
  KeyBatch b;
  MakeKeys(keys, prehashed, &b);
  py::array out = py::array_t<Out>(static_cast<py::ssize_t>(b.total_size()));
  auto* p = static_cast<uint8_t*>(out.mutable_data());
  MutateBatch(g, b, insert, [&](T& f, const Keys& k) {
    std::vector<uint8_t> flags(b.valid ? b.size() : 0);
    uint8_t* q = b.valid ? flags.data() : p;
    bulk(f, k, q);
    if (b.valid) Spread(b, q, p);
  });
  return out;
}

// ---- Text ----
// "simdbloom.NAME(a=1, b=x)" from name=value pairs.
std::string Repr(const char* name, const std::vector<std::pair<const char*, std::string>>& fields);
std::string FormatDouble(double v);

// Fraction of set bits of `bytes` bytes at data (O(bytes), no allocation; no GIL needed).
double BitFill(const uint8_t* data, size_t bytes);

}  // namespace simdbloom_py

#endif  // SIMDBLOOM_PYTHON_LOCKED_FILTER_H_
