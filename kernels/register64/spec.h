// SPDX-License-Identifier: Apache-2.0
// The register64 layout's specification: its constants and probe mapping (the folder's files:
// kernels/registry.h). lib/FORMAT.md specifies the bits.
#ifndef SIMDBLOOM_KERNELS_REGISTER64_SPEC_H_
#define SIMDBLOOM_KERNELS_REGISTER64_SPEC_H_

#include "kernels/layout_spec.h"

// One u64 word per key, word hi32(h) * num_words >> 32; probe i sets bit lo32(a * M[i]) >> 26.
SIMDBLOOM_LAYOUT_SPEC(Register64, "register64", 2, 64, 1, 16, kXxh3)

#endif  // SIMDBLOOM_KERNELS_REGISTER64_SPEC_H_
