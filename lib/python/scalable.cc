// SPDX-License-Identifier: Apache-2.0
// simdbloom._core: simdbloom.ScalableFilter (simdbloom::ScalableFilter): a filter that grows.
#include <cstring>
#include <simdbloom/scalable.hpp>
#include <string>

#include "membership.h"
#include "module.h"
#include "persist.h"
#include "setops.h"

namespace simdbloom_py {

using simdbloom::Filter;
using simdbloom::ScalableFilter;

template <>
struct Kind<ScalableFilter> : Persisted<ScalableFilter> {
  static constexpr const char* kName = "ScalableFilter";
  static constexpr bool kThreads = false;
  static constexpr const char* kCost =
      "inserts O(k) per key (a new stage, when one fills: size_for and a zeroed allocation about "
      "`growth` times the previous one); queries O(k) per stage queried: a present key one or "
      "two stages, an absent key every stage. No allocation but the result.";
  static bool Equal(const ScalableFilter& a, const ScalableFilter& b) {
    if (a.initial_capacity() != b.initial_capacity() || a.fpp() != b.fpp() ||
        a.growth() != b.growth() || a.tightening() != b.tightening() || a.layout() != b.layout() ||
        a.seed() != b.seed() || a.stages() != b.stages()) {
      return false;
    }
    for (size_t i = 0; i < a.stages(); ++i) {
      const Filter& x = a.stage(i);
      const Filter& y = b.stage(i);
      if (!x.compatible(y) || std::memcmp(x.data(), y.data(), x.size_bytes()) != 0) return false;
    }
    return true;
  }
  using Persisted<ScalableFilter>::Load;
  static ScalableFilter Load(const uint8_t* p, size_t n) {
    return ScalableFilter::from_bytes(p, n);
  }
  static uint64_t InsertBulk(ScalableFilter& f, const Keys& k, uint8_t* fresh, unsigned) {
    return fresh ? f.insert(k, fresh) : f.insert(k);
  }
  static void ContainsBulk(const ScalableFilter& f, const Keys& k, uint8_t* out, unsigned) {
    f.contains(k, out);
  }
  static void BitmapBulk(const ScalableFilter& f, const Keys& k, uint8_t* bitmap, unsigned) {
    f.contains_bitmap(k, bitmap);
  }
  static uint64_t SelectBulk(const ScalableFilter& f, const Keys& k, uint32_t* sel, unsigned) {
    return f.select(k, sel);
  }
};

namespace {

using G = LockedFilter<ScalableFilter>;

// The default first stage: 1024 keys (about 2 KB at 1%); later stages double.
constexpr uint64_t kDefaultCapacity = 1024;

Ptr<ScalableFilter> Create(IntArg capacity_arg, FloatArg fpp_arg, FloatArg growth,
                           FloatArg tightening, py::object layout, IntArg seed,
                           py::object key_type) {
  const char* who = "ScalableFilter";
  const uint64_t initial_capacity = IntOf(capacity_arg, who, "initial_capacity", 1);
  const double fpp = FloatOf(fpp_arg, who, "fpp");
  simdbloom::ScalableOptions options;
  options.growth = FloatOf(growth, who, "growth");
  options.tightening = FloatOf(tightening, who, "tightening");
  options.layout = LayoutFrom(layout);
  options.seed = IntOf(seed, who, "seed");
  options.key_type = KeyTypeArg(key_type);
  return Wrap(WithoutGil([&] { return ScalableFilter::create(initial_capacity, fpp, options); }));
}

constexpr const char kCreateDoc[] =
    "An empty scalable filter: no number of keys needed. A chain of Filter stages, stage i "
    "holding up to initial_capacity * growth**i keys at rate fpp * (1 - tightening) * "
    "tightening**i, so the whole chain stays at or below `fpp` however many keys arrive (as "
    "pybloom-live's ScalableBloomFilter(initial_capacity, error_rate)). `layout`, `seed`: every "
    "stage's. `key_type`: what it holds (as Filter's). Raises simdbloom.Error (invalid_argument: "
    "initial_capacity 0, fpp outside (0, 1), "
    "growth outside [1, 16], tightening outside (0, 1)). Cost: ~1 ms of sizing and one zeroed "
    "allocation of the first stage.";

py::dict Stats(const G& self) {
  struct Stage {
    uint64_t bits, capacity, count;
    uint32_t k;
    double fpp, fill;
  };
  std::vector<Stage> stages;
  uint64_t count = 0;
  size_t bytes = 0;
  double expected = 0, approx = 0, per_key = 0;
  Reading(self, [&](const ScalableFilter& f) {
    for (size_t i = 0; i < f.stages(); ++i) {
      const Filter& s = f.stage(i);
      stages.push_back({s.bit_count(), f.stage_capacity(i), f.stage_count(i), s.num_hashes(),
                        f.stage_fpp(i), s.fill_ratio()});
    }
    count = f.count();
    bytes = f.size_bytes();
    expected = f.expected_fpp();
    approx = f.approximate_count();
    per_key = f.bits_per_key();
  });
  const ScalableFilter& f = self.obj;
  py::dict d;
  d["layout"] = simdbloom::layout_name(f.layout());
  d["initial_capacity"] = f.initial_capacity();
  d["fpp"] = f.fpp();
  d["growth"] = f.growth();
  d["tightening"] = f.tightening();
  d["seed"] = f.seed();
  d["count"] = count;
  d["size_bytes"] = bytes;
  d["bits_per_key"] = per_key;
  d["approximate_count"] = approx;
  d["expected_fpp"] = expected;
  py::list list;
  for (const Stage& s : stages) {
    py::dict e;
    e["bits"] = s.bits;
    e["num_hashes"] = s.k;
    e["capacity"] = s.capacity;
    e["count"] = s.count;
    e["fpp"] = s.fpp;
    e["fill_ratio"] = s.fill;
    list.append(e);
  }
  d["stages"] = list;
  return d;
}

}  // namespace

void BindScalable(py::module_& m) {
  py::class_<G> cls(
      m, "ScalableFilter",
      R"doc(A scalable Bloom filter: ScalableFilter(initial_capacity=1024, fpp=0.01, growth=2.0, tightening=0.85, layout="block512", seed=0, key_type=None).

Grows with its set (Almeida et al., "Scalable Bloom Filters", 2007): no number of keys is needed
up front, and the false-positive rate stays at or below fpp. The set-like and bulk calls of
Filter: add, update, `in`, insert, contains, select, ...; len() is the number of distinct keys
counted at insert (keys that set a clear bit in their stage). merge (|, |=) only where it keeps
the rate bound (can_merge: the same parameters, and every stage's counts adding up to at most its
capacity). stats() describes every stage.

Thread-safety as Filter: queries run concurrently, inserts alone (the GIL released by bulk
calls).)doc");
  BindCreate(cls, &Create, py::arg("initial_capacity") = kDefaultCapacity, py::arg("fpp") = 0.01,
             py::arg("growth") = 2.0, py::arg("tightening") = 0.85, py::arg("layout") = "block512",
             py::arg("seed") = 0, py::arg("key_type") = py::none(), kCreateDoc);
  BindMembership(cls);
  BindCommon(cls);
  BindSetOp(
      cls, "merge", "__or__", "__ior__",
      [](ScalableFilter& a, const ScalableFilter& b) { a.merge(b); },
      "Union in place, stage by stage (also s |= t, and s | t into a new filter), only where it "
      "keeps the rate bound: the same parameters, and for every stage the two counts adding up "
      "to at most its capacity (in practice: chains of one stage whose keys fit it). Raises "
      "simdbloom.Error (incompatible) naming the parameter or stage. O(size_bytes), GIL "
      "released.");
  BindClear(
      cls, [](ScalableFilter& f) { f.clear(); },
      "Drops every stage but the first and clears it (key_type is kept): the chain as created. "
      "O(first stage's size).");
  cls.def(
         "can_merge",
         [](const G& self, const G& other) {
           return ReadingPair(self, other, [](const ScalableFilter& a, const ScalableFilter& b) {
             return a.can_merge(b);
           });
         },
         py::arg("other"), "Whether merge(other) would succeed. O(stages).")
      .def("__bool__", Locked<ScalableFilter>([](const ScalableFilter& f) {
             for (size_t i = 0; i < f.stages(); ++i) {
               if (f.stage(i).inserted_count() != 0) return true;
             }
             return false;
           }),
           "Whether anything was inserted (or merged in): a stage with an insert. O(stages), "
           "never a scan of the bits.")
      .def("__len__", Locked<ScalableFilter>(&ScalableFilter::count),
           "Distinct keys counted at insert: the keys that set a clear bit in their stage (a "
           "repeat, or a false positive of the newest stage, is not counted). O(stages).")
      .def("approximate_count", Scan<ScalableFilter>(&ScalableFilter::approximate_count),
           "Estimated distinct keys from the stages' bits. O(size_bytes).")
      .def("expected_fpp", Scan<ScalableFilter>(&ScalableFilter::expected_fpp),
           "False-positive rate of the chain's bits for a random absent key. O(size_bytes).")
      .def("bits_per_key", Locked<ScalableFilter>(&ScalableFilter::bits_per_key),
           "8 * size_bytes / len() (0 when empty). O(stages).")
      .def(
          "stage",
          [](const G& self, size_t i) {
            std::optional<Filter> copy;
            Reading(self, [&](const ScalableFilter& f) { copy.emplace(f.stage(i)); });
            return Wrap(std::move(*copy));
          },
          py::arg("i"),
          "A copy of stage i (0 = the oldest, smallest) as a Filter. Raises simdbloom.Error "
          "(invalid_argument) for i >= stages. O(stage size): one allocation and copy.")
      .def("stage_capacity", Locked<ScalableFilter, size_t>(&ScalableFilter::stage_capacity),
           py::arg("i"), "Keys stage i holds at its design rate (any i < 64). O(i).")
      .def("stage_count", Locked<ScalableFilter, size_t>(&ScalableFilter::stage_count),
           py::arg("i"), "Keys counted in stage i (i < stages). O(1).")
      .def(
          "stage_fpp", [](const G& self, size_t i) { return self.obj.stage_fpp(i); }, py::arg("i"),
          "The rate stage i is sized for: fpp * (1 - r) * r**i. O(i).")
      .def("stats", &Stats,
           "A dict: layout, initial_capacity, fpp, growth, tightening, seed, count, size_bytes, "
           "bits_per_key, approximate_count, expected_fpp, and 'stages': a dict per stage "
           "(bits, num_hashes, capacity, count, fpp, fill_ratio). O(size_bytes), GIL released.")
      .def_property_readonly("stages", Locked<ScalableFilter>(&ScalableFilter::stages))
      .def_property_readonly("size_bytes", Locked<ScalableFilter>(&ScalableFilter::size_bytes))
      .def_property_readonly("bit_count", Locked<ScalableFilter>([](const ScalableFilter& f) {
                               return 8 * uint64_t{f.size_bytes()};
                             }))
      .def("__repr__", [](const G& self) {
        uint64_t bits = 0, count = 0;
        size_t stages = 0;
        double set = 0;
        std::string ks;  // each stage's k
        Reading(self, [&](const ScalableFilter& f) {
          for (size_t i = 0; i < f.stages(); ++i) {
            set += f.stage(i).fill_ratio() * static_cast<double>(f.stage(i).bit_count());
            bits += f.stage(i).bit_count();
            ks += (i ? ", " : "") + std::to_string(f.stage(i).num_hashes());
          }
          stages = f.stages();
          count = f.count();
        });
        const ScalableFilter& f = self.obj;
        return Repr("ScalableFilter",
                    {{"layout", simdbloom::layout_name(f.layout())},
                     {"stages", std::to_string(stages)},
                     {"bits", std::to_string(bits)},
                     {"num_hashes", "[" + ks + "]"},
                     {"fpp", FormatDouble(f.fpp())},
                     {"fill", FormatDouble(bits ? set / static_cast<double>(bits) : 0.0)},
                     {"count", std::to_string(count)}});
      });
  BindParams<ScalableFilter>(cls, "initial_capacity", &ScalableFilter::initial_capacity, "fpp",
                             &ScalableFilter::fpp, "growth", &ScalableFilter::growth, "tightening",
                             &ScalableFilter::tightening, "layout", &ScalableFilter::layout, "seed",
                             &ScalableFilter::seed);
}

}  // namespace simdbloom_py
