// SPDX-License-Identifier: Apache-2.0
// simdbloom._core: a method called on an object whose __init__ never ran raises TypeError.
// pybind11 (2.10) lets Python make such an object (`Filter.__new__(Filter)`; a subclass whose
// __init__ skips the base's is refused when it is made) and, when a method takes it as `T&`, hands
// the method fresh uninitialised storage that it allocates on the spot: the library then read
// garbage as a filter.
// SIMDBLOOM_PY_INIT_CHECKED(T) makes every binding that takes a T (self or an argument) check first
// that T's holder was constructed. Cost: one type lookup (cached) and one flag test per call.
#ifndef SIMDBLOOM_PYTHON_INIT_CHECKED_H_
#define SIMDBLOOM_PYTHON_INIT_CHECKED_H_

#include <pybind11/pybind11.h>

#include <string>
#include <typeinfo>

namespace simdbloom_py {

// type_caster_base<T> with a check before it loads an instance of T's class (or a subclass).
template <class T>
class InitCheckedCaster : public pybind11::detail::type_caster_base<T> {
 public:
  bool load(pybind11::handle src, bool convert) {
    static const pybind11::detail::type_info* const info =
        pybind11::detail::get_type_info(typeid(T));
    if (info != nullptr && src && PyObject_TypeCheck(src.ptr(), info->type)) {
      auto* inst = reinterpret_cast<pybind11::detail::instance*>(src.ptr());
      if (!inst->get_value_and_holder(info).holder_constructed()) {
        throw pybind11::type_error(std::string(Py_TYPE(src.ptr())->tp_name) +
                                   ": this object was never initialized (made by __new__ "
                                   "without __init__)");
      }
    }
    return pybind11::detail::type_caster_base<T>::load(src, convert);
  }
};

}  // namespace simdbloom_py

// Declares the checked caster for the bound class T, at namespace scope, right after T's
// definition and before any binding uses it (every file that binds T must see it: one
// definition).
#define SIMDBLOOM_PY_INIT_CHECKED(T)                                     \
  namespace pybind11::detail {                                           \
  template <>                                                            \
  class type_caster<T> : public ::simdbloom_py::InitCheckedCaster<T> {}; \
  }                                                                      \
  static_assert(true, "")

#endif  // SIMDBLOOM_PYTHON_INIT_CHECKED_H_
