// SPDX-License-Identifier: Apache-2.0
// A layout's per-target compilation unit, written once. A layout's kernels.cc defines
//   SIMDBLOOM_UNIT         its name N: struct N in its kernel-inl.h, NSpec in its spec.h;
//   SIMDBLOOM_UNIT_KERNEL  the path of its kernel-inl.h, as a string;
// and includes this file: the per-target unit (unit.h) of the layout's kernel table
// (simd/pipeline-inl.h over kernel-inl.h), read through NSpec::KernelsAt by kernels/dispatch.cc.
#ifndef SIMDBLOOM_KERNELS_SIMD_LAYOUT_UNIT_H_
#define SIMDBLOOM_KERNELS_SIMD_LAYOUT_UNIT_H_

#ifndef SIMDBLOOM_UNIT
#error "define SIMDBLOOM_UNIT and SIMDBLOOM_UNIT_KERNEL before including layout_unit.h"
#endif

#define SIMDBLOOM_UNIT_CAT_(a, b) a##b
#define SIMDBLOOM_UNIT_CAT(a, b) SIMDBLOOM_UNIT_CAT_(a, b)
#define SIMDBLOOM_UNIT_TYPE LayoutKernels
#define SIMDBLOOM_UNIT_TABLE LayoutKernelsOf<SIMDBLOOM_UNIT>()
#define SIMDBLOOM_UNIT_AT SIMDBLOOM_UNIT_CAT(SIMDBLOOM_UNIT, Spec)::KernelsAt
#define SIMDBLOOM_UNIT_PIPELINE 1
#include "kernels/simd/unit.h"

#endif  // SIMDBLOOM_KERNELS_SIMD_LAYOUT_UNIT_H_
