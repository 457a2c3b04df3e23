// SPDX-License-Identifier: Apache-2.0
// Part of simdbloom.hpp (include that): what every class shares: the layouts, the error types,
// Span, the library version, the SIMD target selection and the sizing functions. Exported ABI
// (hidden visibility elsewhere in the library); thread-safety as simdbloom.hpp says.
#ifndef SIMDBLOOM_BASICS_HPP_
#define SIMDBLOOM_BASICS_HPP_

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

// Exported ABI: the library is compiled with hidden visibility.
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

namespace simdbloom {

// Bit layout of a filter; each is specified bit-exactly in lib/FORMAT.md. Bits per key at 1% /
// 0.1% as create() sizes them: classic 9.65 / 14.4, block512 10.0 / 15.7, split_block256 10.6 /
// 17.0, register64 12.3 / 24.2, shifting 10.1 / 15.7.
enum class Layout : uint8_t {
  // k (1..16) bits inside one 64-byte cache line: one memory access per key. The default.
  kBlock512 = 1,
  // k (1..16) bits inside one 64-bit word: the fastest; needs the most bits per key.
  kRegister64 = 2,
  // Parquet's split block Bloom filter: 256-bit blocks of eight u32 words, one bit per word
  // (k = 8), XXH64 hashing; bit-exact with the Parquet specification when the seed is 0.
  kSplitBlock256 = 3,
  // The textbook filter: k (1..32) bits anywhere in the array by double hashing. Fewest bits per
  // key, k memory accesses per key.
  kClassic = 4,
  // The shifting Bloom filter's membership form (ShBF_M, Yang et al., VLDB 2016) in one cache
  // line: k (1..16) bits as ceil(k/2) pairs, each pair two bits of one 64-bit word at a per-key
  // offset, so a key tests ceil(k/2) words where block512 tests k (kernels/shbf_m/spec.h).
  kShifting = 5,
  // Guava's com.google.common.hash.BloomFilter, bit for bit (lib/FORMAT.md, "guava and
  // guava32"): strategy MURMUR128_MITZ_64 (what Guava's create makes), Murmur3 x64 128 (seed 0)
  // of the key's funnel bytes, k (1..255) bits anywhere in an array of 64-bit words. create()
  // sizes as Guava 31.1's create(); from_guava / to_guava read and write Guava's writeTo bytes.
  // The filter's seed seeds Murmur3 (h1 = h2 = seed; Guava's is 0: to_guava needs seed 0);
  // pre-hashed keys are refused (MITZ_64 needs both halves of the 128-bit hash, which a 64-bit
  // hash cannot carry).
  kGuava = 6,
  // Guava's older strategy MURMUR128_MITZ_32 (ordinal 0, in filters serialized by old Guava
  // versions): as kGuava, probes from the first 64 bits of the hash only; a pre-hashed key is that
  // value (Guava's HashCode.asLong()).
  kGuava32 = 7,
};

// "block512", "register64", "split_block256", "classic", "shifting", "guava", "guava32";
// "unknown" for other values.
// O(1).
const char* layout_name(Layout layout) noexcept;
// Bits per block of `layout` (the granularity of its size): 512, 64, 256, 512 (classic), 512
// (shifting), 64 (guava, guava32: Guava's longs). Throws Error(kInvalidArgument) for an unknown
// layout. O(1).
uint32_t block_bits(Layout layout);

enum class ErrorCode : int {
  kInvalidArgument = 1,  // a parameter is outside its documented range, or a null pointer
  kUnknownTarget = 2,    // a SIMD target name that is unknown or not supported by this CPU
  kOutOfMemory = 3,      // the bit array could not be allocated
  kFormat = 4,        // bytes are not a valid filter: truncated, bad magic/version/field/checksum
  kIo = 5,            // a stream or file could not be opened, read or written
  kIncompatible = 6,  // a set operation or export on filters whose parameters do not allow it
  kReadOnly = 7,      // a mutation of a filter created by Filter::view
  kCapacityExhausted = 8,  // a ScalableFilter can add no stage (64 stages, or the rate floor)
};

// The only exception type this library throws (besides std::bad_alloc from std containers).
class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& what) : std::runtime_error(what), code_(code) {}
  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};
// An integer key on a byte-string filter, or a byte string (or record) on an integer filter
// (KeyType): code kInvalidArgument; the message names the call, the key and the filter's key type.
// (Python raises TypeError for it.)
class KeyTypeError : public Error {
 public:
  explicit KeyTypeError(const std::string& what) : Error(ErrorCode::kInvalidArgument, what) {}
};

// A read-only view of `size` contiguous elements (C++17 stand-in for std::span). The pointer need
// not be aligned to alignof(T): bulk calls read it with unaligned loads. Trivially copyable.
template <class T>
class Span {
 public:
  constexpr Span() noexcept = default;
  constexpr Span(const T* data, size_t size) noexcept : data_(data), size_(size) {}
  template <size_t N>
  constexpr Span(const T (&array)[N]) noexcept : data_(array), size_(N) {}
  // Any contiguous container of T (std::vector, std::array, ...).
  template <class Container,
            class = std::enable_if_t<std::is_convertible<
                decltype(std::declval<const Container&>().data()), const T*>::value>,
            class = decltype(std::declval<const Container&>().size())>
  constexpr Span(const Container& c) noexcept : data_(c.data()), size_(c.size()) {}
  constexpr const T* data() const noexcept { return data_; }
  constexpr size_t size() const noexcept { return size_; }
  constexpr bool empty() const noexcept { return size_ == 0; }
  constexpr const T* begin() const noexcept { return data_; }
  constexpr const T* end() const noexcept { return data_ + size_; }
  constexpr const T& operator[](size_t i) const noexcept { return data_[i]; }

 private:
  const T* data_ = nullptr;
  size_t size_ = 0;
};

// Every layout this library implements, in id order (from kernels/registry.h). O(1), no
// allocation; the span is valid for the program's life.
Span<const Layout> layouts() noexcept;

// Library version as "MAJOR.MINOR.PATCH" (equals SIMDBLOOM_VERSION_STRING of the built library).
// Cost: O(1), no allocation.
const char* version() noexcept;

// ---- SIMD target selection (process-wide) ----
// Names: Highway's target names ("AVX3", "AVX2", "SSE4", "SSSE3", "NEON", "SVE", "SVE2", "SVE_256",
// "SVE2_128", "SCALAR") and "reference" (the plain C++ oracle). Matching is case-insensitive.
// At first use the best target of this CPU is chosen, unless the environment variable
// SIMDBLOOM_TARGET names one. Results and filter bytes never depend on the target.

// Name of the target bulk calls use now. Throws Error(kUnknownTarget) if SIMDBLOOM_TARGET is set to
// a name that is unknown or unsupported here. Cost: O(1) after the first call; thread-safe.
std::string active_target();
// Targets usable on this CPU, the default (best) first, "reference" last. Allocates; thread-safe.
std::vector<std::string> available_targets();
// Makes bulk calls use `name` from now on (all threads). Throws Error(kUnknownTarget) if it is not
// in available_targets(). Thread-safe; calls already running finish on the previous target.
void set_target(const std::string& name);
// Returns to the best target of this CPU, ignoring SIMDBLOOM_TARGET. Thread-safe.
void reset_target() noexcept;

// ---- Sizing (pure functions, no allocation, thread-safe) ----

// Predicted false-positive rate of `layout` with `bits` bits (rounded up to whole blocks), `k`
// probes and `n` distinct keys inserted; FORMAT.md gives each layout's formula. Throws
// Error(kInvalidArgument) for bits == 0 or k outside the layout's range. Cost: at most a few
// hundred exp() calls (block512, k > 8), no allocation after the first call per layout.
double predicted_fpp(Layout layout, uint64_t bits, uint32_t k, uint64_t n);

// Sizing aims the predicted rate at kSizingHeadroom * fpp, not at fpp itself. The models agree
// with measured rates to within 0.6% (FORMAT.md), so a filter sized at exactly fpp would measure
// above fpp about half the time; 3% headroom costs about 0.06 bits/key and keeps the measured rate
// of a filter at its design load below fpp.
constexpr double kSizingHeadroom = 0.97;

// A filter's size chosen for (n, fpp): what create() would build.
struct Sizing {
  uint64_t bits;         // a whole number of blocks of the layout
  uint32_t k;            // probes per key
  double predicted_fpp;  // predicted_fpp(layout, bits, k, n) <= kSizingHeadroom * fpp
};
// The smallest filter of `layout` whose predicted false-positive rate at `expected_items` keys is
// at most kSizingHeadroom * fpp, over every k the layout allows (ties: the smaller k). Not
// rounded to a power of two. Throws Error(kInvalidArgument) for expected_items == 0, fpp outside
// [1e-9, 1), or a size beyond the layout's 2^32 - 1 blocks. Cost: a binary search per k, about 1
// ms; no allocation.
Sizing size_for(uint64_t expected_items, double fpp, Layout layout = Layout::kBlock512);

}  // namespace simdbloom

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif  // SIMDBLOOM_BASICS_HPP_
