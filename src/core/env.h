/* env.h: switches read from the environment once: comparison knobs such as WICK_GPU_GEMV=0 or WICK_LINEAR_FUSED=0,
 * which turn a fast path off so that it can be measured against the path under it. */
#ifndef WK_CORE_ENV_H
#define WK_CORE_ENV_H

#include <stdatomic.h>
#include <stdbool.h>

/* Whether the switch `name` is on: off only when it is set to "0". The answer is kept in *cache (a static zero at
 * first); two threads asking at once both read the environment and get the same answer. */
bool wk_env_on(const char *name, atomic_int *cache);

#endif
