// SPDX-License-Identifier: Apache-2.0
// The C++ side of the Python equivalence tests: builds an object of any class from keys in files
// with the C++ API, saves it and answers queries for probe keys, so tests/python/test_api.py can
// check that the Python module gives the same bytes and answers from the same keys.
//
// usage: simdbloom_py_oracle CLASS PARAMS OP...
//   CLASS   filter | counting | scalable | spatial | association | multiplicity
//   PARAMS  name=value,...: n, fpp, seed; layout (filter, scalable: a layout name; counting:
//           blocked | classic); areas (spatial); max_count (multiplicity); capacity, growth,
//           tightening (scalable: the initial capacity and options)
//   OP      insert:SHAPE:FILE[:VALUE]   one bulk insert (VALUE: the label, membership or count)
//           insert1:SHAPE:FILE[:VALUE]  one single-key insert per key
//           remove:SHAPE:FILE           (counting) one bulk remove
//           ask:SHAPE:FILE:OUT          the bulk answers: contains as bytes 0/1 (filter, counting,
//                                       scalable), classify as u16 (spatial), query as bytes
//                                       (association), count as u32 (multiplicity)
//           count:SHAPE:FILE:OUT        (counting) the bulk counts, bytes 0..15
//           save:OUT                    the saved form (save_file)
//   SHAPE   u64 | u32 | u16: raw little-endian integers; str: a u32 little-endian length, then
//           the bytes, per key.
//   Prints "layouts: NAME..." for `simdbloom_py_oracle layouts` (the library's layout list).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <simdbloom/counting.hpp>
#include <simdbloom/scalable.hpp>
#include <simdbloom/shifting.hpp>
#include <simdbloom/simdbloom.hpp>
#include <simdbloom/spatial.hpp>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace {

using simdbloom::Keys;

[[noreturn]] void Fail(const std::string& why) {
  std::fprintf(stderr, "simdbloom_py_oracle: %s\n", why.c_str());
  std::exit(2);
}

std::vector<char> ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) Fail("cannot read " + path);
  return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void WriteAll(const std::string& path, const void* p, size_t n) {
  std::ofstream out(path, std::ios::binary);
  out.write(static_cast<const char*>(p), static_cast<std::streamsize>(n));
  if (!out) Fail("cannot write " + path);
}

template <class T>
std::vector<T> Ints(const std::vector<char>& raw) {
  std::vector<T> v(raw.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), raw.data(), v.size() * sizeof(T));
  return v;
}

std::vector<std::string_view> Strings(const std::vector<char>& raw) {
  std::vector<std::string_view> v;
  for (size_t pos = 0; pos + 4 <= raw.size();) {
    uint32_t len;
    std::memcpy(&len, raw.data() + pos, 4);
    pos += 4;
    v.emplace_back(raw.data() + pos, len);
    pos += len;
  }
  return v;
}

// The keys of one file in one shape: `keys` for bulk calls, each(fn) for single-key calls.
struct KeyFile {
  KeyFile(const std::string& shape, const std::string& path) : shape(shape), raw(ReadAll(path)) {
    if (shape == "u64") {
      u64 = Ints<uint64_t>(raw);
    } else if (shape == "u32") {
      u32 = Ints<uint32_t>(raw);
    } else if (shape == "u16") {
      u16 = Ints<uint16_t>(raw);
    } else if (shape == "str") {
      str = Strings(raw);
    } else {
      Fail("unknown shape " + shape);
    }
  }
  Keys keys() const {
    if (shape == "u64") return Keys(u64);
    if (shape == "u32") return Keys(u32);
    if (shape == "u16") return Keys(u16);
    return Keys(str);
  }
  size_t size() const { return keys().size(); }
  template <class Fn>
  void each(Fn&& fn) const {
    if (shape == "u64") {
      for (uint64_t k : u64) fn(k);
    } else if (shape == "u32") {
      for (uint32_t k : u32) fn(k);
    } else if (shape == "u16") {
      for (uint16_t k : u16) fn(k);
    } else {
      for (std::string_view k : str) fn(k);
    }
  }
  std::string shape;
  std::vector<char> raw;
  std::vector<uint64_t> u64;
  std::vector<uint32_t> u32;
  std::vector<uint16_t> u16;
  std::vector<std::string_view> str;
};

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

struct Params {
  std::map<std::string, std::string> v;
  explicit Params(const std::string& s) {
    for (const std::string& kv : Split(s, ',')) {
      const size_t eq = kv.find('=');
      if (eq == std::string::npos) Fail("bad parameter " + kv);
      v[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
  }
  std::string str(const std::string& k, const std::string& dflt) const {
    auto it = v.find(k);
    return it == v.end() ? dflt : it->second;
  }
  uint64_t u(const std::string& k, uint64_t dflt = 0) const {
    auto it = v.find(k);
    return it == v.end() ? dflt : std::strtoull(it->second.c_str(), nullptr, 10);
  }
  double d(const std::string& k, double dflt = 0) const {
    auto it = v.find(k);
    return it == v.end() ? dflt : std::strtod(it->second.c_str(), nullptr);
  }
};

simdbloom::Layout LayoutOf(const std::string& name) {
  for (simdbloom::Layout l : simdbloom::layouts()) {
    if (name == simdbloom::layout_name(l)) return l;
  }
  Fail("unknown layout " + name);
}

// Each class's calls, under one spelling: Insert(f, keys or one key, value) (the bulk call for
// Keys, the single-key call for one key), Ask(f, keys) -> the bulk answers' bytes.
template <class T>
struct Calls;

template <class T>
struct Membership {
  template <class K>
  static void Insert(T& f, const K& k, uint64_t) {
    f.insert(k);
  }
  static std::vector<uint8_t> Ask(const T& f, const Keys& k) {
    std::vector<uint8_t> out(k.size());
    f.contains(k, out.data());
    return out;
  }
};
template <>
struct Calls<simdbloom::Filter> : Membership<simdbloom::Filter> {};
template <>
struct Calls<simdbloom::CountingFilter> : Membership<simdbloom::CountingFilter> {};
template <>
struct Calls<simdbloom::ScalableFilter> : Membership<simdbloom::ScalableFilter> {};

// The bulk answers of fn(out) (n values of Out at out) as their bytes.
template <class Out, class Fn>
std::vector<uint8_t> Answers(size_t n, Fn&& fn) {
  std::vector<Out> v(n);
  fn(v.data());
  std::vector<uint8_t> out(v.size() * sizeof(Out));
  if (!v.empty()) std::memcpy(out.data(), v.data(), out.size());
  return out;
}

template <>
struct Calls<simdbloom::SpatialFilter> {
  using T = simdbloom::SpatialFilter;
  template <class K>
  static void Insert(T& f, const K& k, uint64_t label) {
    f.insert(static_cast<uint16_t>(label), k);
  }
  static std::vector<uint8_t> Ask(const T& f, const Keys& k) {
    return Answers<uint16_t>(k.size(), [&](uint16_t* out) { f.classify(k, out); });
  }
};

// The shifting set filters: insert(key(s), V), and query (ShBF_A) or count (ShBF_x) answering A.
template <class T, class V, class A>
struct Shifting {
  template <class K>
  static void Insert(T& f, const K& k, uint64_t v) {
    f.insert(k, static_cast<V>(v));
  }
  static std::vector<uint8_t> Ask(const T& f, const Keys& k) {
    return Answers<A>(k.size(), [&](A* out) {
      if constexpr (std::is_same<T, simdbloom::ShiftingAssociation>::value) {
        f.query(k, out);
      } else {
        f.count(k, out);
      }
    });
  }
};
template <>
struct Calls<simdbloom::ShiftingAssociation>
    : Shifting<simdbloom::ShiftingAssociation, uint8_t, uint8_t> {};
template <>
struct Calls<simdbloom::ShiftingMultiplicity>
    : Shifting<simdbloom::ShiftingMultiplicity, uint32_t, uint32_t> {};

template <class T>
int Run(T f, int argc, char** argv) {
  for (int i = 3; i < argc; ++i) {
    const std::vector<std::string> op = Split(argv[i], ':');
    const std::string& what = op[0];
    if (what == "save" && op.size() == 2) {
      f.save_file(op[1]);
      continue;
    }
    if (op.size() < 3) Fail(std::string("bad operation ") + argv[i]);
    const KeyFile keys(op[1], op[2]);
    if (what == "insert" || what == "insert1") {
      const uint64_t value = op.size() > 3 ? std::strtoull(op[3].c_str(), nullptr, 10) : 0;
      if (what == "insert") {
        Calls<T>::Insert(f, keys.keys(), value);
      } else {
        keys.each([&](auto key) { Calls<T>::Insert(f, key, value); });
      }
    } else if (what == "ask" && op.size() == 4) {
      const std::vector<uint8_t> out = Calls<T>::Ask(f, keys.keys());
      WriteAll(op[3], out.data(), out.size());
    } else if constexpr (std::is_same<T, simdbloom::CountingFilter>::value) {
      if (what == "remove") {
        f.remove(keys.keys());
      } else if (what == "count" && op.size() == 4) {
        std::vector<uint8_t> out(keys.size());
        f.count(keys.keys(), out.data());
        WriteAll(op[3], out.data(), out.size());
      } else {
        Fail(std::string("bad operation ") + argv[i]);
      }
    } else {
      Fail(std::string("bad operation ") + argv[i]);
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "layouts") {
    std::printf("layouts:");
    for (simdbloom::Layout l : simdbloom::layouts()) std::printf(" %s", simdbloom::layout_name(l));
    std::printf("\n");
    return 0;
  }
  if (argc < 3) Fail("usage: simdbloom_py_oracle CLASS PARAMS OP... (see oracle.cc)");
  const std::string cls = argv[1];
  const Params p(argv[2]);
  const uint64_t n = p.u("n", 1000), seed = p.u("seed");
  const double fpp = p.d("fpp", 0.01);
  try {
    if (cls == "filter") {
      return Run(simdbloom::Filter::create(n, fpp, LayoutOf(p.str("layout", "block512")), seed),
                 argc, argv);
    }
    if (cls == "counting") {
      const std::string l = p.str("layout", "blocked");
      const auto layout = l == "classic" ? simdbloom::CountingLayout::kClassic
                                         : simdbloom::CountingLayout::kBlocked;
      return Run(simdbloom::CountingFilter::create(n, fpp, layout, seed), argc, argv);
    }
    if (cls == "scalable") {
      simdbloom::ScalableOptions o;
      o.growth = p.d("growth", 2);
      o.tightening = p.d("tightening", 0.85);
      o.layout = LayoutOf(p.str("layout", "block512"));
      o.seed = seed;
      return Run(simdbloom::ScalableFilter::create(p.u("capacity", 1024), fpp, o), argc, argv);
    }
    if (cls == "spatial") {
      return Run(
          simdbloom::SpatialFilter::create(n, fpp, static_cast<uint32_t>(p.u("areas", 1)), seed),
          argc, argv);
    }
    if (cls == "association") {
      return Run(simdbloom::ShiftingAssociation::create(n, fpp, seed), argc, argv);
    }
    if (cls == "multiplicity") {
      return Run(simdbloom::ShiftingMultiplicity::create(
                     n, fpp, static_cast<uint32_t>(p.u("max_count", 1)), seed),
                 argc, argv);
    }
  } catch (const simdbloom::Error& e) {
    Fail(e.what());
  }
  Fail("unknown class " + cls);
}
