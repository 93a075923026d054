/* cudnn_graph.c: building with cuDNN's graph API (cudnn_graph.h): descriptors made, set and finalized with the first
 * failure kept, the operation graph made into an execution plan by the heuristics, and the plan run. */
#include <stdlib.h>
#include <string.h>

#include "gpu/cudnn_graph.h"

bool wk_cudnn_graph_available(void)
{
    return wk_cudnn.version >= 90000 && wk_cudnn.be_create && wk_cudnn.be_destroy && wk_cudnn.be_finalize &&
           wk_cudnn.be_set && wk_cudnn.be_get && wk_cudnn.be_execute;
}

static bool failed(wk_cudnn_graph *g, wk_cudnnStatus_t st, const char *call)
{
    if (st == WK_CUDNN_STATUS_SUCCESS)
        return false;
    g->st = st;
    g->call = call;
    return true;
}

/* A new descriptor of the type, owned by g; NULL once g failed. */
static wk_cudnn_desc make(wk_cudnn_graph *g, wk_cudnnBackendDescriptorType_t type)
{
    if (g->st != WK_CUDNN_STATUS_SUCCESS)
        return NULL;
    if (g->nmade == WK_CUDNN_GRAPH_DESCS) {
        failed(g, WK_CUDNN_STATUS_NOT_SUPPORTED, "a graph of more descriptors than wick keeps");
        return NULL;
    }
    wk_cudnn_desc d = NULL;
    if (failed(g, wk_cudnn.be_create(type, &d), "cudnnBackendCreateDescriptor"))
        return NULL;
    g->made[g->nmade++] = d;
    return d;
}

static void set(wk_cudnn_graph *g, wk_cudnn_desc d, wk_cudnnBackendAttributeName_t name,
                wk_cudnnBackendAttributeType_t type, int64_t n, const void *v)
{
    if (g->st == WK_CUDNN_STATUS_SUCCESS)
        failed(g, wk_cudnn.be_set(d, name, type, n, v), "cudnnBackendSetAttribute");
}

static void set_desc(wk_cudnn_graph *g, wk_cudnn_desc d, wk_cudnnBackendAttributeName_t name, wk_cudnn_desc v)
{
    set(g, d, name, WK_CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &v);
}

static void finalize(wk_cudnn_graph *g, wk_cudnn_desc d, const char *what)
{
    if (g->st == WK_CUDNN_STATUS_SUCCESS)
        failed(g, wk_cudnn.be_finalize(d), what);
}

wk_cudnn_desc wk_cudnn_tensor(wk_cudnn_graph *g, int64_t uid, wk_cudnnDataType_t dt, int nd, const int64_t *dims,
                              const int64_t *strides, bool is_virtual, bool by_value)
{
    wk_cudnn_desc t = make(g, WK_CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    int64_t align = 16;
    set(g, t, WK_CUDNN_ATTR_TENSOR_DATA_TYPE, WK_CUDNN_TYPE_DATA_TYPE, 1, &dt);
    set(g, t, WK_CUDNN_ATTR_TENSOR_DIMENSIONS, WK_CUDNN_TYPE_INT64, nd, dims);
    set(g, t, WK_CUDNN_ATTR_TENSOR_STRIDES, WK_CUDNN_TYPE_INT64, nd, strides);
    set(g, t, WK_CUDNN_ATTR_TENSOR_UNIQUE_ID, WK_CUDNN_TYPE_INT64, 1, &uid);
    set(g, t, WK_CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, WK_CUDNN_TYPE_INT64, 1, &align);
    set(g, t, WK_CUDNN_ATTR_TENSOR_IS_VIRTUAL, WK_CUDNN_TYPE_BOOLEAN, 1, &is_virtual);
    if (by_value)
        set(g, t, WK_CUDNN_ATTR_TENSOR_IS_BY_VALUE, WK_CUDNN_TYPE_BOOLEAN, 1, &by_value);
    finalize(g, t, "cudnnBackendFinalize(tensor)");
    return g->st == WK_CUDNN_STATUS_SUCCESS ? t : NULL;
}

static void add_op(wk_cudnn_graph *g, wk_cudnn_desc op, const char *what)
{
    finalize(g, op, what);
    if (g->st != WK_CUDNN_STATUS_SUCCESS)
        return;
    if (g->nops == WK_CUDNN_GRAPH_OPS) {
        failed(g, WK_CUDNN_STATUS_NOT_SUPPORTED, "a graph of more operations than wick keeps");
        return;
    }
    g->ops[g->nops++] = op;
}

void wk_cudnn_pointwise(wk_cudnn_graph *g, wk_cudnnPointwiseMode_t mode, wk_cudnnDataType_t prec, int64_t axis,
                        wk_cudnn_desc x, wk_cudnn_desc b, wk_cudnn_desc t, wk_cudnn_desc y)
{
    wk_cudnn_desc pw = make(g, WK_CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
    set(g, pw, WK_CUDNN_ATTR_POINTWISE_MODE, WK_CUDNN_TYPE_POINTWISE_MODE, 1, &mode);
    set(g, pw, WK_CUDNN_ATTR_POINTWISE_MATH_PREC, WK_CUDNN_TYPE_DATA_TYPE, 1, &prec);
    if (axis >= 0)
        set(g, pw, WK_CUDNN_ATTR_POINTWISE_AXIS, WK_CUDNN_TYPE_INT64, 1, &axis);
    finalize(g, pw, "cudnnBackendFinalize(pointwise)");
    wk_cudnn_desc op = make(g, WK_CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
    set_desc(g, op, WK_CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, pw);
    set_desc(g, op, WK_CUDNN_ATTR_OPERATION_POINTWISE_XDESC, x);
    if (b)
        set_desc(g, op, WK_CUDNN_ATTR_OPERATION_POINTWISE_BDESC, b);
    if (t)
        set_desc(g, op, WK_CUDNN_ATTR_OPERATION_POINTWISE_TDESC, t);
    set_desc(g, op, WK_CUDNN_ATTR_OPERATION_POINTWISE_YDESC, y);
    float one = 1.0f; /* the scales of x and b, as cuDNN's frontend sets them */
    set(g, op, WK_CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1, WK_CUDNN_TYPE_FLOAT, 1, &one);
    set(g, op, WK_CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2, WK_CUDNN_TYPE_FLOAT, 1, &one);
    add_op(g, op, "cudnnBackendFinalize(pointwise operation)");
}

void wk_cudnn_reduction(wk_cudnn_graph *g, wk_cudnnReduceTensorOp_t rop, wk_cudnn_desc x, wk_cudnn_desc y)
{
    wk_cudnnDataType_t f32 = WK_CUDNN_DATA_FLOAT;
    wk_cudnn_desc r = make(g, WK_CUDNN_BACKEND_REDUCTION_DESCRIPTOR);
    set(g, r, WK_CUDNN_ATTR_REDUCTION_OPERATOR, WK_CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, 1, &rop);
    set(g, r, WK_CUDNN_ATTR_REDUCTION_COMP_TYPE, WK_CUDNN_TYPE_DATA_TYPE, 1, &f32);
    finalize(g, r, "cudnnBackendFinalize(reduction)");
    wk_cudnn_desc op = make(g, WK_CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR);
    set_desc(g, op, WK_CUDNN_ATTR_OPERATION_REDUCTION_DESC, r);
    set_desc(g, op, WK_CUDNN_ATTR_OPERATION_REDUCTION_XDESC, x);
    set_desc(g, op, WK_CUDNN_ATTR_OPERATION_REDUCTION_YDESC, y);
    add_op(g, op, "cudnnBackendFinalize(reduction operation)");
}

void wk_cudnn_matmul(wk_cudnn_graph *g, wk_cudnn_desc a, wk_cudnn_desc b, wk_cudnn_desc c)
{
    wk_cudnnDataType_t f32 = WK_CUDNN_DATA_FLOAT;
    wk_cudnn_desc m = make(g, WK_CUDNN_BACKEND_MATMUL_DESCRIPTOR);
    set(g, m, WK_CUDNN_ATTR_MATMUL_COMP_TYPE, WK_CUDNN_TYPE_DATA_TYPE, 1, &f32);
    finalize(g, m, "cudnnBackendFinalize(matmul)");
    wk_cudnn_desc op = make(g, WK_CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
    set_desc(g, op, WK_CUDNN_ATTR_OPERATION_MATMUL_ADESC, a);
    set_desc(g, op, WK_CUDNN_ATTR_OPERATION_MATMUL_BDESC, b);
    set_desc(g, op, WK_CUDNN_ATTR_OPERATION_MATMUL_CDESC, c);
    set_desc(g, op, WK_CUDNN_ATTR_OPERATION_MATMUL_DESC, m);
    add_op(g, op, "cudnnBackendFinalize(matmul operation)");
}

void wk_cudnn_conv_fwd(wk_cudnn_graph *g, int64_t nsp, const int64_t *pad, const int64_t *stride, const int64_t *dil,
                       wk_cudnn_desc x, wk_cudnn_desc w, wk_cudnn_desc y)
{
    wk_cudnnDataType_t f32 = WK_CUDNN_DATA_FLOAT;
    unsigned int mode = WK_CUDNN_CROSS_CORRELATION;
    float alpha = 1.0f, beta = 0.0f;
    wk_cudnn_desc c = make(g, WK_CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
    set(g, c, WK_CUDNN_ATTR_CONVOLUTION_COMP_TYPE, WK_CUDNN_TYPE_DATA_TYPE, 1, &f32);
    set(g, c, WK_CUDNN_ATTR_CONVOLUTION_CONV_MODE, WK_CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode);
    set(g, c, WK_CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, WK_CUDNN_TYPE_INT64, 1, &nsp);
    set(g, c, WK_CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, WK_CUDNN_TYPE_INT64, nsp, pad);
    set(g, c, WK_CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, WK_CUDNN_TYPE_INT64, nsp, pad);
    set(g, c, WK_CUDNN_ATTR_CONVOLUTION_DILATIONS, WK_CUDNN_TYPE_INT64, nsp, dil);
    set(g, c, WK_CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, WK_CUDNN_TYPE_INT64, nsp, stride);
    finalize(g, c, "cudnnBackendFinalize(convolution)");
    wk_cudnn_desc op = make(g, WK_CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    set_desc(g, op, WK_CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, x);
    set_desc(g, op, WK_CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, w);
    set_desc(g, op, WK_CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, y);
    set_desc(g, op, WK_CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, c);
    set(g, op, WK_CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, WK_CUDNN_TYPE_FLOAT, 1, &alpha);
    set(g, op, WK_CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, WK_CUDNN_TYPE_FLOAT, 1, &beta);
    add_op(g, op, "cudnnBackendFinalize(convolution operation)");
}

/* The plan of engine configuration cfg on h, or NULL (destroyed) when cuDNN cannot make it. */
static wk_cudnn_desc try_config(wk_cudnnHandle_t h, wk_cudnn_desc cfg, int64_t *workspace)
{
    wk_cudnn_desc plan = NULL;
    if (wk_cudnn.be_create(WK_CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan) != WK_CUDNN_STATUS_SUCCESS)
        return NULL;
    int64_t n = 0;
    bool ok = wk_cudnn.be_set(plan, WK_CUDNN_ATTR_EXECUTION_PLAN_HANDLE, WK_CUDNN_TYPE_HANDLE, 1, &h) == 0 &&
              wk_cudnn.be_set(plan, WK_CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, WK_CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                              &cfg) == 0 &&
              wk_cudnn.be_finalize(plan) == 0 &&
              wk_cudnn.be_get(plan, WK_CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, WK_CUDNN_TYPE_INT64, 1, &n,
                              workspace) == 0 &&
              n == 1 && *workspace >= 0;
    if (!ok) {
        wk_cudnn.be_destroy(plan);
        return NULL;
    }
    return plan;
}

int wk_cudnn_graph_plans(wk_cudnn_graph *g, wk_cudnnHandle_t h, int max, wk_cudnn_desc *plans, int64_t *workspace)
{
    wk_cudnn_desc graph = make(g, WK_CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    set(g, graph, WK_CUDNN_ATTR_OPERATIONGRAPH_HANDLE, WK_CUDNN_TYPE_HANDLE, 1, &h);
    set(g, graph, WK_CUDNN_ATTR_OPERATIONGRAPH_OPS, WK_CUDNN_TYPE_BACKEND_DESCRIPTOR, g->nops, g->ops);
    finalize(g, graph, "cudnnBackendFinalize(operation graph)");
    wk_cudnn_desc heur = make(g, WK_CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
    wk_cudnnBackendHeurMode_t mode = WK_CUDNN_HEUR_MODE_A;
    set_desc(g, heur, WK_CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph);
    set(g, heur, WK_CUDNN_ATTR_ENGINEHEUR_MODE, WK_CUDNN_TYPE_HEUR_MODE, 1, &mode);
    finalize(g, heur, "cudnnBackendFinalize(engine heuristics)");
    wk_cudnn_desc cfg[WK_CUDNN_GRAPH_CONFIGS];
    for (int i = 0; i < WK_CUDNN_GRAPH_CONFIGS; i++)
        cfg[i] = make(g, WK_CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
    int64_t n = 0;
    int got = 0;
    if (g->st == WK_CUDNN_STATUS_SUCCESS)
        failed(g, wk_cudnn.be_get(heur, WK_CUDNN_ATTR_ENGINEHEUR_RESULTS, WK_CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                  WK_CUDNN_GRAPH_CONFIGS, &n, cfg),
               "cudnnBackendGetAttribute(engine heuristics' results)");
    for (int64_t i = 0; g->st == WK_CUDNN_STATUS_SUCCESS && got < max && i < n && i < WK_CUDNN_GRAPH_CONFIGS; i++)
        if ((plans[got] = try_config(h, cfg[i], &workspace[got])) != NULL)
            got++;
    if (g->st == WK_CUDNN_STATUS_SUCCESS && got == 0)
        failed(g, WK_CUDNN_STATUS_NOT_SUPPORTED, "cudnnBackendFinalize(execution plan): no engine takes the graph");
    return got;
}

void wk_cudnn_graph_plan(wk_cudnn_graph *g, wk_cudnnHandle_t h)
{
    wk_cudnn_desc plan = NULL;
    int64_t ws = 0;
    if (wk_cudnn_graph_plans(g, h, 1, &plan, &ws) == 1) {
        g->plan = plan;
        g->workspace = ws;
    }
}

void wk_cudnn_plan_free(wk_cudnn_desc plan)
{
    if (plan)
        wk_cudnn.be_destroy(plan);
}

wk_cudnnStatus_t wk_cudnn_graph_run(wk_cudnn_desc plan, wk_cudnnHandle_t h, int n, const int64_t *uids,
                                    void *const *ptrs, void *workspace)
{
    wk_cudnn_desc pack = NULL;
    wk_cudnnStatus_t st = wk_cudnn.be_create(WK_CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &pack);
    if (st != WK_CUDNN_STATUS_SUCCESS)
        return st;
    st = wk_cudnn.be_set(pack, WK_CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, WK_CUDNN_TYPE_INT64, n, uids);
    if (st == WK_CUDNN_STATUS_SUCCESS)
        st = wk_cudnn.be_set(pack, WK_CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, WK_CUDNN_TYPE_VOID_PTR, n, ptrs);
    if (st == WK_CUDNN_STATUS_SUCCESS)
        st = wk_cudnn.be_set(pack, WK_CUDNN_ATTR_VARIANT_PACK_WORKSPACE, WK_CUDNN_TYPE_VOID_PTR, 1, &workspace);
    if (st == WK_CUDNN_STATUS_SUCCESS)
        st = wk_cudnn.be_finalize(pack);
    if (st == WK_CUDNN_STATUS_SUCCESS)
        st = wk_cudnn.be_execute(h, plan, pack);
    wk_cudnn.be_destroy(pack);
    return st;
}

void wk_cudnn_graph_free(wk_cudnn_graph *g)
{
    wk_cudnn_plan_free(g->plan);
    for (int i = g->nmade - 1; i >= 0; i--)
        wk_cudnn.be_destroy(g->made[i]);
    memset(g, 0, sizeof *g);
}

/* ---------------------------------------------------------------- graphs kept by key */
struct wk_cudnn_cached {
    struct {
        unsigned char *key; /* NULL: a free slot */
        wk_cudnn_graph *g;
    } slot[WK_CUDNN_CACHE_SIZE];
    int next;
};

wk_cudnn_graph *wk_cudnn_cache_find(wk_cudnn_cache *c, int ord, const void *key, bool *found)
{
    struct wk_cudnn_cached *d = c->dev[ord];
    for (int i = 0; d && i < WK_CUDNN_CACHE_SIZE; i++)
        if (d->slot[i].key && memcmp(d->slot[i].key, key, c->key_size) == 0) {
            *found = true;
            return d->slot[i].g;
        }
    *found = false;
    return NULL;
}

bool wk_cudnn_cache_store(wk_cudnn_cache *c, int ord, const void *key, wk_cudnn_graph *g)
{
    if (!c->dev[ord] && !(c->dev[ord] = calloc(1, sizeof *c->dev[ord])))
        return false;
    struct wk_cudnn_cached *d = c->dev[ord];
    unsigned char *k = malloc(c->key_size);
    if (!k)
        return false;
    memcpy(k, key, c->key_size);
    int i = d->next;
    d->next = (d->next + 1) % WK_CUDNN_CACHE_SIZE;
    if (d->slot[i].g) {
        wk_cudnn_graph_free(d->slot[i].g);
        free(d->slot[i].g);
    }
    free(d->slot[i].key);
    d->slot[i].key = k;
    d->slot[i].g = g;
    return true;
}
