// The only translation unit compiled once per SIMD target (Highway's foreach_target) and the only
// dispatch point. Target selection is ours and never touches Highway's process-global state, so
// other Highway users in the process are unaffected by SIMDBLOOM_TARGET or set_target().

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

#include "kernels/dispatch.h"
#include "kernels/reference.h"
#include "simdbloom/simdbloom.hpp"

namespace simdbloom {
HWY_EXPORT(GetKernels);

namespace detail {
namespace {

// The best target: Highway's own dynamic dispatch picks it.
const Kernels* Best() { return HWY_DYNAMIC_DISPATCH(GetKernels)(); }

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
  if ((hwy_target & HWY_TARGETS) == 0 || (hwy_target & hwy::SupportedTargets()) == 0) {
    return nullptr;
  }
  // Index into the table HWY_EXPORT built, as Highway's ChosenTarget::GetIndex computes it.
  const int64_t chosen = (hwy_target == HWY_SCALAR) ? HWY_CHOSEN_TARGET_MASK_SCALAR
                                                    : HWY_CHOSEN_TARGET_SHIFT(hwy_target);
  const size_t index = hwy::Num0BitsBelowLS1Bit_Nonzero64(
      static_cast<uint64_t>(chosen & HWY_CHOSEN_TARGET_MASK_TARGETS));
  const Kernels* k = HWY_DISPATCH_TABLE(GetKernels)[index]();
  return (k != nullptr && k->hwy_target == hwy_target) ? k : nullptr;
}

std::vector<const Kernels*> Available() {
  // Highway's dynamic-dispatch choice first (on SVE it may prefer SVE2 over the fixed-width
  // SVE2_128 even though the latter has the lower target bit), then the rest in target-bit order.
  const Kernels* best = Best();
  std::vector<const Kernels*> all = {best};
  for (int64_t t : hwy::SupportedAndGeneratedTargets()) {
    const Kernels* k = ForHwyTarget(t);
    if (k != nullptr && k != best) all.push_back(k);
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
