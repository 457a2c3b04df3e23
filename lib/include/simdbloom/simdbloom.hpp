// SPDX-License-Identifier: Apache-2.0
// simdbloom: Bloom filters with batch APIs and run-time SIMD dispatch. C++17, no SIMD or hashing
// library in this header. The bit layouts are specified in lib/FORMAT.md and frozen.
//
// Thread-safety, for every function of these headers unless it says otherwise: const member functions may run
// concurrently with each other on the same filter; a non-const member function needs exclusive
// access to that filter. Different filters are independent. The exception is the family of
// insert_concurrent calls: any number of threads may run them on one filter at once, together with
// const calls (queries) on it; see "Many writers" in Filter.
#ifndef SIMDBLOOM_SIMDBLOOM_HPP_
#define SIMDBLOOM_SIMDBLOOM_HPP_

#define SIMDBLOOM_VERSION_MAJOR 0
#define SIMDBLOOM_VERSION_MINOR 2
#define SIMDBLOOM_VERSION_PATCH 0
#define SIMDBLOOM_VERSION_STRING "0.2.0"

// The C++ API in one include, by job: simdbloom/basics.hpp (layouts, errors, Span, version, SIMD
// targets, sizing), simdbloom/keys.hpp (Keys, Threads) and simdbloom/filter.hpp (Filter). The
// library is compiled with hidden visibility; only these headers' declarations are exported.
#include "simdbloom/basics.hpp"  // IWYU pragma: export
#include "simdbloom/filter.hpp"  // IWYU pragma: export
#include "simdbloom/keys.hpp"    // IWYU pragma: export

#endif  // SIMDBLOOM_SIMDBLOOM_HPP_
