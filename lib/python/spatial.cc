// SPDX-License-Identifier: Apache-2.0
// simdbloom._core: simdbloom.SpatialFilter (simdbloom::SpatialFilter): which area holds a key.
#include <cstring>
#include <simdbloom/spatial.hpp>
#include <string>

#include "key_values.h"
#include "module.h"
#include "persist.h"

namespace simdbloom_py {

using simdbloom::SpatialFilter;

template <>
struct Kind<SpatialFilter> : Persisted<SpatialFilter> {
  using Value = uint16_t;
  using Answer = uint16_t;
  static constexpr const char* kName = "SpatialFilter";
  static constexpr const char* kValue = "label";
  static constexpr const char* kAnswer = "classify";
  static constexpr const char* kInsertDoc =
      R"doc(Inserts one key or a batch into area `label` (1..num_areas): each key's k cells keep the
largest label written. Areas go in ascending label order, as the paper requires: any number of
calls with one label, then the next; a label below current_label raises simdbloom.Error
(invalid_argument) and changes nothing. Returns the number of cells raised. A null of a pandas
nullable batch is skipped. Cost: O(k) per key, about one cache miss per key out of cache; the
GIL released for batches.)doc";
  static constexpr const char* kAnswerDoc =
      R"doc(One key: its area, the smallest of its k cells (0: in no area). A key of area a gets a,
or with probability apriori_isep a higher label; a key in no area gets 0, or a label with
probability apriori_fpp of that label (stats()). A batch: a uint16 array of labels (`out`: a
uint16 array to write instead; a null gets 0), without the GIL. Cost: O(k) per key, about one
cache miss per key out of cache; no allocation but the result.)doc";
  template <class K>
  static uint64_t Insert(SpatialFilter& f, const K& keys, uint16_t label) {
    return f.insert(label, keys);
  }
  template <class K>
  static uint16_t AnswerOne(const SpatialFilter& f, K key) {
    return f.classify(key);
  }
  static void AnswerBulk(const SpatialFilter& f, const Keys& k, uint16_t* out) {
    f.classify(k, out);
  }
  static bool Equal(const SpatialFilter& a, const SpatialFilter& b) {
    return a.num_areas() == b.num_areas() && a.num_hashes() == b.num_hashes() &&
           a.num_blocks() == b.num_blocks() && a.seed() == b.seed() &&
           KeyTypesMatch(a.key_type(), b.key_type()) &&
           std::memcmp(a.data(), b.data(), a.size_bytes()) == 0;
  }
  // Keys inserted, all areas, repeats included. O(num_areas).
  static uint64_t Members(const SpatialFilter& f) {
    uint64_t n = 0;
    for (uint32_t a = 1; a <= f.num_areas(); ++a) n += f.members(static_cast<uint16_t>(a));
    return n;
  }
};

namespace {

using G = LockedFilter<SpatialFilter>;

Ptr<SpatialFilter> Create(IntArg n_arg, FloatArg fpp_arg, IntArg areas_arg, IntArg seed_arg,
                          py::object key_type) {
  return CreateWith<SpatialFilter>("num_areas", 65535, n_arg, fpp_arg, areas_arg, seed_arg,
                                   key_type);
}

constexpr const char kCreateDoc[] =
    "An empty spatial filter for `n` keys in all of at most `num_areas` (1..65535) areas, sized "
    "so that a key in no area gets a label with probability at most `fpp`. Cells of 1 byte (up "
    "to 255 areas) or 2. `key_type`: what it holds (as Filter's). Raises simdbloom.Error "
    "(invalid_argument). Cost: one zeroed allocation "
    "of size_bytes, GIL released.";

// Fraction of cells holding a label. O(size_bytes).
double CellFill(const SpatialFilter& f) {
  const uint8_t* p = f.data();
  uint64_t used = 0;
  if (f.cell_bytes() == 1) {
    for (size_t i = 0; i < f.size_bytes(); ++i) used += p[i] != 0;
  } else {
    for (size_t i = 0; i < f.size_bytes(); i += 2) used += (p[i] | p[i + 1]) != 0;
  }
  return static_cast<double>(used) / static_cast<double>(f.num_cells());
}

// A name as the library keeps it: str as UTF-8 (lone surrogates as their bytes, so any bytes read
// back by area_name() set again unchanged), bytes as they are.
std::string NameBytes(py::handle name) {
  if (PyUnicode_Check(name.ptr())) {
    return py::reinterpret_borrow<py::str>(name)
        .attr("encode")("utf-8", "surrogateescape")
        .cast<std::string>();
  }
  if (PyBytes_Check(name.ptr())) return name.cast<std::string>();
  throw py::type_error("an area name is a str or bytes");
}

py::str NameStr(std::string_view name) {
  return py::reinterpret_steal<py::str>(
      PyUnicode_DecodeUTF8(name.data(), static_cast<Py_ssize_t>(name.size()), "surrogateescape"));
}

py::dict Stats(const G& self, bool measure) {
  std::optional<simdbloom::SpatialStats> s;
  std::vector<std::string> names;
  Reading(self, [&](const SpatialFilter& f) {
    s.emplace(f.stats(measure));
    for (uint32_t a = 1; a <= f.num_areas(); ++a) {
      names.emplace_back(f.area_name(static_cast<uint16_t>(a)));
    }
  });
  py::dict d;
  d["num_areas"] = self.obj.num_areas();
  d["num_cells"] = s->num_cells;
  d["cell_bytes"] = s->cell_bytes;
  d["num_hashes"] = s->k;
  d["seed"] = self.obj.seed();
  d["members"] = s->members;
  d["apriori_fpp"] = s->apriori_fpp;
  d["measured"] = s->measured;
  d["sparsity"] = s->sparsity;
  d["fpp"] = s->fpp;
  py::list areas;
  for (const simdbloom::SpatialAreaStats& a : s->areas) {
    py::dict e;
    e["label"] = a.label;
    e["name"] = NameStr(names[a.label - 1]);
    e["members"] = a.members;
    e["expected_emersion"] = a.expected_emersion;
    e["apriori_fpp"] = a.apriori_fpp;
    e["apriori_isep"] = a.apriori_isep;
    e["expected_cells"] = a.expected_cells;
    e["cells_written"] = a.cells_written;
    e["cells"] = a.cells;
    e["emersion"] = a.emersion;
    e["fpp"] = a.fpp;
    areas.append(e);
  }
  d["areas"] = areas;
  return d;
}

}  // namespace

void BindSpatial(py::module_& m) {
  py::class_<G> cls(
      m, "SpatialFilter",
      R"doc(A spatial Bloom filter: SpatialFilter(n, fpp, num_areas, seed=0, key_type=None).

Keys of up to 65535 disjoint sets ("areas", labels 1..num_areas) in one array of small cells
(Calderoni, Palmieri, Maio, 2015): classify(key) answers which area a key is in (0: none), with
the paper's a-priori error probabilities per area in stats(). Insert area by area in ascending
label order: insert(keys, label), add(key, label), update(iterable, label). `key in f` is
classify(key) != 0; len() the keys inserted (repeats included).

Thread-safety as Filter: queries run concurrently, inserts alone (the GIL released by bulk
calls).)doc");
  BindCreate(cls, &Create, py::arg("n"), py::arg("fpp"), py::arg("num_areas"), py::arg("seed") = 0,
             py::arg("key_type") = py::none(), kCreateDoc);
  cls.def_static(
      "with_blocks",
      [](uint64_t blocks, uint32_t k, uint32_t num_areas, uint64_t seed, py::object key_type) {
        const KeyType t = KeyTypeArg(key_type);
        return Wrap(
            WithoutGil([&] { return SpatialFilter::with_blocks(blocks, k, num_areas, seed, t); }));
      },
      py::arg("num_blocks"), py::arg("num_hashes"), py::arg("num_areas"), py::arg("seed") = 0,
      py::arg("key_type") = py::none(),
      "An empty spatial filter of `num_blocks` blocks of 64 cells and `num_hashes` (1..8) "
      "cells per key. Cost: one zeroed allocation.");
  BindValued(cls);
  BindCommon(cls);
  BindClear(
      cls,
      [](SpatialFilter& f) {
        SpatialFilter empty = SpatialFilter::with_blocks(f.num_blocks(), f.num_hashes(),
                                                         f.num_areas(), f.seed(), f.key_type());
        for (uint32_t a = 1; f.has_area_names() && a <= f.num_areas(); ++a) {
          const auto label = static_cast<uint16_t>(a);
          if (!f.area_name(label).empty()) empty.set_area_name(label, f.area_name(label));
        }
        f = std::move(empty);
      },
      "Empties every cell and area (current_label 0; key_type and the area names are kept): "
      "the filter as created. Cost: a new zeroed allocation of size_bytes.");
  cls.def(
         "set_area_name",
         [](G& self, int64_t label, py::handle name) {
           const std::string bytes = NameBytes(name);
           const uint16_t l = ValueFrom<uint16_t>(label, "set_area_name", "label");
           Writing(self, [&](SpatialFilter& f) { f.set_area_name(l, bytes); });
         },
         py::arg("label"), py::arg("name"),
         "Names area `label` (1..num_areas): a str (UTF-8) or bytes of at most 65535 bytes; "
         "'' removes the name. Names are saved with the filter (format version 2) and take no "
         "part in insert or classify. Raises simdbloom.Error (invalid_argument). O(name size).")
      .def(
          "area_name",
          [](const G& self, int64_t label) {
            std::string name;
            {
              auto lock = LockWithGil<SharedLock>(self.mu);
              name = self.obj.area_name(ValueFrom<uint16_t>(label, "area_name", "label"));
            }
            return NameStr(name);
          },
          py::arg("label"),
          "The name of area `label` as a str ('' if it has none, and outside 1..num_areas; bytes "
          "that are not UTF-8 as surrogate escapes, which set_area_name takes back). O(name "
          "size).")
      .def("__bool__", Locked<SpatialFilter>([](const SpatialFilter& f) {
             // Labels go in ascending order: keys only up to current_label(), the newest first.
             for (uint32_t a = f.current_label(); a >= 1; --a) {
               if (f.members(static_cast<uint16_t>(a)) != 0) return true;
             }
             return false;
           }),
           "Whether any key was inserted. O(1) once a key is in the current area (at most "
           "O(current_label)), never a scan of the cells.")
      .def("__len__", Locked<SpatialFilter>(&Kind<SpatialFilter>::Members),
           "Keys inserted, all areas, repeats included. O(num_areas).")
      .def(
          "members",
          [](const G& self, int64_t label) {
            auto lock = LockWithGil<SharedLock>(self.mu);
            return self.obj.members(ValueFrom<uint16_t>(label, "members", "label"));
          },
          py::arg("label"),
          "Keys inserted with `label` (repeats included); 0 outside 1..num_areas.")
      .def("fill_ratio", Scan<SpatialFilter>(&CellFill),
           "Fraction of cells holding a label. O(size_bytes).")
      .def(
          "predicted_fpp", [](const G& self, uint64_t n) { return self.obj.predicted_fpp(n); },
          py::arg("n"),
          "Probability that a key in no area gets a label after n keys in all. A sum of a few "
          "exp() terms (tables built at the first call), no allocation after it.")
      .def("stats", &Stats, py::arg("measure") = false,
           R"doc(A dict: num_areas, num_cells, cell_bytes, num_hashes, seed, members, apriori_fpp
(a key in no area gets a label), measured, sparsity, fpp, and 'areas': per label 1..num_areas a dict
of label, name, members, cells_written and the paper's a-priori expected_emersion, apriori_fpp (a
key in no area gets this label), apriori_isep (a key of this area gets a higher one), expected_cells; with
measure=True also the measured cells, emersion and fpp per area and sparsity/fpp overall (else 0).
Cost: O(num_areas) formulas; measure: one pass over the cells, GIL released.)doc")
      .def_property_readonly("current_label", Locked<SpatialFilter>(&SpatialFilter::current_label))
      .def("__repr__", [](const G& self) {
        uint64_t members = 0;
        const double fill = Reading(self, [&](const SpatialFilter& f) {
          members = Kind<SpatialFilter>::Members(f);
          return CellFill(f);
        });
        const SpatialFilter& f = self.obj;
        return Repr("SpatialFilter", {{"num_areas", std::to_string(f.num_areas())},
                                      {"cells", std::to_string(f.num_cells())},
                                      {"cell_bytes", std::to_string(f.cell_bytes())},
                                      {"num_hashes", std::to_string(f.num_hashes())},
                                      {"seed", std::to_string(f.seed())},
                                      {"fill", FormatDouble(fill)},
                                      {"members", std::to_string(members)}});
      });
  BindParams<SpatialFilter>(cls, "num_areas", &SpatialFilter::num_areas, "num_hashes",
                            &SpatialFilter::num_hashes, "num_blocks", &SpatialFilter::num_blocks,
                            "num_cells", &SpatialFilter::num_cells, "cell_bytes",
                            &SpatialFilter::cell_bytes, "size_bytes", &SpatialFilter::size_bytes,
                            "seed", &SpatialFilter::seed);
}

}  // namespace simdbloom_py
