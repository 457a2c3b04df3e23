// SPDX-License-Identifier: Apache-2.0
// simdbloom internal, installed because the single-key calls are inline: the compiler attributes
// the inline code uses, and whether this is a ThreadSanitizer build (SIMDBLOOM_TSAN, 0 or 1: the
// one definition, which the library's kernels use too, kernels/shared.h). Not an API of its own.
#ifndef SIMDBLOOM_DETAIL_COMPILER_HPP_
#define SIMDBLOOM_DETAIL_COMPILER_HPP_

// Forces inlining of the few-instruction single-key path (GCC at -O2 otherwise keeps
// Filter::contains_hash out of line), and unrolls its fixed 8-word loops.
#if defined(__GNUC__) || defined(__clang__)
#define SIMDBLOOM_INLINE inline __attribute__((always_inline))
#else
#define SIMDBLOOM_INLINE inline
#endif
// A single-key call's slow path, kept out of its inline fast path.
#if defined(__GNUC__) || defined(__clang__)
#define SIMDBLOOM_NOINLINE __attribute__((noinline))
#else
#define SIMDBLOOM_NOINLINE
#endif
// Out-of-line paths a hot loop never takes (errors).
#if defined(__GNUC__) || defined(__clang__)
#define SIMDBLOOM_COLD __attribute__((cold))
#define SIMDBLOOM_PURE __attribute__((pure))
#else
#define SIMDBLOOM_COLD
#define SIMDBLOOM_PURE
#endif
#if defined(__clang__)
#define SIMDBLOOM_UNROLL8 _Pragma("unroll")
#elif defined(__GNUC__)
#define SIMDBLOOM_UNROLL8 _Pragma("GCC unroll 8")
#else
#define SIMDBLOOM_UNROLL8
#endif

// Whether this is a ThreadSanitizer build (GCC defines __SANITIZE_THREAD__, clang has the feature).
#if defined(__SANITIZE_THREAD__)
#define SIMDBLOOM_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SIMDBLOOM_TSAN 1
#endif
#endif
#ifndef SIMDBLOOM_TSAN
#define SIMDBLOOM_TSAN 0
#endif

#endif  // SIMDBLOOM_DETAIL_COMPILER_HPP_
