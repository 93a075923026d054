/* info.c: build information for `wick info`, and the small enum-name tables of the public API. */
#include "backend.h"
#include "build_config.h"
#include "wick.h"

void wk_get_build_info(wk_build_info *out)
{
    if (!out)
        return;
    out->version = WICK_VERSION_STRING;
    out->build_type = WICK_BUILD_TYPE;
    out->options = WICK_BUILD_OPTIONS;
    out->cuda_targets = wk_cuda_backend.kernel_targets;
    out->rocm_targets = wk_rocm_backend.kernel_targets;
}
