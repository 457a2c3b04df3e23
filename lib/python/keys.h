// SPDX-License-Identifier: Apache-2.0
// simdbloom._core: Python keys as the library's keys, for every class of the module. One key (int,
// NumPy integer, bytes, bytearray, memoryview, str) becomes a C++ key: an integer its value as
// int64_t or uint64_t, a byte string a std::string_view (WithSingleKey); a batch
// (NumPy array, list/tuple, Binary, pandas Series or nullable array) becomes a simdbloom::Keys
// read in place where it can be (MakeKeys); any other iterable is cut into chunks of kChunkKeys
// keys (ForEachChunk), so update() of a generator holds one chunk at a time. Nothing here locks a
// filter or releases the GIL: that is locked_filter.h's job.
#ifndef SIMDBLOOM_PYTHON_KEYS_H_
#define SIMDBLOOM_PYTHON_KEYS_H_

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <simdbloom/simdbloom.hpp>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace simdbloom_py {

namespace py = pybind11;
using simdbloom::Keys;

// What a filter holds is the library's KeyType (simdbloom/detail/keys.hpp), kept by the C++ object
// and saved in its file: every class reads it from there. In Python: None (nothing declared or
// inserted yet), 'int64', 'int32', 'bytes', or 'legacy' (a file saved before key types).
using simdbloom::KeyType;
// None for kNone, else key_type_name ('int64', ...).
py::object KeyTypeObject(KeyType t);
// Whether two objects' key types let them be compared: equal, or one None (kNone).
inline bool KeyTypesMatch(KeyType a, KeyType b) {
  return a == b || a == KeyType::kNone || b == KeyType::kNone;
}
// A constructor's key_type= argument: None (kNone), 'int64', 'int32' or 'bytes'; ValueError for
// anything else.
KeyType KeyTypeArg(py::handle h);
// The key_type setter's value: 'int64', 'int32' or 'bytes' (declared once; the library refuses
// another); ValueError for anything else.
KeyType KeyTypeDeclared(py::handle h);

// A Python int beyond 64 bits (outside [-2**63, 2**64)): the key of no filter. WithSingleKey
// passes it to fn, which answers it absent (queries) or refuses it (inserts: ValueError).
struct OutOfRange {
  std::string repr;  // the int's decimal digits
};
[[noreturn]] void ThrowOutOfRange(const char* who, const std::string& repr);

// numpy.integer (imported once).
py::handle NumpyInteger();

// Calls fn(key) with the C++ key a Python single key stands for and returns true; false if `h` is
// not a single key (then it is a batch). A key is its value: an int or a NumPy integer scalar of
// any dtype is passed as int64_t (a value in [-2**63, 2**63)) or uint64_t (in [2**63, 2**64)), and
// the library hashes it for the filter's key type; an int beyond that range as OutOfRange.
// bytes/bytearray/memoryview (C-contiguous): their bytes; str: its UTF-8 bytes (a
// std::string_view into the object, valid while fn runs). bool and float raise TypeError. O(1)
// (str: its UTF-8 encoding, cached by Python), no allocation but str's cache; needs the GIL.
template <class Fn>
bool WithSingleKey(py::handle h, Fn&& fn);

// Whether `h` is one key (or a float, refused by WithSingleKey), not a batch: memoryview included
// (a byte string, never the integers of its bytes).
bool IsSingle(py::handle h);

// The keys of one bulk call, and whatever keeps them valid while the call runs without the GIL.
struct KeyBatch {
  std::optional<Keys> keys;
  py::object array;                     // a NumPy array read in place
  std::vector<py::object> refs;         // the bytes/str objects `views` point into
  std::vector<std::string_view> views;  // byte-string keys, in place
  std::vector<int64_t> ints;            // a sequence of ints (Python, NumPy scalars): values
  std::vector<int64_t> offsets;         // NumPy 'U' arrays encoded to UTF-8; Binary's, copied
  std::vector<int32_t> offsets32;       // Binary's int32 offsets, copied
  std::vector<uint8_t> data;
  // pandas nullable keys with nulls, or a sequence holding ints beyond 64 bits: `keys` holds the
  // others; valid[i] (i < total) says whether key i of the caller's batch is one of them.
  // nullptr: all are keys.
  py::object valid_array;
  std::vector<uint8_t> valid_flags;
  // The first int beyond 64 bits of a sequence (absent from every filter: inserts refuse it).
  std::optional<std::string> out_of_range;
  const uint8_t* valid = nullptr;
  size_t total = 0;
  size_t size() const { return keys->size(); }                  // keys the library sees
  size_t total_size() const { return valid ? total : size(); }  // the caller's keys, nulls too
  // For an insert: ValueError if the batch holds an int beyond 64 bits.
  void CheckInsert(const char* who) const {
    if (out_of_range) ThrowOutOfRange(who, *out_of_range);
  }
};

// The batch `obj` as Keys in `b` (see the module's docstring for the forms). `prehashed`: uint64
// hashes (Prehashed). TypeError/ValueError for anything that is not a batch of keys. Cost: O(1)
// for NumPy integer arrays and Binary data (in place; Binary's offsets are copied), a
// string_view per key for bytes/str sequences and 'S' arrays, a copy for 'U' arrays and lists of
// ints. Needs the GIL.
void MakeKeys(py::handle obj, bool prehashed, KeyBatch* b);

// A query's answers (one per key) as the caller's keys are: for a pandas Series, a Series with
// its index and name (as Series.isin answers); else `answers` itself. O(1) (no copy).
py::object LikeKeys(py::handle keys, py::object answers);

// out[i] for each key of the caller's batch: the next of `flags` where key i is not null, 0
// (never present, never new, no label) where it is. No GIL needed.
template <class T>
void Spread(const KeyBatch& b, const T* flags, T* out) {
  for (size_t i = 0, j = 0; i < b.total; ++i) out[i] = b.valid[i] ? flags[j++] : T{0};
}

// Keys per chunk of an iterable that is not a batch (update): 64 Ki keys, 512 KiB of uint64
// keys or 1 MiB of string views, so a generator of 1e8 keys holds one chunk at a time.
constexpr size_t kChunkKeys = size_t{1} << 16;

// Calls fn(batch) for the keys of `iterable`, with the GIL: a NumPy array of a key dtype, Binary,
// pandas Series/arrays or anything else with __array__ in one call (MakeKeys); any other iterable
// (list, tuple, object array, generator, set, dict, range, iterator) in order, in chunks of at
// most kChunkKeys keys of one C++ key type (a new chunk starts where the type changes: ints and
// strings may follow each other, and the filter refuses the kind it does not hold). A single key
// (str, bytes, int) is refused (TypeError): it is one key, not an iterable of keys (add() takes
// it); a memoryview is one byte-string key (never the integers of its bytes). Memory: one chunk
// (the iterable's items are released chunk by chunk).
void ForEachChunk(py::handle iterable, const std::function<void(const KeyBatch&)>& fn);

// simdbloom.Binary (Arrow's offsets + data).
void BindBinary(py::module_& m);

// ---- WithSingleKey ----
[[noreturn]] void ThrowBoolKey();
[[noreturn]] void ThrowFloatKey();
[[noreturn]] void ThrowNotContiguous();

// fn(value) for an integer (a Python int, or a NumPy integer as one) by value.
template <class Fn>
void WithIntValue(PyObject* o, Fn&& fn) {
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
  if (overflow == 0) {
    if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
    fn(static_cast<int64_t>(v));
    return;
  }
  if (overflow > 0) {
    const unsigned long long u = PyLong_AsUnsignedLongLong(o);
    if (!PyErr_Occurred()) {
      fn(static_cast<uint64_t>(u));
      return;
    }
    PyErr_Clear();
  }
  fn(OutOfRange{py::str(o).cast<std::string>()});
}

template <class Fn>
bool WithSingleKey(py::handle h, Fn&& fn) {
  PyObject* o = h.ptr();
  if (PyBool_Check(o)) ThrowBoolKey();
  if (PyLong_Check(o)) {
    WithIntValue(o, fn);
    return true;
  }
  if (PyBytes_Check(o)) {
    fn(std::string_view(PyBytes_AS_STRING(o), static_cast<size_t>(PyBytes_GET_SIZE(o))));
    return true;
  }
  if (PyByteArray_Check(o)) {
    fn(std::string_view(PyByteArray_AS_STRING(o), static_cast<size_t>(PyByteArray_GET_SIZE(o))));
    return true;
  }
  if (PyUnicode_Check(o)) {
    Py_ssize_t size = 0;
    const char* s = PyUnicode_AsUTF8AndSize(o, &size);
    if (s == nullptr) throw py::error_already_set();
    fn(std::string_view(s, static_cast<size_t>(size)));
    return true;
  }
  if (PyMemoryView_Check(o)) {  // a byte string (its bytes), C-contiguous
    Py_buffer view;
    if (PyObject_GetBuffer(o, &view, PyBUF_SIMPLE) != 0) {
      PyErr_Clear();
      ThrowNotContiguous();
    }
    struct Release {
      Py_buffer* v;
      ~Release() { PyBuffer_Release(v); }
    } release{&view};
    fn(std::string_view(static_cast<const char*>(view.buf), static_cast<size_t>(view.len)));
    return true;
  }
  if (PyFloat_Check(o)) ThrowFloatKey();
  if (py::isinstance(h, NumpyInteger())) {  // any dtype, by value
    const py::int_ value(py::reinterpret_borrow<py::object>(h));
    WithIntValue(value.ptr(), fn);
    return true;
  }
  return false;
}

}  // namespace simdbloom_py

#endif  // SIMDBLOOM_PYTHON_KEYS_H_
