/* SPDX-License-Identifier: Apache-2.0 */
/* The C API of the kinds besides the plain filter, from C99: counting, scalable, spatial, ShBF_A
 * and ShBF_x. What C can compute exactly: no false negatives in any key shape or call spelling,
 * exact counts, bytes that round-trip, labels of the top area, answers that contain the truth;
 * then every error code with the C function's name. (c_api_oracle_test.cc compares answers and
 * bytes with the C++ library's.) */
#define _POSIX_C_SOURCE 200112L /* posix_memalign */
#include <limits.h>
#include <simdbloom/simdbloom.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c_api_test.h"

/* A getter called with NULL returns 0 and names itself in the last error. */
#define EXPECT_NULL_GETTER(fn)                 \
  do {                                         \
    EXPECT(fn(NULL) == 0);                     \
    EXPECT(message_is(#fn, "filter is NULL")); \
  } while (0)
/* A call refused with EINVAL, its message naming `fn` and containing `part`. */
#define EXPECT_EINVAL(call, fn, part) EXPECT_ERROR(call, SIMDBLOOM_EINVAL, fn, part)

enum { N = 3000 };

/* The test's keys in every shape: u64 keys, the same keys as their 8 little-endian bytes (records
 * of width 8), 13-byte records in 16-byte structs and the same 13 bytes packed as Arrow strings. */
typedef struct {
  uint64_t u64[N];
  uint32_t u32[N];
  uint8_t le[8 * N], records[16 * N], packed[13 * N];
  int32_t offsets32[N + 1];
  int64_t offsets64[N + 1];
} Keys;

static void make_keys(Keys* k, uint64_t seed) {
  size_t i, j;
  for (i = 0; i < N; ++i) {
    k->u64[i] = next(&seed);
    k->u32[i] = (uint32_t)next(&seed);
    for (j = 0; j < 8; ++j) k->le[8 * i + j] = (uint8_t)(k->u64[i] >> (8 * j));
    for (j = 0; j < 16; ++j) k->records[16 * i + j] = (uint8_t)next(&seed);
    memcpy(k->packed + 13 * i, k->records + 16 * i, 13);
    k->offsets32[i] = (int32_t)(13 * i);
    k->offsets64[i] = (int64_t)(13 * i);
  }
  k->offsets32[N] = 13 * N;
  k->offsets64[N] = 13 * N;
}

static simdbloom_keys shape(int kind, const void* keys, const void* data, size_t width,
                            size_t stride, size_t count) {
  simdbloom_keys k;
  memset(&k, 0, sizeof(k));
  k.kind = kind;
  k.keys = keys;
  k.data = data;
  k.width = width;
  k.stride = stride;
  k.count = count;
  return k;
}
static simdbloom_keys u64_keys(const Keys* k, size_t n) {
  return shape(SIMDBLOOM_KEYS_U64, k->u64, NULL, 0, 0, n);
}
static simdbloom_keys le_keys(const Keys* k, size_t n) { /* the u64 keys' bytes */
  return shape(SIMDBLOOM_KEYS_FIXED_WIDTH, k->le, NULL, 8, 8, n);
}
static simdbloom_keys record_keys(const Keys* k, size_t n) {
  return shape(SIMDBLOOM_KEYS_FIXED_WIDTH, k->records, NULL, 13, 16, n);
}
static simdbloom_keys arrow32_keys(const Keys* k, size_t n) { /* the records' 13 bytes */
  return shape(SIMDBLOOM_KEYS_BINARY32, k->offsets32, k->packed, 13 * N, 0, n);
}
static simdbloom_keys arrow64_keys(const Keys* k, size_t n) {
  return shape(SIMDBLOOM_KEYS_BINARY64, k->offsets64, k->packed, 0, 0, n);
}

static size_t sum_bytes(const uint8_t* p, size_t n) {
  size_t i, s = 0;
  for (i = 0; i < n; ++i) s += p[i];
  return s;
}
static int all_equal(const uint8_t* p, size_t n, uint8_t v) {
  size_t i;
  for (i = 0; i < n; ++i) {
    if (p[i] != v) return 0;
  }
  return 1;
}

static Keys g_keys, g_more;
static uint8_t g_out[N], g_out2[N];

/* A 64-byte aligned buffer of `size` bytes (NULL on failure). */
static unsigned char* aligned_buffer(size_t size) {
  void* p = NULL;
  return posix_memalign(&p, 64, size == 0 ? 64 : size) == 0 ? (unsigned char*)p : NULL;
}

/* The persistence of one kind, through a table of its functions. */
typedef struct {
  const char* name; /* "counting", ... */
  size_t (*serialized_size)(const void*);
  simdbloom_status (*serialize)(const void*, void*, size_t);
  simdbloom_status (*save)(const void*, const char*);
  simdbloom_status (*load)(const char*, void**);
  simdbloom_status (*load_bytes)(const void*, size_t, void**);
  void (*free_fn)(void*);
} Persistence;

/* Each kind's functions, typed for the table. */
#define PERSISTENCE_SHIMS(kind)                                                       \
  static size_t kind##_size(const void* f) {                                          \
    return simdbloom_##kind##_serialized_size((const simdbloom_##kind*)f);            \
  }                                                                                   \
  static simdbloom_status kind##_ser(const void* f, void* b, size_t c) {              \
    return simdbloom_##kind##_serialize((const simdbloom_##kind*)f, b, c);            \
  }                                                                                   \
  static simdbloom_status kind##_save(const void* f, const char* p) {                 \
    return simdbloom_##kind##_save((const simdbloom_##kind*)f, p);                    \
  }                                                                                   \
  static simdbloom_status kind##_load(const char* p, void** out) {                    \
    simdbloom_##kind* f = NULL;                                                       \
    simdbloom_status s = simdbloom_##kind##_load(p, out ? &f : NULL);                 \
    if (s == SIMDBLOOM_OK) *out = f;                                                  \
    return s;                                                                         \
  }                                                                                   \
  static simdbloom_status kind##_load_bytes(const void* d, size_t n, void** out) {    \
    simdbloom_##kind* f = NULL;                                                       \
    simdbloom_status s = simdbloom_##kind##_load_bytes(d, n, out ? &f : NULL);        \
    if (s == SIMDBLOOM_OK) *out = f;                                                  \
    return s;                                                                         \
  }                                                                                   \
  static void kind##_free(void* f) { simdbloom_##kind##_free((simdbloom_##kind*)f); } \
  static const Persistence kind##_persistence = {                                     \
      #kind, kind##_size, kind##_ser, kind##_save, kind##_load, kind##_load_bytes, kind##_free};
PERSISTENCE_SHIMS(counting)
PERSISTENCE_SHIMS(scalable)
PERSISTENCE_SHIMS(spatial)
PERSISTENCE_SHIMS(shbf_a)
PERSISTENCE_SHIMS(shbf_x)

/* serialize -> load_bytes -> serialize and save -> load -> serialize give the same bytes; a
 * truncated copy, a flipped payload byte and another kind's bytes are EFORMAT; the argument
 * errors. `other` holds a filter of another kind: its bytes must not load as this kind. Returns
 * the serialized bytes (the caller frees them) and their size in *size. */
static unsigned char* round_trip(const Persistence* p, const void* f, const unsigned char* other,
                                 size_t other_size, size_t* size) {
  char fn[96], path[96];
  const size_t n = p->serialized_size(f);
  unsigned char* a = aligned_buffer(n);
  unsigned char* b = aligned_buffer(n);
  unsigned char* c = aligned_buffer(n);
  void* g = NULL;
  void* const sentinel = &g;
  *size = n;
  EXPECT(n > 64 && a != NULL && b != NULL && c != NULL);
  if (a == NULL || b == NULL || c == NULL) return a;
  EXPECT(p->serialize(f, a, n) == SIMDBLOOM_OK);
  /* load_bytes */
  EXPECT(p->load_bytes(a, n, &g) == SIMDBLOOM_OK);
  EXPECT(p->serialized_size(g) == n);
  memset(b, 0xAB, n);
  EXPECT(p->serialize(g, b, n) == SIMDBLOOM_OK);
  EXPECT(memcmp(a, b, n) == 0);
  p->free_fn(g);
  /* save, load; the file holds the same bytes */
  sprintf(path, "simdbloom_c_kinds_%s.bin", p->name);
  EXPECT(p->save(f, path) == SIMDBLOOM_OK);
  EXPECT(read_file(path, c, n) == n && memcmp(a, c, n) == 0);
  g = NULL;
  EXPECT(p->load(path, &g) == SIMDBLOOM_OK);
  memset(b, 0xAB, n);
  EXPECT(g != NULL && p->serialize(g, b, n) == SIMDBLOOM_OK);
  EXPECT(memcmp(a, b, n) == 0);
  p->free_fn(g);
  remove(path);
  /* corrupt, truncated, another kind: EFORMAT, *out unchanged */
  g = sentinel;
  sprintf(fn, "simdbloom_%s_load_bytes", p->name);
  EXPECT_ERROR(p->load_bytes(a, n - 1, &g), SIMDBLOOM_EFORMAT, fn, "");
  EXPECT_ERROR(p->load_bytes(a, 10, &g), SIMDBLOOM_EFORMAT, fn, "");
  memcpy(c, a, n);
  c[n - 1] ^= 0x10;
  EXPECT_ERROR(p->load_bytes(c, n, &g), SIMDBLOOM_EFORMAT, fn, "");
  EXPECT_ERROR(p->load_bytes(other, other_size, &g), SIMDBLOOM_EFORMAT, fn, "");
  EXPECT_EINVAL(p->load_bytes(NULL, n, &g), fn, "data is NULL with size = ");
  EXPECT_EINVAL(p->load_bytes(a, n, NULL), fn, "out is NULL");
  EXPECT_EINVAL(p->load_bytes((const void*)(uintptr_t)(UINTPTR_MAX - 63), 4096, &g), fn,
                "pass the end of the address space");
  sprintf(fn, "simdbloom_%s_load", p->name);
  EXPECT_ERROR(p->load("/nonexistent/x.bin", &g), SIMDBLOOM_EIO, fn, "/nonexistent/x.bin");
  EXPECT_EINVAL(p->load(NULL, &g), fn, "path is NULL");
  EXPECT_EINVAL(p->load(path, NULL), fn, "out is NULL");
  EXPECT(g == sentinel);
  sprintf(fn, "simdbloom_%s_save", p->name);
  EXPECT_ERROR(p->save(f, "/nonexistent/x.bin"), SIMDBLOOM_EIO, fn, "/nonexistent/x.bin");
  EXPECT_EINVAL(p->save(f, NULL), fn, "path is NULL");
  EXPECT_EINVAL(p->save(NULL, path), fn, "filter is NULL");
  sprintf(fn, "simdbloom_%s_serialize", p->name);
  memset(b, 0xAB, n);
  EXPECT_EINVAL(p->serialize(f, b, n - 1), fn, "_serialized_size");
  EXPECT(all_equal(b, n, 0xAB));
  EXPECT_EINVAL(p->serialize(f, NULL, n), fn, "buf is NULL");
  EXPECT_EINVAL(p->serialize(NULL, b, n), fn, "filter is NULL");
  EXPECT_EINVAL(p->serialize(f, (void*)(uintptr_t)(UINTPTR_MAX - 63), n), fn,
                "passes the end of the address space");
  sprintf(fn, "simdbloom_%s_serialized_size", p->name);
  EXPECT(p->serialized_size(NULL) == 0);
  EXPECT(message_is(fn, "filter is NULL"));
  p->free_fn(NULL);
  free(b);
  free(c);
  return a;
}

/* ---- Counting ---- */

/* Key i is inserted 1 + i % 15 times: its count, exact in a filter this sparse. */
static uint32_t multiplicity(size_t i) { return (uint32_t)(1 + i % 15); }

/* Key i's count after `removes` removes (of keys whose count is not 0). */
static uint32_t after_removes(size_t i, uint32_t removes) {
  const uint32_t m = multiplicity(i);
  return m == 15 ? 15 : m > removes ? m - removes : 0;
}

static simdbloom_counting* counted(int layout, uint64_t seed, size_t begin, size_t end) {
  static uint64_t round[N];
  simdbloom_counting* c = NULL;
  uint32_t r;
  size_t i, m;
  EXPECT(simdbloom_counting_create(20 * N, 0.001, layout, seed, &c) == SIMDBLOOM_OK);
  for (r = 0; r < 15; ++r) {
    for (i = begin, m = 0; i < end; ++i) {
      if (multiplicity(i) > r) round[m++] = g_keys.u64[i];
    }
    EXPECT(simdbloom_counting_insert_u64(c, round, m) == SIMDBLOOM_OK);
  }
  return c;
}

static void test_counting(int layout, const unsigned char* other, size_t other_size) {
  simdbloom_counting* c = counted(layout, 7, 0, N);
  simdbloom_counting* half = NULL;
  simdbloom_counting* v = NULL;
  simdbloom_counting* const sentinel = (simdbloom_counting*)&v;
  simdbloom_filter* plain = NULL;
  static uint64_t hashes[N];
  const simdbloom_keys u64 = u64_keys(&g_keys, N), le = le_keys(&g_keys, N);
  uint64_t total = 0, result = 0;
  uint32_t count = 99;
  uint8_t flag = 99;
  size_t i, size;
  unsigned char* bytes;

  /* Exact counts, in every integer spelling (u64 calls, U64 arrays); the keys' bytes are byte
   * strings, another kind of key: refused by this filter of integers, nothing written. */
  for (i = 0; i < N; ++i) total += multiplicity(i);
  EXPECT(simdbloom_counting_size(c) == total);
  EXPECT(simdbloom_counting_count_u64(c, g_keys.u64, N, g_out) == SIMDBLOOM_OK);
  for (i = 0; i < N; ++i) EXPECT(g_out[i] == multiplicity(i));
  memset(g_out2, 0, N);
  EXPECT(simdbloom_counting_count_keys(c, &u64, g_out2, &result) == SIMDBLOOM_OK);
  EXPECT(memcmp(g_out, g_out2, N) == 0 && result == total);
  memset(g_out2, 0xEE, N);
  result = 777;
  EXPECT_EINVAL(simdbloom_counting_count_keys(c, &le, g_out2, &result),
                "simdbloom_counting_count_keys", "int64");
  EXPECT(result == 777 && all_equal(g_out2, N, 0xEE));
  EXPECT_EINVAL(simdbloom_counting_count_one(c, g_keys.le, 8, &count),
                "simdbloom_counting_count_one", "int64");
  EXPECT_EINVAL(simdbloom_counting_contains_one(c, g_keys.le, 8, &flag),
                "simdbloom_counting_contains_one", "int64");
  EXPECT(count == 99 && flag == 99);
  EXPECT(simdbloom_counting_contains_u64(c, g_keys.u64, N, g_out) == SIMDBLOOM_OK);
  EXPECT(all_equal(g_out, N, 1));
  EXPECT(simdbloom_counting_contains_keys(c, &u64, g_out, &result) == SIMDBLOOM_OK);
  EXPECT(result == N && all_equal(g_out, N, 1));

  /* Remove every key once: counts drop by one, keys inserted once are gone; a counter at 15 is
   * saturated and stays (counting.hpp). */
  memset(g_out2, 0xEE, N);
  EXPECT(simdbloom_counting_remove_u64(c, g_keys.u64, N, g_out2) == SIMDBLOOM_OK);
  for (i = 0; i < N; ++i) EXPECT(g_out2[i] == (multiplicity(i) == 15 ? 2 : 1)); /* 2: saturated */
  EXPECT(simdbloom_counting_size(c) == total - N);
  EXPECT(simdbloom_counting_count_u64(c, g_keys.u64, N, g_out) == SIMDBLOOM_OK);
  for (i = 0; i < N; ++i) EXPECT(g_out[i] == after_removes(i, 1));
  EXPECT(simdbloom_counting_remove_keys(c, &u64, NULL, &result) == SIMDBLOOM_OK);
  for (i = 0, total = 0; i < N; ++i) total += multiplicity(i) > 1;
  EXPECT(result == total); /* the keys at 0 are rejected, nothing changes for them */
  EXPECT(simdbloom_counting_count_u64(c, g_keys.u64, N, g_out) == SIMDBLOOM_OK);
  for (i = 0; i < N; ++i) EXPECT(g_out[i] == after_removes(i, 2));
  simdbloom_counting_free(c);

  /* Every byte shape and the one-key calls agree: a byte string inserted in one shape is found in
   * all; the same for the integer shapes (a u32 key is found by a u64 call of its value). */
  EXPECT(simdbloom_counting_create(10 * N, 0.001, layout, 11, &c) == SIMDBLOOM_OK);
  {
    const simdbloom_keys recs = record_keys(&g_keys, N), a32 = arrow32_keys(&g_keys, N);
    const simdbloom_keys a64 = arrow64_keys(&g_keys, N);
    const simdbloom_keys u32 = shape(SIMDBLOOM_KEYS_U32, g_keys.u32, NULL, 0, 0, N);
    const simdbloom_keys pre = shape(SIMDBLOOM_KEYS_PREHASHED, hashes, NULL, 0, 0, N);
    static uint64_t wide[N];
    simdbloom_counting* ints = NULL;
    simdbloom_key_type type = SIMDBLOOM_KEY_LEGACY;
    for (i = 0; i < N; ++i) wide[i] = g_keys.u32[i];
    memset(g_out2, 0xEE, N);
    EXPECT(simdbloom_counting_insert_keys(c, &recs, g_out2, &result) == SIMDBLOOM_OK);
    EXPECT(result == sum_bytes(g_out2, N) && result > N - N / 100);
    EXPECT(simdbloom_counting_get_key_type(c, &type) == SIMDBLOOM_OK);
    EXPECT(type == SIMDBLOOM_KEY_BYTES);
    EXPECT_EINVAL(simdbloom_counting_insert_keys(c, &u32, NULL, NULL),
                  "simdbloom_counting_insert_keys", "bytes");
    EXPECT(simdbloom_counting_insert_keys(c, &le, NULL, NULL) == SIMDBLOOM_OK);
    EXPECT(simdbloom_counting_count_keys(c, &a32, g_out, &result) == SIMDBLOOM_OK);
    EXPECT(all_equal(g_out, N, 1) && result == N);
    EXPECT(simdbloom_counting_contains_keys(c, &a64, g_out, NULL) == SIMDBLOOM_OK);
    EXPECT(all_equal(g_out, N, 1));
    for (i = 0; i < 40; ++i) {
      EXPECT(simdbloom_counting_count_one(c, g_keys.le + 8 * i, 8, &count) == SIMDBLOOM_OK);
      EXPECT(count == 1);
      EXPECT(simdbloom_counting_contains_one(c, g_keys.le + 8 * i, 8, &flag) == SIMDBLOOM_OK);
      EXPECT(flag == 1);
    }
    EXPECT_EINVAL(simdbloom_counting_contains_u64(c, g_keys.u64, N, g_out),
                  "simdbloom_counting_contains_u64", "bytes");
    /* Pre-hashed keys: the hashes of the plain filter to_filter gives (counting.hpp), which holds
     * what the counting filter holds. */
    EXPECT(simdbloom_counting_to_filter(c, &plain) == SIMDBLOOM_OK);
    EXPECT(simdbloom_layout(plain) ==
           (layout == SIMDBLOOM_COUNTING_BLOCKED ? SIMDBLOOM_REGISTER64 : SIMDBLOOM_CLASSIC));
    EXPECT(simdbloom_inserted_count(plain) == simdbloom_counting_size(c));
    EXPECT(simdbloom_get_key_type(plain, &type) == SIMDBLOOM_OK && type == SIMDBLOOM_KEY_BYTES);
    EXPECT(simdbloom_contains_keys(plain, &recs, g_out, &result) == SIMDBLOOM_OK && result == N);
    EXPECT(simdbloom_hash_keys(plain, &recs, hashes) == SIMDBLOOM_OK);
    EXPECT(simdbloom_counting_count_keys(c, &pre, g_out, &result) == SIMDBLOOM_OK);
    EXPECT(all_equal(g_out, N, 1));
    simdbloom_free(plain);
    /* Integers: u32 keys found by their values as u64 keys, and the other way round. */
    EXPECT(simdbloom_counting_create(10 * N, 0.001, layout, 11, &ints) == SIMDBLOOM_OK);
    EXPECT(simdbloom_counting_insert_keys(ints, &u32, NULL, NULL) == SIMDBLOOM_OK);
    EXPECT(simdbloom_counting_get_key_type(ints, &type) == SIMDBLOOM_OK);
    EXPECT(type == SIMDBLOOM_KEY_INT64);
    EXPECT(simdbloom_counting_count_u64(ints, wide, N, g_out) == SIMDBLOOM_OK);
    EXPECT(all_equal(g_out, N, 1));
    EXPECT(simdbloom_counting_remove_u64(ints, wide, N, g_out2) == SIMDBLOOM_OK);
    EXPECT(all_equal(g_out2, N, 1) && simdbloom_counting_size(ints) == 0);
    EXPECT(simdbloom_counting_insert_u64(ints, wide, N) == SIMDBLOOM_OK);
    EXPECT(simdbloom_counting_count_keys(ints, &u32, g_out, &result) == SIMDBLOOM_OK);
    EXPECT(all_equal(g_out, N, 1) && result == N);
    EXPECT_EINVAL(simdbloom_counting_insert_one(ints, "hello", 5, NULL),
                  "simdbloom_counting_insert_one", "int64");
    simdbloom_counting_free(ints);
    /* One key: inserted twice, removed once. */
    EXPECT(simdbloom_counting_insert_one(c, "hello", 5, &flag) == SIMDBLOOM_OK && flag == 1);
    EXPECT(simdbloom_counting_insert_one(c, "hello", 5, NULL) == SIMDBLOOM_OK);
    EXPECT(simdbloom_counting_count_one(c, "hello", 5, &count) == SIMDBLOOM_OK && count == 2);
    EXPECT(simdbloom_counting_remove_one(c, "hello", 5, &flag) == SIMDBLOOM_OK && flag == 1);
    EXPECT(simdbloom_counting_count_one(c, "hello", 5, &count) == SIMDBLOOM_OK && count == 1);
    EXPECT(simdbloom_counting_insert_one(c, NULL, 0, NULL) == SIMDBLOOM_OK); /* the empty key */
    EXPECT(simdbloom_counting_count_one(c, "", 0, &count) == SIMDBLOOM_OK && count == 1);
    EXPECT(simdbloom_counting_remove_one(c, "", 0, NULL) == SIMDBLOOM_OK);
    EXPECT(simdbloom_counting_remove_one(c, "", 0, &flag) == SIMDBLOOM_OK && flag == 0);
  }
  simdbloom_counting_free(c);

  /* Merge: two halves built apart are the whole, byte for byte. */
  c = counted(layout, 7, 0, N / 2);
  half = counted(layout, 7, N / 2, N);
  EXPECT(simdbloom_counting_compatible(c, half) == 1);
  EXPECT(simdbloom_counting_merge(c, half) == SIMDBLOOM_OK);
  simdbloom_counting_free(half);
  half = counted(layout, 7, 0, N);
  {
    const size_t n = simdbloom_counting_serialized_size(c);
    unsigned char* x = aligned_buffer(n);
    unsigned char* y = aligned_buffer(n);
    EXPECT(n == simdbloom_counting_serialized_size(half) && x != NULL && y != NULL);
    if (x != NULL && y != NULL) {
      EXPECT(simdbloom_counting_serialize(c, x, n) == SIMDBLOOM_OK);
      EXPECT(simdbloom_counting_serialize(half, y, n) == SIMDBLOOM_OK);
      EXPECT(memcmp(x, y, n) == 0);
    }
    free(x);
    free(y);
  }
  simdbloom_counting_free(half);
  EXPECT(simdbloom_counting_with_counters(simdbloom_counting_counter_count(c),
                                          simdbloom_counting_num_hashes(c), layout, 8,
                                          &half) == SIMDBLOOM_OK);
  EXPECT(simdbloom_counting_compatible(c, half) == 0);
  EXPECT_ERROR(simdbloom_counting_merge(c, half), SIMDBLOOM_EINCOMPATIBLE,
               "simdbloom_counting_merge", "seed");
  simdbloom_counting_free(half);

  /* Parameters. */
  EXPECT(simdbloom_counting_layout(c) == layout);
  EXPECT(simdbloom_counting_seed(c) == 7);
  EXPECT(simdbloom_counting_num_hashes(c) >= 1);
  EXPECT(simdbloom_counting_counter_count(c) ==
         simdbloom_counting_num_blocks(c) * (layout == SIMDBLOOM_COUNTING_BLOCKED ? 128 : 512));
  EXPECT(simdbloom_counting_size_bytes(c) == simdbloom_counting_counter_count(c) / 2);
  EXPECT(simdbloom_counting_serialized_size(c) == 64 + simdbloom_counting_size_bytes(c));
  EXPECT(simdbloom_counting_saturated_count(c) < simdbloom_counting_counter_count(c) / 100);
  EXPECT(simdbloom_counting_is_view(c) == 0);
  EXPECT(simdbloom_counting_predicted_fpp(c, 20 * N) > 0.0005);
  EXPECT(simdbloom_counting_predicted_fpp(c, 20 * N) < 0.001);

  /* Persistence, and a view: same answers, read-only. */
  bytes = round_trip(&counting_persistence, c, other, other_size, &size);
  EXPECT(simdbloom_counting_view(bytes, size, 1, &v) == SIMDBLOOM_OK);
  EXPECT(simdbloom_counting_is_view(v) == 1);
  EXPECT(simdbloom_counting_count_u64(v, g_keys.u64, N, g_out) == SIMDBLOOM_OK);
  for (i = 0; i < N; ++i) EXPECT(g_out[i] == multiplicity(i));
  EXPECT_ERROR(simdbloom_counting_insert_u64(v, g_keys.u64, 0), SIMDBLOOM_EREADONLY,
               "simdbloom_counting_insert_u64", "read-only view");
  EXPECT_ERROR(simdbloom_counting_remove_u64(v, g_keys.u64, 1, NULL), SIMDBLOOM_EREADONLY,
               "simdbloom_counting_remove_u64", "read-only view");
  EXPECT_ERROR(simdbloom_counting_insert_keys(v, &u64, NULL, NULL), SIMDBLOOM_EREADONLY,
               "simdbloom_counting_insert_keys", "read-only view");
  EXPECT_ERROR(simdbloom_counting_remove_keys(v, &u64, NULL, NULL), SIMDBLOOM_EREADONLY,
               "simdbloom_counting_remove_keys", "read-only view");
  {
    /* The one-key calls take byte strings: a view of a filter of byte strings. */
    simdbloom_counting* strings = NULL;
    simdbloom_counting* sv = NULL;
    unsigned char* sb = NULL;
    size_t sn = 0;
    EXPECT(simdbloom_counting_with_counters(1024, 4, layout, 0, &strings) == SIMDBLOOM_OK);
    EXPECT(simdbloom_counting_insert_one(strings, "a", 1, NULL) == SIMDBLOOM_OK);
    sn = simdbloom_counting_serialized_size(strings);
    sb = aligned_buffer(sn);
    EXPECT(sb != NULL && simdbloom_counting_serialize(strings, sb, sn) == SIMDBLOOM_OK);
    EXPECT(sb != NULL && simdbloom_counting_view(sb, sn, 1, &sv) == SIMDBLOOM_OK);
    EXPECT_ERROR(simdbloom_counting_insert_one(sv, "a", 1, NULL), SIMDBLOOM_EREADONLY,
                 "simdbloom_counting_insert_one", "read-only view");
    EXPECT_ERROR(simdbloom_counting_remove_one(sv, "a", 1, NULL), SIMDBLOOM_EREADONLY,
                 "simdbloom_counting_remove_one", "read-only view");
    simdbloom_counting_free(sv);
    simdbloom_counting_free(strings);
    free(sb);
  }
  EXPECT_ERROR(simdbloom_counting_clear(v), SIMDBLOOM_EREADONLY, "simdbloom_counting_clear",
               "read-only view");
  EXPECT_ERROR(simdbloom_counting_merge(v, c), SIMDBLOOM_EREADONLY, "simdbloom_counting_merge",
               "read-only view");
  EXPECT(simdbloom_counting_count_u64(v, g_keys.u64, N, g_out2) == SIMDBLOOM_OK);
  EXPECT(memcmp(g_out, g_out2, N) == 0);
  simdbloom_counting_free(v);
  v = sentinel;
  EXPECT_EINVAL(simdbloom_counting_view(bytes + 1, size - 1, 1, &v), "simdbloom_counting_view",
                "64-byte aligned");
  EXPECT_EINVAL(simdbloom_counting_view(NULL, size, 1, &v), "simdbloom_counting_view",
                "data is NULL");
  EXPECT_EINVAL(simdbloom_counting_view(bytes, size, 1, NULL), "simdbloom_counting_view",
                "out is NULL");
  bytes[size - 1] ^= 1;
  EXPECT_ERROR(simdbloom_counting_view(bytes, size, INT_MIN, &v), SIMDBLOOM_EFORMAT,
               "simdbloom_counting_view", "checksum");
  EXPECT_ERROR(simdbloom_counting_view(bytes, size - 1, 0, &v), SIMDBLOOM_EFORMAT,
               "simdbloom_counting_view", "");
  EXPECT(v == sentinel);
  EXPECT(simdbloom_counting_view(bytes, size, 0, &v) == SIMDBLOOM_OK); /* not verified */
  simdbloom_counting_free(v);
  free(bytes);

  /* The filter saved and mapped: the same counts, read-only, unmapped by _free. */
  EXPECT(simdbloom_counting_save(c, "simdbloom_c_kinds_mapped.bin") == SIMDBLOOM_OK);
  v = sentinel;
  EXPECT(simdbloom_counting_map_file("simdbloom_c_kinds_mapped.bin", 1, &v) == SIMDBLOOM_OK);
  remove("simdbloom_c_kinds_mapped.bin");
  EXPECT(simdbloom_counting_is_view(v) == 1);
  EXPECT(simdbloom_counting_count_u64(v, g_keys.u64, N, g_out) == SIMDBLOOM_OK);
  for (i = 0; i < N; ++i) EXPECT(g_out[i] == multiplicity(i));
  EXPECT_ERROR(simdbloom_counting_remove_u64(v, g_keys.u64, 1, NULL), SIMDBLOOM_EREADONLY,
               "simdbloom_counting_remove_u64", "the filter is a mapped file (read-only)");
  simdbloom_counting_free(v);
  v = sentinel;
  EXPECT_ERROR(simdbloom_counting_map_file("simdbloom_c_kinds_mapped.bin", 0, &v), SIMDBLOOM_EIO,
               "simdbloom_counting_map_file", "simdbloom_c_kinds_mapped.bin");
  EXPECT_EINVAL(simdbloom_counting_map_file(NULL, 0, &v), "simdbloom_counting_map_file",
                "path is NULL");
  EXPECT(v == sentinel);
  /* A corrupted payload: refused with verify_checksum on, mapped as it is with it off. */
  EXPECT(simdbloom_counting_save(c, "simdbloom_c_kinds_mapped.bin") == SIMDBLOOM_OK);
  EXPECT(flip_byte("simdbloom_c_kinds_mapped.bin", 100));
  EXPECT_ERROR(simdbloom_counting_map_file("simdbloom_c_kinds_mapped.bin", 1, &v),
               SIMDBLOOM_EFORMAT, "simdbloom_counting_map_file", "payload checksum mismatch");
  EXPECT(v == sentinel);
  EXPECT(simdbloom_counting_map_file("simdbloom_c_kinds_mapped.bin", 0, &v) == SIMDBLOOM_OK);
  simdbloom_counting_free(v);
  v = sentinel;
  remove("simdbloom_c_kinds_mapped.bin");

  /* clear */
  EXPECT(simdbloom_counting_clear(c) == SIMDBLOOM_OK);
  EXPECT(simdbloom_counting_size(c) == 0);
  EXPECT(simdbloom_counting_contains_u64(c, g_keys.u64, N, g_out) == SIMDBLOOM_OK);
  EXPECT(all_equal(g_out, N, 0));
  simdbloom_counting_free(c);
}

/* Issue 45, items 2 and 3: a saturated key removed more often than inserted, and a bulk remove
 * of keys never inserted, whose result tells how many were surely absent. */
static void test_hostile(int layout) {
  simdbloom_counting* c = NULL;
  /* A load that cannot open its path says why (it said "cannot open PATH" only). */
  EXPECT_ERROR(simdbloom_counting_load("/nonexistent/issue45.sbc", &c), SIMDBLOOM_EIO,
               "simdbloom_counting_load",
               "cannot open /nonexistent/issue45.sbc: No such file or directory");
  EXPECT(c == NULL);
  uint8_t flag = 0xEE, flags[16];
  uint64_t i, result = 0, maybe = 0;
  const uint64_t k16[16] = {7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7};
  EXPECT(simdbloom_counting_create(100, 0.01, layout, 3, &c) == SIMDBLOOM_OK);
  for (i = 0; i < 15; ++i) EXPECT(simdbloom_counting_insert_one(c, "k", 1, NULL) == SIMDBLOOM_OK);
  EXPECT(simdbloom_counting_size(c) == 15);
  /* Every one of 16 removes finds the counters at 15: removed, reported saturated (2), the size
   * stops at 0 (it wrapped to 2^64 - 1). */
  for (i = 0; i < 16; ++i) {
    flag = 0xEE;
    EXPECT(simdbloom_counting_remove_one(c, "k", 1, &flag) == SIMDBLOOM_OK && flag == 2);
  }
  EXPECT(simdbloom_counting_size(c) == 0);
  simdbloom_counting_free(c);
  /* The same in bulk, integer keys (a filter of their own: keys of one kind). */
  EXPECT(simdbloom_counting_create(100, 0.01, layout, 3, &c) == SIMDBLOOM_OK);
  for (i = 0; i < 15; ++i) EXPECT(simdbloom_counting_insert_u64(c, k16, 1) == SIMDBLOOM_OK);
  EXPECT(simdbloom_counting_size(c) == 15);
  memset(flags, 0xEE, sizeof(flags));
  EXPECT(simdbloom_counting_remove_u64(c, k16, 16, flags) == SIMDBLOOM_OK);
  EXPECT(all_equal(flags, 16, 2));
  EXPECT(simdbloom_counting_size(c) == 0);
  simdbloom_counting_free(c);

  /* 1000 keys inserted, 19000 others removed: the result counts exactly the keys the filter
   * answered "maybe" for (false positives, removed in key order); the rest were surely absent. */
  EXPECT(simdbloom_counting_create(1000, 0.01, layout, 3, &c) == SIMDBLOOM_OK);
  EXPECT(simdbloom_counting_insert_u64(c, g_keys.u64, 1000) == SIMDBLOOM_OK);
  {
    static uint8_t removed[19000];
    static uint64_t other[19000];
    simdbloom_keys others;
    for (i = 0; i < 19000; ++i) other[i] = (i + 1) * 0x9E3779B97F4A7C15u; /* none of g_keys' */
    memset(&others, 0, sizeof(others));
    others.kind = SIMDBLOOM_KEYS_U64;
    others.keys = other;
    others.count = 19000;
    EXPECT(simdbloom_counting_remove_keys(c, &others, removed, &result) == SIMDBLOOM_OK);
    for (i = 0; i < 19000; ++i) maybe += removed[i] != 0;
    EXPECT(result == maybe && result > 0 && result < 19000 / 20);
    EXPECT(simdbloom_counting_size(c) == 1000 - result);
  }
  simdbloom_counting_free(c);
}

static void test_counting_errors(void) {
  simdbloom_counting* c = NULL;
  simdbloom_counting* const sentinel = (simdbloom_counting*)&c;
  const simdbloom_keys u64 = u64_keys(&g_keys, 16);
  simdbloom_keys bad = u64;
  uint64_t result = 777;
  uint32_t count = 777;
  uint8_t flag = 77;
  const int layouts[] = {0, 3, -1, 257, INT_MIN, INT_MAX};
  size_t i;
  char want[64];
  c = sentinel;
  for (i = 0; i < sizeof(layouts) / sizeof(layouts[0]); ++i) {
    sprintf(want, "layout %d is not a counting layout (1 blocked, 2 classic)", layouts[i]);
    EXPECT_EINVAL(simdbloom_counting_create(100, 0.01, layouts[i], 0, &c),
                  "simdbloom_counting_create", want);
    EXPECT_EINVAL(simdbloom_counting_with_counters(1024, 4, layouts[i], 0, &c),
                  "simdbloom_counting_with_counters", want);
  }
  EXPECT_EINVAL(simdbloom_counting_create(0, 0.01, 1, 0, &c), "simdbloom_counting_create",
                "expected_items");
  EXPECT_EINVAL(simdbloom_counting_create(100, 1.0, 1, 0, &c), "simdbloom_counting_create", "fpp");
  EXPECT_EINVAL(simdbloom_counting_create(100, 0.01, 1, 0, NULL), "simdbloom_counting_create",
                "out is NULL");
  EXPECT_EINVAL(simdbloom_counting_with_counters(0, 4, 1, 0, &c),
                "simdbloom_counting_with_counters", "counters");
  EXPECT_EINVAL(simdbloom_counting_with_counters(1024, 17, 1, 0, &c),
                "simdbloom_counting_with_counters", "k");
  EXPECT_EINVAL(simdbloom_counting_with_counters(1024, 33, 2, 0, &c),
                "simdbloom_counting_with_counters", "k");
  EXPECT(c == sentinel);

  /* NULL handles. */
  EXPECT_EINVAL(simdbloom_counting_insert_one(NULL, "a", 1, NULL), "simdbloom_counting_insert_one",
                "filter is NULL");
  EXPECT_EINVAL(simdbloom_counting_remove_one(NULL, "a", 1, NULL), "simdbloom_counting_remove_one",
                "filter is NULL");
  EXPECT_EINVAL(simdbloom_counting_contains_one(NULL, "a", 1, &flag),
                "simdbloom_counting_contains_one", "filter is NULL");
  EXPECT_EINVAL(simdbloom_counting_count_one(NULL, "a", 1, &count), "simdbloom_counting_count_one",
                "filter is NULL");
  EXPECT_EINVAL(simdbloom_counting_insert_u64(NULL, g_keys.u64, 1), "simdbloom_counting_insert_u64",
                "filter is NULL");
  EXPECT_EINVAL(simdbloom_counting_remove_u64(NULL, g_keys.u64, 1, NULL),
                "simdbloom_counting_remove_u64", "filter is NULL");
  EXPECT_EINVAL(simdbloom_counting_contains_u64(NULL, g_keys.u64, 1, g_out),
                "simdbloom_counting_contains_u64", "filter is NULL");
  EXPECT_EINVAL(simdbloom_counting_count_u64(NULL, g_keys.u64, 1, g_out),
                "simdbloom_counting_count_u64", "filter is NULL");
  EXPECT_EINVAL(simdbloom_counting_insert_keys(NULL, &u64, NULL, &result),
                "simdbloom_counting_insert_keys", "filter is NULL");
  EXPECT_EINVAL(simdbloom_counting_remove_keys(NULL, &u64, NULL, &result),
                "simdbloom_counting_remove_keys", "filter is NULL");
  EXPECT_EINVAL(simdbloom_counting_contains_keys(NULL, &u64, g_out, &result),
                "simdbloom_counting_contains_keys", "filter is NULL");
  EXPECT_EINVAL(simdbloom_counting_count_keys(NULL, &u64, g_out, &result),
                "simdbloom_counting_count_keys", "filter is NULL");
  EXPECT_EINVAL(simdbloom_counting_to_filter(NULL, NULL), "simdbloom_counting_to_filter",
                "filter is NULL");
  EXPECT_EINVAL(simdbloom_counting_merge(NULL, NULL), "simdbloom_counting_merge", "filter is NULL");
  EXPECT_EINVAL(simdbloom_counting_clear(NULL), "simdbloom_counting_clear", "filter is NULL");
  EXPECT(simdbloom_counting_compatible(NULL, NULL) == 0);
  EXPECT(message_is("simdbloom_counting_compatible", "a is NULL"));
  EXPECT_NULL_GETTER(simdbloom_counting_layout);
  EXPECT_NULL_GETTER(simdbloom_counting_num_blocks);
  EXPECT_NULL_GETTER(simdbloom_counting_counter_count);
  EXPECT_NULL_GETTER(simdbloom_counting_num_hashes);
  EXPECT_NULL_GETTER(simdbloom_counting_seed);
  EXPECT_NULL_GETTER(simdbloom_counting_size);
  EXPECT_NULL_GETTER(simdbloom_counting_size_bytes);
  EXPECT_NULL_GETTER(simdbloom_counting_saturated_count);
  EXPECT_NULL_GETTER(simdbloom_counting_is_view);
  EXPECT(simdbloom_counting_predicted_fpp(NULL, 5) == 0.0);
  EXPECT(message_is("simdbloom_counting_predicted_fpp", "filter is NULL"));

  /* Arguments of a real filter: refused before anything changes. */
  EXPECT(simdbloom_counting_with_counters(4096, 4, 1, 0, &c) == SIMDBLOOM_OK);
  EXPECT(simdbloom_counting_compatible(c, NULL) == 0);
  EXPECT(message_is("simdbloom_counting_compatible", "b is NULL"));
  EXPECT_EINVAL(simdbloom_counting_merge(c, NULL), "simdbloom_counting_merge", "other is NULL");
  EXPECT_EINVAL(simdbloom_counting_insert_one(c, NULL, 3, NULL), "simdbloom_counting_insert_one",
                "key is NULL with length = 3");
  EXPECT_EINVAL(simdbloom_counting_insert_one(c, "abc", SIZE_MAX, NULL),
                "simdbloom_counting_insert_one", "pass the end of the address space");
  EXPECT_EINVAL(simdbloom_counting_contains_one(c, "a", 1, NULL), "simdbloom_counting_contains_one",
                "out is NULL");
  EXPECT_EINVAL(simdbloom_counting_count_one(c, "a", 1, NULL), "simdbloom_counting_count_one",
                "out is NULL");
  EXPECT_EINVAL(simdbloom_counting_insert_u64(c, NULL, 3), "simdbloom_counting_insert_u64",
                "keys is NULL with n = 3");
  EXPECT_EINVAL(simdbloom_counting_insert_u64(c, g_keys.u64, SIZE_MAX),
                "simdbloom_counting_insert_u64", "exceed the address space");
  EXPECT_EINVAL(simdbloom_counting_remove_u64(c, NULL, 3, NULL), "simdbloom_counting_remove_u64",
                "keys is NULL with n = 3");
  EXPECT_EINVAL(simdbloom_counting_contains_u64(c, g_keys.u64, 3, NULL),
                "simdbloom_counting_contains_u64", "out is NULL with n = 3");
  EXPECT_EINVAL(simdbloom_counting_count_u64(c, g_keys.u64, 3, NULL),
                "simdbloom_counting_count_u64", "out is NULL with n = 3");
  EXPECT_EINVAL(
      simdbloom_counting_contains_u64(c, g_keys.u64, 16, (uint8_t*)(uintptr_t)(UINTPTR_MAX - 7)),
      "simdbloom_counting_contains_u64", "pass the end of the address space");
  EXPECT_EINVAL(simdbloom_counting_insert_u64(c, (const uint64_t*)(uintptr_t)(UINTPTR_MAX - 63), 8),
                "simdbloom_counting_insert_u64", "pass the end of the address space");
  EXPECT_EINVAL(simdbloom_counting_insert_keys(c, NULL, NULL, &result),
                "simdbloom_counting_insert_keys", "keys is NULL");
  bad.kind = 9;
  EXPECT_EINVAL(simdbloom_counting_remove_keys(c, &bad, NULL, &result),
                "simdbloom_counting_remove_keys", "is not a SIMDBLOOM_KEYS_* kind");
  EXPECT_EINVAL(simdbloom_counting_contains_keys(c, &u64, NULL, &result),
                "simdbloom_counting_contains_keys", "out is NULL with keys->count = 16");
  EXPECT_EINVAL(simdbloom_counting_count_keys(c, &u64, NULL, &result),
                "simdbloom_counting_count_keys", "out is NULL with keys->count = 16");
  EXPECT_EINVAL(simdbloom_counting_to_filter(c, NULL), "simdbloom_counting_to_filter",
                "out is NULL");
  EXPECT(result == 777 && count == 777 && flag == 77);
  EXPECT(simdbloom_counting_size(c) == 0);
  EXPECT(simdbloom_counting_contains_u64(c, g_keys.u64, N, g_out) == SIMDBLOOM_OK);
  EXPECT(all_equal(g_out, N, 0));
  simdbloom_counting_free(c);
}

/* ---- Scalable ---- */

static void test_scalable(const unsigned char* other, size_t other_size) {
  simdbloom_scalable* s = NULL;
  simdbloom_scalable* t = NULL;
  simdbloom_filter* stage = NULL;
  const simdbloom_keys recs = record_keys(&g_keys, N), a32 = arrow32_keys(&g_keys, N);
  const simdbloom_keys more = u64_keys(&g_more, N), more_le = le_keys(&g_more, N);
  const simdbloom_keys u32 = shape(SIMDBLOOM_KEYS_U32, g_keys.u32, NULL, 0, 0, N);
  static uint64_t wide[N];
  uint64_t result = 0, count = 0, capacity = 0, kept = 0;
  double fpp = 0;
  size_t i, size;
  uint8_t flag = 9;
  unsigned char* bytes;

  /* A chain of initial capacity 200 grown by 3N keys: several stages, no false negative. */
  EXPECT(simdbloom_scalable_create(200, 0.01, SIMDBLOOM_SPLIT_BLOCK256, 5,
                                   SIMDBLOOM_SCALABLE_GROWTH, SIMDBLOOM_SCALABLE_TIGHTENING,
                                   &s) == SIMDBLOOM_OK);
  /* Integers (u64 calls, U64 and U32 arrays: one key by value), then a chain of byte strings. */
  for (i = 0; i < N; ++i) wide[i] = g_keys.u32[i];
  EXPECT(simdbloom_scalable_insert_u64(s, g_keys.u64, N) == SIMDBLOOM_OK);
  memset(g_out2, 0xEE, N);
  EXPECT(simdbloom_scalable_insert_keys(s, &u32, g_out2, &result) == SIMDBLOOM_OK);
  EXPECT(result == sum_bytes(g_out2, N) && result > N - N / 20);
  EXPECT(simdbloom_scalable_insert_keys(s, &more, NULL, NULL) == SIMDBLOOM_OK);
  EXPECT(simdbloom_scalable_stages(s) >= 4);
  EXPECT(simdbloom_scalable_contains_u64(s, g_keys.u64, N, g_out) == SIMDBLOOM_OK);
  EXPECT(all_equal(g_out, N, 1));
  EXPECT(simdbloom_scalable_contains_u64(s, wide, N, g_out) == SIMDBLOOM_OK);
  EXPECT(all_equal(g_out, N, 1));
  EXPECT(simdbloom_scalable_contains_keys(s, &more, g_out, &result) == SIMDBLOOM_OK);
  EXPECT(all_equal(g_out, N, 1) && result == N);
  EXPECT_EINVAL(simdbloom_scalable_contains_keys(s, &more_le, g_out, &result),
                "simdbloom_scalable_contains_keys", "int64");
  EXPECT_EINVAL(simdbloom_scalable_insert_one(s, "hello", 5, &flag),
                "simdbloom_scalable_insert_one", "int64");
  EXPECT(flag == 9);
  EXPECT(simdbloom_scalable_create(200, 0.01, SIMDBLOOM_BLOCK512, 5, SIMDBLOOM_SCALABLE_GROWTH,
                                   SIMDBLOOM_SCALABLE_TIGHTENING, &t) == SIMDBLOOM_OK);
  EXPECT(simdbloom_scalable_insert_keys(t, &recs, NULL, NULL) == SIMDBLOOM_OK);
  EXPECT(simdbloom_scalable_insert_keys(t, &more_le, NULL, NULL) == SIMDBLOOM_OK);
  EXPECT(simdbloom_scalable_stages(t) >= 4);
  EXPECT(simdbloom_scalable_contains_keys(t, &a32, g_out, &result) == SIMDBLOOM_OK);
  EXPECT(all_equal(g_out, N, 1) && result == N);
  for (i = 0; i < 40; ++i) {
    EXPECT(simdbloom_scalable_contains_one(t, g_more.le + 8 * i, 8, &flag) == SIMDBLOOM_OK);
    EXPECT(flag == 1);
  }
  EXPECT(simdbloom_scalable_insert_one(t, "hello", 5, &flag) == SIMDBLOOM_OK && flag == 1);
  EXPECT(simdbloom_scalable_contains_one(t, "hello", 5, &flag) == SIMDBLOOM_OK && flag == 1);
  EXPECT_EINVAL(simdbloom_scalable_contains_u64(t, g_keys.u64, N, g_out),
                "simdbloom_scalable_contains_u64", "bytes");
  simdbloom_scalable_free(t);
  t = NULL;

  /* The chain's numbers. */
  EXPECT(simdbloom_scalable_layout(s) == SIMDBLOOM_SPLIT_BLOCK256);
  EXPECT(simdbloom_scalable_seed(s) == 5);
  EXPECT(simdbloom_scalable_initial_capacity(s) == 200);
  EXPECT(simdbloom_scalable_fpp(s) == 0.01);
  EXPECT(simdbloom_scalable_growth(s) == SIMDBLOOM_SCALABLE_GROWTH);
  EXPECT(simdbloom_scalable_tightening(s) == SIMDBLOOM_SCALABLE_TIGHTENING);
  EXPECT(simdbloom_scalable_expected_fpp(s) > 0 && simdbloom_scalable_expected_fpp(s) < 0.01);
  EXPECT(simdbloom_scalable_bits_per_key(s) > 8);
  for (i = 0, result = 0; i < simdbloom_scalable_stages(s); ++i) {
    EXPECT(simdbloom_scalable_stage_info(s, i, &count, &capacity, &fpp) == SIMDBLOOM_OK);
    EXPECT(count <= capacity && fpp > 0 && fpp < 0.01);
    EXPECT(simdbloom_scalable_stage_info(s, i, NULL, NULL, NULL) == SIMDBLOOM_OK);
    result += count;
    EXPECT(simdbloom_scalable_stage(s, i, &stage) == SIMDBLOOM_OK);
    EXPECT(simdbloom_layout(stage) == SIMDBLOOM_SPLIT_BLOCK256);
    kept += simdbloom_bit_count(stage) / 8;
    if (i == 0) { /* the first stage took the first keys */
      EXPECT(simdbloom_contains_u64(stage, g_keys.u64, 100, g_out) == SIMDBLOOM_OK);
      EXPECT(all_equal(g_out, 100, 1));
    }
    simdbloom_free(stage);
  }
  EXPECT(result == simdbloom_scalable_count(s) && result > 2 * N);
  EXPECT(kept == simdbloom_scalable_size_bytes(s));
  EXPECT(simdbloom_scalable_approximate_count(s) > 0.9 * (double)result);
  EXPECT(simdbloom_scalable_approximate_count(s) < 1.1 * (double)result);

  bytes = round_trip(&scalable_persistence, s, other, other_size, &size);
  free(bytes);
  EXPECT_EINVAL(simdbloom_scalable_stage_info(s, simdbloom_scalable_stages(s), &count, NULL, NULL),
                "simdbloom_scalable_stage_info", "is not below simdbloom_scalable_stages");
  EXPECT_EINVAL(simdbloom_scalable_stage(s, 64, &stage), "simdbloom_scalable_stage",
                "i = 64 is not below simdbloom_scalable_stages");
  EXPECT_EINVAL(simdbloom_scalable_stage(s, 0, NULL), "simdbloom_scalable_stage", "out is NULL");

  /* Merge: two one-stage chains whose counts fit the stage; a grown one does not merge. */
  EXPECT(simdbloom_scalable_create(N, 0.01, SIMDBLOOM_SPLIT_BLOCK256, 5, 2.0, 0.85, &t) ==
         SIMDBLOOM_OK);
  EXPECT(simdbloom_scalable_can_merge(s, t) == 0);
  EXPECT_ERROR(simdbloom_scalable_merge(t, s), SIMDBLOOM_EINCOMPATIBLE, "simdbloom_scalable_merge",
               "");
  EXPECT(simdbloom_scalable_clear(s) == SIMDBLOOM_OK);
  EXPECT(simdbloom_scalable_stages(s) == 1 && simdbloom_scalable_count(s) == 0);
  EXPECT(simdbloom_scalable_contains_u64(s, g_keys.u64, N, g_out) == SIMDBLOOM_OK);
  EXPECT(sum_bytes(g_out, N) == 0);
  simdbloom_scalable_free(s);
  EXPECT(simdbloom_scalable_create(N, 0.01, SIMDBLOOM_SPLIT_BLOCK256, 5, 2.0, 0.85, &s) ==
         SIMDBLOOM_OK);
  EXPECT(simdbloom_scalable_insert_u64(s, g_keys.u64, N / 2) == SIMDBLOOM_OK);
  EXPECT(simdbloom_scalable_insert_u64(t, g_keys.u64 + N / 2, N / 2) == SIMDBLOOM_OK);
  EXPECT(simdbloom_scalable_can_merge(s, t) == 1);
  EXPECT(simdbloom_scalable_merge(s, t) == SIMDBLOOM_OK);
  EXPECT(simdbloom_scalable_contains_u64(s, g_keys.u64, N, g_out) == SIMDBLOOM_OK);
  EXPECT(all_equal(g_out, N, 1));
  simdbloom_scalable_free(t);
  /* A chain of other parameters. */
  EXPECT(simdbloom_scalable_create(N, 0.01, SIMDBLOOM_BLOCK512, 5, 2.0, 0.85, &t) == SIMDBLOOM_OK);
  EXPECT_ERROR(simdbloom_scalable_merge(s, t), SIMDBLOOM_EINCOMPATIBLE, "simdbloom_scalable_merge",
               "layout");
  simdbloom_scalable_free(t);
  simdbloom_scalable_free(s);
}

static void test_scalable_errors(void) {
  simdbloom_scalable* s = NULL;
  simdbloom_scalable* const sentinel = (simdbloom_scalable*)&s;
  const simdbloom_keys u64 = u64_keys(&g_keys, 16);
  uint64_t result = 777;
  uint8_t flag = 77;
  /* Issue 45: a chain at its rate floor is "capacity exhausted" (ECAPACITY), not ENOMEM. */
  EXPECT(simdbloom_scalable_create(1, 0.01, SIMDBLOOM_BLOCK512, 0, 1.0, 0.5, &s) == SIMDBLOOM_OK);
  EXPECT_ERROR(simdbloom_scalable_insert_u64(s, g_keys.u64, 1000), SIMDBLOOM_ECAPACITY,
               "simdbloom_scalable_insert_u64",
               "capacity exhausted: cannot add stage 23: its rate 5.96e-10 would be below 1e-9");
  EXPECT(strcmp(simdbloom_strerror(SIMDBLOOM_ECAPACITY), "capacity exhausted") == 0);
  simdbloom_scalable_free(s);
  s = sentinel;
  EXPECT_EINVAL(simdbloom_scalable_create(100, 0.01, 8, 0, 2.0, 0.85, &s),
                "simdbloom_scalable_create", "layout 8 is not a layout (1 block512");
  EXPECT_EINVAL(simdbloom_scalable_create(100, 0.01, SIMDBLOOM_GUAVA, 0, 2.0, 0.85, &s),
                "simdbloom_scalable_create", "a chain of guava stages is not supported");
  EXPECT_EINVAL(simdbloom_scalable_create(0, 0.01, 1, 0, 2.0, 0.85, &s),
                "simdbloom_scalable_create", "initial_capacity");
  EXPECT_EINVAL(simdbloom_scalable_create(100, 1.0, 1, 0, 2.0, 0.85, &s),
                "simdbloom_scalable_create", "fpp");
  EXPECT_EINVAL(simdbloom_scalable_create(100, 0.01, 1, 0, 0.5, 0.85, &s),
                "simdbloom_scalable_create", "growth");
  EXPECT_EINVAL(simdbloom_scalable_create(100, 0.01, 1, 0, 17, 0.85, &s),
                "simdbloom_scalable_create", "growth");
  EXPECT_EINVAL(simdbloom_scalable_create(100, 0.01, 1, 0, 2.0, 1.0, &s),
                "simdbloom_scalable_create", "tightening");
  EXPECT_EINVAL(simdbloom_scalable_create(100, 0.01, 1, 0, 2.0, 0.0, &s),
                "simdbloom_scalable_create", "tightening");
  EXPECT_EINVAL(simdbloom_scalable_create(100, 0.01, 1, 0, 2.0, 0.85, NULL),
                "simdbloom_scalable_create", "out is NULL");
  EXPECT(s == sentinel);
  EXPECT_EINVAL(simdbloom_scalable_insert_one(NULL, "a", 1, NULL), "simdbloom_scalable_insert_one",
                "filter is NULL");
  EXPECT_EINVAL(simdbloom_scalable_contains_one(NULL, "a", 1, &flag),
                "simdbloom_scalable_contains_one", "filter is NULL");
  EXPECT_EINVAL(simdbloom_scalable_insert_u64(NULL, g_keys.u64, 1), "simdbloom_scalable_insert_u64",
                "filter is NULL");
  EXPECT_EINVAL(simdbloom_scalable_contains_u64(NULL, g_keys.u64, 1, g_out),
                "simdbloom_scalable_contains_u64", "filter is NULL");
  EXPECT_EINVAL(simdbloom_scalable_insert_keys(NULL, &u64, NULL, &result),
                "simdbloom_scalable_insert_keys", "filter is NULL");
  EXPECT_EINVAL(simdbloom_scalable_contains_keys(NULL, &u64, g_out, &result),
                "simdbloom_scalable_contains_keys", "filter is NULL");
  EXPECT_EINVAL(simdbloom_scalable_merge(NULL, NULL), "simdbloom_scalable_merge", "filter is NULL");
  EXPECT_EINVAL(simdbloom_scalable_clear(NULL), "simdbloom_scalable_clear", "filter is NULL");
  EXPECT_EINVAL(simdbloom_scalable_stage(NULL, 0, NULL), "simdbloom_scalable_stage",
                "filter is NULL");
  EXPECT_EINVAL(simdbloom_scalable_stage_info(NULL, 0, NULL, NULL, NULL),
                "simdbloom_scalable_stage_info", "filter is NULL");
  EXPECT(simdbloom_scalable_can_merge(NULL, NULL) == 0);
  EXPECT(message_is("simdbloom_scalable_can_merge", "a is NULL"));
  EXPECT_NULL_GETTER(simdbloom_scalable_layout);
  EXPECT_NULL_GETTER(simdbloom_scalable_seed);
  EXPECT_NULL_GETTER(simdbloom_scalable_initial_capacity);
  EXPECT_NULL_GETTER(simdbloom_scalable_fpp);
  EXPECT_NULL_GETTER(simdbloom_scalable_growth);
  EXPECT_NULL_GETTER(simdbloom_scalable_tightening);
  EXPECT_NULL_GETTER(simdbloom_scalable_stages);
  EXPECT_NULL_GETTER(simdbloom_scalable_count);
  EXPECT_NULL_GETTER(simdbloom_scalable_size_bytes);
  EXPECT_NULL_GETTER(simdbloom_scalable_approximate_count);
  EXPECT_NULL_GETTER(simdbloom_scalable_expected_fpp);
  EXPECT_NULL_GETTER(simdbloom_scalable_bits_per_key);

  EXPECT(simdbloom_scalable_create(100, 0.01, 1, 0, 2.0, 0.85, &s) == SIMDBLOOM_OK);
  EXPECT(simdbloom_scalable_can_merge(s, NULL) == 0);
  EXPECT(message_is("simdbloom_scalable_can_merge", "b is NULL"));
  EXPECT_EINVAL(simdbloom_scalable_merge(s, NULL), "simdbloom_scalable_merge", "other is NULL");
  EXPECT_EINVAL(simdbloom_scalable_insert_one(s, NULL, 1, NULL), "simdbloom_scalable_insert_one",
                "key is NULL with length = 1");
  EXPECT_EINVAL(simdbloom_scalable_contains_one(s, "a", 1, NULL), "simdbloom_scalable_contains_one",
                "out is NULL");
  EXPECT_EINVAL(simdbloom_scalable_insert_u64(s, NULL, 2), "simdbloom_scalable_insert_u64",
                "keys is NULL with n = 2");
  EXPECT_EINVAL(simdbloom_scalable_contains_u64(s, g_keys.u64, 2, NULL),
                "simdbloom_scalable_contains_u64", "out is NULL with n = 2");
  EXPECT_EINVAL(simdbloom_scalable_insert_keys(s, NULL, NULL, &result),
                "simdbloom_scalable_insert_keys", "keys is NULL");
  EXPECT_EINVAL(simdbloom_scalable_contains_keys(s, &u64, NULL, &result),
                "simdbloom_scalable_contains_keys", "out is NULL");
  EXPECT(result == 777 && flag == 77);
  EXPECT(simdbloom_scalable_count(s) == 0);
  simdbloom_scalable_free(s);
  simdbloom_scalable_free(NULL);
}

/* ---- Spatial ---- */

static void test_spatial(const unsigned char* other, size_t other_size) {
  enum { A = N / 3 }; /* keys [0, A) in area 1, [A, 2A) in area 2, [2A, 3A) in area 3 */
  static uint16_t labels[N], labels2[N];
  simdbloom_spatial* f = NULL;
  simdbloom_spatial_totals totals;
  simdbloom_spatial_area areas[3];
  const simdbloom_keys some = le_keys(&g_keys, 4);
  uint64_t raised = 0, labelled = 0;
  uint16_t label = 0;
  size_t i, exact = 0, size;
  unsigned char* bytes;

  /* One area: every inserted key gets its label, in every integer spelling; the keys' bytes are
   * byte strings, refused by a filter of integers. */
  EXPECT(simdbloom_spatial_create(N, 0.01, 1, 3, &f) == SIMDBLOOM_OK);
  EXPECT(simdbloom_spatial_insert_u64(f, 1, g_keys.u64, N, &raised) == SIMDBLOOM_OK);
  EXPECT(raised > 0 && raised <= (uint64_t)N * simdbloom_spatial_num_hashes(f));
  EXPECT(simdbloom_spatial_classify_u64(f, g_keys.u64, N, labels) == SIMDBLOOM_OK);
  for (i = 0; i < N; ++i) EXPECT(labels[i] == 1);
  {
    const simdbloom_keys u64 = u64_keys(&g_keys, N), le = le_keys(&g_keys, N);
    memset(labels2, 0, sizeof(labels2));
    EXPECT(simdbloom_spatial_classify_keys(f, &u64, labels2, &labelled) == SIMDBLOOM_OK);
    EXPECT(labelled == N && memcmp(labels, labels2, sizeof(labels)) == 0);
    EXPECT_EINVAL(simdbloom_spatial_classify_keys(f, &le, labels2, &labelled),
                  "simdbloom_spatial_classify_keys", "int64");
  }
  EXPECT_EINVAL(simdbloom_spatial_classify_one(f, g_keys.le, 8, &label),
                "simdbloom_spatial_classify_one", "int64");
  EXPECT(label == 0);
  simdbloom_spatial_free(f);

  /* Three areas of byte strings: a key is never labelled below its area, nor 0; the top area's
   * keys are exact. */
  EXPECT(simdbloom_spatial_create(N, 0.01, 3, 3, &f) == SIMDBLOOM_OK);
  {
    const simdbloom_keys first = record_keys(&g_keys, A);
    EXPECT(simdbloom_spatial_insert_keys(f, 1, &first, NULL) == SIMDBLOOM_OK);
  }
  {
    /* Keys [A, 2A) as Arrow strings: offsets A .. 2A into the same data. */
    const simdbloom_keys s2 =
        shape(SIMDBLOOM_KEYS_BINARY32, g_keys.offsets32 + A, g_keys.packed, 13 * N, 0, A);
    EXPECT(simdbloom_spatial_insert_keys(f, 2, &s2, &raised) == SIMDBLOOM_OK);
  }
  for (i = 2 * A; i < 3 * A; ++i) {
    EXPECT(simdbloom_spatial_insert_one(f, 3, g_keys.records + 16 * i, 13, NULL) == SIMDBLOOM_OK);
  }
  EXPECT(simdbloom_spatial_current_label(f) == 3);
  {
    const simdbloom_keys recs = record_keys(&g_keys, N);
    const simdbloom_keys a64 = arrow64_keys(&g_keys, N);
    EXPECT(simdbloom_spatial_classify_keys(f, &a64, labels, &labelled) == SIMDBLOOM_OK);
    for (i = 0; i < A; ++i) {
      EXPECT(labels[i] >= 1 && labels[i] <= 3);
      exact += labels[i] == 1;
    }
    EXPECT(exact > A - A / 10);
    EXPECT(simdbloom_spatial_classify_keys(f, &recs, labels, &labelled) == SIMDBLOOM_OK);
    for (i = A, exact = 0; i < 2 * A; ++i) {
      EXPECT(labels[i] >= 2 && labels[i] <= 3);
      exact += labels[i] == 2;
    }
    EXPECT(exact > A - A / 10);
    for (i = 2 * A; i < 3 * A; ++i) EXPECT(labels[i] == 3);
    EXPECT(simdbloom_spatial_classify_one(f, g_keys.packed + 13 * A, 13, &label) == SIMDBLOOM_OK);
    EXPECT(label == labels[A]);
  }
  EXPECT(simdbloom_spatial_members(f, 1) == A && simdbloom_spatial_members(f, 2) == A);
  EXPECT(simdbloom_spatial_members(f, 3) == A && simdbloom_spatial_members(f, 4) == 0);
  EXPECT(simdbloom_spatial_members(f, 65537) == 0);
  EXPECT(simdbloom_spatial_stats(f, 1, &totals, areas, 3) == SIMDBLOOM_OK);
  EXPECT(totals.members == 3 * A && totals.measured == 1 &&
         totals.k == simdbloom_spatial_num_hashes(f));
  EXPECT(totals.num_cells == simdbloom_spatial_num_cells(f) && totals.cell_bytes == 1);
  EXPECT(totals.sparsity > 0 && totals.sparsity < 1 && totals.apriori_fpp > 0);
  for (i = 0; i < 3; ++i) {
    EXPECT(areas[i].label == i + 1 && areas[i].members == A);
    EXPECT(areas[i].cells > 0 && areas[i].cells <= areas[i].cells_written);
    EXPECT(areas[i].emersion > 0.5 && areas[i].emersion <= 1);
  }
  EXPECT(areas[2].apriori_isep == 0); /* nothing is above the top area */
  EXPECT(simdbloom_spatial_stats(f, 0, &totals, NULL, 0) == SIMDBLOOM_OK);
  EXPECT(totals.measured == 0 && totals.members == 3 * A);
  EXPECT(simdbloom_spatial_num_areas(f) == 3 && simdbloom_spatial_seed(f) == 3);
  EXPECT(simdbloom_spatial_num_cells(f) == 64 * simdbloom_spatial_num_blocks(f));
  EXPECT(simdbloom_spatial_size_bytes(f) == simdbloom_spatial_num_cells(f));
  EXPECT(simdbloom_spatial_predicted_fpp(f, N) > 0 && simdbloom_spatial_predicted_fpp(f, N) < 0.01);

  /* Labels: ascending, 1..num_areas; refused before anything changes. */
  EXPECT_EINVAL(simdbloom_spatial_insert_keys(f, 2, &some, &raised),
                "simdbloom_spatial_insert_keys", "label 2 after label 3");
  EXPECT_EINVAL(simdbloom_spatial_insert_keys(f, 4, &some, &raised),
                "simdbloom_spatial_insert_keys", "label 4 is outside 1..3");
  EXPECT_EINVAL(simdbloom_spatial_insert_u64(f, 3, g_keys.u64, 1, &raised),
                "simdbloom_spatial_insert_u64", "bytes");
  EXPECT_EINVAL(simdbloom_spatial_classify_u64(f, g_keys.u64, 1, labels),
                "simdbloom_spatial_classify_u64", "bytes");
  EXPECT_EINVAL(simdbloom_spatial_insert_one(f, 0, "a", 1, &raised), "simdbloom_spatial_insert_one",
                "label 0 is outside 1..65535");
  EXPECT_EINVAL(simdbloom_spatial_insert_one(f, 65536 + 3, "a", 1, &raised),
                "simdbloom_spatial_insert_one", "label 65539 is outside 1..65535");
  EXPECT_EINVAL(simdbloom_spatial_insert_keys(f, 1, &some, &raised),
                "simdbloom_spatial_insert_keys", "label 1 after label 3");
  EXPECT(simdbloom_spatial_members(f, 1) == A && simdbloom_spatial_current_label(f) == 3);
  EXPECT_EINVAL(simdbloom_spatial_stats(f, 1, &totals, areas, 2), "simdbloom_spatial_stats",
                "capacity 2 is below num_areas, 3");
  EXPECT_EINVAL(simdbloom_spatial_stats(f, 1, NULL, areas, 3), "simdbloom_spatial_stats",
                "totals is NULL");

  bytes = round_trip(&spatial_persistence, f, other, other_size, &size);
  free(bytes);
  simdbloom_spatial_free(f);

  /* More than 255 areas: 2-byte cells. */
  EXPECT(simdbloom_spatial_with_blocks(64, 4, 300, 0, &f) == SIMDBLOOM_OK);
  EXPECT(simdbloom_spatial_cell_bytes(f) == 2 && simdbloom_spatial_num_hashes(f) == 4);
  EXPECT(simdbloom_spatial_insert_u64(f, 300, g_keys.u64, 10, NULL) == SIMDBLOOM_OK);
  EXPECT(simdbloom_spatial_classify_u64(f, g_keys.u64, 10, labels) == SIMDBLOOM_OK);
  for (i = 0; i < 10; ++i) EXPECT(labels[i] == 300);
  simdbloom_spatial_free(f);
}

static void test_spatial_errors(void) {
  simdbloom_spatial* f = NULL;
  simdbloom_spatial* const sentinel = (simdbloom_spatial*)&f;
  const simdbloom_keys u64 = u64_keys(&g_keys, 16);
  simdbloom_spatial_totals totals;
  uint64_t result = 777;
  uint16_t label = 77, labels[16];
  f = sentinel;
  EXPECT_EINVAL(simdbloom_spatial_create(100, 0.01, 0, 0, &f), "simdbloom_spatial_create",
                "num_areas");
  EXPECT_EINVAL(simdbloom_spatial_create(100, 0.01, 65536, 0, &f), "simdbloom_spatial_create",
                "num_areas");
  EXPECT_EINVAL(simdbloom_spatial_create(0, 0.01, 2, 0, &f), "simdbloom_spatial_create",
                "expected_items");
  EXPECT_EINVAL(simdbloom_spatial_create(100, 0.01, 2, 0, NULL), "simdbloom_spatial_create",
                "out is NULL");
  EXPECT_EINVAL(simdbloom_spatial_with_blocks(8, 9, 2, 0, &f), "simdbloom_spatial_with_blocks",
                "k = 9 is outside 1..8");
  EXPECT_EINVAL(simdbloom_spatial_with_blocks(0, 4, 2, 0, &f), "simdbloom_spatial_with_blocks",
                "block count 0 is outside");
  EXPECT(f == sentinel);
  EXPECT_EINVAL(simdbloom_spatial_insert_one(NULL, 1, "a", 1, &result),
                "simdbloom_spatial_insert_one", "filter is NULL");
  EXPECT_EINVAL(simdbloom_spatial_insert_u64(NULL, 1, g_keys.u64, 1, &result),
                "simdbloom_spatial_insert_u64", "filter is NULL");
  EXPECT_EINVAL(simdbloom_spatial_insert_keys(NULL, 1, &u64, &result),
                "simdbloom_spatial_insert_keys", "filter is NULL");
  EXPECT_EINVAL(simdbloom_spatial_classify_one(NULL, "a", 1, &label),
                "simdbloom_spatial_classify_one", "filter is NULL");
  EXPECT_EINVAL(simdbloom_spatial_classify_u64(NULL, g_keys.u64, 1, labels),
                "simdbloom_spatial_classify_u64", "filter is NULL");
  EXPECT_EINVAL(simdbloom_spatial_classify_keys(NULL, &u64, labels, &result),
                "simdbloom_spatial_classify_keys", "filter is NULL");
  EXPECT_EINVAL(simdbloom_spatial_stats(NULL, 0, &totals, NULL, 0), "simdbloom_spatial_stats",
                "filter is NULL");
  EXPECT_NULL_GETTER(simdbloom_spatial_num_areas);
  EXPECT_NULL_GETTER(simdbloom_spatial_num_hashes);
  EXPECT_NULL_GETTER(simdbloom_spatial_num_blocks);
  EXPECT_NULL_GETTER(simdbloom_spatial_num_cells);
  EXPECT_NULL_GETTER(simdbloom_spatial_cell_bytes);
  EXPECT_NULL_GETTER(simdbloom_spatial_seed);
  EXPECT_NULL_GETTER(simdbloom_spatial_current_label);
  EXPECT_NULL_GETTER(simdbloom_spatial_size_bytes);
  EXPECT(simdbloom_spatial_members(NULL, 1) == 0);
  EXPECT(message_is("simdbloom_spatial_members", "filter is NULL"));
  EXPECT(simdbloom_spatial_predicted_fpp(NULL, 1) == 0.0);
  EXPECT(message_is("simdbloom_spatial_predicted_fpp", "filter is NULL"));

  EXPECT(simdbloom_spatial_with_blocks(16, 4, 2, 0, &f) == SIMDBLOOM_OK);
  EXPECT_EINVAL(simdbloom_spatial_insert_one(f, 1, NULL, 2, &result),
                "simdbloom_spatial_insert_one", "key is NULL with length = 2");
  EXPECT_EINVAL(simdbloom_spatial_insert_u64(f, 1, NULL, 2, &result),
                "simdbloom_spatial_insert_u64", "keys is NULL with n = 2");
  EXPECT_EINVAL(simdbloom_spatial_insert_keys(f, 1, NULL, &result), "simdbloom_spatial_insert_keys",
                "keys is NULL");
  EXPECT_EINVAL(simdbloom_spatial_classify_one(f, "a", 1, NULL), "simdbloom_spatial_classify_one",
                "label is NULL");
  EXPECT_EINVAL(simdbloom_spatial_classify_u64(f, g_keys.u64, 2, NULL),
                "simdbloom_spatial_classify_u64", "out is NULL with n = 2");
  EXPECT_EINVAL(simdbloom_spatial_classify_keys(f, &u64, NULL, &result),
                "simdbloom_spatial_classify_keys", "labels is NULL with keys->count = 16");
  EXPECT(result == 777 && label == 77);
  EXPECT(simdbloom_spatial_current_label(f) == 0 && simdbloom_spatial_members(f, 1) == 0);
  simdbloom_spatial_free(f);
  simdbloom_spatial_free(NULL);
}

/* ---- ShBF_A ---- */

static void test_shbf_a(const unsigned char* other, size_t other_size) {
  enum { A = N / 3 }; /* keys [0, A) in S1 only, [A, 2A) in both, [2A, 3A) in S2 only */
  static uint64_t s1[2 * A], s2[2 * A];
  simdbloom_shbf_a* f = NULL;
  simdbloom_shbf_a* b = NULL;
  size_t i, clear = 0, size;
  uint8_t answer = 0;
  unsigned char *bytes, *built;
  EXPECT(simdbloom_shbf_a_create(N, 0.01, 9, &f) == SIMDBLOOM_OK);
  EXPECT(simdbloom_shbf_a_insert_u64(f, g_keys.u64, A, SIMDBLOOM_SHBF_ONLY_FIRST) == SIMDBLOOM_OK);
  {
    const simdbloom_keys from_a = shape(SIMDBLOOM_KEYS_U64, g_keys.u64 + A, NULL, 0, 0, A);
    EXPECT(simdbloom_shbf_a_insert_keys(f, &from_a, SIMDBLOOM_SHBF_BOTH) == SIMDBLOOM_OK);
  }
  for (i = 2 * A; i < 3 * A; ++i) {
    EXPECT(simdbloom_shbf_a_insert_u64(f, g_keys.u64 + i, 1, SIMDBLOOM_SHBF_ONLY_SECOND) ==
           SIMDBLOOM_OK);
  }
  /* Byte strings on this filter of integers: refused, nothing inserted. */
  EXPECT_EINVAL(simdbloom_shbf_a_insert_one(f, g_keys.le, 8, SIMDBLOOM_SHBF_BOTH),
                "simdbloom_shbf_a_insert_one", "int64");
  EXPECT(simdbloom_shbf_a_items(f) == 3 * A);
  /* Every key's answer holds its membership; most are clear. */
  EXPECT(simdbloom_shbf_a_query_u64(f, g_keys.u64, 3 * A, g_out) == SIMDBLOOM_OK);
  for (i = 0; i < 3 * A; ++i) {
    const uint8_t truth = i < A       ? SIMDBLOOM_SHBF_ONLY_FIRST
                          : i < 2 * A ? SIMDBLOOM_SHBF_BOTH
                                      : SIMDBLOOM_SHBF_ONLY_SECOND;
    EXPECT((g_out[i] & truth) != 0);
    clear += g_out[i] == truth;
  }
  EXPECT(clear > 3 * A - 3 * A / 20);
  {
    const simdbloom_keys u64 = u64_keys(&g_keys, 3 * A - 1); /* nothing written past the end */
    const simdbloom_keys le = le_keys(&g_keys, 3 * A - 1);
    memset(g_out2, 0xEE, N);
    EXPECT(simdbloom_shbf_a_query_keys(f, &u64, g_out2) == SIMDBLOOM_OK);
    EXPECT(memcmp(g_out, g_out2, 3 * A - 1) == 0 && g_out2[3 * A - 1] == 0xEE);
    memset(g_out2, 0xEE, N);
    EXPECT_EINVAL(simdbloom_shbf_a_query_keys(f, &le, g_out2), "simdbloom_shbf_a_query_keys",
                  "int64");
    EXPECT(all_equal(g_out2, N, 0xEE));
  }
  EXPECT_EINVAL(simdbloom_shbf_a_query_one(f, g_keys.le + 8 * A, 8, &answer),
                "simdbloom_shbf_a_query_one", "int64");
  EXPECT(answer == 0);
  EXPECT(simdbloom_shbf_a_clear_answer_probability(f) > 0.9);
  EXPECT(simdbloom_shbf_a_clear_answer_probability(f) <= 1);
  EXPECT(simdbloom_shbf_a_paper_clear_answer_probability(f) > 0.9);
  EXPECT(simdbloom_shbf_a_false_positive_probability(f) > 0);
  EXPECT(simdbloom_shbf_a_false_positive_probability(f) < 0.05);
  EXPECT(simdbloom_shbf_a_bit_count(f) == 512 * simdbloom_shbf_a_num_blocks(f));
  EXPECT(simdbloom_shbf_a_seed(f) == 9);

  /* build(S1, S2) sets the same bits as the inserts: same bytes. */
  for (i = 0; i < 2 * A; ++i) {
    s1[i] = g_keys.u64[i];
    s2[i] = g_keys.u64[A + i];
  }
  EXPECT(simdbloom_shbf_a_build(s1, 2 * A, s2, 2 * A, 0.01, 9, &b) == SIMDBLOOM_OK);
  bytes = round_trip(&shbf_a_persistence, f, other, other_size, &size);
  EXPECT(simdbloom_shbf_a_serialized_size(b) == size);
  built = aligned_buffer(size);
  EXPECT(built != NULL && simdbloom_shbf_a_serialize(b, built, size) == SIMDBLOOM_OK);
  EXPECT(built != NULL && memcmp(bytes, built, size) == 0);
  free(built);
  free(bytes);
  simdbloom_shbf_a_free(b);
  simdbloom_shbf_a_free(f);
}

static void test_shbf_a_errors(void) {
  simdbloom_shbf_a* f = NULL;
  simdbloom_shbf_a* const sentinel = (simdbloom_shbf_a*)&f;
  const simdbloom_keys u64 = u64_keys(&g_keys, 16);
  const int bad[] = {0, 3, 5, 8, 257, -1, INT_MIN};
  size_t i;
  uint8_t answer = 77;
  char want[64];
  f = sentinel;
  EXPECT_EINVAL(simdbloom_shbf_a_create(0, 0.01, 0, &f), "simdbloom_shbf_a_create",
                "expected_items");
  EXPECT_EINVAL(simdbloom_shbf_a_create(100, 1.5, 0, &f), "simdbloom_shbf_a_create", "fpp");
  EXPECT_EINVAL(simdbloom_shbf_a_create(100, 0.01, 0, NULL), "simdbloom_shbf_a_create",
                "out is NULL");
  EXPECT_EINVAL(simdbloom_shbf_a_with_bits(0, 0, &f), "simdbloom_shbf_a_with_bits", "bits");
  EXPECT_EINVAL(simdbloom_shbf_a_build(NULL, 2, g_keys.u64, 2, 0.01, 0, &f),
                "simdbloom_shbf_a_build", "s1 is NULL with n1 = 2");
  EXPECT_EINVAL(simdbloom_shbf_a_build(g_keys.u64, 2, NULL, 2, 0.01, 0, &f),
                "simdbloom_shbf_a_build", "s2 is NULL with n2 = 2");
  EXPECT_EINVAL(simdbloom_shbf_a_build(g_keys.u64, 2, g_keys.u64, 2, 0.0, 0, &f),
                "simdbloom_shbf_a_build", "fpp");
  EXPECT(f == sentinel);
  EXPECT_EINVAL(simdbloom_shbf_a_insert_one(NULL, "a", 1, 1), "simdbloom_shbf_a_insert_one",
                "filter is NULL");
  EXPECT_EINVAL(simdbloom_shbf_a_query_one(NULL, "a", 1, &answer), "simdbloom_shbf_a_query_one",
                "filter is NULL");
  EXPECT_EINVAL(simdbloom_shbf_a_insert_u64(NULL, g_keys.u64, 1, 1), "simdbloom_shbf_a_insert_u64",
                "filter is NULL");
  EXPECT_EINVAL(simdbloom_shbf_a_query_u64(NULL, g_keys.u64, 1, g_out),
                "simdbloom_shbf_a_query_u64", "filter is NULL");
  EXPECT_EINVAL(simdbloom_shbf_a_insert_keys(NULL, &u64, 1), "simdbloom_shbf_a_insert_keys",
                "filter is NULL");
  EXPECT_EINVAL(simdbloom_shbf_a_query_keys(NULL, &u64, g_out), "simdbloom_shbf_a_query_keys",
                "filter is NULL");
  EXPECT_NULL_GETTER(simdbloom_shbf_a_clear_answer_probability);
  EXPECT_NULL_GETTER(simdbloom_shbf_a_paper_clear_answer_probability);
  EXPECT_NULL_GETTER(simdbloom_shbf_a_false_positive_probability);
  EXPECT_NULL_GETTER(simdbloom_shbf_a_items);
  EXPECT_NULL_GETTER(simdbloom_shbf_a_num_blocks);
  EXPECT_NULL_GETTER(simdbloom_shbf_a_bit_count);
  EXPECT_NULL_GETTER(simdbloom_shbf_a_seed);

  EXPECT(simdbloom_shbf_a_with_bits(4096, 0, &f) == SIMDBLOOM_OK);
  for (i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
    sprintf(want, "membership %d is not SIMDBLOOM_SHBF_ONLY_FIRST (1)", bad[i]);
    EXPECT_EINVAL(simdbloom_shbf_a_insert_one(f, "a", 1, bad[i]), "simdbloom_shbf_a_insert_one",
                  want);
    EXPECT_EINVAL(simdbloom_shbf_a_insert_u64(f, g_keys.u64, 16, bad[i]),
                  "simdbloom_shbf_a_insert_u64", want);
    EXPECT_EINVAL(simdbloom_shbf_a_insert_keys(f, &u64, bad[i]), "simdbloom_shbf_a_insert_keys",
                  want);
  }
  EXPECT_EINVAL(simdbloom_shbf_a_insert_one(f, NULL, 1, 1), "simdbloom_shbf_a_insert_one",
                "key is NULL with length = 1");
  EXPECT_EINVAL(simdbloom_shbf_a_query_one(f, "a", 1, NULL), "simdbloom_shbf_a_query_one",
                "out is NULL");
  EXPECT_EINVAL(simdbloom_shbf_a_insert_u64(f, NULL, 4, 1), "simdbloom_shbf_a_insert_u64",
                "keys is NULL with n = 4");
  EXPECT_EINVAL(simdbloom_shbf_a_query_u64(f, g_keys.u64, 4, NULL), "simdbloom_shbf_a_query_u64",
                "out is NULL with n = 4");
  EXPECT_EINVAL(
      simdbloom_shbf_a_query_u64(f, (const uint64_t*)(uintptr_t)(UINTPTR_MAX - 63), 8, g_out),
      "simdbloom_shbf_a_query_u64", "pass the end of the address space");
  EXPECT_EINVAL(simdbloom_shbf_a_insert_keys(f, NULL, 1), "simdbloom_shbf_a_insert_keys",
                "keys is NULL");
  EXPECT_EINVAL(simdbloom_shbf_a_query_keys(f, &u64, NULL), "simdbloom_shbf_a_query_keys",
                "out is NULL with keys->count = 16");
  EXPECT(simdbloom_shbf_a_items(f) == 0 && answer == 77);
  simdbloom_shbf_a_free(f);
  simdbloom_shbf_a_free(NULL);
}

/* ---- ShBF_x ---- */

static void test_shbf_x(const unsigned char* other, size_t other_size) {
  enum { MAX = 8 };
  static uint64_t group[N], multiset[N * MAX];
  static uint32_t counts[N], counts2[N];
  simdbloom_shbf_x* f = NULL;
  simdbloom_shbf_x* b = NULL;
  size_t i, m, exact = 0, size, occurrences = 0;
  uint32_t c, count = 0;
  double p = 0;
  unsigned char *bytes, *built;
  /* Key i occurs 1 + i % MAX times: inserted by count groups, u64, Keys and one at a time. */
  EXPECT(simdbloom_shbf_x_create(N, 0.01, MAX, 4, &f) == SIMDBLOOM_OK);
  for (c = 1; c <= MAX; ++c) {
    for (i = 0, m = 0; i < N; ++i) {
      if (1 + i % MAX == c) group[m++] = g_keys.u64[i];
    }
    if (c <= 3) {
      EXPECT(simdbloom_shbf_x_insert_u64(f, group, m, c) == SIMDBLOOM_OK);
    } else if (c <= 6) {
      const simdbloom_keys k = shape(SIMDBLOOM_KEYS_U64, group, NULL, 0, 0, m);
      EXPECT(simdbloom_shbf_x_insert_keys(f, &k, c) == SIMDBLOOM_OK);
    } else {
      for (i = 0; i < m; ++i) {
        EXPECT(simdbloom_shbf_x_insert_u64(f, group + i, 1, c) == SIMDBLOOM_OK);
      }
    }
  }
  EXPECT(simdbloom_shbf_x_items(f) == N);
  /* Never above the true count, never 0 for a key of the multiset; mostly exact. */
  EXPECT(simdbloom_shbf_x_count_u64(f, g_keys.u64, N, counts) == SIMDBLOOM_OK);
  for (i = 0; i < N; ++i) {
    EXPECT(counts[i] >= 1 && counts[i] <= 1 + i % MAX);
    exact += counts[i] == 1 + i % MAX;
  }
  EXPECT(exact > N - N / 10);
  {
    const simdbloom_keys u64 = u64_keys(&g_keys, N), le = le_keys(&g_keys, N);
    EXPECT(simdbloom_shbf_x_count_keys(f, &u64, counts2) == SIMDBLOOM_OK);
    EXPECT(memcmp(counts, counts2, sizeof(counts)) == 0);
    EXPECT_EINVAL(simdbloom_shbf_x_count_keys(f, &le, counts2), "simdbloom_shbf_x_count_keys",
                  "int64");
  }
  EXPECT_EINVAL(simdbloom_shbf_x_count_one(f, g_keys.le + 8 * 5, 8, &count),
                "simdbloom_shbf_x_count_one", "int64");
  EXPECT_EINVAL(simdbloom_shbf_x_insert_one(f, "a", 1, 1), "simdbloom_shbf_x_insert_one", "int64");
  EXPECT(count == 0 && simdbloom_shbf_x_items(f) == N);
  EXPECT(simdbloom_shbf_x_correct_probability(f, 1, &p) == SIMDBLOOM_OK && p == 1.0);
  EXPECT(simdbloom_shbf_x_correct_probability(f, MAX, &p) == SIMDBLOOM_OK && p > 0.9 && p < 1);
  EXPECT(simdbloom_shbf_x_false_positive_probability(f) > 0);
  EXPECT(simdbloom_shbf_x_false_positive_probability(f) < 0.1);
  EXPECT(simdbloom_shbf_x_max_count(f) == MAX && simdbloom_shbf_x_seed(f) == 4);
  EXPECT(simdbloom_shbf_x_bit_count(f) == 512 * simdbloom_shbf_x_num_blocks(f));

  /* build(multiset) sets the same bits: same bytes. */
  for (i = 0; i < N; ++i) {
    for (c = 0; c < 1 + i % MAX; ++c) multiset[occurrences++] = g_keys.u64[i];
  }
  EXPECT(simdbloom_shbf_x_build(multiset, occurrences, 0.01, MAX, 4, &b) == SIMDBLOOM_OK);
  bytes = round_trip(&shbf_x_persistence, f, other, other_size, &size);
  built = aligned_buffer(size);
  EXPECT(simdbloom_shbf_x_serialized_size(b) == size);
  EXPECT(built != NULL && simdbloom_shbf_x_serialize(b, built, size) == SIMDBLOOM_OK);
  EXPECT(built != NULL && memcmp(bytes, built, size) == 0);
  free(built);
  free(bytes);
  simdbloom_shbf_x_free(b);
  simdbloom_shbf_x_free(f);
}

static void test_shbf_x_errors(void) {
  static const uint64_t nine[9] = {5, 5, 5, 5, 5, 5, 5, 5, 5};
  simdbloom_shbf_x* f = NULL;
  simdbloom_shbf_x* const sentinel = (simdbloom_shbf_x*)&f;
  const simdbloom_keys u64 = u64_keys(&g_keys, 16);
  uint32_t count = 77;
  double p = 7;
  f = sentinel;
  EXPECT_EINVAL(simdbloom_shbf_x_create(100, 0.01, 0, 0, &f), "simdbloom_shbf_x_create",
                "max_count must be in 1..64, not 0");
  EXPECT_EINVAL(simdbloom_shbf_x_create(100, 0.01, 65, 0, &f), "simdbloom_shbf_x_create",
                "max_count");
  EXPECT_EINVAL(simdbloom_shbf_x_create(0, 0.01, 4, 0, &f), "simdbloom_shbf_x_create",
                "expected_items");
  EXPECT_EINVAL(simdbloom_shbf_x_create(100, 0.01, 4, 0, NULL), "simdbloom_shbf_x_create",
                "out is NULL");
  EXPECT_EINVAL(simdbloom_shbf_x_with_bits(1024, 65, 0, &f), "simdbloom_shbf_x_with_bits",
                "max_count");
  EXPECT_EINVAL(simdbloom_shbf_x_build(NULL, 3, 0.01, 4, 0, &f), "simdbloom_shbf_x_build",
                "keys is NULL with n = 3");
  EXPECT_EINVAL(simdbloom_shbf_x_build(nine, 9, 0.01, 8, 0, &f), "simdbloom_shbf_x_build",
                "occurs 9 times");
  EXPECT(f == sentinel);
  EXPECT_EINVAL(simdbloom_shbf_x_insert_one(NULL, "a", 1, 1), "simdbloom_shbf_x_insert_one",
                "filter is NULL");
  EXPECT_EINVAL(simdbloom_shbf_x_count_one(NULL, "a", 1, &count), "simdbloom_shbf_x_count_one",
                "filter is NULL");
  EXPECT_EINVAL(simdbloom_shbf_x_insert_u64(NULL, g_keys.u64, 1, 1), "simdbloom_shbf_x_insert_u64",
                "filter is NULL");
  EXPECT_EINVAL(simdbloom_shbf_x_count_u64(NULL, g_keys.u64, 1, &count),
                "simdbloom_shbf_x_count_u64", "filter is NULL");
  EXPECT_EINVAL(simdbloom_shbf_x_insert_keys(NULL, &u64, 1), "simdbloom_shbf_x_insert_keys",
                "filter is NULL");
  EXPECT_EINVAL(simdbloom_shbf_x_count_keys(NULL, &u64, &count), "simdbloom_shbf_x_count_keys",
                "filter is NULL");
  EXPECT_EINVAL(simdbloom_shbf_x_correct_probability(NULL, 1, &p),
                "simdbloom_shbf_x_correct_probability", "filter is NULL");
  EXPECT_NULL_GETTER(simdbloom_shbf_x_false_positive_probability);
  EXPECT_NULL_GETTER(simdbloom_shbf_x_max_count);
  EXPECT_NULL_GETTER(simdbloom_shbf_x_items);
  EXPECT_NULL_GETTER(simdbloom_shbf_x_num_blocks);
  EXPECT_NULL_GETTER(simdbloom_shbf_x_bit_count);
  EXPECT_NULL_GETTER(simdbloom_shbf_x_seed);

  EXPECT(simdbloom_shbf_x_with_bits(4096, 8, 0, &f) == SIMDBLOOM_OK);
  EXPECT_EINVAL(simdbloom_shbf_x_insert_one(f, "a", 1, 0), "simdbloom_shbf_x_insert_one",
                "count 0 is outside 1..8");
  EXPECT_EINVAL(simdbloom_shbf_x_insert_u64(f, g_keys.u64, 16, 9), "simdbloom_shbf_x_insert_u64",
                "count 9 is outside 1..8");
  EXPECT_EINVAL(simdbloom_shbf_x_insert_keys(f, &u64, 9), "simdbloom_shbf_x_insert_keys",
                "count 9 is outside 1..8");
  EXPECT_EINVAL(simdbloom_shbf_x_insert_one(f, NULL, 1, 1), "simdbloom_shbf_x_insert_one",
                "key is NULL with length = 1");
  EXPECT_EINVAL(simdbloom_shbf_x_count_one(f, "a", 1, NULL), "simdbloom_shbf_x_count_one",
                "out is NULL");
  EXPECT_EINVAL(simdbloom_shbf_x_insert_u64(f, NULL, 4, 1), "simdbloom_shbf_x_insert_u64",
                "keys is NULL with n = 4");
  EXPECT_EINVAL(simdbloom_shbf_x_count_u64(f, g_keys.u64, 4, NULL), "simdbloom_shbf_x_count_u64",
                "out is NULL with n = 4");
  EXPECT_EINVAL(simdbloom_shbf_x_insert_keys(f, NULL, 1), "simdbloom_shbf_x_insert_keys",
                "keys is NULL");
  EXPECT_EINVAL(simdbloom_shbf_x_count_keys(f, &u64, NULL), "simdbloom_shbf_x_count_keys",
                "out is NULL with keys->count = 16");
  EXPECT_EINVAL(simdbloom_shbf_x_correct_probability(f, 0, &p),
                "simdbloom_shbf_x_correct_probability", "count 0 is outside 1..max_count (8)");
  EXPECT_EINVAL(simdbloom_shbf_x_correct_probability(f, 9, &p),
                "simdbloom_shbf_x_correct_probability", "count 9 is outside 1..max_count (8)");
  EXPECT_EINVAL(simdbloom_shbf_x_correct_probability(f, 1, NULL),
                "simdbloom_shbf_x_correct_probability", "out is NULL");
  EXPECT(simdbloom_shbf_x_items(f) == 0 && count == 77 && p == 7);
  simdbloom_shbf_x_free(f);
  simdbloom_shbf_x_free(NULL);
}

/* ---- Key types, in every kind ---- */

/* Each kind's calls, typed for one test: insert and "is it there" (out[i] = 1 if key i may be
 * present: a count, label or answer above 0) over u64 calls, simdbloom_keys and one byte key. */
typedef struct {
  const char* name;
  void* (*make)(void);
  simdbloom_status (*get)(const void*, simdbloom_key_type*);
  simdbloom_status (*set)(void*, int);
  simdbloom_status (*insert_u64)(void*, const uint64_t*, size_t);
  simdbloom_status (*insert_keys)(void*, const simdbloom_keys*);
  simdbloom_status (*insert_one)(void*, const void*, size_t);
  simdbloom_status (*has_u64)(const void*, const uint64_t*, size_t, uint8_t*);
  simdbloom_status (*has_keys)(const void*, const simdbloom_keys*, uint8_t*);
  simdbloom_status (*has_one)(const void*, const void*, size_t, uint8_t*);
  const Persistence* persistence;
} KindCalls;

static uint16_t g_labels[N];
static uint32_t g_counts[N];
static void nonzero16(const uint16_t* in, size_t n, uint8_t* out) {
  size_t i;
  for (i = 0; i < n; ++i) out[i] = in[i] != 0;
}
static void nonzero32(const uint32_t* in, size_t n, uint8_t* out) {
  size_t i;
  for (i = 0; i < n; ++i) out[i] = in[i] != 0;
}

#define KT_COMMON(kind)                                                         \
  static simdbloom_status kind##_kt_get(const void* f, simdbloom_key_type* t) { \
    return simdbloom_##kind##_get_key_type((const simdbloom_##kind*)f, t);      \
  }                                                                             \
  static simdbloom_status kind##_kt_set(void* f, int t) {                       \
    return simdbloom_##kind##_set_key_type((simdbloom_##kind*)f, t);            \
  }
KT_COMMON(counting)
KT_COMMON(scalable)
KT_COMMON(spatial)
KT_COMMON(shbf_a)
KT_COMMON(shbf_x)

static void* counting_kt_make(void) {
  simdbloom_counting* f = NULL;
  EXPECT(simdbloom_counting_create(1000, 0.001, SIMDBLOOM_COUNTING_BLOCKED, 1, &f) == 0);
  return f;
}
static simdbloom_status counting_kt_ins(void* f, const uint64_t* k, size_t n) {
  return simdbloom_counting_insert_u64((simdbloom_counting*)f, k, n);
}
static simdbloom_status counting_kt_insk(void* f, const simdbloom_keys* k) {
  return simdbloom_counting_insert_keys((simdbloom_counting*)f, k, NULL, NULL);
}
static simdbloom_status counting_kt_ins1(void* f, const void* k, size_t n) {
  return simdbloom_counting_insert_one((simdbloom_counting*)f, k, n, NULL);
}
static simdbloom_status counting_kt_has(const void* f, const uint64_t* k, size_t n, uint8_t* o) {
  return simdbloom_counting_contains_u64((const simdbloom_counting*)f, k, n, o);
}
static simdbloom_status counting_kt_hask(const void* f, const simdbloom_keys* k, uint8_t* o) {
  return simdbloom_counting_contains_keys((const simdbloom_counting*)f, k, o, NULL);
}
static simdbloom_status counting_kt_has1(const void* f, const void* k, size_t n, uint8_t* o) {
  return simdbloom_counting_contains_one((const simdbloom_counting*)f, k, n, o);
}

static void* scalable_kt_make(void) {
  simdbloom_scalable* f = NULL;
  EXPECT(simdbloom_scalable_create(1000, 0.001, SIMDBLOOM_SPLIT_BLOCK256, 1, 2.0, 0.85, &f) == 0);
  return f;
}
static simdbloom_status scalable_kt_ins(void* f, const uint64_t* k, size_t n) {
  return simdbloom_scalable_insert_u64((simdbloom_scalable*)f, k, n);
}
static simdbloom_status scalable_kt_insk(void* f, const simdbloom_keys* k) {
  return simdbloom_scalable_insert_keys((simdbloom_scalable*)f, k, NULL, NULL);
}
static simdbloom_status scalable_kt_ins1(void* f, const void* k, size_t n) {
  return simdbloom_scalable_insert_one((simdbloom_scalable*)f, k, n, NULL);
}
static simdbloom_status scalable_kt_has(const void* f, const uint64_t* k, size_t n, uint8_t* o) {
  return simdbloom_scalable_contains_u64((const simdbloom_scalable*)f, k, n, o);
}
static simdbloom_status scalable_kt_hask(const void* f, const simdbloom_keys* k, uint8_t* o) {
  return simdbloom_scalable_contains_keys((const simdbloom_scalable*)f, k, o, NULL);
}
static simdbloom_status scalable_kt_has1(const void* f, const void* k, size_t n, uint8_t* o) {
  return simdbloom_scalable_contains_one((const simdbloom_scalable*)f, k, n, o);
}

static void* spatial_kt_make(void) {
  simdbloom_spatial* f = NULL;
  EXPECT(simdbloom_spatial_create(1000, 0.001, 2, 1, &f) == 0);
  return f;
}
static simdbloom_status spatial_kt_ins(void* f, const uint64_t* k, size_t n) {
  return simdbloom_spatial_insert_u64((simdbloom_spatial*)f, 1, k, n, NULL);
}
static simdbloom_status spatial_kt_insk(void* f, const simdbloom_keys* k) {
  return simdbloom_spatial_insert_keys((simdbloom_spatial*)f, 1, k, NULL);
}
static simdbloom_status spatial_kt_ins1(void* f, const void* k, size_t n) {
  return simdbloom_spatial_insert_one((simdbloom_spatial*)f, 1, k, n, NULL);
}
static simdbloom_status spatial_kt_has(const void* f, const uint64_t* k, size_t n, uint8_t* o) {
  const simdbloom_status s =
      simdbloom_spatial_classify_u64((const simdbloom_spatial*)f, k, n, g_labels);
  if (s == SIMDBLOOM_OK) nonzero16(g_labels, n, o);
  return s;
}
static simdbloom_status spatial_kt_hask(const void* f, const simdbloom_keys* k, uint8_t* o) {
  const simdbloom_status s =
      simdbloom_spatial_classify_keys((const simdbloom_spatial*)f, k, g_labels, NULL);
  if (s == SIMDBLOOM_OK) nonzero16(g_labels, k->count, o);
  return s;
}
static simdbloom_status spatial_kt_has1(const void* f, const void* k, size_t n, uint8_t* o) {
  uint16_t label = 0;
  const simdbloom_status s =
      simdbloom_spatial_classify_one((const simdbloom_spatial*)f, k, n, &label);
  if (s == SIMDBLOOM_OK) *o = label != 0;
  return s;
}

static void* shbf_a_kt_make(void) {
  simdbloom_shbf_a* f = NULL;
  EXPECT(simdbloom_shbf_a_create(1000, 0.001, 1, &f) == 0);
  return f;
}
static simdbloom_status shbf_a_kt_ins(void* f, const uint64_t* k, size_t n) {
  return simdbloom_shbf_a_insert_u64((simdbloom_shbf_a*)f, k, n, SIMDBLOOM_SHBF_BOTH);
}
static simdbloom_status shbf_a_kt_insk(void* f, const simdbloom_keys* k) {
  return simdbloom_shbf_a_insert_keys((simdbloom_shbf_a*)f, k, SIMDBLOOM_SHBF_BOTH);
}
static simdbloom_status shbf_a_kt_ins1(void* f, const void* k, size_t n) {
  return simdbloom_shbf_a_insert_one((simdbloom_shbf_a*)f, k, n, SIMDBLOOM_SHBF_BOTH);
}
/* An answer's membership bits as 1 / 0. */
static simdbloom_status any_bit(simdbloom_status s, size_t n, uint8_t* o) {
  size_t i;
  for (i = 0; s == SIMDBLOOM_OK && i < n; ++i) o[i] = o[i] != 0;
  return s;
}
static simdbloom_status shbf_a_kt_has(const void* f, const uint64_t* k, size_t n, uint8_t* o) {
  return any_bit(simdbloom_shbf_a_query_u64((const simdbloom_shbf_a*)f, k, n, o), n, o);
}
static simdbloom_status shbf_a_kt_hask(const void* f, const simdbloom_keys* k, uint8_t* o) {
  return any_bit(simdbloom_shbf_a_query_keys((const simdbloom_shbf_a*)f, k, o), k->count, o);
}
static simdbloom_status shbf_a_kt_has1(const void* f, const void* k, size_t n, uint8_t* o) {
  return any_bit(simdbloom_shbf_a_query_one((const simdbloom_shbf_a*)f, k, n, o), 1, o);
}

static void* shbf_x_kt_make(void) {
  simdbloom_shbf_x* f = NULL;
  EXPECT(simdbloom_shbf_x_create(1000, 0.001, 4, 1, &f) == 0);
  return f;
}
static simdbloom_status shbf_x_kt_ins(void* f, const uint64_t* k, size_t n) {
  return simdbloom_shbf_x_insert_u64((simdbloom_shbf_x*)f, k, n, 2);
}
static simdbloom_status shbf_x_kt_insk(void* f, const simdbloom_keys* k) {
  return simdbloom_shbf_x_insert_keys((simdbloom_shbf_x*)f, k, 2);
}
static simdbloom_status shbf_x_kt_ins1(void* f, const void* k, size_t n) {
  return simdbloom_shbf_x_insert_one((simdbloom_shbf_x*)f, k, n, 2);
}
static simdbloom_status shbf_x_kt_has(const void* f, const uint64_t* k, size_t n, uint8_t* o) {
  const simdbloom_status s = simdbloom_shbf_x_count_u64((const simdbloom_shbf_x*)f, k, n, g_counts);
  if (s == SIMDBLOOM_OK) nonzero32(g_counts, n, o);
  return s;
}
static simdbloom_status shbf_x_kt_hask(const void* f, const simdbloom_keys* k, uint8_t* o) {
  const simdbloom_status s = simdbloom_shbf_x_count_keys((const simdbloom_shbf_x*)f, k, g_counts);
  if (s == SIMDBLOOM_OK) nonzero32(g_counts, k->count, o);
  return s;
}
static simdbloom_status shbf_x_kt_has1(const void* f, const void* k, size_t n, uint8_t* o) {
  uint32_t count = 0;
  const simdbloom_status s = simdbloom_shbf_x_count_one((const simdbloom_shbf_x*)f, k, n, &count);
  if (s == SIMDBLOOM_OK) *o = count != 0;
  return s;
}

#define KIND_CALLS(kind)                                                                   \
  {                                                                                        \
#kind, kind##_kt_make, kind##_kt_get, kind##_kt_set, kind##_kt_ins, kind##_kt_insk,    \
        kind##_kt_ins1, kind##_kt_has, kind##_kt_hask, kind##_kt_has1, &kind##_persistence \
  }

/* The key type of f after a round trip through its bytes (load_bytes). */
static simdbloom_key_type reloaded_key_type(const KindCalls* k, const void* f, void** copy) {
  const size_t n = k->persistence->serialized_size(f);
  unsigned char* bytes = aligned_buffer(n);
  simdbloom_key_type type = (simdbloom_key_type)99;
  *copy = NULL;
  EXPECT(bytes != NULL && k->persistence->serialize(f, bytes, n) == SIMDBLOOM_OK);
  EXPECT(bytes != NULL && k->persistence->load_bytes(bytes, n, copy) == SIMDBLOOM_OK);
  if (*copy != NULL) EXPECT(k->get(*copy, &type) == SIMDBLOOM_OK);
  free(bytes);
  return type;
}

/* The last error contains both parts. */
static int names_both(const char* a, const char* b) {
  const char* m = simdbloom_last_error();
  const int ok = strstr(m, a) != NULL && strstr(m, b) != NULL;
  if (!ok) fprintf(stderr, "  last error \"%s\", expected \"%s\" and \"%s\"\n", m, a, b);
  return ok;
}

/* In every kind: an integer is its value (u32 and u64 calls of one value find each other), the
 * key type after create, insert, save and load, declaring it, integers and byte strings refused
 * by a filter of the other kind (naming both), and the range of a 4-byte filter. */
static void test_key_types_of(const KindCalls* k) {
  enum { M = 6 };
  static const uint32_t v32[M] = {0, 1, 7, 0x7FFFFFFFu, 0xFFFFFFFFu, 123456789u};
  uint64_t v64[M], big[2] = {5, (uint64_t)1 << 32};
  const simdbloom_keys u32 = shape(SIMDBLOOM_KEYS_U32, v32, NULL, 0, 0, M);
  simdbloom_keys u64;
  simdbloom_key_type type = (simdbloom_key_type)99;
  uint8_t out[M], one = 77;
  void* f;
  void* copy = NULL;
  size_t i;
  char fn[80];
  for (i = 0; i < M; ++i) v64[i] = v32[i];
  u64 = shape(SIMDBLOOM_KEYS_U64, v64, NULL, 0, 0, M);

  /* 8-byte integers: the first integer insert decides; u32 inserts, u64 queries and back. */
  f = k->make();
  EXPECT(k->get(f, &type) == SIMDBLOOM_OK && type == SIMDBLOOM_KEY_NONE);
  EXPECT(k->insert_keys(f, &u32) == SIMDBLOOM_OK);
  EXPECT(k->get(f, &type) == SIMDBLOOM_OK && type == SIMDBLOOM_KEY_INT64);
  memset(out, 0, M);
  EXPECT(k->has_u64(f, v64, M, out) == SIMDBLOOM_OK && all_equal(out, M, 1));
  memset(out, 0, M);
  EXPECT(k->has_keys(f, &u64, out) == SIMDBLOOM_OK && all_equal(out, M, 1));
  EXPECT(reloaded_key_type(k, f, &copy) == SIMDBLOOM_KEY_INT64);
  memset(out, 0, M);
  EXPECT(copy != NULL && k->has_u64(copy, v64, M, out) == SIMDBLOOM_OK && all_equal(out, M, 1));
  k->persistence->free_fn(copy);
  /* A byte string: refused, naming both. */
  EXPECT(k->insert_one(f, "ab", 2) == SIMDBLOOM_EINVAL);
  EXPECT(names_both("int64", "byte"));
  EXPECT(k->has_one(f, "ab", 2, &one) == SIMDBLOOM_EINVAL && one == 77);
  EXPECT(names_both("int64", "byte"));
  /* Declaring: the type it holds again, not another one, nor none or a value of no type. */
  EXPECT(k->set(f, SIMDBLOOM_KEY_INT64) == SIMDBLOOM_OK);
  sprintf(fn, "simdbloom_%s_set_key_type", k->name);
  EXPECT_EINVAL(k->set(f, SIMDBLOOM_KEY_BYTES), fn, "int64");
  EXPECT(names_both("int64", "bytes"));
  EXPECT_EINVAL(k->set(f, SIMDBLOOM_KEY_NONE), fn, "none");
  EXPECT_EINVAL(k->set(f, SIMDBLOOM_KEY_LEGACY), fn, "legacy");
  EXPECT_EINVAL(k->set(f, 99), fn, "key type 99");
  EXPECT_EINVAL(k->set(NULL, SIMDBLOOM_KEY_INT64), fn, "filter is NULL");
  sprintf(fn, "simdbloom_%s_get_key_type", k->name);
  EXPECT_EINVAL(k->get(f, NULL), fn, "out is NULL");
  EXPECT_EINVAL(k->get(NULL, &type), fn, "filter is NULL");
  EXPECT(k->get(f, &type) == SIMDBLOOM_OK && type == SIMDBLOOM_KEY_INT64);
  k->persistence->free_fn(f);

  /* 4-byte integers, declared: u64 inserts, u32 queries; 2^32 is refused by an insert (nothing
   * inserted, the 5 before it neither) and absent for a query. */
  f = k->make();
  EXPECT(k->set(f, SIMDBLOOM_KEY_INT32) == SIMDBLOOM_OK);
  EXPECT(k->get(f, &type) == SIMDBLOOM_OK && type == SIMDBLOOM_KEY_INT32);
  EXPECT(k->insert_u64(f, v64, M) == SIMDBLOOM_OK);
  memset(out, 0, M);
  EXPECT(k->has_keys(f, &u32, out) == SIMDBLOOM_OK && all_equal(out, M, 1));
  EXPECT(k->insert_u64(f, big, 2) == SIMDBLOOM_EINVAL);
  EXPECT(names_both("4294967296", "int32"));
  memset(out, 9, M);
  EXPECT(k->has_u64(f, big, 2, out) == SIMDBLOOM_OK && out[0] == 0 && out[1] == 0);
  EXPECT(reloaded_key_type(k, f, &copy) == SIMDBLOOM_KEY_INT32);
  memset(out, 0, M);
  EXPECT(copy != NULL && k->has_u64(copy, v64, M, out) == SIMDBLOOM_OK && all_equal(out, M, 1));
  k->persistence->free_fn(copy);
  EXPECT(k->insert_one(f, "ab", 2) == SIMDBLOOM_EINVAL);
  EXPECT(names_both("int32", "byte"));
  k->persistence->free_fn(f);

  /* Byte strings: the first byte-string insert decides; integers are refused, naming both. */
  f = k->make();
  EXPECT(k->insert_one(f, "ab", 2) == SIMDBLOOM_OK);
  EXPECT(k->get(f, &type) == SIMDBLOOM_OK && type == SIMDBLOOM_KEY_BYTES);
  EXPECT(k->has_one(f, "ab", 2, &one) == SIMDBLOOM_OK && one == 1);
  EXPECT(k->insert_u64(f, v64, M) == SIMDBLOOM_EINVAL);
  EXPECT(names_both("uint64", "bytes"));
  memset(out, 9, M);
  EXPECT(k->has_keys(f, &u32, out) == SIMDBLOOM_EINVAL && all_equal(out, M, 9));
  EXPECT(names_both("uint32", "bytes"));
  EXPECT(reloaded_key_type(k, f, &copy) == SIMDBLOOM_KEY_BYTES);
  k->persistence->free_fn(copy);
  k->persistence->free_fn(f);

  /* Declared before the first insert: a byte-string filter refuses integers from the start. */
  f = k->make();
  EXPECT(k->set(f, SIMDBLOOM_KEY_BYTES) == SIMDBLOOM_OK);
  EXPECT(k->has_u64(f, v64, M, out) == SIMDBLOOM_EINVAL);
  EXPECT(k->get(f, &type) == SIMDBLOOM_OK && type == SIMDBLOOM_KEY_BYTES);
  k->persistence->free_fn(f);
}

static void test_key_types(void) {
  const KindCalls kinds[] = {KIND_CALLS(counting), KIND_CALLS(scalable), KIND_CALLS(spatial),
                             KIND_CALLS(shbf_a), KIND_CALLS(shbf_x)};
  size_t i;
  simdbloom_counting *c1 = NULL, *c2 = NULL;
  simdbloom_scalable *s1 = NULL, *s2 = NULL;
  const uint64_t one = 1;
  for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); ++i) test_key_types_of(&kinds[i]);
  /* Merge needs equal key types: integers and byte strings do not merge. */
  c1 = (simdbloom_counting*)counting_kt_make();
  c2 = (simdbloom_counting*)counting_kt_make();
  EXPECT(simdbloom_counting_insert_u64(c1, &one, 1) == SIMDBLOOM_OK);
  EXPECT(simdbloom_counting_insert_one(c2, "a", 1, NULL) == SIMDBLOOM_OK);
  EXPECT(simdbloom_counting_compatible(c1, c2) == 0);
  EXPECT_ERROR(simdbloom_counting_merge(c1, c2), SIMDBLOOM_EINCOMPATIBLE,
               "simdbloom_counting_merge", "key type");
  s1 = (simdbloom_scalable*)scalable_kt_make();
  s2 = (simdbloom_scalable*)scalable_kt_make();
  EXPECT(simdbloom_scalable_insert_u64(s1, &one, 1) == SIMDBLOOM_OK);
  EXPECT(simdbloom_scalable_insert_one(s2, "a", 1, NULL) == SIMDBLOOM_OK);
  EXPECT(simdbloom_scalable_can_merge(s1, s2) == 0);
  EXPECT_ERROR(simdbloom_scalable_merge(s1, s2), SIMDBLOOM_EINCOMPATIBLE,
               "simdbloom_scalable_merge", "key type");
  simdbloom_counting_free(c1);
  simdbloom_counting_free(c2);
  simdbloom_scalable_free(s1);
  simdbloom_scalable_free(s2);
}

int main(void) {
  simdbloom_filter* plain = NULL;
  size_t other_size = 0;
  unsigned char* other = NULL;
  make_keys(&g_keys, 1);
  make_keys(&g_more, 2);
  /* A plain filter's bytes: EFORMAT for every other kind. */
  EXPECT(simdbloom_with_bits(4096, 6, SIMDBLOOM_BLOCK512, 0, &plain) == SIMDBLOOM_OK);
  other_size = simdbloom_serialized_size(plain);
  other = aligned_buffer(other_size);
  EXPECT(other != NULL && simdbloom_serialize(plain, other, other_size) == SIMDBLOOM_OK);
  simdbloom_free(plain);

  test_counting(SIMDBLOOM_COUNTING_BLOCKED, other, other_size);
  test_counting(SIMDBLOOM_COUNTING_CLASSIC, other, other_size);
  test_counting_errors();
  test_hostile(SIMDBLOOM_COUNTING_BLOCKED);
  test_hostile(SIMDBLOOM_COUNTING_CLASSIC);
  test_scalable(other, other_size);
  test_scalable_errors();
  test_spatial(other, other_size);
  test_spatial_errors();
  test_shbf_a(other, other_size);
  test_shbf_a_errors();
  test_shbf_x(other, other_size);
  test_shbf_x_errors();
  test_key_types();
  free(other);

  if (failures == 0) printf("C API kinds: all checks passed\n");
  return failures == 0 ? 0 : 1;
}
