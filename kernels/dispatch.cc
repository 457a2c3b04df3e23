// The only translation unit compiled once per SIMD target (Highway's foreach_target) and the only
// dispatch point. Target selection is ours and never touches Highway's process-global state, so
// other Highway users in the process are unaffected by SIMDBLOOM_TARGET or set_target(). Nothing
// here calls into libhwy (no HWY_EXPORT / HWY_DYNAMIC_DISPATCH, whose first call runs
// hwy::GetChosenTarget and hwy::SupportedTargets): the CPU is probed by kernels/cpu.cc, so the
// library needs Highway's headers only.

// SIMD must enter only through Highway's per-target compilation: global target flags would make the
// baseline (and inline functions shared with other translation units) require that instruction set.
#if defined(__AVX__) || defined(__AVX2__) || defined(__AVX512F__) || defined(__ARM_FEATURE_SVE)
#error "simdbloom kernels must be compiled without -mavx*/-march=native/SVE flags"
#endif

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/dispatch.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/block512-inl.h"
#include "kernels/classic-inl.h"
#include "kernels/common-inl.h"
#include "kernels/hash-inl.h"
#include "kernels/register64-inl.h"
#include "kernels/split256-inl.h"

HWY_BEFORE_NAMESPACE();
namespace simdbloom {
namespace HWY_NAMESPACE {

void HashU64(const uint64_t* keys, size_t n, uint64_t seed, uint64_t* out) {
  HashXxh3Impl(keys, n, SeedConsts(seed), out);
}

void HashU64Xxh64(const uint64_t* keys, size_t n, uint64_t seed, uint64_t* out) {
  HashXxh64Impl(keys, n, SeedConsts(seed), out);
}

void HashU32(const uint32_t* keys, size_t n, uint64_t seed, uint64_t* out) {
  HashXxh3Impl(keys, n, SeedConsts(seed), out);
}

void HashU32Xxh64(const uint32_t* keys, size_t n, uint64_t seed, uint64_t* out) {
  HashXxh64Impl(keys, n, SeedConsts(seed), out);
}

void HashAny(bool xxh64, const detail::KeySource& keys, size_t n, uint64_t seed, uint64_t* out) {
  HashKeysAny(xxh64, keys, n, seed, out);
}

void BlockIndex(const uint64_t* hashes, size_t n, uint64_t num_blocks, uint64_t* out) {
  BlockIndexImpl(hashes, n, num_blocks, out);
}

template <bool kOr>
void CombineWords(uint64_t* HWY_RESTRICT dst, const uint64_t* HWY_RESTRICT src, size_t n) {
  const hn::ScalableTag<uint64_t> d;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const auto a = hn::Load(d, dst + i), b = hn::Load(d, src + i);
    hn::Store(kOr ? hn::Or(a, b) : hn::And(a, b), d, dst + i);
  }
  for (; i < n; ++i) dst[i] = kOr ? (dst[i] | src[i]) : (dst[i] & src[i]);
}

void OrWords(uint64_t* dst, const uint64_t* src, size_t n) { CombineWords<true>(dst, src, n); }
void AndWords(uint64_t* dst, const uint64_t* src, size_t n) { CombineWords<false>(dst, src, n); }

// This target's kernel table (exported below).
const detail::Kernels* GetKernels() {
  static const detail::Kernels kernels = {hwy::TargetName(HWY_TARGET),
                                          HWY_TARGET,
                                          &HashU64,
                                          &HashU64Xxh64,
                                          &HashU32,
                                          &HashU32Xxh64,
                                          &HashAny,
                                          &BlockIndex,
                                          &OrWords,
                                          &AndWords,
                                          {{},
                                           LayoutKernelsT<Block512>(),
                                           LayoutKernelsT<Register64>(),
                                           LayoutKernelsT<Split256>(),
                                           LayoutKernelsT<Classic>()}};
  return &kernels;
}

}  // namespace HWY_NAMESPACE
}  // namespace simdbloom
HWY_AFTER_NAMESPACE();

#if HWY_ONCE

#include <atomic>
#include <cctype>
#include <cstdlib>
#include <mutex>

#include "kernels/cpu.h"
#include "kernels/dispatch.h"
#include "kernels/reference.h"
#include "simdbloom/simdbloom.hpp"

namespace simdbloom {
namespace detail {
namespace {

// Every compiled target's GetKernels, laid out as HWY_EXPORT lays out its table (slot 0, which
// HWY_EXPORT fills with the libhwy-calling initializer, is unused here), so that Highway's
// ChosenTarget index arithmetic applies.
#if (HWY_TARGETS & (HWY_TARGETS - 1)) == 0
const Kernels* (*const kGetKernels[])() = {&HWY_STATIC_DISPATCH(GetKernels)};
size_t TableIndex(int64_t) { return 0; }
#else
const Kernels* (*const kGetKernels[HWY_MAX_DYNAMIC_TARGETS + 2])() = {
    nullptr, HWY_CHOOSE_TARGET_LIST(GetKernels), HWY_CHOOSE_FALLBACK(GetKernels)};
// Index into the table, as Highway's ChosenTarget::GetIndex computes it.
size_t TableIndex(int64_t hwy_target) {
  const int64_t chosen = (hwy_target == HWY_SCALAR || hwy_target == HWY_EMU128)
                             ? HWY_CHOSEN_TARGET_MASK_SCALAR
                             : HWY_CHOSEN_TARGET_SHIFT(hwy_target);
  const uint64_t mask = static_cast<uint64_t>(chosen & HWY_CHOSEN_TARGET_MASK_TARGETS);
  return mask == 0 ? 0 : static_cast<size_t>(__builtin_ctzll(mask));
}
#endif

// The compiled targets this CPU supports, best (lowest bit) first.
int64_t UsableTargets() { return CpuHwyTargets() & HWY_TARGETS; }

// The best target, as Highway's dynamic dispatch would choose it: the lowest usable target bit.
const Kernels* Best() {
  const int64_t usable = UsableTargets();
  if (const Kernels* k = ForHwyTarget(usable & -usable)) return k;
  // No compiled target is supported (an aarch64 CPU without AES): like Highway, use the fallback
  // slot, the target the baseline compiler flags allow.
  return kGetKernels[TableIndex(HWY_SCALAR)]();
}

bool SameName(const std::string& a, const char* b) {
  size_t i = 0;
  for (; i < a.size() && b[i] != '\0'; ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return i == a.size() && b[i] == '\0';
}

const Kernels* Find(const std::string& name) {
  for (const Kernels* k : Available()) {
    if (SameName(name, k->name)) return k;
  }
  return nullptr;
}

std::string KnownNames() {
  std::string names;
  for (const Kernels* k : Available()) {
    if (!names.empty()) names += ", ";
    names += k->name;
  }
  return names;
}

struct Selection {
  std::atomic<const Kernels*> active{nullptr};
  std::string env_error;  // set once, before `active` is published
};

Selection& Selected() {
  static Selection* s = [] {
    auto* sel = new Selection();
    const char* env = std::getenv("SIMDBLOOM_TARGET");
    if (env != nullptr && env[0] != '\0') {
      if (const Kernels* k = Find(env)) {
        sel->active.store(k);
      } else {
        sel->env_error = std::string("SIMDBLOOM_TARGET=") + env +
                         " is not a target usable on this CPU; known: " + KnownNames();
      }
    } else {
      sel->active.store(Best());
    }
    return sel;
  }();
  return *s;
}

}  // namespace

const Kernels* ForHwyTarget(int64_t hwy_target) {
  // Exactly one bit, compiled here and supported by this CPU.
  if (hwy_target == 0 || (hwy_target & (hwy_target - 1)) != 0 ||
      (hwy_target & UsableTargets()) == 0) {
    return nullptr;
  }
  const auto get = kGetKernels[TableIndex(hwy_target)];
  const Kernels* k = get != nullptr ? get() : nullptr;
  return (k != nullptr && k->hwy_target == hwy_target) ? k : nullptr;
}

std::vector<const Kernels*> Available() {
  // The best target first, then the rest in target-bit order (best to worst).
  std::vector<const Kernels*> all;
  for (int64_t rest = UsableTargets(); rest != 0; rest &= rest - 1) {
    if (const Kernels* k = ForHwyTarget(rest & -rest)) all.push_back(k);
  }
  all.push_back(&ref::Kernels());
  return all;
}

const Kernels& Reference() { return ref::Kernels(); }

const Kernels& Active() {
  Selection& s = Selected();
  const Kernels* k = s.active.load(std::memory_order_acquire);
  if (k == nullptr) throw Error(ErrorCode::kUnknownTarget, s.env_error);
  return *k;
}

}  // namespace detail

std::string active_target() { return detail::Active().name; }

std::vector<std::string> available_targets() {
  std::vector<std::string> names;
  for (const detail::Kernels* k : detail::Available()) names.emplace_back(k->name);
  return names;
}

void set_target(const std::string& name) {
  const detail::Kernels* k = detail::Find(name);
  if (k == nullptr) {
    throw Error(ErrorCode::kUnknownTarget,
                "unknown SIMD target '" + name + "'; usable here: " + detail::KnownNames());
  }
  detail::Selected().active.store(k, std::memory_order_release);
}

void reset_target() noexcept {
  detail::Selected().active.store(detail::Best(), std::memory_order_release);
}

}  // namespace simdbloom

#endif  // HWY_ONCE
