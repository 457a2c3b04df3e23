// SPDX-License-Identifier: Apache-2.0
// simdbloom._core: Python keys as the library's keys (keys.h).
#include "keys.h"

#include <cstring>
#include <string>
#include <utility>

#include "init_checked.h"

namespace simdbloom_py {

py::object KeyTypeObject(KeyType t) {
  if (t == KeyType::kNone) return py::none();
  return py::str(simdbloom::key_type_name(t));
}

KeyType KeyTypeDeclared(py::handle h) {
  if (py::isinstance<py::str>(h)) {
    const std::string name = h.cast<std::string>();
    for (KeyType t : {KeyType::kInt64, KeyType::kInt32, KeyType::kBytes}) {
      if (name == simdbloom::key_type_name(t)) return t;
    }
  }
  throw py::value_error("key_type must be 'int64', 'int32' or 'bytes' (got " +
                        py::repr(h).cast<std::string>() + ")");
}

KeyType KeyTypeArg(py::handle h) {
  if (h.is_none()) return KeyType::kNone;
  if (py::isinstance<py::str>(h)) return KeyTypeDeclared(h);
  throw py::value_error("key_type must be None, 'int64', 'int32' or 'bytes' (got " +
                        py::repr(h).cast<std::string>() + ")");
}

void ThrowOutOfRange(const char* who, const std::string& repr) {
  throw py::value_error(std::string(who) + ": integer key " + repr +
                        " is outside the 64-bit range [-2**63, 2**64): no filter holds it");
}

py::handle NumpyInteger() {
  static py::object* type = new py::object(py::module_::import("numpy").attr("integer"));
  return *type;
}

void ThrowBoolKey() { throw py::type_error("bool is not a key (as in C++); use 0/1 or bytes"); }
void ThrowFloatKey() { throw py::type_error("float is not a key (as in C++)"); }
void ThrowNotContiguous() {
  throw py::type_error("a memoryview key must be C-contiguous (its bytes are the key)");
}

namespace {

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

// n integers at p, read in place as Signed or Unsigned (one NumPy integer width).
template <class Signed, class Unsigned>
void EmplaceIntegers(bool is_signed, const void* p, size_t n, KeyBatch* b) {
  if (is_signed) {
    b->keys.emplace(static_cast<const Signed*>(p), n);
  } else {
    b->keys.emplace(static_cast<const Unsigned*>(p), n);
  }
}

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
    return;
  }
  if (kind == 'u' || kind == 'i') {
    // Every integer dtype, by value: read in place as its width and signedness (the library
    // converts to the filter's key type); 1-byte dtypes widened to 2 bytes (a copy: the library
    // takes 2-, 4- and 8-byte integers).
    const bool is_signed = kind == 'i';
    switch (item) {
      case 8:
        return EmplaceIntegers<int64_t, uint64_t>(is_signed, p, n, b);
      case 4:
        return EmplaceIntegers<int32_t, uint32_t>(is_signed, p, n, b);
      case 2:
        return EmplaceIntegers<int16_t, uint16_t>(is_signed, p, n, b);
      default:
        return FromArray(arr.attr("astype")(is_signed ? "<i2" : "<u2"), false, b);
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
    return;
  }
  BadArray("dtype " + DtypeName(dt) +
           " is not a key type: use integer arrays (any width), bytes ('S'), "
           "str ('U') or object arrays of bytes/str");
}

// A list, tuple or object array: all ints (Python ints, NumPy integers: their values), or all
// bytes/str. Ints are kept as their 64-bit patterns, read as int64 keys, or as uint64 keys when
// one is 2**63 or more (then none may be negative: no 64-bit type holds both). An int beyond 64
// bits is left out (valid[] false: absent from every filter; inserts refuse the batch).
void FromSequence(py::handle seq_handle, KeyBatch* b) {
  py::sequence seq = py::reinterpret_borrow<py::sequence>(seq_handle);
  const size_t n = py::len(seq);
  b->refs.reserve(n);
  bool ints = false, strings = false, negative = false, high = false;
  std::vector<size_t> beyond;  // indices of ints beyond 64 bits
  for (size_t i = 0; i < n; ++i) {
    py::object item = seq[i];
    const bool is_int = PyLong_Check(item.ptr()) || py::isinstance(item, NumpyInteger());
    bool ok = true;
    if (is_int) {
      if (strings) ok = false;
      ints = true;
      WithSingleKey(item, [&](auto key) {
        using K = decltype(key);
        if constexpr (std::is_same<K, int64_t>::value) {
          negative |= key < 0;
          b->ints.push_back(key);
        } else if constexpr (std::is_same<K, uint64_t>::value) {
          high = true;
          b->ints.push_back(static_cast<int64_t>(key));
        } else if constexpr (std::is_same<K, OutOfRange>::value) {
          if (!b->out_of_range) b->out_of_range = key.repr;
          beyond.push_back(i);
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
      if (PyByteArray_Check(item.ptr()) || PyMemoryView_Check(item.ptr())) {
        throw py::type_error(
            "keys: bytearray and memoryview items can change while the GIL is released; "
            "use bytes");
      }
      b->refs.push_back(std::move(item));
    }
    if (!ok) throw py::type_error("keys: a batch mixes ints and bytes/str; make two batches");
  }
  if (strings) {
    b->keys.emplace(b->views.data(), b->views.size());
    return;
  }
  if (negative && high) {
    throw py::value_error(
        "keys: a batch mixes negative ints and ints of 2**63 or more, which no 64-bit integer "
        "type holds together; make two batches");
  }
  if (high) {
    b->keys.emplace(reinterpret_cast<const uint64_t*>(b->ints.data()), b->ints.size());
  } else {
    b->keys.emplace(b->ints.data(), b->ints.size());
  }
  if (!beyond.empty()) {
    b->valid_flags.assign(n, 1);
    for (size_t i : beyond) b->valid_flags[i] = 0;
    b->valid = b->valid_flags.data();
    b->total = n;
  }
}

// Variable-width keys in Arrow's layout, read in place: key i is data[offsets[i]:offsets[i+1]].
struct PyBinary {
  py::array offsets;  // 1-D contiguous int32 or int64, length + 1 entries
  py::array data;     // 1-D contiguous bytes (uint8/int8)
  size_t data_size = 0;
};

}  // namespace
}  // namespace simdbloom_py
// A method on an object whose __init__ never ran raises TypeError (init_checked.h).
SIMDBLOOM_PY_INIT_CHECKED(simdbloom_py::PyBinary);
namespace simdbloom_py {
namespace {

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
  if (bin.offsets.dtype().itemsize() == 4) {
    b->keys.emplace(simdbloom::BinaryArray<int32_t>{b->offsets32.data(), data, n});
  } else {
    b->keys.emplace(simdbloom::BinaryArray<int64_t>{b->offsets.data(), data, n});
  }
}

// pandas objects of an extension dtype (nullable, with isna()): Series, Index and arrays. Those
// whose dtype names a NumPy dtype (`numpy_dtype`: the nullable Int16..UInt64, Float32/64,
// boolean) are their values as that NumPy dtype, so a nullable Int32 column hashes as the int32
// array of its values (a 1-byte or float dtype is refused as for NumPy). The others (string,
// categorical, Arrow-backed, ...) are what numpy.asarray gives of their non-null values (str
// objects, a categorical's categories' dtype, ...). Either way nulls are left out of the keys;
// valid[] says where they were. Cost: to_numpy's copy, one more of the non-null values when
// there are nulls, a flag per key.
// Whether `obj` is such a pandas extension array, Series or Index.
bool IsMasked(py::handle obj) {
  if (!py::hasattr(obj, "dtype") || !py::hasattr(obj, "isna") || !py::hasattr(obj, "to_numpy")) {
    return false;
  }
  return !py::isinstance<py::dtype>(obj.attr("dtype"));
}

void FromMasked(py::handle obj, bool prehashed, KeyBatch* b) {
  py::object dt = obj.attr("dtype");
  py::module_ np = py::module_::import("numpy");
  py::array isna = np.attr("asarray")(obj.attr("isna")(), "bool");
  const bool nulls = np.attr("any")(isna).cast<bool>();
  if (!py::hasattr(dt, "numpy_dtype")) {
    if (!nulls) return FromArray(np.attr("asarray")(obj), prehashed, b);
    if (isna.ndim() != 1) BadArray("a key array must be 1-D");
    py::array valid = np.attr("ascontiguousarray")(np.attr("logical_not")(isna));
    // The non-null values as NumPy has them (a categorical's as its categories' dtype, strings
    // as objects, kept by refs).
    FromArray(np.attr("asarray")(obj[valid]), prehashed, b);
    b->valid_array = valid;
    b->valid = static_cast<const uint8_t*>(valid.data());
    b->total = static_cast<size_t>(valid.shape(0));
    return;
  }
  py::array values = np.attr("ascontiguousarray")(
      obj.attr("to_numpy")(py::arg("dtype") = dt.attr("numpy_dtype"), py::arg("na_value") = 0));
  if (isna.ndim() != 1 || values.ndim() != 1 || isna.shape(0) != values.shape(0)) {
    BadArray("a key array must be 1-D");
  }
  if (!nulls) return FromArray(values, prehashed, b);
  py::array valid = np.attr("ascontiguousarray")(np.attr("logical_not")(isna));
  FromArray(values[valid], prehashed, b);  // the non-null values, a contiguous copy
  b->valid_array = valid;
  b->valid = static_cast<const uint8_t*>(valid.data());
  b->total = static_cast<size_t>(valid.shape(0));
}

std::string TypeName(py::handle obj) {
  return py::str(obj.get_type().attr("__name__")).cast<std::string>();
}

// Whether update() hands `obj` to MakeKeys as one batch: arrays of a key dtype, Binary, pandas
// objects. Lists, tuples and object arrays go through Chunker: their items may mix key types.
bool IsBatch(py::handle obj) {
  if (py::isinstance<py::array>(obj)) {
    return py::reinterpret_borrow<py::array>(obj).dtype().kind() != 'O';
  }
  return py::isinstance<PyBinary>(obj) || IsMasked(obj) ||
         (!PyList_Check(obj.ptr()) && !PyTuple_Check(obj.ptr()) && py::hasattr(obj, "__array__"));
}

// The keys of an iterable, in order, as KeyBatches of at most kChunkKeys keys of one C++ type
// (int64 values, uint64 values of 2**63 or more, byte strings). For update(): an int beyond 64 bits
// raises ValueError.
class Chunker {
 public:
  explicit Chunker(const std::function<void(const KeyBatch&)>& fn) : fn_(fn) {}

  void Add(py::handle item, size_t index) {
    py::object owned = py::reinterpret_borrow<py::object>(item);
    if (PyByteArray_Check(item.ptr()) || PyMemoryView_Check(item.ptr())) {
      // Copied: it can change without the GIL.
      owned = py::reinterpret_steal<py::object>(PyBytes_FromObject(item.ptr()));
      if (!owned) throw py::error_already_set();
    }
    Type type = Type::kNone;
    int64_t value = 0;
    std::string_view bytes;
    bool single = false;
    try {
      single = WithSingleKey(owned, [&](auto key) {
        using K = decltype(key);
        if constexpr (std::is_same<K, std::string_view>::value) {
          type = Type::kBytes;
          bytes = key;
        } else if constexpr (std::is_same<K, OutOfRange>::value) {
          ThrowOutOfRange("update", key.repr);
        } else {
          type = std::is_same<K, uint64_t>::value ? Type::kU64 : Type::kI64;
          value = static_cast<int64_t>(key);
        }
      });
    } catch (const py::type_error& e) {
      throw py::type_error(Where(index) + e.what());
    } catch (const py::value_error& e) {
      throw py::value_error(Where(index) + e.what());
    }
    if (!single) {
      throw py::type_error(Where(index) + "a " + TypeName(item) +
                           " is not a key (int, bytes, str, NumPy integer)");
    }
    if (type != type_ || count_ == kChunkKeys) Flush();
    type_ = type;
    if (type == Type::kBytes) {  // a view into `owned`, kept alive by refs
      b_.views.push_back(bytes);
      b_.refs.push_back(std::move(owned));
    } else {
      b_.ints.push_back(value);
    }
    ++count_;
  }

  // Hands the keys gathered so far to fn, then starts an empty chunk.
  void Flush() {
    if (count_ == 0) return;
    switch (type_) {
      case Type::kI64:
        b_.keys.emplace(b_.ints.data(), b_.ints.size());
        break;
      case Type::kU64:
        b_.keys.emplace(reinterpret_cast<const uint64_t*>(b_.ints.data()), b_.ints.size());
        break;
      default:
        b_.keys.emplace(b_.views.data(), b_.views.size());
        break;
    }
    fn_(b_);
    b_ = KeyBatch();
    count_ = 0;
  }

 private:
  enum class Type { kNone, kI64, kU64, kBytes };
  static std::string Where(size_t index) { return "update: item " + std::to_string(index) + ": "; }
  const std::function<void(const KeyBatch&)>& fn_;
  KeyBatch b_;
  Type type_ = Type::kNone;
  size_t count_ = 0;
};

}  // namespace

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
  if (IsMasked(obj)) return FromMasked(obj, prehashed, b);  // pandas nullable integers, ...
  if (py::hasattr(obj, "__array__")) {  // pandas Series/Index, Arrow arrays, ...
    return FromArray(py::module_::import("numpy").attr("asarray")(obj), prehashed, b);
  }
  throw py::type_error(
      "keys: expected a key (int, bytes, str, NumPy integer) or a batch "
      "(NumPy array, list or tuple of keys, pandas Series), got " +
      TypeName(obj));
}

py::object LikeKeys(py::handle keys, py::object answers) {
  PyObject* pandas = PyDict_GetItemString(PyImport_GetModuleDict(), "pandas");  // borrowed
  if (pandas == nullptr) return answers;  // no Series without pandas
  py::object series = py::reinterpret_borrow<py::object>(pandas).attr("Series");
  if (!py::isinstance(keys, series)) return answers;
  return series(answers, py::arg("index") = keys.attr("index"), py::arg("name") = keys.attr("name"),
                py::arg("copy") = false);
}

bool IsSingle(py::handle h) {
  return PyLong_Check(h.ptr()) || PyFloat_Check(h.ptr()) || PyBytes_Check(h.ptr()) ||
         PyByteArray_Check(h.ptr()) || PyUnicode_Check(h.ptr()) || PyMemoryView_Check(h.ptr()) ||
         py::isinstance(h, NumpyInteger());
}

void ForEachChunk(py::handle iterable, const std::function<void(const KeyBatch&)>& fn) {
  if (PyMemoryView_Check(iterable.ptr())) {
    // A byte string, never the integers of its bytes: one key (copied, as any bytes-like item).
    Chunker chunker(fn);
    chunker.Add(iterable, 0);
    return chunker.Flush();
  }
  if (IsSingle(iterable)) {
    throw py::type_error("update takes an iterable of keys; a " + TypeName(iterable) +
                         " is one key: use add(key)");
  }
  if (IsBatch(iterable)) {
    KeyBatch b;
    MakeKeys(iterable, false, &b);
    return fn(b);
  }
  if (!py::isinstance<py::iterable>(iterable)) {
    throw py::type_error("update takes an iterable of keys, got " + TypeName(iterable));
  }
  Chunker chunker(fn);
  size_t index = 0;
  try {
    for (py::handle item : py::iter(iterable)) chunker.Add(item, index++);
  } catch (...) {
    // The iterable raised, or an item is no key: the keys yielded before it are inserted before
    // the error propagates (as set.update keeps them), the error itself wins over the insert's.
    try {
      chunker.Flush();
    } catch (...) {
    }
    throw;
  }
  chunker.Flush();
}

void BindBinary(py::module_& m) {
  py::class_<PyBinary>(
      m, "Binary",
      R"doc(Byte-string keys in Arrow's variable-width layout (the data read in place).

Binary(offsets, data): key i is data[offsets[i]:offsets[i+1]]; `offsets` is a 1-D contiguous
int32 (Arrow Binary/Utf8) or int64 (LargeBinary/LargeUtf8) array of len(keys) + 1 entries,
`data` a 1-D uint8 array or any bytes-like object (bytes, memoryview, an Arrow buffer). Pass it
to any bulk call of any class. Offsets must be non-negative, non-decreasing and end within the
data (checked before any work). Each call copies the offsets (4 or 8 bytes per key) and reads the
copy, so a thread that rewrites them meanwhile cannot make it read outside the data; `data` is
read in place (a change during a call changes answers, never safety). For a pyarrow StringArray
`a` without nulls: Binary(numpy.frombuffer(a.buffers()[1], numpy.int32)[a.offset:a.offset +
len(a) + 1], a.buffers()[2]).)doc")
      .def(py::init(&MakeBinary), py::arg("offsets"), py::arg("data"))
      .def("__len__", [](const PyBinary& b) { return b.offsets.shape(0) - 1; })
      .def_readonly("offsets", &PyBinary::offsets)
      .def_readonly("data", &PyBinary::data);
}

}  // namespace simdbloom_py
