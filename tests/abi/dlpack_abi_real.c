/* dlpack_abi_real.c: the DLPack facts (dlpack_abi.h) under the published dlpack.h. */
#include <dlpack/dlpack.h>

#include "dlpack_abi.h"

#define X(what, value) {what, (unsigned long long)(value)},
const wk_abi_fact wk_dlpack_real[] = {WK_DLPACK_FACTS};
const int wk_dlpack_real_count = (int)(sizeof wk_dlpack_real / sizeof wk_dlpack_real[0]);
