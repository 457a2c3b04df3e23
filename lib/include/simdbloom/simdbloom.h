/* SPDX-License-Identifier: Apache-2.0 */
/* simdbloom C API: an opaque filter handle over the C++ library. C99; every symbol is prefixed
 * simdbloom_ (types) or SIMDBLOOM_ (constants). Functions return a simdbloom_status: 0 on success,
 * a positive error code otherwise (never an exception, never an abort on bad input). On error,
 * output parameters are left unchanged and simdbloom_last_error() describes the failure in a
 * message that starts with the name of the function called, e.g.
 *   "simdbloom_create: layout 257 is not a layout (1..5)".
 *
 * Every argument is checked before any work: SIMDBLOOM_EINVAL for an int layout or key kind that
 * names none, a NULL filter, a NULL `out` parameter, a NULL array with a non-zero count, and a
 * count whose array would exceed the address space. Optional outputs (marked "if not NULL") may be
 * NULL. The getters, which return a value rather than a status, return what each comment says for
 * a NULL filter and set simdbloom_last_error().
 *
 * Pointers and sizes: what the library can check, it checks before any key is read or anything is
 * written (the filter and every output are then unchanged): that a pointer plus its size (a key's
 * length, width x count, an Arrow offset, a buffer's capacity) neither wraps around the end of the
 * address space nor exceeds PTRDIFF_MAX bytes (the largest object C allows), and that Arrow
 * offsets stay within the data size when the caller declares it (simdbloom_keys, width). All of
 * these are SIMDBLOOM_EINVAL. What it cannot check is that a pointer really points at that many
 * readable (or writable) bytes: a length longer than the caller's buffer, or an Arrow offset past
 * undeclared data, is read as any C function would read it (undefined behaviour, e.g. SIGSEGV).
 *
 * Thread-safety: as the C++ API. Functions that take a `const simdbloom_filter*` may run
 * concurrently on one filter; the others need exclusive access. simdbloom_last_error() is per
 * thread. Costs are those of the C++ calls named in each comment (simdbloom.hpp). */
#ifndef SIMDBLOOM_SIMDBLOOM_H_
#define SIMDBLOOM_SIMDBLOOM_H_

#include <stddef.h>
#include <stdint.h>

/* Exported from libsimdbloom.so (the library is compiled with hidden visibility). */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct simdbloom_filter simdbloom_filter;
typedef int simdbloom_status;

/* Status codes (equal to simdbloom::ErrorCode, plus OK and INTERNAL). */
#define SIMDBLOOM_OK 0
#define SIMDBLOOM_EINVAL 1          /* an argument is out of range or a null pointer */
#define SIMDBLOOM_EUNKNOWN_TARGET 2 /* SIMDBLOOM_TARGET names no usable SIMD target */
#define SIMDBLOOM_ENOMEM 3          /* out of memory */
#define SIMDBLOOM_EFORMAT 4         /* bytes are not a valid filter (truncated, corrupt, hostile) */
#define SIMDBLOOM_EIO 5             /* a file could not be opened, read or written */
#define SIMDBLOOM_EINCOMPATIBLE 6   /* filters differ in layout, size, k, seed or key type */
#define SIMDBLOOM_EREADONLY 7       /* mutation of a view */
#define SIMDBLOOM_ECAPACITY 8       /* a scalable chain can add no stage (64, or its rate floor) */
#define SIMDBLOOM_EINTERNAL 99      /* an unexpected failure inside the library */

/* Layouts (simdbloom::Layout). */
#define SIMDBLOOM_BLOCK512 1
#define SIMDBLOOM_REGISTER64 2
#define SIMDBLOOM_SPLIT_BLOCK256 3
#define SIMDBLOOM_CLASSIC 4
#define SIMDBLOOM_SHIFTING 5
#define SIMDBLOOM_GUAVA 6   /* Guava's BloomFilter, MURMUR128_MITZ_64 (lib/FORMAT.md) */
#define SIMDBLOOM_GUAVA32 7 /* Guava's older MURMUR128_MITZ_32 */

/* "MAJOR.MINOR.PATCH". */
const char* simdbloom_version(void);
/* A static description of a status code; "unknown status" for others. */
const char* simdbloom_strerror(simdbloom_status status);
/* The message of the last failed call on this thread ("" if none); valid until the next call. */
const char* simdbloom_last_error(void);

/* Filter::create(expected_items, fpp, layout, seed) into *out. EINVAL: layout outside 1..5
 * (SIMDBLOOM_BLOCK512 .. SIMDBLOOM_SHIFTING), out NULL, expected_items 0, fpp outside [1e-9, 1) or
 * NaN, a size beyond 2^32 - 1 blocks. ENOMEM. */
simdbloom_status simdbloom_create(uint64_t expected_items, double fpp, int layout, uint64_t seed,
                                  simdbloom_filter** out);
/* Filter::with_bits(bits, k, layout, seed) into *out. EINVAL: layout outside 1..5, out NULL,
 * bits 0 or beyond 2^32 - 1 blocks, k outside the layout's range (1..16 block512, register64 and
 * shifting, 8 split_block256, 1..32 classic). ENOMEM. */
simdbloom_status simdbloom_with_bits(uint64_t bits, uint32_t k, int layout, uint64_t seed,
                                     simdbloom_filter** out);
/* Frees a filter (NULL is ignored). A view does not free the bytes it views. */
void simdbloom_free(simdbloom_filter* filter);

/* Bulk u64 keys (integers: "Key types" below); out[i] = 1 if keys[i] may be present, else 0.
 * EINVAL: filter NULL, keys (or out) NULL with n > 0, keys (or out) plus n entries past the end
 * of the address space, a filter of byte strings, an insert of a key of 2^32 or more into a
 * filter of 4-byte integers. EREADONLY: insert into a view. */
simdbloom_status simdbloom_insert_u64(simdbloom_filter* filter, const uint64_t* keys, size_t n);
simdbloom_status simdbloom_contains_u64(const simdbloom_filter* filter, const uint64_t* keys,
                                        size_t n, uint8_t* out);
/* Bulk byte-string keys: `keys` is an array of n pointers to bytes, passed without a cast
 * whatever their type: char*[n], const char*[n], uint8_t*[n], const void*[n], a char** ... (all
 * share void*'s representation); key i is lengths[i] bytes at keys[i] (NULL allowed when the
 * length is 0). Every key is checked before any is inserted or tested. EINVAL: filter NULL, keys,
 * lengths (or out) NULL with n > 0, keys[i] NULL with lengths[i] > 0, keys[i] + lengths[i] past
 * the end of the address space or lengths[i] above PTRDIFF_MAX (e.g. lengths[i] = SIZE_MAX, a
 * "-1" length), a filter of integers ("Key types" below). That keys[i] holds lengths[i] readable
 * bytes cannot be checked. EREADONLY: insert into a view. Processed in tiles of 256 keys; no
 * allocation (a call of more than 4096 keys: the once-per-thread buffer of
 * simdbloom_insert_keys). */
simdbloom_status simdbloom_insert_bytes(simdbloom_filter* filter, const void* keys,
                                        const size_t* lengths, size_t n);
simdbloom_status simdbloom_contains_bytes(const simdbloom_filter* filter, const void* keys,
                                          const size_t* lengths, size_t n, uint8_t* out);

/* Keys of every shape (simdbloom::Keys), for the simdbloom_*_keys calls. Fill one with a
 * designated initializer (fields left out are 0/NULL, as those a kind does not use must be), e.g.
 * 13-byte 5-tuples in 16-byte structs, or an Arrow utf8 column:
 *   simdbloom_keys k = {.kind = SIMDBLOOM_KEYS_FIXED_WIDTH, .keys = records, .width = 13,
 *                       .stride = 16, .count = n};
 *   simdbloom_keys s = {.kind = SIMDBLOOM_KEYS_BINARY32, .keys = offsets, .data = chars,
 *                       .width = chars_size, .count = n};
 * Integer shapes (U64, U32) are keys by value, byte shapes (BINARY32/64, FIXED_WIDTH) by their
 * bytes ("Key types" below): 7 inserted as a U32 array is found by a U64 array and by
 * simdbloom_contains_u64; a byte string inserted as BINARY32 is found by simdbloom_contains_bytes.
 *
 * Checked by every simdbloom_*_keys call, before any work (EINVAL): keys NULL; kind outside 1..6;
 * stride non-zero for a kind other than FIXED_WIDTH, width non-zero for a kind other than
 * FIXED_WIDTH and BINARY32/64; data non-NULL for a kind other than BINARY32/64; keys->keys NULL
 * with count > 0 (FIXED_WIDTH: and width > 0); an array (the keys, the count + 1 offsets, the
 * records' (count - 1) * stride + width bytes, the data up to the last offset) that overflows,
 * wraps the address space or exceeds PTRDIFF_MAX bytes (e.g. width = SIZE_MAX); Arrow offsets
 * that are negative or decrease, or, with a declared data size (width), pass it; Arrow data NULL
 * when the offsets span bytes. Not checked: an output (out, fresh, bitmap, selection) must not
 * overlap the keys, offsets or data (results may be written while later keys are still to be
 * read).
 *
 * Arrow data size: for BINARY32/64, `width` declares the size of data in bytes (Arrow's data
 * buffer length, e.g. buffers[2]->size()); every offset must then be at most it, so offsets that
 * point past the buffer are refused. 0 (the default of a designated initializer) declares no size:
 * then only offsets that wrap the address space can be refused, and an offset past the caller's
 * data is read (undefined behaviour). Declare it for data from an untrusted source. (The struct is
 * unchanged: width had to be 0 for these kinds before, so existing callers, compiled against an
 * older header or not, keep their meaning.) */
#define SIMDBLOOM_KEYS_U64 1         /* keys: uint64_t[count] */
#define SIMDBLOOM_KEYS_U32 2         /* keys: uint32_t[count] */
#define SIMDBLOOM_KEYS_PREHASHED 3   /* keys: uint64_t[count], values of simdbloom_hash_keys */
#define SIMDBLOOM_KEYS_BINARY32 4    /* Arrow binary/utf8: keys = int32_t offsets[count + 1] */
#define SIMDBLOOM_KEYS_BINARY64 5    /* Arrow large binary: keys = int64_t offsets[count + 1] */
#define SIMDBLOOM_KEYS_FIXED_WIDTH 6 /* key i: width bytes at (uint8_t*)keys + i * stride */
typedef struct simdbloom_keys {
  int kind;             /* SIMDBLOOM_KEYS_* */
  const void* keys;     /* the array, the Arrow offsets, or the first record */
  const void* data;     /* Arrow data bytes, any pointer type (BINARY32/64 only, else NULL; key
                           i is the bytes [offsets[i], offsets[i + 1]) of data) */
  size_t width, stride; /* FIXED_WIDTH: the record geometry (stride 0 or below width is
                           allowed). BINARY32/64: width = the size of data in bytes, checked
                           against every offset (0: not declared); stride 0. Other kinds: 0 */
  size_t count;         /* number of keys */
} simdbloom_keys;

/* Filter::insert(keys). *changed (if not NULL) receives the number of keys that set a bit that
 * was clear (surely new). Cost: O(count), no allocation (byte strings: a call of more than 4096
 * keys hashes them into a 128 KiB buffer each thread allocates once, filter.hpp). Arrow offsets
 * are checked (O(count)) before any work. EINVAL: filter NULL, keys as above. EREADONLY: a view. */
simdbloom_status simdbloom_insert_keys(simdbloom_filter* filter, const simdbloom_keys* keys,
                                       uint64_t* changed);
/* Filter::insert(keys, fresh): as simdbloom_insert_keys, and fresh[i] = 1 iff inserting key i (in
 * key order) set a bit that was clear, else 0, so a key repeated within the batch is new only the
 * first time (de-duplication). fresh holds keys->count bytes. EINVAL also for fresh NULL with a
 * non-zero count. */
simdbloom_status simdbloom_insert_keys_fresh(simdbloom_filter* filter, const simdbloom_keys* keys,
                                             uint8_t* fresh, uint64_t* changed);
/* Filter::contains(keys, out): out[i] = 1 if key i may be present, else 0. *hits (if not NULL)
 * receives the number of 1s. EINVAL: filter NULL, keys as above, out NULL with count > 0. */
simdbloom_status simdbloom_contains_keys(const simdbloom_filter* filter, const simdbloom_keys* keys,
                                         uint8_t* out, uint64_t* hits);
/* Filter::contains_bitmap: bit i of bitmap (LSB first, Arrow's order) = key i may be present;
 * writes (count + 7) / 8 bytes, unused bits 0. *hits (if not NULL) receives the number of set
 * bits. EINVAL: filter NULL, keys as above, bitmap NULL with count > 0. */
simdbloom_status simdbloom_contains_bitmap(const simdbloom_filter* filter,
                                           const simdbloom_keys* keys, uint8_t* bitmap,
                                           uint64_t* hits);
/* Filter::select: the ascending indices of the keys that may be present go to selection (which
 * must hold count entries); *selected (if not NULL) receives how many. EINVAL: filter NULL, keys
 * as above, selection NULL with count > 0, count above 2^32. */
simdbloom_status simdbloom_select(const simdbloom_filter* filter, const simdbloom_keys* keys,
                                  uint32_t* selection, uint64_t* selected);
/* Filter::refine: keeps, in place and in order, the entries of selection[0 .. count) whose key
 * may be present; *remaining (if not NULL) receives how many. EINVAL: filter NULL, keys as above,
 * selection NULL with count > 0, an entry not below keys->count (checked before anything is
 * written). */
simdbloom_status simdbloom_refine(const simdbloom_filter* filter, const simdbloom_keys* keys,
                                  uint32_t* selection, size_t count, uint64_t* remaining);
/* Filter::hash: out[i] = the hash of key i, for SIMDBLOOM_KEYS_PREHASHED. EINVAL: filter NULL,
 * keys as above, out NULL with count > 0. */
simdbloom_status simdbloom_hash_keys(const simdbloom_filter* filter, const simdbloom_keys* keys,
                                     uint64_t* out);

/* ---- Many filters, one batch (simdbloom::FilterSet, simdbloom/filter_set.hpp) ----
 * `filters` holds n_filters filter handles in set order (LSM levels newest first, row groups,
 * partitions); each key is hashed once per hash of the set (filters of one hash family, seed and
 * key type share it), not once per filter. Answers equal a separate call per filter. `threads`:
 * 0 or 1 the calling thread alone, T: up to T threads (simdbloom::Threads). The filters are only
 * read. EINVAL: filters NULL with n_filters > 0, a NULL entry, keys as above (a key of the other
 * kind than a filter's key type names that filter), an output NULL with keys. Cost: O(count) hashes
 * per distinct hash, O(count x n_filters) probes; a scratch of about 13 KiB per thread. */
/* Every (filter, key) pair where the key may be in the filter, in key order, then filter order:
 * pair j is (filter_index[j], key_index[j]) for j < min(*matches, capacity). *matches (required)
 * receives the number of pairs; if it exceeds capacity, only the first capacity were written:
 * call again with capacity >= *matches. keys->count must be below 2^32. Allocates the pairs
 * (8 bytes each) for the call. */
simdbloom_status simdbloom_set_contains(const simdbloom_filter* const* filters, size_t n_filters,
                                        const simdbloom_keys* keys, unsigned threads,
                                        uint32_t* filter_index, uint32_t* key_index,
                                        size_t capacity, uint64_t* matches);
/* out[i] = the index of the first filter (set order) that may hold key i, -1 if none; later
 * filters are probed only for keys no earlier one matched. *hits (if not NULL) receives the
 * number of keys matched. */
simdbloom_status simdbloom_set_first(const simdbloom_filter* const* filters, size_t n_filters,
                                     const simdbloom_keys* keys, unsigned threads, int32_t* out,
                                     uint64_t* hits);
/* out[i] = how many filters may hold key i; *total (if not NULL) receives the sum. */
simdbloom_status simdbloom_set_count(const simdbloom_filter* const* filters, size_t n_filters,
                                     const simdbloom_keys* keys, unsigned threads, uint32_t* out,
                                     uint64_t* total);

/* ---- Key types (simdbloom::KeyType, simdbloom/detail/keys.hpp; lib/FORMAT.md "Keys") ----
 * A key is its value: an integer is one key whatever call carries it (the _u64 calls, U64 and U32
 * arrays of simdbloom_keys), so simdbloom_insert_u64 of 7 is found by a U32 array holding 7, in
 * every kind. A byte string is its bytes (the _bytes and _one calls, BINARY32/64, FIXED_WIDTH).
 * A filter records what it holds, keeps it in its file, and refuses the other kind of key:
 *   SIMDBLOOM_KEY_INT64: integers, hashed as their 8-byte value. What the first integer insert
 *     makes a filter of SIMDBLOOM_KEY_NONE.
 *   SIMDBLOOM_KEY_INT32: integers hashed as 4 bytes (Parquet INT32 columns, systems that hash
 *     4-byte values); declared with simdbloom_set_key_type. A u64 key of 2^32 or more does not
 *     fit: an insert refuses it (EINVAL, nothing inserted), a query answers it absent. (C's calls
 *     are unsigned: pass a negative int32 value as its uint32_t, e.g. in a U32 array.)
 *   SIMDBLOOM_KEY_BYTES: byte strings. What the first byte-string insert makes a NONE filter.
 *   SIMDBLOOM_KEY_NONE: nothing inserted or declared yet (a query hashes integers as INT64).
 *   SIMDBLOOM_KEY_LEGACY: a file saved before key types: an integer is hashed as the bytes of its
 *     call's width (a u64 as its 8 little-endian bytes, a u32 as its 4), exactly as then, and
 *     found by a byte-string query of those bytes. simdbloom_set_key_type may declare it once.
 * An integer call on a BYTES filter, or a byte-string call on an INT64 or INT32 filter, is
 * SIMDBLOOM_EINVAL with simdbloom_last_error() naming both, e.g. "simdbloom_contains_u64: uint64
 * keys on a filter of bytes keys" (nothing changes, no output written). Pre-hashed keys
 * (SIMDBLOOM_KEYS_PREHASHED) bypass key types. Merge and intersect need equal key types (NONE
 * takes the other's): EINCOMPATIBLE otherwise. Every kind has the same pair of calls
 * (simdbloom_<kind>_get_key_type, _set_key_type). */
typedef enum simdbloom_key_type {
  SIMDBLOOM_KEY_LEGACY = 0, /* saved before key types: integers hash at their call's width */
  SIMDBLOOM_KEY_INT64 = 1,  /* integers as 8-byte values */
  SIMDBLOOM_KEY_INT32 = 2,  /* integers as 4-byte values, [-2^31, 2^32) */
  SIMDBLOOM_KEY_BYTES = 3,  /* byte strings */
  SIMDBLOOM_KEY_NONE = 4    /* nothing inserted or declared yet */
} simdbloom_key_type;
/* Filter::key_type into *out. EINVAL: filter or out NULL. O(1). */
simdbloom_status simdbloom_get_key_type(const simdbloom_filter* filter, simdbloom_key_type* out);
/* Filter::set_key_type: declares what a NONE or LEGACY filter holds, SIMDBLOOM_KEY_INT64, _INT32
 * or _BYTES (a filter loaded from an old file, one read from Parquet, or one whose first insert
 * must not decide). Declaring the type a filter holds is OK; a view may be declared (no bit
 * changes). `type` is an int, as the layouts are: any value but those three is EINVAL (no
 * undefined behaviour for values outside the enum). EINVAL: filter NULL, type not one of those
 * three, a filter that holds another type (named). O(1). */
simdbloom_status simdbloom_set_key_type(simdbloom_filter* filter, int type);

/* Parameters. For a NULL filter each returns 0 (0.0) and sets simdbloom_last_error(): layout 0,
 * bit_count 0 and num_hashes 0 are values of no filter; inserted_count and expected_fpp are 0
 * for an empty filter too. */
int simdbloom_layout(const simdbloom_filter* filter); /* SIMDBLOOM_BLOCK512 .. _SHIFTING */
uint64_t simdbloom_bit_count(const simdbloom_filter* filter);
uint32_t simdbloom_num_hashes(const simdbloom_filter* filter);
uint64_t simdbloom_inserted_count(const simdbloom_filter* filter);
double simdbloom_expected_fpp(const simdbloom_filter* filter);

/* Set operations (Filter::merge / intersect / compatible). EINVAL: filter or other NULL.
 * EINCOMPATIBLE: they differ in layout, size, k, seed or key type (one of none takes the
 * other's). EREADONLY: filter is a view.
 * compatible returns 1 or 0; 0 (and sets simdbloom_last_error()) if a or b is NULL. */
simdbloom_status simdbloom_merge(simdbloom_filter* filter, const simdbloom_filter* other);
simdbloom_status simdbloom_intersect(simdbloom_filter* filter, const simdbloom_filter* other);
int simdbloom_compatible(const simdbloom_filter* a, const simdbloom_filter* b);

/* Persistence (FORMAT.md "File format"). serialized_size is what serialize writes (at least 72
 * bytes); 0, and simdbloom_last_error() set, for a NULL filter. */
size_t simdbloom_serialized_size(const simdbloom_filter* filter);
/* Writes the file form into buf (capacity bytes, any pointer type). EINVAL: filter or buf NULL,
 * capacity below simdbloom_serialized_size, buf + capacity past the end of the address space
 * (nothing is written then). */
simdbloom_status simdbloom_serialize(const simdbloom_filter* filter, void* buf, size_t capacity);
/* Filter::save_file / load_file. EINVAL: filter, path (or out) NULL. EIO: a path that cannot be
 * opened, written or read: missing, without permission, a directory; the message names the path
 * and the reason (strerror). EFORMAT: a readable file that is not a complete, valid filter.
 * simdbloom_save replaces the file atomically (a temporary file in its directory, fsync'ed and
 * renamed over it): on any failure, a full disk included, the old file is unchanged. It follows
 * symbolic links, writes devices and FIFOs in place, needs write permission on the file and its
 * directory, and keeps the old mode (and owner where permitted). */
simdbloom_status simdbloom_save(const simdbloom_filter* filter, const char* path);
simdbloom_status simdbloom_load(const char* path, simdbloom_filter** out);
/* Filter::load(data, size): a copy of the filter in data (size bytes, any pointer type). EINVAL:
 * out NULL, data NULL with size > 0, data + size past the end of the address space. EFORMAT: not
 * a complete, valid filter. */
simdbloom_status simdbloom_load_bytes(const void* data, size_t size, simdbloom_filter** out);
/* Filter::view(data, size, verify_checksum != 0): zero-copy and read-only; data (any pointer
 * type) must be 64-byte aligned and outlive the filter. verify_checksum is a boolean: any
 * non-zero value verifies. EINVAL: data or out NULL, data not 64-byte aligned, data + size past
 * the end of the address space. EFORMAT: as load_bytes. */
simdbloom_status simdbloom_view(const void* data, size_t size, int verify_checksum,
                                simdbloom_filter** out);
/* Filter::map_file(path, verify_checksum != 0): a read-only filter over a memory mapping of the
 * file, which the filter owns: simdbloom_free unmaps it. With verify_checksum 0 the cost is open +
 * mmap + the 64-byte header, whatever the file's size (pages are read on first use); otherwise one
 * checksum pass reads the file first. Mutations are EREADONLY. The file must not be truncated or
 * rewritten in place while mapped (simdbloom_save replaces by rename, which a mapping survives).
 * EINVAL: path or out NULL. EIO: a path that is missing, unreadable or not a regular file, or a
 * failed mmap. EFORMAT: as simdbloom_load. */
simdbloom_status simdbloom_map_file(const char* path, int verify_checksum, simdbloom_filter** out);

/* Guava's BloomFilter (Filter::from_guava / to_guava, lib/FORMAT.md "guava and guava32"): its
 * writeTo bytes, which a Java service stores in caches, messages and cells.
 * simdbloom_from_guava reads them into *out (layout SIMDBLOOM_GUAVA for strategy ordinal 1,
 * MURMUR128_MITZ_64; SIMDBLOOM_GUAVA32 for 0); `key_type` says which funnel the Java side used,
 * which Guava's bytes do not record: SIMDBLOOM_KEY_INT64 longFunnel, SIMDBLOOM_KEY_INT32
 * integerFunnel, SIMDBLOOM_KEY_BYTES stringFunnel(UTF_8) and byteArrayFunnel (keys as their
 * bytes; unencodedCharsFunnel: pass each key's UTF-16LE bytes). EINVAL: data NULL with size > 0,
 * out NULL, a bad key_type. EFORMAT: anything but exactly one Guava filter (a bad ordinal, k 0, a
 * count that does not match size), never read past size. Cost: one allocation, one pass.
 * simdbloom_guava_size: the bytes simdbloom_to_guava writes (6 + 8 per long); 0 and a last error
 * for NULL or a layout that is not Guava's. simdbloom_to_guava writes them into buf (capacity
 * bytes, any pointer type). EINVAL: filter or buf NULL, capacity below simdbloom_guava_size (nothing
 * written). EINCOMPATIBLE: not a Guava layout, or a seed other than 0 (Guava's Murmur3 has none). */
simdbloom_status simdbloom_from_guava(const void* data, size_t size, int key_type,
                                      simdbloom_filter** out);
size_t simdbloom_guava_size(const simdbloom_filter* filter);
simdbloom_status simdbloom_to_guava(const simdbloom_filter* filter, void* buf, size_t capacity);

/* The other kinds of filter (counting, scalable, spatial, ShBF_A, ShBF_x), declared inside this
 * extern "C" block with this header's visibility: simdbloom/c_kinds.h. Include this header. */
#include "simdbloom/c_kinds.h" /* IWYU pragma: export */

#ifdef __cplusplus
} /* extern "C" */
#endif

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif /* SIMDBLOOM_SIMDBLOOM_H_ */
