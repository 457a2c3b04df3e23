// SPDX-License-Identifier: Apache-2.0
// The C++ side of the Python equivalence tests: builds a filter from keys in a file with the C++
// API and saves it, and answers contains for probe keys, so tests/python/test_api.py can check
// that the Python module gives the same bytes and answers from the same keys.
//
// usage: simdbloom_py_oracle LAYOUT N FPP SEED KIND KEYS OUT_FILTER [PROBES OUT_HITS]
//   KIND u64 | u32 | u16: raw little-endian integers (bulk insert);
//        u64-single: the same u64 keys, one insert(uint64_t) per key;
//        str: keys as a u32 little-endian length then the bytes (bulk insert of string_views).
//   PROBES: a file of the same kind; OUT_HITS receives one byte (0/1) per probe.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <simdbloom/simdbloom.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace {

std::vector<char> ReadAll(const char* path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path);
    std::exit(2);
  }
  return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
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

simdbloom::Layout LayoutOf(const std::string& name) {
  for (simdbloom::Layout l : simdbloom::layouts()) {
    if (name == simdbloom::layout_name(l)) return l;
  }
  std::fprintf(stderr, "unknown layout %s\n", name.c_str());
  std::exit(2);
}

// Applies fn to the keys of `raw` in the shape KIND names.
template <class Fn>
void WithKeys(const std::string& kind, const std::vector<char>& raw, Fn&& fn) {
  if (kind == "u64" || kind == "u64-single") {
    fn(simdbloom::Keys(Ints<uint64_t>(raw)));
  } else if (kind == "u32") {
    fn(simdbloom::Keys(Ints<uint32_t>(raw)));
  } else if (kind == "u16") {
    fn(simdbloom::Keys(Ints<uint16_t>(raw)));
  } else if (kind == "str") {
    fn(simdbloom::Keys(Strings(raw)));
  } else {
    std::fprintf(stderr, "unknown kind %s\n", kind.c_str());
    std::exit(2);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 8 && argc != 10) {
    std::fprintf(stderr, "usage: %s LAYOUT N FPP SEED KIND KEYS OUT_FILTER [PROBES OUT_HITS]\n",
                 argv[0]);
    return 2;
  }
  const std::string kind = argv[5];
  simdbloom::Filter f =
      simdbloom::Filter::create(std::strtoull(argv[2], nullptr, 10), std::atof(argv[3]),
                                LayoutOf(argv[1]), std::strtoull(argv[4], nullptr, 10));
  const std::vector<char> raw = ReadAll(argv[6]);
  if (kind == "u64-single") {
    for (uint64_t key : Ints<uint64_t>(raw)) f.insert(key);
  } else {
    // Vectors die at the end of the statement: each call gets its own copy of the keys.
    WithKeys(kind, raw, [&](simdbloom::Keys keys) { f.insert(keys); });
  }
  f.save_file(argv[7]);
  if (argc == 10) {
    const std::vector<char> probes = ReadAll(argv[8]);
    std::vector<uint8_t> hits;
    WithKeys(kind, probes, [&](simdbloom::Keys keys) {
      hits.resize(keys.size());
      f.contains(keys, hits.data());
    });
    std::ofstream out(argv[9], std::ios::binary);
    out.write(reinterpret_cast<const char*>(hits.data()),
              static_cast<std::streamsize>(hits.size()));
  }
  return 0;
}
