/* comm_reduce.c: what a collective does to the ranks' buffers on the CPU communicator (cpu/comm.c runs it on
 * the thread of the last rank to arrive, once every rank's buffers are known). Floats combine in f64, in rank
 * order, and round once; integers wrap, as NCCL's do. */
#include <math.h>
#include <string.h>

#include "cpu/cpu.h"
#include "core/dtype.h"

#define CHUNK 1024 /* elements combined at a time: every rank's chunk is read before any is written (in place) */

/* One element of the combination: a double for floats, 64 bits for integers (u64 wraps like every width). */
typedef union acc {
    double f;
    uint64_t u;
} acc;

/* Elements [base, base + n) of p into a (each loop has one type, so the compiler can vectorise it). */
static void load_row(wk_dtype dt, const void *p, size_t base, size_t n, acc *a)
{
    switch (dt) {
    case WK_U8: for (size_t i = 0; i < n; i++) a[i].u = ((const uint8_t *)p)[base + i]; break;
    case WK_U32: for (size_t i = 0; i < n; i++) a[i].u = ((const uint32_t *)p)[base + i]; break;
    case WK_I32: for (size_t i = 0; i < n; i++) a[i].u = (uint64_t)(int64_t)((const int32_t *)p)[base + i]; break;
    case WK_I64: for (size_t i = 0; i < n; i++) a[i].u = (uint64_t)((const int64_t *)p)[base + i]; break;
    case WK_F16: for (size_t i = 0; i < n; i++) a[i].f = wk_f16_to_f32(((const uint16_t *)p)[base + i]); break;
    case WK_BF16: for (size_t i = 0; i < n; i++) a[i].f = wk_bf16_to_f32(((const uint16_t *)p)[base + i]); break;
    case WK_F32: for (size_t i = 0; i < n; i++) a[i].f = ((const float *)p)[base + i]; break;
    default: for (size_t i = 0; i < n; i++) a[i].f = ((const double *)p)[base + i]; break;
    }
}

static void store_row(wk_dtype dt, void *p, size_t base, size_t n, const acc *a)
{
    switch (dt) {
    case WK_U8: for (size_t i = 0; i < n; i++) ((uint8_t *)p)[base + i] = (uint8_t)a[i].u; break;
    case WK_U32: for (size_t i = 0; i < n; i++) ((uint32_t *)p)[base + i] = (uint32_t)a[i].u; break;
    case WK_I32: for (size_t i = 0; i < n; i++) ((int32_t *)p)[base + i] = (int32_t)(uint32_t)a[i].u; break;
    case WK_I64: for (size_t i = 0; i < n; i++) ((int64_t *)p)[base + i] = (int64_t)a[i].u; break;
    case WK_F16: for (size_t i = 0; i < n; i++) ((uint16_t *)p)[base + i] = wk_f64_to_f16(a[i].f); break;
    case WK_BF16: for (size_t i = 0; i < n; i++) ((uint16_t *)p)[base + i] = wk_f64_to_bf16(a[i].f); break;
    case WK_F32: for (size_t i = 0; i < n; i++) ((float *)p)[base + i] = (float)a[i].f; break;
    default: for (size_t i = 0; i < n; i++) ((double *)p)[base + i] = a[i].f; break;
    }
}

/* a = a op b, elementwise; min/max of floats propagate NaN. */
static void combine_floats(wk_comm_op op, acc *a, const acc *b, size_t n)
{
    switch (op) {
    case WK_COMM_PROD: for (size_t i = 0; i < n; i++) a[i].f *= b[i].f; break;
    case WK_COMM_MIN:
        for (size_t i = 0; i < n; i++)
            a[i].f = isnan(a[i].f) ? a[i].f : isnan(b[i].f) || b[i].f < a[i].f ? b[i].f : a[i].f;
        break;
    case WK_COMM_MAX:
        for (size_t i = 0; i < n; i++)
            a[i].f = isnan(a[i].f) ? a[i].f : isnan(b[i].f) || b[i].f > a[i].f ? b[i].f : a[i].f;
        break;
    default: for (size_t i = 0; i < n; i++) a[i].f += b[i].f; break; /* sum, avg */
    }
}

/* a = a op b for integers held in 64 bits: sums and products wrap; min/max compare as dt's signedness. */
static void combine_ints(wk_comm_op op, bool is_signed, acc *a, const acc *b, size_t n)
{
    switch (op) {
    case WK_COMM_PROD: for (size_t i = 0; i < n; i++) a[i].u *= b[i].u; break;
    case WK_COMM_MIN:
    case WK_COMM_MAX:
        for (size_t i = 0; i < n; i++) {
            bool less = is_signed ? (int64_t)b[i].u < (int64_t)a[i].u : b[i].u < a[i].u;
            a[i].u = less == (op == WK_COMM_MIN) ? b[i].u : a[i].u;
        }
        break;
    default: for (size_t i = 0; i < n; i++) a[i].u += b[i].u; break;
    }
}

/* out[r] (for each r with out[r] != NULL) = op over ranks j of in[j] + offset elements, n elements. */
static void reduce_range(const wk_coll *c, int size, const void *const *in, size_t in_offset, void *const *out,
                         int nout, size_t n)
{
    bool is_float = wk_dtype_is_float(c->dtype), is_signed = c->dtype == WK_I32 || c->dtype == WK_I64;
    acc buf[CHUNK], next[CHUNK];
    for (size_t base = 0; base < n; base += CHUNK) {
        size_t m = n - base < CHUNK ? n - base : CHUNK;
        load_row(c->dtype, in[0], in_offset + base, m, buf);
        for (int j = 1; j < size; j++) {
            load_row(c->dtype, in[j], in_offset + base, m, next);
            if (is_float)
                combine_floats(c->op, buf, next, m);
            else
                combine_ints(c->op, is_signed, buf, next, m);
        }
        for (size_t i = 0; c->op == WK_COMM_AVG && i < m; i++)
            buf[i].f /= size;
        for (int r = 0; r < nout; r++)
            if (out[r])
                store_row(c->dtype, out[r], base, m, buf);
    }
}

static void copy_bytes(void *dst, const void *src, size_t bytes)
{
    if (dst != src && bytes)
        memcpy(dst, src, bytes);
}

void wk_cpu_coll_execute(const wk_coll *c, int size, const void *const *send, void *const *recv)
{
    size_t bytes = c->count * wk_dtype_size(c->dtype);
    switch (c->kind) {
    case WK_COLL_ALL_REDUCE:
        reduce_range(c, size, send, 0, recv, size, c->count);
        break;
    case WK_COLL_REDUCE:
        reduce_range(c, size, send, 0, &recv[c->peer], 1, c->count);
        break;
    case WK_COLL_REDUCE_SCATTER:
        for (int r = 0; r < size; r++)
            reduce_range(c, size, send, (size_t)r * c->count, &recv[r], 1, c->count);
        break;
    case WK_COLL_BROADCAST:
        for (int r = 0; r < size; r++)
            copy_bytes(recv[r], send[c->peer], bytes);
        break;
    case WK_COLL_ALL_GATHER:
        for (int r = 0; r < size; r++)
            for (int j = 0; j < size; j++)
                copy_bytes((char *)recv[r] + (size_t)j * bytes, send[j], bytes);
        break;
    default: /* a send/recv pair: participant 0 sends, 1 receives */
        copy_bytes(recv[1], send[0], bytes);
        break;
    }
}
