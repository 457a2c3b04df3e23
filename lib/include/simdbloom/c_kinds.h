/* SPDX-License-Identifier: Apache-2.0 */
/* simdbloom C API, the kinds besides the plain filter: counting, scalable, spatial, ShBF_A and
 * ShBF_x. Included by <simdbloom/simdbloom.h> (include that) inside its extern "C" block: the
 * conventions, status codes, simdbloom_keys and key types it declares hold here too. */
#ifndef SIMDBLOOM_C_KINDS_H_
#define SIMDBLOOM_C_KINDS_H_

#ifndef SIMDBLOOM_SIMDBLOOM_H_
#error "include <simdbloom/simdbloom.h>, which includes this header inside its extern \"C\" block"
#endif

/* ==== The other kinds of filter ====
 * Counting (simdbloom::CountingFilter, counting.hpp), scalable (ScalableFilter, scalable.hpp),
 * spatial (SpatialFilter, spatial.hpp) and the shifting set filters ShBF_A and ShBF_x
 * (ShiftingAssociation, ShiftingMultiplicity, shifting.hpp), each behind its own opaque handle,
 * under the rules above: statuses, every argument checked before any work (EINVAL with a message
 * that starts with the C function's name), outputs unchanged on error, getters that return 0
 * (0.0) for a NULL handle and set simdbloom_last_error(). Calls of a kind are named
 * simdbloom_<kind>_<call>; their shared forms:
 *   _free: frees the handle (NULL is ignored).
 *   _one: one byte-string key of `length` bytes at `key` (any pointer type; NULL allowed when
 *     length is 0). EINVAL: key NULL with length > 0, key + length past the end of the address
 *     space. O(k + length).
 *   _u64: keys[0 .. n), as simdbloom_insert_u64. EINVAL: keys (or a required output) NULL with
 *     n > 0, keys or an output of n entries past the end of the address space.
 *   _keys: any simdbloom_keys, checked as for simdbloom_insert_keys; outputs hold keys->count
 *     entries; the uint64_t* result (if not NULL) receives the C++ call's return value.
 *   _get_key_type, _set_key_type: as simdbloom_get_key_type and simdbloom_set_key_type ("Key
 *     types"): an integer key (_u64, U64/U32 arrays) is one key by value, a byte string (_one,
 *     byte shapes) another kind of key; a call of the kind the filter does not hold is EINVAL.
 *   Persistence: _serialized_size, _serialize, _save, _load and _load_bytes with the rules and
 *     errors of simdbloom_serialized_size ... simdbloom_load_bytes (save atomic, EIO naming the
 *     path, EFORMAT for bytes that are not a complete, valid filter of the kind - a file of
 *     another kind included), in the kind's own file format (lib/FORMAT.md). Costs: those of the
 *     C++ save, save_file, load, load_file (each one allocation and a checksum pass).
 * Bulk calls apply keys in order and equal the one-key calls applied one by one. Thread-safety
 * as the C++ classes: calls on a const handle may run concurrently on one filter; the others
 * need exclusive access. */

/* ---- Counting filters (CountingFilter): 4-bit counters, keys can be removed ---- */
typedef struct simdbloom_counting simdbloom_counting;
#define SIMDBLOOM_COUNTING_BLOCKED 1 /* 128 counters per 64-byte block; to_filter: register64 */
#define SIMDBLOOM_COUNTING_CLASSIC 2 /* k counters anywhere; to_filter: classic */

/* CountingFilter::create(expected_items, fpp, layout, seed) into *out. EINVAL: layout outside
 * 1..2, out NULL, expected_items 0, fpp outside [1e-9, 1) or NaN, too many blocks. ENOMEM. Cost:
 * sizing (about 1 ms), one zeroed allocation of counters / 2 bytes. */
simdbloom_status simdbloom_counting_create(uint64_t expected_items, double fpp, int layout,
                                           uint64_t seed, simdbloom_counting** out);
/* CountingFilter::with_counters(counters, k, layout, seed): at least `counters` counters (whole
 * blocks: 128 blocked, 512 classic) and k probes (1..16 blocked, 1..32 classic). EINVAL: layout,
 * out NULL, counters 0, k out of range, too many blocks. ENOMEM. */
simdbloom_status simdbloom_counting_with_counters(uint64_t counters, uint32_t k, int layout,
                                                  uint64_t seed, simdbloom_counting** out);
void simdbloom_counting_free(simdbloom_counting* filter);
/* What the filter holds ("Key types"), as simdbloom_get_key_type / _set_key_type. */
simdbloom_status simdbloom_counting_get_key_type(const simdbloom_counting* filter,
                                                 simdbloom_key_type* out);
simdbloom_status simdbloom_counting_set_key_type(simdbloom_counting* filter, int type);

/* One key (CountingFilter::insert / remove / contains / count). *fresh (if not NULL) = 1 if one
 * of the key's counters was 0 (surely new), else 0. *removed (if not NULL) = 1 if the key was
 * removed, 2 if removed but every counter of it was saturated at 15 (none changed: not undone
 * exactly), 0 if one of its counters was 0: nothing changed, and the status is still OK. Remove
 * only keys you inserted: a key found absent is evidence that the keys hold some never inserted,
 * whose false positives delete other keys (counting.hpp, "Removing"); size never goes below 0.
 * contains: *out = 1 if the key may be
 * present; count: *out = its smallest counter, 0..15 (15: 15 or more). EINVAL also: out NULL.
 * EREADONLY: insert or remove on a view. O(k + length), no allocation. */
simdbloom_status simdbloom_counting_insert_one(simdbloom_counting* filter, const void* key,
                                               size_t length, uint8_t* fresh);
simdbloom_status simdbloom_counting_remove_one(simdbloom_counting* filter, const void* key,
                                               size_t length, uint8_t* removed);
simdbloom_status simdbloom_counting_contains_one(const simdbloom_counting* filter, const void* key,
                                                 size_t length, uint8_t* out);
simdbloom_status simdbloom_counting_count_one(const simdbloom_counting* filter, const void* key,
                                              size_t length, uint32_t* out);
/* Bulk u64 keys (CountingFilter's bulk calls over Keys): removed[i] (if not NULL) = 1 if key i
 * was removed, 2 if removed saturated (as *removed above), 0 if it was surely absent; out[i] = 1 if
 * key i may be present (contains), its smallest counter 0..15 (count). EREADONLY: insert or remove
 * on a view, even with n = 0. Cost: O(n k) on the active SIMD target, one cache line per key
 * (blocked) or k (classic); no allocation. */
simdbloom_status simdbloom_counting_insert_u64(simdbloom_counting* filter, const uint64_t* keys,
                                               size_t n);
simdbloom_status simdbloom_counting_remove_u64(simdbloom_counting* filter, const uint64_t* keys,
                                               size_t n, uint8_t* removed);
simdbloom_status simdbloom_counting_contains_u64(const simdbloom_counting* filter,
                                                 const uint64_t* keys, size_t n, uint8_t* out);
simdbloom_status simdbloom_counting_count_u64(const simdbloom_counting* filter,
                                              const uint64_t* keys, size_t n, uint8_t* out);
/* The same over simdbloom_keys. insert: fresh[i] (if not NULL) as *fresh above, *changed (if not
 * NULL) = how many keys found a counter at 0. remove: removed[i] (if not NULL), *count (if not
 * NULL) = how many were removed (the others were surely absent). contains: *hits (if not NULL) =
 * the number of 1s in out. count: *sum (if not NULL) = the sum of out. Costs and errors as the u64
 * forms. */
simdbloom_status simdbloom_counting_insert_keys(simdbloom_counting* filter,
                                                const simdbloom_keys* keys, uint8_t* fresh,
                                                uint64_t* changed);
simdbloom_status simdbloom_counting_remove_keys(simdbloom_counting* filter,
                                                const simdbloom_keys* keys, uint8_t* removed,
                                                uint64_t* count);
simdbloom_status simdbloom_counting_contains_keys(const simdbloom_counting* filter,
                                                  const simdbloom_keys* keys, uint8_t* out,
                                                  uint64_t* hits);
simdbloom_status simdbloom_counting_count_keys(const simdbloom_counting* filter,
                                               const simdbloom_keys* keys, uint8_t* out,
                                               uint64_t* sum);
/* CountingFilter::to_filter into *out: the plain filter of the keys present (counter > 0 = bit
 * set; layout register64 for blocked, classic for classic; same k and seed), a quarter of the
 * memory. EINVAL: filter or out NULL. ENOMEM. Cost: one pass over the counters, one allocation. */
simdbloom_status simdbloom_counting_to_filter(const simdbloom_counting* filter,
                                              simdbloom_filter** out);
/* CountingFilter::merge: adds other's counters (each sum capped at 15) and size. EINVAL: filter
 * or other NULL. EINCOMPATIBLE: they differ in layout, counters, k, seed or key type (named).
 * EREADONLY: filter is a view. O(size_bytes), no allocation. compatible
 * (CountingFilter::compatible) returns 1 or 0; 0 (and sets simdbloom_last_error()) if a or b is
 * NULL. */
simdbloom_status simdbloom_counting_merge(simdbloom_counting* filter,
                                          const simdbloom_counting* other);
int simdbloom_counting_compatible(const simdbloom_counting* a, const simdbloom_counting* b);
/* CountingFilter::clear: every counter and the size to 0. EINVAL: filter NULL. EREADONLY: a
 * view. O(size_bytes). */
simdbloom_status simdbloom_counting_clear(simdbloom_counting* filter);
/* Parameters (O(1)): layout SIMDBLOOM_COUNTING_*, blocks (of 128 or 512 counters), counters, k,
 * seed; size = inserts minus successful removes; size_bytes = counters / 2; is_view 1 or 0.
 * saturated_count: counters at 15, O(size_bytes). predicted_fpp: the rate with n distinct keys
 * present (a few hundred exp() at most). None allocates. */
int simdbloom_counting_layout(const simdbloom_counting* filter);
uint64_t simdbloom_counting_num_blocks(const simdbloom_counting* filter);
uint64_t simdbloom_counting_counter_count(const simdbloom_counting* filter);
uint32_t simdbloom_counting_num_hashes(const simdbloom_counting* filter);
uint64_t simdbloom_counting_seed(const simdbloom_counting* filter);
uint64_t simdbloom_counting_size(const simdbloom_counting* filter);
size_t simdbloom_counting_size_bytes(const simdbloom_counting* filter);
uint64_t simdbloom_counting_saturated_count(const simdbloom_counting* filter);
int simdbloom_counting_is_view(const simdbloom_counting* filter);
double simdbloom_counting_predicted_fpp(const simdbloom_counting* filter, uint64_t n);
/* Persistence (FORMAT.md, "Counting filters"), as the shared forms above. */
size_t simdbloom_counting_serialized_size(const simdbloom_counting* filter);
simdbloom_status simdbloom_counting_serialize(const simdbloom_counting* filter, void* buf,
                                              size_t capacity);
simdbloom_status simdbloom_counting_save(const simdbloom_counting* filter, const char* path);
simdbloom_status simdbloom_counting_load(const char* path, simdbloom_counting** out);
simdbloom_status simdbloom_counting_load_bytes(const void* data, size_t size,
                                               simdbloom_counting** out);
/* CountingFilter::view, as simdbloom_view: zero-copy, read-only (insert, remove, clear and merge
 * are EREADONLY); data 64-byte aligned, outliving the filter. */
simdbloom_status simdbloom_counting_view(const void* data, size_t size, int verify_checksum,
                                         simdbloom_counting** out);
/* CountingFilter::map_file, as simdbloom_map_file: read-only, unmapped by _free. */
simdbloom_status simdbloom_counting_map_file(const char* path, int verify_checksum,
                                             simdbloom_counting** out);

/* ---- Scalable filters (ScalableFilter): a chain of plain stages that grows with its set ---- */
typedef struct simdbloom_scalable simdbloom_scalable;
/* ScalableOptions' defaults: a stage holds 2x the keys of the previous one, at 0.85x its rate. */
#define SIMDBLOOM_SCALABLE_GROWTH 2.0
#define SIMDBLOOM_SCALABLE_TIGHTENING 0.85

/* ScalableFilter::create(initial_capacity, fpp, {growth, tightening, layout, seed}) into *out: one
 * empty stage of initial_capacity keys. EINVAL: layout outside 1..5, out NULL, initial_capacity
 * 0, fpp outside (0, 1), growth outside [1, 16], tightening outside (0, 1), fpp * (1 -
 * tightening) below 1e-9. ENOMEM. Cost: as simdbloom_create. */
simdbloom_status simdbloom_scalable_create(uint64_t initial_capacity, double fpp, int layout,
                                           uint64_t seed, double growth, double tightening,
                                           simdbloom_scalable** out);
void simdbloom_scalable_free(simdbloom_scalable* filter);
/* What the filter holds ("Key types"), as simdbloom_get_key_type / _set_key_type. */
simdbloom_status simdbloom_scalable_get_key_type(const simdbloom_scalable* filter,
                                                 simdbloom_key_type* out);
simdbloom_status simdbloom_scalable_set_key_type(simdbloom_scalable* filter, int type);
/* One key, u64 and simdbloom_keys: ScalableFilter::insert into the newest stage (a new stage is
 * added when it is full: ENOMEM if it cannot be allocated, ECAPACITY if the chain can add no
 * stage (64 stages, or its rate would fall below 1e-9); keys before that point inserted) and
 * contains (any stage, newest first). *fresh / fresh[i] (if not NULL) = 1 if the key set a bit
 * that was clear in its stage; *changed (if not NULL) = how many did; *hits (if not NULL) = the
 * number of 1s in out. Cost: as Filter's calls per stage queried; a new stage costs a
 * simdbloom_create of about growth times the previous one. */
simdbloom_status simdbloom_scalable_insert_one(simdbloom_scalable* filter, const void* key,
                                               size_t length, uint8_t* fresh);
simdbloom_status simdbloom_scalable_contains_one(const simdbloom_scalable* filter, const void* key,
                                                 size_t length, uint8_t* out);
simdbloom_status simdbloom_scalable_insert_u64(simdbloom_scalable* filter, const uint64_t* keys,
                                               size_t n);
simdbloom_status simdbloom_scalable_contains_u64(const simdbloom_scalable* filter,
                                                 const uint64_t* keys, size_t n, uint8_t* out);
simdbloom_status simdbloom_scalable_insert_keys(simdbloom_scalable* filter,
                                                const simdbloom_keys* keys, uint8_t* fresh,
                                                uint64_t* changed);
simdbloom_status simdbloom_scalable_contains_keys(const simdbloom_scalable* filter,
                                                  const simdbloom_keys* keys, uint8_t* out,
                                                  uint64_t* hits);
/* ScalableFilter::merge, stage by stage: only for chains of the same parameters whose stage
 * counts add up to at most each stage's capacity (scalable.hpp). EINVAL: filter or other NULL.
 * EINCOMPATIBLE: otherwise (the parameter or stage named). O(size_bytes). can_merge returns 1 or
 * 0; 0 (and sets simdbloom_last_error()) if a or b is NULL. */
simdbloom_status simdbloom_scalable_merge(simdbloom_scalable* filter,
                                          const simdbloom_scalable* other);
int simdbloom_scalable_can_merge(const simdbloom_scalable* a, const simdbloom_scalable* b);
/* ScalableFilter::clear: the chain as create made it. EINVAL: filter NULL. O(first stage). */
simdbloom_status simdbloom_scalable_clear(simdbloom_scalable* filter);
/* Stage i (0 = oldest): a copy of it as a plain filter into *out (ScalableFilter::stage; one
 * allocation and a copy of its bits); and its count (keys that set a new bit there), capacity
 * and design rate, each if not NULL (O(i), no allocation). EINVAL: filter (or out) NULL, i >=
 * simdbloom_scalable_stages. */
simdbloom_status simdbloom_scalable_stage(const simdbloom_scalable* filter, size_t i,
                                          simdbloom_filter** out);
simdbloom_status simdbloom_scalable_stage_info(const simdbloom_scalable* filter, size_t i,
                                               uint64_t* count, uint64_t* capacity, double* fpp);
/* Parameters as given to create, and the chain: stages, count (distinct keys counted at insert),
 * size_bytes (the stages' bits), O(stages); approximate_count (from the bits), expected_fpp
 * (of the whole chain), bits_per_key, O(size_bytes). */
int simdbloom_scalable_layout(const simdbloom_scalable* filter);
uint64_t simdbloom_scalable_seed(const simdbloom_scalable* filter);
uint64_t simdbloom_scalable_initial_capacity(const simdbloom_scalable* filter);
double simdbloom_scalable_fpp(const simdbloom_scalable* filter);
double simdbloom_scalable_growth(const simdbloom_scalable* filter);
double simdbloom_scalable_tightening(const simdbloom_scalable* filter);
size_t simdbloom_scalable_stages(const simdbloom_scalable* filter);
uint64_t simdbloom_scalable_count(const simdbloom_scalable* filter);
size_t simdbloom_scalable_size_bytes(const simdbloom_scalable* filter);
double simdbloom_scalable_approximate_count(const simdbloom_scalable* filter);
double simdbloom_scalable_expected_fpp(const simdbloom_scalable* filter);
double simdbloom_scalable_bits_per_key(const simdbloom_scalable* filter);
/* Persistence (FORMAT.md, "Scalable chains"), as the shared forms above. */
size_t simdbloom_scalable_serialized_size(const simdbloom_scalable* filter);
simdbloom_status simdbloom_scalable_serialize(const simdbloom_scalable* filter, void* buf,
                                              size_t capacity);
simdbloom_status simdbloom_scalable_save(const simdbloom_scalable* filter, const char* path);
simdbloom_status simdbloom_scalable_load(const char* path, simdbloom_scalable** out);
simdbloom_status simdbloom_scalable_load_bytes(const void* data, size_t size,
                                               simdbloom_scalable** out);

/* ---- Spatial filters (SpatialFilter): which of up to 65535 disjoint areas holds a key ---- */
typedef struct simdbloom_spatial simdbloom_spatial;

/* SpatialFilter::create(expected_items, fpp, num_areas, seed) into *out. EINVAL: out NULL,
 * expected_items 0, fpp outside [1e-9, 1) or NaN, num_areas outside 1..65535, too many blocks.
 * ENOMEM. Cost: sizing, one zeroed allocation. with_blocks: num_blocks blocks of 64 cells, k
 * (1..8) cells per key. */
simdbloom_status simdbloom_spatial_create(uint64_t expected_items, double fpp, uint32_t num_areas,
                                          uint64_t seed, simdbloom_spatial** out);
simdbloom_status simdbloom_spatial_with_blocks(uint64_t num_blocks, uint32_t k, uint32_t num_areas,
                                               uint64_t seed, simdbloom_spatial** out);
void simdbloom_spatial_free(simdbloom_spatial* filter);
/* What the filter holds ("Key types"), as simdbloom_get_key_type / _set_key_type. */
simdbloom_status simdbloom_spatial_get_key_type(const simdbloom_spatial* filter,
                                                simdbloom_key_type* out);
simdbloom_status simdbloom_spatial_set_key_type(simdbloom_spatial* filter, int type);
/* SpatialFilter::insert(label, keys): writes label (1..num_areas) into each key's k cells. Labels
 * come in ascending order: a label below simdbloom_spatial_current_label is EINVAL (nothing
 * changes). *raised (if not NULL) = the number of cells raised. EINVAL also: label outside
 * 1..num_areas. Cost: O(n k), about one cache miss per key; no allocation. */
simdbloom_status simdbloom_spatial_insert_one(simdbloom_spatial* filter, uint32_t label,
                                              const void* key, size_t length, uint64_t* raised);
simdbloom_status simdbloom_spatial_insert_u64(simdbloom_spatial* filter, uint32_t label,
                                              const uint64_t* keys, size_t n, uint64_t* raised);
simdbloom_status simdbloom_spatial_insert_keys(simdbloom_spatial* filter, uint32_t label,
                                               const simdbloom_keys* keys, uint64_t* raised);
/* SpatialFilter::classify: the area of each key, 0 for none (a key of area a gets a, or with
 * probability apriori_isep a higher label). *labelled (if not NULL) = the number of non-zero
 * labels. Cost: O(n k); no allocation. */
simdbloom_status simdbloom_spatial_classify_one(const simdbloom_spatial* filter, const void* key,
                                                size_t length, uint16_t* label);
simdbloom_status simdbloom_spatial_classify_u64(const simdbloom_spatial* filter,
                                                const uint64_t* keys, size_t n, uint16_t* labels);
simdbloom_status simdbloom_spatial_classify_keys(const simdbloom_spatial* filter,
                                                 const simdbloom_keys* keys, uint16_t* labels,
                                                 uint64_t* labelled);
/* SpatialFilter::stats (SpatialStats, SpatialAreaStats: spatial.hpp says what each field is). */
typedef struct simdbloom_spatial_area {
  uint16_t label;
  uint64_t members, cells_written;       /* keys inserted with the label; cells it raised */
  double expected_emersion, apriori_fpp; /* a priori (the paper's formulas, blocked) */
  double apriori_isep, expected_cells;
  uint64_t cells;       /* measured (measure != 0), else 0: cells holding the label */
  double emersion, fpp; /* measured, else 0 */
} simdbloom_spatial_area;
typedef struct simdbloom_spatial_totals {
  uint64_t num_cells, members;
  uint32_t cell_bytes, k;
  double apriori_fpp;
  int measured;         /* 1 if the measured fields were computed */
  double sparsity, fpp; /* measured, else 0 */
} simdbloom_spatial_totals;
/* SpatialFilter::stats(measure != 0) into *totals and, if areas is not NULL, areas[0 ..
 * num_areas) (areas[i] is label i + 1; capacity is the entries areas holds). EINVAL: filter or
 * totals NULL, areas non-NULL with capacity below num_areas. Cost: O(num_areas) exp() and one
 * allocation; measure: one pass over the cells too. */
simdbloom_status simdbloom_spatial_stats(const simdbloom_spatial* filter, int measure,
                                         simdbloom_spatial_totals* totals,
                                         simdbloom_spatial_area* areas, size_t capacity);
/* Parameters (O(1)). members: keys inserted with `label` (0 for labels outside 1..num_areas).
 * predicted_fpp: the probability that a key in no area gets a label after n keys (a few hundred
 * exp() at most). None allocates. */
uint32_t simdbloom_spatial_num_areas(const simdbloom_spatial* filter);
uint32_t simdbloom_spatial_num_hashes(const simdbloom_spatial* filter);
uint64_t simdbloom_spatial_num_blocks(const simdbloom_spatial* filter);
uint64_t simdbloom_spatial_num_cells(const simdbloom_spatial* filter);
uint32_t simdbloom_spatial_cell_bytes(const simdbloom_spatial* filter);
uint64_t simdbloom_spatial_seed(const simdbloom_spatial* filter);
uint32_t simdbloom_spatial_current_label(const simdbloom_spatial* filter);
size_t simdbloom_spatial_size_bytes(const simdbloom_spatial* filter);
uint64_t simdbloom_spatial_members(const simdbloom_spatial* filter, uint32_t label);
double simdbloom_spatial_predicted_fpp(const simdbloom_spatial* filter, uint64_t n);
/* Persistence (FORMAT.md, "Spatial filter: file format"), as the shared forms above. */
size_t simdbloom_spatial_serialized_size(const simdbloom_spatial* filter);
simdbloom_status simdbloom_spatial_serialize(const simdbloom_spatial* filter, void* buf,
                                             size_t capacity);
simdbloom_status simdbloom_spatial_save(const simdbloom_spatial* filter, const char* path);
simdbloom_status simdbloom_spatial_load(const char* path, simdbloom_spatial** out);
simdbloom_status simdbloom_spatial_load_bytes(const void* data, size_t size,
                                              simdbloom_spatial** out);

/* ---- Shifting set filters: ShBF_A (ShiftingAssociation), which of two sets holds a key ---- */
typedef struct simdbloom_shbf_a simdbloom_shbf_a;
/* Memberships and query answers (any combination of bits; 0 = in neither set). */
#define SIMDBLOOM_SHBF_ONLY_FIRST 1  /* S1 \ S2 */
#define SIMDBLOOM_SHBF_BOTH 2        /* S1 and S2 */
#define SIMDBLOOM_SHBF_ONLY_SECOND 4 /* S2 \ S1 */

/* ShiftingAssociation::create(expected_items, fpp, seed) / with_bits(bits, seed) into *out.
 * EINVAL: out NULL, expected_items 0, fpp outside [1e-9, 1) or NaN, bits 0, more than 2^32 - 1
 * blocks. ENOMEM. Cost: one zeroed allocation. build(s1, s2, fpp, seed): sized for |S1 u S2| and
 * filled with both sets (EINVAL also: s1 or s2 NULL with a count; O(n log n), allocates sorted
 * copies). */
simdbloom_status simdbloom_shbf_a_create(uint64_t expected_items, double fpp, uint64_t seed,
                                         simdbloom_shbf_a** out);
simdbloom_status simdbloom_shbf_a_with_bits(uint64_t bits, uint64_t seed, simdbloom_shbf_a** out);
simdbloom_status simdbloom_shbf_a_build(const uint64_t* s1, size_t n1, const uint64_t* s2,
                                        size_t n2, double fpp, uint64_t seed,
                                        simdbloom_shbf_a** out);
void simdbloom_shbf_a_free(simdbloom_shbf_a* filter);
/* What the filter holds ("Key types"), as simdbloom_get_key_type / _set_key_type. */
simdbloom_status simdbloom_shbf_a_get_key_type(const simdbloom_shbf_a* filter,
                                               simdbloom_key_type* out);
simdbloom_status simdbloom_shbf_a_set_key_type(simdbloom_shbf_a* filter, int type);
/* ShiftingAssociation::insert(keys, membership), membership one of SIMDBLOOM_SHBF_ONLY_FIRST,
 * _BOTH, _ONLY_SECOND (else EINVAL); a key is inserted with one membership only. query: *out /
 * out[i] = the candidate bits of the key (exactly one for a clear answer). O(1) a key (one cache
 * line), no allocation. */
simdbloom_status simdbloom_shbf_a_insert_one(simdbloom_shbf_a* filter, const void* key,
                                             size_t length, int membership);
simdbloom_status simdbloom_shbf_a_query_one(const simdbloom_shbf_a* filter, const void* key,
                                            size_t length, uint8_t* out);
simdbloom_status simdbloom_shbf_a_insert_u64(simdbloom_shbf_a* filter, const uint64_t* keys,
                                             size_t n, int membership);
simdbloom_status simdbloom_shbf_a_query_u64(const simdbloom_shbf_a* filter, const uint64_t* keys,
                                            size_t n, uint8_t* out);
simdbloom_status simdbloom_shbf_a_insert_keys(simdbloom_shbf_a* filter, const simdbloom_keys* keys,
                                              int membership);
simdbloom_status simdbloom_shbf_a_query_keys(const simdbloom_shbf_a* filter,
                                             const simdbloom_keys* keys, uint8_t* out);
/* The model at the keys inserted so far (O(load range), no allocation): the probability that a
 * key of S1 u S2 gets a clear answer (blocked form; paper_: the paper's (1 - f)^2), and that a
 * key in neither set gets a non-zero answer. Parameters: items (inserts so far), num_blocks (of
 * 512 bits), bit_count, seed. */
double simdbloom_shbf_a_clear_answer_probability(const simdbloom_shbf_a* filter);
double simdbloom_shbf_a_paper_clear_answer_probability(const simdbloom_shbf_a* filter);
double simdbloom_shbf_a_false_positive_probability(const simdbloom_shbf_a* filter);
uint64_t simdbloom_shbf_a_items(const simdbloom_shbf_a* filter);
uint64_t simdbloom_shbf_a_num_blocks(const simdbloom_shbf_a* filter);
uint64_t simdbloom_shbf_a_bit_count(const simdbloom_shbf_a* filter);
uint64_t simdbloom_shbf_a_seed(const simdbloom_shbf_a* filter);
/* Persistence (FORMAT.md, "Shifting set filters"), as the shared forms above. */
size_t simdbloom_shbf_a_serialized_size(const simdbloom_shbf_a* filter);
simdbloom_status simdbloom_shbf_a_serialize(const simdbloom_shbf_a* filter, void* buf,
                                            size_t capacity);
simdbloom_status simdbloom_shbf_a_save(const simdbloom_shbf_a* filter, const char* path);
simdbloom_status simdbloom_shbf_a_load(const char* path, simdbloom_shbf_a** out);
simdbloom_status simdbloom_shbf_a_load_bytes(const void* data, size_t size, simdbloom_shbf_a** out);

/* ---- Shifting set filters: ShBF_x (ShiftingMultiplicity), a key's multiplicity 1..64 ---- */
typedef struct simdbloom_shbf_x simdbloom_shbf_x;

/* ShiftingMultiplicity::create(expected_items, fpp, max_count, seed) / with_bits(bits, max_count,
 * seed) into *out. EINVAL: as simdbloom_shbf_a_create, and max_count outside 1..64. ENOMEM.
 * build(keys, n, fpp, max_count, seed): from a multiset (each occurrence once in keys); EINVAL
 * also for a key occurring more than max_count times. */
simdbloom_status simdbloom_shbf_x_create(uint64_t expected_items, double fpp, uint32_t max_count,
                                         uint64_t seed, simdbloom_shbf_x** out);
simdbloom_status simdbloom_shbf_x_with_bits(uint64_t bits, uint32_t max_count, uint64_t seed,
                                            simdbloom_shbf_x** out);
simdbloom_status simdbloom_shbf_x_build(const uint64_t* keys, size_t n, double fpp,
                                        uint32_t max_count, uint64_t seed, simdbloom_shbf_x** out);
void simdbloom_shbf_x_free(simdbloom_shbf_x* filter);
/* What the filter holds ("Key types"), as simdbloom_get_key_type / _set_key_type. */
simdbloom_status simdbloom_shbf_x_get_key_type(const simdbloom_shbf_x* filter,
                                               simdbloom_key_type* out);
simdbloom_status simdbloom_shbf_x_set_key_type(simdbloom_shbf_x* filter, int type);
/* ShiftingMultiplicity::insert(keys, count), count 1..max_count (else EINVAL); a key is inserted
 * once, with its final count. count: *out / out[i] = the smallest candidate count (never above
 * the true count of a key of the multiset), 0 if none. O(1) a key, no allocation. */
simdbloom_status simdbloom_shbf_x_insert_one(simdbloom_shbf_x* filter, const void* key,
                                             size_t length, uint32_t count);
simdbloom_status simdbloom_shbf_x_count_one(const simdbloom_shbf_x* filter, const void* key,
                                            size_t length, uint32_t* out);
simdbloom_status simdbloom_shbf_x_insert_u64(simdbloom_shbf_x* filter, const uint64_t* keys,
                                             size_t n, uint32_t count);
simdbloom_status simdbloom_shbf_x_count_u64(const simdbloom_shbf_x* filter, const uint64_t* keys,
                                            size_t n, uint32_t* out);
simdbloom_status simdbloom_shbf_x_insert_keys(simdbloom_shbf_x* filter, const simdbloom_keys* keys,
                                              uint32_t count);
simdbloom_status simdbloom_shbf_x_count_keys(const simdbloom_shbf_x* filter,
                                             const simdbloom_keys* keys, uint32_t* out);
/* ShiftingMultiplicity::correct_probability(count): the probability that a key inserted with
 * `count` is reported as count, into *out. EINVAL: filter or out NULL, count outside
 * 1..max_count. false_positive_probability: that a key not in the multiset gets a non-zero
 * count. Both O(max_count^2 x load range), no allocation. Parameters (O(1)): max_count, items,
 * num_blocks, bit_count, seed. */
simdbloom_status simdbloom_shbf_x_correct_probability(const simdbloom_shbf_x* filter,
                                                      uint32_t count, double* out);
double simdbloom_shbf_x_false_positive_probability(const simdbloom_shbf_x* filter);
uint32_t simdbloom_shbf_x_max_count(const simdbloom_shbf_x* filter);
uint64_t simdbloom_shbf_x_items(const simdbloom_shbf_x* filter);
uint64_t simdbloom_shbf_x_num_blocks(const simdbloom_shbf_x* filter);
uint64_t simdbloom_shbf_x_bit_count(const simdbloom_shbf_x* filter);
uint64_t simdbloom_shbf_x_seed(const simdbloom_shbf_x* filter);
/* Persistence (FORMAT.md, "Shifting set filters"), as the shared forms above. */
size_t simdbloom_shbf_x_serialized_size(const simdbloom_shbf_x* filter);
simdbloom_status simdbloom_shbf_x_serialize(const simdbloom_shbf_x* filter, void* buf,
                                            size_t capacity);
simdbloom_status simdbloom_shbf_x_save(const simdbloom_shbf_x* filter, const char* path);
simdbloom_status simdbloom_shbf_x_load(const char* path, simdbloom_shbf_x** out);
simdbloom_status simdbloom_shbf_x_load_bytes(const void* data, size_t size, simdbloom_shbf_x** out);

#endif /* SIMDBLOOM_C_KINDS_H_ */
