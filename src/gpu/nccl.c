/* nccl.c: the GPU backends' communicators (backend.h's comm table) through NCCL on NVIDIA and RCCL on AMD, one
 * API under one set of names, loaded with dlopen on first use (never linked). A communicator with a timeout is
 * non-blocking (ncclConfig_t.blocking = 0): every call that may wait is polled against it, and a timeout or an
 * error aborts it with ncclCommAbort, so no wait is without end; one without is a blocking split of such a
 * communicator, for launch speed (start_and_settle). A collective is queued on the device's stream, in order
 * with wick's own work. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <time.h>

#include "core/clock.h"
#include "gpu/comm_peers.h"
#include "gpu/device.h"
#include "gpu/nccl_lib.h"

/* ---------------------------------------------------------------- one rank */
typedef struct gcomm {
    int lib;
    const nccl_fns *f;
    wk_device *dev;
    wk_ncclComm_t comm;
    int rank, size;
    double timeout_s;
    bool blocking;        /* comm is a blocking split of parent, the non-blocking communicator that joined */
    wk_ncclComm_t parent; /* (start_and_settle); NULL when comm is the one that joined */
    /* Held for reading by every call that uses comm, for writing by abort (which frees comm): a thread may
     * abort while another polls. */
    pthread_rwlock_t lock;
    bool aborted;
    atomic_bool broken;
    pthread_mutex_t why_lock;
    char why[400];
    wk_gpu_handle event; /* wait(): recorded after the queued work */
    wk_gpu_handle side;  /* the side stream (wk_coll.side) */
    bool side_in_group;  /* side work queued in this thread's open group: joined at its end */
    wk_peer *peer;       /* the ranks of this communicator in this process (comm_peers.h) */
} gcomm;

/* Between two polls: yield for the first millisecond (a launch completes in microseconds), then sleep. */
static void pause_briefly(double start)
{
    if (wk_now_s() - start < 1e-3) {
        sched_yield();
        return;
    }
    struct timespec t = {0, 50000};
    nanosleep(&t, NULL);
}

/* Marks c broken (the first reason stays) and returns WK_ERR_COMM naming op. */
static wk_status fail(gcomm *c, const char *op, const char *what)
{
    pthread_mutex_lock(&c->why_lock);
    if (!atomic_load(&c->broken)) {
        snprintf(c->why, sizeof c->why, "%s", what);
        atomic_store(&c->broken, true);
        wk_peer_fail(c->peer);
    }
    wk_status s = wk_error(WK_ERR_COMM, "%s on rank %d (%s): %s", op, c->rank, c->dev->name, c->why);
    pthread_mutex_unlock(&c->why_lock);
    return s;
}

static wk_status fail_nccl(gcomm *c, const char *op, wk_ncclResult_t r)
{
    char what[400];
    const char *last = c->f->last_error && !c->aborted && c->comm ? c->f->last_error(c->comm) : NULL;
    snprintf(what, sizeof what, "%s: %s%s%s", nccl_lib_name(c->lib), c->f->error_string(r), last && *last ? ": " : "",
             last ? last : "");
    return fail(c, op, what);
}

/* Frees c's library communicator through ncclCommAbort, stopping its queued and running work. */
static void abort_comm(gcomm *c)
{
    pthread_rwlock_wrlock(&c->lock);
    if (!c->aborted && c->comm)
        c->f->abort(c->comm);
    if (c->parent)
        c->f->abort(c->parent); /* it ran no collective: nothing to flush */
    c->parent = NULL;
    c->aborted = true;
    pthread_rwlock_unlock(&c->lock);
}

/* Polls a non-blocking call's result r until it is no longer in progress (c->lock held for reading). false
 * with *s set when it failed or the timeout expired (the caller then drops the lock and aborts). */
static bool settle(gcomm *c, wk_ncclResult_t r, const char *op, double start, wk_status *s)
{
    while (r == WK_NCCL_IN_PROGRESS) {
        if (c->timeout_s > 0 && wk_now_s() - start > c->timeout_s) {
            char what[96];
            snprintf(what, sizeof what, "timed out after %g s", c->timeout_s);
            *s = fail(c, op, what);
            return false;
        }
        pause_briefly(start);
        if (c->f->async_error(c->comm, &r) != WK_NCCL_SUCCESS)
            r = 2; /* ncclSystemError: the query itself failed */
    }
    if (r != WK_NCCL_SUCCESS) {
        *s = fail_nccl(c, op, r);
        return false;
    }
    *s = WK_OK;
    return true;
}

static wk_status broken_error(gcomm *c, const char *op)
{
    pthread_mutex_lock(&c->why_lock);
    wk_status s = wk_error(WK_ERR_COMM, "%s on rank %d (%s): the communicator is broken: %s", op, c->rank,
                           c->dev->name, c->why);
    pthread_mutex_unlock(&c->why_lock);
    return s;
}

static void gcomm_free(gcomm *c)
{
    if (!c)
        return;
    wk_peer_leave(c->peer);
    wk_gpu_dev *d = wk_gpu_enter(c->dev);
    if (c->event)
        d->rt->event_free(c->event);
    if (c->side)
        d->rt->stream_free(c->side);
    pthread_rwlock_destroy(&c->lock);
    pthread_mutex_destroy(&c->why_lock);
    free(c);
}

static gcomm *gcomm_new(int lib, wk_device *dev, int rank, int size, double timeout_s)
{
    gcomm *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    *c = (gcomm){.lib = lib, .f = nccl_fns_of(lib), .dev = dev, .rank = rank, .size = size, .timeout_s = timeout_s};
    pthread_rwlock_init(&c->lock, NULL);
    pthread_mutex_init(&c->why_lock, NULL);
    wk_gpu_dev *d = wk_gpu_enter(dev);
    if (d->rt->event_new(&c->event) != WK_OK)
        c->event = NULL;
    if (!c->event || d->rt->stream_new(&c->side) != WK_OK) {
        c->side = NULL;
        gcomm_free(c);
        return NULL;
    }
    return c;
}

/* ---------------------------------------------------------------- the comm table */
static wk_status gpu_comm_library(wk_device *dev, const char **name)
{
    int lib = nccl_lib_index(dev);
    WK_TRY(nccl_load("comm_library", lib));
    *name = nccl_lib_version(lib);
    return WK_OK;
}

static wk_status gpu_comm_id_new(wk_device *dev, wk_comm_id *out)
{
    int lib = nccl_lib_index(dev);
    WK_TRY(nccl_load("comm_id_new", lib));
    _Static_assert(sizeof(wk_ncclUniqueId) == WK_COMM_ID_BYTES, "an id is NCCL's unique id");
    wk_ncclUniqueId id;
    wk_ncclResult_t r = nccl_fns_of(lib)->get_unique_id(&id);
    if (r != WK_NCCL_SUCCESS)
        return wk_error(WK_ERR_COMM, "comm_id_new: %s: %s", nccl_lib_name(lib), nccl_fns_of(lib)->error_string(r));
    memcpy(out->bytes, id.internal, WK_COMM_ID_BYTES);
    return WK_OK;
}

/* The communicator's config: non-blocking (every wait polled against the timeout) or blocking. */
static wk_ncclConfig_t config(bool blocking)
{
    return (wk_ncclConfig_t){sizeof(wk_ncclConfig_t), WK_NCCL_CONFIG_MAGIC, WK_NCCL_CONFIG_VERSION, blocking,
                             WK_NCCL_CONFIG_UNDEF_INT, WK_NCCL_CONFIG_UNDEF_INT, WK_NCCL_CONFIG_UNDEF_INT, NULL};
}

typedef struct make_args {
    int size;
    wk_ncclUniqueId uid;
    wk_ncclConfig_t cfg;
    wk_ncclComm_t child[WK_GPU_MAX_DEVICES];
} make_args;

static wk_ncclResult_t init_one(gcomm *c, int i, make_args *a)
{
    (void)i;
    return c->f->init_rank_config(&c->comm, a->size, a->uid, c->rank, &a->cfg);
}

static wk_ncclResult_t split_one(gcomm *c, int i, make_args *a)
{
    return c->f->split(c->comm, 0, c->rank, &a->child[i], &a->cfg);
}

/* call(c[i]) for every rank inside one library group (one thread may make several ranks); false with the
 * failure in *s (naming c[i] where it has a communicator). */
static bool in_group(gcomm **c, int n, make_args *a, wk_ncclResult_t (*call)(gcomm *, int, make_args *),
                     wk_status *s)
{
    const nccl_fns *f = c[0]->f;
    wk_ncclResult_t r = f->group_start();
    for (int i = 0; i < n && r == WK_NCCL_SUCCESS; i++) {
        wk_gpu_enter(c[i]->dev);
        r = call(c[i], i, a);
        r = r == WK_NCCL_IN_PROGRESS ? WK_NCCL_SUCCESS : r;
    }
    wk_ncclResult_t end = f->group_end();
    if (r == WK_NCCL_SUCCESS && end != WK_NCCL_SUCCESS && end != WK_NCCL_IN_PROGRESS)
        r = end;
    *s = r == WK_NCCL_SUCCESS ? WK_OK
       : c[0]->comm       ? fail_nccl(c[0], "comm_init", r)
                          : wk_error(WK_ERR_COMM, "comm_init: %s: %s", nccl_lib_name(c[0]->lib), f->error_string(r));
    return r == WK_NCCL_SUCCESS;
}

/* Joins every rank through a non-blocking ncclCommInitRankConfig, polled against the timeout. Without a timeout
 * (timeout_s 0: waits without bound, by the caller's choice) and where the library can split, the ranks then move
 * to a blocking split of it: NCCL launches a non-blocking communicator's collectives through its own thread,
 * which cost 100-150 us a call on the H200 (bench/results/gpu-h200x2-2026-11-26-comm.md); a blocking one
 * launches from the caller. With a timeout the communicator stays non-blocking, so that every wait is bounded:
 * a blocking one's host calls can wait for a dead peer without end (measured: a rank whose peer exited after
 * init never returned). */
static wk_status start_and_settle(gcomm **c, int n, int size, const wk_comm_id *id)
{
    make_args a = {.size = size, .cfg = config(false)};
    memcpy(a.uid.internal, id->bytes, WK_COMM_ID_BYTES);
    double start = wk_now_s();
    wk_status s = WK_OK;
    if (!in_group(c, n, &a, init_one, &s))
        return s;
    for (int i = 0; i < n; i++)
        if (!settle(c[i], WK_NCCL_IN_PROGRESS, "comm_init", start, &s))
            return s;
    if (!c[0]->f->split || c[0]->timeout_s > 0)
        return WK_OK;
    a.cfg = config(true);
    if (!in_group(c, n, &a, split_one, &s))
        return s;
    /* The split runs on the parent's thread: poll the parent; the child appears when it is done. The parent stays
     * until wk_comm_destroy: another rank may still be splitting through it. */
    for (int i = 0; i < n; i++) {
        if (!settle(c[i], WK_NCCL_IN_PROGRESS, "comm_init (split)", start, &s))
            return s;
        if (!a.child[i])
            return fail(c[i], "comm_init (split)", "the library made no communicator");
        c[i]->parent = c[i]->comm;
        c[i]->comm = a.child[i];
        c[i]->blocking = true;
    }
    return WK_OK;
}

static wk_status gpu_comm_init(wk_device *const *devs, int n, int size, int first, const wk_comm_id *id,
                               double timeout_s, void **impl)
{
    int lib = nccl_lib_index(devs[0]);
    WK_TRY(nccl_load("comm_init", lib));
    gcomm **c = (gcomm **)impl;
    wk_status s = WK_OK;
    for (int i = 0; i < n && s == WK_OK; i++)
        if (!(c[i] = gcomm_new(lib, devs[i], first + i, size, timeout_s)))
            s = wk_error(WK_ERR_OUT_OF_MEMORY, "comm_init: out of host memory on %s", devs[i]->name);
    /* Before the library's init, which returns once every rank has called it: then every rank of this process is
     * in the peer group. */
    for (int i = 0; i < n && s == WK_OK; i++)
        s = wk_peer_join(id, size, first + i, (wk_gpu_dev *)devs[i]->impl, timeout_s, &c[i]->broken, &c[i]->peer);
    if (s == WK_OK)
        s = start_and_settle(c, n, size, id);
    if (s != WK_OK) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", wk_last_error());
        for (int i = 0; i < n; i++) {
            if (c[i])
                abort_comm(c[i]);
            gcomm_free(c[i]);
            c[i] = NULL;
        }
        return wk_error(s, "%s", msg);
    }
    return WK_OK;
}

static wk_ncclDataType_t nccl_dtype(wk_dtype dt)
{
    switch (dt) {
    case WK_U8: return WK_NCCL_UINT8;
    case WK_U32: return WK_NCCL_UINT32;
    case WK_I32: return WK_NCCL_INT32;
    case WK_I64: return WK_NCCL_INT64;
    case WK_F16: return WK_NCCL_FLOAT16;
    case WK_BF16: return WK_NCCL_BFLOAT16;
    case WK_F32: return WK_NCCL_FLOAT32;
    default: return WK_NCCL_FLOAT64;
    }
}

/* avg of one rank is its value: NCCL 2.28's avg of f64 on one rank left the last element of an odd count
 * unwritten (H200, test_comm_gpu), so one rank sums. */
static wk_ncclRedOp_t nccl_op(wk_comm_op op, int size)
{
    if (op == WK_COMM_AVG && size == 1)
        return WK_NCCL_SUM;
    static const wk_ncclRedOp_t ops[WK_COMM_OP_COUNT] = {WK_NCCL_SUM, WK_NCCL_PROD, WK_NCCL_MIN, WK_NCCL_MAX,
                                                         WK_NCCL_AVG};
    return ops[op];
}

static wk_ncclResult_t enqueue(gcomm *c, const wk_coll *k, wk_ncclStream_t st)
{
    const nccl_fns *f = c->f;
    wk_ncclDataType_t dt = nccl_dtype(k->dtype);
    switch (k->kind) {
    case WK_COLL_ALL_REDUCE: return f->all_reduce(k->send, k->recv, k->count, dt, nccl_op(k->op, c->size), c->comm, st);
    case WK_COLL_ALL_GATHER: return f->all_gather(k->send, k->recv, k->count, dt, c->comm, st);
    case WK_COLL_REDUCE_SCATTER:
        return f->reduce_scatter(k->send, k->recv, k->count, dt, nccl_op(k->op, c->size), c->comm, st);
    case WK_COLL_BROADCAST: return f->broadcast(k->send, k->recv, k->count, dt, k->peer, c->comm, st);
    case WK_COLL_REDUCE: return f->reduce(k->send, k->recv, k->count, dt, nccl_op(k->op, c->size), k->peer, c->comm, st);
    case WK_COLL_SEND: return f->send(k->send, k->count, dt, k->peer, c->comm, st);
    default: return f->recv(k->recv, k->count, dt, k->peer, c->comm, st);
    }
}

/* This thread's open group per library: the communicators it queued on, polled at its end. */
#define GROUP_MAX 1024
static _Thread_local struct {
    gcomm *list[GROUP_MAX];
    int n;
} open_group[2];

static wk_status remember_in_group(gcomm *c)
{
    for (int i = 0; i < open_group[c->lib].n; i++)
        if (open_group[c->lib].list[i] == c)
            return WK_OK;
    if (open_group[c->lib].n == GROUP_MAX)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "comm group: more than %d communicators in one group", GROUP_MAX);
    open_group[c->lib].list[open_group[c->lib].n++] = c;
    return WK_OK;
}

static wk_status gpu_comm_run(void *impl, const wk_coll *k, bool grouped)
{
    gcomm *c = impl;
    const char *op = wk_coll_name(k->kind);
    if (grouped)
        WK_TRY(remember_in_group(c));
    pthread_rwlock_rdlock(&c->lock);
    if (c->aborted || atomic_load(&c->broken)) {
        pthread_rwlock_unlock(&c->lock);
        return broken_error(c, op);
    }
    wk_gpu_dev *d = wk_gpu_enter(c->dev);
    double start = wk_now_s();
    wk_status s = k->side ? d->rt->stream_order(wk_gpu_stream(d), c->side) : WK_OK;
    if (s != WK_OK) {
        pthread_rwlock_unlock(&c->lock);
        return s;
    }
    wk_ncclResult_t r = enqueue(c, k, (wk_ncclStream_t)(k->side ? c->side : wk_gpu_stream(d)));
    c->side_in_group |= grouped && k->side;
    bool ok = grouped && r == WK_NCCL_SUCCESS ? true : settle(c, r, op, start, &s);
    pthread_rwlock_unlock(&c->lock);
    if (!ok)
        abort_comm(c);
    return s;
}

static wk_status group_begin(int lib)
{
    WK_TRY(nccl_load("comm_group_begin", lib));
    open_group[lib].n = 0;
    wk_ncclResult_t r = nccl_fns_of(lib)->group_start();
    if (r != WK_NCCL_SUCCESS)
        return wk_error(WK_ERR_COMM, "comm_group_begin: %s: %s", nccl_lib_name(lib), nccl_fns_of(lib)->error_string(r));
    return WK_OK;
}

static wk_status gpu_comm_join(void *impl);

/* Ends the library's group, then polls every communicator it queued on (each against its own timeout). Side
 * work queued in the group is launched only now, so the device's later work is ordered after it here (a join
 * made inside the group, before the launch, orders nothing). */
static wk_status group_end(int lib)
{
    double start = wk_now_s();
    wk_ncclResult_t r = nccl_fns_of(lib)->group_end();
    wk_status first = WK_OK;
    for (int i = 0; i < open_group[lib].n; i++) {
        gcomm *c = open_group[lib].list[i];
        wk_status s = WK_OK;
        pthread_rwlock_rdlock(&c->lock);
        bool ok = !c->aborted && settle(c, r == WK_NCCL_SUCCESS ? WK_NCCL_SUCCESS : WK_NCCL_IN_PROGRESS,
                                        "comm_group_end", start, &s);
        if (c->aborted)
            s = broken_error(c, "comm_group_end");
        pthread_rwlock_unlock(&c->lock);
        if (!ok)
            abort_comm(c);
        if (ok && c->side_in_group)
            s = gpu_comm_join(c);
        c->side_in_group = false;
        first = first == WK_OK ? s : first;
    }
    if (first == WK_OK && r != WK_NCCL_SUCCESS && r != WK_NCCL_IN_PROGRESS)
        first = wk_error(WK_ERR_COMM, "comm_group_end: %s: %s", nccl_lib_name(lib), nccl_fns_of(lib)->error_string(r));
    open_group[lib].n = 0;
    return first;
}
static wk_status nccl_group_begin(void) { return group_begin(LIB_NCCL); }
static wk_status nccl_group_end(void) { return group_end(LIB_NCCL); }
static wk_status rccl_group_begin(void) { return group_begin(LIB_RCCL); }
static wk_status rccl_group_end(void) { return group_end(LIB_RCCL); }

/* One poll of wait: whether the recorded event has passed; false with *s on a library error. */
static bool poll_done(gcomm *c, bool *done, wk_status *s)
{
    wk_gpu_dev *d = wk_gpu_enter(c->dev);
    if ((*s = d->rt->event_query(c->event, done)) != WK_OK)
        return false;
    wk_ncclResult_t r = WK_NCCL_SUCCESS;
    if (c->f->async_error(c->comm, &r) != WK_NCCL_SUCCESS)
        r = 2;
    if (r != WK_NCCL_SUCCESS && r != WK_NCCL_IN_PROGRESS) {
        *s = fail_nccl(c, "comm_wait", r);
        return false;
    }
    return true;
}

static wk_status gpu_comm_join(void *impl)
{
    gcomm *c = impl;
    wk_gpu_dev *d = wk_gpu_enter(c->dev);
    return d->rt->stream_order(c->side, wk_gpu_stream(d));
}

static wk_status gpu_comm_wait(void *impl)
{
    gcomm *c = impl;
    double start = wk_now_s();
    pthread_rwlock_rdlock(&c->lock);
    wk_status s = c->aborted || atomic_load(&c->broken) ? broken_error(c, "comm_wait") : WK_OK;
    if (s == WK_OK)
        s = gpu_comm_join(c);
    if (s == WK_OK) {
        wk_gpu_dev *d = wk_gpu_enter(c->dev);
        s = d->rt->event_record(c->event, wk_gpu_stream(d));
    }
    pthread_rwlock_unlock(&c->lock);
    bool done = false;
    while (s == WK_OK && !done) {
        pthread_rwlock_rdlock(&c->lock);
        bool ok = c->aborted ? (s = broken_error(c, "comm_wait"), false) : poll_done(c, &done, &s);
        if (ok && !done && c->timeout_s > 0 && wk_now_s() - start > c->timeout_s) {
            char what[96];
            snprintf(what, sizeof what, "timed out after %g s waiting for its collectives", c->timeout_s);
            s = fail(c, "comm_wait", what);
        }
        pthread_rwlock_unlock(&c->lock);
        if (s != WK_OK)
            abort_comm(c);
        else if (!done)
            pause_briefly(start);
    }
    return s;
}

static wk_status gpu_comm_gather_made(void *impl, void *buf, size_t block_bytes, int chunks,
                                      wk_status (*make)(void *ctx, int chunk, size_t *offset, size_t *bytes),
                                      void *ctx, bool *done)
{
    gcomm *c = impl;
    *done = false;
    if (atomic_load(&c->broken)) /* (set before an abort) */
        return broken_error(c, "tp gather");
    wk_status s = wk_peer_gather(c->peer, buf, block_bytes, chunks, make, ctx, done);
    if (s != WK_OK && *done) {
        /* The ranks stopped part way through an exchange: the communicator is broken, and its library
         * communicator aborted so that no rank waits on it for what will not come. */
        char what[400];
        snprintf(what, sizeof what, "%s", wk_last_error());
        fail(c, "tp gather", what);
        abort_comm(c);
        return wk_error(s, "%s", what);
    }
    return s;
}

static wk_status gpu_comm_abort(void *impl)
{
    gcomm *c = impl;
    fail(c, "comm_abort", "aborted by wk_comm_abort");
    abort_comm(c);
    return WK_OK;
}

/* Finalizes (flushes the rank's work, polled against the timeout) and destroys; aborts instead when broken. */
static wk_status gpu_comm_destroy(void *impl)
{
    gcomm *c = impl;
    wk_status s = atomic_load(&c->broken) ? WK_OK : gpu_comm_wait(c);
    if (s == WK_OK && !atomic_load(&c->broken)) {
        pthread_rwlock_rdlock(&c->lock);
        double start = wk_now_s();
        wk_gpu_enter(c->dev);
        bool ok = settle(c, c->f->finalize(c->comm), "comm_destroy", start, &s);
        if (ok)
            c->f->destroy(c->comm);
        c->aborted = ok; /* gone either way: destroyed here, or aborted below */
        pthread_rwlock_unlock(&c->lock);
    }
    abort_comm(c);
    gcomm_free(c);
    return s;
}

const wk_comm_backend wk_cuda_comm = {
    .one_rank_per_device = true,
    .library = gpu_comm_library, .id_new = gpu_comm_id_new, .init = gpu_comm_init, .run = gpu_comm_run,
    .group_begin = nccl_group_begin, .group_end = nccl_group_end, .wait = gpu_comm_wait,
    .abort = gpu_comm_abort, .destroy = gpu_comm_destroy, .join = gpu_comm_join,
    .gather_made = gpu_comm_gather_made,
};
const wk_comm_backend wk_rocm_comm = {
    .one_rank_per_device = true,
    .library = gpu_comm_library, .id_new = gpu_comm_id_new, .init = gpu_comm_init, .run = gpu_comm_run,
    .group_begin = rccl_group_begin, .group_end = rccl_group_end, .wait = gpu_comm_wait,
    .abort = gpu_comm_abort, .destroy = gpu_comm_destroy, .join = gpu_comm_join,
    .gather_made = gpu_comm_gather_made,
};
