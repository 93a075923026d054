/* comm.c: communicators and collectives (wick.h): argument validation, once, for every backend; the backend's
 * comm table (backend.h) does the work. Also this thread's group: which backends it has begun a group on. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/comm.h"

const char *wk_comm_op_name(wk_comm_op op)
{
    static const char *const names[WK_COMM_OP_COUNT] = {"sum", "prod", "min", "max", "avg"};
    return (unsigned)op < WK_COMM_OP_COUNT ? names[op] : "unknown";
}

const char *wk_coll_name(wk_coll_kind k)
{
    static const char *const names[WK_COLL_KIND_COUNT] = {"all_reduce", "all_gather", "reduce_scatter",
                                                          "broadcast",  "reduce",     "send",
                                                          "recv"};
    return (unsigned)k < WK_COLL_KIND_COUNT ? names[k] : "unknown";
}

/* ---------------------------------------------------------------- this thread's group */
#define GROUP_BACKENDS 4 /* cpu, cuda, rocm, and room */
static _Thread_local struct {
    int depth;
    int nbegun;
    const wk_comm_backend *begun[GROUP_BACKENDS];
} group;

wk_status wk_comm_group_begin(void)
{
    if (group.depth == INT_MAX)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "comm_group_begin: groups nested too deep");
    group.depth++;
    return WK_OK;
}

wk_status wk_comm_group_end(void)
{
    if (group.depth == 0)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "comm_group_end: no group was begun on this thread");
    if (--group.depth > 0)
        return WK_OK;
    wk_status first = WK_OK;
    char msg[512] = "";
    for (int i = 0; i < group.nbegun; i++) {
        wk_status s = group.begun[i]->group_end();
        if (s != WK_OK && first == WK_OK) {
            first = s;
            snprintf(msg, sizeof msg, "%s", wk_last_error());
        }
    }
    group.nbegun = 0;
    return first == WK_OK ? WK_OK : wk_error(first, "%s", msg);
}

/* Begins be's group on this thread when a group is open and be has none yet. */
static wk_status join_group(const wk_comm_backend *be)
{
    for (int i = 0; i < group.nbegun; i++)
        if (group.begun[i] == be)
            return WK_OK;
    if (group.nbegun == GROUP_BACKENDS)
        return wk_error(WK_ERR_INTERNAL, "comm group: more backends than expected");
    WK_TRY(be->group_begin());
    group.begun[group.nbegun++] = be;
    return WK_OK;
}

bool wk_comm_in_group(void) { return group.depth > 0; }

static wk_status not_in_group(const char *op)
{
    if (group.depth > 0)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: not allowed inside a group (wk_comm_group_begin)", op);
    return WK_OK;
}

/* ---------------------------------------------------------------- making and freeing */
static wk_status comm_backend(const char *op, wk_device *dev, const wk_comm_backend **be)
{
    if (!dev)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: device is NULL", op);
    *be = dev->backend->comm;
    if (!*be)
        return wk_error(WK_ERR_UNSUPPORTED, "%s: the %s backend has no collectives", op, dev->backend->name);
    return WK_OK;
}

wk_status wk_comm_library(wk_device *dev, const char **name)
{
    const wk_comm_backend *be;
    WK_TRY(comm_backend("comm_library", dev, &be));
    WK_TRY(wk_check_out("comm_library", name));
    return be->library(dev, name);
}

wk_status wk_comm_id_new(wk_device *dev, wk_comm_id *out)
{
    const wk_comm_backend *be;
    WK_TRY(comm_backend("comm_id_new", dev, &be));
    WK_TRY(wk_check_out("comm_id_new", out));
    return be->id_new(dev, out);
}

static wk_status check_timeout(const char *op, double timeout_s)
{
    if (!(timeout_s >= 0) || isinf(timeout_s))
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: timeout_s %g is not a finite number >= 0", op, timeout_s);
    return WK_OK;
}

/* n communicators for ranks first.., made by the backend in one call: all or none. */
static wk_status make_comms(const wk_comm_backend *be, wk_device *const *devs, int n, int size, int first,
                            const wk_comm_id *id, double timeout_s, wk_comm **out)
{
    void **impl = calloc((size_t)n, sizeof *impl);
    wk_comm **c = calloc((size_t)n, sizeof *c);
    bool ok = impl && c;
    for (int i = 0; ok && i < n; i++)
        ok = (c[i] = malloc(sizeof *c[i])) != NULL;
    wk_status s = ok ? be->init(devs, n, size, first, id, timeout_s, impl)
                     : wk_error(WK_ERR_OUT_OF_MEMORY, "comm_init: out of host memory");
    for (int i = 0; c && i < n; i++) {
        if (s == WK_OK) {
            *c[i] = (wk_comm){.be = be, .dev = devs[i], .rank = first + i, .size = size, .impl = impl[i]};
            out[i] = c[i];
        } else {
            free(c[i]);
        }
    }
    free(c);
    free(impl);
    return s;
}

wk_status wk_comm_init_all(wk_device *const *devs, int n, double timeout_s, wk_comm **out)
{
    static const char op[] = "comm_init_all";
    const wk_comm_backend *be;
    WK_TRY(not_in_group(op));
    WK_TRY(wk_check_out(op, out));
    if (!devs || n < 1)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: needs at least one device (n = %d)", op, n);
    WK_TRY(check_timeout(op, timeout_s));
    WK_TRY(comm_backend(op, devs[0], &be));
    for (int i = 0; i < n; i++) {
        if (!devs[i] || devs[i]->backend != devs[0]->backend)
            return wk_error(WK_ERR_DEVICE, "%s: device %d is %s, not a device of the %s backend", op, i,
                            devs[i] ? devs[i]->name : "NULL", devs[0]->backend->name);
        for (int j = 0; j < i && be->one_rank_per_device; j++)
            if (devs[j] == devs[i])
                return wk_error(WK_ERR_DEVICE, "%s: %s is listed twice (a GPU serves one rank)", op, devs[i]->name);
    }
    wk_comm_id id;
    WK_TRY(be->id_new(devs[0], &id));
    return make_comms(be, devs, n, n, 0, &id, timeout_s, out);
}

wk_status wk_comm_init_rank(wk_device *dev, int size, const wk_comm_id *id, int rank, double timeout_s,
                            wk_comm **out)
{
    static const char op[] = "comm_init_rank";
    const wk_comm_backend *be;
    WK_TRY(not_in_group(op));
    WK_TRY(wk_check_out(op, out));
    WK_TRY(comm_backend(op, dev, &be));
    if (!id)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: id is NULL", op);
    if (size < 1 || rank < 0 || rank >= size)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: rank %d of %d ranks (needs 0 <= rank < size, size >= 1)", op,
                        rank, size);
    WK_TRY(check_timeout(op, timeout_s));
    return make_comms(be, &dev, 1, size, rank, id, timeout_s, out);
}

wk_status wk_comm_destroy(wk_comm *c)
{
    if (!c)
        return WK_OK;
    WK_TRY(not_in_group("comm_destroy"));
    wk_status s = c->be->destroy(c->impl);
    free(c);
    return s;
}

wk_status wk_comm_abort(wk_comm *c)
{
    if (!c)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "comm_abort: communicator is NULL");
    return c->be->abort(c->impl);
}

wk_status wk_comm_wait(wk_comm *c)
{
    if (!c)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "comm_wait: communicator is NULL");
    WK_TRY(not_in_group("comm_wait"));
    return c->be->wait(c->impl);
}

int wk_comm_rank(const wk_comm *c) { return c ? c->rank : -1; }
int wk_comm_size(const wk_comm *c) { return c ? c->size : 0; }
wk_device *wk_comm_device(const wk_comm *c) { return c ? c->dev : NULL; }

/* ---------------------------------------------------------------- collectives */
/* t (named `name`) is a contiguous tensor on the rank's device; an output is also writable. */
static wk_status check_buffer(const char *op, const wk_comm *c, const char *name, const wk_tensor *t, bool output)
{
    char buf[200];
    WK_TRY(wk_check_tensor(op, name, t));
    if (wk_dev(t) != c->dev)
        return wk_error(WK_ERR_DEVICE, "%s: %s %s is not on rank %d's device %s", op, name,
                        wk_describe(buf, sizeof buf, t), c->rank, c->dev->name);
    if (!wk_tensor_is_contiguous(t))
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: %s %s is not contiguous (wk_contiguous makes a copy)", op,
                        name, wk_describe(buf, sizeof buf, t));
    return output ? wk_check_writable(op, t) : WK_OK;
}

/* x and out are the same tensor's bytes (allowed: in place) or disjoint. */
static wk_status check_disjoint(const char *op, const wk_tensor *x, const wk_tensor *out, bool same_ok)
{
    if (x->storage != out->storage)
        return WK_OK;
    size_t es = wk_dtype_size(x->dtype);
    uintptr_t x0 = (uintptr_t)wk_tensor_data(x), x1 = x0 + (size_t)wk_tensor_numel(x) * es;
    uintptr_t o0 = (uintptr_t)wk_tensor_data(out), o1 = o0 + (size_t)wk_tensor_numel(out) * es;
    if (x0 >= o1 || o0 >= x1 || x0 == x1 || o0 == o1)
        return WK_OK;
    if (same_ok && x0 == o0 && x1 == o1)
        return WK_OK;
    return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: out overlaps x%s", op, same_ok ? " without being x itself" : "");
}

static wk_status check_op(const char *op, wk_comm_op rop, wk_dtype dt)
{
    if ((unsigned)rop >= WK_COMM_OP_COUNT)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: unknown reduction %d", op, (int)rop);
    if (rop == WK_COMM_AVG && !wk_dtype_is_float(dt))
        return wk_error(WK_ERR_DTYPE, "%s: avg needs a float dtype, not %s", op, wk_dtype_name(dt));
    return WK_OK;
}

static wk_status check_rank_arg(const char *op, const wk_comm *c, const char *what, int r)
{
    if (r < 0 || r >= c->size)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: %s %d is not a rank of %d", op, what, r, c->size);
    return WK_OK;
}

/* out's shape is x's with dim 0 multiplied by k (a 0-d x: out is (k)). */
static bool scaled_dim0(const wk_tensor *x, const wk_tensor *out, int64_t k)
{
    if (x->rank == 0)
        return out->rank == 1 && out->shape[0] == k;
    if (out->rank != x->rank || out->shape[0] != x->shape[0] * k)
        return false;
    return memcmp(x->shape + 1, out->shape + 1, (size_t)(x->rank - 1) * sizeof *x->shape) == 0;
}

static wk_status check_same_shape(const char *op, const wk_tensor *x, const wk_tensor *out)
{
    char b1[128], b2[128];
    if (x->rank != out->rank || memcmp(x->shape, out->shape, (size_t)x->rank * sizeof *x->shape) != 0)
        return wk_error(WK_ERR_SHAPE, "%s: out %s does not have x's shape %s", op,
                        wk_shape_str(b1, sizeof b1, out->rank, out->shape), wk_shape_str(b2, sizeof b2, x->rank, x->shape));
    return WK_OK;
}

/* x (read) and out (written): buffers of the rank, of one dtype. */
static wk_status check_x_out(const char *op, const wk_comm *c, const wk_tensor *x, const wk_tensor *out)
{
    WK_TRY(check_buffer(op, c, "x", x, false));
    WK_TRY(check_buffer(op, c, "out", out, true));
    return wk_check_same_dtype(op, x, out);
}

/* An out that takes x's place: x's shape, and x itself or disjoint from it (all_reduce, a root's broadcast and
 * reduce). */
static wk_status check_in_place(const char *op, const wk_comm *c, const wk_tensor *x, const wk_tensor *out)
{
    WK_TRY(check_x_out(op, c, x, out));
    WK_TRY(check_same_shape(op, x, out));
    return check_disjoint(op, x, out, true);
}

wk_status wk_comm_queue(wk_comm *c, const wk_coll *k)
{
    wk_stream *s = wk_stream_of(c->dev);
    if (s->capture)
        return wk_capture_fail(s, WK_ERR_UNSUPPORTED, "%s: collectives cannot be captured into a graph (run them "
                               "outside the capture)", wk_coll_name(k->kind));
    if (group.depth > 0)
        WK_TRY(join_group(c->be));
    return c->be->run(c->impl, k, group.depth > 0);
}

wk_status wk_comm_join_side(wk_comm *c) { return c->be->join ? c->be->join(c->impl) : WK_OK; }

static wk_status check_comm(const char *op, const wk_comm *c)
{
    if (!c)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "%s: communicator is NULL", op);
    return WK_OK;
}

wk_status wk_comm_all_reduce(wk_comm *c, const wk_tensor *x, wk_comm_op rop, wk_tensor *out)
{
    static const char op[] = "all_reduce";
    WK_TRY(check_comm(op, c));
    WK_TRY(check_in_place(op, c, x, out));
    WK_TRY(check_op(op, rop, x->dtype));
    wk_coll k = {.kind = WK_COLL_ALL_REDUCE, .op = rop, .dtype = x->dtype, .count = (size_t)wk_tensor_numel(x),
                 .send = wk_tensor_data(x), .recv = wk_tensor_data(out)};
    return wk_comm_queue(c, &k);
}

wk_status wk_comm_all_gather(wk_comm *c, const wk_tensor *x, wk_tensor *out)
{
    static const char op[] = "all_gather";
    char b1[128], b2[128];
    WK_TRY(check_comm(op, c));
    WK_TRY(check_x_out(op, c, x, out));
    if (!scaled_dim0(x, out, c->size))
        return wk_error(WK_ERR_SHAPE, "%s: out %s is not x %s with dim 0 times %d ranks", op,
                        wk_shape_str(b1, sizeof b1, out->rank, out->shape), wk_shape_str(b2, sizeof b2, x->rank, x->shape),
                        c->size);
    WK_TRY(check_disjoint(op, x, out, false));
    wk_coll k = {.kind = WK_COLL_ALL_GATHER, .dtype = x->dtype, .count = (size_t)wk_tensor_numel(x),
                 .send = wk_tensor_data(x), .recv = wk_tensor_data(out)};
    return wk_comm_queue(c, &k);
}

wk_status wk_comm_reduce_scatter(wk_comm *c, const wk_tensor *x, wk_comm_op rop, wk_tensor *out)
{
    static const char op[] = "reduce_scatter";
    char b1[128], b2[128];
    WK_TRY(check_comm(op, c));
    WK_TRY(check_x_out(op, c, x, out));
    if (out->rank == 0 || !scaled_dim0(out, x, c->size))
        return wk_error(WK_ERR_SHAPE, "%s: x %s is not out %s with dim 0 times %d ranks", op,
                        wk_shape_str(b1, sizeof b1, x->rank, x->shape), wk_shape_str(b2, sizeof b2, out->rank, out->shape),
                        c->size);
    WK_TRY(check_op(op, rop, x->dtype));
    WK_TRY(check_disjoint(op, x, out, false));
    wk_coll k = {.kind = WK_COLL_REDUCE_SCATTER, .op = rop, .dtype = x->dtype,
                 .count = (size_t)wk_tensor_numel(out), .send = wk_tensor_data(x), .recv = wk_tensor_data(out)};
    return wk_comm_queue(c, &k);
}

wk_status wk_comm_broadcast(wk_comm *c, const wk_tensor *x, int root, wk_tensor *out)
{
    static const char op[] = "broadcast";
    WK_TRY(check_comm(op, c));
    WK_TRY(check_rank_arg(op, c, "root", root));
    WK_TRY(c->rank == root ? check_in_place(op, c, x, out) : check_buffer(op, c, "out", out, true));
    wk_coll k = {.kind = WK_COLL_BROADCAST, .dtype = out->dtype, .count = (size_t)wk_tensor_numel(out),
                 .send = c->rank == root ? wk_tensor_data(x) : NULL, .recv = wk_tensor_data(out), .peer = root};
    return wk_comm_queue(c, &k);
}

wk_status wk_comm_reduce(wk_comm *c, const wk_tensor *x, wk_comm_op rop, int root, wk_tensor *out)
{
    static const char op[] = "reduce";
    WK_TRY(check_comm(op, c));
    WK_TRY(check_rank_arg(op, c, "root", root));
    WK_TRY(c->rank == root ? check_in_place(op, c, x, out) : check_buffer(op, c, "x", x, false));
    WK_TRY(check_op(op, rop, x->dtype));
    wk_coll k = {.kind = WK_COLL_REDUCE, .op = rop, .dtype = x->dtype, .count = (size_t)wk_tensor_numel(x),
                 .send = wk_tensor_data(x), .recv = c->rank == root ? wk_tensor_data(out) : NULL, .peer = root};
    return wk_comm_queue(c, &k);
}

wk_status wk_comm_send(wk_comm *c, const wk_tensor *x, int peer)
{
    static const char op[] = "send";
    WK_TRY(check_comm(op, c));
    WK_TRY(check_rank_arg(op, c, "peer", peer));
    WK_TRY(check_buffer(op, c, "x", x, false));
    wk_coll k = {.kind = WK_COLL_SEND, .dtype = x->dtype, .count = (size_t)wk_tensor_numel(x),
                 .send = wk_tensor_data(x), .peer = peer};
    return wk_comm_queue(c, &k);
}

wk_status wk_comm_recv(wk_comm *c, wk_tensor *out, int peer)
{
    static const char op[] = "recv";
    WK_TRY(check_comm(op, c));
    WK_TRY(check_rank_arg(op, c, "peer", peer));
    WK_TRY(check_buffer(op, c, "out", out, true));
    wk_coll k = {.kind = WK_COLL_RECV, .dtype = out->dtype, .count = (size_t)wk_tensor_numel(out),
                 .recv = wk_tensor_data(out), .peer = peer};
    return wk_comm_queue(c, &k);
}
