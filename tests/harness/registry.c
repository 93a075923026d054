/* registry.c: the case families of tests/cases/, one per op family, in the order they run. */
#include "harness.h"

extern const wkt_family wkt_family_creation, wkt_family_unary, wkt_family_binary, wkt_family_reduce,
    wkt_family_norm, wkt_family_sort, wkt_family_matmul, wkt_family_conv, wkt_family_pool, wkt_family_index,
    wkt_family_rope, wkt_family_attention, wkt_family_view, wkt_family_reorder, wkt_family_mask,
    wkt_family_quant, wkt_family_matmul_q, wkt_family_linear, wkt_family_stats, wkt_family_scan, wkt_family_sample;

static const wkt_family *const families[] = {
    &wkt_family_view,   &wkt_family_creation, &wkt_family_unary, &wkt_family_binary,
    &wkt_family_reduce, &wkt_family_norm,     &wkt_family_sort,  &wkt_family_sample, &wkt_family_matmul,
    &wkt_family_conv,   &wkt_family_pool,     &wkt_family_index, &wkt_family_rope,
    &wkt_family_reorder, &wkt_family_mask, &wkt_family_stats, &wkt_family_scan, &wkt_family_attention,
    &wkt_family_quant, &wkt_family_matmul_q, &wkt_family_linear,
};

const wkt_family *const *wkt_families(int *count)
{
    *count = (int)(sizeof families / sizeof families[0]);
    return families;
}
