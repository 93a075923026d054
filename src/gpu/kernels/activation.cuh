/* activation.cuh: the activations wk_unary and the gated units share with the fused linear layer's epilogue
 * (unary.cu, linear.cuh): float and double overloads (f16/bf16 compute in float), the same expressions as the CPU's
 * (cpu/vmath.h), so a fused gated unit gives the bits of wk_glu's on the same f32 inputs. */
#ifndef WK_GPU_ACTIVATION_CUH
#define WK_GPU_ACTIVATION_CUH

#include "common.cuh"

#define UN_GELU_K 0.79788456080286535588 /* sqrt(2/pi) */
#define UN_SQRT1_2 0.70710678118654752440

/* Through e = e^{-|x|} <= 1, so neither side overflows (cpu/vmath.h's wk_vsigmoidf). NaN gives NaN. */
__device__ __forceinline__ float un_sigmoidf(float v)
{
    float e = expf(-fabsf(v));
    float d = 1.0f / (1.0f + e);
    return v < 0.0f ? e * d : d;
}

/* gelu(tanh) = x sigmoid(2z): sigmoid avoids the cancellation of 1 + tanh z for x < 0. For f32 the argument
 * 2z is computed in f64, as on the CPU: near x = -4 its rounding in f32 alone exceeds the f32 tolerance. */
__device__ __forceinline__ float un_gelu_of(float v)
{
    return v * un_sigmoidf((float)(2.0 * UN_GELU_K * ((double)v + 0.044715 * (double)v * v * v)));
}
__device__ __forceinline__ double un_gelu_of(double v)
{
    double z2 = 2.0 * UN_GELU_K * (v + 0.044715 * v * v * v);
    if (z2 >= 0)
        return v / (1.0 + exp(-z2));
    double e = exp(z2);
    return v * e / (1.0 + e);
}

#define UN_ACT(name, ef, ed)                                                       \
    struct un_##name {                                                             \
        __device__ __forceinline__ float operator()(float v) const { return ef; }  \
        __device__ __forceinline__ double operator()(double v) const { return ed; } \
    };
UN_ACT(gelu, un_gelu_of(v), un_gelu_of(v))
/* f32 (and f16/bf16) in f64 as on the CPU: erfc's argument and result keep the f32 tolerance near x = -4. */
UN_ACT(gelu_erf, (float)(0.5 * v * erfc(-(double)v * UN_SQRT1_2)), 0.5 * v * erfc(-v * UN_SQRT1_2))
UN_ACT(silu, v * un_sigmoidf(v), v / (1.0 + exp(-v))) /* silu(-inf) = NaN, as on the CPU */
UN_ACT(sigmoid, un_sigmoidf(v), 1.0 / (1.0 + exp(-v)))
#undef UN_ACT

/* The gated units: out = f(a, b) of the halves a and b. */
#define UN_GLU(name, expr)                                                                                        \
    struct un_glu_##name {                                                                                        \
        template <class C> __device__ __forceinline__ C operator()(C a, C b) const { return expr; }               \
    };
UN_GLU(sigmoid, a * un_sigmoid()(b))
UN_GLU(swiglu, un_silu()(a) * b)
UN_GLU(geglu, un_gelu_erf()(a) * b)
UN_GLU(geglu_tanh, un_gelu()(a) * b)
#undef UN_GLU

#endif
