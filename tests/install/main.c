/* SPDX-License-Identifier: Apache-2.0 */
/* C99 consumer of the installed package (pkg-config): creates a filter, inserts keys, checks that
   every inserted key is reported present and that absent keys are mostly reported absent. */
#include <simdbloom/simdbloom.h>
#include <stdio.h>

int main(void) {
  enum { kN = 1000 };
  uint64_t keys[kN], absent[kN];
  uint8_t out[kN];
  simdbloom_filter* f = NULL;
  size_t i, hits = 0;
  for (i = 0; i < kN; ++i) {
    keys[i] = (uint64_t)i * 2654435761u;
    absent[i] = ((uint64_t)i << 40) + 12345u;
  }
  if (simdbloom_create(kN, 0.01, SIMDBLOOM_BLOCK512, 0, &f) != SIMDBLOOM_OK) return 1;
  if (simdbloom_insert_u64(f, keys, kN) != SIMDBLOOM_OK) return 2;
  if (simdbloom_contains_u64(f, keys, kN, out) != SIMDBLOOM_OK) return 3;
  for (i = 0; i < kN; ++i) {
    if (out[i] != 1) return 4;
  }
  if (simdbloom_contains_u64(f, absent, kN, out) != SIMDBLOOM_OK) return 5;
  for (i = 0; i < kN; ++i) hits += out[i];
  if (hits > kN / 10) return 6;
  if (simdbloom_create(kN, 2.0, SIMDBLOOM_BLOCK512, 0, &f) != SIMDBLOOM_EINVAL) return 7;
  printf("c consumer: simdbloom %s, %llu bits: ok\n", simdbloom_version(),
         (unsigned long long)simdbloom_bit_count(f));
  simdbloom_free(f);
  return 0;
}
