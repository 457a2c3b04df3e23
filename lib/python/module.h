// SPDX-License-Identifier: Apache-2.0
// simdbloom._core: what the module's files share besides keys (keys.h), objects (guarded.h) and
// persistence (persist.h): the exception, enums given as members or names, and each class's
// binding function (one file per class).
#ifndef SIMDBLOOM_PYTHON_MODULE_H_
#define SIMDBLOOM_PYTHON_MODULE_H_

#include <pybind11/pybind11.h>

#include <simdbloom/simdbloom.hpp>
#include <string>

namespace simdbloom_py {

namespace py = pybind11;

// simdbloom.Error(message) with .code ("invalid_argument", ...), a ValueError, and the translator
// of simdbloom::Error to it.
void BindErrors(py::module_& m);
// For an Error(kIo) of a call that opened `path`: when the path cannot be opened because it is
// missing or not permitted, raises (throws py::error_already_set) the OSError Python has for that
// (FileNotFoundError, PermissionError, with errno and the path), also a simdbloom.Error of code
// 'io'; otherwise returns, and the caller rethrows `e`.
void RaiseIfOsError(const simdbloom::Error& e, const std::string& path);

// A count argument (n, initial_capacity): an int or NumPy integer as uint64_t would take, but not a
// bool (Filter(True, 0.01) was a filter for one key): TypeError.
struct Count {
  uint64_t value = 0;
};

// The member of enum E that `h` names: a member of the bound enum (Python name `type`), or its
// name (str). `what` names the parameter in errors; names(e) is the library's name of e, `values`
// every member. TypeError for other types, ValueError for an unknown name (listing the known
// ones).
template <class E, class Values, class Name>
E EnumFrom(py::handle h, const char* what, const char* type, const Values& values, Name&& names) {
  if (py::isinstance<E>(h)) return h.cast<E>();
  if (py::isinstance<py::str>(h)) {
    const std::string name = h.cast<std::string>();
    std::string known;
    for (E e : values) {
      if (name == names(e)) return e;
      known += (known.empty() ? "" : ", ") + std::string(names(e));
    }
    throw py::value_error("unknown " + std::string(what) + " '" + name + "' (known: " + known +
                          ")");
  }
  throw py::type_error(std::string(what) + " must be a simdbloom." + type + " or its name (str)");
}

// A Layout given as simdbloom.Layout or its name.
simdbloom::Layout LayoutFrom(py::handle h);

// What size_for and counting_size_for return: {size_name: size, 'num_hashes': k,
// 'predicted_fpp': predicted_fpp}.
py::dict SizingDict(const char* size_name, uint64_t size, uint32_t k, double predicted_fpp);

void BindFilter(py::module_& m);
void BindFilterSet(py::module_& m);
void BindCounting(py::module_& m);
void BindScalable(py::module_& m);
void BindSpatial(py::module_& m);
void BindShifting(py::module_& m);

}  // namespace simdbloom_py

namespace pybind11 {
namespace detail {
template <>
struct type_caster<simdbloom_py::Count> {
  PYBIND11_TYPE_CASTER(simdbloom_py::Count, const_name("int"));
  bool load(handle src, bool convert) {
    if (PyBool_Check(src.ptr())) {
      throw type_error("a count must be an int, not bool (True is not 1 key)");
    }
    make_caster<uint64_t> inner;
    if (!inner.load(src, convert)) return false;
    value.value = cast_op<uint64_t>(inner);
    return true;
  }
  static handle cast(simdbloom_py::Count c, return_value_policy, handle) {
    return PyLong_FromUnsignedLongLong(c.value);
  }
};
}  // namespace detail
}  // namespace pybind11

#endif  // SIMDBLOOM_PYTHON_MODULE_H_
