// SPDX-License-Identifier: Apache-2.0
// simdbloom._core: `key in f`, f.add(key), f.contains(key) and f.insert(key) (one key, no
// options) as raw CPython entry points, for the classes that
// answer membership (Filter, CountingFilter, ScalableFilter). One key through pybind11 costs
// 200-400 ns, nearly all of it the dispatcher (overload resolution, casting self, the argument
// and the result); the library's part is a few ns. Here `in` is the type's sq_contains slot, add
// a METH_O method descriptor, contains and insert METH_FASTCALL ones: an exact int (within int64),
// str or bytes on an object of the class itself (not a subclass), with the object's lock free, goes
// straight to the library's single-key call with the GIL held (releasing it would cost more than
// the call). Everything else (NumPy integers, bytearray, memoryview, ints beyond int64, bool and
// float, a subclass, a busy lock, any error) calls the general pybind11 binding, which converts,
// waits and raises exactly as before: the fast path answers only what the general path would answer
// alike.
#ifndef SIMDBLOOM_PYTHON_ONEKEY_H_
#define SIMDBLOOM_PYTHON_ONEKEY_H_

#include <pybind11/pybind11.h>

#include <cstdint>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "locked_filter.h"

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
  static inline PyObject* general_contains_method = nullptr;  // pybind11's contains
  static inline PyObject* general_insert_method = nullptr;    // pybind11's insert
  static inline bool (*contains)(const T&, int64_t) = nullptr;
  static inline bool (*contains_bytes)(const T&, std::string_view) = nullptr;
  static inline bool (*add)(T&, int64_t) = nullptr;  // insert: whether surely new
  static inline bool (*add_bytes)(T&, std::string_view) = nullptr;

  // The object of `self` when it is an initialized instance of T's class itself; else null.
  static LockedFilter<T>* Self(PyObject* self) {
    if (Py_TYPE(self) != type) return nullptr;
    auto* inst = reinterpret_cast<py::detail::instance*>(self);
    py::detail::value_and_holder vh = inst->get_value_and_holder();
    if (!vh.holder_constructed()) return nullptr;  // __init__ not run: the general path raises
    return vh.template value_ptr<LockedFilter<T>>();
  }

  // The fast path of a query: 1 or 0, or -1 when the general path must answer (no Python
  // error set).
  static int TryContains(PyObject* self, PyObject* key) {
    const LockedFilter<T>* g = Self(self);
    if (g == nullptr) return -1;
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
    return r;
  }
  // The fast path of an insert: 1 if the key was surely new, 0 if not, -1 when the general path
  // must do it. The library checks the key type and a read-only mapping before it changes
  // anything: when it throws, nothing was inserted, and the general path raises the error.
  static int TryInsert(PyObject* self, PyObject* key) {
    LockedFilter<T>* g = Self(self);
    if (g == nullptr) return -1;
    int r = -1;
    try {
      WithExactKey(key, [&](auto k) {
        std::unique_lock<std::shared_mutex> lock(g->mu, std::try_to_lock);
        if (!lock.owns_lock()) return;
        if constexpr (std::is_same<decltype(k), int64_t>::value) {
          r = add(g->obj, k) ? 1 : 0;
        } else {
          r = add_bytes(g->obj, k) ? 1 : 0;
        }
      });
    } catch (...) {
      r = -1;
    }
    return r;
  }

  // general(self, *args, **kwargs) from a vectorcall's arguments.
  static PyObject* General(PyObject* general, PyObject* self, PyObject* const* args,
                           Py_ssize_t nargs, PyObject* kwnames) {
    const Py_ssize_t nkw = kwnames == nullptr ? 0 : PyTuple_GET_SIZE(kwnames);
#if PY_VERSION_HEX >= 0x03090000
    std::vector<PyObject*> stack(static_cast<size_t>(1 + nargs + nkw));
    stack[0] = self;
    for (Py_ssize_t i = 0; i < nargs + nkw; ++i) stack[static_cast<size_t>(1 + i)] = args[i];
    return PyObject_Vectorcall(general, stack.data(), static_cast<size_t>(1 + nargs), kwnames);
#else  // no public vectorcall: a tuple and a dict
    py::tuple positional(1 + nargs);
    positional[0] = py::reinterpret_borrow<py::object>(self);
    for (Py_ssize_t i = 0; i < nargs; ++i) {
      positional[static_cast<size_t>(1 + i)] = py::reinterpret_borrow<py::object>(args[i]);
    }
    py::dict keywords;
    for (Py_ssize_t i = 0; i < nkw; ++i) {
      keywords[PyTuple_GET_ITEM(kwnames, i)] = py::reinterpret_borrow<py::object>(args[nargs + i]);
    }
    return PyObject_Call(general, positional.ptr(), keywords.ptr());
#endif
  }

  // sq_contains: 1, 0, or -1 with a Python error.
  static int Contains(PyObject* self, PyObject* key) {
    const int r = TryContains(self, key);
    if (r >= 0) return r;
    PyObject* result = PyObject_CallFunctionObjArgs(general_contains, self, key, nullptr);
    if (result == nullptr) return -1;
    const int truth = PyObject_IsTrue(result);
    Py_DECREF(result);
    return truth;
  }

  // add(key) as METH_O: None, or null with a Python error.
  static PyObject* Add(PyObject* self, PyObject* key) {
    if (TryInsert(self, key) >= 0) Py_RETURN_NONE;
    return PyObject_CallFunctionObjArgs(general_add, self, key, nullptr);
  }

  // contains(keys, ...) and insert(keys, ...) (METH_FASTCALL | METH_KEYWORDS): one positional key
  // and no options takes the fast path; anything else (batches, out=, threads=, prehashed=)
  // the general binding.
  static PyObject* ContainsMethod(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                                  PyObject* kwnames) {
    if (nargs == 1 && kwnames == nullptr) {
      const int r = TryContains(self, args[0]);
      if (r >= 0) return PyBool_FromLong(r);
    }
    return General(general_contains_method, self, args, nargs, kwnames);
  }
  static PyObject* InsertMethod(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                                PyObject* kwnames) {
    if (nargs == 1 && kwnames == nullptr) {
      const int r = TryInsert(self, args[0]);
      if (r >= 0) return PyBool_FromLong(r);
    }
    return General(general_insert_method, self, args, nargs, kwnames);
  }
};

// Installs the raw `in`, add, contains and insert on `cls`, after BindMembership bound their
// general versions (kept as the fallbacks).
template <class T>
void BindOneKey(py::class_<LockedFilter<T>>& cls) {
  using O = OneKey<T>;
  auto* tp = reinterpret_cast<PyTypeObject*>(cls.ptr());
  O::type = tp;
  O::general_contains =
      py::object(cls.attr("__contains__")).release().ptr();  // kept for the module's life
  O::general_add = py::object(cls.attr("add")).release().ptr();
  O::general_contains_method = py::object(cls.attr("contains")).release().ptr();
  O::general_insert_method = py::object(cls.attr("insert")).release().ptr();
  O::contains = [](const T& f, int64_t k) -> bool { return f.contains(k); };
  O::contains_bytes = [](const T& f, std::string_view k) -> bool { return f.contains(k); };
  O::add = [](T& f, int64_t k) -> bool { return f.insert(k); };
  O::add_bytes = [](T& f, std::string_view k) -> bool { return f.insert(k); };
  // `key in f` calls the slot directly; f.__contains__ stays the general binding.
  tp->tp_as_sequence->sq_contains = &O::Contains;
  static PyMethodDef add_def = {
      "add", reinterpret_cast<PyCFunction>(&O::Add), METH_O,
      "add(self, key) -> None\n\nInserts one key, as set.add (returns None). O(k); an exact "
      "int, str or bytes takes the direct path (no GIL release for one key)."};
  py::object descr = py::reinterpret_steal<py::object>(PyDescr_NewMethod(tp, &add_def));
  if (!descr) throw py::error_already_set();
  if (PyDict_SetItemString(tp->tp_dict, "add", descr.ptr()) != 0) throw py::error_already_set();
  // contains and insert keep the general bindings' docstrings (signatures and options).
  static std::string contains_doc, insert_doc;
  contains_doc = py::str(py::handle(O::general_contains_method).attr("__doc__"));
  insert_doc = py::str(py::handle(O::general_insert_method).attr("__doc__"));
  static PyMethodDef contains_def = {
      "contains", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&O::ContainsMethod)),
      METH_FASTCALL | METH_KEYWORDS, contains_doc.c_str()};
  static PyMethodDef insert_def = {
      "insert", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&O::InsertMethod)),
      METH_FASTCALL | METH_KEYWORDS, insert_doc.c_str()};
  for (PyMethodDef* def : {&contains_def, &insert_def}) {
    py::object d = py::reinterpret_steal<py::object>(PyDescr_NewMethod(tp, def));
    if (!d) throw py::error_already_set();
    if (PyDict_SetItemString(tp->tp_dict, def->ml_name, d.ptr()) != 0) {
      throw py::error_already_set();
    }
  }
  PyType_Modified(tp);
}

}  // namespace simdbloom_py

#endif  // SIMDBLOOM_PYTHON_ONEKEY_H_
