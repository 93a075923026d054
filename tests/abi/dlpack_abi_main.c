/* dlpack_abi_main.c: wick_dlpack.h against the published dlpack.h, fact by fact (dlpack_abi.h). */
#include <stdio.h>

#include "dlpack_abi.h"

int main(void)
{
    int failed = 0;
    for (int i = 0; i < wk_dlpack_ours_count; i++)
        if (wk_dlpack_ours[i].value != wk_dlpack_real[i].value) {
            printf("FAIL %s: wick %llu, dlpack.h %llu\n", wk_dlpack_ours[i].what, wk_dlpack_ours[i].value,
                   wk_dlpack_real[i].value);
            failed++;
        }
    printf("%d passed, %d failed\n", wk_dlpack_ours_count - failed, failed);
    return failed != 0 || wk_dlpack_ours_count != wk_dlpack_real_count;
}
