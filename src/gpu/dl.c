/* dl.c: finding vendor libraries at run time (dlopen of the first name that loads, an environment
 * variable to point at another) and resolving their symbols into typed function pointers. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/runtime.h"

void *wk_gpu_dlopen_first(const char *env_override, const char *const *names, char *why, size_t why_cap)
{
    const char *forced = env_override ? getenv(env_override) : NULL;
    size_t used = 0;
    why[0] = '\0';
    if (forced && *forced) {
        void *h = dlopen(forced, RTLD_NOW | RTLD_LOCAL);
        if (!h)
            snprintf(why, why_cap, "%s=%s: %s", env_override, forced, dlerror());
        return h;
    }
    for (int i = 0; names[i]; i++) {
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (h)
            return h;
        const char *e = dlerror();
        if (used < why_cap)
            used += (size_t)snprintf(why + used, why_cap - used, "%s%s", i ? "; " : "", e ? e : names[i]);
    }
    return NULL;
}

bool wk_gpu_dlsym(void *lib, const char *symbol, void *fn_slot)
{
    void *p = dlsym(lib, symbol);
    memcpy(fn_slot, &p, sizeof p);
    return p != NULL;
}
