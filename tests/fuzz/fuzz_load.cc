// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: every way of reading untrusted bytes - Filter::load (bytes and stream),
// Filter::view (64-byte aligned copy), Filter::from_parquet, CountingFilter::load/view,
// ScalableFilter::from_bytes/load, the shifting set filters' load and SpatialFilter::load (bytes
// and stream; format versions 1 and 2, the names table included) - must either return a valid
// filter or throw simdbloom::Error; never crash, leak or read out of bounds (ASan/UBSan). Built by
// cmake/fuzz.sh with clang and -fsanitize=fuzzer,address,undefined.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "simdbloom/counting.hpp"
#include "simdbloom/scalable.hpp"
#include "simdbloom/shifting.hpp"
#include "simdbloom/simdbloom.hpp"
#include "simdbloom/spatial.hpp"

namespace {

// Exercises a filter that was accepted: every query path reads only its own bits.
void Use(const simdbloom::Filter& f) {
  const uint64_t keys[3] = {0, 1, 0x9E3779B97F4A7C15ull};
  uint8_t out[3];
  f.contains(keys, out);
  (void)f.contains(std::string_view("hello"));
  (void)f.expected_fpp();
  (void)f.approximate_count();
  simdbloom::Filter copy = f;
  copy.insert(keys);
  copy.merge(f);
}

// Exercises a chain that was accepted: queries over every stage, growth, a round trip.
void Use(const simdbloom::ScalableFilter& s) {
  const uint64_t keys[3] = {0, 1, 0x9E3779B97F4A7C15ull};
  uint8_t out[3];
  s.contains(keys, out);
  (void)s.expected_fpp();
  simdbloom::ScalableFilter copy = s;
  copy.insert(keys);
  const std::vector<uint8_t> bytes = s.to_bytes();
  if (simdbloom::ScalableFilter::from_bytes(bytes.data(), bytes.size()).to_bytes() != bytes) {
    std::abort();
  }
}

// The same for an accepted counting filter: queries, updates and the plain filter it gives.
void UseCounting(const simdbloom::CountingFilter& f) {
  const uint64_t keys[3] = {0, 1, 0x9E3779B97F4A7C15ull};
  uint8_t out[3];
  f.contains(keys, out);
  f.count(keys, out);
  (void)f.count(std::string_view("hello"));
  (void)f.saturated_count();
  simdbloom::CountingFilter copy = f;
  copy.insert(keys);
  copy.remove(keys, out);
  (void)copy.remove(uint64_t{7});
  (void)f.to_filter().contains(uint64_t{1});
}

// Exercises a spatial filter that was accepted: classify, stats (measured), area names, insert,
// save; a save and load again gives the same bytes (version 1, or 2 with area names).
void UseSpatial(const simdbloom::SpatialFilter& f) {
  const uint64_t keys[3] = {0, 1, 0x9E3779B97F4A7C15ull};
  uint16_t labels[3];
  f.classify(keys, labels);
  for (uint16_t l : labels) {
    if (l > f.current_label()) std::abort();  // the loader checked every cell
  }
  (void)f.stats(true);
  size_t name_bytes = 0;
  for (uint32_t l = 1; l <= f.num_areas(); ++l) {
    name_bytes += f.area_name(static_cast<uint16_t>(l)).size();
  }
  if (name_bytes > 0 && !f.has_area_names()) std::abort();
  std::ostringstream saved;
  f.save(saved);
  const std::string bytes = saved.str();
  if (bytes.size() != f.serialized_size()) std::abort();
  std::ostringstream again;
  simdbloom::SpatialFilter::load(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size())
      .save(again);
  if (again.str() != bytes) std::abort();
  simdbloom::SpatialFilter copy = f;
  copy.insert(static_cast<uint16_t>(f.num_areas()), keys);
  copy.set_area_name(1, "fuzz");
  std::ostringstream out;
  copy.save(out);
}

template <class Fn>
void Try(Fn&& fn) {
  try {
    fn();
  } catch (const simdbloom::Error&) {
    // The documented outcome for bad input.
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Try([&] { Use(simdbloom::Filter::load(data, size)); });
  Try([&] {
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    Use(simdbloom::Filter::load(in));
  });
  Try([&] {
    void* aligned = nullptr;
    if (posix_memalign(&aligned, 64, size + 64) != 0) return;
    if (size > 0) std::memcpy(aligned, data, size);
    try {
      Use(simdbloom::Filter::view(static_cast<const uint8_t*>(aligned), size));
    } catch (...) {
      std::free(aligned);
      throw;
    }
    std::free(aligned);
  });
  Try([&] {
    size_t consumed = 0;
    simdbloom::Filter f = simdbloom::Filter::from_parquet(data, size, &consumed);
    if (consumed > size) std::abort();
    Use(f);
    (void)f.to_parquet();
  });
  Try([&] { Use(simdbloom::ScalableFilter::from_bytes(data, size)); });
  Try([&] {
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    Use(simdbloom::ScalableFilter::load(in));
  });
  Try([&] { UseCounting(simdbloom::CountingFilter::load(data, size)); });
  Try([&] {
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    UseCounting(simdbloom::CountingFilter::load(in));
  });
  Try([&] {
    void* aligned = nullptr;
    if (posix_memalign(&aligned, 64, size + 64) != 0) return;
    if (size > 0) std::memcpy(aligned, data, size);
    try {
      UseCounting(simdbloom::CountingFilter::view(static_cast<const uint8_t*>(aligned), size,
                                                  /*verify_checksum=*/false));
    } catch (...) {
      std::free(aligned);
      throw;
    }
    std::free(aligned);
  });
  Try([&] {
    const auto a = simdbloom::ShiftingAssociation::load(data, size);
    (void)a.query(uint64_t{1});
    (void)a.clear_answer_probability();
  });
  Try([&] {
    const auto m = simdbloom::ShiftingMultiplicity::load(data, size);
    (void)m.count(uint64_t{1});
    (void)m.correct_probability(m.max_count());
  });
  Try([&] { UseSpatial(simdbloom::SpatialFilter::load(data, size)); });
  Try([&] {
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    UseSpatial(simdbloom::SpatialFilter::load(in));
  });
  return 0;
}
