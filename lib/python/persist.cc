// SPDX-License-Identifier: Apache-2.0
// simdbloom._core: files as paths or Python file objects, buffers, pickling (persist.h).
#include "persist.h"

#include <algorithm>
#include <cstring>

namespace simdbloom_py {

std::string PathOf(py::handle path) {
  // os.fsencode: str, bytes or os.PathLike, a str in the file system's encoding with its
  // surrogate escapes (a non-UTF-8 name from os.listdir) back to their bytes.
  std::string p = py::module_::import("os").attr("fsencode")(path).cast<std::string>();
  // The C++ calls open p.c_str(): a NUL would cut the path short and name another file.
  if (p.find('\0') != std::string::npos) throw py::value_error("path: embedded null byte");
  return p;
}

bool IsFile(py::handle target, const char* method) {
  if (PyUnicode_Check(target.ptr()) || PyBytes_Check(target.ptr()) ||
      py::hasattr(target, "__fspath__")) {
    return false;
  }
  return py::hasattr(target, method);
}

// ---- PyWriter ----
constexpr size_t kFileChunk = size_t{1} << 20;

PyWriter::PyWriter(py::handle file) : write_(file.attr("write")) {
  buf_.resize(kFileChunk);
  setp(buf_.data(), buf_.data() + buf_.size());
}

void PyWriter::RethrowPending() {
  if (pending_) {
    py::error_already_set e = std::move(*pending_);
    pending_.reset();
    throw e;
  }
}

bool PyWriter::Write(const char* p, size_t n) {
  if (pending_) return false;
  py::gil_scoped_acquire gil;
  try {
    while (n > 0) {
      // A memoryview of the bytes (no copy); a raw file may take fewer than n of them.
      py::memoryview view = py::memoryview::from_memory(p, static_cast<py::ssize_t>(n));
      py::object r = write_(view);
      view.attr("release")();
      const size_t took = r.is_none() ? 0 : r.cast<size_t>();
      if (r.is_none() || took == 0 || took > n) {
        throw py::value_error("write() took " +
                              (r.is_none() ? std::string("None") : std::to_string(took)) + " of " +
                              std::to_string(n) + " bytes");
      }
      p += took;
      n -= took;
    }
    return true;
  } catch (py::error_already_set& e) {
    pending_.emplace(std::move(e));
  } catch (const py::cast_error&) {
    PyErr_SetString(PyExc_TypeError, "write() returned something other than a byte count");
    pending_.emplace();
  } catch (const py::builtin_exception& e) {
    e.set_error();
    pending_.emplace();
  }
  return false;
}

bool PyWriter::Flush() {
  const size_t n = static_cast<size_t>(pptr() - pbase());
  setp(buf_.data(), buf_.data() + buf_.size());
  return n == 0 || Write(buf_.data(), n);
}

PyWriter::int_type PyWriter::overflow(int_type c) {
  if (!Flush()) return traits_type::eof();
  if (!traits_type::eq_int_type(c, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
  }
  return traits_type::not_eof(c);
}

std::streamsize PyWriter::xsputn(const char* s, std::streamsize n) {
  const size_t want = static_cast<size_t>(n);
  if (want <= static_cast<size_t>(epptr() - pptr())) {
    std::memcpy(pptr(), s, want);
    pbump(static_cast<int>(want));
    return n;
  }
  // Large writes (the payload) go straight to write(), in pieces of kFileChunk.
  if (!Flush()) return 0;
  for (size_t done = 0; done < want; done += kFileChunk) {
    if (!Write(s + done, std::min(kFileChunk, want - done)))
      return static_cast<std::streamsize>(done);
  }
  return n;
}

int PyWriter::sync() { return Flush() ? 0 : -1; }

// ---- PyReader ----
PyReader::PyReader(py::handle file) : read_(file.attr("read")) {}

void PyReader::RethrowPending() {
  if (pending_) {
    py::error_already_set e = std::move(*pending_);
    pending_.reset();
    throw e;
  }
}

size_t PyReader::Read(char* p, size_t n) {
  if (pending_ || n == 0) return 0;
  py::gil_scoped_acquire gil;
  size_t got = 0;
  try {
    while (got < n) {
      const size_t want = std::min(n - got, kFileChunk);
      py::object r = read_(want);
      if (r.is_none()) throw py::value_error("read() returned None (a non-blocking file?)");
      py::buffer_info info = py::reinterpret_borrow<py::buffer>(r).request();
      // memcpy reads info.ptr onward: a strided buffer (memoryview(b)[::-1]) would be read past
      // its end.
      if (PyBuffer_IsContiguous(info.view(), 'C') == 0) {
        throw py::value_error("read() returned a buffer that is not contiguous");
      }
      const size_t size = static_cast<size_t>(info.size * info.itemsize);
      if (size > want) throw py::value_error("read() returned more bytes than asked for");
      if (size == 0) break;  // end of file
      std::memcpy(p + got, info.ptr, size);
      got += size;
    }
  } catch (py::error_already_set& e) {
    pending_.emplace(std::move(e));
  } catch (const py::builtin_exception& e) {
    e.set_error();
    pending_.emplace();
  }
  return got;
}

std::streamsize PyReader::xsgetn(char* s, std::streamsize n) {
  std::streamsize got = 0;
  if (n > 0 && gptr() < egptr()) {  // the byte underflow read
    *s = *gptr();
    gbump(1);
    got = 1;
  }
  return got + static_cast<std::streamsize>(Read(s + got, static_cast<size_t>(n - got)));
}

PyReader::int_type PyReader::underflow() {
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  if (Read(&ch_, 1) != 1) return traits_type::eof();
  setg(&ch_, &ch_, &ch_ + 1);
  return traits_type::to_int_type(ch_);
}

// ---- Buffers, pickling ----
BufferBytes BytesOf(py::buffer data) {
  py::buffer_info info = data.request();
  if (info.ndim > 1 || (info.ndim == 1 && info.strides[0] != info.itemsize && info.shape[0] > 1)) {
    throw py::value_error("from_bytes: the buffer must be contiguous");
  }
  const size_t size = static_cast<size_t>(info.size * info.itemsize);
  const auto* p = static_cast<const uint8_t*>(info.ptr);
  return BufferBytes{std::move(info), p, size};
}

py::tuple Reduce(const char* kind, py::bytes data, int protocol) {
  // A Python function (pybind11 functions do not pickle by reference).
  py::object from_bytes = py::module_::import("simdbloom").attr("_from_bytes");
  py::object payload = data;
  if (protocol >= 5) payload = py::module_::import("pickle").attr("PickleBuffer")(data);
  return py::make_tuple(from_bytes, py::make_tuple(kind, payload));
}

}  // namespace simdbloom_py
