// SPDX-License-Identifier: Apache-2.0
// The shared helpers of simdbloom-bench (see bench_util.h). The physical references live here and
// are the only code of the benchmark that issues software prefetches itself (hwy::Prefetch): the
// filter's own prefetching is the library's business.
#include "bench_util.h"

#include <sys/mman.h>

#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

#include "hwy/cache_control.h"

namespace sbbench {

namespace {
std::vector<std::string>& Summary() {
  static std::vector<std::string> lines;
  return lines;
}
}  // namespace

void AddSummary(std::string line) { Summary().push_back(std::move(line)); }
const std::vector<std::string>& SummaryLines() { return Summary(); }

std::string Fmt(const char* format, ...) {
  char buf[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  return buf;
}

const char* const kDemoSections[5] = {"bulk", "layouts", "false-positives", "one-key", "strings"};
const char* const kFullSections[14] = {"speed",    "fpr",     "memory",  "calibration", "shapes",
                                       "uuid",     "single",  "threads", "scalable",    "counting",
                                       "shifting", "spatial", "many",    "guava"};

std::string IsaName(const std::string& t) {
  // Highway's names for x86's AVX-512 targets: AVX3 (F, VL, DQ, BW), AVX3_DL (Ice Lake's VNNI,
  // VBMI2, ...), AVX3_ZEN4, AVX3_SPR.
  if (t.rfind("AVX3", 0) == 0) return "AVX-512 (Highway: " + t + ")";
  if (t == "SCALAR" || t == "EMU128") return "no SIMD (Highway: " + t + ")";
  if (t == "reference") return "no SIMD (the per-key reference)";
  return t;  // AVX2, SSE4, SSSE3, NEON, SVE, SVE2, SVE_256, SVE2_128: the names users know
}

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

size_t CountOnes(const std::vector<uint8_t>& v) {
  size_t c = 0;
  for (uint8_t x : v) c += x;
  return c;
}

Workload::Workload(size_t count, uint64_t seed) : n(count), keys(count), absent(count), out(count) {
  for (auto& k : keys) k = SplitMix(seed);
  for (auto& k : absent) k = SplitMix(seed);
}

// ---- Rows ----

void RowHeader() {
  std::printf("%-44s %-6s %9s %9s  %-12s %8s\n", "measurement", "pages", "ns/key", "ref ns",
              "reference", "ratio");
}

void Row(const Options& o, const char* section, const std::string& what, const char* pages,
         size_t n, double ns, double ref_ns, const char* ref_name) {
  if (o.json) {
    std::printf(
        "{\"bench\":\"%s\",\"what\":\"%s\",\"pages\":\"%s\",\"keys\":%zu,\"ns_per_key\":%.4f,"
        "\"reference\":\"%s\",\"reference_ns\":%.4f,\"ratio\":%.4f}\n",
        section, what.c_str(), pages, n, ns, ref_name, ref_ns, ns / ref_ns);
  } else {
    std::printf("%-44s %-6s %9.3f %9.3f  %-12s %7.3fx\n", what.c_str(), pages, ns, ref_ns, ref_name,
                ns / ref_ns);
  }
  std::fflush(stdout);
}

void RowPaired(const Options& o, const std::string& what, const char* pages, size_t n, double ns,
               double ref_ns, const char* ref_name, const std::vector<double>& ratios) {
  std::vector<double> r = ratios;
  std::sort(r.begin(), r.end());
  const double mid = r[r.size() / 2];
  if (o.json) {
    std::printf(
        "{\"bench\":\"memory\",\"what\":\"%s\",\"pages\":\"%s\",\"keys\":%zu,\"ns_per_key\":%.4f,"
        "\"reference\":\"%s\",\"reference_ns\":%.4f,\"ratio\":%.4f,\"ratio_min\":%.4f,"
        "\"ratio_max\":%.4f,\"rounds\":%zu}\n",
        what.c_str(), pages, n, ns, ref_name, ref_ns, mid, r.front(), r.back(), r.size());
  } else {
    if (r.size() == 1) {
      std::printf("%-44s %-6s %9.3f %9.3f  %-12s %7.3fx  (1 round)\n", what.c_str(), pages, ns,
                  ref_ns, ref_name, mid);
    } else {
      std::printf("%-44s %-6s %9.3f %9.3f  %-12s %7.3fx  (%zu rounds: %.3f..%.3f)\n", what.c_str(),
                  pages, ns, ref_ns, ref_name, mid, r.size(), r.front(), r.back());
    }
  }
  std::fflush(stdout);
}

// ---- Key generators ----

std::vector<std::string> Urls(size_t n, uint64_t seed) {
  static const char* kHosts[] = {"https://www.example.com/", "http://cdn.shop.example.org/",
                                 "https://news.site.net/a/", "https://x.io/"};
  std::vector<std::string> v(n);
  uint64_t s = seed;
  for (auto& url : v) {
    const uint64_t r = SplitMix(s);
    url = kHosts[r & 3];
    const size_t len = 20 + (r >> 8) % 81;  // 20..100
    while (url.size() < len) {
      const uint64_t c = SplitMix(s);
      for (int i = 0; i < 8 && url.size() < len; ++i) {
        url.push_back("abcdefghijklmnopqrstuvwxyz0123456789/-_?="[(c >> (6 * i)) % 41]);
      }
    }
    url.resize(len);
  }
  return v;
}

std::vector<std::string> Uuids(size_t n, uint64_t seed) {
  std::vector<std::string> v(n);
  uint64_t s = seed;
  char buf[40];
  for (auto& u : v) {
    const uint64_t a = SplitMix(s), b = SplitMix(s);
    std::snprintf(buf, sizeof(buf), "%08x-%04x-4%03x-%x%03x-%012llx",
                  static_cast<unsigned>(a >> 32), static_cast<unsigned>((a >> 16) & 0xFFFF),
                  static_cast<unsigned>(a & 0xFFF), static_cast<unsigned>(8 + (b >> 62)),
                  static_cast<unsigned>((b >> 48) & 0xFFF),
                  static_cast<unsigned long long>(b & 0xFFFFFFFFFFFFull));
    u = buf;
  }
  return v;
}

Column::Column(const std::vector<std::string>& strings) {
  for (const auto& str : strings) {
    data.insert(data.end(), str.begin(), str.end());
    offsets.push_back(static_cast<int32_t>(data.size()));
  }
  for (size_t i = 0; i < strings.size(); ++i) {
    views.emplace_back(reinterpret_cast<const char*>(data.data()) + offsets[i], strings[i].size());
  }
}

// ---- Physical references ----

long AnonHugeKiB() {
  std::FILE* f = std::fopen("/proc/self/smaps_rollup", "r");
  if (f == nullptr) return -1;
  char line[256];
  long kib = -1;
  while (std::fgets(line, sizeof(line), f) != nullptr) {
    if (std::sscanf(line, "AnonHugePages: %ld kB", &kib) == 1) break;
  }
  std::fclose(f);
  return kib;
}

PhysicalArray::PhysicalArray(size_t size, bool huge) {
  const size_t page = size_t{2} << 20;
  bytes = (size + page - 1) / page * page;
  void* p = nullptr;
  if (posix_memalign(&p, page, bytes) != 0) throw std::bad_alloc();
  (void)madvise(p, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  std::memset(p, 1, bytes);
  words = static_cast<uint64_t*>(p);
}

PhysicalArray::~PhysicalArray() { std::free(words); }

namespace {
template <bool kWrite>
uint64_t RandomLines(uint64_t* words, size_t lines, size_t n, size_t distance, uint64_t seed) {
  auto line_of = [&](uint64_t i) {
    uint64_t z = (i + seed) * 0x9E3779B97F4A7C15ull;  // SplitMix64's finalizer
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z ^= z >> 27;
    return static_cast<size_t>((static_cast<unsigned __int128>(z) * lines) >> 64);
  };
  uint64_t sum = 0;
  for (size_t i = 0; i < n; ++i) {
    hwy::Prefetch(words + 8 * line_of(i + distance));
    uint64_t* w = words + 8 * line_of(i);
    if (kWrite) {
      *w |= uint64_t{1} << (i & 63);
    } else {
      sum += *w;
    }
  }
  return sum;
}
}  // namespace

uint64_t RandomReads(uint64_t* words, size_t lines, size_t n, size_t distance, uint64_t seed) {
  return RandomLines<false>(words, lines, n, distance, seed);
}

uint64_t RandomRmws(uint64_t* words, size_t lines, size_t n, size_t distance, uint64_t seed) {
  return RandomLines<true>(words, lines, n, distance, seed);
}

volatile uint64_t g_sink;

}  // namespace sbbench
