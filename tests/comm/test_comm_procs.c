/* test_comm_procs.c: communicators across processes (wk_comm_init_rank). The parent makes an id and starts
 * children of this same program with posix_spawn (argv: --child-<mode> RANK SIZE ID_HEX DEVICE; the environment
 * passes through, NCCL_NVLS_ENABLE included), then waits for them with a deadline: children still running after
 * 120 s are killed and fail the test, which never hangs. Modes:
 *  - coll: join (60 s timeout), then all_reduce SUM of f32 (in place) and bf16 (~1M elements), reduce_scatter,
 *    all_gather, broadcast from the last rank, a send/recv ring; each rank computes what every rank put in
 *    (inputs are a function of rank and index, exact in their dtype so any summation order gives one result).
 *  - join-fail: a rank of 2 whose peer never comes (timeout 3 s): init is WK_ERR_COMM after about the timeout.
 *  - die: both join (timeout 3 s); rank 1 exits right away, rank 0 queues an all_reduce: wk_comm_wait is
 *    WK_ERR_COMM within the timeout (plus slack) and wk_comm_destroy then returns promptly.
 * WICK_COMM_BACKEND picks the backend: "cpu" (default; a CPU id serves the making process only, so a child
 * joining the parent's id with size 2 must time out, and size 1 works), or a GPU backend ("cuda", "rocm":
 * N = min(devices, 2) ranks on <backend>:<rank>; "die" needs 2 devices). Exit 77 when that GPU backend or its
 * collective library is absent. */
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

extern char **environ;

#define BIG_COUNT (1 << 20)        /* elements of the all_reduce inputs */
#define SMALL_COUNT 4096           /* elements of the other collectives' inputs (per rank) */
#define JOIN_TIMEOUT_S 60.0        /* the collectives' communicator */
#define SHORT_TIMEOUT_S 3.0        /* the failure cases' communicator */
#define FAIL_SLACK_S 7.0           /* how much later than its timeout a failure may come */
#define CHILD_DEADLINE_S 120.0     /* then the parent kills the children */
#define MAX_CHILDREN 2

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---------------------------------------------------------------- inputs: exact in their dtype */
/* Multiples of 1/8 below 128 in magnitude: sums of a few ranks are exact in f32, in any order. */
static float f32_input(int rank, int64_t i)
{
    return (float)((int)(((uint64_t)i * 2654435761u + (uint64_t)rank * 40503u) % 2048u) - 1024) / 8.0f;
}

/* Multiples of 1/4 in [-16, 16): 7 significant bits, so the sum of two is exact in bf16 (8 bits). */
static float bf16_input(int rank, int64_t i)
{
    return (float)((int)(((uint64_t)i * 31u + (uint64_t)rank * 17u) % 128u) - 64) / 4.0f;
}

static int32_t i32_input(int rank, int64_t i) { return (int32_t)((i * 37 + rank * 1009) % 100003) - 50000; }
static int64_t i64_input(int rank, int64_t i) { return (int64_t)rank * 1000003 + i * 7 - 5000; }
static double f64_input(int rank, int64_t i) { return (double)i * 0.25 + (double)rank * 1e6; }
static uint32_t u32_input(int rank, int64_t i) { return (uint32_t)i * 2654435761u ^ (uint32_t)rank * 0x9E3779B9u; }

/* bf16 of a value exact in bf16: the top half of its f32 bits (written here, not taken from the library). */
static uint16_t bf16_bits(float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return (uint16_t)(u >> 16);
}

static double bf16_value(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* ---------------------------------------------------------------- tensors and comparisons */
static wk_tensor *upload(wk_device *dev, wk_dtype dt, int rank, const int64_t *shape, const void *data)
{
    wk_tensor *t = NULL;
    wk_status s = wk_tensor_from_host(dev, dt, rank, shape, data, &t);
    CHECK(s == WK_OK, "upload %s to %s: %s", wk_dtype_name(dt), wk_device_name(dev), wk_status_string(s));
    return s == WK_OK ? t : NULL;
}

static bool download(const char *what, const wk_tensor *t, void *buf, size_t bytes)
{
    wk_status s = wk_tensor_to_host(t, buf, bytes);
    CHECK(s == WK_OK, "%s: reading the result: %s", what, wk_status_string(s));
    return s == WK_OK;
}

/* got[i] == want[i] for every i (a NaN never matches); the first difference is reported. */
static void expect_equal(const char *what, const double *got, const double *want, int64_t n)
{
    int64_t bad = -1;
    for (int64_t i = 0; i < n && bad < 0; i++)
        if (!(got[i] == want[i]))
            bad = i;
    CHECK(bad < 0, "%s: element %lld is %.17g, want %.17g", what, (long long)bad, bad < 0 ? 0 : got[bad],
          bad < 0 ? 0 : want[bad]);
}

static void expect_ok(const char *what, wk_status s)
{
    CHECK(s == WK_OK, "%s: %s", what, wk_status_string(s));
}

/* ---------------------------------------------------------------- the collectives of one rank */
static void check_all_reduce_f32(wk_device *dev, wk_comm *c)
{
    int rank = wk_comm_rank(c), size = wk_comm_size(c);
    int64_t n = BIG_COUNT;
    float *host = malloc((size_t)n * sizeof *host);
    double *got = malloc((size_t)n * sizeof *got), *want = malloc((size_t)n * sizeof *want);
    for (int64_t i = 0; i < n; i++) {
        host[i] = f32_input(rank, i);
        want[i] = 0;
        for (int q = 0; q < size; q++)
            want[i] += f32_input(q, i);
    }
    wk_tensor *x = upload(dev, WK_F32, 1, &n, host);
    if (x) {
        wk_status s = wk_comm_all_reduce(c, x, WK_COMM_SUM, x); /* in place */
        expect_ok("all_reduce f32 in place", s);
        if (s == WK_OK && download("all_reduce f32", x, host, (size_t)n * sizeof *host)) {
            for (int64_t i = 0; i < n; i++)
                got[i] = host[i];
            expect_equal("all_reduce f32", got, want, n);
        }
    }
    wk_tensor_release(x);
    free(host), free(got), free(want);
}

static void check_all_reduce_bf16(wk_device *dev, wk_comm *c)
{
    int rank = wk_comm_rank(c), size = wk_comm_size(c);
    int64_t n = BIG_COUNT;
    uint16_t *host = malloc((size_t)n * sizeof *host);
    double *got = malloc((size_t)n * sizeof *got), *want = malloc((size_t)n * sizeof *want);
    for (int64_t i = 0; i < n; i++) {
        host[i] = bf16_bits(bf16_input(rank, i));
        want[i] = 0;
        for (int q = 0; q < size; q++)
            want[i] += bf16_input(q, i);
    }
    wk_tensor *x = upload(dev, WK_BF16, 1, &n, host), *out = NULL;
    wk_status s = x ? wk_tensor_empty(dev, WK_BF16, 1, &n, &out) : WK_ERR_INTERNAL;
    expect_ok("all_reduce bf16: the output", s);
    if (s == WK_OK) {
        s = wk_comm_all_reduce(c, x, WK_COMM_SUM, out);
        expect_ok("all_reduce bf16", s);
        if (s == WK_OK && download("all_reduce bf16", out, host, (size_t)n * sizeof *host)) {
            for (int64_t i = 0; i < n; i++)
                got[i] = bf16_value(host[i]);
            expect_equal("all_reduce bf16", got, want, n);
        }
    }
    wk_tensor_release(x);
    wk_tensor_release(out);
    free(host), free(got), free(want);
}

/* x (size * m) i32 on every rank; rank r gets block r of the sum. */
static void check_reduce_scatter(wk_device *dev, wk_comm *c)
{
    int rank = wk_comm_rank(c), size = wk_comm_size(c);
    int64_t m = SMALL_COUNT, total = m * size;
    int32_t *host = malloc((size_t)total * sizeof *host);
    double *got = malloc((size_t)m * sizeof *got), *want = malloc((size_t)m * sizeof *want);
    for (int64_t i = 0; i < total; i++)
        host[i] = i32_input(rank, i);
    for (int64_t i = 0; i < m; i++) {
        int64_t sum = 0;
        for (int q = 0; q < size; q++)
            sum += i32_input(q, rank * m + i);
        want[i] = (double)sum;
    }
    wk_tensor *x = upload(dev, WK_I32, 1, &total, host), *out = NULL;
    wk_status s = x ? wk_tensor_empty(dev, WK_I32, 1, &m, &out) : WK_ERR_INTERNAL;
    expect_ok("reduce_scatter i32: the output", s);
    if (s == WK_OK) {
        s = wk_comm_reduce_scatter(c, x, WK_COMM_SUM, out);
        expect_ok("reduce_scatter i32", s);
        if (s == WK_OK && download("reduce_scatter i32", out, host, (size_t)m * sizeof *host)) {
            for (int64_t i = 0; i < m; i++)
                got[i] = host[i];
            expect_equal("reduce_scatter i32", got, want, m);
        }
    }
    wk_tensor_release(x);
    wk_tensor_release(out);
    free(host), free(got), free(want);
}

/* x (m, 3) i64 per rank -> out (size * m, 3): the ranks' blocks in rank order. */
static void check_all_gather(wk_device *dev, wk_comm *c)
{
    int rank = wk_comm_rank(c), size = wk_comm_size(c);
    int64_t m = SMALL_COUNT / 4, per = m * 3, total = per * size;
    int64_t xshape[2] = {m, 3}, oshape[2] = {m * size, 3};
    int64_t *host = malloc((size_t)total * sizeof *host);
    double *got = malloc((size_t)total * sizeof *got), *want = malloc((size_t)total * sizeof *want);
    for (int64_t i = 0; i < per; i++)
        host[i] = i64_input(rank, i);
    for (int q = 0; q < size; q++)
        for (int64_t i = 0; i < per; i++)
            want[q * per + i] = (double)i64_input(q, i);
    wk_tensor *x = upload(dev, WK_I64, 2, xshape, host), *out = NULL;
    wk_status s = x ? wk_tensor_empty(dev, WK_I64, 2, oshape, &out) : WK_ERR_INTERNAL;
    expect_ok("all_gather i64: the output", s);
    if (s == WK_OK) {
        s = wk_comm_all_gather(c, x, out);
        expect_ok("all_gather i64", s);
        if (s == WK_OK && download("all_gather i64", out, host, (size_t)total * sizeof *host)) {
            for (int64_t i = 0; i < total; i++)
                got[i] = (double)host[i];
            expect_equal("all_gather i64", got, want, total);
        }
    }
    wk_tensor_release(x);
    wk_tensor_release(out);
    free(host), free(got), free(want);
}

/* From the last rank (rank 1 of 2); every out starts as its own rank's data, so a no-op shows. */
static void check_broadcast(wk_device *dev, wk_comm *c)
{
    int rank = wk_comm_rank(c), size = wk_comm_size(c), root = size - 1;
    int64_t n = SMALL_COUNT;
    double *host = malloc((size_t)n * sizeof *host), *want = malloc((size_t)n * sizeof *want);
    for (int64_t i = 0; i < n; i++) {
        host[i] = f64_input(rank, i) + 0.5;
        want[i] = f64_input(root, i);
    }
    wk_tensor *out = upload(dev, WK_F64, 1, &n, host), *x = NULL;
    for (int64_t i = 0; i < n && rank == root; i++)
        host[i] = f64_input(rank, i);
    if (rank == root && out)
        x = upload(dev, WK_F64, 1, &n, host);
    if (out && (rank != root || x)) {
        wk_status s = wk_comm_broadcast(c, x, root, out); /* x is NULL off the root */
        expect_ok("broadcast f64", s);
        if (s == WK_OK && download("broadcast f64", out, host, (size_t)n * sizeof *host))
            expect_equal("broadcast f64", host, want, n);
    }
    wk_tensor_release(x);
    wk_tensor_release(out);
    free(host), free(want);
}

/* A ring in one group: send to rank + 1, receive from rank - 1 (oneself with one rank). */
static void check_send_recv(wk_device *dev, wk_comm *c)
{
    int rank = wk_comm_rank(c), size = wk_comm_size(c);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int64_t n = SMALL_COUNT;
    uint32_t *host = malloc((size_t)n * sizeof *host);
    double *got = malloc((size_t)n * sizeof *got), *want = malloc((size_t)n * sizeof *want);
    for (int64_t i = 0; i < n; i++) {
        host[i] = u32_input(rank, i);
        want[i] = u32_input(prev, i);
    }
    wk_tensor *x = upload(dev, WK_U32, 1, &n, host), *out = NULL;
    wk_status s = x ? wk_zeros(dev, WK_U32, 1, &n, &out) : WK_ERR_INTERNAL;
    expect_ok("send/recv u32: the output", s);
    if (s == WK_OK) {
        expect_ok("send/recv: group_begin", wk_comm_group_begin());
        wk_status ss = wk_comm_send(c, x, next), rs = wk_comm_recv(c, out, prev);
        s = wk_comm_group_end();
        expect_ok("send u32", ss);
        expect_ok("recv u32", rs);
        expect_ok("send/recv: group_end", s);
        if (ss == WK_OK && rs == WK_OK && s == WK_OK && download("recv u32", out, host, (size_t)n * sizeof *host)) {
            for (int64_t i = 0; i < n; i++)
                got[i] = host[i];
            expect_equal("send/recv u32", got, want, n);
        }
    }
    wk_tensor_release(x);
    wk_tensor_release(out);
    free(host), free(got), free(want);
}

/* ---------------------------------------------------------------- the children */
typedef struct child_args {
    const char *mode;
    int rank, size;
    wk_comm_id id;
    wk_device *dev;
} child_args;

static int hex_digit(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    return -1;
}

static void id_to_hex(const wk_comm_id *id, char *hex)
{
    for (int i = 0; i < WK_COMM_ID_BYTES; i++)
        snprintf(hex + 2 * i, 3, "%02x", id->bytes[i]);
}

static bool id_from_hex(const char *hex, wk_comm_id *id)
{
    if (strlen(hex) != 2 * WK_COMM_ID_BYTES)
        return false;
    for (int i = 0; i < WK_COMM_ID_BYTES; i++) {
        int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return false;
        id->bytes[i] = (unsigned char)(hi * 16 + lo);
    }
    return true;
}

/* argv: PROGRAM --child-MODE RANK SIZE ID_HEX DEVICE */
static bool parse_child(int argc, char **argv, child_args *a)
{
    if (argc != 6)
        return false;
    a->mode = argv[1] + strlen("--child-");
    a->rank = atoi(argv[2]);
    a->size = atoi(argv[3]);
    if (!id_from_hex(argv[4], &a->id))
        return false;
    wk_status s = wk_device_get(argv[5], &a->dev);
    CHECK(s == WK_OK, "child: device %s: %s", argv[5], wk_status_string(s));
    return s == WK_OK;
}

static int child_collectives(const child_args *a)
{
    wk_comm *c = NULL;
    wk_status s = wk_comm_init_rank(a->dev, a->size, &a->id, a->rank, JOIN_TIMEOUT_S, &c);
    CHECK(s == WK_OK, "rank %d of %d on %s: init: %s", a->rank, a->size, wk_device_name(a->dev), wk_status_string(s));
    if (s != WK_OK)
        return 1;
    CHECK(wk_comm_rank(c) == a->rank && wk_comm_size(c) == a->size && wk_comm_device(c) == a->dev,
          "the communicator says rank %d of %d", wk_comm_rank(c), wk_comm_size(c));
    check_all_reduce_f32(a->dev, c);
    check_all_reduce_bf16(a->dev, c);
    check_reduce_scatter(a->dev, c);
    check_all_gather(a->dev, c);
    check_broadcast(a->dev, c);
    check_send_recv(a->dev, c);
    expect_ok("comm_destroy", wk_comm_destroy(c));
    return failures ? 1 : 0;
}

/* The peer never joins: WK_ERR_COMM once the timeout expired, not before and not much after. */
static int child_join_fail(const child_args *a)
{
    wk_comm *c = NULL;
    double t0 = now();
    wk_status s = wk_comm_init_rank(a->dev, a->size, &a->id, a->rank, SHORT_TIMEOUT_S, &c);
    double secs = now() - t0;
    CHECK(s == WK_ERR_COMM, "rank %d of %d alone: init gave %s, want WK_ERR_COMM", a->rank, a->size,
          wk_status_string(s));
    CHECK(secs >= 0.9 * SHORT_TIMEOUT_S && secs <= SHORT_TIMEOUT_S + FAIL_SLACK_S,
          "rank %d of %d alone: init returned after %.2f s (timeout %.0f s)", a->rank, a->size, secs, SHORT_TIMEOUT_S);
    CHECK(c == NULL, "a failed init left a communicator");
    if (s == WK_OK)
        wk_comm_destroy(c);
    return failures ? 1 : 0;
}

/* Rank 1 exits after init; rank 0's all_reduce then cannot complete: wk_comm_wait is WK_ERR_COMM. */
static int child_peer_dies(const child_args *a)
{
    wk_comm *c = NULL;
    wk_status s = wk_comm_init_rank(a->dev, a->size, &a->id, a->rank, SHORT_TIMEOUT_S, &c);
    CHECK(s == WK_OK, "rank %d of %d: init: %s", a->rank, a->size, wk_status_string(s));
    if (s != WK_OK)
        return 1;
    if (a->rank != 0) {
        nanosleep(&(struct timespec){.tv_nsec = 300000000}, NULL); /* let rank 0's init finish too */
        _exit(0);                                                   /* gone without a word */
    }
    int64_t n = BIG_COUNT;
    wk_tensor *x = NULL;
    expect_ok("peer dies: the input", wk_full(a->dev, WK_F32, 1, &n, 1.0, &x));
    double t0 = now();
    s = x ? wk_comm_all_reduce(c, x, WK_COMM_SUM, x) : WK_ERR_INTERNAL;
    CHECK(s == WK_OK || s == WK_ERR_COMM, "peer dies: all_reduce gave %s", wk_status_string(s));
    s = wk_comm_wait(c);
    double t1 = now();
    CHECK(s == WK_ERR_COMM, "peer dies: wait gave %s, want WK_ERR_COMM", wk_status_string(s));
    CHECK(t1 - t0 <= SHORT_TIMEOUT_S + FAIL_SLACK_S, "peer dies: wait returned after %.2f s", t1 - t0);
    s = wk_comm_all_reduce(c, x, WK_COMM_SUM, x);
    CHECK(s == WK_ERR_COMM, "peer dies: an all_reduce on the broken communicator gave %s", wk_status_string(s));
    s = wk_comm_destroy(c);
    double t2 = now();
    CHECK(s == WK_OK || s == WK_ERR_COMM, "peer dies: destroy gave %s", wk_status_string(s));
    CHECK(t2 - t1 <= FAIL_SLACK_S, "peer dies: destroy took %.2f s", t2 - t1);
    wk_tensor_release(x);
    return failures ? 1 : 0;
}

static int child_main(int argc, char **argv)
{
    child_args a;
    if (!parse_child(argc, argv, &a)) {
        printf("FAIL child: bad arguments (%d)\n", argc);
        return 1;
    }
    int rc = 1;
    if (strcmp(a.mode, "coll") == 0)
        rc = child_collectives(&a);
    else if (strcmp(a.mode, "join-fail") == 0)
        rc = child_join_fail(&a);
    else if (strcmp(a.mode, "die") == 0)
        rc = child_peer_dies(&a);
    else
        printf("FAIL child: unknown mode %s\n", a.mode);
    fflush(stdout);
    return rc;
}

/* ---------------------------------------------------------------- the parent */
static char exe_path[4096];

static pid_t spawn_child(const char *mode, int rank, int size, const char *id_hex, const char *device)
{
    char flag[64], rank_s[16], size_s[16];
    snprintf(flag, sizeof flag, "--child-%s", mode);
    snprintf(rank_s, sizeof rank_s, "%d", rank);
    snprintf(size_s, sizeof size_s, "%d", size);
    char *argv[] = {exe_path, flag, rank_s, size_s, (char *)id_hex, (char *)device, NULL};
    pid_t pid = -1;
    int err = posix_spawn(&pid, exe_path, NULL, NULL, argv, environ);
    CHECK(err == 0, "posix_spawn %s: %s", exe_path, strerror(err));
    return err == 0 ? pid : -1;
}

/* Waits for the children until the deadline, then kills the rest. Returns how many did not exit 0. */
static int wait_children(const char *what, const pid_t *pid, int n)
{
    int status[MAX_CHILDREN], left = 0, bad = 0;
    bool done[MAX_CHILDREN];
    for (int i = 0; i < n; i++)
        left += !(done[i] = pid[i] < 0);
    double deadline = now() + CHILD_DEADLINE_S;
    while (left > 0 && now() < deadline) {
        for (int i = 0; i < n; i++)
            if (!done[i] && waitpid(pid[i], &status[i], WNOHANG) == pid[i])
                done[i] = true, left--;
        if (left > 0)
            nanosleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
    }
    for (int i = 0; i < n; i++) {
        if (pid[i] < 0) {
            bad++;
        } else if (!done[i]) {
            kill(pid[i], SIGKILL);
            waitpid(pid[i], &status[i], 0);
            printf("FAIL %s: rank %d still running after %.0f s: killed\n", what, i, CHILD_DEADLINE_S);
            bad++;
        } else if (!WIFEXITED(status[i]) || WEXITSTATUS(status[i]) != 0) {
            printf("FAIL %s: rank %d %s %d\n", what, i, WIFEXITED(status[i]) ? "exited with" : "died of signal",
                   WIFEXITED(status[i]) ? WEXITSTATUS(status[i]) : WTERMSIG(status[i]));
            bad++;
        }
    }
    return bad;
}

/* Ranks 0 .. started - 1 of `size` in children, on <backend>:<rank> (the CPU: "cpu"). */
static void run_case(const char *what, const char *mode, const char *backend, int started, int size,
                     const wk_comm_id *id)
{
    char hex[2 * WK_COMM_ID_BYTES + 1], device[64];
    pid_t pid[MAX_CHILDREN];
    id_to_hex(id, hex);
    fflush(stdout);
    for (int r = 0; r < started; r++) {
        if (strcmp(backend, "cpu") == 0)
            snprintf(device, sizeof device, "cpu");
        else
            snprintf(device, sizeof device, "%s:%d", backend, r);
        pid[r] = spawn_child(mode, r, size, hex, device);
    }
    double t0 = now();
    int bad = wait_children(what, pid, started);
    CHECK(bad == 0, "%s: %d of %d children failed", what, bad, started);
    printf("%s: %d of %d ranks started, %s in %.2f s\n", what, started, size, bad ? "FAILED" : "ok", now() - t0);
}

static bool new_id(wk_device *dev, wk_comm_id *id)
{
    wk_status s = wk_comm_id_new(dev, id);
    CHECK(s == WK_OK, "comm_id_new on %s: %s", wk_device_name(dev), wk_status_string(s));
    return s == WK_OK;
}

static void cpu_cases(wk_device *dev)
{
    wk_comm_id id;
    if (new_id(dev, &id))
        run_case("cpu: a child joins the parent's id alone (size 2)", "join-fail", "cpu", 1, 2, &id);
    if (new_id(dev, &id))
        run_case("cpu: one child, size 1", "coll", "cpu", 1, 1, &id);
}

static void gpu_cases(wk_device *dev, const char *backend, int ranks)
{
    wk_comm_id id;
    char what[128];
    snprintf(what, sizeof what, "%s: collectives over %d processes", backend, ranks);
    if (new_id(dev, &id))
        run_case(what, "coll", backend, ranks, ranks, &id);
    snprintf(what, sizeof what, "%s: rank 1 never joins", backend);
    if (new_id(dev, &id))
        run_case(what, "join-fail", backend, 1, 2, &id);
    snprintf(what, sizeof what, "%s: rank 1 exits after init", backend);
    if (ranks < 2)
        printf("%s: skipped (one device)\n", what);
    else if (new_id(dev, &id))
        run_case(what, "die", backend, 2, 2, &id);
}

/* The devices of backend name, 0 when absent from this build or machine. */
static int device_count(const char *name)
{
    for (int i = 0; i < wk_backend_count(); i++) {
        wk_backend_info info;
        if (wk_backend_info_get(i, &info) == WK_OK && strcmp(info.name, name) == 0)
            return info.available ? info.device_count : 0;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strncmp(argv[1], "--child-", strlen("--child-")) == 0)
        return child_main(argc, argv);
    const char *backend = getenv("WICK_COMM_BACKEND");
    backend = backend && *backend ? backend : "cpu";
    ssize_t len = readlink("/proc/self/exe", exe_path, sizeof exe_path - 1);
    if (len <= 0)
        return printf("FAIL: cannot read /proc/self/exe\n"), 1;
    exe_path[len] = '\0';
    bool gpu = strcmp(backend, "cpu") != 0;
    int ndev = device_count(backend);
    char name[64];
    snprintf(name, sizeof name, gpu ? "%s:0" : "%s", backend);
    wk_device *dev = NULL;
    const char *lib = NULL;
    if (gpu && (ndev < 1 || wk_device_get(name, &dev) != WK_OK || wk_comm_library(dev, &lib) != WK_OK)) {
        printf("test_comm_procs: SKIP: no %s collectives here (%d devices): %s\n", backend, ndev, wk_last_error());
        return 77;
    }
    if (!gpu) {
        expect_ok("device cpu", wk_device_get(name, &dev));
        expect_ok("comm_library cpu", dev ? wk_comm_library(dev, &lib) : WK_ERR_DEVICE);
    }
    printf("test_comm_procs on %s (%s)\n", backend, lib ? lib : "no library");
    if (lib && gpu)
        gpu_cases(dev, backend, ndev < MAX_CHILDREN ? ndev : MAX_CHILDREN);
    else if (lib)
        cpu_cases(dev);
    printf("test_comm_procs: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
