// SPDX-License-Identifier: Apache-2.0
// Shared test helpers: the list of targets to test, target switching that is undone even when an
// assertion throws, and the one deterministic key generator of the tests.
#ifndef SIMDBLOOM_TESTS_TEST_UTIL_H_
#define SIMDBLOOM_TESTS_TEST_UTIL_H_

#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/dispatch.h"
#include "kernels/reference.h"
#include "simdbloom/simdbloom.hpp"

namespace simdbloom {
namespace test {

// SplitMix64: fixed-seed key streams. The only generator of the C++ tests: use it (or RandomKeys)
// rather than a new one.
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed) {}
  uint64_t operator()() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

// The code of the Error fn() throws (whose message must not be empty), or ErrorCode 0 if none.
template <class Fn>
ErrorCode CodeOf(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    CHECK(std::strlen(e.what()) > 0);
    return e.code();
  }
  return static_cast<ErrorCode>(0);
}

// For results computed once per target: checks each against the first target's.
template <class T>
struct SameOnEveryTarget {
  bool seen = false;
  T first{};
  void Check(const T& value) {
    if (!seen) {
      first = value;
      seen = true;
    } else {
      CHECK(value == first);
    }
  }
};

// The message of the Error fn() throws, checking its code ("no error" if it throws none).
template <class Fn>
std::string MessageOf(ErrorCode code, Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    CHECK(e.code() == code);
    return e.what();
  }
  return "no error";
}

// Checks that b has a's geometry (blocks, k, seed) and the same bytes; for every kind with
// num_blocks, num_hashes, seed, size_bytes and data.
template <class F>
void CheckSameBits(const F& a, const F& b) {
  CHECK(a.num_blocks() == b.num_blocks());
  CHECK(a.num_hashes() == b.num_hashes());
  CHECK(a.seed() == b.seed());
  REQUIRE(a.size_bytes() == b.size_bytes());
  CHECK(std::memcmp(a.data(), b.data(), a.size_bytes()) == 0);
}

// A 64-byte aligned copy of `bytes` at offset `misalign` (views and kernels need the alignment),
// with room for 64 more bytes.
struct Aligned {
  std::vector<uint64_t> storage;
  uint8_t* ptr;
  explicit Aligned(const std::string& bytes, size_t misalign = 0) : storage(bytes.size() / 8 + 24) {
    const uintptr_t p = reinterpret_cast<uintptr_t>(storage.data());
    ptr = reinterpret_cast<uint8_t*>(storage.data()) + ((64 - p % 64) % 64) + misalign;
    if (!bytes.empty()) std::memcpy(ptr, bytes.data(), bytes.size());
  }
};

// `bytes` of a saved file (a 64-byte header with its checksum of bytes 0..55 at 56) as a file saved
// before key types: the key type byte at `at` 0 (legacy), the header checksum recomputed.
inline std::vector<uint8_t> AsLegacy(std::vector<uint8_t> bytes, size_t at) {
  bytes[at] = 0;
  const uint64_t sum = ref::Checksum(bytes.data(), 56);
  for (int i = 0; i < 8; ++i) bytes[56 + i] = static_cast<uint8_t>(sum >> (8 * i));
  return bytes;
}
inline std::string AsLegacy(const std::string& bytes, size_t at) {
  const std::vector<uint8_t> v = AsLegacy(std::vector<uint8_t>(bytes.begin(), bytes.end()), at);
  return std::string(v.begin(), v.end());
}

// A copy of `f` (same bits) that holds `type`: for tests that compare integer keys with their
// bytes (a filter of u64 keys and one of their 8-byte strings have the same bits).
inline Filter WithKeyType(const Filter& f, KeyType type) {
  std::stringstream s;
  f.save(s);
  std::string bytes = s.str();
  bytes[18] = static_cast<char>(type);
  const uint64_t sum = ref::Checksum(reinterpret_cast<const uint8_t*>(bytes.data()), 56);
  for (int i = 0; i < 8; ++i) bytes[56 + i] = static_cast<char>(sum >> (8 * i));
  return Filter::load(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

inline std::vector<uint64_t> RandomKeys(size_t n, uint64_t seed) {
  Rng rng(seed);
  std::vector<uint64_t> keys(n);
  for (auto& k : keys) k = rng();
  return keys;
}

bool SameTargetName(const std::string& a, const std::string& b);

// The SIMD targets under test: every compiled target this CPU supports
// (hwy::SupportedAndGeneratedTargets), or only the one named by SIMDBLOOM_TEST_TARGET.
// The reference itself is not included: it is what they are compared with.
std::vector<const detail::Kernels*> TargetsUnderTest();

// set_target is process-global: a TargetGuard puts back the target that was active when it was made
// once it goes out of scope, also when a REQUIRE throws out of the scope, so later tests never run
// on a target an earlier one chose.
class TargetGuard {
 public:
  // Saves the active target.
  TargetGuard() {
    try {
      previous_ = active_target();
    } catch (const Error&) {
      // SIMDBLOOM_TARGET names no usable target: no target is active, and the public API cannot
      // return to that state. The destructor then restores the default (reset_target).
    }
  }
  // Saves the active target, then set_target(name) (which throws if `name` is not available).
  explicit TargetGuard(const std::string& name) : TargetGuard() { set_target(name); }
  ~TargetGuard() {
    if (previous_.empty()) {
      reset_target();
      return;
    }
    try {
      set_target(previous_);
    } catch (...) {
      reset_target();
    }
  }
  TargetGuard(const TargetGuard&) = delete;
  TargetGuard& operator=(const TargetGuard&) = delete;

 private:
  std::string previous_;
};

// Runs fn(target name) with each of available_targets() active (the reference included), the name
// captured for failing assertions; the previous target is active again afterwards, whatever fn
// does.
template <class Fn>
void ForEachApiTarget(Fn&& fn) {
  const TargetGuard restore;
  for (const std::string& t : available_targets()) {
    set_target(t);
    CAPTURE(t);
    fn(t);
  }
}

// Runs fn(kernels) on each of TargetsUnderTest(): kernel-level, no set_target.
template <class Fn>
void ForEachTarget(const char* suite, Fn&& fn) {
  for (const detail::Kernels* k : TargetsUnderTest()) {
    std::printf("[%s] target %s\n", suite, k->name);
    std::fflush(stdout);
    fn(*k);
  }
}

// The same keys in every bulk shape Keys accepts (u64, u32, u16, std::string, std::string_view,
// Arrow offsets of both widths, fixed-width records, pre-hashed), each with the hash of its key i
// as the single-key call of filter `f` computes it (f.hash(key)): for tests that a kind's bulk
// calls equal its single-key calls over every shape. The shapes point into this object.
struct KeyShapes {
  struct Shape {
    Keys keys;
    std::function<uint64_t(size_t)> hash;  // of key i
  };
  std::vector<uint64_t> raw, hashes;
  std::vector<uint32_t> u32;
  std::vector<uint16_t> u16;
  std::vector<std::string> strings;
  std::vector<std::string_view> views;
  std::vector<int32_t> off32{0};
  std::vector<int64_t> off64{0};
  std::string blob;
  std::vector<uint8_t> records;

  explicit KeyShapes(std::vector<uint64_t> keys) : raw(std::move(keys)) {
    u32.assign(raw.begin(), raw.end());
    u16.assign(raw.begin(), raw.end());
    for (uint64_t k : raw) strings.push_back("key-" + std::to_string(k % 100000));
    views.assign(strings.begin(), strings.end());
    for (const std::string& s : strings) {
      blob += s;
      off32.push_back(static_cast<int32_t>(blob.size()));
      off64.push_back(static_cast<int64_t>(blob.size()));
    }
    records.assign(raw.size() * 16, 0);
    for (size_t i = 0; i < raw.size(); ++i) std::memcpy(&records[16 * i], &raw[i], 8);
  }

  // The shapes, hashed as `f` hashes (f must outlive the result; `hashes` is refilled).
  template <class F>
  std::vector<Shape> For(const F& f) {
    hashes.clear();
    for (uint64_t k : raw) hashes.push_back(f.hash(k));
    const auto* bytes = reinterpret_cast<const uint8_t*>(blob.data());
    return {
        {Keys(raw), [this, &f](size_t i) { return f.hash(raw[i]); }},
        {Keys(u32), [this, &f](size_t i) { return f.hash(u32[i]); }},
        {Keys(u16), [this, &f](size_t i) { return f.hash(u16[i]); }},
        {Keys(strings), [this, &f](size_t i) { return f.hash(strings[i]); }},
        {Keys(views), [this, &f](size_t i) { return f.hash(views[i]); }},
        {BinaryArray<int32_t>{off32.data(), bytes, strings.size()},
         [this, &f](size_t i) { return f.hash(views[i]); }},
        {BinaryArray<int64_t>{off64.data(), bytes, strings.size()},
         [this, &f](size_t i) { return f.hash(views[i]); }},
        {FixedWidth{records.data(), 8, 16, raw.size()},
         [this, &f](size_t i) { return f.hash(raw[i]); }},
        {Prehashed{hashes.data(), hashes.size()}, [this](size_t i) { return hashes[i]; }},
    };
  }
};

}  // namespace test
}  // namespace simdbloom

#endif  // SIMDBLOOM_TESTS_TEST_UTIL_H_
