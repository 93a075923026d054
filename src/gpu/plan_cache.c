/* plan_cache.c: the per-shape cache of the DNN libraries' algorithm choices (cuda_dnn.c, miopen.c): a fixed
 * table of plans, each starting with its key, compared bytewise, replaced round-robin when full. */
#include <string.h>

#include "gpu/gpu.h"

static void *slot(const wk_gpu_plan_cache *c, int i) { return (char *)c->slots + (size_t)i * c->plan_size; }

bool wk_gpu_plan_find(wk_gpu_plan_cache *c, const void *key, void *plan)
{
    bool found = false;
    pthread_mutex_lock(&c->lock);
    for (int i = 0; i < c->count && !found; i++)
        if (memcmp(slot(c, i), key, c->key_size) == 0) {
            memcpy(plan, slot(c, i), c->plan_size);
            found = true;
        }
    pthread_mutex_unlock(&c->lock);
    return found;
}

void wk_gpu_plan_store(wk_gpu_plan_cache *c, const void *plan)
{
    pthread_mutex_lock(&c->lock);
    int at = -1;
    for (int i = 0; i < c->count && at < 0; i++)
        if (memcmp(slot(c, i), plan, c->key_size) == 0)
            at = i;
    if (at < 0) {
        at = c->count < c->capacity ? c->count++ : c->next;
        c->next = (at + 1) % c->capacity;
    }
    memcpy(slot(c, at), plan, c->plan_size);
    pthread_mutex_unlock(&c->lock);
}
