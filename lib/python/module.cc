// SPDX-License-Identifier: Apache-2.0
// simdbloom._core: the pybind11 module. A thin layer over the C++ library: keys arrive as NumPy
// arrays (read in place), sequences of bytes/str (read in place through string views), any
// iterable (in chunks) or single keys, and go to the library's bulk or single-key calls; results
// are NumPy arrays written by the library. The files by job: keys.{h,cc} (Python keys as the
// library's), locked_filter.{h,cc} (objects, locks, the GIL), persist.{h,cc} (bytes, files,
// pickling), membership.h and setops.h (calls several classes share), errors.cc, and one file per
// class (filter.cc, counting.cc, scalable.cc, spatial.cc, shifting.cc).
#include "module.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <simdbloom/simdbloom.hpp>
#include <string>
#include <vector>

#include "keys.h"

namespace simdbloom_py {

simdbloom::Layout LayoutFrom(py::handle h) {
  return EnumFrom<simdbloom::Layout>(h, "layout", "Layout", simdbloom::layouts(),
                                     simdbloom::layout_name);
}

namespace {

std::string ValueText(py::handle h) {
  std::string r = py::repr(h).cast<std::string>();
  if (r.size() > 40) r = r.substr(0, 37) + "...";
  return r + " (" + py::str(h.get_type().attr("__name__")).cast<std::string>() + ")";
}

std::string Bound(uint64_t v) {
  return v == UINT64_MAX ? std::string("2**64 - 1") : std::to_string(v);
}

}  // namespace

uint64_t IntOf(const IntArg& a, const char* who, const char* name, uint64_t lo, uint64_t hi) {
  PyObject* o = a.obj.ptr();
  const std::string arg = std::string(who) + ": " + name;
  if (PyBool_Check(o)) {
    throw py::type_error(arg + " must be an int, got " + ValueText(o) + " (True is not 1)");
  }
  py::object value;
  if (PyFloat_Check(o)) {
    const double d = PyFloat_AS_DOUBLE(o);
    if (!std::isfinite(d) || std::floor(d) != d) {
      throw py::type_error(arg + " must be an int, got " + ValueText(o));
    }
    value = py::reinterpret_steal<py::object>(PyLong_FromDouble(d));
  } else if (!PyUnicode_Check(o) && !PyBytes_Check(o)) {
    value = py::reinterpret_steal<py::object>(PyNumber_Index(o));
    if (!value) PyErr_Clear();
  }
  if (!value) throw py::type_error(arg + " must be an int, got " + ValueText(o));
  const std::string range = Bound(lo) + ".." + Bound(hi);
  const auto outside = [&] {  // simdbloom.Error (a ValueError), as the library's range checks
    return simdbloom::Error(
        simdbloom::ErrorCode::kInvalidArgument,
        arg + " = " + py::str(value).cast<std::string>() + " is outside " + range);
  };
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
  uint64_t u = 0;
  if (overflow < 0 || (overflow == 0 && v < 0)) throw outside();
  if (overflow == 0) {
    u = static_cast<uint64_t>(v);
  } else {
    const unsigned long long w = PyLong_AsUnsignedLongLong(value.ptr());
    if (PyErr_Occurred()) {
      PyErr_Clear();
      throw outside();
    }
    u = w;
  }
  if (u < lo || u > hi) throw outside();
  return u;
}

double FloatOf(const FloatArg& a, const char* who, const char* name) {
  PyObject* o = a.obj.ptr();
  if (PyFloat_Check(o)) return PyFloat_AS_DOUBLE(o);
  if (!PyBool_Check(o) && !PyUnicode_Check(o) && !PyBytes_Check(o) && PyNumber_Check(o)) {
    const double d = PyFloat_AsDouble(o);
    if (!(d == -1.0 && PyErr_Occurred())) return d;
    PyErr_Clear();
  }
  throw py::type_error(std::string(who) + ": " + name + " must be a number (float), got " +
                       ValueText(o));
}

py::dict SizingDict(const char* size_name, uint64_t size, uint32_t k, double predicted_fpp) {
  py::dict d;
  d[size_name] = size;
  d["num_hashes"] = k;
  d["predicted_fpp"] = predicted_fpp;
  return d;
}

namespace {

using simdbloom::Layout;

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
    case Layout::kGuava:
      return "Guava's BloomFilter (MURMUR128_MITZ_64), bit for bit: from_guava / to_guava";
    case Layout::kGuava32:
      return "Guava's older MURMUR128_MITZ_32 strategy, bit for bit";
  }
  return "a layout of the library (lib/FORMAT.md)";
}

const char kModuleDoc[] =
    R"doc(Bloom filters with SIMD bulk calls over NumPy arrays (the simdbloom C++ library).

Classes: Filter (membership; Filter(n, fpp) as rbloom's Bloom or a set), CountingFilter (4-bit
counters: remove, count), ScalableFilter (grows with its set: no n needed), SpatialFilter (which
of up to 65535 areas a key is in), ShiftingAssociation (which of two sets holds a key) and
ShiftingMultiplicity (how many times a key occurs). Every class takes the same keys, batches and
files, releases the GIL in bulk calls, scans and I/O, pickles (protocol 5 out of band) and
raises simdbloom.Error (a ValueError) with the library's message and .code.

Keys: a key is its value. 5 is one key as a Python int, a NumPy integer scalar or an element of
an integer array of any dtype (int8 to uint64) or of a pandas nullable column; within 64 bits -1
and 2**64 - 1 are one key (one two's-complement pattern); an int beyond [-2**63, 2**64) is the
key of no filter (absent; inserts raise ValueError). bytes, bytearray and memoryview are their
bytes, str its UTF-8 bytes. A filter holds integers or byte strings, never both: key_type says
which ('int64'; 'int32': 4-byte integers, declared with key_type="int32", values outside
[-2**31, 2**32) absent and refused; 'bytes'; None before the first insert; 'legacy' for files
saved before key types), and is kept by every saved form. An integer key on a 'bytes' filter, or
a byte string on an integer one, raises TypeError naming both.

Batches (bulk calls): 1-D contiguous NumPy arrays of any integer dtype (read in place, never
copied; 1-byte dtypes widened to 2 bytes), NumPy 'S' arrays (in place, trailing NULs dropped as
NumPy does), 'U' arrays (encoded to UTF-8: a copy), lists/tuples/object arrays of ints (copied
into a 64-bit buffer) or of bytes/str (read in place), Binary (Arrow's offsets and data), pandas
Series (numpy.asarray(series)). A pandas nullable batch (Int8..UInt64 arrays, Series, Index) is
its values: its nulls are skipped by insert and get 0/False from queries. A non-contiguous array
or a dtype that is not a key raises; nothing is converted silently. update() takes any iterable
(generators, sets, ...) in chunks of 65536 keys.
)doc";

}  // namespace
}  // namespace simdbloom_py

PYBIND11_MODULE(_core, m) {
  namespace sp = simdbloom_py;
  namespace py = pybind11;
  using simdbloom::Layout;
  m.doc() = sp::kModuleDoc;
  sp::BindErrors(m);

  // The members are the library's list (simdbloom::layouts(), from kernels/registry.h), named by
  // layout_name(): a layout added there is a member here without an edit.
  py::enum_<Layout> layout_enum(m, "Layout",
                                "Bit layout of a Filter (lib/FORMAT.md); the members are "
                                "layouts(), in id order.");
  for (Layout l : simdbloom::layouts()) {
    layout_enum.value(simdbloom::layout_name(l), l, sp::LayoutDoc(l));
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
        const simdbloom::Sizing s = simdbloom::size_for(n, fpp, sp::LayoutFrom(layout));
        return sp::SizingDict("bits", s.bits, s.k, s.predicted_fpp);
      },
      py::arg("n"), py::arg("fpp"), py::arg("layout") = "block512",
      "The size Filter(n, fpp, layout) would choose: {'bits', 'num_hashes', 'predicted_fpp'}. "
      "About 1 ms, no allocation.");

  sp::BindBinary(m);
  sp::BindFilter(m);
  sp::BindFilterSet(m);
  sp::BindCounting(m);
  sp::BindScalable(m);
  sp::BindSpatial(m);
  sp::BindShifting(m);
}
