/* gguf.h: what the GGUF reader and writer share (gguf.c, gguf_meta.c, gguf_types.c, gguf_write.c): the GGML
 * type table, the metadata value node, a bounded cursor over the mapping and the arena the tree lives in. */
#ifndef WK_IO_GGUF_H
#define WK_IO_GGUF_H

#include <stdatomic.h>

#include "io/io.h"

#define WK_GGUF_DEFAULT_ALIGNMENT 32u
#define WK_GGUF_MAX_DEPTH 64 /* arrays nest at most this deep */

/* ---- the GGML tensor types (gguf_types.c, from gguf-py's GGMLQuantizationType and GGML_QUANT_SIZES) */
typedef struct wk_ggml_type_info {
    uint32_t id;
    const char *name;     /* "F32", "Q4_K", ... */
    uint32_t block;       /* elements a block */
    uint32_t block_bytes; /* bytes a block */
    wk_file_type ft;      /* WK_FILE_QUANTIZED for the block types */
} wk_ggml_type_info;
/* The entry of GGML type id, or NULL when this build does not know it. */
const wk_ggml_type_info *wk_ggml_type(uint32_t id);
/* The GGML type a tensor of dt is written as; false for dtypes GGUF has no type for (u8, u32). */
bool wk_ggml_type_of_dtype(wk_dtype dt, uint32_t *id);
/* The block-quantized wick dtype of GGML type id; false for the others (and for the block types wick lacks). */
bool wk_ggml_type_to_dtype(uint32_t id, wk_dtype *out);

/* ---- metadata values (gguf_meta.c) */
/* A node of the metadata tree. Scalars hold their value (integers widened to 64 bits, floats to double).
 * Strings point at an arena copy with a NUL after the n bytes. Arrays of strings and of arrays own n element
 * nodes made while parsing; arrays of fixed-size scalars point at their bytes in the mapping (raw) and make
 * their element nodes, in one allocation, on the first wk_gguf_value_array_get. */
struct wk_gguf_value {
    uint32_t type;
    uint32_t elem_type; /* arrays */
    uint64_t n;         /* string bytes or array elements */
    union {
        uint64_t u;
        int64_t i;
        double f;
        const char *s;
        const unsigned char *raw;
    } v;
    _Atomic(wk_gguf_value *) elems; /* arrays: element nodes (NULL until made for scalar arrays) */
};

/* Bytes of one value of a fixed-size scalar type; 0 for strings, arrays and unknown types. */
size_t wk_gguf_scalar_size(uint32_t type);
/* "uint8" ... "float64"; "unknown" for other numbers. */
const char *wk_gguf_type_name(uint32_t type);

/* A bump allocator that owns the tree's strings and nodes; everything goes at once. */
typedef struct wk_gguf_arena {
    struct wk_gguf_arena_block *head;
} wk_gguf_arena;
void *wk_gguf_arena_alloc(wk_gguf_arena *a, size_t n); /* 8-byte aligned, NULL when out of memory */
void wk_gguf_arena_free(wk_gguf_arena *a);

/* Reads of the mapping that never pass its end: a short read is WK_ERR_FILE naming path and what. */
typedef struct wk_gguf_cursor {
    const unsigned char *base;
    size_t size, pos;
    const char *path;
} wk_gguf_cursor;
static inline size_t wk_gguf_left(const wk_gguf_cursor *c) { return c->size - c->pos; }
wk_status wk_gguf_read_u32(wk_gguf_cursor *c, const char *what, uint32_t *out);
wk_status wk_gguf_read_u64(wk_gguf_cursor *c, const char *what, uint64_t *out);
/* A string (u64 length, bytes) copied into the arena with a NUL after it. */
wk_status wk_gguf_read_string(wk_gguf_cursor *c, wk_gguf_arena *a, const char *what, const char **s,
                              uint64_t *len);
/* The value of type `type` at the cursor into *out (arrays recursively, depth levels deep already). what
 * names the key, for messages. */
wk_status wk_gguf_parse_value(wk_gguf_cursor *c, wk_gguf_arena *a, uint32_t type, int depth, const char *what,
                              wk_gguf_value *out);
/* Frees the element nodes made lazily under v (the arena's own go with the arena). */
void wk_gguf_value_free_lazy(wk_gguf_value *v);

/* Writes v as the GGUF bytes of a value of its type (without the type itself) through put; used by the
 * writer to copy a value read from a file, nested arrays included. */
typedef bool (*wk_gguf_put)(void *ctx, const void *p, size_t n);
bool wk_gguf_value_encode(const wk_gguf_value *v, wk_gguf_put put, void *ctx);

#endif
