// SPDX-License-Identifier: Apache-2.0
// The oracle's result writer (kernels/reference.cc, kernels/counting/reference.cc): a bulk query's
// answer for one key, written as its ResultKind says (kernels/interface.h). Target-free; the
// kernels' vector form is kernels/simd/results-inl.h.
#ifndef SIMDBLOOM_KERNELS_SCALAR_RESULTS_H_
#define SIMDBLOOM_KERNELS_SCALAR_RESULTS_H_

#include <cstddef>
#include <cstdint>

#include "kernels/interface.h"

namespace simdbloom {
namespace scalar {

// Writes whether key i of a batch from `keys` may be present (`hit`) to `out` as `result` says,
// keys in order from i = 0; `hits` counts the hits before key i (a selection's next slot) and
// gains one for a hit.
inline void WriteResult(detail::ResultKind result, const detail::KeySource& keys, size_t i,
                        bool hit, void* out, uint64_t& hits) {
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
    case detail::ResultKind::kSelection: {
      const uint32_t index = keys.sel != nullptr ? keys.sel[i] : static_cast<uint32_t>(i);
      if (hit) static_cast<uint32_t*>(out)[hits] = index;
      break;
    }
  }
  hits += hit;
}

}  // namespace scalar
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_SCALAR_RESULTS_H_
