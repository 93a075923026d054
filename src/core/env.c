/* env.c: switches read from the environment once (env.h). */
#include "core/env.h"

#include <stdlib.h>
#include <string.h>

bool wk_env_on(const char *name, atomic_int *cache)
{
    int s = atomic_load(cache); /* 0: not read yet, 1: on, 2: off */
    if (s == 0) {
        const char *v = getenv(name);
        s = v && strcmp(v, "0") == 0 ? 2 : 1;
        atomic_store(cache, s);
    }
    return s == 1;
}
