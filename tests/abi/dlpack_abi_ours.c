/* dlpack_abi_ours.c: the DLPack facts (dlpack_abi.h) under wick's own declarations. */
#include "wick_dlpack.h"

#include "dlpack_abi.h"

#define X(what, value) {what, (unsigned long long)(value)},
const wk_abi_fact wk_dlpack_ours[] = {WK_DLPACK_FACTS};
const int wk_dlpack_ours_count = (int)(sizeof wk_dlpack_ours / sizeof wk_dlpack_ours[0]);
