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

static acc load(wk_dtype dt, const void *p, size_t i)
{
    acc a;
    switch (dt) {
    case WK_U8: a.u = ((const uint8_t *)p)[i]; break;
    case WK_U32: a.u = ((const uint32_t *)p)[i]; break;
    case WK_I32: a.u = (uint64_t)(int64_t)((const int32_t *)p)[i]; break;
    case WK_I64: a.u = (uint64_t)((const int64_t *)p)[i]; break;
    case WK_F16: a.f = wk_f16_to_f32(((const uint16_t *)p)[i]); break;
    case WK_BF16: a.f = wk_bf16_to_f32(((const uint16_t *)p)[i]); break;
    case WK_F32: a.f = ((const float *)p)[i]; break;
    default: a.f = ((const double *)p)[i]; break;
    }
    return a;
}

static void store(wk_dtype dt, void *p, size_t i, acc a)
{
    switch (dt) {
    case WK_U8: ((uint8_t *)p)[i] = (uint8_t)a.u; break;
    case WK_U32: ((uint32_t *)p)[i] = (uint32_t)a.u; break;
    case WK_I32: ((int32_t *)p)[i] = (int32_t)(uint32_t)a.u; break;
    case WK_I64: ((int64_t *)p)[i] = (int64_t)a.u; break;
    case WK_F16: ((uint16_t *)p)[i] = wk_f64_to_f16(a.f); break;
    case WK_BF16: ((uint16_t *)p)[i] = wk_f64_to_bf16(a.f); break;
    case WK_F32: ((float *)p)[i] = (float)a.f; break;
    default: ((double *)p)[i] = a.f; break;
    }
}

static bool is_signed(wk_dtype dt) { return dt == WK_I32 || dt == WK_I64; }

static acc combine(wk_comm_op op, wk_dtype dt, acc a, acc b)
{
    if (wk_dtype_is_float(dt)) {
        if ((op == WK_COMM_MIN || op == WK_COMM_MAX) && (isnan(a.f) || isnan(b.f)))
            return isnan(a.f) ? a : b;
        switch (op) {
        case WK_COMM_PROD: a.f *= b.f; break;
        case WK_COMM_MIN: a.f = b.f < a.f ? b.f : a.f; break;
        case WK_COMM_MAX: a.f = b.f > a.f ? b.f : a.f; break;
        default: a.f += b.f; break; /* sum, avg */
        }
        return a;
    }
    bool less = is_signed(dt) ? (int64_t)b.u < (int64_t)a.u : b.u < a.u;
    switch (op) {
    case WK_COMM_PROD: a.u *= b.u; break;
    case WK_COMM_MIN: a = less ? b : a; break;
    case WK_COMM_MAX: a = less ? a : b; break;
    default: a.u += b.u; break;
    }
    return a;
}

/* out[r] (for each r with out[r] != NULL) = op over ranks j of in[j] + offset elements, n elements. */
static void reduce_range(const wk_coll *c, int size, const void *const *in, size_t in_offset, void *const *out,
                         int nout, size_t n)
{
    size_t es = wk_dtype_size(c->dtype);
    acc buf[CHUNK];
    for (size_t base = 0; base < n; base += CHUNK) {
        size_t m = n - base < CHUNK ? n - base : CHUNK;
        for (size_t i = 0; i < m; i++) {
            acc a = load(c->dtype, (const char *)in[0] + in_offset * es, base + i);
            for (int j = 1; j < size; j++)
                a = combine(c->op, c->dtype, a, load(c->dtype, (const char *)in[j] + in_offset * es, base + i));
            if (c->op == WK_COMM_AVG)
                a.f /= size;
            buf[i] = a;
        }
        for (int r = 0; r < nout; r++)
            if (out[r])
                for (size_t i = 0; i < m; i++)
                    store(c->dtype, out[r], base + i, buf[i]);
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
