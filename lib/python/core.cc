// SPDX-License-Identifier: Apache-2.0
// simdbloom._core: the Python binding (pybind11). A thin layer: keys arrive as NumPy arrays (read
// in place), sequences of bytes/str (read in place through string views) or single keys, and go
// to the library's bulk or single-key calls; results are NumPy arrays written by the library.
// Bulk calls, set operations and file I/O release the GIL. Each filter carries a reader/writer
// lock so that a mutation running without the GIL never overlaps another call on the same filter
// (queries share the lock; an insert, merge, clear takes it alone). No call waits for that lock
// holding the GIL (single-key calls try it first, and release the GIL to wait): the lock's holder
// may need the GIL to finish.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <shared_mutex>
#include <simdbloom/simdbloom.hpp>
#include <stdexcept>
#include <streambuf>
#include <string>
#include <string_view>
#include <vector>

namespace py = pybind11;
using simdbloom::ErrorCode;
using simdbloom::Keys;
using simdbloom::Layout;

namespace {

// What a filter's keys were, as insert saw them (Filter.key_type). A key's width is part of its
// hash (an int32 7 and an int64 7 are different keys), so simdbloom.dask.semi_join reads it to
// probe a column of another width as the keys that were inserted, or to refuse a column of another
// kind. Integers are recorded by width only: signed and unsigned of one width hash alike.
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
constexpr const char* kKeyTypeNames[] = {"",      "empty", "int16",     "int32",
                                         "int64", "bytes", "prehashed", "mixed"};

// The key type of a filter holding keys of types a and b: empty adds nothing, one type is kept,
// 'mixed' stays 'mixed', unknown with any other type is unknown, two types are 'mixed'.
KeyType Combine(KeyType a, KeyType b) {
  if (b == KeyType::kEmpty || a == b) return a;
  if (a == KeyType::kEmpty) return b;
  if (a == KeyType::kMixed || b == KeyType::kMixed) return KeyType::kMixed;
  if (a == KeyType::kUnknown || b == KeyType::kUnknown) return KeyType::kUnknown;
  return KeyType::kMixed;
}

py::object KeyTypeObject(KeyType t) {
  if (t == KeyType::kUnknown) return py::none();
  return py::str(kKeyTypeNames[static_cast<int>(t)]);
}

KeyType KeyTypeFrom(py::handle h) {
  if (h.is_none()) return KeyType::kUnknown;
  if (py::isinstance<py::str>(h)) {
    const std::string name = h.cast<std::string>();
    for (int t = 1; t <= static_cast<int>(KeyType::kMixed); ++t) {
      if (name == kKeyTypeNames[t]) return static_cast<KeyType>(t);
    }
  }
  throw py::value_error(
      "key_type must be None, 'empty', 'int16', 'int32', 'int64', 'bytes', 'prehashed' or "
      "'mixed' (got " +
      py::repr(h).cast<std::string>() + ")");
}

// The key type of one C++ key.
template <class K>
constexpr KeyType KeyTypeOf() {
  if constexpr (std::is_same<K, uint64_t>::value) return KeyType::kInt64;
  if constexpr (std::is_same<K, uint32_t>::value) return KeyType::kInt32;
  if constexpr (std::is_same<K, uint16_t>::value) return KeyType::kInt16;
  return KeyType::kBytes;  // std::string_view
}

// The filter and its lock. Not copyable or movable (the lock): Python owns it by pointer.
// `key_type` is read and written with the GIL held only.
struct PyFilter {
  PyFilter(simdbloom::Filter&& filter, KeyType type) : f(std::move(filter)), key_type(type) {}
  simdbloom::Filter f;
  KeyType key_type;
  mutable std::shared_mutex mu;
};

// Locks a filter's `mu` (Lock: std::unique_lock or std::shared_lock) for a call that holds the
// GIL. Never waits with the GIL held: the holder of the lock may need the GIL to finish (a save
// into a FIFO whose reader is a Python thread, a slow write), and would wait forever. The
// uncontended case is one try_lock; on contention the GIL is released while waiting, then taken
// back (holding the lock: everyone else waits for the lock without the GIL, so this cannot
// deadlock).
template <class Lock>
Lock LockWithGil(std::shared_mutex& mu) {
  Lock lock(mu, std::try_to_lock);
  if (!lock.owns_lock()) {
    py::gil_scoped_release nogil;
    lock.lock();
  }
  return lock;
}

// An independent copy (the bits under the shared lock, without the GIL; the key type).
std::unique_ptr<PyFilter> CopyOf(const PyFilter& self) {
  std::optional<simdbloom::Filter> copy;
  {
    py::gil_scoped_release nogil;
    std::shared_lock<std::shared_mutex> lock(self.mu);
    copy.emplace(self.f);
  }
  return std::make_unique<PyFilter>(std::move(*copy), self.key_type);
}

// ---- Exceptions: simdbloom.Error(message) with .code, e.g. "invalid_argument" ----
PyObject* g_error_type = nullptr;

const char* CodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument:
      return "invalid_argument";
    case ErrorCode::kUnknownTarget:
      return "unknown_target";
    case ErrorCode::kOutOfMemory:
      return "out_of_memory";
    case ErrorCode::kFormat:
      return "format";
    case ErrorCode::kIo:
      return "io";
    case ErrorCode::kIncompatible:
      return "incompatible";
    case ErrorCode::kReadOnly:
      return "read_only";
  }
  return "unknown";
}

void RaiseLibraryError(const simdbloom::Error& e) {
  py::object type = py::reinterpret_borrow<py::object>(g_error_type);
  py::object exc = type(py::str(e.what()));
  exc.attr("code") = py::str(CodeName(e.code()));
  PyErr_SetObject(g_error_type, exc.ptr());
}

// ---- Layouts: the enum or its name ----
Layout LayoutFrom(py::handle h) {
  if (py::isinstance<Layout>(h)) return h.cast<Layout>();
  if (py::isinstance<py::str>(h)) {
    const std::string name = h.cast<std::string>();
    for (Layout l : simdbloom::layouts()) {
      if (name == simdbloom::layout_name(l)) return l;
    }
    std::string known;
    for (Layout l : simdbloom::layouts()) {
      known += (known.empty() ? "" : ", ") + std::string(simdbloom::layout_name(l));
    }
    throw py::value_error("unknown layout '" + name + "' (known: " + known + ")");
  }
  throw py::type_error("layout must be a simdbloom.Layout or its name (str)");
}

// One line on each layout, for the enum's docstrings. A switch without `default`: a layout added to
// the library's list and not here is a -Wswitch warning (its member still exists, with a generic
// docstring).
const char* LayoutDoc(Layout layout) {
  switch (layout) {
    case Layout::kBlock512:
      return "k bits in one 64-byte cache line (the default)";
    case Layout::kRegister64:
      return "k bits in one 64-bit word: the fastest";
    case Layout::kSplitBlock256:
      return "Parquet's split block Bloom filter (XXH64)";
    case Layout::kClassic:
      return "k bits anywhere: fewest bits, k cache misses";
    case Layout::kShifting:
      return "shifting Bloom filter (ShBF_M): k bits as ceil(k/2) pairs, a pair in one 64-bit "
             "word, all in one cache line";
  }
  return "a layout of the library (lib/FORMAT.md)";
}

// ---- Single keys ----
py::object NumpyInteger() {
  static py::object* type = new py::object(py::module_::import("numpy").attr("integer"));
  return *type;
}

// Calls fn(key) with the C++ key a Python single key stands for and returns true; false if `h` is
// not a single key (then it is a batch). int: 8 bytes (uint64, or int64 when negative); NumPy
// integer scalars: their own width; bytes/bytearray: their bytes; str: its UTF-8 bytes.
template <class Fn>
bool WithSingleKey(py::handle h, Fn&& fn) {
  if (PyBool_Check(h.ptr())) {
    throw py::type_error("bool is not a key (as in C++); use 0/1 or bytes");
  }
  if (PyLong_Check(h.ptr())) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(h.ptr(), &overflow);
    if (overflow == 0) {
      if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
      fn(static_cast<uint64_t>(v));  // two's complement: int64 and uint64 keys hash alike
      return true;
    }
    if (overflow > 0) {
      const unsigned long long u = PyLong_AsUnsignedLongLong(h.ptr());
      if (!PyErr_Occurred()) {
        fn(static_cast<uint64_t>(u));
        return true;
      }
      PyErr_Clear();
    }
    throw py::value_error("integer key out of the 64-bit range [-2**63, 2**64)");
  }
  if (PyBytes_Check(h.ptr())) {
    fn(std::string_view(PyBytes_AS_STRING(h.ptr()),
                        static_cast<size_t>(PyBytes_GET_SIZE(h.ptr()))));
    return true;
  }
  if (PyByteArray_Check(h.ptr())) {
    fn(std::string_view(PyByteArray_AS_STRING(h.ptr()),
                        static_cast<size_t>(PyByteArray_GET_SIZE(h.ptr()))));
    return true;
  }
  if (PyUnicode_Check(h.ptr())) {
    Py_ssize_t size = 0;
    const char* s = PyUnicode_AsUTF8AndSize(h.ptr(), &size);
    if (s == nullptr) throw py::error_already_set();
    fn(std::string_view(s, static_cast<size_t>(size)));
    return true;
  }
  if (PyFloat_Check(h.ptr())) throw py::type_error("float is not a key (as in C++)");
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
        throw py::type_error("1-byte integers are not keys (as in C++); use a wider type");
    }
  }
  return false;
}

// ---- Batches of keys ----
// The keys of one bulk call, and whatever keeps them valid while the call runs without the GIL.
struct KeyBatch {
  std::optional<Keys> keys;
  py::object array;                     // a NumPy array read in place
  std::vector<py::object> refs;         // the bytes/str objects `views` point into
  std::vector<std::string_view> views;  // byte-string keys, in place
  std::vector<uint64_t> ints;           // a sequence of Python ints
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

std::string DtypeName(const py::dtype& dt) {
  return py::str(static_cast<py::handle>(dt)).cast<std::string>();
}

[[noreturn]] void BadArray(const std::string& why) { throw py::type_error("keys: " + why); }

// Appends the UTF-8 encoding of code point c.
void PutUtf8(uint32_t c, std::vector<uint8_t>* out) {
  if (c < 0x80) {
    out->push_back(static_cast<uint8_t>(c));
  } else if (c < 0x800) {
    out->push_back(static_cast<uint8_t>(0xC0 | (c >> 6)));
    out->push_back(static_cast<uint8_t>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    if (c >= 0xD800 && c <= 0xDFFF) throw py::value_error("keys: a surrogate is not UTF-8");
    out->push_back(static_cast<uint8_t>(0xE0 | (c >> 12)));
    out->push_back(static_cast<uint8_t>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<uint8_t>(0x80 | (c & 0x3F)));
  } else if (c < 0x110000) {
    out->push_back(static_cast<uint8_t>(0xF0 | (c >> 18)));
    out->push_back(static_cast<uint8_t>(0x80 | ((c >> 12) & 0x3F)));
    out->push_back(static_cast<uint8_t>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<uint8_t>(0x80 | (c & 0x3F)));
  } else {
    throw py::value_error("keys: code point beyond U+10FFFF");
  }
}

void FromSequence(py::handle seq, KeyBatch* b);

void FromArray(py::array arr, bool prehashed, KeyBatch* b) {
  if (arr.ndim() != 1) {
    BadArray("a key array must be 1-D (got " + std::to_string(arr.ndim()) +
             "-D); use keys.ravel()");
  }
  const py::dtype dt = arr.dtype();
  const char kind = dt.kind();
  const size_t item = static_cast<size_t>(dt.itemsize());
  const size_t n = static_cast<size_t>(arr.shape(0));
  if (kind == 'O') return FromSequence(arr, b);
  if (n > 1 && arr.strides(0) != static_cast<py::ssize_t>(item)) {
    throw py::value_error("keys: the array is not contiguous (stride " +
                          std::to_string(arr.strides(0)) + " bytes, items of " +
                          std::to_string(item) +
                          "); keys are read in place, never copied silently: pass "
                          "numpy.ascontiguousarray(keys) (a copy)");
  }
  const char order = dt.attr("byteorder").cast<std::string>()[0];
  if (order == '>') {
    BadArray("big-endian dtype " + DtypeName(dt) +
             ": convert with keys.astype(keys.dtype.newbyteorder('='))");
  }
  b->array = arr;
  const void* p = arr.data();
  if (prehashed) {
    if ((kind != 'u' && kind != 'i') || item != 8) {
      BadArray("pre-hashed keys must be a uint64 array (got " + DtypeName(dt) + ")");
    }
    b->keys.emplace(simdbloom::Prehashed{static_cast<const uint64_t*>(p), n});
    b->key_type = KeyType::kPrehashed;
    return;
  }
  if (kind == 'u' || kind == 'i') {
    switch (item) {
      case 8:
        b->keys.emplace(static_cast<const uint64_t*>(p), n);
        b->key_type = KeyType::kInt64;
        return;
      case 4:
        b->keys.emplace(static_cast<const uint32_t*>(p), n);
        b->key_type = KeyType::kInt32;
        return;
      case 2:
        b->keys.emplace(static_cast<const uint16_t*>(p), n);
        b->key_type = KeyType::kInt16;
        return;
      default:
        BadArray("1-byte integers are not keys (as in C++); use a wider dtype or bytes");
    }
  }
  if (kind == 'S') {
    // NumPy's fixed-width bytes: an element is its bytes without trailing NULs, as NumPy reads it.
    const char* base = static_cast<const char*>(p);
    b->views.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const char* s = base + i * item;
      size_t len = item;
      while (len > 0 && s[len - 1] == '\0') --len;
      b->views[i] = std::string_view(s, len);
    }
    b->keys.emplace(b->views.data(), n);
    b->key_type = KeyType::kBytes;
    return;
  }
  if (kind == 'U') {
    // UCS-4 code points: encoded to UTF-8 into one buffer with offsets (a copy).
    const size_t chars = item / 4;
    const auto* base = static_cast<const uint32_t*>(p);
    b->offsets.resize(n + 1);
    b->offsets[0] = 0;
    b->data.reserve(n * chars);
    for (size_t i = 0; i < n; ++i) {
      const uint32_t* s = base + i * chars;
      size_t len = chars;
      while (len > 0 && s[len - 1] == 0) --len;
      for (size_t j = 0; j < len; ++j) PutUtf8(s[j], &b->data);
      b->offsets[i + 1] = static_cast<int64_t>(b->data.size());
    }
    static const uint8_t kEmpty = 0;
    b->keys.emplace(simdbloom::BinaryArray<int64_t>{b->offsets.data(),
                                                    b->data.empty() ? &kEmpty : b->data.data(), n});
    b->key_type = KeyType::kBytes;
    return;
  }
  BadArray("dtype " + DtypeName(dt) +
           " is not a key type: use uint64/int64/uint32/int32/uint16/int16 arrays, bytes ('S'), "
           "str ('U') or object arrays of bytes/str");
}

// A list, tuple or object array: all Python ints (8-byte keys), or all bytes/str.
void FromSequence(py::handle seq_handle, KeyBatch* b) {
  py::sequence seq = py::reinterpret_borrow<py::sequence>(seq_handle);
  const size_t n = py::len(seq);
  b->refs.reserve(n);
  bool ints = false, strings = false;
  for (size_t i = 0; i < n; ++i) {
    py::object item = seq[i];
    const bool is_int = PyLong_Check(item.ptr()) || py::isinstance(item, NumpyInteger());
    bool ok = true;
    if (is_int) {
      if (strings) ok = false;
      ints = true;
      WithSingleKey(item, [&](auto key) {
        using K = decltype(key);
        if constexpr (std::is_same<K, uint64_t>::value) {
          b->ints.push_back(key);
        } else if constexpr (std::is_integral<K>::value) {
          throw py::type_error(
              "keys: a sequence of ints holds 8-byte keys; NumPy scalars narrower than 8 bytes "
              "belong in a NumPy array of their dtype");
        }
      });
    } else {
      if (ints) ok = false;
      strings = true;
      const bool single = WithSingleKey(item, [&](auto key) {
        using K = decltype(key);
        if constexpr (std::is_same<K, std::string_view>::value) {
          b->views.push_back(key);
        }
      });
      if (!single) {
        throw py::type_error("keys: item " + std::to_string(i) + " is a " +
                             py::str(item.get_type().attr("__name__")).cast<std::string>() +
                             ", not a key (int, bytes, bytearray or str)");
      }
      if (PyByteArray_Check(item.ptr())) {
        throw py::type_error(
            "keys: bytearray items can change while the GIL is released; "
            "use bytes");
      }
      b->refs.push_back(std::move(item));
    }
    if (!ok) throw py::type_error("keys: a batch mixes ints and bytes/str; make two batches");
  }
  if (strings) {
    b->keys.emplace(b->views.data(), b->views.size());
    b->key_type = KeyType::kBytes;
  } else {
    b->keys.emplace(b->ints.data(), b->ints.size());
    if (ints) b->key_type = KeyType::kInt64;  // an empty sequence has no key type
  }
}

// Variable-width keys in Arrow's layout, read in place: key i is data[offsets[i]:offsets[i+1]].
struct PyBinary {
  py::array offsets;  // 1-D contiguous int32 or int64, length + 1 entries
  py::array data;     // 1-D contiguous bytes (uint8/int8)
  size_t data_size = 0;
};

PyBinary MakeBinary(py::object offsets, py::object data) {
  py::module_ np = py::module_::import("numpy");
  PyBinary b;
  if (!py::isinstance<py::array>(offsets)) offsets = np.attr("asarray")(offsets);
  b.offsets = py::reinterpret_borrow<py::array>(offsets);
  const py::dtype odt = b.offsets.dtype();
  if (b.offsets.ndim() != 1 || odt.kind() != 'i' || (odt.itemsize() != 4 && odt.itemsize() != 8)) {
    throw py::type_error("Binary: offsets must be a 1-D int32 or int64 array (Arrow's offsets)");
  }
  if (b.offsets.shape(0) < 1) throw py::value_error("Binary: offsets need length + 1 >= 1 entries");
  if (b.offsets.shape(0) > 1 && b.offsets.strides(0) != odt.itemsize()) {
    throw py::value_error("Binary: offsets are not contiguous");
  }
  if (odt.attr("byteorder").cast<std::string>()[0] == '>') {
    throw py::type_error("Binary: offsets are big-endian");
  }
  if (!py::isinstance<py::array>(data)) {
    data = np.attr("frombuffer")(data, "uint8");  // bytes, bytearray, memoryview, Arrow buffers
  }
  b.data = py::reinterpret_borrow<py::array>(data);
  const py::dtype ddt = b.data.dtype();
  if (b.data.ndim() != 1 || ddt.itemsize() != 1 || (ddt.kind() != 'u' && ddt.kind() != 'i')) {
    throw py::type_error("Binary: data must be a 1-D uint8 array or a bytes-like object");
  }
  if (b.data.shape(0) > 1 && b.data.strides(0) != 1) {
    throw py::value_error("Binary: data is not contiguous");
  }
  b.data_size = static_cast<size_t>(b.data.shape(0));
  return b;
}

// The offsets are copied, under the GIL, and the library reads and checks the copy: another
// Python thread may rewrite the array while the call runs without the GIL (or while this copy is
// taken, by a NumPy call that released the GIL), and read in place a rewrite made the kernels read
// outside the data. The copy cannot change: the library checks that it is non-negative and
// non-decreasing, this function that its last entry lies within the data, so every key of the
// call lies within the data. Cost: the offsets' width per key (4 bytes for int32, 8 for int64) and
// one memcpy. The data is read in place: `refs` holds the array, which holds its buffer export, so
// a bytearray under it cannot be resized (NumPy's own ndarray.resize(refcheck=False) ignores
// every reference and export: it is unsafe for any array in use, this one as well).
void FromBinary(const PyBinary& bin, KeyBatch* b) {
  const size_t n = static_cast<size_t>(bin.offsets.shape(0)) - 1;
  int64_t last = 0;
  if (bin.offsets.dtype().itemsize() == 4) {
    const auto* src = static_cast<const int32_t*>(bin.offsets.data());
    b->offsets32.assign(src, src + n + 1);
    last = b->offsets32[n];
  } else {
    const auto* src = static_cast<const int64_t*>(bin.offsets.data());
    b->offsets.assign(src, src + n + 1);
    last = b->offsets[n];
  }
  if (last < 0 || static_cast<uint64_t>(last) > bin.data_size) {
    throw py::value_error("Binary: the last offset (" + std::to_string(last) +
                          ") lies outside the data (" + std::to_string(bin.data_size) + " bytes)");
  }
  static const uint8_t kEmpty = 0;
  const auto* data = bin.data_size == 0 ? &kEmpty : static_cast<const uint8_t*>(bin.data.data());
  b->refs.push_back(bin.data);
  b->key_type = KeyType::kBytes;
  if (bin.offsets.dtype().itemsize() == 4) {
    b->keys.emplace(simdbloom::BinaryArray<int32_t>{b->offsets32.data(), data, n});
  } else {
    b->keys.emplace(simdbloom::BinaryArray<int64_t>{b->offsets.data(), data, n});
  }
}

// pandas extension arrays whose dtype names a NumPy dtype (`numpy_dtype`: the nullable
// Int16..UInt64, Float32/64, boolean; Series and Index of them): the keys are the values as that
// NumPy dtype, so a nullable Int32 column hashes as the int32 array of its values (a 1-byte or
// float dtype is refused as for NumPy). Nulls are left out of the keys; valid[] says where they
// were. Returns false for anything else. Cost: to_numpy's copy, one more of the non-null values
// when there are nulls, a flag per key.
bool FromMasked(py::handle obj, bool prehashed, KeyBatch* b) {
  if (!py::hasattr(obj, "dtype") || !py::hasattr(obj, "isna") || !py::hasattr(obj, "to_numpy")) {
    return false;
  }
  py::object dt = obj.attr("dtype");
  if (py::isinstance<py::dtype>(dt) || !py::hasattr(dt, "numpy_dtype")) return false;
  py::module_ np = py::module_::import("numpy");
  py::array isna = np.attr("asarray")(obj.attr("isna")(), "bool");
  py::array values = np.attr("ascontiguousarray")(
      obj.attr("to_numpy")(py::arg("dtype") = dt.attr("numpy_dtype"), py::arg("na_value") = 0));
  if (isna.ndim() != 1 || values.ndim() != 1 || isna.shape(0) != values.shape(0)) {
    BadArray("a key array must be 1-D");
  }
  if (!np.attr("any")(isna).cast<bool>()) {
    FromArray(values, prehashed, b);
    return true;
  }
  py::array valid = np.attr("ascontiguousarray")(np.attr("logical_not")(isna));
  FromArray(values[valid], prehashed, b);  // the non-null values, a contiguous copy
  b->valid_array = valid;
  b->valid = static_cast<const uint8_t*>(valid.data());
  b->total = static_cast<size_t>(valid.shape(0));
  return true;
}

void MakeKeys(py::handle obj, bool prehashed, KeyBatch* b) {
  if (py::isinstance<PyBinary>(obj)) {
    if (prehashed) throw py::type_error("keys: Binary keys cannot be pre-hashed");
    return FromBinary(obj.cast<const PyBinary&>(), b);
  }
  if (py::isinstance<py::array>(obj)) {
    return FromArray(py::reinterpret_borrow<py::array>(obj), prehashed, b);
  }
  if (PyList_Check(obj.ptr()) || PyTuple_Check(obj.ptr())) {
    if (prehashed) {
      return FromArray(py::module_::import("numpy").attr("asarray")(obj, "uint64"), true, b);
    }
    return FromSequence(obj, b);
  }
  if (FromMasked(obj, prehashed, b)) return;  // pandas nullable integers, ...
  if (py::hasattr(obj, "__array__")) {        // pandas Series/Index, Arrow arrays, ...
    return FromArray(py::module_::import("numpy").attr("asarray")(obj), prehashed, b);
  }
  throw py::type_error(
      "keys: expected a key (int, bytes, str, NumPy integer) or a batch "
      "(NumPy array, list or tuple of keys, pandas Series), got " +
      py::str(obj.get_type().attr("__name__")).cast<std::string>());
}

bool IsSingle(py::handle h) {
  return PyLong_Check(h.ptr()) || PyFloat_Check(h.ptr()) || PyBytes_Check(h.ptr()) ||
         PyByteArray_Check(h.ptr()) || PyUnicode_Check(h.ptr()) ||
         py::isinstance(h, NumpyInteger());
}

// ---- Batches with nulls: answers for the non-null keys spread over every key ----
// out[i] for each key of the caller's batch: the next of `flags` where key i is not null, 0 (never
// present, never new) where it is. No GIL needed.
void Spread(const KeyBatch& b, const uint8_t* flags, uint8_t* out) {
  for (size_t i = 0, j = 0; i < b.total; ++i) out[i] = b.valid[i] ? flags[j++] : 0;
}

// contains() of the batch's keys into out[total_size()] (no GIL: called without it).
void ContainsInto(const simdbloom::Filter& f, const KeyBatch& b, uint8_t* out,
                  simdbloom::Threads threads) {
  if (b.valid == nullptr) {
    f.contains(*b.keys, out, threads);
    return;
  }
  std::vector<uint8_t> flags(b.size());
  f.contains(*b.keys, flags.data(), threads);
  Spread(b, flags.data(), out);
}

// ---- Output arrays ----
template <class T>
py::array_t<T> OutArray(size_t n) {
  return py::array_t<T>(static_cast<py::ssize_t>(n));
}

// `out` given by the caller: 1-D, contiguous, writable, of n bool/uint8 items.
uint8_t* CheckOut(py::array& out, size_t n) {
  const py::dtype dt = out.dtype();
  if (!(dt.kind() == 'b' || (dt.kind() == 'u' && dt.itemsize() == 1))) {
    throw py::type_error("out: must be a bool or uint8 array");
  }
  if (out.ndim() != 1 || static_cast<size_t>(out.shape(0)) != n) {
    throw py::value_error("out: must be 1-D with one item per key (" + std::to_string(n) + ")");
  }
  if (n > 1 && out.strides(0) != 1) throw py::value_error("out: must be contiguous");
  if (!out.writeable()) throw py::value_error("out: is read-only");
  return static_cast<uint8_t*>(out.mutable_data());
}

simdbloom::Threads ThreadsOf(unsigned threads) { return simdbloom::Threads{threads}; }

// ---- Serialization into a bytes object: one copy (the library writes into it) ----
class FixedBuf : public std::streambuf {
 public:
  FixedBuf(char* p, size_t n) { setp(p, p + n); }
  size_t written() const { return static_cast<size_t>(pptr() - pbase()); }
};

py::bytes ToBytes(const PyFilter& self) {
  const size_t size = self.f.serialized_size();
  py::bytes out(nullptr, static_cast<py::ssize_t>(size));
  char* dst = PyBytes_AS_STRING(out.ptr());
  size_t written = 0;
  {
    py::gil_scoped_release nogil;
    std::shared_lock<std::shared_mutex> lock(self.mu);
    FixedBuf buf(dst, size);
    std::ostream os(&buf);
    self.f.save(os);
    written = buf.written();
  }
  if (written != size) throw std::runtime_error("simdbloom: serialized size mismatch");
  return out;
}

std::unique_ptr<PyFilter> FromBytes(py::buffer data) {
  py::buffer_info info = data.request();
  if (info.ndim > 1 || (info.ndim == 1 && info.strides[0] != info.itemsize && info.shape[0] > 1)) {
    throw py::value_error("from_bytes: the buffer must be contiguous");
  }
  const size_t size = static_cast<size_t>(info.size * info.itemsize);
  const auto* p = static_cast<const uint8_t*>(info.ptr);
  std::optional<simdbloom::Filter> f;
  {
    py::gil_scoped_release nogil;
    f.emplace(simdbloom::Filter::load(p, size));
  }
  return std::make_unique<PyFilter>(std::move(*f), KeyType::kUnknown);
}

std::string PathOf(py::handle path) {
  return py::str(py::module_::import("os").attr("fspath")(path)).cast<std::string>();
}

// Locks two filters (this one alone, `other` shared) in address order; `other` may be `self`.
template <class Fn>
void WithPair(PyFilter& self, const PyFilter& other, Fn&& fn) {
  py::gil_scoped_release nogil;
  if (&self == &other) {
    std::unique_lock<std::shared_mutex> lock(self.mu);
    fn();
    return;
  }
  if (&self < &other) {
    std::unique_lock<std::shared_mutex> a(self.mu);
    std::shared_lock<std::shared_mutex> b(other.mu);
    fn();
  } else {
    std::shared_lock<std::shared_mutex> b(other.mu);
    std::unique_lock<std::shared_mutex> a(self.mu);
    fn();
  }
}

// Runs fn() (which reads the filter, not Python objects) under the filter's shared lock without
// the GIL: the bit-array scans (fill_ratio, ...) let other threads run, and the lock is never
// waited for with the GIL held.
template <class Fn>
auto Reading(const PyFilter& self, Fn&& fn) -> decltype(fn()) {
  py::gil_scoped_release nogil;
  std::shared_lock<std::shared_mutex> lock(self.mu);
  return fn();
}

py::dict Stats(const PyFilter& self) {
  const simdbloom::Filter& f = self.f;
  uint64_t inserted = 0;
  double fill = 0, count = 0, fpp = 0;
  Reading(self, [&] {
    inserted = f.inserted_count();
    fill = f.fill_ratio();
    count = f.approximate_count();
    fpp = f.expected_fpp();
    return 0;
  });
  py::dict d;  // built after the lock is released: Python code (a GC pass) may run here
  d["layout"] = simdbloom::layout_name(f.layout());
  d["bits"] = f.bit_count();
  d["size_bytes"] = f.size_bytes();
  d["num_blocks"] = f.num_blocks();
  d["num_hashes"] = f.num_hashes();
  d["seed"] = f.seed();
  d["inserted_count"] = inserted;
  d["fill_ratio"] = fill;
  d["approximate_count"] = count;
  d["expected_fpp"] = fpp;
  d["bits_per_inserted_key"] = inserted == 0 ? 0.0 : double(f.bit_count()) / double(inserted);
  d["is_view"] = f.is_view();
  d["target"] = simdbloom::active_target();
  return d;
}

const char kModuleDoc[] =
    R"doc(Bloom filters with SIMD bulk calls over NumPy arrays (the simdbloom C++ library).

Keys: a Python int is an 8-byte key (uint64; a negative int is its int64 two's complement);
a NumPy integer scalar or array element is a key of its own width (uint32/int32: 4 bytes,
uint64/int64: 8 bytes, uint16/int16: 2 bytes; signed and unsigned of one width hash alike);
bytes are their bytes, str its UTF-8 bytes. So insert(7) and contains(numpy.uint32(7)) are
different keys, exactly as in C++.

Batches (bulk calls): 1-D contiguous NumPy arrays of those integer dtypes (read in place, never
copied), NumPy 'S' arrays (in place, trailing NULs dropped as NumPy does), 'U' arrays (encoded
to UTF-8: a copy), lists/tuples/object arrays of ints (copied into a uint64 buffer) or of
bytes/str (read in place), pandas Series (numpy.asarray(series)). A pandas nullable batch
(Int16..UInt64 arrays, Series, Index) is the keys of its NumPy dtype (Int32: int32, 4 bytes):
its nulls are skipped by insert and never present for contains (False). A non-contiguous array
or a dtype that is not a key raises; nothing is converted silently.
)doc";

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = kModuleDoc;
  g_error_type = PyErr_NewExceptionWithDoc(
      "simdbloom.Error",
      "Raised for every error the library reports; the message is the library's, `code` names "
      "its kind: invalid_argument, unknown_target, out_of_memory, format, io, incompatible, "
      "read_only.",
      PyExc_ValueError, nullptr);
  m.attr("Error") = py::handle(g_error_type);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const simdbloom::Error& e) {
      RaiseLibraryError(e);
    }
  });

  // The members are the library's list (simdbloom::layouts(), from kernels/registry.h), named by
  // layout_name(): a layout added there is a member here without an edit.
  py::enum_<Layout> layout_enum(m, "Layout",
                                "Bit layout of a filter (lib/FORMAT.md); the members are "
                                "layouts(), in id order.");
  for (Layout l : simdbloom::layouts()) {
    layout_enum.value(simdbloom::layout_name(l), l, LayoutDoc(l));
  }

  m.def("version", &simdbloom::version, "The C++ library's version, 'MAJOR.MINOR.PATCH'.");
  m.def("active_target", &simdbloom::active_target,
        "Name of the SIMD target bulk calls use now (process-wide).");
  m.def("available_targets", &simdbloom::available_targets,
        "SIMD targets usable on this CPU, the best first, 'reference' last.");
  m.def("set_target", &simdbloom::set_target, py::arg("name"),
        "Makes bulk calls use SIMD target `name` (process-wide). Raises simdbloom.Error "
        "(unknown_target) for a name not in available_targets(). Results never depend on it.");
  m.def("reset_target", &simdbloom::reset_target, "Returns to the best SIMD target of this CPU.");
  m.def(
      "layouts",
      []() {
        std::vector<Layout> out(simdbloom::layouts().begin(), simdbloom::layouts().end());
        return out;
      },
      "Every layout the library implements.");
  m.def(
      "size_for",
      [](uint64_t n, double fpp, py::object layout) {
        const simdbloom::Sizing s = simdbloom::size_for(n, fpp, LayoutFrom(layout));
        py::dict d;
        d["bits"] = s.bits;
        d["num_hashes"] = s.k;
        d["predicted_fpp"] = s.predicted_fpp;
        return d;
      },
      py::arg("n"), py::arg("fpp"), py::arg("layout") = "block512",
      "The size Filter.create(n, fpp, layout) would choose: {'bits', 'num_hashes', "
      "'predicted_fpp'}. About 1 ms, no allocation.");

  py::class_<PyBinary>(
      m, "Binary",
      R"doc(Byte-string keys in Arrow's variable-width layout (the data read in place).

Binary(offsets, data): key i is data[offsets[i]:offsets[i+1]]; `offsets` is a 1-D contiguous
int32 (Arrow Binary/Utf8) or int64 (LargeBinary/LargeUtf8) array of len(keys) + 1 entries,
`data` a 1-D uint8 array or any bytes-like object (bytes, memoryview, an Arrow buffer). Pass it
to any bulk call. Offsets must be non-negative, non-decreasing and end within the data (checked
before any work). Each call copies the offsets (4 or 8 bytes per key) and reads the copy, so a
thread that rewrites them meanwhile cannot make it read outside the data; `data` is read in
place (a change during a call changes answers, never safety). For a pyarrow StringArray `a`
without nulls: Binary(numpy.frombuffer(a.buffers()[1], numpy.int32)[a.offset:a.offset + len(a)
+ 1], a.buffers()[2]).)doc")
      .def(py::init(&MakeBinary), py::arg("offsets"), py::arg("data"))
      .def("__len__", [](const PyBinary& b) { return b.offsets.shape(0) - 1; })
      .def_readonly("offsets", &PyBinary::offsets)
      .def_readonly("data", &PyBinary::data);

  py::class_<PyFilter> cls(m, "Filter", R"doc(A Bloom filter.

Thread-safety: queries may run concurrently from many threads (bulk queries release the GIL and
then run in parallel); a mutation (insert, merge, intersect, clear) waits for the calls running
on the same filter and runs alone. No call waits for the filter with the GIL held (a single-key
insert behind a slow save lets other Python threads run). Copies (copy.copy, pickle) are
independent filters.)doc");
  cls.def_static(
         "create",
         [](uint64_t n, double fpp, py::object layout, uint64_t seed) {
           return std::make_unique<PyFilter>(
               simdbloom::Filter::create(n, fpp, LayoutFrom(layout), seed), KeyType::kEmpty);
         },
         py::arg("n"), py::arg("fpp"), py::arg("layout") = "block512", py::arg("seed") = 0,
         "An empty filter sized for `n` distinct keys at false-positive rate `fpp` (the smallest "
         "size and best k by the layout's model). `layout`: a Layout or its name. Raises "
         "simdbloom.Error (invalid_argument: n == 0, fpp outside [1e-9, 1)). Cost: ~1 ms of "
         "sizing and one zeroed allocation.")
      .def_static(
          "with_bits",
          [](uint64_t bits, uint32_t k, py::object layout, uint64_t seed) {
            return std::make_unique<PyFilter>(
                simdbloom::Filter::with_bits(bits, k, LayoutFrom(layout), seed), KeyType::kEmpty);
          },
          py::arg("bits"), py::arg("num_hashes"), py::arg("layout") = "block512",
          py::arg("seed") = 0,
          "An empty filter of at least `bits` bits (whole blocks) and `num_hashes` probes per key.")
      .def(
          "insert",
          [](PyFilter& self, py::handle keys, unsigned threads, bool prehashed) -> py::object {
            if (!prehashed && IsSingle(keys)) {
              bool fresh = false;
              WithSingleKey(keys, [&](auto key) {
                {
                  auto lock = LockWithGil<std::unique_lock<std::shared_mutex>>(self.mu);
                  fresh = self.f.insert(key);
                }
                self.key_type = Combine(self.key_type, KeyTypeOf<decltype(key)>());
              });
              return py::bool_(fresh);
            }
            KeyBatch b;
            MakeKeys(keys, prehashed, &b);
            uint64_t fresh = 0;
            {
              py::gil_scoped_release nogil;
              std::unique_lock<std::shared_mutex> lock(self.mu);
              fresh = self.f.insert(*b.keys, ThreadsOf(threads));
            }
            self.key_type = Combine(self.key_type, b.inserted_type());
            return py::int_(fresh);
          },
          py::arg("keys"), py::arg("threads") = 1, py::arg("prehashed") = false,
          R"doc(Inserts one key (returns True if it set a clear bit: surely new) or a batch (returns
how many keys set a clear bit). Batches run the SIMD bulk path without the GIL, on `threads` threads
(same bytes as one). `prehashed=True`: `keys` are uint64 values of hashes() (no hashing). A pandas
nullable integer batch (Int32, UInt64, ...) is its NumPy dtype's keys, its nulls skipped. Records
the keys' type in key_type. Cost: O(k) per key; out of cache about one overlapped cache miss per
key.)doc")
      .def(
          "insert_fresh",
          [](PyFilter& self, py::handle keys, unsigned threads, bool prehashed) {
            KeyBatch b;
            MakeKeys(keys, prehashed, &b);
            py::array_t<bool> out = OutArray<bool>(b.total_size());
            auto* p = reinterpret_cast<uint8_t*>(out.mutable_data());
            {
              py::gil_scoped_release nogil;
              std::vector<uint8_t> flags(b.valid ? b.size() : 0);
              uint8_t* q = b.valid ? flags.data() : p;
              std::unique_lock<std::shared_mutex> lock(self.mu);
              if (threads > 1) {
                self.f.insert(*b.keys, q, ThreadsOf(threads));
              } else {
                self.f.insert(*b.keys, q);
              }
              if (b.valid) Spread(b, q, p);
            }
            self.key_type = Combine(self.key_type, b.inserted_type());
            return out;
          },
          py::arg("keys"), py::arg("threads") = 1, py::arg("prehashed") = false,
          "Inserts a batch; returns a bool array, True where the key set a clear bit (surely "
          "new), in key order: a key repeated within the batch is new only the first time "
          "(de-duplication; with threads > 1 a repeat may be reported new by several threads). "
          "A null of a pandas nullable batch is skipped (False).")
      .def(
          "contains",
          [](const PyFilter& self, py::handle keys, py::object out, unsigned threads,
             bool prehashed) -> py::object {
            if (!prehashed && IsSingle(keys) && out.is_none()) {
              bool hit = false;
              WithSingleKey(keys, [&](auto key) {
                auto lock = LockWithGil<std::shared_lock<std::shared_mutex>>(self.mu);
                hit = self.f.contains(key);
              });
              return py::bool_(hit);
            }
            KeyBatch b;
            MakeKeys(keys, prehashed, &b);
            py::array result = out.is_none() ? py::array(OutArray<bool>(b.total_size()))
                                             : py::reinterpret_borrow<py::array>(out);
            if (!py::isinstance<py::array>(result)) throw py::type_error("out: must be an array");
            uint8_t* p = CheckOut(result, b.total_size());
            {
              py::gil_scoped_release nogil;
              std::shared_lock<std::shared_mutex> lock(self.mu);
              ContainsInto(self.f, b, p, ThreadsOf(threads));
            }
            return std::move(result);
          },
          py::arg("keys"), py::arg("out") = py::none(), py::arg("threads") = 1,
          py::arg("prehashed") = false,
          R"doc(One key: True if it may be present. A batch: a bool array, True where the key may be
present; `out` (a contiguous bool/uint8 array of len(keys)) is written instead of allocating.
A pandas nullable integer batch is probed as its NumPy dtype; a null is never present (False).
Runs without the GIL on `threads` threads. Cost: O(k) per key, no allocation but the result (and,
for a batch with nulls, a flag per non-null key).)doc")
      .def(
          "__contains__",
          [](const PyFilter& self, py::handle key) {
            bool hit = false;
            if (!WithSingleKey(key, [&](auto k) {
                  auto lock = LockWithGil<std::shared_lock<std::shared_mutex>>(self.mu);
                  hit = self.f.contains(k);
                })) {
              throw py::type_error("`in` takes one key (int, bytes, str); use contains(batch)");
            }
            return hit;
          },
          py::arg("key"))
      .def(
          "contains_bitmap",
          [](const PyFilter& self, py::handle keys, unsigned threads, bool prehashed) {
            KeyBatch b;
            MakeKeys(keys, prehashed, &b);
            const size_t n = b.total_size();
            py::array_t<uint8_t> out = OutArray<uint8_t>((n + 7) / 8);
            uint8_t* p = out.mutable_data();
            {
              py::gil_scoped_release nogil;
              std::shared_lock<std::shared_mutex> lock(self.mu);
              if (b.valid == nullptr) {
                self.f.contains_bitmap(*b.keys, p, ThreadsOf(threads));
              } else {
                std::vector<uint8_t> hits(n);
                ContainsInto(self.f, b, hits.data(), ThreadsOf(threads));
                std::memset(p, 0, (n + 7) / 8);
                for (size_t i = 0; i < n; ++i) p[i / 8] |= static_cast<uint8_t>(hits[i] << (i % 8));
              }
            }
            return out;
          },
          py::arg("keys"), py::arg("threads") = 1, py::arg("prehashed") = false,
          "A uint8 bitmap, bit i (LSB first, Arrow's order: numpy.unpackbits(bitmap, "
          "bitorder='little')) set if key i may be present (a null: clear).")
      .def(
          "select",
          [](const PyFilter& self, py::handle keys, unsigned threads, bool prehashed) {
            KeyBatch b;
            MakeKeys(keys, prehashed, &b);
            const size_t n = b.total_size();
            if (b.valid && n > std::numeric_limits<uint32_t>::max()) {
              throw py::value_error(
                  "select: more than 2^32 keys do not fit 32-bit selection indices");
            }
            py::array_t<uint32_t> out = OutArray<uint32_t>(n);
            uint32_t* p = out.mutable_data();
            uint64_t count = 0;
            {
              py::gil_scoped_release nogil;
              std::shared_lock<std::shared_mutex> lock(self.mu);
              if (b.valid == nullptr) {
                count = self.f.select(*b.keys, p, ThreadsOf(threads));
              } else {  // the indices of the caller's keys, nulls never selected
                std::vector<uint8_t> hits(n);
                ContainsInto(self.f, b, hits.data(), ThreadsOf(threads));
                for (size_t i = 0; i < n; ++i) {
                  if (hits[i]) p[count++] = static_cast<uint32_t>(i);
                }
              }
            }
            py::object sliced = out[py::slice(0, static_cast<py::ssize_t>(count), 1)];
            // A few hits out of many keys: give the memory back (a copy of the hits).
            if (count * 2 < n) return sliced.attr("copy")();
            return sliced;
          },
          py::arg("keys"), py::arg("threads") = 1, py::arg("prehashed") = false,
          "The indices (uint32, ascending) of the keys that may be present: the semi-join's "
          "selection vector. Needs len(keys) < 2**32.")
      .def(
          "hash",
          [](const PyFilter& self, py::handle key) {
            uint64_t h = 0;
            if (!WithSingleKey(key, [&](auto k) { h = self.f.hash(k); })) {
              throw py::type_error("hash takes one key; use hashes(batch)");
            }
            return h;
          },
          py::arg("key"),
          "The layout's hash of one key with this filter's seed (what insert computes first).")
      .def(
          "hashes",
          [](const PyFilter& self, py::handle keys) {
            KeyBatch b;
            MakeKeys(keys, false, &b);
            if (b.valid) {
              throw py::value_error(
                  "hashes: the keys hold nulls, and a null has no hash; drop them first "
                  "(keys.dropna())");
            }
            py::array_t<uint64_t> out = OutArray<uint64_t>(b.size());
            uint64_t* p = out.mutable_data();
            {
              py::gil_scoped_release nogil;
              self.f.hash(*b.keys, p);
            }
            return out;
          },
          py::arg("keys"),
          "uint64 hashes of a batch: pass them with prehashed=True to probe several filters of "
          "the same layout family and seed without hashing again.")
      .def(
          "merge",
          [](PyFilter& self, const PyFilter& other) {
            WithPair(self, other, [&] { self.f.merge(other.f); });
            self.key_type = Combine(self.key_type, other.key_type);
          },
          py::arg("other"),
          "Union in place (OR of the bits). Raises simdbloom.Error (incompatible) unless both "
          "have the same layout, size, k and seed. O(size_bytes), no allocation, GIL released.")
      .def(
          "intersect",
          [](PyFilter& self, const PyFilter& other) {
            WithPair(self, other, [&] { self.f.intersect(other.f); });
            self.key_type = Combine(self.key_type, other.key_type);
          },
          py::arg("other"), "Intersection in place (AND of the bits); same conditions as merge.")
      .def(
          "__or__",
          [](const PyFilter& self, const PyFilter& other) {
            std::unique_ptr<PyFilter> r = CopyOf(self);
            WithPair(*r, other, [&] { r->f.merge(other.f); });
            r->key_type = Combine(r->key_type, other.key_type);
            return r;
          },
          py::is_operator())
      .def(
          "__and__",
          [](const PyFilter& self, const PyFilter& other) {
            std::unique_ptr<PyFilter> r = CopyOf(self);
            WithPair(*r, other, [&] { r->f.intersect(other.f); });
            r->key_type = Combine(r->key_type, other.key_type);
            return r;
          },
          py::is_operator())
      .def(
          "compatible",
          [](const PyFilter& self, const PyFilter& other) { return self.f.compatible(other.f); },
          py::arg("other"), "True if merge/intersect with `other` is allowed.")
      .def(
          "clear",
          [](PyFilter& self) {
            {
              py::gil_scoped_release nogil;
              std::unique_lock<std::shared_mutex> lock(self.mu);
              self.f.clear();
            }
            self.key_type = KeyType::kEmpty;
          },
          "Clears every bit (and key_type).")
      .def(
          "copy", [](const PyFilter& self) { return CopyOf(self); }, "An independent copy.")
      .def("__copy__", [](const PyFilter& self) { return CopyOf(self); })
      .def(
          "__deepcopy__", [](const PyFilter& self, py::handle) { return CopyOf(self); },
          py::arg("memo"))
      .def("to_bytes", &ToBytes,
           "The saved form (lib/FORMAT.md: 64-byte header with a checksum, then the bits) as "
           "bytes; the same bytes as the C++ save(). One copy of the bit array.")
      .def_static("from_bytes", &FromBytes, py::arg("data"),
                  "A filter from to_bytes() output (any contiguous buffer), validated field by "
                  "field and checksummed. Raises simdbloom.Error (format) for anything else.")
      .def(
          "save",
          [](const PyFilter& self, py::handle path) {
            const std::string p = PathOf(path);
            py::gil_scoped_release nogil;
            std::shared_lock<std::shared_mutex> lock(self.mu);
            self.f.save_file(p);
          },
          py::arg("path"),
          "Writes to_bytes() to a file, atomically: a temporary file in the same directory,\n"
          "fsync'ed and renamed over `path`, so on any failure (a full disk, a kill) the old\n"
          "file is unchanged. Follows symbolic links; writes devices and FIFOs in place; needs\n"
          "write permission on the file and its directory. GIL released. Raises\n"
          "simdbloom.Error (io) naming the path and the reason.")
      .def_static(
          "load",
          [](py::handle path) {
            const std::string p = PathOf(path);
            std::optional<simdbloom::Filter> f;
            {
              py::gil_scoped_release nogil;
              f.emplace(simdbloom::Filter::load_file(p));
            }
            return std::make_unique<PyFilter>(std::move(*f), KeyType::kUnknown);
          },
          py::arg("path"), "Reads a saved filter (validated). Raises simdbloom.Error (io, format).")
      // Pickling: the saved form and the key type. From protocol 5 on the bytes travel out of
      // band (a PickleBuffer), so Dask and multiprocessing can send them as their own frame
      // instead of copying them into the pickle stream.
      .def(
          "__reduce_ex__",
          [](py::object self, int protocol) {
            const PyFilter& f = self.cast<const PyFilter&>();
            py::bytes data = ToBytes(f);
            py::object key_type = KeyTypeObject(f.key_type);
            // A Python function (pybind11 functions do not pickle by reference).
            py::object from_bytes = py::module_::import("simdbloom").attr("_filter_from_bytes");
            if (protocol >= 5) {
              py::object buffer = py::module_::import("pickle").attr("PickleBuffer")(data);
              return py::make_tuple(from_bytes, py::make_tuple(buffer, key_type));
            }
            return py::make_tuple(from_bytes, py::make_tuple(data, key_type));
          },
          py::arg("protocol"))
      .def(
          "__len__",
          [](const PyFilter& self) {
            const double c = Reading(self, [&] { return self.f.approximate_count(); });
            if (!(c < 9.2e18)) throw std::overflow_error("the filter is full: no estimate");
            return static_cast<Py_ssize_t>(c + 0.5);
          },
          "Estimated number of distinct keys inserted (approximate_count() rounded); reads the "
          "whole bit array.")
      .def(
          "approximate_count",
          [](const PyFilter& self) {
            return Reading(self, [&] { return self.f.approximate_count(); });
          },
          "Estimated distinct keys from the number of set bits (inf when full). O(size_bytes).")
      .def(
          "fill_ratio",
          [](const PyFilter& self) { return Reading(self, [&] { return self.f.fill_ratio(); }); },
          "Fraction of bits set. O(size_bytes).")
      .def(
          "expected_fpp",
          [](const PyFilter& self) { return Reading(self, [&] { return self.f.expected_fpp(); }); },
          "False-positive rate of the current bits for a random absent key. O(size_bytes).")
      .def(
          "predicted_fpp", [](const PyFilter& self, uint64_t n) { return self.f.predicted_fpp(n); },
          py::arg("n"), "The model's false-positive rate after n distinct keys.")
      .def("stats", &Stats,
           "A dict: layout, bits, size_bytes, num_blocks, num_hashes, seed, inserted_count, "
           "fill_ratio, approximate_count, expected_fpp, bits_per_inserted_key, is_view, "
           "target. Reads the bit array a few times.")
      .def_property_readonly("layout", [](const PyFilter& self) { return self.f.layout(); })
      .def_property_readonly("bit_count", [](const PyFilter& self) { return self.f.bit_count(); })
      .def_property_readonly("size_bytes", [](const PyFilter& self) { return self.f.size_bytes(); })
      .def_property_readonly("num_blocks", [](const PyFilter& self) { return self.f.num_blocks(); })
      .def_property_readonly("num_hashes", [](const PyFilter& self) { return self.f.num_hashes(); })
      .def_property_readonly("seed", [](const PyFilter& self) { return self.f.seed(); })
      .def_property_readonly(
          "inserted_count",
          [](const PyFilter& self) {
            auto lock = LockWithGil<std::shared_lock<std::shared_mutex>>(self.mu);
            return self.f.inserted_count();
          },
          "Keys passed to insert so far, repeats included (merge adds).")
      .def_property(
          "key_type", [](const PyFilter& self) { return KeyTypeObject(self.key_type); },
          [](PyFilter& self, py::handle type) {
            const KeyType t = KeyTypeFrom(type);
            if (t == KeyType::kEmpty) {
              uint64_t inserted = 0;
              {
                py::gil_scoped_release nogil;
                std::shared_lock<std::shared_mutex> lock(self.mu);
                inserted = self.f.inserted_count();
              }
              if (inserted != 0) {
                throw py::value_error("key_type: a filter with inserted_count " +
                                      std::to_string(inserted) +
                                      " is not 'empty'; declare its keys' type, or None");
              }
            }
            self.key_type = t;
          },
          R"doc(What the inserted keys were: 'int16', 'int32', 'int64' (integers of 2, 4, 8 bytes,
either sign: they hash alike), 'bytes' (bytes, str, Binary), 'prehashed', 'mixed' (several of
these), 'empty' (nothing inserted since create/clear: the first non-empty batch sets the type), or
None (unknown: a filter from from_bytes/load, whose saved form does not hold it, or from a pickle
of a release without key_type). Recorded by insert (a batch without keys records nothing),
combined by merge/intersect/|/&, kept by copies and pickling. Unknown stays unknown whatever is
added (it may hold keys of any type), and 'mixed' stays 'mixed'. A key's width is part of its
hash, so simdbloom.dask.semi_join reads it to probe a column of another width as these keys (None:
the column is probed as it is). Settable, e.g. on a loaded filter whose keys you know; 'empty' only
while inserted_count is 0.)doc")
      .def("__repr__", [](const PyFilter& self) {
        uint64_t inserted = 0;
        {
          auto lock = LockWithGil<std::shared_lock<std::shared_mutex>>(self.mu);
          inserted = self.f.inserted_count();
        }
        return "simdbloom.Filter(layout=" + std::string(simdbloom::layout_name(self.f.layout())) +
               ", bits=" + std::to_string(self.f.bit_count()) +
               ", num_hashes=" + std::to_string(self.f.num_hashes()) +
               ", seed=" + std::to_string(self.f.seed()) +
               ", inserted_count=" + std::to_string(inserted) + ")";
      });
}
