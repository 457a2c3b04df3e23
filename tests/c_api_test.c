/* The C API from C99: every function, its error codes, and that no failure escapes as a crash. */
#define _POSIX_C_SOURCE 200112L
#include <simdbloom/simdbloom.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
#define EXPECT(cond)                                                \
  do {                                                              \
    if (!(cond)) {                                                  \
      fprintf(stderr, "%s:%d: FAILED: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                   \
    }                                                               \
  } while (0)

static uint64_t next(uint64_t* s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static void test_layout(int layout) {
  enum { N = 5000 };
  static uint64_t keys[N];
  static uint8_t out[N];
  uint64_t s = 1;
  size_t i, hits = 0;
  simdbloom_filter* f = NULL;
  for (i = 0; i < N; ++i) keys[i] = next(&s);

  EXPECT(simdbloom_create(N, 0.01, layout, 0, &f) == SIMDBLOOM_OK);
  EXPECT(f != NULL);
  EXPECT(simdbloom_layout(f) == layout);
  EXPECT(simdbloom_bit_count(f) >= 9 * N);
  EXPECT(simdbloom_insert_u64(f, keys, N) == SIMDBLOOM_OK);
  EXPECT(simdbloom_inserted_count(f) == N);
  EXPECT(simdbloom_contains_u64(f, keys, N, out) == SIMDBLOOM_OK);
  for (i = 0; i < N; ++i) hits += out[i];
  EXPECT(hits == N);

  /* Byte strings, including an empty one (NULL pointer with length 0). */
  {
    const char* words[4] = {"hello", "parquet", "bloom", NULL};
    const void* ptrs[4];
    size_t lens[4];
    uint8_t found[4] = {0, 0, 0, 0};
    for (i = 0; i < 4; ++i) {
      ptrs[i] = words[i];
      lens[i] = words[i] ? strlen(words[i]) : 0;
    }
    EXPECT(simdbloom_insert_bytes(f, ptrs, lens, 4) == SIMDBLOOM_OK);
    EXPECT(simdbloom_contains_bytes(f, ptrs, lens, 4, found) == SIMDBLOOM_OK);
    EXPECT(found[0] && found[1] && found[2] && found[3]);
    lens[3] = 5; /* NULL with a length: refused */
    EXPECT(simdbloom_insert_bytes(f, ptrs, lens, 4) == SIMDBLOOM_EINVAL);
  }

  /* Serialize, view (zero-copy, read-only), load a copy, save and load a file. */
  {
    size_t size = simdbloom_serialized_size(f);
    void* buf = NULL;
    simdbloom_filter* v = NULL;
    simdbloom_filter* c = NULL;
    simdbloom_filter* g = NULL;
    char path[64];
    EXPECT(posix_memalign(&buf, 64, size) == 0);
    EXPECT(simdbloom_serialize(f, buf, size - 1) == SIMDBLOOM_EINVAL);
    EXPECT(simdbloom_serialize(f, buf, size) == SIMDBLOOM_OK);
    EXPECT(simdbloom_view(buf, size, 1, &v) == SIMDBLOOM_OK);
    EXPECT(simdbloom_contains_u64(v, keys, N, out) == SIMDBLOOM_OK);
    for (i = 0, hits = 0; i < N; ++i) hits += out[i];
    EXPECT(hits == N);
    EXPECT(simdbloom_insert_u64(v, keys, 1) == SIMDBLOOM_EREADONLY);
    EXPECT(strlen(simdbloom_last_error()) > 0);
    EXPECT(simdbloom_load_bytes(buf, size, &c) == SIMDBLOOM_OK);
    EXPECT(simdbloom_compatible(c, f) == 1);
    EXPECT(simdbloom_insert_u64(c, keys, 1) == SIMDBLOOM_OK);
    EXPECT(simdbloom_view((char*)buf + 1, size - 1, 1, &g) == SIMDBLOOM_EINVAL); /* misaligned */
    EXPECT(g == NULL);
    EXPECT(simdbloom_load_bytes(buf, size - 1, &g) == SIMDBLOOM_EFORMAT); /* truncated */
    ((unsigned char*)buf)[70] ^= 1;
    EXPECT(simdbloom_load_bytes(buf, size, &g) == SIMDBLOOM_EFORMAT); /* checksum */
    EXPECT(g == NULL);
    sprintf(path, "simdbloom_c_test_%d.bin", layout);
    EXPECT(simdbloom_save(f, path) == SIMDBLOOM_OK);
    EXPECT(simdbloom_load(path, &g) == SIMDBLOOM_OK);
    EXPECT(simdbloom_num_hashes(g) == simdbloom_num_hashes(f));
    EXPECT(simdbloom_merge(g, f) == SIMDBLOOM_OK);
    EXPECT(simdbloom_intersect(g, f) == SIMDBLOOM_OK);
    EXPECT(simdbloom_expected_fpp(g) > 0 && simdbloom_expected_fpp(g) < 0.02);
    remove(path);
    simdbloom_free(g);
    simdbloom_free(c);
    simdbloom_free(v);
    free(buf);
  }
  simdbloom_free(f);
}

int main(void) {
  simdbloom_filter* f = NULL;
  simdbloom_filter* g = NULL;
  EXPECT(strchr(simdbloom_version(), '.') != NULL);
  EXPECT(strcmp(simdbloom_strerror(SIMDBLOOM_OK), "success") == 0);
  EXPECT(strcmp(simdbloom_strerror(SIMDBLOOM_EFORMAT), "not a valid filter") == 0);
  EXPECT(strcmp(simdbloom_strerror(12345), "unknown status") == 0);

  test_layout(SIMDBLOOM_BLOCK512);
  test_layout(SIMDBLOOM_REGISTER64);
  test_layout(SIMDBLOOM_SPLIT_BLOCK256);
  test_layout(SIMDBLOOM_CLASSIC);

  /* Errors never crash and leave outputs unchanged. */
  EXPECT(simdbloom_create(100, 0.0, SIMDBLOOM_BLOCK512, 0, &f) == SIMDBLOOM_EINVAL);
  EXPECT(f == NULL);
  EXPECT(simdbloom_create(100, 0.01, 77, 0, &f) == SIMDBLOOM_EINVAL);
  EXPECT(simdbloom_with_bits(1024, 7, SIMDBLOOM_SPLIT_BLOCK256, 0, &f) == SIMDBLOOM_EINVAL);
  EXPECT(simdbloom_with_bits(1024, 3, -1, 0, &f) == SIMDBLOOM_EINVAL);
  EXPECT(simdbloom_create(100, 0.01, SIMDBLOOM_BLOCK512, 0, NULL) == SIMDBLOOM_EINVAL);
  EXPECT(simdbloom_insert_u64(NULL, NULL, 0) == SIMDBLOOM_EINVAL);
  EXPECT(simdbloom_load("/nonexistent/x.bin", &f) == SIMDBLOOM_EIO);
  EXPECT(simdbloom_load_bytes("short", 5, &f) == SIMDBLOOM_EFORMAT);
  EXPECT(f == NULL);
  EXPECT(strlen(simdbloom_last_error()) > 0);

  EXPECT(simdbloom_with_bits(1024, 6, SIMDBLOOM_BLOCK512, 0, &f) == SIMDBLOOM_OK);
  EXPECT(simdbloom_with_bits(2048, 6, SIMDBLOOM_BLOCK512, 0, &g) == SIMDBLOOM_OK);
  EXPECT(simdbloom_insert_u64(f, NULL, 3) == SIMDBLOOM_EINVAL);
  EXPECT(simdbloom_compatible(f, g) == 0);
  EXPECT(simdbloom_merge(f, g) == SIMDBLOOM_EINCOMPATIBLE);
  EXPECT(simdbloom_intersect(f, NULL) == SIMDBLOOM_EINVAL);
  simdbloom_free(f);
  simdbloom_free(g);
  simdbloom_free(NULL);

  if (failures == 0) printf("C API: all checks passed\n");
  return failures == 0 ? 0 : 1;
}
