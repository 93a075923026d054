/* cudnn_graph.h: building with cuDNN's graph API (backend descriptors; cudnn.h's be_* functions). A wk_cudnn_graph
 * makes descriptors, sets their attributes and finalizes them, keeping the first failure, so that a graph reads as
 * a list of steps checked once at the end; it owns every descriptor it made. Tensors, the pointwise, reduction and
 * matmul operations, the operations made into an execution plan by cuDNN's heuristics, and running the plan. */
#ifndef WK_GPU_CUDNN_GRAPH_H
#define WK_GPU_CUDNN_GRAPH_H

#include <stdbool.h>
#include <stdint.h>

#include "gpu/cudnn.h"
#include "gpu/gpu.h"

#define WK_CUDNN_GRAPH_DESCS 128 /* descriptors a graph may make (tensors, operations, engine configurations) */
#define WK_CUDNN_GRAPH_OPS 32    /* operations a graph may hold */
#define WK_CUDNN_GRAPH_CONFIGS 8 /* the heuristics' engine configurations tried, best first */

typedef wk_cudnnBackendDescriptor_t wk_cudnn_desc;

typedef struct wk_cudnn_graph {
    wk_cudnnStatus_t st; /* the first failure; WK_CUDNN_STATUS_SUCCESS until one */
    const char *call;    /* the step that failed */
    wk_cudnn_desc made[WK_CUDNN_GRAPH_DESCS];
    int nmade;
    wk_cudnn_desc ops[WK_CUDNN_GRAPH_OPS];
    int nops;
    wk_cudnn_desc plan; /* set by wk_cudnn_graph_plan */
    int64_t workspace;  /* bytes the plan needs */
} wk_cudnn_graph;

/* Whether the loaded cuDNN has the graph API and is version 9 or later (the attention graphs are 9's). */
bool wk_cudnn_graph_available(void);

/* A tensor of nd (<= 8) dims with unique id uid. Virtual: lives only inside the fused kernel. By value: a host
 * scalar handed over at execution. The rest are device memory, 16-byte aligned. NULL once the graph failed. */
wk_cudnn_desc wk_cudnn_tensor(wk_cudnn_graph *g, int64_t uid, wk_cudnnDataType_t dt, int nd, const int64_t *dims,
                              const int64_t *strides, bool is_virtual, bool by_value);
/* y = mode(x [, b [, t]]) computed in prec (b, t NULL when the mode takes fewer inputs); axis >= 0 for GEN_INDEX. */
void wk_cudnn_pointwise(wk_cudnn_graph *g, wk_cudnnPointwiseMode_t mode, wk_cudnnDataType_t prec, int64_t axis,
                        wk_cudnn_desc x, wk_cudnn_desc b, wk_cudnn_desc t, wk_cudnn_desc y);
/* y = op over the dims where y has size 1 and x does not, in f32. */
void wk_cudnn_reduction(wk_cudnn_graph *g, wk_cudnnReduceTensorOp_t op, wk_cudnn_desc x, wk_cudnn_desc y);
/* c = a b over the last two dims, batched over the others, in f32. */
void wk_cudnn_matmul(wk_cudnn_graph *g, wk_cudnn_desc a, wk_cudnn_desc b, wk_cudnn_desc c);
/* y = x (*) w, cross-correlation in f32 over nsp spatial dims (pad both sides, stride, dilation a dim each). */
void wk_cudnn_conv_fwd(wk_cudnn_graph *g, int64_t nsp, const int64_t *pad, const int64_t *stride, const int64_t *dil,
                       wk_cudnn_desc x, wk_cudnn_desc w, wk_cudnn_desc y);
/* The operations so far as one operation graph on handle h, and plans of up to max (<= WK_CUDNN_GRAPH_CONFIGS) of
 * the engine configurations cuDNN's heuristics rank, best first: those that finalize, into plans[] (the caller's:
 * wk_cudnn_plan_free) with their workspace bytes; their number. g->st NOT_SUPPORTED when none does. */
int wk_cudnn_graph_plans(wk_cudnn_graph *g, wk_cudnnHandle_t h, int max, wk_cudnn_desc *plans, int64_t *workspace);
/* The same for the first that finalizes, kept as g->plan (with g->workspace). */
void wk_cudnn_graph_plan(wk_cudnn_graph *g, wk_cudnnHandle_t h);
void wk_cudnn_plan_free(wk_cudnn_desc plan);
/* Runs a plan on h's stream: n tensors by uid and address (a by-value tensor's: its host value), and a workspace of
 * the plan's bytes (NULL when 0). */
wk_cudnnStatus_t wk_cudnn_graph_run(wk_cudnn_desc plan, wk_cudnnHandle_t h, int n, const int64_t *uids,
                                    void *const *ptrs, void *workspace);
/* Destroys every descriptor the graph made and its plan; the graph may then be filled anew. */
void wk_cudnn_graph_free(wk_cudnn_graph *g);

/* Graphs kept by key (key_size bytes, compared bytewise), per device, used under the device's cuDNN lock
 * (wk_gpu_lib_lock): WK_CUDNN_CACHE_SIZE a device, the oldest replaced (its graph freed). A kept NULL graph
 * records a case cuDNN refused. Declare one zeroed, with its key size. */
#define WK_CUDNN_CACHE_SIZE 32
typedef struct wk_cudnn_cache {
    size_t key_size;
    struct wk_cudnn_cached *dev[WK_GPU_MAX_DEVICES];
} wk_cudnn_cache;
/* The graph kept for key on device ord; *found false when the key is new. */
wk_cudnn_graph *wk_cudnn_cache_find(wk_cudnn_cache *c, int ord, const void *key, bool *found);
/* Keeps g (may be NULL) for key; false (g not kept, the caller frees it) when memory runs out. */
bool wk_cudnn_cache_store(wk_cudnn_cache *c, int ord, const void *key, wk_cudnn_graph *g);

#endif
