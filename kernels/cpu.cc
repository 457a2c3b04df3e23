// SPDX-License-Identifier: Apache-2.0
// CPU feature detection for target selection, independent of libhwy (see cpu.h). Only Highway's
// macro headers are used here, for the target bits; nothing in this file needs a SIMD instruction
// set at compile time, and no libhwy function is called, so static users of simdbloom need no
// libhwy at all.
#include "kernels/cpu.h"

#include "hwy/detect_targets.h"  // HWY_* target bits and HWY_ARCH_*; macros only

#if HWY_ARCH_X86
#include <cpuid.h>

#include <initializer_list>
#include <utility>
#elif HWY_ARCH_ARM_A64 && HWY_HAVE_RUNTIME_DISPATCH && defined(__linux__)
#include <sys/auxv.h>
#define SIMDBLOOM_DETECT_AARCH64_LINUX 1
#endif

namespace simdbloom {
namespace detail {
namespace {

#if HWY_ARCH_X86

struct Regs {
  uint32_t a, b, c, d;
};

Regs Cpuid(uint32_t leaf, uint32_t subleaf) {
  Regs r{};
  __cpuid_count(leaf, subleaf, r.a, r.b, r.c, r.d);
  return r;
}

constexpr bool Bit(uint32_t reg, int i) { return ((reg >> i) & 1u) != 0; }

// XGETBV(0), spelled as bytes so that no -mxsave is needed. Only valid when CPUID says OSXSAVE.
uint32_t ReadXcr0() {
  uint32_t lo, hi;
  asm volatile(".byte 0x0f, 0x01, 0xd0" : "=a"(lo), "=d"(hi) : "c"(0));
  (void)hi;
  return lo;
}

// The feature flags Highway's target groups are made of.
enum Feature : uint32_t {
  kSSE,
  kSSE2,
  kSSE3,
  kSSSE3,
  kSSE41,
  kSSE42,
  kCLMUL,
  kAES,
  kAVX,
  kAVX2,
  kF16C,
  kFMA,
  kLZCNT,
  kBMI,
  kBMI2,
  kAVX512F,
  kAVX512VL,
  kAVX512DQ,
  kAVX512BW,
  kVNNI,
  kVPCLMULQDQ,
  kVBMI,
  kVBMI2,
  kVAES,
  kPOPCNTDQ,
  kBITALG,
};
constexpr uint64_t F(Feature f) { return uint64_t{1} << f; }

constexpr uint64_t kNeedSSSE3 = F(kSSE) | F(kSSE2) | F(kSSE3) | F(kSSSE3);
constexpr uint64_t kNeedSSE4 = kNeedSSSE3 | F(kSSE41) | F(kSSE42) | F(kCLMUL) | F(kAES);
constexpr uint64_t kNeedAVX2 =
    kNeedSSE4 | F(kAVX) | F(kAVX2) | F(kLZCNT) | F(kBMI) | F(kBMI2) | F(kFMA) | F(kF16C);
constexpr uint64_t kNeedAVX3 = kNeedAVX2 | F(kAVX512F) | F(kAVX512VL) | F(kAVX512DQ) | F(kAVX512BW);
constexpr uint64_t kNeedAVX3_DL = kNeedAVX3 | F(kVNNI) | F(kVPCLMULQDQ) | F(kVBMI) | F(kVBMI2) |
                                  F(kVAES) | F(kPOPCNTDQ) | F(kBITALG);

// The features of one cpuid register: F(feature) for each {bit, feature} whose bit is set.
uint64_t Features(uint32_t reg, std::initializer_list<std::pair<int, Feature>> bits) {
  uint64_t f = 0;
  for (const auto& [bit, feature] : bits) f |= Bit(reg, bit) ? F(feature) : 0;
  return f;
}

int64_t DetectX86() {
  int64_t bits = 0;
  uint64_t f = 0;
  const uint32_t max_leaf = Cpuid(0, 0).a;

  const Regs l1 = Cpuid(1, 0);
  f |= Features(l1.d, {{25, kSSE}, {26, kSSE2}});
  f |= Features(l1.c, {{0, kSSE3},
                       {1, kCLMUL},
                       {9, kSSSE3},
                       {12, kFMA},
                       {19, kSSE41},
                       {20, kSSE42},
                       {25, kAES},
                       {28, kAVX},
                       {29, kF16C}});
  const bool osxsave = Bit(l1.c, 27);

  // Highway reads this leaf unconditionally (as it does, we do not check the maximum extended
  // leaf).
  f |= Bit(Cpuid(0x80000001u, 0).c, 5) ? F(kLZCNT) : 0;

  if (max_leaf >= 7) {
    const Regs l7 = Cpuid(7, 0);
    f |= Features(l7.b, {{3, kBMI},
                         {5, kAVX2},
                         {8, kBMI2},
                         {16, kAVX512F},
                         {17, kAVX512DQ},
                         {30, kAVX512BW},
                         {31, kAVX512VL}});
    f |= Features(l7.c, {{1, kVBMI},
                         {6, kVBMI2},
                         {9, kVAES},
                         {10, kVPCLMULQDQ},
                         {11, kVNNI},
                         {12, kBITALG},
                         {14, kPOPCNTDQ}});
  }

  const auto has = [f](uint64_t need) { return (f & need) == need; };
  if (has(kNeedAVX3_DL)) bits |= HWY_AVX3_DL;
  if (has(kNeedAVX3)) bits |= HWY_AVX3;
  if (has(kNeedAVX2)) bits |= HWY_AVX2;
  if (has(kNeedSSE4)) bits |= HWY_SSE4;
  if (has(kNeedSSSE3)) bits |= HWY_SSSE3;

  // Registers the OS does not save across context switches are unusable. As Highway 1.0.3 does,
  // this is only checked when the OS uses XSAVE at all.
  if (osxsave) {
    const uint32_t xcr0 = ReadXcr0();
    const int64_t avx3 = HWY_AVX3 | HWY_AVX3_DL;
    const int64_t avx2 = HWY_AVX2 | avx3;
    if (!Bit(xcr0, 1)) bits &= ~(HWY_SSSE3 | HWY_SSE4 | avx2);           // XMM
    if (!Bit(xcr0, 2)) bits &= ~avx2;                                    // YMM
    if (!Bit(xcr0, 5) || !Bit(xcr0, 6) || !Bit(xcr0, 7)) bits &= ~avx3;  // opmask, ZMM
  }
  return bits;
}

#elif defined(SIMDBLOOM_DETECT_AARCH64_LINUX)

// Linux's aarch64 HWCAP bits (arch/arm64/include/uapi/asm/hwcap.h), stable kernel ABI.
constexpr unsigned long kHwcapAes = 1ul << 3;
constexpr unsigned long kHwcapSve = 1ul << 22;
constexpr unsigned long kHwcap2Sve2 = 1ul << 1;
constexpr unsigned long kHwcap2SveAes = 1ul << 2;

// The SVE vector length in bytes: RDVL x0, #1 as its encoding, so that no SVE flag is needed to
// compile it. Only called when the kernel reports SVE.
uint64_t SveVectorBytes() {
  uint64_t bytes;
  asm volatile(".inst 0x04bf5020\n\tmov %0, x0" : "=r"(bytes) : : "x0");
  return bytes;
}

int64_t DetectAarch64() {
  int64_t bits = 0;
  const unsigned long hw = getauxval(AT_HWCAP);
  const unsigned long hw2 = getauxval(AT_HWCAP2);
  if (hw & kHwcapAes) bits |= HWY_NEON;  // Highway's NEON target requires AES
  if (hw & kHwcapSve) bits |= HWY_SVE;
  if ((hw2 & kHwcap2Sve2) && (hw2 & kHwcap2SveAes)) bits |= HWY_SVE2;
  // Highway measures the vector length with its best target among these: SVE/SVE2 give the SVE
  // length, NEON (or none) 16 bytes.
  const uint64_t vec_bytes = (bits & (HWY_SVE | HWY_SVE2)) != 0 ? SveVectorBytes() : 16;
  if ((bits & HWY_SVE) && vec_bytes == 32) bits |= HWY_SVE_256;
  if ((bits & HWY_SVE2) && vec_bytes == 16) bits |= HWY_SVE2_128;
  return bits;
}

#endif

}  // namespace

int64_t DetectCpuHwyTargets() {
  int64_t bits = HWY_SCALAR | HWY_EMU128;
#if HWY_ARCH_X86
  bits |= DetectX86();
#elif defined(SIMDBLOOM_DETECT_AARCH64_LINUX)
  bits |= DetectAarch64();
#else
  bits |= HWY_ENABLED_BASELINE;  // as Highway: no run-time detection elsewhere
#endif
  return bits;
}

int64_t CpuHwyTargets() {
  static const int64_t bits = DetectCpuHwyTargets();
  return bits;
}

}  // namespace detail
}  // namespace simdbloom
