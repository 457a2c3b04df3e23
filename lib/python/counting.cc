// SPDX-License-Identifier: Apache-2.0
// simdbloom._core: simdbloom.CountingFilter (simdbloom::CountingFilter): a filter that deletes.
#include <cstring>
#include <simdbloom/counting.hpp>
#include <string>

#include "membership.h"
#include "module.h"
#include "persist.h"
#include "setops.h"

namespace simdbloom_py {

using simdbloom::CountingFilter;
using simdbloom::CountingLayout;

template <>
struct Kind<CountingFilter> : Persisted<CountingFilter> {
  static constexpr const char* kName = "CountingFilter";
  static constexpr bool kThreads = false;
  static constexpr const char* kCost =
      "O(k) per key, no allocation but the result; out of cache one cache line per key "
      "(blocked) or k (classic).";
  using Persisted<CountingFilter>::Load;
  // The library's stream load stops after the counters; a byte after them is a format error here,
  // as in the other classes' stream loads (and the file load of a path).
  static CountingFilter Load(std::istream& in) {
    CountingFilter f = CountingFilter::load(in);
    if (in.peek() != std::char_traits<char>::eof()) {
      throw simdbloom::Error(simdbloom::ErrorCode::kFormat,
                             "not a valid counting filter: trailing bytes after the counters");
    }
    return f;
  }
  static uint64_t InsertBulk(CountingFilter& f, const Keys& k, uint8_t* fresh, unsigned) {
    return f.insert(k, fresh);
  }
  static void ContainsBulk(const CountingFilter& f, const Keys& k, uint8_t* out, unsigned) {
    f.contains(k, out);
  }
  static void BitmapBulk(const CountingFilter& f, const Keys& k, uint8_t* bitmap, unsigned) {
    f.contains_bitmap(k, bitmap);
  }
  static uint64_t SelectBulk(const CountingFilter& f, const Keys& k, uint32_t* sel, unsigned) {
    return f.select(k, sel);
  }
  // Every counter of a at most b's (a multiset inclusion).
  static bool Subset(const CountingFilter& a, const CountingFilter& b) {
    if (!a.compatible(b)) {
      throw simdbloom::Error(simdbloom::ErrorCode::kIncompatible,
                             "issubset: the counting filters differ in layout, counters, k or "
                             "seed");
    }
    const uint8_t* x = a.data();
    const uint8_t* y = b.data();
    for (size_t i = 0; i < a.size_bytes(); ++i) {
      if ((x[i] & 0x0F) > (y[i] & 0x0F) || (x[i] >> 4) > (y[i] >> 4)) return false;
    }
    return true;
  }
};

namespace {

using G = LockedFilter<CountingFilter>;
constexpr CountingLayout kCountingLayouts[] = {CountingLayout::kBlocked, CountingLayout::kClassic};

// The default layout's name, as the library names it.
const char* const kDefaultLayout = simdbloom::counting_layout_name(CountingLayout::kBlocked);

CountingLayout CountingLayoutFrom(py::handle h) {
  return EnumFrom<CountingLayout>(h, "layout", "CountingLayout", kCountingLayouts,
                                  simdbloom::counting_layout_name);
}

// Fraction of counters above 0: each nibble folded onto its low bit, counted. O(size_bytes).
double NonZeroFraction(const CountingFilter& f) {
  const uint8_t* p = f.data();
  uint64_t nonzero = 0;
  for (size_t i = 0; i < f.size_bytes(); i += 8) {  // 64-byte blocks: whole words
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    w |= w >> 1;
    w |= w >> 2;
    nonzero += static_cast<uint64_t>(__builtin_popcountll(w & 0x1111111111111111ULL));
  }
  return static_cast<double>(nonzero) / static_cast<double>(f.counter_count());
}

Ptr<CountingFilter> Create(IntArg n_arg, FloatArg fpp_arg, py::object layout, IntArg seed_arg,
                           py::object key_type) {
  const uint64_t n = IntOf(n_arg, "CountingFilter", "n", 1);
  const double fpp = FloatOf(fpp_arg, "CountingFilter", "fpp");
  const uint64_t seed = IntOf(seed_arg, "CountingFilter", "seed");
  const CountingLayout l = CountingLayoutFrom(layout);
  const KeyType t = KeyTypeArg(key_type);
  return Wrap(WithoutGil([&] { return CountingFilter::create(n, fpp, l, seed, t); }));
}

constexpr const char kCreateDoc[] =
    "An empty counting filter sized for `n` keys present at once at false-positive rate `fpp` "
    "(counting_size_for): 4-bit counters in place of bits. `layout`: 'blocked' (one cache line "
    "per key; to_filter() is register64) or 'classic' (fewest counters; to_filter() is classic), "
    "a CountingLayout or its name. `key_type`: what it holds (as Filter's). Raises simdbloom.Error "
    "(invalid_argument). Cost: ~1 ms of "
    "sizing and one zeroed allocation of counters / 2 bytes, GIL released.";

py::dict Stats(const G& self) {
  uint64_t size = 0, saturated = 0;
  double fill = 0;
  Reading(self, [&](const CountingFilter& f) {
    size = f.size();
    saturated = f.saturated_count();
    fill = NonZeroFraction(f);
  });
  const CountingFilter& f = self.obj;
  py::dict d;
  d["layout"] = simdbloom::counting_layout_name(f.layout());
  d["plain_layout"] = simdbloom::layout_name(f.plain_layout());
  d["counters"] = f.counter_count();
  d["size_bytes"] = f.size_bytes();
  d["num_blocks"] = f.num_blocks();
  d["num_hashes"] = f.num_hashes();
  d["seed"] = f.seed();
  d["size"] = size;
  d["saturated"] = saturated;
  d["fill_ratio"] = fill;
  d["predicted_fpp"] = f.predicted_fpp(size);
  d["is_view"] = f.is_view();
  return d;
}

}  // namespace

void BindCounting(py::module_& m) {
  m.def(
      "counting_size_for",
      [](uint64_t n, double fpp, py::object layout) {
        const simdbloom::CountingSizing s =
            simdbloom::counting_size_for(n, fpp, CountingLayoutFrom(layout));
        return SizingDict("counters", s.counters, s.k, s.predicted_fpp);
      },
      py::arg("n"), py::arg("fpp"), py::arg("layout") = kDefaultLayout,
      "The size CountingFilter(n, fpp, layout) would choose: {'counters', 'num_hashes', "
      "'predicted_fpp'}. About 1 ms, no allocation.");
  py::enum_<CountingLayout> layouts(m, "CountingLayout",
                                    "Geometry of a CountingFilter (lib/FORMAT.md, \"Counting "
                                    "filters\").");
  for (CountingLayout l : kCountingLayouts) layouts.value(simdbloom::counting_layout_name(l), l);

  py::class_<G> cls(m, "CountingFilter",
                    R"doc(A counting Bloom filter: CountingFilter(n, fpp, layout="blocked", seed=0,
key_type=None).

Each bit of a Bloom filter becomes a 4-bit saturating counter, so keys can be removed: remove(key)
(False if the key was not there: nothing changes), discard(key) (as set.discard), count(key) (an
upper bound of the times it is present, 0..15). Otherwise a Filter: add, update, `in`, insert,
contains, select, ...; merge (|, |=: counters add, capped at 15), issubset (counter by counter),
to_filter() (the plain filter of the same keys, a quarter of the memory). len() is the number of
inserts minus successful removes (kept by the filter, never below 0). Remove only keys you
inserted: a false positive removed decrements other keys' counters; a batch remove returns how
many keys it removed, so len(batch) minus that were surely absent, evidence of keys never inserted
among them. A key whose counters are all saturated (count 15) is removed without changing them.

Thread-safety as Filter: queries run concurrently, mutations alone; the GIL is released by bulk
calls, merges, scans and I/O.)doc");
  BindCreate(cls, &Create, py::arg("n"), py::arg("fpp"), py::arg("layout") = kDefaultLayout,
             py::arg("seed") = 0, py::arg("key_type") = py::none(), kCreateDoc);
  cls.def_static(
      "with_counters",
      [](uint64_t counters, uint32_t k, py::object layout, uint64_t seed, py::object key_type) {
        const CountingLayout l = CountingLayoutFrom(layout);
        const KeyType t = KeyTypeArg(key_type);
        return Wrap(
            WithoutGil([&] { return CountingFilter::with_counters(counters, k, l, seed, t); }));
      },
      py::arg("counters"), py::arg("num_hashes"), py::arg("layout") = kDefaultLayout,
      py::arg("seed") = 0, py::arg("key_type") = py::none(),
      "An empty counting filter of at least `counters` counters (whole blocks) and "
      "`num_hashes` probes per key. Cost: one zeroed allocation.");
  BindMembership(cls);
  BindCommon(cls);
  BindMap(cls);
  BindSetOp(
      cls, "merge", "__or__", "__ior__",
      [](CountingFilter& a, const CountingFilter& b) { a.merge(b); },
      "Adds other's counters (each sum capped at 15) and size in place (also c |= d, and c | d "
      "into a new filter): the filter that received both filters' inserts and removes. Raises "
      "simdbloom.Error (incompatible) naming the differing parameter. O(size_bytes), no "
      "allocation, GIL released.");
  BindSubset(cls, &Kind<CountingFilter>::Subset);
  BindClear(
      cls, [](CountingFilter& f) { f.clear(); },
      "Sets every counter and len() to 0 (key_type is kept). O(size_bytes).");
  cls.def(
         "remove",
         [](G& self, py::handle keys, bool prehashed) {
           return Mutate(
               self, keys, prehashed, "remove", false,
               [](CountingFilter& f, auto k) { return f.remove(k); },
               [](CountingFilter& f, const Keys& k) { return f.remove(k); });
         },
         py::arg("keys"), py::arg("prehashed") = false,
         R"doc(Removes one key (returns True if removed; False if one of its counters was 0: it was
not in the filter, and nothing changed) or a batch (returns how many were removed; the others
changed nothing). Each counter below 15 is decremented; a saturated counter stays. A null of a
pandas nullable batch is skipped. Cost: as insert (O(k) per key, GIL released for batches).)doc")
      .def(
          "remove_flags",
          [](G& self, py::handle keys, bool prehashed, bool saturated) {
            if (saturated) {
              return MutateFlags<uint8_t>(
                  self, keys, prehashed, false,
                  [](CountingFilter& f, const Keys& k, uint8_t* removed) { f.remove(k, removed); });
            }
            return MutateFlags(self, keys, prehashed, false,
                               [](CountingFilter& f, const Keys& k, uint8_t* removed) {
                                 f.remove(k, removed);
                                 // 2 (removed, all counters saturated) is True: a bool is 0 or 1.
                                 for (size_t i = 0; i < k.size(); ++i) {
                                   removed[i] = removed[i] != 0;
                                 }
                               });
          },
          py::arg("keys"), py::arg("prehashed") = false, py::arg("saturated") = false,
          "Removes a batch; a bool array, True where the key was removed (in key order: a key "
          "repeated in the batch is removed as often as its counters allow). With "
          "saturated=True a uint8 array instead: 0 where the key was surely absent (nothing "
          "changed), 1 where it was removed, 2 where it was removed but every one of its "
          "counters was saturated at 15 (none changed: the removal is not undone exactly, the "
          "key still answers present). Cost: remove's and one byte per key.")
      .def(
          "discard",
          [](G& self, py::handle key) {
            MutateOne(self, key, "discard", false, [](CountingFilter& f, auto k) { f.remove(k); });
          },
          py::arg("key"), "Removes one key if present, as set.discard (returns None). O(k).")
      .def(
          "count",
          [](const G& self, py::handle keys, py::object out, bool prehashed) {
            return Query<uint8_t>(
                self, keys, std::move(out), prehashed, "count",
                [](const CountingFilter& f, auto k) { return f.count(k); },
                [](const CountingFilter& f, const Keys& k, uint8_t* o) { f.count(k, o); });
          },
          py::arg("keys"), py::arg("out") = py::none(), py::arg("prehashed") = false,
          R"doc(One key: the smallest of its counters, 0..15 (0: absent; else an upper bound of how
many times it is present, exact unless other keys share all its counters; 15: 15 or more). A
batch: a uint8 array of those (`out`: a uint8 array to write instead; a null: 0). Cost: as
contains.)doc")
      .def(
          "to_filter",
          [](const G& self) {
            std::optional<simdbloom::Filter> f;
            Reading(self, [&](const CountingFilter& c) { f.emplace(c.to_filter()); });
            return Wrap(std::move(*f));
          },
          "The plain Filter of the same keys (bit i = counter i > 0; layout register64 for "
          "'blocked', classic for 'classic'; same k and seed): bit-identical to inserting the "
          "keys present into Filter.with_bits(counter_count, num_hashes, plain_layout, seed). A "
          "quarter of the memory. O(size_bytes), one allocation, GIL released.")
      .def("__bool__",
           Locked<CountingFilter>([](const CountingFilter& f) { return f.size() != 0; }),
           "Whether it holds anything: len(f) != 0 (inserts minus removes). O(1).")
      .def("__len__", Locked<CountingFilter>(&CountingFilter::size),
           "Inserts minus successful removes (kept by the filter, saved with it; merge adds). "
           "O(1).")
      .def("saturated_count", Scan<CountingFilter>(&CountingFilter::saturated_count),
           "Counters at 15 (saturated: they never decrease). O(size_bytes).")
      .def("fill_ratio", Scan<CountingFilter>(&NonZeroFraction),
           "Fraction of counters above 0 (the plain filter's fill ratio). O(size_bytes).")
      .def(
          "predicted_fpp", [](const G& self, uint64_t n) { return self.obj.predicted_fpp(n); },
          py::arg("n"),
          "The model's false-positive rate with n distinct keys present. A few hundred exp() "
          "at most, no allocation.")
      .def("stats", &Stats,
           "A dict: layout, plain_layout, counters, size_bytes, num_blocks, num_hashes, seed, "
           "size, saturated, fill_ratio, predicted_fpp (at size keys), is_view. "
           "O(size_bytes), GIL released.")
      .def("__repr__", [](const G& self) {
        uint64_t size = 0;
        const double fill = Reading(self, [&](const CountingFilter& f) {
          size = f.size();
          return NonZeroFraction(f);
        });
        const CountingFilter& f = self.obj;
        return Repr("CountingFilter", {{"layout", simdbloom::counting_layout_name(f.layout())},
                                       {"counters", std::to_string(f.counter_count())},
                                       {"num_hashes", std::to_string(f.num_hashes())},
                                       {"seed", std::to_string(f.seed())},
                                       {"fill", FormatDouble(fill)},
                                       {"size", std::to_string(size)}});
      });
  BindParams<CountingFilter>(
      cls, "layout", &CountingFilter::layout, "plain_layout", &CountingFilter::plain_layout,
      "counter_count", &CountingFilter::counter_count, "size_bytes", &CountingFilter::size_bytes,
      "num_blocks", &CountingFilter::num_blocks, "num_hashes", &CountingFilter::num_hashes, "seed",
      &CountingFilter::seed, "is_view", &CountingFilter::is_view);
}

}  // namespace simdbloom_py
