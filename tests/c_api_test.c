/* The C API from C99: every function, its error codes, and that no failure escapes as a crash. */
#define _POSIX_C_SOURCE 200112L
#include <simdbloom/simdbloom.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
#define EXPECT(cond)                                                     \
  do {                                                                   \
    if (!(cond)) {                                                       \
      fprintf(stderr, "%s:%d: FAILED: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                        \
    }                                                                    \
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

/* The key shapes and result forms of the simdbloom_*_keys calls, against one another. */
static void test_shapes(int layout) {
  enum { N = 3000 };
  static uint64_t keys[N], hashes[N];
  static uint32_t keys32[N], sel[2 * N], sel2[2 * N]; /* selections hold one entry per key */
  static uint8_t le[N * 8], records[N * 16], packed[N * 13], out[2 * N], out2[2 * N];
  static uint8_t bitmap[(2 * N + 7) / 8];
  static int32_t offsets32[N + 1];
  static int64_t offsets64[N + 1];
  uint64_t s = 7, count = 0, changed = 12345, hits = 0, hits2 = 0, selected = 0;
  size_t i, j, want = 0;
  simdbloom_filter* f = NULL;
  for (i = 0; i < N; ++i) {
    keys[i] = next(&s);
    keys32[i] = (uint32_t)next(&s);
    for (j = 0; j < 8; ++j) le[8 * i + j] = (uint8_t)(keys[i] >> (8 * j)); /* little-endian */
    for (j = 0; j < 16; ++j) records[16 * i + j] = (uint8_t)next(&s);
    memcpy(packed + 13 * i, records + 16 * i, 13);
    offsets32[i] = (int32_t)(13 * i);
    offsets64[i] = (int64_t)(13 * i);
  }
  offsets32[N] = 13 * N;
  offsets64[N] = 13 * N;
  EXPECT(simdbloom_create(2 * N, 0.01, layout, 42, &f) == SIMDBLOOM_OK);
  {
    /* Inserted as u64, u32 and 13-byte records in 16-byte structs. */
    const simdbloom_keys u64 = {SIMDBLOOM_KEYS_U64, keys, NULL, 0, 0, N};
    const simdbloom_keys u32 = {SIMDBLOOM_KEYS_U32, keys32, NULL, 0, 0, N};
    const simdbloom_keys recs = {SIMDBLOOM_KEYS_FIXED_WIDTH, records, NULL, 13, 16, N};
    /* The same keys in other shapes. */
    const simdbloom_keys as_bytes = {SIMDBLOOM_KEYS_FIXED_WIDTH, le, NULL, 8, 8, N};
    const simdbloom_keys arrow32 = {SIMDBLOOM_KEYS_BINARY32, offsets32, packed, 0, 0, N};
    const simdbloom_keys arrow64 = {SIMDBLOOM_KEYS_BINARY64, offsets64, packed, 0, 0, N};
    const simdbloom_keys pre = {SIMDBLOOM_KEYS_PREHASHED, hashes, NULL, 0, 0, N};
    static uint64_t probe[2 * N];
    const simdbloom_keys probes = {SIMDBLOOM_KEYS_U64, probe, NULL, 0, 0, 2 * N};

    EXPECT(simdbloom_insert_keys(f, &u64, &changed) == SIMDBLOOM_OK);
    EXPECT(changed <= N && changed > N - N / 50); /* few keys find all their bits set */
    EXPECT(simdbloom_insert_keys(f, &u64, &changed) == SIMDBLOOM_OK);
    EXPECT(changed == 0); /* repeats change nothing */
    EXPECT(simdbloom_insert_keys(f, &u32, NULL) == SIMDBLOOM_OK);
    EXPECT(simdbloom_insert_keys(f, &recs, NULL) == SIMDBLOOM_OK);
    EXPECT(simdbloom_inserted_count(f) == 4 * N);

    EXPECT(simdbloom_contains_keys(f, &as_bytes, out, &hits) == SIMDBLOOM_OK);
    EXPECT(hits == N);
    EXPECT(simdbloom_contains_keys(f, &u32, out, &hits) == SIMDBLOOM_OK);
    EXPECT(hits == N);
    EXPECT(simdbloom_contains_keys(f, &arrow32, out, &hits) == SIMDBLOOM_OK);
    EXPECT(hits == N);
    EXPECT(simdbloom_contains_keys(f, &arrow64, out, NULL) == SIMDBLOOM_OK);
    for (i = 0; i < N; ++i) EXPECT(out[i] == 1);
    EXPECT(simdbloom_hash_keys(f, &u64, hashes) == SIMDBLOOM_OK);
    EXPECT(simdbloom_contains_keys(f, &pre, out, &hits) == SIMDBLOOM_OK);
    EXPECT(hits == N);

    /* Half present, half absent: bytes, bitmap and selection agree. */
    for (i = 0; i < 2 * N; ++i) probe[i] = i % 2 ? keys[i / 2] : next(&s);
    EXPECT(simdbloom_contains_keys(f, &probes, out, &hits) == SIMDBLOOM_OK);
    for (i = 0, want = 0; i < 2 * N; ++i) want += out[i];
    EXPECT(hits == want && hits >= N && hits < N + N / 5); /* 3N keys in a 2N filter */
    memset(bitmap, 0xFF, sizeof(bitmap));
    EXPECT(simdbloom_contains_bitmap(f, &probes, bitmap, &hits2) == SIMDBLOOM_OK);
    EXPECT(hits2 == hits);
    for (i = 0; i < 2 * N; ++i) EXPECT(((bitmap[i / 8] >> (i % 8)) & 1) == out[i]);
    EXPECT(simdbloom_select(f, &probes, sel2, &selected) == SIMDBLOOM_OK);
    EXPECT(selected == hits);
    for (i = 0, j = 0; i < 2 * N; ++i) {
      if (out[i]) EXPECT(j < selected && sel2[j++] == i);
    }
    /* refine: the even probes (mostly absent) of a selection; keeps those that may be present. */
    for (i = 0, count = 0; i < 2 * N; i += 2) sel[count++] = (uint32_t)i;
    EXPECT(simdbloom_refine(f, &probes, sel, (size_t)count, &selected) == SIMDBLOOM_OK);
    for (i = 0, j = 0; i < 2 * N; i += 2) {
      if (out[i]) EXPECT(j < selected && sel[j++] == i);
    }
    EXPECT(j == selected);
    memcpy(out2, out, sizeof(out));

    /* Errors: EINVAL, outputs unchanged. */
    changed = 777;
    {
      simdbloom_keys bad = u64;
      bad.kind = 99;
      EXPECT(simdbloom_insert_keys(f, &bad, &changed) == SIMDBLOOM_EINVAL);
      EXPECT(changed == 777);
      EXPECT(strstr(simdbloom_last_error(), "kind") != NULL);
      EXPECT(simdbloom_insert_keys(f, NULL, &changed) == SIMDBLOOM_EINVAL);
      EXPECT(simdbloom_contains_keys(NULL, &u64, out, NULL) == SIMDBLOOM_EINVAL);
      bad = u64;
      bad.keys = NULL;
      EXPECT(simdbloom_contains_keys(f, &bad, out, NULL) == SIMDBLOOM_EINVAL);
      EXPECT(simdbloom_contains_keys(f, &u64, NULL, NULL) == SIMDBLOOM_EINVAL);
      offsets32[5] = offsets32[4] - 1; /* decreasing offsets */
      EXPECT(simdbloom_contains_keys(f, &arrow32, out, &hits) == SIMDBLOOM_EINVAL);
      offsets32[5] = 65;
      sel[0] = 2 * N; /* out of range: nothing written */
      sel[1] = 0;
      EXPECT(simdbloom_refine(f, &probes, sel, 2, &selected) == SIMDBLOOM_EINVAL);
      EXPECT(sel[0] == 2 * N && sel[1] == 0);
      EXPECT(memcmp(out, out2, sizeof(out)) == 0);
    }
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
  test_shapes(SIMDBLOOM_BLOCK512);
  test_shapes(SIMDBLOOM_REGISTER64);
  test_shapes(SIMDBLOOM_SPLIT_BLOCK256);
  test_shapes(SIMDBLOOM_CLASSIC);

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
