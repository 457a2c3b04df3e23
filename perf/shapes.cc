// SPDX-License-Identifier: Apache-2.0
// Section 4, key shapes and result forms: block512 at --fpp with --shape-keys keys (default 1e7)
// on the dispatched target. Shapes: u64, u32, pre-hashed u64, URL-like strings of 20..100 bytes
// as string_views and as an Arrow int32-offsets array, 36-byte UUID strings (Arrow), 13-byte IPv4
// 5-tuples (fixed-width records): bulk insert, and contains of the inserted keys (every probe
// reads its block). Result forms, u64 keys with half of them present: bytes, bitmap, selection.
// Every row is the median ns/key over repetitions of at least 0.3 s, against the best (over
// prefetch distances 16..256) random 64-byte read over an array of the filter's size on 2 MiB
// pages, measured in the same run.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_util.h"

namespace sbbench {

void ShapesSection(const Options& o) {
  const size_t n = o.shape_keys;
  if (!o.json) {
    std::printf(
        "\n== Shapes: %zu keys per shape, block512 at fpp %g, target %s; contains of the\n"
        "   inserted keys (every probe reads its block), against random 64-byte reads over an\n"
        "   array of the filter's size (same run, 2 MiB pages)\n",
        n, o.fpp, simdbloom::active_target().c_str());
    RowHeader();
  }
  uint64_t s = 99;
  std::vector<uint64_t> u64(n);
  for (auto& k : u64) k = SplitMix(s);
  std::vector<uint32_t> u32(n);
  for (size_t i = 0; i < n; ++i) u32[i] = static_cast<uint32_t>(u64[i] >> 7);
  std::vector<int32_t> i32(u32.begin(), u32.end());
  std::vector<int16_t> i16(n);
  for (size_t i = 0; i < n; ++i) i16[i] = static_cast<int16_t>(u64[i] >> 9);
  const Column urls(Urls(n, 5));
  const Column uuids(Uuids(n, 6));
  std::vector<uint8_t> tuples(n * 13);  // IPv4 5-tuples: src, dst, sport, dport, proto
  for (auto& b : tuples) b = static_cast<uint8_t>(SplitMix(s));
  std::vector<uint8_t> out(n);
  std::vector<uint32_t> sel(n);
  std::vector<uint64_t> hashes(n);
  Options reps = o;
  reps.min_seconds = 0.3;

  Filter f = Filter::create(n, o.fpp, Layout::kBlock512, 0, KeyType::kInt64);
  PhysicalArray array(f.size_bytes(), true);
  double read_ns = 1e300;
  for (size_t d : kReferenceDistances) {
    read_ns = std::min(
        read_ns, MedianNsPerKey(
                     reps, n, [] {},
                     [&] { g_sink = RandomReads(array.words, f.size_bytes() / 64, n, d, 3); }));
  }
  f.hash(u64, hashes.data());
  // Each shape into a filter of its key type (lib/FORMAT.md, "Keys"): integer arrays of the
  // filter's width are read as they are, others converted by value (u32 and i16 into the default
  // 8-byte filter; u64 into a 4-byte one, with its range check).
  // The 4-byte values as u64 keys: a conversion with its range check, none out of range.
  const std::vector<uint64_t> u32_as_u64(u32.begin(), u32.end());
  struct Shape {
    const char* name;
    simdbloom::Keys keys;
    KeyType type;
  };
  const Shape shapes[] = {
      {"u64", simdbloom::Keys(u64), KeyType::kInt64},
      {"u32 (converted to int64)", simdbloom::Keys(u32), KeyType::kInt64},
      {"i16 (converted to int64)", simdbloom::Keys(i16), KeyType::kInt64},
      {"i32, int32 filter", simdbloom::Keys(i32), KeyType::kInt32},
      {"u64, int32 filter (converted)", simdbloom::Keys(u32_as_u64), KeyType::kInt32},
      {"pre-hashed u64", simdbloom::Prehashed{hashes.data(), n}, KeyType::kNone},
      {"URL 20..100 B, string_view", simdbloom::Keys(urls.views), KeyType::kBytes},
      {"URL 20..100 B, Arrow int32 offsets", urls.Arrow(), KeyType::kBytes},
      {"UUID 36 B, Arrow int32 offsets", uuids.Arrow(), KeyType::kBytes},
      {"IPv4 5-tuple, 13-byte records", simdbloom::FixedWidth{tuples.data(), 13, 13, n},
       KeyType::kBytes},
  };
  for (const Shape& shape : shapes) {
    Filter g = Filter::create(n, o.fpp, Layout::kBlock512, 0, shape.type);
    const double ins = MedianNsPerKey(
        reps, n, [&] { g.clear(); }, [&] { g.insert(shape.keys); });
    const double con = MedianNsPerKey(
        reps, n, [] {}, [&] { g.contains(shape.keys, out.data()); });
    Row(o, "shapes", std::string(shape.name) + " insert", "2MiB", n, ins, read_ns, "read");
    Row(o, "shapes", std::string(shape.name) + " contains", "2MiB", n, con, read_ns, "read");
  }
  // Result forms, u64 keys, half of them present.
  f.clear();
  f.insert(simdbloom::Span<const uint64_t>(u64.data(), n / 2));
  std::vector<uint8_t> bitmap((n + 7) / 8);
  const double bytes_ns = MedianNsPerKey(
      reps, n, [] {}, [&] { f.contains(u64, out.data()); });
  const double bitmap_ns = MedianNsPerKey(
      reps, n, [] {}, [&] { f.contains_bitmap(u64, bitmap.data()); });
  const double sel_ns = MedianNsPerKey(
      reps, n, [] {}, [&] { f.select(u64, sel.data()); });
  Row(o, "shapes", "u64 contains -> bytes, 50% hits", "2MiB", n, bytes_ns, read_ns, "read");
  Row(o, "shapes", "u64 contains -> bitmap, 50% hits", "2MiB", n, bitmap_ns, read_ns, "read");
  Row(o, "shapes", "u64 select -> selection, 50% hits", "2MiB", n, sel_ns, read_ns, "read");
}

}  // namespace sbbench
