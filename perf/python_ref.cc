// SPDX-License-Identifier: Apache-2.0
// simdbloom-pyref: the C++ side of perf/python_bench.py. Times the bulk calls the Python module
// makes (each class's insert over u64 keys and its bulk query into a caller's buffer) on keys read
// from a file the benchmark wrote, so both sides run the same calls on the same keys in the same
// run.
//
// usage: simdbloom-pyref [--kind KIND] KEYS PROBES N FPP REPEATS [OUT]
//   KIND: filter (default; Filter::create(N, FPP)), counting (CountingFilter::create(N, FPP)),
//   scalable (ScalableFilter::create(1024, FPP): no N, as the module's default), spatial
//   (SpatialFilter::create(N, FPP, 2), keys in area 1), association
//   (ShiftingAssociation::create(N, FPP), keys in S1 only), multiplicity
//   (ShiftingMultiplicity::create(N, FPP, 4), count 1).
//   KEYS, PROBES: raw little-endian u64 keys. Each repeat starts from an empty object (not timed:
//   Filter::clear() for filter, a new object for the others, as the Python side does), times the
//   insert of KEYS and the query of PROBES (contains, contains, contains, classify, query,
//   count). Prints one JSON line per call with the minimum over the repeats, in seconds; OUT
//   receives the last repeat's saved bytes (the Python side compares the bits).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <simdbloom/counting.hpp>
#include <simdbloom/scalable.hpp>
#include <simdbloom/shifting.hpp>
#include <simdbloom/simdbloom.hpp>
#include <simdbloom/spatial.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace {

using simdbloom::Keys;

std::vector<uint64_t> ReadU64(const char* path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path);
    std::exit(2);
  }
  std::vector<uint64_t> v(static_cast<size_t>(in.tellg()) / 8);
  in.seekg(0);
  in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(v.size() * 8));
  return v;
}

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Each class under one spelling: Make() an empty object, Insert, Query
// (into out, one Out per key), the saved bytes.
struct Params {
  uint64_t n;
  double fpp;
};

template <class T, class Out>
struct Bench {
  using Object = T;
  using Answer = Out;
  static void Save(const Object& f, std::ostream& os) { f.save(os); }
};
// The membership classes: insert(keys), contains(keys, out).
template <class T>
struct MembershipBench : Bench<T, uint8_t> {
  static void Insert(T& f, Keys k) { f.insert(k); }
  static uint64_t Query(const T& f, Keys k, uint8_t* out) { return f.contains(k, out); }
};

struct FilterBench : MembershipBench<simdbloom::Filter> {
  static Object Make(const Params& p) { return Object::create(p.n, p.fpp); }
};
struct CountingBench : MembershipBench<simdbloom::CountingFilter> {
  static Object Make(const Params& p) { return Object::create(p.n, p.fpp); }
};
struct ScalableBench : MembershipBench<simdbloom::ScalableFilter> {
  static Object Make(const Params& p) { return Object::create(1024, p.fpp); }
};
struct SpatialBench : Bench<simdbloom::SpatialFilter, uint16_t> {
  static Object Make(const Params& p) { return Object::create(p.n, p.fpp, 2); }
  static void Insert(Object& f, Keys k) { f.insert(1, k); }
  static uint64_t Query(const Object& f, Keys k, Answer* out) { return f.classify(k, out); }
};
// The shifting set filters save into a string; their queries return nothing: the hits counted.
template <class T, class Out>
struct ShiftingBench : Bench<T, Out> {
  static void Save(const T& f, std::ostream& os) { os << f.save(); }
  static uint64_t NonZero(const Out* out, size_t n) {
    return static_cast<uint64_t>(std::count_if(out, out + n, [](Out a) { return a != 0; }));
  }
};

struct AssociationBench : ShiftingBench<simdbloom::ShiftingAssociation, uint8_t> {
  static Object Make(const Params& p) { return Object::create(p.n, p.fpp); }
  static void Insert(Object& f, Keys k) { f.insert(k, Object::kOnlyFirst); }
  static uint64_t Query(const Object& f, Keys k, Answer* out) {
    f.query(k, out);
    return NonZero(out, k.size());
  }
};
struct MultiplicityBench : ShiftingBench<simdbloom::ShiftingMultiplicity, uint32_t> {
  static Object Make(const Params& p) { return Object::create(p.n, p.fpp, 4); }
  static void Insert(Object& f, Keys k) { f.insert(k, 1); }
  static uint64_t Query(const Object& f, Keys k, Answer* out) {
    f.count(k, out);
    return NonZero(out, k.size());
  }
};

template <class B>
int Run(const std::vector<uint64_t>& keys, const std::vector<uint64_t>& probes, const Params& p,
        int repeats, const char* out_path) {
  std::vector<typename B::Answer> out(probes.size());
  double best_insert = 1e30, best_query = 1e30;
  uint64_t hits = 0;
  std::optional<typename B::Object> f;
  for (int r = 0; r < repeats; ++r) {
    if constexpr (std::is_same<B, FilterBench>::value) {
      if (f) {
        f->clear();
      } else {
        f.emplace(B::Make(p));
      }
    } else {
      f.reset();
      f.emplace(B::Make(p));
    }
    double t = Now();
    B::Insert(*f, keys);
    best_insert = std::min(best_insert, Now() - t);
    t = Now();
    hits = B::Query(*f, probes, out.data());
    best_query = std::min(best_query, Now() - t);
  }
  std::printf("{\"op\":\"insert\",\"keys\":%zu,\"seconds\":%.6f}\n", keys.size(), best_insert);
  std::printf("{\"op\":\"query\",\"keys\":%zu,\"seconds\":%.6f,\"hits\":%llu}\n", probes.size(),
              best_query, static_cast<unsigned long long>(hits));
  if (out_path != nullptr) {
    std::ofstream os(out_path, std::ios::binary);
    B::Save(*f, os);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string kind = "filter";
  if (argc > 2 && std::string(argv[1]) == "--kind") {
    kind = argv[2];
    argc -= 2;
    argv += 2;
  }
  if (argc != 6 && argc != 7) {
    std::fprintf(stderr, "usage: %s [--kind KIND] KEYS PROBES N FPP REPEATS [OUT]\n", argv[0]);
    return 2;
  }
  const std::vector<uint64_t> keys = ReadU64(argv[1]), probes = ReadU64(argv[2]);
  const Params p{std::strtoull(argv[3], nullptr, 10), std::atof(argv[4])};
  const int repeats = std::max(1, std::atoi(argv[5]));
  const char* out = argc == 7 ? argv[6] : nullptr;
  if (kind == "filter") return Run<FilterBench>(keys, probes, p, repeats, out);
  if (kind == "counting") return Run<CountingBench>(keys, probes, p, repeats, out);
  if (kind == "scalable") return Run<ScalableBench>(keys, probes, p, repeats, out);
  if (kind == "spatial") return Run<SpatialBench>(keys, probes, p, repeats, out);
  if (kind == "association") return Run<AssociationBench>(keys, probes, p, repeats, out);
  if (kind == "multiplicity") return Run<MultiplicityBench>(keys, probes, p, repeats, out);
  std::fprintf(stderr, "unknown kind %s\n", kind.c_str());
  return 2;
}
