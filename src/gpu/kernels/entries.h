/* entries.h: how the GPU kernels' entry points come from one list. Each family header (kernels/<family>.h)
 * declares its parameter struct and WK_<FAMILY>_KERNELS(X), one X(fam, set, P, A, B, W, ATTR) per kernel set:
 *   fam   the family: its kernels live in kernels/<fam>.cu, one module;
 *   set   the set's name, the stem of its entry points' names and of its device function set##_run;
 *   P     the family's parameter struct (wk_gpu_<family>_args), the one by-value parameter of every entry;
 *   A, B  axis tags (below) for the set's variants, usually dtypes (A: the data, B: a second dtype or NONE);
 *   W     the width axis: WIDTHS (built per logical warp width, common.cuh) or ONE;
 *   ATTR  attributes of the entry points (launch bounds), or nothing.
 * An entry point is named set + A's suffix + B's suffix + W's suffix ("pool_max_f32", "cast_f16_f32",
 * "norm_rms_v4_f32_w64"). Kernel files define them with WK_DEFINE_KERNELS (kernels.cuh); the host builds its
 * table of names and parameter sizes from the same lists (gpu/kernel_table.c). Plain preprocessor, no vendor
 * header: host C and both kernel compilers read it.
 *
 * An axis tag T names three macros with one meaning, WK_AX_T, WK_BX_T and WK_WX_T (a macro cannot expand itself,
 * so an axis used at two levels needs a copy per level). Each calls Y(sfx, item, ...) for every variant it
 * builds and N(sfx, item, ...) for one it does not, in slot order: the host selects a variant by its slot
 * (for the dtype axes, the wk_dtype value). item is the variant's storage type, or a value (widths, sizes).
 * Family-specific axes are declared in the family header the same way. */
#ifndef WK_GPU_KERNELS_ENTRIES_H
#define WK_GPU_KERNELS_ENTRIES_H

#define WK_STR_(x) #x
#define WK_STR(x) WK_STR_(x)

/* Every dtype in wk_dtype order: u8, u32, i32, i64, f16, bf16, f32, f64; I for the integers, F for the floats.
 * Written once per level (A and B), as every axis used at two levels must be. */
#define WK_AXIS_DTYPES_A(I, F, ...)                                                                               \
    I(_u8, uint8_t, __VA_ARGS__) I(_u32, uint32_t, __VA_ARGS__) I(_i32, int32_t, __VA_ARGS__)                     \
    I(_i64, int64_t, __VA_ARGS__) F(_f16, wk_f16, __VA_ARGS__) F(_bf16, wk_bf16, __VA_ARGS__)                    \
    F(_f32, float, __VA_ARGS__) F(_f64, double, __VA_ARGS__)
#define WK_AXIS_DTYPES_B(I, F, ...)                                                                               \
    I(_u8, uint8_t, __VA_ARGS__) I(_u32, uint32_t, __VA_ARGS__) I(_i32, int32_t, __VA_ARGS__)                     \
    I(_i64, int64_t, __VA_ARGS__) F(_f16, wk_f16, __VA_ARGS__) F(_bf16, wk_bf16, __VA_ARGS__)                    \
    F(_f32, float, __VA_ARGS__) F(_f64, double, __VA_ARGS__)
#define WK_AX_DT_ALL(Y, N, ...) WK_AXIS_DTYPES_A(Y, Y, __VA_ARGS__)
#define WK_BX_DT_ALL(Y, N, ...) WK_AXIS_DTYPES_B(Y, Y, __VA_ARGS__)
#define WK_AX_DT_FLOAT(Y, N, ...) WK_AXIS_DTYPES_A(N, Y, __VA_ARGS__)
#define WK_BX_DT_FLOAT(Y, N, ...) WK_AXIS_DTYPES_B(N, Y, __VA_ARGS__)
#define WK_AX_DT_INT(Y, N, ...) WK_AXIS_DTYPES_A(Y, N, __VA_ARGS__)

/* The index dtypes (u8, u32, i32, i64: the first four wk_dtype values). */
#define WK_AX_INDEX(Y, N, ...)                                                                                    \
    Y(_u8, uint8_t, __VA_ARGS__) Y(_u32, uint32_t, __VA_ARGS__) Y(_i32, int32_t, __VA_ARGS__)                     \
    Y(_i64, int64_t, __VA_ARGS__)
#define WK_BX_INDEX(Y, N, ...)                                                                                    \
    Y(_u8, uint8_t, __VA_ARGS__) Y(_u32, uint32_t, __VA_ARGS__) Y(_i32, int32_t, __VA_ARGS__)                     \
    Y(_i64, int64_t, __VA_ARGS__)

/* Element sizes 1, 2, 4, 8 bytes (slot = log2 of the size): kernels that only move bits. */
#define WK_AX_SIZES(Y, N, ...)                                                                                    \
    Y(_1, uint8_t, __VA_ARGS__) Y(_2, uint16_t, __VA_ARGS__) Y(_4, uint32_t, __VA_ARGS__)                         \
    Y(_8, uint64_t, __VA_ARGS__)

/* No variants: one slot, no suffix. */
#define WK_AX_NONE(Y, N, ...) Y(, wk_none, __VA_ARGS__)
#define WK_BX_NONE(Y, N, ...) Y(, wk_none, __VA_ARGS__)

/* Widths: ONE (the kernel does not depend on the warp width; its LW is 0), or WIDTHS: slot 0 the device's own
 * width, slot 1 the logical wave64 of the NVIDIA build (suffix _w64). The host lists both; an AMD build
 * compiles only slot 0, at its target's width (WK_HW_WARP). */
#define WK_WX_ONE(Y, N, ...) Y(, 0, __VA_ARGS__)
#if defined(__HIPCC__)
#define WK_WX_WIDTHS(Y, N, ...) Y(, WK_HW_WARP, __VA_ARGS__) N(_w64, 64, __VA_ARGS__)
#else
#define WK_WX_WIDTHS(Y, N, ...) Y(, 32, __VA_ARGS__) Y(_w64, 64, __VA_ARGS__)
#endif

/* Number of slots of an axis, as a constant expression. */
#define WK_AXIS_ONE_(...) +1
#define WK_AXIS_LEN(AX) (0 AX(WK_AXIS_ONE_, WK_AXIS_ONE_, ~))

#endif
