/* SPDX-License-Identifier: Apache-2.0 */
/* What the C API tests share (c_api_test.c, c_api_kinds_test.c): EXPECT, the last-error check,
 * reading a file and a key generator. C99; one copy per test program (static). */
#ifndef SIMDBLOOM_TESTS_C_API_TEST_H_
#define SIMDBLOOM_TESTS_C_API_TEST_H_

#include <simdbloom/simdbloom.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int failures = 0;
#define EXPECT(cond)                                                     \
  do {                                                                   \
    if (!(cond)) {                                                       \
      fprintf(stderr, "%s:%d: FAILED: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                        \
    }                                                                    \
  } while (0)

/* The last error names the C function called first ("fn: ..."), contains `part`, and names no
 * C++ function ("Filter::create: ", "size_for: ", "with_bits: ", "load_file: ", ...). */
static int message_is(const char* fn, const char* part) {
  static const char* const cpp[] = {
      "Filter::",  "size_for",    "with_bits:", "load_file", "save_file",           "insert:",
      "contains:", "select:",     "refine:",    "hash:",     "ScalableFilter",      "SpatialFilter",
      "remove:",   "classify:",   "query:",     "count:",    "ShiftingAssociation", "merge:",
      "view:",     "from_bytes:", "create:",    "load:",     "ShiftingMultiplicity"};
  const char* m = simdbloom_last_error();
  const size_t n = strlen(fn);
  size_t i;
  int ok = strncmp(m, fn, n) == 0 && m[n] == ':' && m[n + 1] == ' ' && strstr(m, part) != NULL;
  for (i = 0; ok && i < sizeof(cpp) / sizeof(cpp[0]); ++i) ok = strstr(m + n, cpp[i]) == NULL;
  if (!ok) fprintf(stderr, "  last error \"%s\", expected \"%s: ...%s...\"\n", m, fn, part);
  return ok;
}
/* call fails with `status` and a message from function `fn` that contains `part`. */
#define EXPECT_ERROR(call, status, fn, part) \
  do {                                       \
    EXPECT((call) == (status));              \
    EXPECT(message_is(fn, part));            \
  } while (0)

/* The bytes of a file, at most cap of them (0 if it cannot be read). */
static size_t read_file(const char* path, unsigned char* buf, size_t cap) {
  FILE* fp = fopen(path, "rb");
  size_t n = 0;
  if (fp != NULL) {
    n = fread(buf, 1, cap, fp);
    fclose(fp);
  }
  return n;
}

/* Flips bit 4 of byte `at` of a file in place (a damaged payload); 1 if it did. */
static int flip_byte(const char* path, long at) {
  FILE* file = fopen(path, "r+b");
  unsigned char byte = 0;
  int ok = file != NULL && fseek(file, at, SEEK_SET) == 0 && fread(&byte, 1, 1, file) == 1;
  byte ^= 0x10;
  ok = ok && fseek(file, at, SEEK_SET) == 0 && fwrite(&byte, 1, 1, file) == 1;
  if (file != NULL) ok = fclose(file) == 0 && ok;
  return ok;
}

/* splitmix64: the test keys. */
static uint64_t next(uint64_t* s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

#endif /* SIMDBLOOM_TESTS_C_API_TEST_H_ */
