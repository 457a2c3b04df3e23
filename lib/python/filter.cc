// SPDX-License-Identifier: Apache-2.0
// simdbloom._core: simdbloom.Filter (simdbloom::Filter), the Bloom filter.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <simdbloom/simdbloom.hpp>
#include <stdexcept>
#include <string>

#include "membership.h"
#include "module.h"
#include "persist.h"
#include "setops.h"

namespace simdbloom_py {

using simdbloom::Filter;
using simdbloom::Threads;

template <>
struct Kind<Filter> : Persisted<Filter> {
  static constexpr const char* kName = "Filter";
  static constexpr bool kThreads = true;
  static constexpr const char* kCost =
      "O(k) per key, no allocation but the result; out of cache about one overlapped cache miss "
      "per key (classic: k).";
  static uint64_t InsertBulk(Filter& f, const Keys& k, uint8_t* fresh, unsigned threads) {
    if (fresh == nullptr) return f.insert(k, Threads{threads});
    // The threaded form with `fresh` always uses atomic ORs: only for threads > 1.
    return threads > 1 ? f.insert(k, fresh, Threads{threads}) : f.insert(k, fresh);
  }
  static void ContainsBulk(const Filter& f, const Keys& k, uint8_t* out, unsigned threads) {
    f.contains(k, out, Threads{threads});
  }
  static void BitmapBulk(const Filter& f, const Keys& k, uint8_t* bitmap, unsigned threads) {
    f.contains_bitmap(k, bitmap, Threads{threads});
  }
  static uint64_t SelectBulk(const Filter& f, const Keys& k, uint32_t* sel, unsigned threads) {
    return f.select(k, sel, Threads{threads});
  }
  // Every bit of a set in b.
  static bool Subset(const Filter& a, const Filter& b) {
    if (!a.compatible(b)) {
      throw simdbloom::Error(simdbloom::ErrorCode::kIncompatible,
                             "issubset: the filters differ in layout, size, k, seed or key type");
    }
    const uint8_t* x = a.data();
    const uint8_t* y = b.data();
    for (size_t i = 0; i < a.size_bytes(); i += 8) {  // whole 64-bit words (64-byte blocks)
      uint64_t u, v;
      std::memcpy(&u, x + i, 8);
      std::memcpy(&v, y + i, 8);
      if (u & ~v) return false;
    }
    return true;
  }
};

namespace {

using G = LockedFilter<Filter>;

// len()'s cap: the estimate of a filter of m bits with one bit clear at k distinct bits per key.
// The model's per-key share is at most k, so the estimate at one clear bit is at least the cap:
// min(estimate, cap) grows with the set bits, up to the cap when every bit is set.
double LenCap(const Filter& f) {
  const double m = static_cast<double>(f.bit_count());
  if (m < 2) return 1;
  const double k = std::min(static_cast<double>(f.num_hashes()), m - 1);
  return std::log(m) / -std::log1p(-k / m);
}

py::dict Stats(const G& self) {
  uint64_t inserted = 0;
  double fill = 0, count = 0, fpp = 0;
  Reading(self, [&](const Filter& f) {
    inserted = f.inserted_count();
    fill = f.fill_ratio();
    count = f.approximate_count();
    fpp = f.expected_fpp();
  });
  const Filter& f = self.obj;  // its parameters never change
  py::dict d;  // built after the lock is released: Python code (a GC pass) may run here
  d["layout"] = simdbloom::layout_name(f.layout());
  d["bits"] = f.bit_count();
  d["size_bytes"] = f.size_bytes();
  d["num_blocks"] = f.num_blocks();
  d["num_hashes"] = f.num_hashes();
  d["seed"] = f.seed();
  d["inserted_count"] = inserted;
  d["fill_ratio"] = fill;
  d["approximate_count"] = count;
  d["expected_fpp"] = fpp;
  d["bits_per_inserted_key"] = inserted == 0 ? 0.0 : double(f.bit_count()) / double(inserted);
  d["is_view"] = f.is_view();
  d["target"] = simdbloom::active_target();
  return d;
}

Ptr<Filter> Create(IntArg n_arg, FloatArg fpp_arg, py::object layout, IntArg seed_arg,
                   py::object key_type) {
  const uint64_t n = IntOf(n_arg, "Filter", "n", 1);
  const double fpp = FloatOf(fpp_arg, "Filter", "fpp");
  const uint64_t seed = IntOf(seed_arg, "Filter", "seed");
  const simdbloom::Layout l = LayoutFrom(layout);
  const KeyType t = KeyTypeArg(key_type);
  return Wrap(WithoutGil([&] { return Filter::create(n, fpp, l, seed, t); }));
}

constexpr const char kCreateDoc[] =
    "An empty filter sized for `n` distinct keys at false-positive rate `fpp` (the smallest size "
    "and best k by the layout's model), as rbloom's Bloom(expected_items, false_positive_rate). "
    "`layout`: a Layout or its name. `key_type`: what it holds (None: its first insert decides; "
    "'int64', 'int32' or 'bytes': declared, see key_type). Raises simdbloom.Error "
    "(invalid_argument: n == 0, fpp outside "
    "[1e-9, 1)). Cost: ~1 ms of sizing and one zeroed allocation, GIL released.";

// A filter from a foreign form's bytes (Parquet, Guava), which hold no insert count; `read`
// runs without the GIL. `missing`: the message for key_type None where the form needs one.
template <class Read>
Ptr<Filter> FromForeign(py::buffer data, py::object key_type, const char* missing, Read read) {
  const BufferBytes b = BytesOf(data);
  if (missing != nullptr && key_type.is_none()) throw py::value_error(missing);
  const KeyType t = KeyTypeArg(key_type);
  Ptr<Filter> f = Wrap(WithoutGil([&] { return read(b, t); }));
  f->uncounted = true;
  return f;
}

}  // namespace

void BindFilter(py::module_& m) {
  py::class_<G> cls(m, "Filter",
                    R"doc(A Bloom filter: Filter(n, fpp, layout="block512", seed=0, key_type=None).

A set-like object: add(key), update(iterable), `key in f`, len(f) (an estimate), f == g (same
parameters and bits), f <= g (issubset), f | g, f & g, |=, &=, copy(), clear(); and bulk calls over
NumPy arrays (insert, contains, select, ...) that run the library's SIMD path without the GIL.

Thread-safety: queries may run concurrently from many threads (bulk queries release the GIL and
then run in parallel); a mutation (insert, merge, intersect, clear) waits for the calls running
on the same filter and runs alone. No call waits for the filter with the GIL held (a single-key
insert behind a slow save lets other Python threads run). Copies (copy.copy, pickle) are
independent filters.)doc");
  BindCreate(cls, &Create, py::arg("n"), py::arg("fpp"), py::arg("layout") = "block512",
             py::arg("seed") = 0, py::arg("key_type") = py::none(), kCreateDoc);
  cls.def_static(
      "with_bits",
      [](IntArg bits_arg, IntArg k_arg, py::object layout, IntArg seed_arg, py::object key_type) {
        // 0 reaches the library, which says what it needs.
        const uint64_t bits = IntOf(bits_arg, "Filter.with_bits", "bits");
        const auto k =
            static_cast<uint32_t>(IntOf(k_arg, "Filter.with_bits", "num_hashes", 0, UINT32_MAX));
        const uint64_t seed = IntOf(seed_arg, "Filter.with_bits", "seed");
        const simdbloom::Layout l = LayoutFrom(layout);
        const KeyType t = KeyTypeArg(key_type);
        return Wrap(WithoutGil([&] { return Filter::with_bits(bits, k, l, seed, t); }));
      },
      py::arg("bits"), py::arg("num_hashes"), py::arg("layout") = "block512", py::arg("seed") = 0,
      py::arg("key_type") = py::none(),
      "An empty filter of at least `bits` bits (whole blocks) and `num_hashes` probes per key. "
      "Cost: one zeroed allocation.");
  cls.def_static(
      "from_parquet",
      [](py::buffer data, py::object key_type) {
        return FromForeign(data, key_type, nullptr, [](const BufferBytes& b, KeyType t) {
          return Filter::from_parquet(b.data, b.size, nullptr, t);
        });
      },
      py::arg("data"), py::arg("key_type") = py::none(),
      "A split_block256 filter from a Parquet column's Bloom filter bytes (a Thrift-compact "
      "BloomFilterHeader, then the bitset; any contiguous buffer). `key_type`: what the column "
      "holds, which Parquet's bytes do not say: 'int32' for INT32 columns, 'int64' for INT64, "
      "'bytes' for BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY (then 42 and '42' probe as the column "
      "stores them). Raises simdbloom.Error (format) for anything else. O(size): one copy, GIL "
      "released.");
  cls.def_static(
      "from_guava",
      [](py::buffer data, py::object key_type) {
        return FromForeign(
            data, key_type,
            "Filter.from_guava: key_type is required: Guava's bytes do not say which funnel "
            "made them ('int64' longFunnel, 'int32' integerFunnel, 'bytes' stringFunnel(UTF_8) "
            "or byteArrayFunnel)",
            [](const BufferBytes& b, KeyType t) { return Filter::from_guava(b.data, b.size, t); });
      },
      py::arg("data"), py::arg("key_type"),
      "A guava (or guava32) filter from Guava's BloomFilter.writeTo bytes (any contiguous "
      "buffer). `key_type`: the funnel the Java side used, which Guava's bytes do not record: "
      "'int64' (Funnels.longFunnel), 'int32' (integerFunnel), 'bytes' (stringFunnel(UTF_8): "
      "str keys are their UTF-8 bytes; byteArrayFunnel; unencodedCharsFunnel: pass "
      "s.encode('utf-16-le')). Then every key answers as Guava's mightContain does. Raises "
      "simdbloom.Error (format) for anything but one Guava filter. O(size), GIL released.");
  // A foreign form's bytes (Guava, Parquet) as Python bytes, read under the shared lock.
  const auto exported = [](std::vector<uint8_t> (Filter::*form)() const) {
    return [form](const G& self) {
      const std::vector<uint8_t> bytes =
          Reading(self, [&](const Filter& f) { return (f.*form)(); });
      return py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    };
  };
  cls.def(
      "to_guava", exported(&Filter::to_guava),
      "Guava's writeTo bytes of a guava or guava32 filter with seed 0 (what Java's "
      "BloomFilter.readFrom reads); simdbloom.Error (incompatible) for other filters. O(size).");
  cls.def(
      "to_parquet", exported(&Filter::to_parquet),
      "The Parquet form (BloomFilterHeader + bitset) of a split_block256 filter with seed 0, as "
      "a Parquet writer stores it; simdbloom.Error (incompatible) for other filters. O(size).");
  BindMembership(cls);
  BindCommon(cls);
  BindMap(cls);
  BindSetOp(
      cls, "merge", "__or__", "__ior__", [](Filter& a, const Filter& b) { a.merge(b); },
      "Union in place (OR of the bits; also f |= g, and f | g into a new filter). Raises "
      "simdbloom.Error (incompatible) unless both have the same layout, size, k and seed. "
      "O(size_bytes), no allocation, GIL released.");
  BindSetOp(
      cls, "intersect", "__and__", "__iand__", [](Filter& a, const Filter& b) { a.intersect(b); },
      "Intersection in place (AND of the bits; also f &= g, and f & g into a new filter); same "
      "conditions as merge. Keeps every key both held.");
  BindSubset(cls, &Kind<Filter>::Subset);
  BindClear(
      cls, [](Filter& f) { f.clear(); },
      "Clears every bit (key_type is kept). O(size_bytes), no allocation.");
  cls.def(
         "hashes",
         [](const G& self, py::handle keys) {
           KeyBatch b;
           MakeKeys(keys, false, &b);
           b.CheckInsert("hashes");  // an int beyond 64 bits has no hash
           if (b.valid) {
             throw py::value_error(
                 "hashes: the keys hold nulls, and a null has no hash; drop them first "
                 "(keys.dropna())");
           }
           py::array_t<uint64_t> out(static_cast<py::ssize_t>(b.size()));
           uint64_t* p = out.mutable_data();
           // The shared lock: the hash depends on the key type, which a first insert sets.
           Reading(self, [&](const Filter& f) { f.hash(*b.keys, p); });
           return out;
         },
         py::arg("keys"),
         "uint64 hashes of a batch (by the filter's key type: an integer out of an 'int32' "
         "filter's range raises simdbloom.Error): pass them with prehashed=True to probe several "
         "filters of the same layout family, seed and key type without hashing again. O(n), GIL "
         "released.")
      .def(
          "__len__",
          [](const G& self) {
            const double c = Reading(self, [](const Filter& f) { return f.approximate_count(); });
            return static_cast<Py_ssize_t>(std::min(c, LenCap(self.obj)) + 0.5);
          },
          "An estimate: the number of distinct keys inserted as round(approximate_count()), from "
          "the set bits (a Bloom filter does not store its keys), capped at the estimate of a "
          "filter with one bit left clear, ln(m) / -ln(1 - k/m) (about m ln(m) / k for m bits "
          "and k probes): a saturated filter (every bit set, approximate_count() inf) has that "
          "length and never raises. O(size_bytes): reads the whole bit array; bool(f) is O(1).")
      .def(
          "__bool__",
          [](const G& self) {
            auto lock = LockWithGil<SharedLock>(self.mu);
            if (self.obj.inserted_count() != 0) return true;
            if (!self.uncounted) return false;
            const uint8_t* p = self.obj.data();  // from_parquet: any set bit (stops at the first)
            for (size_t i = 0; i < self.obj.size_bytes(); ++i) {
              if (p[i] != 0) return true;
            }
            return false;
          },
          "Whether anything was inserted (or merged in): inserted_count() != 0, O(1), never a "
          "scan (len() is one); a filter from from_parquet, whose bytes hold no count, is true "
          "when any bit is set. False again after clear().")
      .def("approximate_count", Scan<Filter>(&Filter::approximate_count),
           "Estimated distinct keys from the number of set bits (inf when full). O(size_bytes).")
      .def("fill_ratio", Scan<Filter>(&Filter::fill_ratio), "Fraction of bits set. O(size_bytes).")
      .def("expected_fpp", Scan<Filter>(&Filter::expected_fpp),
           "False-positive rate of the current bits for a random absent key. O(size_bytes).")
      .def(
          "predicted_fpp", [](const G& self, uint64_t n) { return self.obj.predicted_fpp(n); },
          py::arg("n"),
          "The model's false-positive rate after n distinct keys. A few hundred exp() at most "
          "(block512, k > 8), no allocation after the first call per layout.")
      .def("stats", &Stats,
           "A dict: layout, bits, size_bytes, num_blocks, num_hashes, seed, inserted_count, "
           "fill_ratio, approximate_count, expected_fpp, bits_per_inserted_key, is_view, "
           "target. Reads the bit array a few times (O(size_bytes), GIL released).")
      .def_property_readonly("inserted_count", Locked<Filter>(&Filter::inserted_count),
                             "Keys passed to insert so far, repeats included (merge adds).")
      .def("__repr__", [](const G& self) {
        uint64_t inserted = 0;
        const double fill = Reading(self, [&](const Filter& f) {
          inserted = f.inserted_count();
          return f.fill_ratio();
        });
        const Filter& f = self.obj;
        return Repr("Filter", {{"layout", simdbloom::layout_name(f.layout())},
                               {"bits", std::to_string(f.bit_count())},
                               {"num_hashes", std::to_string(f.num_hashes())},
                               {"seed", std::to_string(f.seed())},
                               {"fill", FormatDouble(fill)},
                               {"inserted_count", std::to_string(inserted)}});
      });
  BindParams<Filter>(cls, "layout", &Filter::layout, "bit_count", &Filter::bit_count, "size_bytes",
                     &Filter::size_bytes, "num_blocks", &Filter::num_blocks, "num_hashes",
                     &Filter::num_hashes, "seed", &Filter::seed);
}

}  // namespace simdbloom_py
