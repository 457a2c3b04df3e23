// SPDX-License-Identifier: Apache-2.0
// The register64 layout's specification: its constants and probe mapping (the folder's files:
// kernels/registry.h). lib/FORMAT.md specifies the bits.
#ifndef SIMDBLOOM_KERNELS_REGISTER64_SPEC_H_
#define SIMDBLOOM_KERNELS_REGISTER64_SPEC_H_

#include <cstdint>

#include "kernels/layout_spec.h"

namespace simdbloom {
namespace detail {

struct Register64Spec
    : LayoutSpec</*format id*/ 2, /*block bits*/ 64, /*k*/ 1, 16, HashFamily::kXxh3> {
  static constexpr const char* kName = "register64";
  // One u64 word per key, word hi32(h) * num_words >> 32; probe i sets bit lo32(a * M[i]) >> 26.
  SIMDBLOOM_LAYOUT_SPEC_FUNCTIONS  // defined in scalar.cc, model.cc, kernels.cc
};

}  // namespace detail
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_REGISTER64_SPEC_H_
