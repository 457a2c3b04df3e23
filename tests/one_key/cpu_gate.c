/* SPDX-License-Identifier: Apache-2.0 */
/* cpu_gate FEATURE PROGRAM [ARGS...]: runs PROGRAM if this CPU has FEATURE ("avx2": AVX2, FMA,
 * BMI2 as x86-64-v3; "avx512": AVX-512 F, BW, DQ, VL as x86-64-v4), else exits 77, which ctest
 * reports as skipped. Compiled for baseline x86-64, so it runs anywhere. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  int has = 0;
  if (argc < 3) return 2;
  __builtin_cpu_init();
  if (strcmp(argv[1], "avx2") == 0) {
    has = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
          __builtin_cpu_supports("bmi2");
  } else if (strcmp(argv[1], "avx512") == 0) {
    has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
          __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
  }
  if (!has) {
    printf("skipped: this CPU lacks %s\n", argv[1]);
    return 77;
  }
  execv(argv[2], argv + 2);
  perror("execv");
  return 2;
}
