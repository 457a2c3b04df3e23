// SPDX-License-Identifier: Apache-2.0
// Internal (not installed): which Highway targets this CPU and OS can run, detected without libhwy.
#ifndef SIMDBLOOM_KERNELS_CPU_H_
#define SIMDBLOOM_KERNELS_CPU_H_

#include <cstdint>

namespace simdbloom {
namespace detail {

// The Highway target bits (hwy/detect_targets.h: HWY_AVX2, HWY_SVE2, ...) that this CPU and OS
// support, decided by the rules of Highway 1.0.3's hwy::SupportedTargets() (hwy/targets.cc), so
// that `CpuHwyTargets() & HWY_TARGETS == hwy::SupportedTargets() & HWY_TARGETS` (a test checks it):
//   x86: CPUID leaves 1, 7 and 0x80000001 give the feature groups Highway requires (SSSE3: SSE,
//        SSE2, SSE3, SSSE3; SSE4: + SSE4.1, SSE4.2, PCLMUL, AES; AVX2: + AVX, AVX2, LZCNT, BMI,
//        BMI2, FMA, F16C; AVX3: + AVX-512 F, VL, DQ, BW; AVX3_DL: + VNNI, VPCLMULQDQ, VBMI,
//        VBMI2, VAES, VPOPCNTDQ, BITALG); when the OS uses XSAVE, XCR0 must enable the XMM, YMM
//        (AVX2 and up) and opmask/ZMM (AVX3 and up) state.
//   aarch64 (Linux): HWCAP_AES for NEON, HWCAP_SVE for SVE, HWCAP2_SVE2 and HWCAP2_SVEAES for
//        SVE2; SVE_256 if SVE runs at 256 bits, SVE2_128 if SVE2 runs at 128 bits.
//   Always HWY_SCALAR and HWY_EMU128; on other architectures the compile-time baseline.
// Pure C++ with no SIMD code: this translation unit is compiled without target flags. Detected
// once per process (thread-safe).
int64_t CpuHwyTargets();

// The same, detected now (uncached).
int64_t DetectCpuHwyTargets();

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_CPU_H_
