// SPDX-License-Identifier: Apache-2.0
// simdbloom._core: what every class does alike, bound once as templates over the C++ class
// (BindCommon): copies, equality, the saved form as bytes, files given as paths or as Python
// binary file objects, pickling (protocol 5 out of band), key_type (the library's KeyType, kept
// by the object and its saved form). Each class supplies its
// Kind<T> traits (locked_filter.h).
#ifndef SIMDBLOOM_PYTHON_PERSIST_H_
#define SIMDBLOOM_PYTHON_PERSIST_H_

#include <cstring>
#include <istream>
#include <optional>
#include <ostream>
#include <sstream>
#include <streambuf>
#include <string>
#include <vector>

#include "locked_filter.h"
#include "module.h"

namespace simdbloom_py {

// The Kind<T> members that forward to T's own calls as they are: a copy, the saved form (bytes,
// streams, paths) and, for a class with compatible(), data() and size_bytes(), equality as the
// same parameters and the same bytes. A Kind<T> derives from it and writes only what differs
// (with `using Persisted<T>::Load;` when it writes one of the two loads).
template <class T>
struct Persisted {
  static T Copy(const T& f) { return f; }
  static bool Equal(const T& a, const T& b) {
    return a.compatible(b) && std::memcmp(a.data(), b.data(), a.size_bytes()) == 0;
  }
  static size_t SerializedSize(const T& f) { return f.serialized_size(); }
  static void Save(const T& f, std::ostream& os) { f.save(os); }
  static T Load(const uint8_t* p, size_t n) { return T::load(p, n); }
  static T Load(std::istream& in) { return T::load(in); }
  static void SaveFile(const T& f, const std::string& path) { f.save_file(path); }
  static T LoadFile(const std::string& path) { return T::load_file(path); }
};

// os.fspath(path) as a string (str, bytes, pathlib.Path).
std::string PathOf(py::handle path);
// Whether `target` is a file object for `method` ("write" or "read"): it has that method and is
// not a path (str, bytes, os.PathLike).
bool IsFile(py::handle target, const char* method);

// A std::streambuf over a Python binary file object's write(), for a save running without the
// GIL: bytes are gathered into 1 MiB and handed to write() with the GIL taken for that call (a
// short write of a raw file is continued). If write() raises, the stream fails (the library then
// throws Error(kIo)) and RethrowPending raises the Python exception instead. Construct, use and
// destroy with the GIL held; only the stream calls run without it.
class PyWriter : public std::streambuf {
 public:
  explicit PyWriter(py::handle file);
  // With the GIL: raises what write() raised, if it did.
  void RethrowPending();

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  bool Flush();
  bool Write(const char* p, size_t n);  // takes the GIL
  py::object write_;
  std::vector<char> buf_;
  std::optional<py::error_already_set> pending_;
};

// A std::streambuf over a Python binary file object's read(n), for a load running without the
// GIL: each read the library makes becomes read() calls for those bytes (the GIL taken per call,
// at most 1 MiB each). If read() raises, the stream ends (the library throws Error(kFormat/kIo))
// and RethrowPending raises the Python exception instead.
class PyReader : public std::streambuf {
 public:
  explicit PyReader(py::handle file);
  void RethrowPending();

 protected:
  std::streamsize xsgetn(char* s, std::streamsize n) override;
  int_type underflow() override;

 private:
  size_t Read(char* p, size_t n);  // takes the GIL; fewer than n bytes only at the end
  py::object read_;
  char ch_ = 0;  // underflow's one-byte buffer
  std::optional<py::error_already_set> pending_;
};

// A streambuf writing into a fixed buffer (to_bytes: the library writes into the bytes object).
class FixedBuf : public std::streambuf {
 public:
  FixedBuf(char* p, size_t n) { setp(p, p + n); }
  size_t written() const { return static_cast<size_t>(pptr() - pbase()); }
};

// Whether Kind<T> has `static std::string SaveString(const T&)`: a class whose library call
// returns its saved form as a string (the shifting set filters) instead of writing a stream of a
// size known ahead.
template <class T, class = void>
struct SavesString : std::false_type {};
template <class T>
struct SavesString<T, std::void_t<decltype(Kind<T>::SaveString(std::declval<const T&>()))>>
    : std::true_type {};

// The saved form as bytes, under the shared lock without the GIL: the library writes into the
// bytes object (one copy of the bits), or (SaveString) its string is copied into it.
template <class T>
py::bytes ToBytes(const LockedFilter<T>& g) {
  if constexpr (SavesString<T>::value) {
    const std::string s = Reading(g, &Kind<T>::SaveString);
    return py::bytes(s);
  } else {
    const size_t size = Kind<T>::SerializedSize(g.obj);
    py::bytes out(nullptr, static_cast<py::ssize_t>(size));
    char* dst = PyBytes_AS_STRING(out.ptr());
    const size_t written = Reading(g, [&](const T& obj) {
      FixedBuf buf(dst, size);
      std::ostream os(&buf);
      Kind<T>::Save(obj, os);
      return buf.written();
    });
    if (written != size) throw std::runtime_error("simdbloom: serialized size mismatch");
    return out;
  }
}

// One contiguous buffer's bytes (from_bytes accepts any buffer).
struct BufferBytes {
  py::buffer_info info;
  const uint8_t* data;
  size_t size;
};
BufferBytes BytesOf(py::buffer data);

// from_bytes: validated by the library, without the GIL; the key type is the saved one.
template <class T>
Ptr<T> FromBytes(py::buffer data) {
  const BufferBytes b = BytesOf(data);
  return Wrap(WithoutGil([&] { return Kind<T>::Load(b.data, b.size); }));
}

// save(path or file object).
template <class T>
void SaveTo(const LockedFilter<T>& g, py::handle target) {
  if (!IsFile(target, "write")) {
    const std::string path = PathOf(target);
    Reading(g, [&](const T& obj) { Kind<T>::SaveFile(obj, path); });
    return;
  }
  // Serialized under the shared lock (without the GIL), then written with the lock released:
  // write() runs Python code, which may change this very object (an insert there waited for the
  // lock forever). The price: the saved form in memory once, as to_bytes() makes it.
  const py::bytes data = ToBytes(g);
  PyWriter writer(target);
  const auto size = static_cast<std::streamsize>(PyBytes_GET_SIZE(data.ptr()));
  if (writer.sputn(PyBytes_AS_STRING(data.ptr()), size) != size || writer.pubsync() != 0) {
    writer.RethrowPending();
    throw simdbloom::Error(simdbloom::ErrorCode::kIo, "save: write() failed");
  }
}

// load(path or file object).
template <class T>
Ptr<T> LoadFrom(py::handle source) {
  if (!IsFile(source, "read")) {
    const std::string path = PathOf(source);
    try {
      return Wrap(WithoutGil([&] { return Kind<T>::LoadFile(path); }));
    } catch (const simdbloom::Error& e) {
      RaiseIfOsError(e, path);  // missing, not permitted: FileNotFoundError, PermissionError
      throw;
    }
  }
  PyReader reader(source);
  try {
    return Wrap(WithoutGil([&] {
      std::istream in(&reader);
      return Kind<T>::Load(in);
    }));
  } catch (const simdbloom::Error&) {
    reader.RethrowPending();
    throw;
  }
}

// __reduce_ex__: simdbloom._from_bytes(kind, saved form); the saved form holds the key type. From
// protocol 5 on the bytes travel out of band (a PickleBuffer), so Dask and multiprocessing send
// them as their own frame.
py::tuple Reduce(const char* kind, py::bytes data, int protocol);

// Binds map(path, verify_checksum=True) on class T, whose C++ class has map_file (Filter,
// CountingFilter).
template <class T>
void BindMap(py::class_<LockedFilter<T>>& cls) {
  cls.def_static(
      "map",
      [](py::handle path, bool verify_checksum) {
        const std::string p = PathOf(path);
        try {
          return Wrap(WithoutGil([&] { return T::map_file(p, verify_checksum); }));
        } catch (const simdbloom::Error& e) {
          RaiseIfOsError(e, p);
          throw;
        }
      },
      py::arg("path"), py::arg("verify_checksum") = true,
      ("A read-only " + std::string(Kind<T>::kName) +
       " over a memory mapping of the saved file at `path` (str, bytes, os.PathLike), validated "
       "as load() validates; the object owns the mapping, which goes when the object does. For "
       "services that load a large prebuilt filter: with verify_checksum=False the cost is open + "
       "mmap + the 64-byte header, whatever the size, and pages are read on first use; with True "
       "one checksum pass reads the file first. Inserts and clear raise simdbloom.Error "
       "(read_only); copy() is an ordinary, writable object. The file must not be truncated or "
       "rewritten in place while mapped (save() replaces files by rename, which a mapping "
       "survives). Raises simdbloom.Error (io: missing, unreadable, not a regular file; format). "
       "key_type: the saved one. GIL released.")
          .c_str());
}

// Binds copy, __copy__, __deepcopy__, __eq__/__ne__ (and __hash__ = None: mutable), to_bytes,
// from_bytes, save, load, __reduce_ex__ and key_type on class T.
template <class T>
void BindCommon(py::class_<LockedFilter<T>>& cls) {
  using G = LockedFilter<T>;
  const std::string name = Kind<T>::kName;
  cls.def("copy", &CopyOf<T>,
          "An independent copy (the bits and key_type). O(size_bytes): one allocation and copy.")
      .def("__copy__", &CopyOf<T>)
      .def(
          "__deepcopy__", [](const G& self, py::handle) { return CopyOf(self); }, py::arg("memo"))
      .def(
          "__eq__",
          [](const G& self, const G& other) { return ReadingPair(self, other, &Kind<T>::Equal); },
          py::is_operator(), py::arg("other"),
          "Same parameters (size, k, seed, ...) and the same bits/counters/cells: both answer "
          "every key alike. Not compared: counts kept for information (inserted_count, ...) and "
          "key_type. O(size_bytes) without the GIL; another type: NotImplemented.")
      .def(
          "__ne__",
          [](const G& self, const G& other) { return !ReadingPair(self, other, &Kind<T>::Equal); },
          py::is_operator(), py::arg("other"))
      .def("to_bytes", &ToBytes<T>,
           "The saved form (lib/FORMAT.md) as bytes: the C++ library's save() bytes, a header "
           "with checksums then the payload. O(size_bytes): one copy, GIL released.")
      .def_static("from_bytes", &FromBytes<T>, py::arg("data"),
                  ("A " + name +
                   " from to_bytes() output (any contiguous buffer), validated field by field and "
                   "checksummed; key_type is the saved one. Raises simdbloom.Error (format) for "
                   "anything else. O(size): one allocation and copy, GIL released.")
                      .c_str())
      .def("save", &SaveTo<T>, py::arg("target"),
           "Writes to_bytes() to `target`: a path (str, bytes, os.PathLike) or a binary file\n"
           "object (anything with write(): open(..., 'wb'), io.BytesIO, a socket's makefile).\n"
           "A path is replaced atomically: a temporary file in the same directory, fsync'ed and\n"
           "renamed over it, so on any failure (a full disk, a kill) the old file is unchanged;\n"
           "devices and FIFOs are written in place. A file object gets to_bytes() (made first,\n"
           "under the object's lock) through write() calls of up to 1 MiB at its current\n"
           "position (not closed, not flushed), with no lock held: write() may use the filter.\n"
           "GIL released but for write(). Raises simdbloom.Error (io) naming the path and the\n"
           "reason, or what write() raised. O(size_bytes), one checksum pass.")
      .def_static("load", &LoadFrom<T>, py::arg("source"),
                  ("Reads a saved " + name +
                   " (validated) from a path or a binary file object (anything with read(n)), "
                   "from its current position to its end: bytes after the object are a format "
                   "error, as in a file. The payload is checked in pieces before it is "
                   "allocated, so memory follows the bytes present. key_type is the saved one. "
                   "Raises simdbloom.Error (io, format) or what read() raised. O(size): one "
                   "allocation, GIL released but for read() calls of up to 1 MiB.")
                      .c_str())
      .def(
          "__reduce_ex__",
          [](const G& self, int protocol) {
            return Reduce(Kind<T>::kName, ToBytes(self), protocol);
          },
          py::arg("protocol"))
      .def_property(
          "key_type",
          [](const G& self) {
            KeyType t;
            {
              auto lock = LockWithGil<SharedLock>(self.mu);
              t = self.obj.key_type();
            }
            return KeyTypeObject(t);
          },
          [](G& self, py::handle value) {
            const KeyType t = KeyTypeDeclared(value);
            auto lock = LockWithGil<UniqueLock>(self.mu);
            self.obj.set_key_type(t);
          },
          R"doc(What the object holds: 'int64' (integers, hashed as their 8-byte value), 'int32'
(integers hashed as 4 bytes: declared; a value outside [-2**31, 2**32) is absent from queries and
refused by inserts), 'bytes' (byte strings: bytes, str as UTF-8, Binary), None (nothing declared or
inserted yet: the first insert decides, an integer making it 'int64', a byte string 'bytes'), or
'legacy' (a file saved before key types: integers hash at their width, as then). Declared by the
constructor's key_type= or by setting it once on a None or 'legacy' object (e.g. f.key_type =
'int32' for a loaded file whose keys you know); setting another type on an object that holds one
raises simdbloom.Error (a ValueError). Saved in the file, so to_bytes/from_bytes, save/load, map,
pickles and copies keep it. A key is its value: 5 is one key as a Python int, numpy.int32 or
numpy.uint64; an integer key on a 'bytes' object, or a byte string on an integer one, raises
TypeError naming both.)doc");
  cls.attr("__hash__") = py::none();
}

// The constructor T(...) and its twin T.create(...), both fn(...) -> Ptr<T>, with the same
// arguments and docstring (`extra`: py::arg's and the docstring).
template <class T, class Fn, class... Extra>
void BindCreate(py::class_<LockedFilter<T>>& cls, Fn fn, const Extra&... extra) {
  cls.def(py::init(fn), extra...).def_static("create", fn, extra...);
}

// clear(): reset(obj) under the exclusive lock without the GIL (the key type is kept).
template <class T, class Reset>
void BindClear(py::class_<LockedFilter<T>>& cls, Reset reset, const char* doc) {
  cls.def(
      "clear", [reset](LockedFilter<T>& self) { Writing(self, reset); }, doc);
}

}  // namespace simdbloom_py

#endif  // SIMDBLOOM_PYTHON_PERSIST_H_
