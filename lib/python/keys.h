// SPDX-License-Identifier: Apache-2.0
// simdbloom._core: Python keys as the library's keys, for every class of the module. One key (int,
// NumPy integer, bytes, bytearray, str) becomes a C++ key of its width (WithSingleKey); a batch
// (NumPy array, list/tuple, Binary, pandas Series or nullable array) becomes a simdbloom::Keys
// read in place where it can be (MakeKeys); any other iterable is cut into chunks of kChunkKeys
// keys (ForEachChunk), so update() of a generator holds one chunk at a time. Nothing here locks a
// filter or releases the GIL: that is guarded.h's job.
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

// What a filter's keys were, as insert saw them (key_type of every class). A key's width is part
// of its hash (an int32 7 and an int64 7 are different keys), so simdbloom.dask.semi_join reads it
// to probe a column of another width as the keys that were inserted, or to refuse a column of
// another kind. Integers are recorded by width only: signed and unsigned of one width hash alike.
// Python-side only: not in the saved form. Two states say that no type is recorded, and they
// differ: kEmpty (nothing inserted since create/clear: the first keys' type becomes the filter's)
// and kUnknown (keys of unknown types may be there: from_bytes, load, a pickle without a key
// type, or a declared None). Unknown absorbs every concrete type: a filter of unknown int64 keys
// that gains int32 keys must not claim 'int32', or semi_join would convert an int64 column to
// int32 and miss the int64 keys it holds.
enum class KeyType : uint8_t {
  kUnknown,
  kEmpty,
  kInt16,
  kInt32,
  kInt64,
  kBytes,
  kPrehashed,
  kMixed
};

// The key type of a filter holding keys of types a and b: empty adds nothing, one type is kept,
// 'mixed' stays 'mixed', unknown with any other type is unknown, two types are 'mixed'.
KeyType Combine(KeyType a, KeyType b);
// None for kUnknown, else its name ('int32', ...).
py::object KeyTypeObject(KeyType t);
// The inverse of KeyTypeObject; ValueError for anything else.
KeyType KeyTypeFrom(py::handle h);

// The key type of one C++ key.
template <class K>
constexpr KeyType KeyTypeOf() {
  if constexpr (std::is_same<K, uint64_t>::value) return KeyType::kInt64;
  if constexpr (std::is_same<K, uint32_t>::value) return KeyType::kInt32;
  if constexpr (std::is_same<K, uint16_t>::value) return KeyType::kInt16;
  return KeyType::kBytes;  // std::string_view
}

// numpy.integer (imported once).
py::handle NumpyInteger();

// Calls fn(key) with the C++ key a Python single key stands for and returns true; false if `h` is
// not a single key (then it is a batch). int: 8 bytes (uint64, or int64 when negative); NumPy
// integer scalars: their own width (uint64_t, uint32_t, uint16_t); bytes/bytearray: their bytes;
// str: its UTF-8 bytes (std::string_view into the object, valid while it lives). bool, float and
// 1-byte NumPy integers raise TypeError, ints beyond 64 bits ValueError. O(1) (str: its UTF-8
// encoding, cached by Python), no allocation but str's cache; needs the GIL.
template <class Fn>
bool WithSingleKey(py::handle h, Fn&& fn);

// Whether `h` is one key (or a float, refused by WithSingleKey), not a batch.
bool IsSingle(py::handle h);

// The keys of one bulk call, and whatever keeps them valid while the call runs without the GIL.
struct KeyBatch {
  std::optional<Keys> keys;
  py::object array;                     // a NumPy array read in place
  std::vector<py::object> refs;         // the bytes/str objects `views` point into
  std::vector<std::string_view> views;  // byte-string keys, in place
  std::vector<uint64_t> ints;           // a sequence of Python ints
  std::vector<uint32_t> ints32;         // NumPy 4-byte scalars of an iterable (update)
  std::vector<uint16_t> ints16;         // NumPy 2-byte scalars of an iterable (update)
  std::vector<int64_t> offsets;         // NumPy 'U' arrays encoded to UTF-8; Binary's, copied
  std::vector<int32_t> offsets32;       // Binary's int32 offsets, copied
  std::vector<uint8_t> data;
  KeyType key_type = KeyType::kEmpty;  // what the keys are (recorded by insert)
  // pandas nullable keys with nulls: `keys` holds the non-null ones; valid[i] (i < total) says
  // whether key i of the caller's batch is one of them. nullptr: no nulls.
  py::object valid_array;
  const uint8_t* valid = nullptr;
  size_t total = 0;
  size_t size() const { return keys->size(); }                  // keys the library sees
  size_t total_size() const { return valid ? total : size(); }  // the caller's keys, nulls too
  // What insert records: nothing for a batch without keys (empty, or nulls only).
  KeyType inserted_type() const { return size() == 0 ? KeyType::kEmpty : key_type; }
};

// The batch `obj` as Keys in `b` (see the module's docstring for the forms). `prehashed`: uint64
// hashes (Prehashed). TypeError/ValueError for anything that is not a batch of keys. Cost: O(1)
// for NumPy integer arrays and Binary data (in place; Binary's offsets are copied), a
// string_view per key for bytes/str sequences and 'S' arrays, a copy for 'U' arrays and lists of
// ints. Needs the GIL.
void MakeKeys(py::handle obj, bool prehashed, KeyBatch* b);

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
// most kChunkKeys keys of one C++ key type (a new chunk starts where the type changes: ints,
// strings and NumPy integers of each width may be mixed). A single key (str, bytes, int) is refused
// (TypeError): it is one key, not an iterable of keys (add() takes it). Memory: one chunk (the
// iterable's items are released chunk by chunk).
void ForEachChunk(py::handle iterable, const std::function<void(const KeyBatch&)>& fn);

// simdbloom.Binary (Arrow's offsets + data).
void BindBinary(py::module_& m);

// ---- WithSingleKey ----
[[noreturn]] void ThrowBoolKey();
[[noreturn]] void ThrowIntRange();
[[noreturn]] void ThrowFloatKey();
[[noreturn]] void ThrowOneByteKey();

template <class Fn>
bool WithSingleKey(py::handle h, Fn&& fn) {
  PyObject* o = h.ptr();
  if (PyBool_Check(o)) ThrowBoolKey();
  if (PyLong_Check(o)) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow == 0) {
      if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
      fn(static_cast<uint64_t>(v));  // two's complement: int64 and uint64 keys hash alike
      return true;
    }
    if (overflow > 0) {
      const unsigned long long u = PyLong_AsUnsignedLongLong(o);
      if (!PyErr_Occurred()) {
        fn(static_cast<uint64_t>(u));
        return true;
      }
      PyErr_Clear();
    }
    ThrowIntRange();
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
  if (PyFloat_Check(o)) ThrowFloatKey();
  if (py::isinstance(h, NumpyInteger())) {
    const py::dtype dt = h.attr("dtype").cast<py::dtype>();
    const py::int_ value(py::reinterpret_borrow<py::object>(h));
    const bool is_signed = dt.kind() == 'i';
    switch (dt.itemsize()) {
      case 8:
        fn(is_signed ? static_cast<uint64_t>(value.cast<int64_t>()) : value.cast<uint64_t>());
        return true;
      case 4:
        fn(is_signed ? static_cast<uint32_t>(value.cast<int32_t>()) : value.cast<uint32_t>());
        return true;
      case 2:
        fn(is_signed ? static_cast<uint16_t>(value.cast<int16_t>()) : value.cast<uint16_t>());
        return true;
      default:
        ThrowOneByteKey();
    }
  }
  return false;
}

}  // namespace simdbloom_py

#endif  // SIMDBLOOM_PYTHON_KEYS_H_
