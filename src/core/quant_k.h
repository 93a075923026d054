/* quant_k.h: the K-type quantizers (Q4_K, Q5_K, Q6_K) for host and GPU, included by quant_blocks.h. The method is
 * ggml's reference quantizers' (quantize_row_q{4,5,6}_K_ref): per sub-block a weighted least-squares search over a
 * few candidate scales (make_qkx2_quants for scale + min, make_qx_quants for a signed scale), then the sub-block
 * scales themselves quantized to 6 bits (8 for Q6_K) against a super-block f16 scale. */
#ifndef WK_CORE_QUANT_K_H
#define WK_CORE_QUANT_K_H

/* Round to nearest (ties to even) for |v| < 2^22, by adding 1.5 * 2^23 and reading the mantissa bits. */
WK_HD int wk_q_nearest(float v)
{
    float t = v + 12582912.0f;
    return (int)(wk_f32_bits(t) & 0x007fffffu) - 0x00400000;
}
WK_HD int wk_q_clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

/* Scale and min (returned negated in *the_min, >= 0) of n values on levels 0..nmax, minimising the weighted squared
 * error over nstep+1 candidate scales (ggml's make_qkx2_quants, use_mad false). */
WK_HD float wk_q_fit_min(int n, int nmax, const float *x, const float *w, uint8_t *L, float *the_min, float rmin,
                         float rdelta, int nstep)
{
    float mn = x[0], mx = x[0], sum_w = w[0], sum_x = WK_QMUL(w[0], x[0]);
    for (int i = 1; i < n; i++) {
        mn = x[i] < mn ? x[i] : mn;
        mx = x[i] > mx ? x[i] : mx;
        sum_w += w[i];
        sum_x += WK_QMUL(w[i], x[i]);
    }
    if (mn > 0)
        mn = 0;
    if (mx == mn) {
        for (int i = 0; i < n; i++)
            L[i] = 0;
        *the_min = -mn;
        return 0.0f;
    }
    float iscale = (float)nmax / (mx - mn), scale = 1 / iscale, best = 0;
    for (int i = 0; i < n; i++) {
        L[i] = (uint8_t)wk_q_clampi(wk_q_nearest(WK_QMUL(iscale, x[i] - mn)), 0, nmax);
        float diff = WK_QMUL(scale, L[i]) + mn - x[i];
        best += WK_QMUL(w[i], WK_QMUL(diff, diff));
    }
    uint8_t aux[WK_QK];
    for (int is = 0; is <= nstep; is++) {
        iscale = (rmin + WK_QMUL(rdelta, is) + (float)nmax) / (mx - mn);
        float sum_l = 0, sum_l2 = 0, sum_xl = 0;
        for (int i = 0; i < n; i++) {
            int l = wk_q_clampi(wk_q_nearest(WK_QMUL(iscale, x[i] - mn)), 0, nmax);
            aux[i] = (uint8_t)l;
            float wl = WK_QMUL(w[i], l);
            sum_l += wl;
            sum_l2 += WK_QMUL(wl, l);
            sum_xl += WK_QMUL(wl, x[i]);
        }
        float D = WK_QMUL(sum_w, sum_l2) - WK_QMUL(sum_l, sum_l);
        if (D > 0) {
            float ts = (WK_QMUL(sum_w, sum_xl) - WK_QMUL(sum_x, sum_l)) / D;
            float tm = (WK_QMUL(sum_l2, sum_x) - WK_QMUL(sum_l, sum_xl)) / D;
            if (tm > 0) {
                tm = 0;
                ts = sum_xl / sum_l2;
            }
            float err = 0;
            for (int i = 0; i < n; i++) {
                float diff = WK_QMUL(ts, aux[i]) + tm - x[i];
                err += WK_QMUL(w[i], WK_QMUL(diff, diff));
            }
            if (err < best) {
                for (int i = 0; i < n; i++)
                    L[i] = aux[i];
                best = err;
                scale = ts;
                mn = tm;
            }
        }
    }
    *the_min = -mn;
    return scale;
}

/* Q4_K (bits 4) / Q5_K (bits 5): 8 sub-blocks of 32, each a scale and a min, both 6-bit against f16 d and dmin. */
WK_HD void wk_q_quant_q45_k(const float *x, uint8_t *y, int bits)
{
    int nmax = bits == 4 ? 15 : 31;
    uint8_t L[WK_QK_K], *sc = y + 4;
    float mins[8], scales[8], w[WK_QK], max_scale = 0, max_min = 0;
    for (int j = 0; j < 8; j++) {
        const float *xs = x + 32 * j;
        float sum_x2 = 0;
        for (int l = 0; l < 32; l++)
            sum_x2 += WK_QMUL(xs[l], xs[l]);
        float av_x = sqrtf(sum_x2 / 32);
        for (int l = 0; l < 32; l++)
            w[l] = av_x + fabsf(xs[l]);
        scales[j] = wk_q_fit_min(32, nmax, xs, w, L + 32 * j, &mins[j], bits == 4 ? -1.0f : -0.5f, 0.1f,
                                 bits == 4 ? 20 : 15);
        max_scale = scales[j] > max_scale ? scales[j] : max_scale;
        max_min = mins[j] > max_min ? mins[j] : max_min;
    }
    float inv_scale = max_scale > 0 ? 63.0f / max_scale : 0.0f, inv_min = max_min > 0 ? 63.0f / max_min : 0.0f;
    for (int j = 0; j < 8; j++) {
        uint8_t ls = (uint8_t)wk_q_nearest(WK_QMUL(inv_scale, scales[j]));
        uint8_t lm = (uint8_t)wk_q_nearest(WK_QMUL(inv_min, mins[j]));
        ls = ls < 63 ? ls : 63;
        lm = lm < 63 ? lm : 63;
        if (j < 4) {
            sc[j] = ls;
            sc[j + 4] = lm;
        } else {
            sc[j + 4] = (uint8_t)((ls & 15) | ((lm & 15) << 4));
            sc[j - 4] |= (uint8_t)((ls >> 4) << 6);
            sc[j] |= (uint8_t)((lm >> 4) << 6);
        }
    }
    wk_q_put_f16(y, max_scale / 63.0f);
    wk_q_put_f16(y + 2, max_min / 63.0f);
    for (int j = 0; j < 8; j++) {
        unsigned s, m;
        wk_q_scale_min_k4(sc, j, &s, &m);
        float d = WK_QMUL(wk_q_f16(y), s);
        if (d == 0)
            continue;
        float dm = WK_QMUL(wk_q_f16(y + 2), m);
        for (int i = 0; i < 32; i++)
            L[32 * j + i] = (uint8_t)wk_q_clampi(wk_q_nearest((x[32 * j + i] + dm) / d), 0, nmax);
    }
    uint8_t *qh = y + 16, *ql = y + (bits == 4 ? 16 : 48);
    if (bits == 5)
        for (int l = 0; l < 32; l++)
            qh[l] = 0;
    for (int c = 0; c < 4; c++)
        for (int l = 0; l < 32; l++) {
            unsigned l1 = L[64 * c + l], l2 = L[64 * c + 32 + l];
            if (bits == 5)
                qh[l] |= (uint8_t)(((l1 >> 4) << (2 * c)) | ((l2 >> 4) << (2 * c + 1)));
            ql[32 * c + l] = (uint8_t)((l1 & 15) | ((l2 & 15) << 4));
        }
}

/* A signed scale for 16 values on levels -nmax..nmax-1, weights x^2, best of 19 candidates (make_qx_quants,
 * rmse_type 1). L gets the levels + nmax. */
WK_HD float wk_q_fit_signed(const float *x, int8_t *L, int nmax)
{
    float amax = 0, max = 0;
    for (int i = 0; i < 16; i++)
        if (fabsf(x[i]) > amax) {
            amax = fabsf(x[i]);
            max = x[i];
        }
    if (amax < 1e-15f) {
        for (int i = 0; i < 16; i++)
            L[i] = 0;
        return 0.0f;
    }
    float iscale = (float)-nmax / max, sumlx = 0, suml2 = 0;
    for (int i = 0; i < 16; i++) {
        int l = wk_q_clampi(wk_q_nearest(WK_QMUL(iscale, x[i])), -nmax, nmax - 1);
        L[i] = (int8_t)(l + nmax);
        float w = WK_QMUL(x[i], x[i]);
        sumlx += WK_QMUL(WK_QMUL(w, x[i]), l);
        suml2 += WK_QMUL(WK_QMUL(w, l), l);
    }
    float scale = suml2 != 0 ? sumlx / suml2 : 0.0f, best = WK_QMUL(scale, sumlx);
    for (int is = -9; is <= 9; is++) {
        if (is == 0)
            continue;
        iscale = -((float)nmax + WK_QMUL(0.1f, is)) / max;
        sumlx = suml2 = 0;
        for (int i = 0; i < 16; i++) {
            int l = wk_q_clampi(wk_q_nearest(WK_QMUL(iscale, x[i])), -nmax, nmax - 1);
            float w = WK_QMUL(x[i], x[i]);
            sumlx += WK_QMUL(WK_QMUL(w, x[i]), l);
            suml2 += WK_QMUL(WK_QMUL(w, l), l);
        }
        if (suml2 > 0 && WK_QMUL(sumlx, sumlx) > WK_QMUL(best, suml2)) {
            for (int i = 0; i < 16; i++)
                L[i] = (int8_t)(nmax + wk_q_clampi(wk_q_nearest(WK_QMUL(iscale, x[i])), -nmax, nmax - 1));
            scale = sumlx / suml2;
            best = WK_QMUL(scale, sumlx);
        }
    }
    return scale;
}

/* Q6_K: 16 sub-blocks of 16, 8-bit signed scales against an f16 d, 6-bit values. */
WK_HD void wk_q_quant_q6_k(const float *x, uint8_t *y)
{
    int8_t L[WK_QK_K];
    float scales[16], max_scale = 0, max_abs = 0;
    for (int ib = 0; ib < 16; ib++) {
        scales[ib] = wk_q_fit_signed(x + 16 * ib, L + 16 * ib, 32);
        if (fabsf(scales[ib]) > max_abs) {
            max_abs = fabsf(scales[ib]);
            max_scale = scales[ib];
        }
    }
    for (int i = 0; i < 210; i++)
        y[i] = 0;
    if (max_abs < 1e-15f)
        return;
    float iscale = -128.0f / max_scale;
    wk_q_put_f16(y + 208, 1 / iscale);
    for (int ib = 0; ib < 16; ib++) {
        int s = wk_q_nearest(WK_QMUL(iscale, scales[ib]));
        y[192 + ib] = (uint8_t)(int8_t)(s < 127 ? s : 127);
    }
    for (int j = 0; j < 16; j++) {
        float d = WK_QMUL(wk_q_f16(y + 208), (int8_t)y[192 + j]);
        if (d == 0)
            continue;
        for (int i = 0; i < 16; i++)
            L[16 * j + i] = (int8_t)(wk_q_clampi(wk_q_nearest(x[16 * j + i] / d), -32, 31) + 32);
    }
    for (int h = 0; h < 2; h++)
        for (int l = 0; l < 32; l++) {
            const int8_t *q = L + 128 * h + l;
            y[64 * h + l] = (uint8_t)((q[0] & 15) | ((q[64] & 15) << 4));
            y[64 * h + 32 + l] = (uint8_t)((q[32] & 15) | ((q[96] & 15) << 4));
            y[128 + 32 * h + l] = (uint8_t)((q[0] >> 4) | ((q[32] >> 4) << 2) | ((q[64] >> 4) << 4) | ((q[96] >> 4) << 6));
        }
}

#endif
