// SPDX-License-Identifier: Apache-2.0
// simdbloom._core: the pybind11 module. A thin layer over the C++ library: keys arrive as NumPy
// arrays (read in place), sequences of bytes/str (read in place through string views), any
// iterable (in chunks) or single keys, and go to the library's bulk or single-key calls; results
// are NumPy arrays written by the library. The files by job: keys.{h,cc} (Python keys as the
// library's), guarded.{h,cc} (objects, locks, the GIL), persist.{h,cc} (bytes, files, pickling),
// membership.h and setops.h (calls several classes share), errors.cc, and one file per class
// (filter.cc, counting.cc, scalable.cc, spatial.cc, shifting.cc).
#include "module.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <simdbloom/simdbloom.hpp>
#include <vector>

#include "keys.h"

namespace simdbloom_py {

simdbloom::Layout LayoutFrom(py::handle h) {
  return EnumFrom<simdbloom::Layout>(h, "layout", "Layout", simdbloom::layouts(),
                                     simdbloom::layout_name);
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

Keys: a Python int is an 8-byte key (uint64; a negative int is its int64 two's complement);
a NumPy integer scalar or array element is a key of its own width (uint32/int32: 4 bytes,
uint64/int64: 8 bytes, uint16/int16: 2 bytes; signed and unsigned of one width hash alike);
bytes are their bytes, str its UTF-8 bytes. So insert(7) and contains(numpy.uint32(7)) are
different keys, exactly as in C++.

Batches (bulk calls): 1-D contiguous NumPy arrays of those integer dtypes (read in place, never
copied), NumPy 'S' arrays (in place, trailing NULs dropped as NumPy does), 'U' arrays (encoded
to UTF-8: a copy), lists/tuples/object arrays of ints (copied into a uint64 buffer) or of
bytes/str (read in place), Binary (Arrow's offsets and data), pandas Series
(numpy.asarray(series)). A pandas nullable batch (Int16..UInt64 arrays, Series, Index) is the
keys of its NumPy dtype (Int32: int32, 4 bytes): its nulls are skipped by insert and get 0/False
from queries. A non-contiguous array or a dtype that is not a key raises; nothing is converted
silently. update() takes any iterable (generators, sets, ...) in chunks of 65536 keys.
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
  sp::BindCounting(m);
  sp::BindScalable(m);
  sp::BindSpatial(m);
  sp::BindShifting(m);
}
