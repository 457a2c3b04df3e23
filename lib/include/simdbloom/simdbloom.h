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
#define SIMDBLOOM_EINCOMPATIBLE 6   /* filters differ in layout, size, k or seed */
#define SIMDBLOOM_EREADONLY 7       /* mutation of a view */
#define SIMDBLOOM_EINTERNAL 99      /* an unexpected failure inside the library */

/* Layouts (simdbloom::Layout). */
#define SIMDBLOOM_BLOCK512 1
#define SIMDBLOOM_REGISTER64 2
#define SIMDBLOOM_SPLIT_BLOCK256 3
#define SIMDBLOOM_CLASSIC 4
#define SIMDBLOOM_SHIFTING 5

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

/* Bulk u64 keys; out[i] = 1 if keys[i] may be present, else 0. EINVAL: filter NULL, keys (or
 * out) NULL with n > 0, keys (or out) plus n entries past the end of the address space.
 * EREADONLY: insert into a view. */
simdbloom_status simdbloom_insert_u64(simdbloom_filter* filter, const uint64_t* keys, size_t n);
simdbloom_status simdbloom_contains_u64(const simdbloom_filter* filter, const uint64_t* keys,
                                        size_t n, uint8_t* out);
/* Bulk byte-string keys: `keys` is an array of n pointers to bytes, passed without a cast
 * whatever their type: char*[n], const char*[n], uint8_t*[n], const void*[n], a char** ... (all
 * share void*'s representation); key i is lengths[i] bytes at keys[i] (NULL allowed when the
 * length is 0). Every key is checked before any is inserted or tested. EINVAL: filter NULL, keys,
 * lengths (or out) NULL with n > 0, keys[i] NULL with lengths[i] > 0, keys[i] + lengths[i] past
 * the end of the address space or lengths[i] above PTRDIFF_MAX (e.g. lengths[i] = SIZE_MAX, a
 * "-1" length). That keys[i] holds lengths[i] readable bytes cannot be checked. EREADONLY: insert
 * into a view. Processed in tiles of 256 keys; no allocation. */
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
 * A key is hashed as its bytes in every shape (a u64 as its 8 little-endian bytes, a u32 as its
 * 4), so a key inserted in one shape is found in any other and by simdbloom_contains_bytes.
 *
 * Checked by every simdbloom_*_keys call, before any work (EINVAL): keys NULL; kind outside 1..6;
 * stride non-zero for a kind other than FIXED_WIDTH, width non-zero for a kind other than
 * FIXED_WIDTH and BINARY32/64; data non-NULL for a kind other than BINARY32/64; keys->keys NULL
 * with count > 0 (FIXED_WIDTH: and width > 0); an array (the keys, the count + 1 offsets, the
 * records' (count - 1) * stride + width bytes, the data up to the last offset) that overflows,
 * wraps the address space or exceeds PTRDIFF_MAX bytes (e.g. width = SIZE_MAX); Arrow offsets
 * that are negative or decrease, or, with a declared data size (width), pass it; Arrow data NULL
 * when the offsets span bytes.
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
 * was clear (surely new). Cost: O(count), no allocation. Arrow offsets are checked (O(count))
 * before any work. EINVAL: filter NULL, keys as above. EREADONLY: a view. */
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

/* Parameters. For a NULL filter each returns 0 (0.0) and sets simdbloom_last_error(): layout 0,
 * bit_count 0 and num_hashes 0 are values of no filter; inserted_count and expected_fpp are 0
 * for an empty filter too. */
int simdbloom_layout(const simdbloom_filter* filter); /* SIMDBLOOM_BLOCK512 .. _SHIFTING */
uint64_t simdbloom_bit_count(const simdbloom_filter* filter);
uint32_t simdbloom_num_hashes(const simdbloom_filter* filter);
uint64_t simdbloom_inserted_count(const simdbloom_filter* filter);
double simdbloom_expected_fpp(const simdbloom_filter* filter);

/* Set operations (Filter::merge / intersect / compatible). EINVAL: filter or other NULL.
 * EINCOMPATIBLE: they differ in layout, size, k or seed. EREADONLY: filter is a view.
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

#ifdef __cplusplus
} /* extern "C" */
#endif

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif /* SIMDBLOOM_SIMDBLOOM_H_ */
