// launch_floor.cu: the host cost of launching one tiny kernel on this machine, with nothing around it,
// to put wick's tiny-op cost (`wick bench --op tiny_add,tiny_fill`) next to the floor the driver sets.
// Build and run on the GPU machine: nvcc -O2 -o launch_floor bench/launch_floor.cu -lcuda && ./launch_floor
#include <chrono>
#include <cstdio>
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void touch(float *p, float v) { p[0] = v; }

// Params of the size wick's element-wise kernels pass: three 136-byte layouts, pointers and a count.
struct layout { long long shape[8], stride[8]; int rank, contiguous; };
__global__ void touch_wide(const float *a, layout la, const float *b, layout lb, float *o, layout lo, long long n)
{
    if (n > 0) o[0] = a[0] + b[0] + (float)(la.rank + lb.rank + lo.rank);
}

template <class F> static double per_call_us(F launch, int calls)
{
    for (int i = 0; i < 1000; i++) launch();
    cudaDeviceSynchronize();
    double best = 1e30;
    for (int rep = 0; rep < 5; rep++) {
        auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < calls; i++) launch();
        cudaDeviceSynchronize();
        double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / calls;
        best = us < best ? us : best;
    }
    return best;
}

int main()
{
    float *d = nullptr;
    if (cudaMalloc(&d, 64) != cudaSuccess) { printf("launch_floor: no GPU\n"); return 1; }
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    layout l = {};
    const int calls = 20000;
    double rt = per_call_us([&] { touch<<<1, 1, 0, s>>>(d, 1.0f); }, calls);
    double wide = per_call_us([&] { touch_wide<<<1, 1, 0, s>>>(d, l, d, l, d + 4, l, 1); }, calls);
    CUfunction f;
    cudaFunction_t cf;
    cudaGetFuncBySymbol(&cf, (const void *)touch_wide);
    f = (CUfunction)cf;
    long long n = 1;
    void *args[] = {&d, &l, &d, &l, &d, &l, &n};
    double drv = per_call_us([&] { cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, (CUstream)s, args, nullptr); }, calls);
    printf("launch floor (best of 5 x %d back-to-back launches + one sync, per launch):\n", calls);
    printf("  runtime <<<>>>, 2 params:          %.2f us\n", rt);
    printf("  runtime <<<>>>, wick-sized params: %.2f us\n", wide);
    printf("  driver cuLaunchKernel, wick-sized: %.2f us\n", drv);
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
