/* matmul_q_x86.c: the quantized mat-vec's x86 kernels (matmul_q_x86.h) compiled for AVX2, AVX-VNNI and AVX-512 VNNI
 * through target attributes, and CPUID's word on which this CPU runs (the OS saving the vector state included). */
#include <string.h>

#include "cpu/matmul_q_dot.h"

#if defined(__GNUC__) && defined(__x86_64__)
#define MQ_X86 1
#include <cpuid.h>
#include <immintrin.h>
/* AVX-VNNI's intrinsics arrived in gcc 11 and clang 12. */
#if defined(__clang__) ? __clang_major__ >= 12 : __GNUC__ >= 11
#define MQ_HAVE_AVXVNNI 1
#endif
#endif

#ifdef MQ_X86
#define MQ_T __attribute__((target("avx2,fma,f16c")))
#define MQ_F(name) name##_avx2
#define MQ_NAME "avx2"
#define MQ_VNNI 0
#define MQ_ZMM 0
#define MQ_DPBUSD(acc, u, s) \
    _mm256_add_epi32((acc), _mm256_madd_epi16(_mm256_maddubs_epi16((u), (s)), _mm256_set1_epi16(1)))
#include "cpu/matmul_q_x86.h"
#undef MQ_T
#undef MQ_F
#undef MQ_NAME
#undef MQ_VNNI
#undef MQ_ZMM
#undef MQ_DPBUSD

#define MQ_T __attribute__((target("avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512vnni")))
#define MQ_F(name) name##_avx512
#define MQ_NAME "avx512"
#define MQ_VNNI 1
#define MQ_ZMM 1 /* 512-bit vectors where a kernel has them */
#define MQ_DPBUSD(acc, u, s) _mm256_dpbusd_epi32((acc), (u), (s))
#include "cpu/matmul_q_x86.h"
#undef MQ_T
#undef MQ_F
#undef MQ_NAME
#undef MQ_VNNI
#undef MQ_ZMM
#undef MQ_DPBUSD

#ifdef MQ_HAVE_AVXVNNI
#define MQ_T __attribute__((target("avx2,fma,f16c,avxvnni")))
#define MQ_F(name) name##_avxvnni
#define MQ_NAME "avxvnni"
#define MQ_VNNI 1
#define MQ_ZMM 0
#define MQ_DPBUSD(acc, u, s) _mm256_dpbusd_avx_epi32((acc), (u), (s))
#include "cpu/matmul_q_x86.h"
#undef MQ_T
#undef MQ_F
#undef MQ_NAME
#undef MQ_VNNI
#undef MQ_ZMM
#undef MQ_DPBUSD
#endif

/* Bit b of register r (0 eax .. 3 edx) of CPUID leaf, subleaf. */
static bool cpuid_bit(unsigned leaf, unsigned sub, int r, int b)
{
    unsigned v[4];
    if (!__get_cpuid_count(leaf, sub, &v[0], &v[1], &v[2], &v[3]))
        return false;
    return (v[r] >> b) & 1u;
}

/* Whether this CPU and its OS run instruction set isa: the features, and XCR0's bits for the registers' state (SSE and
 * AVX: 0x6; AVX-512's opmask and upper registers too: 0xe6). */
static bool x86_has(int isa)
{
    if (!cpuid_bit(1, 0, 2, 27)) /* OSXSAVE: xgetbv works */
        return false;
    unsigned lo, hi;
    __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    bool avx2 = (lo & 6u) == 6u && cpuid_bit(1, 0, 2, 12) && cpuid_bit(1, 0, 2, 29) && cpuid_bit(7, 0, 1, 5);
    switch (isa) {
    case WK_MQ_AVX2: return avx2;
    case WK_MQ_AVXVNNI: return avx2 && cpuid_bit(7, 1, 0, 4);
    default: /* AVX-512 F, BW, VL and VNNI */
        return avx2 && (lo & 0xe6u) == 0xe6u && cpuid_bit(7, 0, 1, 16) && cpuid_bit(7, 0, 1, 30) &&
               cpuid_bit(7, 0, 1, 31) && cpuid_bit(7, 0, 2, 11);
    }
}
#endif

const wk_mq_kernels *wk_mq_x86_kernels(int isa)
{
#ifdef MQ_X86
    if (!x86_has(isa))
        return NULL;
    switch (isa) {
    case WK_MQ_AVX2: return &kernels_avx2;
#ifdef MQ_HAVE_AVXVNNI
    case WK_MQ_AVXVNNI: return &kernels_avxvnni;
#endif
    case WK_MQ_AVX512: return &kernels_avx512;
    default: return NULL;
    }
#else
    (void)isa;
    return NULL;
#endif
}
