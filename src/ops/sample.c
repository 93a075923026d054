/* sample.c: sampling for generation (wk_sample: penalties, greedy, top-k through the topk or sort slot, then the
 * pick) and wk_multinomial: the checks and the per-row parameter table the slots read (backend.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops/common.h"

/* Value i of a parameter array (count 1 or B), or its default. */
#define PARAM(arr, i, dflt) ((arr) ? (arr)[p->count == 1 ? 0 : (i)] : (dflt))

static wk_status check_row_params(const wk_sample_params *p, int64_t i)
{
    float t = PARAM(p->temperature, i, 1.0f), tp = PARAM(p->top_p, i, 1.0f), mp = PARAM(p->min_p, i, 0.0f);
    float rep = PARAM(p->repetition_penalty, i, 1.0f), pres = PARAM(p->presence_penalty, i, 0.0f);
    int64_t k = PARAM(p->top_k, i, 0);
    if (!(t >= 0) || isinf(t))
        return wk_error(WK_ERR_INVALID_ARGUMENT, "sample: temperature %g (row %lld) must be >= 0 and finite",
                        (double)t, (long long)i);
    if (k < 0)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "sample: top_k %lld (row %lld) must be >= 0", (long long)k,
                        (long long)i);
    if (!(tp > 0 && tp <= 1))
        return wk_error(WK_ERR_INVALID_ARGUMENT, "sample: top_p %g (row %lld) must be in (0, 1]", (double)tp,
                        (long long)i);
    if (!(mp >= 0 && mp <= 1))
        return wk_error(WK_ERR_INVALID_ARGUMENT, "sample: min_p %g (row %lld) must be in [0, 1]", (double)mp,
                        (long long)i);
    if (!(rep > 0) || isinf(rep))
        return wk_error(WK_ERR_INVALID_ARGUMENT, "sample: repetition_penalty %g (row %lld) must be > 0 and finite",
                        (double)rep, (long long)i);
    if (!isfinite(pres))
        return wk_error(WK_ERR_INVALID_ARGUMENT, "sample: presence_penalty %g (row %lld) must be finite",
                        (double)pres, (long long)i);
    return WK_OK;
}

static wk_status check_sample(const wk_tensor *logits, const wk_sample_params *p, const wk_tensor *prev)
{
    WK_TRY(wk_check_tensor("sample", "logits", logits));
    WK_TRY(wk_check_float("sample", logits));
    WK_TRY(wk_check_rank("sample", "logits", logits, 2));
    int64_t B = logits->shape[0];
    if (logits->shape[1] < 1)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "sample: logits has no vocabulary (V = 0)");
    if (!p)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "sample: params is NULL");
    if (p->count != 1 && p->count != B)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "sample: params.count %lld must be 1 or B = %lld",
                        (long long)p->count, (long long)B);
    for (int64_t i = 0; i < p->count; i++)
        WK_TRY(check_row_params(p, i));
    if (!prev)
        return WK_OK;
    WK_TRY(wk_check_same_device("sample", logits, prev));
    WK_TRY(wk_check_rank("sample", "prev_ids", prev, 2));
    if (prev->dtype != WK_I64 && prev->dtype != WK_I32)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "sample: prev_ids must be i64 or i32");
    if (prev->shape[0] != B)
        return wk_error(WK_ERR_SHAPE, "sample: prev_ids has %lld rows, logits %lld", (long long)prev->shape[0],
                        (long long)B);
    return WK_OK;
}

/* The (B, WK_SAMPLE_NPARAM) table on logits' device; *kmax: the candidates the rows need; *penal: whether a
 * penalty changes anything. */
static wk_status param_table(const wk_tensor *logits, const wk_sample_params *p, int64_t *kmax, bool *penal,
                             wk_tensor **out)
{
    int64_t B = logits->shape[0], V = logits->shape[1], shape[2] = {B, WK_SAMPLE_NPARAM};
    double *t = malloc((size_t)(B * WK_SAMPLE_NPARAM) * sizeof *t + 1);
    if (!t)
        return wk_error(WK_ERR_OUT_OF_MEMORY, "sample: cannot allocate the parameter table");
    *kmax = 1;
    *penal = false;
    for (int64_t i = 0; i < B; i++) {
        double *q = t + i * WK_SAMPLE_NPARAM;
        uint64_t seed = PARAM(p->seed, i, 0);
        q[WK_SP_TEMP] = PARAM(p->temperature, i, 1.0f);
        q[WK_SP_TOPK] = (double)PARAM(p->top_k, i, 0);
        if (q[WK_SP_TOPK] <= 0 || q[WK_SP_TOPK] > (double)V)
            q[WK_SP_TOPK] = (double)V;
        q[WK_SP_TOPP] = PARAM(p->top_p, i, 1.0f);
        q[WK_SP_MINP] = PARAM(p->min_p, i, 0.0f);
        q[WK_SP_REP] = PARAM(p->repetition_penalty, i, 1.0f);
        q[WK_SP_PRES] = PARAM(p->presence_penalty, i, 0.0f);
        q[WK_SP_SEED_LO] = (double)(seed & 0xffffffffu);
        q[WK_SP_SEED_HI] = (double)(seed >> 32);
        int64_t need = q[WK_SP_TEMP] == 0 ? 1 : (int64_t)q[WK_SP_TOPK];
        *kmax = need > *kmax ? need : *kmax;
        *penal |= q[WK_SP_REP] != 1 || q[WK_SP_PRES] != 0;
    }
    wk_status s = wk_tensor_from_host(wk_dev(logits), WK_F64, 2, shape, t, out);
    free(t);
    return s;
}

/* z: the logits to select from: logits itself, or an f32 copy with the penalties applied. */
static wk_status penalised(const wk_tensor *logits, const wk_tensor *prev, const wk_tensor *params, bool penal,
                           wk_tensor **z)
{
    if (!prev || !penal || prev->shape[1] == 0) {
        wk_tensor_retain((wk_tensor *)logits);
        *z = (wk_tensor *)logits;
        return WK_OK;
    }
    WK_TRY(WK_CHECK_SLOT("sample", logits, sample_penalize));
    wk_tensor *pc = NULL;
    wk_status s = logits->dtype == WK_F32 ? wk_copy_contiguous("sample", logits, z) : wk_cast(logits, WK_F32, z);
    if (s == WK_OK)
        s = wk_copy_contiguous("sample", prev, &pc);
    if (s == WK_OK)
        s = WK_SLOT(*z, sample_penalize, *z, pc, params);
    wk_tensor_release(pc);
    return s;
}

/* The kmax candidates of every row in z, sorted as topk's largest: values as f32, ids. */
static wk_status candidates(const wk_tensor *z, int64_t kmax, wk_tensor **cv, wk_tensor **ci)
{
    wk_tensor *v = NULL;
    wk_status s = wk_topk(z, kmax, 1, true, true, &v, ci);
    if (s == WK_OK && v->dtype != WK_F32)
        s = wk_cast(v, WK_F32, cv);
    else if (s == WK_OK)
    {
        wk_tensor_retain(v);
        *cv = v;
    }
    wk_tensor_release(v);
    return s;
}

wk_status wk_sample(const wk_tensor *logits, const wk_sample_params *p, const wk_tensor *prev_ids, wk_tensor **ids)
{
    WK_TRY(wk_check_out("sample", ids));
    WK_TRY(check_sample(logits, p, prev_ids));
    WK_TRY(WK_CHECK_SLOT("sample", logits, sample_pick));
    int64_t B = logits->shape[0], kmax = 1;
    bool penal = false;
    wk_tensor *out = NULL, *params = NULL, *z = NULL, *cv = NULL, *ci = NULL;
    wk_status s = wk_alloc_output("sample", wk_dev(logits), WK_I64, 1, &B, &out);
    if (s != WK_OK || B == 0)
        return wk_finish(s, out, ids);
    s = param_table(logits, p, &kmax, &penal, &params);
    if (s == WK_OK)
        s = penalised(logits, prev_ids, params, penal, &z);
    if (s == WK_OK)
        s = candidates(z, kmax, &cv, &ci);
    if (s == WK_OK)
        s = WK_SLOT(out, sample_pick, cv, ci, params, p->offset, out);
    wk_tensor_release(params);
    wk_tensor_release(z);
    wk_tensor_release(cv);
    wk_tensor_release(ci);
    return wk_finish(s, out, ids);
}

wk_status wk_multinomial(const wk_tensor *probs, int64_t num_samples, bool replacement, uint64_t seed,
                         wk_tensor **out)
{
    WK_TRY(wk_check_out("multinomial", out));
    WK_TRY(wk_check_tensor("multinomial", "probs", probs));
    WK_TRY(wk_check_float("multinomial", probs));
    if (probs->rank != 1 && probs->rank != 2)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "multinomial: probs must be 1-D or 2-D, not rank %d", probs->rank);
    WK_TRY(WK_CHECK_SLOT("multinomial", probs, multinomial));
    int64_t V = probs->shape[probs->rank - 1], B = probs->rank == 2 ? probs->shape[0] : 1;
    if (num_samples < 0)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "multinomial: num_samples %lld is negative", (long long)num_samples);
    if (!replacement && num_samples > V)
        return wk_error(WK_ERR_INVALID_ARGUMENT,
                        "multinomial: cannot draw %lld samples without replacement from %lld categories",
                        (long long)num_samples, (long long)V);
    if (V == 0 && num_samples > 0 && B > 0)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "multinomial: probs has no categories");
    int64_t shape[2] = {B, num_samples}, shape2[2] = {B, V};
    wk_tensor *o = NULL, *pc = NULL, *p2 = NULL;
    wk_status s = wk_alloc_output("multinomial", wk_dev(probs), WK_I64, probs->rank, shape + (2 - probs->rank), &o);
    if (s != WK_OK || B * num_samples == 0)
        return wk_finish(s, o, out);
    if (probs->dtype == WK_F32 || probs->dtype == WK_F64)
        s = wk_copy_contiguous("multinomial", probs, &pc);
    else
        s = wk_cast(probs, WK_F32, &pc);
    if (s == WK_OK)
        s = wk_reshape(pc, 2, shape2, &p2);
    wk_tensor *o2 = NULL;
    if (s == WK_OK)
        s = wk_reshape(o, 2, shape, &o2);
    if (s == WK_OK)
        s = WK_SLOT(o2, multinomial, p2, num_samples, replacement, seed, o2);
    wk_tensor_release(pc);
    wk_tensor_release(p2);
    wk_tensor_release(o2);
    return wk_finish(s, o, out);
}
