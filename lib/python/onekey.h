// SPDX-License-Identifier: Apache-2.0
// simdbloom._core: `key in f` and f.add(key) as raw CPython entry points, for the classes that
// answer membership (Filter, CountingFilter, ScalableFilter). One key through pybind11 costs
// 200-400 ns, nearly all of it the dispatcher (overload resolution, casting self, the argument
// and the result); the library's part is a few ns. Here `in` is the type's sq_contains slot and
// add a METH_O method descriptor: an exact int (within int64), str or bytes on an object of the
// class itself (not a subclass), with the object's lock free, goes straight to the library's
// single-key call with the GIL held (releasing it would cost more than the call). Everything
// else (NumPy integers, bytearray, memoryview, ints beyond int64, bool and float, a subclass, a
// busy lock, any error) calls the general pybind11 binding, which converts, waits and raises
// exactly as before: the fast path answers only what the general path would answer alike.
#ifndef SIMDBLOOM_PYTHON_ONEKEY_H_
#define SIMDBLOOM_PYTHON_ONEKEY_H_

#include <pybind11/pybind11.h>

#include <cstdint>
#include <mutex>
#include <shared_mutex>
#include <string_view>

#include "guarded.h"

namespace simdbloom_py {

// fn(key) for an exact Python int in [-2**63, 2**63) (as int64_t), an exact str (its UTF-8 bytes,
// cached by Python) or exact bytes (std::string_view); false for anything else, without a Python
// error set. O(1) (a str's first use: its UTF-8 encoding). Needs the GIL.
template <class Fn>
inline bool WithExactKey(PyObject* o, Fn&& fn) {
  if (PyLong_CheckExact(o)) {  // bool is a subclass: never here
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow != 0) return false;
    fn(static_cast<int64_t>(v));
    return true;
  }
  if (PyUnicode_CheckExact(o)) {
    Py_ssize_t size = 0;
    const char* s = PyUnicode_AsUTF8AndSize(o, &size);
    if (s == nullptr) {  // lone surrogates: the general path raises
      PyErr_Clear();
      return false;
    }
    fn(std::string_view(s, static_cast<size_t>(size)));
    return true;
  }
  if (PyBytes_CheckExact(o)) {
    fn(std::string_view(PyBytes_AS_STRING(o), static_cast<size_t>(PyBytes_GET_SIZE(o))));
    return true;
  }
  return false;
}

// The raw entry points of class T. Contains(f, key) and Add(f, key) are the library's calls,
// given by BindOneKey; the general bindings (`__contains__`, add) are kept as the fallbacks.
template <class T>
struct OneKey {
  static inline PyTypeObject* type = nullptr;
  static inline PyObject* general_contains = nullptr;  // pybind11's __contains__ (a function)
  static inline PyObject* general_add = nullptr;       // pybind11's add
  static inline bool (*contains)(const T&, int64_t) = nullptr;
  static inline bool (*contains_bytes)(const T&, std::string_view) = nullptr;
  static inline void (*add)(T&, int64_t) = nullptr;
  static inline void (*add_bytes)(T&, std::string_view) = nullptr;

  // The object of `self` when it is an initialized instance of T's class itself; else null.
  static Guarded<T>* Self(PyObject* self) {
    if (Py_TYPE(self) != type) return nullptr;
    auto* inst = reinterpret_cast<py::detail::instance*>(self);
    py::detail::value_and_holder vh = inst->get_value_and_holder();
    if (!vh.holder_constructed()) return nullptr;  // __init__ not run: the general path raises
    return vh.template value_ptr<Guarded<T>>();
  }

  // sq_contains: 1, 0, or -1 with a Python error.
  static int Contains(PyObject* self, PyObject* key) {
    if (const Guarded<T>* g = Self(self)) {
      int r = -1;
      try {
        WithExactKey(key, [&](auto k) {
          std::shared_lock<std::shared_mutex> lock(g->mu, std::try_to_lock);
          if (!lock.owns_lock()) return;
          if constexpr (std::is_same<decltype(k), int64_t>::value) {
            r = contains(g->obj, k) ? 1 : 0;
          } else {
            r = contains_bytes(g->obj, k) ? 1 : 0;
          }
        });
      } catch (...) {  // a key of the other type, ...: the general path raises
        r = -1;
      }
      if (r >= 0) return r;
    }
    PyObject* result = PyObject_CallFunctionObjArgs(general_contains, self, key, nullptr);
    if (result == nullptr) return -1;
    const int r = PyObject_IsTrue(result);
    Py_DECREF(result);
    return r;
  }

  // add(key) as METH_O: None, or null with a Python error.
  static PyObject* Add(PyObject* self, PyObject* key) {
    if (Guarded<T>* g = Self(self)) {
      bool done = false;
      try {
        WithExactKey(key, [&](auto k) {
          std::unique_lock<std::shared_mutex> lock(g->mu, std::try_to_lock);
          if (!lock.owns_lock()) return;
          // The library checks the key type and a read-only mapping before it changes anything:
          // when it throws, nothing was inserted, and the general path raises the error.
          if constexpr (std::is_same<decltype(k), int64_t>::value) {
            add(g->obj, k);
          } else {
            add_bytes(g->obj, k);
          }
          done = true;
        });
      } catch (...) {
        done = false;
      }
      if (done) Py_RETURN_NONE;
    }
    return PyObject_CallFunctionObjArgs(general_add, self, key, nullptr);
  }
};

// Installs the raw `in` and add on `cls`, after BindMembership bound their general versions.
template <class T>
void BindOneKey(py::class_<Guarded<T>>& cls) {
  using O = OneKey<T>;
  auto* tp = reinterpret_cast<PyTypeObject*>(cls.ptr());
  O::type = tp;
  O::general_contains =
      py::object(cls.attr("__contains__")).release().ptr();  // kept for the module's life
  O::general_add = py::object(cls.attr("add")).release().ptr();
  O::contains = [](const T& f, int64_t k) -> bool { return f.contains(k); };
  O::contains_bytes = [](const T& f, std::string_view k) -> bool { return f.contains(k); };
  O::add = [](T& f, int64_t k) { f.insert(k); };
  O::add_bytes = [](T& f, std::string_view k) { f.insert(k); };
  // `key in f` calls the slot directly; f.__contains__ stays the general binding.
  tp->tp_as_sequence->sq_contains = &O::Contains;
  static PyMethodDef add_def = {
      "add", reinterpret_cast<PyCFunction>(&O::Add), METH_O,
      "add(self, key) -> None\n\nInserts one key, as set.add (returns None). O(k); an exact "
      "int, str or bytes takes the direct path (no GIL release for one key)."};
  py::object descr = py::reinterpret_steal<py::object>(PyDescr_NewMethod(tp, &add_def));
  if (!descr) throw py::error_already_set();
  if (PyDict_SetItemString(tp->tp_dict, "add", descr.ptr()) != 0) throw py::error_already_set();
  PyType_Modified(tp);
}

}  // namespace simdbloom_py

#endif  // SIMDBLOOM_PYTHON_ONEKEY_H_
