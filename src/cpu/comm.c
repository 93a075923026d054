/* comm.c: the CPU backend's communicators (backend.h's comm table): the ranks are threads of this process that
 * joined with one id. A collective is a slot that every rank posts its buffers to; the last to arrive runs it
 * (comm_reduce.c) for all of them, then each rank's count of finished collectives moves on. Ranks that called
 * different collectives break the communicator; so do a timeout, an abort and a rank leaving. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "core/clock.h"
#include "core/error.h"
#include "cpu/cpu.h"

#define SLOTS 64    /* collectives in flight per communicator: a rank may run this far ahead of the slowest */
#define PAIR_SLOTS 8 /* sends in flight from one rank to another */
static const char id_magic[16] = "wick-cpu-comm-1";

/* One collective (or one send/recv pair) being assembled: parts = the ranks (or 2: sender, receiver). */
typedef struct slot {
    uint64_t tag; /* the sequence number this slot serves now (advances by its ring's length) */
    int arrived;
    int first;    /* the rank that arrived first */
    wk_coll desc; /* as it posted it */
    const void **send;
    void **recv;
} slot;

typedef struct rank_state {
    bool present;
    uint64_t posted, done;
    int running; /* its collectives being run now, whose buffers must outlive them */
    bool failed; /* a collective of its failed: group.why says why */
} rank_state;

typedef struct group {
    struct group *next;
    wk_comm_id id;
    int size, joined, refs;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool broken;
    char why[400];
    rank_state *ranks;
    slot coll[SLOTS];
    slot **pairs; /* [from * size + to]: PAIR_SLOTS slots each, made on first use */
} group;

typedef struct cpu_comm {
    group *g;
    int rank;
    double timeout_s;
    uint64_t coll_seq;
    uint64_t *send_seq, *recv_seq; /* per peer */
} cpu_comm;

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static group *registry;

/* ---------------------------------------------------------------- waiting */
/* One wait on g->cond (g->lock held); false once the deadline has passed (timeout_s > 0). */
static bool wait_until(group *g, double timeout_s, const struct timespec *deadline)
{
    if (timeout_s <= 0) {
        pthread_cond_wait(&g->cond, &g->lock);
        return true;
    }
    return pthread_cond_timedwait(&g->cond, &g->lock, deadline) != ETIMEDOUT;
}

static void break_locked(group *g, const char *why)
{
    if (!g->broken) {
        g->broken = true;
        snprintf(g->why, sizeof g->why, "%s", why);
    }
    pthread_cond_broadcast(&g->cond);
}

static wk_status broken_error(const group *g, const char *op)
{
    return wk_error(WK_ERR_COMM, "%s: the communicator is broken: %s", op, g->why);
}

static wk_status timed_out(group *g, const cpu_comm *c, const char *op)
{
    char why[160];
    snprintf(why, sizeof why, "rank %d timed out after %g s in %s", c->rank, c->timeout_s, op);
    break_locked(g, why);
    return broken_error(g, op);
}

/* Until every collective this rank posted is done (g->lock held). Past the deadline it still waits for its
 * collectives that are running (their buffers are in use), then breaks the communicator. */
static wk_status wait_done_locked(cpu_comm *c, const char *op)
{
    group *g = c->g;
    rank_state *r = &g->ranks[c->rank];
    struct timespec deadline = wk_deadline_after(c->timeout_s);
    bool expired = false;
    for (;;) {
        if (r->failed)
            return wk_error(WK_ERR_COMM, "%s: %s", op, g->why);
        if (r->done == r->posted)
            return WK_OK;
        if ((g->broken || expired) && r->running == 0)
            return g->broken ? broken_error(g, op) : timed_out(g, c, op);
        if (expired)
            pthread_cond_wait(&g->cond, &g->lock);
        else
            expired = !wait_until(g, c->timeout_s, &deadline);
    }
}

/* ---------------------------------------------------------------- posting and running */
static bool reduces(wk_coll_kind k)
{
    return k == WK_COLL_ALL_REDUCE || k == WK_COLL_REDUCE_SCATTER || k == WK_COLL_REDUCE;
}

/* Whether two ranks' posts are parts of one collective (pair: a send and the matching recv). */
static bool same_call(const wk_coll *a, const wk_coll *b, bool pair)
{
    if (a->dtype != b->dtype || a->count != b->count)
        return false;
    if (pair)
        return true;
    bool rooted = a->kind == WK_COLL_BROADCAST || a->kind == WK_COLL_REDUCE;
    return a->kind == b->kind && (!reduces(a->kind) || a->op == b->op) && (!rooted || a->peer == b->peer);
}

static void describe(char *buf, size_t cap, int rank, const wk_coll *k)
{
    snprintf(buf, cap, "rank %d called %s of %zu %s", rank, wk_coll_name(k->kind), k->count,
             wk_dtype_name(k->dtype));
    if (reduces(k->kind))
        snprintf(buf + strlen(buf), cap - strlen(buf), " (%s)", wk_comm_op_name(k->op));
    if (k->kind == WK_COLL_BROADCAST || k->kind == WK_COLL_REDUCE)
        snprintf(buf + strlen(buf), cap - strlen(buf), " at root %d", k->peer);
}

/* What a slot needs to know of its collective: its ring, and the ranks taking part (all, or a pair). */
typedef struct part {
    int ring;
    int nparts;
    const int *ranks; /* NULL: ranks 0 .. nparts - 1 */
} part;

static int part_rank(const part *p, int i) { return p->ranks ? p->ranks[i] : i; }

/* All parts are in: run the collective with the lock dropped, then count it done for every part. */
static void run_slot_locked(group *g, slot *s, const part *p)
{
    for (int i = 0; i < p->nparts; i++)
        g->ranks[part_rank(p, i)].running++;
    wk_coll desc = s->desc;
    pthread_mutex_unlock(&g->lock);
    wk_cpu_coll_execute(&desc, p->nparts, s->send, s->recv);
    pthread_mutex_lock(&g->lock);
    for (int i = 0; i < p->nparts; i++) {
        g->ranks[part_rank(p, i)].running--;
        g->ranks[part_rank(p, i)].done++;
    }
    s->tag += (uint64_t)p->ring;
    s->arrived = 0;
    pthread_cond_broadcast(&g->cond);
}

/* Posts this rank's part `me` of collective number seq into s (g->lock held). */
static wk_status post_locked(cpu_comm *c, slot *s, uint64_t seq, const wk_coll *k, int me, const part *p)
{
    group *g = c->g;
    const char *op = wk_coll_name(k->kind);
    struct timespec deadline = wk_deadline_after(c->timeout_s);
    while (s->tag != seq && !g->broken)
        if (!wait_until(g, c->timeout_s, &deadline))
            return timed_out(g, c, op);
    if (g->broken)
        return broken_error(g, op);
    if (s->arrived == 0) {
        s->desc = *k;
        s->first = c->rank;
    }
    s->send[me] = k->send;
    s->recv[me] = k->recv;
    g->ranks[c->rank].posted++;
    if (!same_call(&s->desc, k, p->ranks != NULL)) {
        char a[160], b[160], why[360];
        describe(a, sizeof a, s->first, &s->desc);
        describe(b, sizeof b, c->rank, k);
        snprintf(why, sizeof why, "ranks called different collectives: %s, %s", a, b);
        for (int i = 0; i < p->nparts; i++)
            g->ranks[part_rank(p, i)].failed = true;
        break_locked(g, why);
        return wk_error(WK_ERR_COMM, "%s: %s", op, g->why);
    }
    if (++s->arrived == p->nparts)
        run_slot_locked(g, s, p);
    return WK_OK;
}

/* The ring of sends from rank `from` to rank `to`, made on first use (g->lock held). */
static slot *pair_ring_locked(group *g, int from, int to)
{
    slot **ring = &g->pairs[(size_t)from * (size_t)g->size + (size_t)to];
    if (*ring)
        return *ring;
    slot *s = calloc(PAIR_SLOTS, sizeof *s);
    void **ptrs = calloc(PAIR_SLOTS * 4, sizeof *ptrs);
    if (!s || !ptrs) {
        free(s);
        free(ptrs);
        return NULL;
    }
    for (int i = 0; i < PAIR_SLOTS; i++) {
        s[i].tag = (uint64_t)i;
        s[i].send = (const void **)(ptrs + 4 * i);
        s[i].recv = ptrs + 4 * i + 2;
    }
    return *ring = s;
}

/* The thread's open group: the communicators it posted to, waited for at its end. */
static _Thread_local struct {
    cpu_comm **list;
    int n, cap;
} open_group;

static wk_status remember_in_group(cpu_comm *c)
{
    for (int i = 0; i < open_group.n; i++)
        if (open_group.list[i] == c)
            return WK_OK;
    if (open_group.n == open_group.cap) {
        int cap = open_group.cap ? 2 * open_group.cap : 8;
        cpu_comm **l = realloc(open_group.list, (size_t)cap * sizeof *l);
        if (!l)
            return wk_error(WK_ERR_OUT_OF_MEMORY, "comm group: out of host memory");
        open_group.list = l;
        open_group.cap = cap;
    }
    open_group.list[open_group.n++] = c;
    return WK_OK;
}

static wk_status cpu_comm_run(void *impl, const wk_coll *k, bool grouped)
{
    cpu_comm *c = impl;
    group *g = c->g;
    if (grouped)
        WK_TRY(remember_in_group(c));
    pthread_mutex_lock(&g->lock);
    wk_status s;
    if (k->kind == WK_COLL_SEND || k->kind == WK_COLL_RECV) {
        bool sending = k->kind == WK_COLL_SEND;
        int pair[2] = {sending ? c->rank : k->peer, sending ? k->peer : c->rank};
        uint64_t *seq = sending ? &c->send_seq[k->peer] : &c->recv_seq[k->peer];
        slot *ring = pair_ring_locked(g, pair[0], pair[1]);
        part p = {.ring = PAIR_SLOTS, .nparts = 2, .ranks = pair};
        s = ring ? post_locked(c, &ring[*seq % PAIR_SLOTS], *seq, k, sending ? 0 : 1, &p)
                 : wk_error(WK_ERR_OUT_OF_MEMORY, "%s: out of host memory", wk_coll_name(k->kind));
        *seq += s == WK_OK;
    } else {
        part p = {.ring = SLOTS, .nparts = g->size};
        s = post_locked(c, &g->coll[c->coll_seq % SLOTS], c->coll_seq, k, c->rank, &p);
        c->coll_seq += s == WK_OK;
    }
    if (s == WK_OK && !grouped)
        s = wait_done_locked(c, wk_coll_name(k->kind));
    pthread_mutex_unlock(&g->lock);
    return s;
}

static wk_status cpu_comm_group_begin(void)
{
    open_group.n = 0;
    return WK_OK;
}

static wk_status cpu_comm_group_end(void)
{
    wk_status first = WK_OK;
    for (int i = 0; i < open_group.n; i++) {
        cpu_comm *c = open_group.list[i];
        pthread_mutex_lock(&c->g->lock);
        wk_status s = wait_done_locked(c, "comm_group_end");
        pthread_mutex_unlock(&c->g->lock);
        first = first == WK_OK ? s : first;
    }
    free(open_group.list);
    open_group.list = NULL;
    open_group.n = open_group.cap = 0;
    return first;
}

/* ---------------------------------------------------------------- joining and leaving */
static void group_free(group *g)
{
    for (int i = 0; g->pairs && i < g->size * g->size; i++)
        if (g->pairs[i]) {
            free((void *)g->pairs[i][0].send);
            free(g->pairs[i]);
        }
    free(g->pairs);
    free((void *)g->coll[0].send);
    free(g->ranks);
    pthread_mutex_destroy(&g->lock);
    pthread_cond_destroy(&g->cond);
    free(g);
}

static group *group_new(const wk_comm_id *id, int size)
{
    group *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->id = *id;
    g->size = size;
    g->ranks = calloc((size_t)size, sizeof *g->ranks);
    g->pairs = calloc((size_t)size * (size_t)size, sizeof *g->pairs);
    void **ptrs = calloc((size_t)SLOTS * 2 * (size_t)size, sizeof *ptrs);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_mutex_init(&g->lock, NULL);
    pthread_cond_init(&g->cond, &attr);
    pthread_condattr_destroy(&attr);
    for (int i = 0; ptrs && i < SLOTS; i++) {
        g->coll[i].tag = (uint64_t)i;
        g->coll[i].send = (const void **)(ptrs + (size_t)(2 * i) * (size_t)size);
        g->coll[i].recv = ptrs + (size_t)(2 * i + 1) * (size_t)size;
    }
    if (!g->ranks || !g->pairs || !ptrs) {
        free(ptrs);
        g->coll[0].send = NULL;
        group_free(g);
        return NULL;
    }
    return g;
}

/* Rank `rank` joins the communicator of id (made when it is the first), registry_lock held. */
static wk_status join_locked(const wk_comm_id *id, int size, int rank, group **out)
{
    group *g = registry;
    while (g && memcmp(&g->id, id, sizeof *id) != 0)
        g = g->next;
    if (!g) {
        if (!(g = group_new(id, size)))
            return wk_error(WK_ERR_OUT_OF_MEMORY, "comm_init: out of host memory");
        g->next = registry;
        registry = g;
    }
    if (g->size != size)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "comm_init: this id's communicator has %d ranks, not %d", g->size,
                        size);
    pthread_mutex_lock(&g->lock);
    bool taken = g->ranks[rank].present;
    if (!taken) {
        g->ranks[rank] = (rank_state){.present = true};
        g->joined++;
        g->refs++;
        pthread_cond_broadcast(&g->cond);
    }
    pthread_mutex_unlock(&g->lock);
    if (taken)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "comm_init: rank %d of this id has already joined", rank);
    *out = g;
    return WK_OK;
}

/* Rank leaves g; the others' later collectives fail at once instead of waiting for it. The last frees g. */
static void leave(group *g, int rank)
{
    pthread_mutex_lock(&registry_lock);
    pthread_mutex_lock(&g->lock);
    g->ranks[rank].present = false;
    g->joined--;
    bool last = --g->refs == 0;
    if (!last) {
        char why[64];
        snprintf(why, sizeof why, "rank %d left the communicator", rank);
        break_locked(g, why);
    }
    pthread_mutex_unlock(&g->lock);
    if (last) {
        group **p = &registry;
        while (*p != g)
            p = &(*p)->next;
        *p = g->next;
        group_free(g);
    }
    pthread_mutex_unlock(&registry_lock);
}

static void comm_free(cpu_comm *c)
{
    if (c) {
        free(c->send_seq);
        free(c->recv_seq);
        free(c);
    }
}

static wk_status wait_all_joined(group *g, int size, double timeout_s)
{
    struct timespec deadline = wk_deadline_after(timeout_s);
    pthread_mutex_lock(&g->lock);
    bool in_time = true;
    while (g->joined < size && !g->broken && in_time)
        in_time = wait_until(g, timeout_s, &deadline);
    int joined = g->joined;
    wk_status s = g->broken ? broken_error(g, "comm_init")
                : joined < size ? wk_error(WK_ERR_COMM, "comm_init: %d of %d ranks joined within %g s", joined,
                                           size, timeout_s)
                                : WK_OK;
    pthread_mutex_unlock(&g->lock);
    return s;
}

static wk_status cpu_comm_init(wk_device *const *devs, int n, int size, int first, const wk_comm_id *id,
                               double timeout_s, void **impl)
{
    (void)devs;
    if (memcmp(id->bytes, id_magic, sizeof id_magic) != 0)
        return wk_error(WK_ERR_INVALID_ARGUMENT,
                        "comm_init: the id was not made by wk_comm_id_new on the cpu device of this process");
    bool ok = true;
    for (int i = 0; i < n; i++) {
        cpu_comm *c = impl[i] = calloc(1, sizeof *c);
        ok = ok && c && (c->send_seq = calloc((size_t)size, sizeof *c->send_seq)) &&
             (c->recv_seq = calloc((size_t)size, sizeof *c->recv_seq));
    }
    wk_status s = ok ? WK_OK : wk_error(WK_ERR_OUT_OF_MEMORY, "comm_init: out of host memory");
    int joined = 0;
    pthread_mutex_lock(&registry_lock);
    for (; s == WK_OK && joined < n; joined++) {
        cpu_comm *c = impl[joined];
        *c = (cpu_comm){c->g, first + joined, timeout_s, 0, c->send_seq, c->recv_seq};
        s = join_locked(id, size, first + joined, &c->g);
    }
    pthread_mutex_unlock(&registry_lock);
    if (s == WK_OK)
        s = wait_all_joined(((cpu_comm *)impl[0])->g, size, timeout_s);
    if (s != WK_OK) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", wk_last_error());
        for (int i = 0; i < n; i++) {
            cpu_comm *c = impl[i];
            if (c && c->g)
                leave(c->g, c->rank);
            comm_free(c);
            impl[i] = NULL;
        }
        return wk_error(s, "%s", msg);
    }
    return WK_OK;
}

static wk_status cpu_comm_destroy(void *impl)
{
    cpu_comm *c = impl;
    group *g = c->g;
    pthread_mutex_lock(&g->lock);
    wk_status s = g->broken ? WK_OK : wait_done_locked(c, "comm_destroy");
    while (g->ranks[c->rank].running > 0)
        pthread_cond_wait(&g->cond, &g->lock);
    pthread_mutex_unlock(&g->lock);
    leave(g, c->rank);
    comm_free(c);
    return s;
}

static wk_status cpu_comm_abort(void *impl)
{
    cpu_comm *c = impl;
    char why[64];
    snprintf(why, sizeof why, "aborted by wk_comm_abort on rank %d", c->rank);
    pthread_mutex_lock(&c->g->lock);
    break_locked(c->g, why);
    pthread_mutex_unlock(&c->g->lock);
    return WK_OK;
}

static wk_status cpu_comm_wait(void *impl)
{
    cpu_comm *c = impl;
    pthread_mutex_lock(&c->g->lock);
    wk_status s = wait_done_locked(c, "comm_wait");
    pthread_mutex_unlock(&c->g->lock);
    return s;
}

static wk_status cpu_comm_library(wk_device *dev, const char **name)
{
    (void)dev;
    *name = "threads";
    return WK_OK;
}

/* The magic, then 16 random bytes (ids of communicators made at once must differ), then zeros. */
static wk_status cpu_comm_id_new(wk_device *dev, wk_comm_id *out)
{
    (void)dev;
    static atomic_uint_fast64_t counter;
    wk_comm_id id = {{0}};
    memcpy(id.bytes, id_magic, sizeof id_magic);
    uint64_t extra[2] = {atomic_fetch_add(&counter, 1), (uint64_t)time(NULL)};
    if (getrandom(id.bytes + sizeof id_magic, 16, GRND_NONBLOCK) != 16)
        memcpy(id.bytes + sizeof id_magic, extra, sizeof extra);
    memcpy(id.bytes + sizeof id_magic + 16, extra, sizeof extra[0]);
    *out = id;
    return WK_OK;
}

const wk_comm_backend wk_cpu_comm = {
    .library = cpu_comm_library,
    .id_new = cpu_comm_id_new,
    .init = cpu_comm_init,
    .run = cpu_comm_run,
    .group_begin = cpu_comm_group_begin,
    .group_end = cpu_comm_group_end,
    .wait = cpu_comm_wait,
    .abort = cpu_comm_abort,
    .destroy = cpu_comm_destroy,
};
