/* rowwise.h: helpers for the CPU kernels that work row by row over trailing dims (reduce, reduce_arg,
 * norm, sort): the outer dims of a view, merged, with the offset of each row; NaN-aware ordering. */
#ifndef WK_CPU_ROWWISE_H
#define WK_CPU_ROWWISE_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/numerics.h"
#include "core/tensor.h"

/* The first `ndims` dims of a view, merged: row o (row-major over them, as in a contiguous output)
 * starts wk_rows_offset(r, r->rank, o) elements after the view's element 0. */
typedef struct wk_rows { int rank; int64_t shape[WK_MAX_RANK], stride[WK_MAX_RANK]; } wk_rows;

static inline void wk_rows_init(wk_rows *r, const wk_tensor *t, int ndims)
{
    for (int d = 0; d < ndims; d++) {
        r->shape[d] = t->shape[d];
        r->stride[d] = t->strides[d];
    }
    r->rank = wk_merge_dims(ndims, r->shape, r->stride);
}

/* A position while walking the rows in order: multi-index and element offset. */
typedef struct wk_rows_iter { int64_t idx[WK_MAX_RANK], off; } wk_rows_iter;

static inline void wk_rows_seek(const wk_rows *r, int64_t o, wk_rows_iter *it)
{
    it->off = 0;
    for (int d = r->rank - 1; d >= 0; d--) {
        it->idx[d] = o % r->shape[d];
        it->off += it->idx[d] * r->stride[d];
        o /= r->shape[d];
    }
}

/* Moves on by n rows, n at most what is left of the innermost dim (stepping past the last row is
 * harmless: the outermost index just runs over). */
static inline void wk_rows_advance(const wk_rows *r, wk_rows_iter *it, int64_t n)
{
    int last = r->rank - 1;
    if (last < 0)
        return;
    it->idx[last] += n;
    it->off += n * r->stride[last];
    for (int d = last; d > 0 && it->idx[d] == r->shape[d]; d--) {
        it->idx[d] = 0;
        it->idx[d - 1]++;
        it->off += r->stride[d - 1] - r->shape[d] * r->stride[d];
    }
}

/* Offset of row o counting only the first `ndims` merged dims (ndims < rank: o indexes those). */
static inline int64_t wk_rows_offset(const wk_rows *r, int ndims, int64_t o)
{
    int64_t off = 0;
    for (int d = ndims - 1; d >= 0; d--) {
        off += (o % r->shape[d]) * r->stride[d];
        o /= r->shape[d];
    }
    return off;
}

static inline bool wk_isnan_f32(float v) { return isnan(v); }
static inline bool wk_isnan_f64(double v) { return isnan(v); }
static inline bool wk_isnan_never(int64_t v) { (void)v; return false; }

/* True when v is NaN; integer types are never NaN (and compile to false). */
#define WK_ISNAN(v) _Generic((v), float: wk_isnan_f32, double: wk_isnan_f64, default: wk_isnan_never)(v)

/* b replaces the running extreme a: strictly smaller (larger), or NaN, so a NaN propagates and ties
 * keep a. Bitwise | rather than || lets the compiler turn the select into vector code. */
#define WK_MIN_PICK(b, a) (((b) < (a)) | WK_ISNAN(b))
#define WK_MAX_PICK(b, a) (((b) > (a)) | WK_ISNAN(b))

/* a < b in the total order that puts NaN after every number (NaNs equal to each other). */
#define WK_LESS_NAN_LAST(a, b) (WK_ISNAN(b) ? !WK_ISNAN(a) : (a) < (b))

#endif
