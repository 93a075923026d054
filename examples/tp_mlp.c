/* tp_mlp.c: a Llama MLP, down(silu(gate(x)) * up(x)), split across ranks with the tensor-parallel layers: gate
 * and up are column-parallel (each rank makes its slice of the intermediate features, nothing communicated),
 * down is row-parallel (each rank multiplies its slice; one all_reduce sums them). Checked against the same MLP
 * on one device. `example_tp_mlp`: 2 ranks on the CPU communicator, a thread each; `example_tp_mlp cuda`: a
 * rank per CUDA device. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "wick.h"

enum { TOKENS = 64, HIDDEN = 1024, INTER = 2816, MAX_RANKS = 16 };
enum { X, GATE, UP, DOWN, NT }; /* the operands; weights in PyTorch's (out, in) orientation */

/* One rank: its device, its copies of x and of its weight shards, its result, its thread. */
typedef struct rank {
    int r, size;
    wk_device *dev;
    const wk_comm_id *id;
    wk_tensor *t[NT], *out;
    wk_status status;
    pthread_t thread;
} rank;

static void release(wk_tensor *const *ts, int n)
{
    for (int i = 0; i < n; i++)
        wk_tensor_release(ts[i]); /* NULL is a no-op */
}

/* y = x w^T on one device, for a weight w (out, in). */
static wk_status linear(const wk_tensor *x, const wk_tensor *w, wk_tensor **y)
{
    wk_tensor *wt = NULL;
    wk_status s = wk_transpose(w, 0, 1, &wt);
    if (s == WK_OK)
        s = wk_matmul(x, wt, y);
    release(&wt, 1);
    return s;
}

/* The MLP: with a communicator, on this rank's shards through the tensor-parallel layers (out is the whole
 * result, on every rank); without, on one device through wk_matmul. */
static wk_status mlp(wk_comm *c, wk_tensor *const *t, wk_tensor **out)
{
    wk_tensor *g = NULL, *u = NULL, *act = NULL, *h = NULL;
    wk_status s = c ? wk_tp_linear_column(c, t[X], t[GATE], false, &g) : linear(t[X], t[GATE], &g);
    if (s == WK_OK) /* g and u: (TOKENS, INTER / size), this rank's columns */
        s = c ? wk_tp_linear_column(c, t[X], t[UP], false, &u) : linear(t[X], t[UP], &u);
    if (s == WK_OK)
        s = wk_unary(WK_UNARY_SILU, g, &act);
    if (s == WK_OK)
        s = wk_binary(WK_BINARY_MUL, act, u, &h);
    if (s == WK_OK) /* (TOKENS, HIDDEN): the ranks' products summed */
        s = c ? wk_tp_linear_row(c, h, t[DOWN], out) : linear(h, t[DOWN], out);
    release((wk_tensor *[]){g, u, act, h}, 4);
    return s;
}

/* A rank, on its own thread: joins the communicator, runs the MLP, leaves. */
static void *rank_main(void *arg)
{
    rank *k = arg;
    wk_comm *c = NULL;
    wk_status s = wk_comm_init_rank(k->dev, k->size, k->id, k->r, 60.0, &c);
    if (s == WK_OK)
        s = mlp(c, k->t, &k->out);
    if (s != WK_OK)
        fprintf(stderr, "rank %d: %s: %s\n", k->r, wk_status_string(s), wk_last_error());
    wk_status d = wk_comm_destroy(c); /* waits for the queued collectives */
    k->status = s != WK_OK ? s : d;
    return NULL;
}

/* `len` rows (dim 0) or columns (dim 1) of t from `start`, copied to dev. */
static wk_status shard(wk_status s, const wk_tensor *t, int dim, int64_t start, int64_t len, wk_device *dev,
                       wk_tensor **out)
{
    wk_tensor *v = NULL;
    s = s == WK_OK ? wk_narrow(t, dim, start, len, &v) : s;
    s = s == WK_OK ? wk_to_device(v, dev, out) : s;
    release(&v, 1);
    return s;
}

int main(int argc, char **argv)
{
    /* The ranks: 2 on the CPU (every rank on "cpu"), else one per device of the backend (<backend>:0, ...). */
    const char *backend = argc > 1 ? argv[1] : "cpu";
    bool cpu = strcmp(backend, "cpu") == 0;
    rank ranks[MAX_RANKS] = {0};
    int size = 0;
    for (char name[32]; size < (cpu ? 2 : MAX_RANKS); size++) {
        snprintf(name, sizeof name, cpu ? "%s" : "%s:%d", backend, size);
        if (wk_device_get(name, &ranks[size].dev) != WK_OK)
            break;
    }
    while (size > 1 && INTER % size != 0) /* the ranks split the intermediate features evenly */
        size--;
    if (size < 1)
        return fprintf(stderr, "no %s devices: %s\n", backend, wk_last_error()), 1;
    /* x and the weights (normal, std 1/sqrt(fan-in)) on rank 0's device, and the MLP computed there. */
    const int64_t shapes[NT][2] = {{TOKENS, HIDDEN}, {INTER, HIDDEN}, {INTER, HIDDEN}, {HIDDEN, INTER}};
    const double std[NT] = {1.0, 1 / 32.0, 1 / 32.0, 1 / 53.07}; /* 32 = sqrt(HIDDEN), 53.07 = sqrt(INTER) */
    wk_tensor *full[NT] = {0}, *ref = NULL;
    wk_status s = WK_OK;
    for (int i = 0; s == WK_OK && i < NT; i++)
        s = wk_rand_normal(ranks[0].dev, WK_F32, 2, shapes[i], (uint64_t)i + 1, 0.0, std[i], &full[i]);
    s = s == WK_OK ? mlp(NULL, full, &ref) : s;
    /* Rank r's copies: x, rows [r part, (r + 1) part) of gate and up, the same columns of down. */
    wk_comm_id id;
    s = s == WK_OK ? wk_comm_id_new(ranks[0].dev, &id) : s;
    int64_t part = INTER / size;
    for (int r = 0; r < size; r++) {
        ranks[r] = (rank){.r = r, .size = size, .dev = ranks[r].dev, .id = &id};
        for (int i = 0; i < NT; i++)
            s = shard(s, full[i], i == DOWN, i == X ? 0 : r * part, i == X ? TOKENS : part, ranks[r].dev,
                      &ranks[r].t[i]);
    }
    for (int r = 0; s == WK_OK && r < size; r++)
        pthread_create(&ranks[r].thread, NULL, rank_main, &ranks[r]);
    for (int r = 0; s == WK_OK && r < size; r++)
        pthread_join(ranks[r].thread, NULL);
    /* Every rank's output against the reference: the largest difference relative to the largest |y|. */
    static float want[TOKENS * HIDDEN], got[TOKENS * HIDDEN];
    double worst = 0, big = 0;
    s = s == WK_OK ? wk_tensor_to_host(ref, want, sizeof want) : s;
    for (int i = 0; i < TOKENS * HIDDEN; i++)
        big = want[i] > big ? want[i] : -want[i] > big ? -want[i] : big;
    for (int r = 0; r < size; r++) {
        wk_status sr = s != WK_OK ? s : ranks[r].status;
        if (sr == WK_OK)
            sr = wk_tensor_to_host(ranks[r].out, got, sizeof got);
        for (int i = 0; i < TOKENS * HIDDEN; i++) {
            double d = (got[i] > want[i] ? got[i] - want[i] : want[i] - got[i]) / big;
            worst = sr != WK_OK ? INFINITY : !(d <= worst) ? d : worst; /* a NaN is kept, and fails */
        }
        release(ranks[r].t, NT);
        release(&ranks[r].out, 1);
    }
    if (s != WK_OK)
        fprintf(stderr, "setup: %s: %s\n", wk_status_string(s), wk_last_error());
    printf("Llama MLP, %d tokens, hidden %d, intermediate %d, f32, on %d %s rank(s): max |tp - one device| / "
           "max |y| = %.3g\n", TOKENS, HIDDEN, INTER, size, backend, worst);
    release(full, NT);
    release(&ref, 1);
    return worst <= 1e-4 ? 0 : 1;
}
