// SPDX-License-Identifier: Apache-2.0
// simdbloom._core: what the module's files share besides keys (keys.h), objects (locked_filter.h)
// and persistence (persist.h): the exception, enums given as members or names, and each class's
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

// A constructor's numeric argument (n, fpp, seed, num_areas, ...) as given: its caster takes
// any object (the signature says int/float), so a bad value reaches IntOf/FloatOf, which name the
// argument and the value, instead of pybind11's "incompatible constructor arguments".
struct IntArg {
  py::object obj;
};
struct FloatArg {
  py::object obj;
};
// The integer `a` stands for, in [lo, hi]: an int, a NumPy integer (operator.index) or a float
// with an integral value (1e6), never a bool. TypeError ("<who>: <name> must be an int, got 1.5")
// or simdbloom.Error, a ValueError of code invalid_argument ("<who>: <name> = -1 is outside
// 1..2**64 - 1") otherwise.
uint64_t IntOf(const IntArg& a, const char* who, const char* name, uint64_t lo = 0,
               uint64_t hi = UINT64_MAX);
// The real number `a` stands for: an int, a float, a NumPy number (never a bool or a str);
// TypeError naming the argument and the value otherwise. The library checks its range.
double FloatOf(const FloatArg& a, const char* who, const char* name);

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
// IntArg and FloatArg: the Python object passed through unconverted (IntOf and FloatOf check
// it), shown as `pyname` in signatures.
#define SIMDBLOOM_PY_ARG_CASTER(Arg, pyname)                                                  \
  template <>                                                                                 \
  struct type_caster<Arg> {                                                                   \
    PYBIND11_TYPE_CASTER(Arg, const_name(pyname));                                            \
    bool load(handle src, bool) {                                                             \
      value.obj = reinterpret_borrow<object>(src);                                            \
      return true;                                                                            \
    }                                                                                         \
    static handle cast(const Arg& a, return_value_policy, handle) { return a.obj.inc_ref(); } \
  };
SIMDBLOOM_PY_ARG_CASTER(simdbloom_py::IntArg, "int")
SIMDBLOOM_PY_ARG_CASTER(simdbloom_py::FloatArg, "float")
#undef SIMDBLOOM_PY_ARG_CASTER
}  // namespace detail
}  // namespace pybind11

#endif  // SIMDBLOOM_PYTHON_MODULE_H_
