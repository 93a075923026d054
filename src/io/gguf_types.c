/* gguf_types.c: the GGML tensor types a GGUF file names by number: name, block size in elements and bytes a
 * block (gguf-py 0.19's GGMLQuantizationType and GGML_QUANT_SIZES), and the file type wick loads them as. */
#include "io/gguf.h"

#define QK_K 256u

/* Numbers 4, 5 (Q4_2, Q4_3), 31-33 (Q4_0_4_4 ...) and 36-38 (IQ4_NL_4_4 ...) were removed from GGML. */
static const wk_ggml_type_info types[] = {
    [0] = {0, "F32", 1, 4, WK_FILE_F32},
    [1] = {1, "F16", 1, 2, WK_FILE_F16},
    [2] = {2, "Q4_0", 32, 2 + 16, WK_FILE_QUANTIZED},
    [3] = {3, "Q4_1", 32, 2 + 2 + 16, WK_FILE_QUANTIZED},
    [6] = {6, "Q5_0", 32, 2 + 4 + 16, WK_FILE_QUANTIZED},
    [7] = {7, "Q5_1", 32, 2 + 2 + 4 + 16, WK_FILE_QUANTIZED},
    [8] = {8, "Q8_0", 32, 2 + 32, WK_FILE_QUANTIZED},
    [9] = {9, "Q8_1", 32, 4 + 4 + 32, WK_FILE_QUANTIZED},
    [10] = {10, "Q2_K", QK_K, 2 + 2 + QK_K / 16 + QK_K / 4, WK_FILE_QUANTIZED},
    [11] = {11, "Q3_K", QK_K, 2 + QK_K / 4 + QK_K / 8 + 12, WK_FILE_QUANTIZED},
    [12] = {12, "Q4_K", QK_K, 2 + 2 + QK_K / 2 + 12, WK_FILE_QUANTIZED},
    [13] = {13, "Q5_K", QK_K, 2 + 2 + QK_K / 2 + QK_K / 8 + 12, WK_FILE_QUANTIZED},
    [14] = {14, "Q6_K", QK_K, 2 + QK_K / 2 + QK_K / 4 + QK_K / 16, WK_FILE_QUANTIZED},
    [15] = {15, "Q8_K", QK_K, 4 + QK_K + QK_K / 8, WK_FILE_QUANTIZED},
    [16] = {16, "IQ2_XXS", QK_K, 2 + QK_K / 4, WK_FILE_QUANTIZED},
    [17] = {17, "IQ2_XS", QK_K, 2 + QK_K / 4 + QK_K / 32, WK_FILE_QUANTIZED},
    [18] = {18, "IQ3_XXS", QK_K, 2 + QK_K / 4 + QK_K / 8, WK_FILE_QUANTIZED},
    [19] = {19, "IQ1_S", QK_K, 2 + QK_K / 8 + QK_K / 16, WK_FILE_QUANTIZED},
    [20] = {20, "IQ4_NL", 32, 2 + 16, WK_FILE_QUANTIZED},
    [21] = {21, "IQ3_S", QK_K, 2 + QK_K / 4 + QK_K / 8 + QK_K / 32 + 4, WK_FILE_QUANTIZED},
    [22] = {22, "IQ2_S", QK_K, 2 + QK_K / 4 + QK_K / 16, WK_FILE_QUANTIZED},
    [23] = {23, "IQ4_XS", QK_K, 2 + 2 + QK_K / 2 + QK_K / 64, WK_FILE_QUANTIZED},
    [24] = {24, "I8", 1, 1, WK_FILE_I8},
    [25] = {25, "I16", 1, 2, WK_FILE_I16},
    [26] = {26, "I32", 1, 4, WK_FILE_I32},
    [27] = {27, "I64", 1, 8, WK_FILE_I64},
    [28] = {28, "F64", 1, 8, WK_FILE_F64},
    [29] = {29, "IQ1_M", QK_K, QK_K / 8 + QK_K / 16 + QK_K / 32, WK_FILE_QUANTIZED},
    [30] = {30, "BF16", 1, 2, WK_FILE_BF16},
    [34] = {34, "TQ1_0", QK_K, 2 + 4 * 13, WK_FILE_QUANTIZED},
    [35] = {35, "TQ2_0", QK_K, 2 + 64, WK_FILE_QUANTIZED},
    [39] = {39, "MXFP4", 32, 1 + 16, WK_FILE_QUANTIZED},
    [40] = {40, "NVFP4", 64, 4 + 32, WK_FILE_QUANTIZED},
    [41] = {41, "Q1_0", 128, 2 + 16, WK_FILE_QUANTIZED},
};

/* The wick dtype of each GGML block type wick has (0: none). */
static const wk_dtype qtypes[] = {
    [2] = WK_Q4_0, [3] = WK_Q4_1, [6] = WK_Q5_0, [7] = WK_Q5_1, [8] = WK_Q8_0, [10] = WK_Q2_K, [11] = WK_Q3_K,
    [12] = WK_Q4_K, [13] = WK_Q5_K, [14] = WK_Q6_K, [15] = WK_Q8_K, [20] = WK_IQ4_NL, [23] = WK_IQ4_XS,
};

const wk_ggml_type_info *wk_ggml_type(uint32_t id)
{
    if (id >= sizeof types / sizeof types[0] || !types[id].name)
        return NULL;
    return &types[id];
}

bool wk_ggml_type_of_dtype(wk_dtype dt, uint32_t *id)
{
    switch (dt) {
    case WK_F32: *id = 0; return true;
    case WK_F16: *id = 1; return true;
    case WK_I32: *id = 26; return true;
    case WK_I64: *id = 27; return true;
    case WK_F64: *id = 28; return true;
    case WK_BF16: *id = 30; return true;
    default: break;
    }
    for (uint32_t i = 0; i < sizeof qtypes / sizeof qtypes[0]; i++)
        if (qtypes[i] != 0 && qtypes[i] == dt) { /* 0 marks no block dtype (and is WK_U8) */
            *id = i;
            return true;
        }
    return false;
}

bool wk_ggml_type_to_dtype(uint32_t id, wk_dtype *out)
{
    if (id < sizeof qtypes / sizeof qtypes[0] && qtypes[id] != 0) {
        *out = qtypes[id];
        return true;
    }
    return false;
}
