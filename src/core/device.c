/* device.c: the registry of backends compiled into this build, and device lookup by name
 * ("cpu", "cuda:0", "rocm:1", "gpu:0"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "core/error.h"
#include "core/fault.h"

static const wk_backend *const backends[] = {
    &wk_cpu_backend,
    &wk_cuda_backend,
    &wk_rocm_backend,
};

const wk_backend *const *wk_backends(int *count)
{
    *count = (int)(sizeof backends / sizeof backends[0]);
    return backends;
}

int wk_backend_count(void) { return (int)(sizeof backends / sizeof backends[0]); }

wk_status wk_backend_info_get(int index, wk_backend_info *out)
{
    if (!out || index < 0 || index >= wk_backend_count())
        return wk_error(WK_ERR_INVALID_ARGUMENT, "backend_info: no backend %d (this build has %d)", index,
                        wk_backend_count());
    return backends[index]->probe(out);
}

static wk_status parse_name(const char *name, char *prefix, size_t cap, int *ordinal)
{
    const char *colon = strchr(name, ':');
    size_t len = colon ? (size_t)(colon - name) : strlen(name);
    if (len == 0 || len >= cap)
        return WK_ERR_DEVICE;
    memcpy(prefix, name, len);
    prefix[len] = '\0';
    *ordinal = 0;
    if (colon) {
        char *end = NULL;
        long v = strtol(colon + 1, &end, 10);
        if (end == colon + 1 || *end != '\0' || v < 0 || v > 1024)
            return WK_ERR_DEVICE;
        *ordinal = (int)v;
    }
    return WK_OK;
}

wk_status wk_device_get(const char *name, wk_device **out)
{
    char prefix[16];
    int ordinal = 0;
    if (!name || !out)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "device_get: name or out is NULL");
    if (parse_name(name, prefix, sizeof prefix, &ordinal) != WK_OK)
        return wk_error(WK_ERR_DEVICE, "device_get: '%s' is not a device name (cpu, cuda:N, rocm:N, gpu:N)", name);
    bool any_gpu = strcmp(prefix, "gpu") == 0;
    for (size_t i = 0; i < sizeof backends / sizeof backends[0]; i++) {
        const wk_backend *b = backends[i];
        bool match = any_gpu ? strcmp(b->name, "cpu") != 0 : strcmp(b->name, prefix) == 0;
        if (!match)
            continue;
        wk_backend_info info;
        if (b->probe(&info) != WK_OK || !info.available) {
            if (any_gpu)
                continue;
            return wk_error(WK_ERR_DEVICE, "device_get: %s: backend unavailable: %s", name, info.detail);
        }
        if (ordinal >= info.device_count)
            return wk_error(WK_ERR_DEVICE, "device_get: %s: backend %s has %d device(s)", name, b->name,
                            info.device_count);
        return b->device(ordinal, out);
    }
    if (any_gpu)
        return wk_error(WK_ERR_DEVICE, "device_get: %s: no GPU backend with a usable device in this build", name);
    return wk_error(WK_ERR_DEVICE, "device_get: %s: no backend '%s' in this build", name, prefix);
}

const char *wk_device_name(const wk_device *dev) { return dev ? dev->name : "(null)"; }

wk_status wk_device_sync(wk_device *dev)
{
    if (!dev)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "device_sync: device is NULL");
    return dev->backend->sync(dev);
}

wk_status wk_device_native_stream(wk_device *dev, uintptr_t *out)
{
    if (!dev || !out)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "device_native_stream: %s is NULL", !dev ? "device" : "out");
    if (!dev->backend->native_stream) {
        *out = 0;
        return WK_OK;
    }
    return dev->backend->native_stream(dev, out);
}

wk_status wk_host_alloc_pinned(wk_device *dev, size_t bytes, void **out)
{
    if (!dev || !out)
        return wk_error(WK_ERR_INVALID_ARGUMENT, "host_alloc_pinned: %s is NULL", !dev ? "device" : "out");
    if (!dev->backend->host_alloc_pinned)
        return wk_error(WK_ERR_UNSUPPORTED, "host_alloc_pinned: %s has no page-locked memory (a GPU device has)",
                        dev->name);
    if (wk_fi_fail(WK_FI_DEVICE))
        return wk_error(WK_ERR_OUT_OF_MEMORY, "host_alloc_pinned: cannot allocate %zu bytes (injected)", bytes);
    return dev->backend->host_alloc_pinned(dev, bytes, out);
}

void wk_host_free_pinned(wk_device *dev, void *ptr)
{
    if (dev && ptr && dev->backend->host_free_pinned)
        dev->backend->host_free_pinned(dev, ptr);
}
