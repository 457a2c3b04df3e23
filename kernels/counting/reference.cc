// SPDX-License-Identifier: Apache-2.0
// The reference target's counting kernels: the scalar cell code (scalar.h) applied key by key.
#include "kernels/counting/reference.h"

#include "kernels/counting/scalar.h"
#include "kernels/interface.h"
#include "kernels/scalar/hash.h"
#include "kernels/scalar/results.h"

namespace simdbloom {
namespace ref {
namespace {

using detail::CountingId;
using detail::KeySource;
using detail::Params;

// Insert (kRemove false: out[i] = whether key i was fresh) or Remove (out[i] = what
// CountingRemove returns) key by key; returns the number of nonzero results.
template <CountingId kId, bool kRemove>
uint64_t Update(uint64_t* counters, Params p, const KeySource& keys, size_t n, uint8_t* out) {
  uint64_t total = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t h = scalar::HashOfKey(false, keys, i, p.seed);
    const uint8_t r = kRemove ? scalar::CountingRemove(kId, counters, p, h)
                              : uint8_t{scalar::CountingInsert(kId, counters, p, h)};
    if (out != nullptr) out[i] = r;
    total += r != 0;
  }
  return total;
}

template <CountingId kId>
uint64_t Contains(const uint64_t* counters, Params p, const KeySource& keys, size_t n,
                  detail::ResultKind result, void* out) {
  uint64_t hits = 0;
  for (size_t i = 0; i < n; ++i) {
    const bool hit =
        scalar::CountingCount(kId, counters, p, scalar::HashOfKey(false, keys, i, p.seed)) != 0;
    scalar::WriteResult(result, keys, i, hit, out, hits);
  }
  return hits;
}

template <CountingId kId>
uint64_t Count(const uint64_t* counters, Params p, const KeySource& keys, size_t n, uint8_t* out) {
  uint64_t sum = 0;
  for (size_t i = 0; i < n; ++i) {
    out[i] = static_cast<uint8_t>(
        scalar::CountingCount(kId, counters, p, scalar::HashOfKey(false, keys, i, p.seed)));
    sum += out[i];
  }
  return sum;
}

template <CountingId kId>
constexpr detail::CountingKernels For() {
  return {&Update<kId, false>, &Update<kId, true>, &Contains<kId>, &Count<kId>};
}

constexpr detail::CountingKernels kBlocked = For<CountingId::kBlocked>();
constexpr detail::CountingKernels kClassic = For<CountingId::kClassic>();

}  // namespace

const detail::CountingKernels& CountingKernelsFor(CountingId id) {
  return id == CountingId::kBlocked ? kBlocked : kClassic;
}

}  // namespace ref

namespace detail {
const CountingKernels& CountingBlockedReference() { return ref::kBlocked; }
const CountingKernels& CountingClassicReference() { return ref::kClassic; }
}  // namespace detail
}  // namespace simdbloom
