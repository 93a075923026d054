/* vendor_lib.c: loading a vendor library from its symbol table, once, and its per-device handles (vendor_lib.h). */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "gpu/runtime.h"
#include "gpu/vendor_lib.h"

/* Why the last handle failed on this thread (a `why` handed out must outlive the call). */
static _Thread_local char handle_error[320];

static void load_locked(wk_gpu_lib *l)
{
    for (int i = 0; i < WK_GPU_MAX_DEVICES; i++)
        pthread_mutex_init(&l->use_lock[i], NULL);
    char tried[448];
    void *lib = wk_gpu_dlopen_first(l->env, l->names, tried, sizeof tried);
    if (!lib) {
        snprintf(l->error, sizeof l->error, "%s not found (%s names its path): %s", l->name, l->env, tried);
        return;
    }
    for (int i = 0; i < l->nsyms; i++)
        if (!wk_gpu_dlsym(lib, l->syms[i].name, l->syms[i].slot) && !l->syms[i].optional) {
            snprintf(l->error, sizeof l->error, "the %s found lacks %s (%s is needed)", l->name, l->syms[i].name,
                     l->needs);
            dlclose(lib);
            return;
        }
    if (l->check && !l->check(l->error, sizeof l->error)) {
        dlclose(lib);
        return;
    }
    l->error[0] = '\0';
}

bool wk_gpu_lib_load(wk_gpu_lib *l, const char **why)
{
    if (!atomic_load_explicit(&l->loaded, memory_order_acquire)) {
        pthread_mutex_lock(&l->load_lock);
        if (!atomic_load_explicit(&l->loaded, memory_order_relaxed)) {
            load_locked(l);
            atomic_store_explicit(&l->loaded, true, memory_order_release);
        }
        pthread_mutex_unlock(&l->load_lock);
    }
    if (l->error[0]) {
        *why = l->error;
        return false;
    }
    return true;
}

/* The handle made for (ordinal, stream) among the other streams', or NULL. */
static void *stream_handle(wk_gpu_lib *l, int ord, void *stream)
{
    int n = atomic_load_explicit(&l->on_stream_count, memory_order_acquire);
    for (int i = 0; i < n; i++)
        if (l->on_stream[i].stream == stream && l->on_stream[i].ordinal == ord)
            return l->on_stream[i].handle;
    return NULL;
}

/* Makes the handle under make_lock; NULL with handle_error filled on failure. */
static void *make_handle(wk_gpu_lib *l, wk_gpu_dev *d, void *stream, bool on_default)
{
    int ord = wk_gpu_ordinal(d);
    const char *call = NULL, *text = NULL;
    void *h = NULL;
    if (!on_default && atomic_load(&l->on_stream_count) == WK_GPU_LIB_STREAM_HANDLES) {
        snprintf(handle_error, sizeof handle_error, "%s on %s: handles for %d streams made already (the most "
                 "wick keeps)", l->name, wk_gpu_dev_name(d), WK_GPU_LIB_STREAM_HANDLES);
        return NULL;
    }
    if (!l->create(d, stream, &h, &call, &text)) {
        snprintf(handle_error, sizeof handle_error, "%s on %s: %s failed: %s", l->name, wk_gpu_dev_name(d), call,
                 text);
        return NULL;
    }
    if (on_default) {
        atomic_store_explicit(&l->handle[ord], h, memory_order_release);
    } else {
        int n = atomic_load(&l->on_stream_count);
        l->on_stream[n] = (struct wk_gpu_lib_stream){.stream = stream, .handle = h, .ordinal = ord};
        atomic_store_explicit(&l->on_stream_count, n + 1, memory_order_release);
    }
    return h;
}

void *wk_gpu_lib_handle(wk_gpu_lib *l, wk_gpu_dev *d, const char **why)
{
    if (!wk_gpu_lib_load(l, why))
        return NULL;
    int ord = wk_gpu_ordinal(d); /* below WK_GPU_MAX_DEVICES: the backend opens no more */
    void *stream = wk_gpu_stream(d);
    bool on_default = wk_gpu_on_default_stream(d);
    void *h = on_default ? atomic_load_explicit(&l->handle[ord], memory_order_acquire)
                         : stream_handle(l, ord, stream);
    if (h)
        return h;
    pthread_mutex_lock(&l->make_lock);
    h = on_default ? atomic_load_explicit(&l->handle[ord], memory_order_relaxed) : stream_handle(l, ord, stream);
    if (!h)
        h = make_handle(l, d, stream, on_default);
    pthread_mutex_unlock(&l->make_lock);
    if (!h)
        *why = handle_error;
    return h;
}

bool wk_gpu_lib_serves(wk_gpu_lib *l, wk_gpu_dev *d, const char **why)
{
    const char *w = NULL;
    if (wk_gpu_lib_handle(l, d, &w))
        return true;
    if (why)
        *why = w;
    return false;
}

pthread_mutex_t *wk_gpu_lib_lock(wk_gpu_lib *l, wk_gpu_dev *d) { return &l->use_lock[wk_gpu_ordinal(d)]; }
