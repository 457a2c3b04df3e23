// SPDX-License-Identifier: Apache-2.0
// Target selection, the one dispatch point: assembles each compiled target's kernel table from the
// per-target units (kernels/base_kernels.cc and one kernels/<layout>/kernels.cc per layout, each a
// Highway foreach_target unit exporting its table with HWY_EXPORT), and picks the table bulk calls
// use. Plain C++ (no per-target code here). Target selection is ours and never touches Highway's
// process-global state, so other Highway users in the process are unaffected by SIMDBLOOM_TARGET or
// set_target().

#include "kernels/dispatch.h"

#include <atomic>
#include <cctype>
#include <cstdlib>
#include <mutex>

#include "hwy/highway.h"
#include "kernels/concurrency.h"
#include "kernels/counting/scalar.h"
#include "kernels/cpu.h"
#include "kernels/interface.h"
#include "kernels/simd/export.h"
#include "kernels/spatial/scalar.h"
#include "simdbloom/simdbloom.hpp"

namespace simdbloom {
namespace detail {

namespace {

// The scalar loops of the installed header (detail/one_key/scalar.hpp) and of the kinds
// (kernels/counting/scalar.h, kernels/spatial/scalar.h) in the one-key table's form: its entries
// where the active target has no one-key kernel.
bool Block512InsertScalar(uint64_t* block, uint64_t h, uint32_t k) {
  return Block512Insert(block, h, k);
}
bool Block512ContainsScalar(const uint64_t* block, uint64_t h, uint32_t k) {
  return Block512Contains(block, h, k);
}
bool SplitBlock256InsertScalar(uint64_t* block, uint64_t h, uint32_t) {
  return SplitBlock256Insert(reinterpret_cast<uint8_t*>(block), h);
}
bool SplitBlock256ContainsScalar(const uint64_t* block, uint64_t h, uint32_t) {
  return SplitBlock256Contains(reinterpret_cast<const uint8_t*>(block), h);
}
uint32_t SpatialClassifyScalar(const uint8_t* block, uint64_t h, uint32_t k) {
  return scalar::SpatialClassifyHash(block, SpatialParams{1, k, 1}, h);  // one block: block 0
}
constexpr OneKeyTable kScalarOneKey = {&Block512InsertScalar,         &Block512ContainsScalar,
                                       &SplitBlock256InsertScalar,    &SplitBlock256ContainsScalar,
                                       &scalar::CountingBlockedCount, &SpatialClassifyScalar};

// Target k's one-key table: its one-key kernels, the scalar loops where it has none.
OneKeyTable OneKeyOf(const Kernels& k) {
  const LayoutKernels& b512 = k.For(LayoutId::kBlock512);
  const LayoutKernels& split = k.For(LayoutId::kSplitBlock256);
  OneKeyTable t = kScalarOneKey;
  if (b512.insert_one != nullptr) t.block512_insert = b512.insert_one;
  if (b512.contains_one != nullptr) t.block512_contains = b512.contains_one;
  if (split.insert_one != nullptr) t.split_block256_insert = split.insert_one;
  if (split.contains_one != nullptr) t.split_block256_contains = split.contains_one;
  if (k.counting_blocked.count_one != nullptr) t.counting_count = k.counting_blocked.count_one;
  if (k.spatial.classify_one != nullptr) t.spatial_classify = k.spatial.classify_one;
  return t;
}

}  // namespace

std::atomic<const OneKeyTable*> g_one_key{&kScalarOneKey};  // then PublishOneKey's

// The inline single-key path's entries (detail/one_key/table.hpp): one load, one jump.
bool Block512InsertOne(uint64_t* block, uint64_t h, uint32_t k) {
  return ActiveOneKey().block512_insert(block, h, k);
}
bool Block512ContainsOne(const uint64_t* block, uint64_t h, uint32_t k) {
  return ActiveOneKey().block512_contains(block, h, k);
}
bool SplitBlock256InsertOne(uint8_t* block, uint64_t h) {
  return ActiveOneKey().split_block256_insert(reinterpret_cast<uint64_t*>(block), h, 8);
}
bool SplitBlock256ContainsOne(const uint8_t* block, uint64_t h) {
  return ActiveOneKey().split_block256_contains(reinterpret_cast<const uint64_t*>(block), h, 8);
}

namespace {

// Index of Highway target `hwy_target` in a table laid out as SIMDBLOOM_EXPORT_TABLE lays it out
// (kernels/simd/export.h; HWY_EXPORT's layout), as Highway's ChosenTarget::GetIndex computes it.
#if SIMDBLOOM_SINGLE_TARGET
size_t TableIndex(int64_t) { return 0; }
#else
size_t TableIndex(int64_t hwy_target) {
  const int64_t chosen = (hwy_target == HWY_SCALAR || hwy_target == HWY_EMU128)
                             ? HWY_CHOSEN_TARGET_MASK_SCALAR
                             : HWY_CHOSEN_TARGET_SHIFT(hwy_target);
  const uint64_t mask = static_cast<uint64_t>(chosen & HWY_CHOSEN_TARGET_MASK_TARGETS);
  return mask == 0 ? 0 : static_cast<size_t>(__builtin_ctzll(mask));
}
#endif

// The targets this CPU and OS run (kernels/cpu.cc: our own detection, no libhwy).
int64_t SupportedHwyTargets() { return CpuHwyTargets(); }

// The kernels of every compiled target, assembled once from the per-target units: the base table
// (kernels/base_kernels.cc) with each layout's table (kernels/<layout>/kernels.cc) in its slot.
struct TargetTable {
  int64_t hwy_target;
  Kernels kernels;
  OneKeyTable one_key;  // OneKeyOf(kernels)
};
Kernels KernelsAt(size_t index) {
  Kernels k = *BaseKernelsAt(index);
#define SIMDBLOOM_X(Name, C_NAME) \
  k.layout[static_cast<int>(LayoutId::k##Name)] = *Name##Spec::KernelsAt(index);
  SIMDBLOOM_FOR_EACH_LAYOUT(SIMDBLOOM_X)
#undef SIMDBLOOM_X
#define SIMDBLOOM_X(member, Type, TableAt, Reference) k.member = *TableAt(index);
  SIMDBLOOM_FOR_EACH_KIND(SIMDBLOOM_X)
#undef SIMDBLOOM_X
  return k;
}

const std::vector<TargetTable>& Compiled() {
  static const std::vector<TargetTable>* all = [] {
    auto* v = new std::vector<TargetTable>();
    for (int64_t bits = HWY_TARGETS; bits != 0; bits &= bits - 1) {
      const int64_t t = bits & -bits;
      const Kernels k = KernelsAt(TableIndex(t));
      if (k.hwy_target == t) v->push_back(TargetTable{t, k, OneKeyOf(k)});
    }
    return v;
  }();
  return *all;
}

const Kernels& FallbackKernels() {
  static const Kernels k = KernelsAt(TableIndex(HWY_SCALAR));
  return k;
}

// The best target this CPU runs: the lowest target bit among those compiled and supported, which
// is Highway's own choice.
const Kernels* Best() {
  const int64_t supported = SupportedHwyTargets();
  for (const TargetTable& t : Compiled()) {
    if ((t.hwy_target & supported) != 0) return &t.kernels;
  }
  // No compiled target is supported (an aarch64 CPU without AES): like Highway, the fallback slot,
  // the target the baseline compiler flags allow.
  return &FallbackKernels();
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

// Points the one-key table (ActiveOneKey) at target k's, or at the scalar loops' where k is not a
// compiled target (the reference, none). Not in a ThreadSanitizer build: there single-key queries
// keep the scalar loops, whose relaxed atomic loads the concurrency tests check against
// insert_concurrent (the kernels' vector loads race with it by contract, like the bulk query's).
void PublishOneKey(const Kernels* k) {
  const OneKeyTable* table = &kScalarOneKey;
  if (!SIMDBLOOM_TSAN && k != nullptr) {
    static const OneKeyTable fallback = OneKeyOf(FallbackKernels());
    if (k == &FallbackKernels()) table = &fallback;
    for (const TargetTable& t : Compiled()) {
      if (&t.kernels == k) table = &t.one_key;
    }
  }
  g_one_key.store(table, std::memory_order_relaxed);
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
    PublishOneKey(sel->active.load());
    return sel;
  }();
  return *s;
}

// Selects the target when the library starts, so single-key calls use its one-key kernels from
// the first call (before any bulk call). Until then (other units' static initializers) they take
// the inline path: the same bits.
const bool g_selected_at_start = (Selected(), true);

}  // namespace

const Kernels* ForHwyTarget(int64_t hwy_target) {
  if ((hwy_target & SupportedHwyTargets()) == 0) return nullptr;
  for (const TargetTable& t : Compiled()) {
    if (t.hwy_target == hwy_target) return &t.kernels;
  }
  return nullptr;
}

std::vector<const Kernels*> Available() {
  // The best first, then the rest in target-bit order.
  const Kernels* best = Best();
  std::vector<const Kernels*> all = {best};
  const int64_t supported = SupportedHwyTargets();
  for (const TargetTable& t : Compiled()) {
    if ((t.hwy_target & supported) != 0 && &t.kernels != best) all.push_back(&t.kernels);
  }
  all.push_back(&Reference());
  return all;
}

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
  detail::PublishOneKey(k);
}

void reset_target() noexcept {
  const detail::Kernels* best = detail::Best();
  detail::Selected().active.store(best, std::memory_order_release);
  detail::PublishOneKey(best);
}

}  // namespace simdbloom
