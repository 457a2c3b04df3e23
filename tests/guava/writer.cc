// SPDX-License-Identifier: Apache-2.0
// guava_writer GOLDEN_DIR OUT_DIR: for every case of GOLDEN_DIR/cases.txt (tests/guava/README.md),
// builds our filter from the case's keys (Filter::create with the guava or guava32 layout, bulk
// insert) and writes OUT_DIR/<name>.guava (to_guava()) and OUT_DIR/<name>.hits (our answers to
// every probe, the same bitmap form), for `GuavaOracle check` (tests/guava/roundtrip.sh).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "simdbloom/simdbloom.hpp"

namespace {

uint64_t Mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

bool Write(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  return out.good();
}

}  // namespace

int main(int argc, char** argv) {
  using simdbloom::Filter;
  using simdbloom::KeyType;
  using simdbloom::Layout;
  if (argc != 3) {
    std::fprintf(stderr, "usage: guava_writer GOLDEN_DIR OUT_DIR\n");
    return 2;
  }
  std::ifstream in(std::string(argv[1]) + "/cases.txt");
  if (!in) {
    std::fprintf(stderr, "guava_writer: cannot read %s/cases.txt\n", argv[1]);
    return 1;
  }
  static const char* const kSuffix[] = {"", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80"};
  std::string line;
  int cases = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream f(line);
    std::string name, funnel, fpp_hex;
    int strategy;
    uint64_t n, seed;
    size_t inserted, absent;
    f >> name >> funnel >> strategy >> n >> fpp_hex >> seed >> inserted >> absent;
    const uint64_t fpp_bits = std::stoull(fpp_hex, nullptr, 16);
    double fpp;
    std::memcpy(&fpp, &fpp_bits, 8);
    std::vector<int64_t> longs;
    std::vector<int32_t> ints;
    std::vector<std::string> bytes;
    for (size_t i = 0; i < inserted + absent; ++i) {
      const uint64_t v = Mix(seed + (i + 1) * 0x9E3779B97F4A7C15ULL);
      if (funnel == "long") {
        longs.push_back(static_cast<int64_t>(v));
      } else if (funnel == "int") {
        ints.push_back(static_cast<int32_t>(static_cast<uint32_t>(v)));
      } else if (funnel == "utf8") {
        bytes.push_back("k" + std::to_string(v) + kSuffix[v >> 62]);
      } else {
        std::string b(static_cast<size_t>(v >> 58), '\0');
        for (size_t j = 0; j < b.size(); ++j) b[j] = static_cast<char>((v >> (8 * (j & 7))) + j);
        bytes.push_back(b);
      }
    }
    const KeyType type = funnel == "long"  ? KeyType::kInt64
                         : funnel == "int" ? KeyType::kInt32
                                           : KeyType::kBytes;
    Filter filter =
        Filter::create(n, fpp, strategy == 1 ? Layout::kGuava : Layout::kGuava32, 0, type);
    const simdbloom::Keys all = !longs.empty()  ? simdbloom::Keys(longs)
                                : !ints.empty() ? simdbloom::Keys(ints)
                                                : simdbloom::Keys(bytes);
    const simdbloom::Keys members = !longs.empty()  ? simdbloom::Keys(longs.data(), inserted)
                                    : !ints.empty() ? simdbloom::Keys(ints.data(), inserted)
                                                    : simdbloom::Keys(bytes.data(), inserted);
    filter.insert(members);
    std::vector<uint8_t> hits((all.size() + 7) / 8);
    filter.contains_bitmap(all, hits.data());
    const std::string out = std::string(argv[2]) + "/" + name;
    if (!Write(out + ".guava", filter.to_guava()) || !Write(out + ".hits", hits)) {
      std::fprintf(stderr, "guava_writer: cannot write %s\n", out.c_str());
      return 1;
    }
    ++cases;
  }
  std::printf("guava_writer: %d cases written\n", cases);
  return cases > 0 ? 0 : 1;
}
