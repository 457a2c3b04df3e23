// SPDX-License-Identifier: Apache-2.0
// simdbloom._core: simdbloom.Error, what the library's simdbloom::Error becomes in Python (its
// KeyTypeError: TypeError).
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <iterator>
#include <simdbloom/simdbloom.hpp>

#include "module.h"

namespace simdbloom_py {
namespace {

PyObject* g_error_type = nullptr;
PyObject* g_not_found_type = nullptr;   // FileNotFoundError and simdbloom.Error
PyObject* g_permission_type = nullptr;  // PermissionError and simdbloom.Error

// The names of the codes 1..8, in ErrorCode's order (simdbloom.hpp).
constexpr const char* kCodeNames[] = {
    "invalid_argument", "unknown_target", "out_of_memory",     "format", "io",
    "incompatible",     "read_only",      "capacity_exhausted"};
static_assert(std::size(kCodeNames) ==
                  static_cast<size_t>(simdbloom::ErrorCode::kCapacityExhausted),
              "kCodeNames lacks an ErrorCode");

const char* CodeName(simdbloom::ErrorCode code) {
  const size_t i = static_cast<size_t>(code) - 1;
  return i < std::size(kCodeNames) ? kCodeNames[i] : "unknown";
}

void RaiseLibraryError(const simdbloom::Error& e) {
  py::object type = py::reinterpret_borrow<py::object>(g_error_type);
  // A message may hold a path's bytes that are not UTF-8: decoded as os.fsdecode would (surrogate
  // escapes), never a UnicodeDecodeError in place of the library's error.
  const std::string what = e.what();
  py::object message = py::reinterpret_steal<py::object>(
      PyUnicode_DecodeUTF8(what.data(), static_cast<Py_ssize_t>(what.size()), "surrogateescape"));
  if (!message) throw py::error_already_set();
  py::object exc = type(message);
  exc.attr("code") = py::str(CodeName(e.code()));
  PyErr_SetObject(g_error_type, exc.ptr());
}

}  // namespace

void RaiseIfOsError(const simdbloom::Error& e, const std::string& path) {
  if (e.code() != simdbloom::ErrorCode::kIo) return;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    ::close(fd);
    return;
  }
  const int err = errno;
  PyObject* type = err == ENOENT || err == ENOTDIR ? g_not_found_type
                   : err == EACCES || err == EPERM ? g_permission_type
                                                   : nullptr;
  if (type == nullptr) return;
  py::object filename = py::reinterpret_steal<py::object>(
      PyUnicode_DecodeFSDefaultAndSize(path.data(), static_cast<Py_ssize_t>(path.size())));
  if (!filename) throw py::error_already_set();
  // The library's message ("WHO: cannot open PATH: reason") as the strerror part.
  const std::string what = e.what();
  py::object message = py::reinterpret_steal<py::object>(
      PyUnicode_DecodeUTF8(what.data(), static_cast<Py_ssize_t>(what.size()), "surrogateescape"));
  if (!message) throw py::error_already_set();
  py::object exc = py::reinterpret_borrow<py::object>(type)(err, message, filename);
  exc.attr("code") = py::str("io");
  PyErr_SetObject(type, exc.ptr());
  throw py::error_already_set();
}

void BindErrors(py::module_& m) {
  g_error_type = PyErr_NewExceptionWithDoc(
      "simdbloom.Error",
      "Raised for every error the library reports; the message is the library's, `code` names "
      "its kind: invalid_argument, unknown_target, out_of_memory, format, io, incompatible, "
      "read_only, capacity_exhausted.",
      PyExc_ValueError, nullptr);
  m.attr("Error") = py::handle(g_error_type);
  // A path that cannot be opened (load, map): Python's own OSError for the reason, which is also
  // a simdbloom.Error (code 'io'), so both `except OSError` and `except simdbloom.Error` catch it.
  const auto both = [](const char* name, PyObject* os_error, const char* doc) {
    py::tuple bases = py::make_tuple(py::handle(os_error), py::handle(g_error_type));
    return PyErr_NewExceptionWithDoc(name, doc, bases.ptr(), nullptr);
  };
  g_not_found_type = both("simdbloom._FileNotFoundError", PyExc_FileNotFoundError,
                          "A file to read is missing: FileNotFoundError and simdbloom.Error.");
  g_permission_type = both("simdbloom._PermissionError", PyExc_PermissionError,
                           "A file may not be read: PermissionError and simdbloom.Error.");
  m.attr("_FileNotFoundError") = py::handle(g_not_found_type);
  m.attr("_PermissionError") = py::handle(g_permission_type);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const simdbloom::KeyTypeError& e) {
      // An integer key on a byte-string filter, or a byte string on an integer filter: a
      // TypeError, the library's message naming both.
      PyErr_SetString(PyExc_TypeError, e.what());
    } catch (const simdbloom::Error& e) {
      RaiseLibraryError(e);
    }
  });
}

}  // namespace simdbloom_py
