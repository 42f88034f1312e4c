// Naive CUDA versions of kernels/*.tile, written to tilec's kernel ABI
// (include/tilec/Target/KernelInfo.h). They stand in for the code generator
// to check the GPU test harness itself (its references, bounds, layouts and
// the AOT path): make_reference_ptx.sh compiles them to PTX with the
// `// tilec-kernel:` line, and fake-tilec.sh hands those out as if it were
// `tilec --emit=ptx`. One kernel per compilation, chosen with -D:
//   KERNEL_VECTOR_ADD, KERNEL_SOFTMAX, KERNEL_GEMM, KERNEL_FMHA
//   DT_F32 / DT_F16 / DT_BF16, and for fmha TILE_D, H, GROUP, CAUSAL.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

typedef unsigned u32;
typedef unsigned long long u64;

#if defined(DT_F16)
typedef __half T;
__device__ float ld(T x) { return __half2float(x); }
__device__ T st(float x) { return __float2half_rn(x); }
#elif defined(DT_BF16)
typedef __nv_bfloat16 T;
__device__ float ld(T x) { return __bfloat162float(x); }
__device__ T st(float x) { return __float2bfloat16_rn(x); }
#else
typedef float T;
__device__ float ld(T x) { return x; }
__device__ T st(float x) { return x; }
#endif

#ifdef KERNEL_VECTOR_ADD
// TILE = 1024 elements per block.
extern "C" __global__ void vector_add(const T *A, u32 an, u64 as, const T *B,
                                      u32 bn, u64 bs, T *C, u32 cn, u64 cs) {
  for (u32 k = threadIdx.x; k < 1024; k += blockDim.x) {
    u32 i = blockIdx.x * 1024 + k;
    if (i < cn)
      C[i * cs] = st(ld(A[i * as]) + ld(B[i * bs]));
  }
}
#endif

#ifdef KERNEL_SOFTMAX
// TILE_M = 4 rows per block, one thread per row.
extern "C" __global__ void softmax(const T *X, u32 xr, u32 xc, u64 xs0,
                                   u64 xs1, T *Y, u32 yr, u32 yc, u64 ys0,
                                   u64 ys1) {
  u32 r = blockIdx.x * 4 + threadIdx.x;
  if (threadIdx.x >= 4 || r >= xr)
    return;
  float max = -INFINITY, sum = 0;
  for (u32 c = 0; c < xc; ++c)
    max = fmaxf(max, ld(X[r * xs0 + c * xs1]));
  for (u32 c = 0; c < xc; ++c)
    sum += expf(ld(X[r * xs0 + c * xs1]) - max);
  for (u32 c = 0; c < xc; ++c)
    Y[r * ys0 + c * ys1] = st(expf(ld(X[r * xs0 + c * xs1]) - max) / sum);
}
#endif

#ifdef KERNEL_GEMM
// 128 x 128 outputs per block.
extern "C" __global__ void gemm(const T *A, u32 am, u32 ak, u64 as0, u64 as1,
                                const T *B, u32 bk, u32 bn, u64 bs0, u64 bs1,
                                T *C, u32 cm, u32 cn, u64 cs0, u64 cs1) {
  for (u32 e = threadIdx.x; e < 128 * 128; e += blockDim.x) {
    u32 i = blockIdx.x * 128 + e / 128, j = blockIdx.y * 128 + e % 128;
    if (i >= cm || j >= cn)
      continue;
    float acc = 0;
    for (u32 k = 0; k < ak; ++k)
      acc += ld(A[i * as0 + k * as1]) * ld(B[k * bs0 + j * bs1]);
    C[i * cs0 + j * cs1] = st(acc);
  }
}
#endif

#ifdef KERNEL_FMHA
// TILE_M = 64 queries per block, one thread per query.
#define T4(name)                                                               \
  u32 name##0, u32 name##1, u32 name##2, u32 name##3, u64 name##s0,           \
      u64 name##s1, u64 name##s2, u64 name##s3
extern "C" __global__ void fmha(const T *Q, T4(q), const T *K, T4(k),
                                const T *V, T4(v), T *Out, T4(o),
                                float qkScale, int inputPos) {
  u32 i = blockIdx.x * 64 + threadIdx.x;
  if (threadIdx.x >= 64 || i >= q2)
    return;
  u32 b = blockIdx.y / H, h = blockIdx.y % H, kvh = h / GROUP;
  const T *qi = Q + b * qs0 + h * qs1 + i * qs2;
  int visible = k2;
  if (CAUSAL)
    visible = min((int)k2, (int)i + inputPos + 1);
  float m = -INFINITY, l = 0, acc[TILE_D];
  for (int e = 0; e < TILE_D; ++e)
    acc[e] = 0;
  for (int j = 0; j < visible; ++j) {
    const T *kj = K + b * ks0 + kvh * ks1 + j * ks2;
    const T *vj = V + b * vs0 + kvh * vs1 + j * vs2;
    float s = 0;
    for (int e = 0; e < TILE_D; ++e)
      s += ld(qi[e * qs3]) * ld(kj[e * ks3]);
    s *= qkScale;
    float mNew = fmaxf(m, s), alpha = expf(m - mNew), p = expf(s - mNew);
    l = l * alpha + p;
    for (int e = 0; e < TILE_D; ++e)
      acc[e] = acc[e] * alpha + p * ld(vj[e * vs3]);
    m = mNew;
  }
  T *oi = Out + b * os0 + h * os1 + i * os2;
  for (int e = 0; e < TILE_D; ++e)
    oi[e * os3] = st(acc[e] / l);
}
#endif
