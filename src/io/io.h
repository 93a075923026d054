/* io.h: what the file readers and writers (safetensors.c, gguf.c, npy.c) share: a refcounted read-only
 * mapping of a file, tensors made from its bytes (zero-copy views on the CPU, one upload to a GPU), element
 * types of files and their conversion to wick dtypes, checked size arithmetic, and atomic writes
 * (a temporary file renamed over the target). Files are little-endian; so is every host wick builds for. */
#ifndef WK_IO_IO_H
#define WK_IO_IO_H

#include <stdatomic.h>
#include <stdio.h>

#include "core/tensor.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "wick's file readers assume a little-endian host"
#endif

/* A whole file mapped read-only. base is NULL for an empty file. path is kept for messages. */
typedef struct wk_file_map {
    atomic_int refcount;
    const unsigned char *base;
    size_t size;
    char *path;
    int fd; /* kept open: GPU loads read the file straight into page-locked buffers (pread) */
} wk_file_map;

/* Opens and maps path (WK_ERR_IO naming the file and the system's reason); one reference. */
wk_status wk_file_map_open(const char *path, wk_file_map **out);
void wk_file_map_retain(wk_file_map *m);
void wk_file_map_release(wk_file_map *m); /* NULL is a no-op; unmaps with the last reference */

/* ---- element types of files (wick.h wk_file_type) */
/* Bytes per element; 0 for WK_FILE_QUANTIZED and invalid values. */
size_t wk_file_type_size(wk_file_type t);
/* True when t is one of the wick dtypes (same number). */
static inline bool wk_file_type_is_dtype(wk_file_type t) { return (unsigned)t < WK_DTYPE_COUNT; }

/* ---- loading */
/* A tensor on dev of dtype dt and the given row-major shape whose numel * size(dt) bytes start at byte offset
 * `offset` of the mapping (the caller has checked that they lie inside it). On the CPU: a zero-copy read-only
 * view that holds a reference to the mapping when base + offset is aligned to the element size, else a copy.
 * On a GPU: one upload from the mapping. strides: NULL (row-major) or element strides (a Fortran-order .npy);
 * the bytes spanned are then those of the strided layout. */
wk_status wk_io_load(wk_file_map *m, uint64_t offset, wk_dtype dt, int rank, const int64_t *shape,
                     const int64_t *strides, wk_device *dev, wk_tensor **out);
/* As wk_io_load for data of file type ft (row-major), converted to want (wick.h "Element types of files"):
 * a wick dtype loads and is cast on dev when want differs; another type is widened on the host into its
 * carrier dtype (i32, i64 or f32), uploaded and cast. what: the tensor's name, for messages. */
wk_status wk_io_load_as(wk_file_map *m, uint64_t offset, wk_file_type ft, int rank, const int64_t *shape,
                        wk_device *dev, wk_dtype want, const char *what, wk_tensor **out);
/* The WK_ERR_DTYPE a plain load of a non-wick type gives: "<file>: tensor '<what>' has type <ft>, which wick
 * has no dtype for: load it with a _as function to convert it". */
wk_status wk_io_type_error(const wk_file_map *m, const char *what, wk_file_type ft);

/* ---- checked arithmetic on sizes read from files (false on overflow, *out untouched) */
static inline bool wk_add_u64(uint64_t a, uint64_t b, uint64_t *out)
{
    if (a > UINT64_MAX - b)
        return false;
    *out = a + b;
    return true;
}
static inline bool wk_mul_u64(uint64_t a, uint64_t b, uint64_t *out)
{
    if (b && a > UINT64_MAX / b)
        return false;
    *out = a * b;
    return true;
}
/* The bytes of n dims of elem-byte elements, and false where wick could not hold that shape: a negative dim, the
 * product times elem past INT64_MAX, or wick.h's size rule broken for the widest dtype a load may convert to
 * (the product with 0 counted as 1, times 8 bytes, past INT64_MAX), so that an empty tensor of any order of
 * dims is judged the same. */
bool wk_io_numel_bytes(int n, const int64_t *dims, uint64_t elem, uint64_t *bytes);

/* ---- writing */
/* Writes a file atomically: fn(ctx, f, path) writes the whole content to a temporary file in path's directory
 * ("<path>.XXXXXX"), which is then flushed, fsync'd and renamed over path. On any failure the temporary file
 * is removed and path is unchanged. WK_ERR_IO for the system's failures. */
typedef wk_status (*wk_io_writer)(void *ctx, FILE *f, const char *path);
wk_status wk_io_write_atomic(const char *path, wk_io_writer fn, void *ctx);
/* Writes t's elements (any device, any strides) to f in row-major order, in bounded host chunks. */
wk_status wk_io_write_tensor(FILE *f, const char *path, const wk_tensor *t);
/* fwrite of n bytes, WK_ERR_IO naming path when short. */
wk_status wk_io_write(FILE *f, const char *path, const void *p, size_t n);

#endif
