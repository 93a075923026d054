/* comm_peers.c: the ranks of one GPU communicator that live in this process (comm_peers.h). A process-wide
 * registry, keyed by the communicator's id, groups them; a gather then copies each rank's block straight into the
 * others' buffers with the copy engines, chunk by chunk as the rank's product makes it, so the exchange takes no
 * multiprocessor from the product and overlaps it (NCCL's kernels wait for the SMs a GEMM holds:
 * bench/results/gpu-h200x4-2026-11-26-comm.md).
 *
 * A gather, on each rank's own thread: record `ready` after the caller's allocation of buf; queue the chunks,
 * recording `made[i]` after each; meeting 0 (every rank's buf and events known); on one stream per peer, wait for
 * the peer's `ready` and each `made[i]`, copy chunk i into the peer's buf, record `sent[peer]`; meeting 1 (every
 * rank's copies queued); the current stream waits for every `sent` into and out of this rank. An event is
 * recorded again only after every wait on its last mark was queued: a rank records `ready` (and `made`) of round
 * g + 1 after meeting 1 of round g, which the waiting rank reached after queueing its waits; `sent` of round g + 1
 * after meeting 0 of g + 1, which the waiting rank reached after its waits of round g.
 *
 * Failures: a rank that fails before meeting 0 (its product, a missing peer, a timeout) never arrives there, and
 * the ranks waiting there fail too (no copy was queued). Meeting 0 is all or nothing: a rank giving up withdraws
 * its arrival under the group's lock. Once past it, every rank reaches meeting 1 (a copy that fails to queue is
 * reported there), and the current stream waits for what was queued before the error is returned, so no buffer
 * is released while a copy may still write it. Meeting 1 waits only for host work already under way, so it has no
 * timeout. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "gpu/comm_peers.h"

#define PEER_MAX_CHUNKS WK_GATHER_CHUNKS_MAX

typedef struct peer_group peer_group;

struct wk_peer {
    peer_group *g;
    int rank, size;
    wk_gpu_dev *dev;
    double timeout_s;
    const atomic_bool *broken;
    bool failed;           /* (g->lock) broken, aborted, or failed in a gather: the others stop waiting */
    uint64_t round;        /* gathers begun */
    uint64_t reached[2];   /* (g->lock) the round of the last arrival at each meeting */
    uint64_t finished;     /* (g->lock) the last round whose waits on the others' events are queued */
    /* (g->lock) published at meeting 0: this round's buffer and its layout (every rank's must agree) */
    void *buf;
    size_t block_bytes;
    int chunks;
    /* Made on first use, on dev: a stream per peer, the events above. */
    wk_gpu_handle *to;     /* [size] copy streams (NULL at rank) */
    wk_gpu_handle *sent;   /* [size] recorded on to[q] after the copies to q */
    wk_gpu_handle ready;
    wk_gpu_handle made[PEER_MAX_CHUNKS];
};

struct peer_group {
    peer_group *next;
    wk_comm_id id;
    int size, joined;
    uint64_t passed1; /* the last round whose meeting 1 every rank reached */
    int access; /* 0: not tried; 1: every pair has a direct path, set up; -1: not (or it failed) */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    wk_peer *rank[]; /* [size]: NULL where the rank is not (or no longer) in this process */
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static peer_group *registry;

/* ---------------------------------------------------------------- joining and leaving */
static peer_group *group_new(const wk_comm_id *id, int size)
{
    peer_group *g = calloc(1, sizeof *g + (size_t)size * sizeof g->rank[0]);
    if (!g)
        return NULL;
    g->id = *id;
    g->size = size;
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&g->cond, &attr);
    pthread_condattr_destroy(&attr);
    pthread_mutex_init(&g->lock, NULL);
    return g;
}

wk_status wk_peer_join(const wk_comm_id *id, int size, int rank, wk_gpu_dev *d, double timeout_s,
                       const atomic_bool *broken, wk_peer **out)
{
    wk_peer *p = calloc(1, sizeof *p);
    wk_gpu_handle *handles = calloc((size_t)size * 2, sizeof *handles);
    if (!p || !handles) {
        free(p);
        free(handles);
        return wk_error(WK_ERR_OUT_OF_MEMORY, "comm_init: out of host memory");
    }
    *p = (wk_peer){.rank = rank, .size = size, .dev = d, .timeout_s = timeout_s, .broken = broken, .to = handles,
                   .sent = handles + size};
    pthread_mutex_lock(&registry_lock);
    peer_group *g = registry;
    while (g && (memcmp(&g->id, id, sizeof *id) != 0 || g->size != size))
        g = g->next;
    if (!g && (g = group_new(id, size)) != NULL) {
        g->next = registry;
        registry = g;
    }
    bool taken = g && g->rank[rank];
    if (g && !taken) {
        pthread_mutex_lock(&g->lock);
        g->rank[rank] = p;
        g->joined++;
        pthread_mutex_unlock(&g->lock);
        p->g = g;
    }
    pthread_mutex_unlock(&registry_lock);
    if (!g || taken) {
        free(handles);
        free(p);
        return !g ? wk_error(WK_ERR_OUT_OF_MEMORY, "comm_init: out of host memory")
                  : wk_error(WK_ERR_INVALID_ARGUMENT, "comm_init: rank %d of this id has already joined", rank);
    }
    *out = p;
    return WK_OK;
}

static void fail_locked(wk_peer *p)
{
    p->failed = true;
    pthread_cond_broadcast(&p->g->cond);
}

void wk_peer_fail(wk_peer *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->g->lock);
    fail_locked(p);
    pthread_mutex_unlock(&p->g->lock);
}

/* The rank's streams and events (made by ensure_handles); queued waits on the events keep their marks. */
static void free_handles(wk_peer *p)
{
    const wk_gpu_runtime *rt = wk_gpu_enter(&p->dev->base)->rt;
    for (int q = 0; q < p->size; q++) {
        if (p->to[q])
            rt->stream_free(p->to[q]);
        if (p->sent[q])
            rt->event_free(p->sent[q]);
    }
    for (int i = 0; i < PEER_MAX_CHUNKS; i++)
        if (p->made[i])
            rt->event_free(p->made[i]);
    if (p->ready)
        rt->event_free(p->ready);
    free(p->to);
}

void wk_peer_leave(wk_peer *p)
{
    if (!p)
        return;
    peer_group *g = p->g;
    /* The others may still queue waits on this rank's events for its last gather (they passed meeting 1 and have
     * not yet queued them): its events stay until they have, host work already under way. */
    pthread_mutex_lock(&g->lock);
    for (bool waiting = true; waiting;) {
        waiting = false;
        for (int q = 0; q < g->size && !waiting; q++) {
            const wk_peer *o = g->rank[q];
            waiting = o && o != p && p->round > 0 && g->passed1 >= p->round && o->finished < p->round;
        }
        if (waiting)
            pthread_cond_wait(&g->cond, &g->lock);
    }
    pthread_mutex_unlock(&g->lock);
    pthread_mutex_lock(&registry_lock);
    pthread_mutex_lock(&g->lock);
    g->rank[p->rank] = NULL;
    bool last = --g->joined == 0;
    pthread_cond_broadcast(&g->cond);
    pthread_mutex_unlock(&g->lock);
    if (last) {
        peer_group **at = &registry;
        while (*at != g)
            at = &(*at)->next;
        *at = g->next;
    }
    pthread_mutex_unlock(&registry_lock);
    if (last) {
        pthread_cond_destroy(&g->cond);
        pthread_mutex_destroy(&g->lock);
        free(g);
    }
    free_handles(p);
    free(p);
}

/* ---------------------------------------------------------------- direct paths */
/* Whether every rank of g is in this process and every ordered pair has a direct path (set up by the first to ask:
 * the same answer for every rank). */
static bool all_direct(peer_group *g)
{
    pthread_mutex_lock(&g->lock);
    if (g->joined == g->size && g->access == 0) {
        g->access = 1;
        for (int a = 0; a < g->size && g->access == 1; a++) {
            const wk_gpu_dev *da = g->rank[a]->dev;
            for (int b = 0; b < g->size && g->access == 1; b++) {
                bool ok = false;
                if (a != b && (!da->rt->peer_access || !da->rt->copy_peer ||
                               da->rt->peer_access(da->ordinal, g->rank[b]->dev->ordinal, &ok) != WK_OK || !ok))
                    g->access = -1;
            }
        }
    }
    bool direct = g->joined == g->size && g->access == 1;
    pthread_mutex_unlock(&g->lock);
    return direct;
}

/* The rank's copy streams and events, made on first use on its device (current). */
static wk_status ensure_handles(wk_peer *p, const wk_gpu_runtime *rt)
{
    if (p->ready)
        return WK_OK;
    for (int q = 0; q < p->size; q++)
        if (q != p->rank) {
            if (!p->to[q])
                WK_TRY(rt->stream_create(&p->to[q]));
            if (!p->sent[q])
                WK_TRY(rt->event_create(&p->sent[q], false));
        }
    for (int i = 0; i < PEER_MAX_CHUNKS; i++)
        if (!p->made[i])
            WK_TRY(rt->event_create(&p->made[i], false));
    return rt->event_create(&p->ready, false);
}

/* ---------------------------------------------------------------- meetings */
/* What a rank learns of the others at meeting 0, every rank there (g->lock held): their buffers, contexts and
 * events (the handles stay; their marks are the ones this round records). */
typedef struct peer_view {
    char *buf[WK_GPU_MAX_DEVICES];
    wk_gpu_handle ctx[WK_GPU_MAX_DEVICES], ready[WK_GPU_MAX_DEVICES], sent_here[WK_GPU_MAX_DEVICES];
    int differs; /* a rank whose block size or chunk count is not this rank's, or -1 */
} peer_view;

static void take_view(const wk_peer *p, peer_view *v)
{
    v->differs = -1;
    for (int q = 0; q < p->size; q++) {
        const wk_peer *o = p->g->rank[q];
        v->buf[q] = o->buf;
        v->ctx[q] = o->dev->ctx;
        v->ready[q] = o->ready;
        v->sent_here[q] = o->sent[p->rank];
        if (o->block_bytes != p->block_bytes || o->chunks != p->chunks)
            v->differs = q;
    }
}

/* Meeting 0: every rank has queued its chunks and published buf. All or nothing: a rank that gives up (a rank
 * missing or failed, its own communicator broken, the timeout) withdraws its arrival and fails, so no rank passes
 * this meeting unless every rank does. */
static wk_status meet_buffers(wk_peer *p, void *buf, size_t block_bytes, int chunks, peer_view *v)
{
    peer_group *g = p->g;
    /* (a timeout is finite; past 10^9 s it is as good as none) */
    struct timespec deadline = wk_deadline_after(p->timeout_s < 1e9 ? p->timeout_s : 1e9);
    char why[160] = "";
    pthread_mutex_lock(&g->lock);
    p->buf = buf;
    p->block_bytes = block_bytes;
    p->chunks = chunks;
    p->reached[0] = p->round;
    pthread_cond_broadcast(&g->cond);
    for (bool expired = false;;) {
        int missing = -1, gone = -1; /* the first rank not here yet; the first that never will be */
        for (int q = 0; q < g->size; q++)
            if (!g->rank[q] || g->rank[q]->reached[0] < p->round) {
                missing = missing < 0 ? q : missing;
                if (gone < 0 && (!g->rank[q] || g->rank[q]->failed))
                    gone = q;
            }
        if (missing < 0) {
            take_view(p, v);
            if (v->differs >= 0) { /* every rank sees it: all fail here, none copies */
                snprintf(why, sizeof why, "rank %d's block (%zu bytes, %d chunks) differs from this rank's (%zu, %d)",
                         v->differs, g->rank[v->differs]->block_bytes, g->rank[v->differs]->chunks, block_bytes,
                         chunks);
                fail_locked(p);
            }
            break;
        }
        if (gone >= 0)
            snprintf(why, sizeof why, "rank %d %s", gone, g->rank[gone] ? "failed" : "left the communicator");
        else if (p->failed || atomic_load(p->broken))
            snprintf(why, sizeof why, "the communicator is broken");
        else if (expired)
            snprintf(why, sizeof why, "timed out after %g s waiting for rank %d", p->timeout_s, missing);
        if (*why) {
            p->reached[0] = p->round - 1;
            fail_locked(p);
            break;
        }
        if (p->timeout_s > 0)
            expired = pthread_cond_timedwait(&g->cond, &g->lock, &deadline) == ETIMEDOUT;
        else
            pthread_cond_wait(&g->cond, &g->lock);
    }
    pthread_mutex_unlock(&g->lock);
    return *why ? wk_error(WK_ERR_COMM, "tp gather on rank %d (%s): %s", p->rank, p->dev->base.name, why) : WK_OK;
}

/* Meeting 1: every rank has queued its copies (each passed meeting 0, so each comes; no timeout). The last to
 * arrive marks the round passed, so a rank that then leaves at once strands nobody. True when some rank failed. */
static bool meet_copies(wk_peer *p)
{
    peer_group *g = p->g;
    pthread_mutex_lock(&g->lock);
    p->reached[1] = p->round;
    bool all = true;
    for (int q = 0; q < g->size && all; q++)
        all = g->rank[q] && g->rank[q]->reached[1] >= p->round;
    if (all) {
        g->passed1 = p->round;
        pthread_cond_broadcast(&g->cond);
    }
    while (g->passed1 < p->round)
        pthread_cond_wait(&g->cond, &g->lock);
    bool failed = false;
    for (int q = 0; q < g->size; q++)
        failed |= g->rank[q] && g->rank[q]->failed;
    pthread_mutex_unlock(&g->lock);
    return failed;
}

/* This rank has queued its waits on the others' events of this round (wk_peer_leave waits for it). */
static void finish(wk_peer *p)
{
    pthread_mutex_lock(&p->g->lock);
    p->finished = p->round;
    pthread_cond_broadcast(&p->g->cond);
    pthread_mutex_unlock(&p->g->lock);
}

/* ---------------------------------------------------------------- the gather */
/* This rank's chunks to rank q's buf on the stream for q; sent[q] recorded after whatever was queued. */
static wk_status send_to(wk_peer *p, const wk_gpu_runtime *rt, const peer_view *v, int q, char *mine, size_t at,
                         int chunks, const size_t *off, const size_t *len)
{
    wk_gpu_handle st = p->to[q];
    wk_status s = rt->stream_wait_event(st, v->ready[q]);
    for (int i = 0; i < chunks && s == WK_OK; i++) {
        if (len[i] == 0)
            continue;
        s = rt->stream_wait_event(st, p->made[i]);
        if (s == WK_OK)
            s = rt->copy_peer(st, v->buf[q] + at + off[i], v->ctx[q], mine + off[i], p->dev->ctx, len[i]);
    }
    wk_status r = rt->event_record(p->sent[q], st);
    if (s != WK_OK || r != WK_OK)
        rt->stream_sync(st); /* what was queued is done before q may release its buffer */
    return s != WK_OK ? s : r;
}

wk_status wk_peer_gather(wk_peer *p, void *buf, size_t block_bytes, int chunks,
                         wk_status (*make)(void *ctx, int chunk, size_t *offset, size_t *bytes), void *ctx,
                         bool *done)
{
    *done = false;
    if (!p || p->size < 2 || chunks < 1 || chunks > PEER_MAX_CHUNKS || !all_direct(p->g))
        return WK_OK;
    wk_gpu_dev *d = wk_gpu_enter(&p->dev->base);
    if (wk_gpu_capturing(d))
        return WK_OK;
    /* Committed: from here every failure is the gather's, and the others learn of it. */
    *done = true;
    const wk_gpu_runtime *rt = d->rt;
    size_t off[PEER_MAX_CHUNKS], len[PEER_MAX_CHUNKS];
    wk_gpu_handle cur = wk_gpu_stream(d);
    p->round++;
    wk_status s = ensure_handles(p, rt);
    if (s == WK_OK)
        s = rt->event_record(p->ready, cur);
    for (int i = 0; i < chunks && s == WK_OK; i++) {
        s = make(ctx, i, &off[i], &len[i]);
        if (s == WK_OK)
            s = rt->event_record(p->made[i], cur);
    }
    if (s != WK_OK) {
        wk_peer_fail(p); /* the others stop waiting at meeting 0; nothing was sent */
        return s;
    }
    peer_view view = {0}, *v = &view;
    WK_TRY(meet_buffers(p, buf, block_bytes, chunks, v));
    char *mine = (char *)buf + (size_t)p->rank * block_bytes;
    char msg[400] = "";
    for (int q = 0; q < p->size; q++) {
        if (q == p->rank)
            continue;
        wk_status e = send_to(p, rt, v, q, mine, (size_t)p->rank * block_bytes, chunks, off, len);
        if (e != WK_OK && s == WK_OK) {
            s = e;
            snprintf(msg, sizeof msg, "%s", wk_last_error());
            wk_peer_fail(p);
        }
    }
    bool failed = meet_copies(p);
    for (int q = 0; q < p->size; q++) {
        if (q == p->rank)
            continue;
        /* The copies into this rank's buffer and out of it; where the device cannot be told to wait, the host
         * does. */
        wk_status e = rt->stream_wait_event(cur, v->sent_here[q]);
        if (e != WK_OK)
            rt->event_wait(v->sent_here[q]);
        wk_status e2 = rt->stream_wait_event(cur, p->sent[q]);
        if (e2 != WK_OK)
            rt->event_wait(p->sent[q]);
        e = e != WK_OK ? e : e2;
        if (e != WK_OK && s == WK_OK) {
            s = e;
            snprintf(msg, sizeof msg, "%s", wk_last_error());
        }
    }
    finish(p);
    if (s != WK_OK)
        return wk_error(WK_ERR_COMM, "tp gather on rank %d (%s): %s", p->rank, d->base.name, msg);
    if (failed)
        return wk_error(WK_ERR_COMM, "tp gather on rank %d (%s): a rank failed or was aborted during the gather",
                        p->rank, d->base.name);
    return WK_OK;
}
