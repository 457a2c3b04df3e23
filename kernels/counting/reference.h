// SPDX-License-Identifier: Apache-2.0
// The counting filters' oracle: the "reference" target's counting kernels, the scalar cell code
// (scalar.h) applied key by key (reference.cc). What the SIMD counting kernels are tested against.
#ifndef SIMDBLOOM_KERNELS_COUNTING_REFERENCE_H_
#define SIMDBLOOM_KERNELS_COUNTING_REFERENCE_H_

#include "kernels/counting/spec.h"

namespace simdbloom {
namespace ref {

// The reference target's counting kernels (kernels/counting/reference.cc).
const detail::CountingKernels& CountingKernelsFor(detail::CountingId id);

}  // namespace ref
}  // namespace simdbloom

#endif  // SIMDBLOOM_KERNELS_COUNTING_REFERENCE_H_
