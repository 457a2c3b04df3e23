// SPDX-License-Identifier: Apache-2.0
// simdbloom internal, installed because Filter's single-key calls are inline: the probe of one key
// for block512, split_block256 and register64 (and, on AVX2 / AVX-512, the cells of one key of
// SpatialFilter::classify with 1-byte cells and CountingFilter::contains / count, blocked),
// compiled in the CALLER's translation unit with the caller's instruction set. Included by
// simdbloom.hpp; not an API of its own. One file per path (one_key/avx512.hpp, avx2.hpp with the
// x86 parts they share in x86.hpp, neon.hpp, portable.hpp); this one chooses.
//
// Which code runs is chosen by the caller's predefined macros, never at run time:
//   __AVX512F__ + BW + DQ + VL (-march=x86-64-v4, or native on AVX-512 machines): the 8 words'
//       masks of a block512 key in one 512-bit vector (a multiply, a shift and a variable shift
//       for all probes at once), tested with one ternary-logic op and a mask test;
//   __AVX2__ (-march=x86-64-v3, or native on AVX2 machines): the same in two 256-bit halves;
//   __ARM_NEON on AArch64: the same in four 128-bit quarters;
//   otherwise (baseline x86-64, other targets, ThreadSanitizer builds): block512 and split_block256
//       by one call through the library's one-key table (one_key/table.hpp): the active
//       SIMD target's kernel where it has one (x86 with AVX2 at run time), else the scalar loops
//       of one_key/scalar.hpp; register64 by the inline scalar loop.
// Each choice lives in its own inline namespace (one_key_avx512, one_key_avx2, one_key_neon,
// one_key_portable) and Filter's inline single-key members take the namespace's `OneKey` type as a
// defaulted template argument, so two translation units built with different flags instantiate
// differently named functions: no one-definition-rule violation, and no unit ever runs another
// unit's instructions. Every path computes the same bits as the reference (kernels/reference.h);
// tests/one_key/ compiles the single-key tests at several -march levels (each path's file in one of
// them: baseline, x86-64-v3, -v4, and AArch64's NEON) and compares them.
#ifndef SIMDBLOOM_DETAIL_ONE_KEY_HPP_
#define SIMDBLOOM_DETAIL_ONE_KEY_HPP_

#include <cstdint>

#include "simdbloom/detail/compiler.hpp"
#include "simdbloom/detail/one_key/scalar.hpp"
#include "simdbloom/detail/one_key/table.hpp"
#include "simdbloom/detail/probes.hpp"

// Vector loads of words that insert_concurrent ORs into are not atomic in the C++ memory model, so
// ThreadSanitizer builds keep the relaxed atomic loads of the scalar path.
#if !SIMDBLOOM_TSAN && !defined(SIMDBLOOM_ONE_KEY_PORTABLE)
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512DQ__) && defined(__AVX512VL__)
#define SIMDBLOOM_ONE_KEY_AVX512 1
#elif defined(__AVX2__)
#define SIMDBLOOM_ONE_KEY_AVX2 1
#elif defined(__ARM_NEON) && defined(__aarch64__)
#define SIMDBLOOM_ONE_KEY_NEON 1
#endif
#endif
#if !defined(SIMDBLOOM_ONE_KEY_AVX512) && !defined(SIMDBLOOM_ONE_KEY_AVX2) && \
    !defined(SIMDBLOOM_ONE_KEY_NEON)
#define SIMDBLOOM_ONE_KEY_PORTABLE_PATH 1
#endif

#include "simdbloom/detail/one_key/avx2.hpp"
#include "simdbloom/detail/one_key/avx512.hpp"
#include "simdbloom/detail/one_key/neon.hpp"
#include "simdbloom/detail/one_key/portable.hpp"

#endif  // SIMDBLOOM_DETAIL_ONE_KEY_HPP_
