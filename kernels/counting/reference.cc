// SPDX-License-Identifier: Apache-2.0
// The reference target's counting kernels: the scalar cell code (scalar.h) applied key by key.
#include "kernels/counting/reference.h"

#include "kernels/counting/scalar.h"
#include "kernels/interface.h"
#include "kernels/scalar/hash.h"

namespace simdbloom {
namespace ref {
namespace {

using detail::CountingId;
using detail::KeySource;
using detail::Params;

template <CountingId kId>
uint64_t Insert(uint64_t* counters, Params p, const KeySource& keys, size_t n, uint8_t* fresh) {
  uint64_t total = 0;
  for (size_t i = 0; i < n; ++i) {
    const bool f =
        scalar::CountingInsert(kId, counters, p, scalar::HashOfKey(false, keys, i, p.seed));
    if (fresh != nullptr) fresh[i] = f;
    total += f;
  }
  return total;
}

template <CountingId kId>
uint64_t Remove(uint64_t* counters, Params p, const KeySource& keys, size_t n, uint8_t* removed) {
  uint64_t total = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint8_t r =
        scalar::CountingRemove(kId, counters, p, scalar::HashOfKey(false, keys, i, p.seed));
    if (removed != nullptr) removed[i] = r;
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
    switch (result) {
      case detail::ResultKind::kBytes:
        static_cast<uint8_t*>(out)[i] = hit;
        break;
      case detail::ResultKind::kBitmap: {
        uint8_t& byte = static_cast<uint8_t*>(out)[i / 8];
        if (i % 8 == 0) byte = 0;
        byte = static_cast<uint8_t>(byte | (hit << (i % 8)));
        break;
      }
      case detail::ResultKind::kSelection:
        if (hit) {
          static_cast<uint32_t*>(out)[hits] =
              keys.sel != nullptr ? keys.sel[i] : static_cast<uint32_t>(i);
        }
        break;
    }
    hits += hit;
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
  return {&Insert<kId>, &Remove<kId>, &Contains<kId>, &Count<kId>};
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
