// Kernels written by hand to tilec's kernel ABI (include/tilec/Target/
// KernelInfo.h), so that libtile's runtime can be tested on a GPU without
// the code generator. regenerate.sh turns them into echo.ptx and axpy.ptx.
#include <cstdint>

#ifdef ECHO
// echo(A: Tensor[f32, 2], H: Tensor[f16, 1], s: float, i: int, b: bool,
//      Out: Tensor[i32, 1]): writes what it received into Out.
extern "C" __global__ void echo(const float *A, unsigned a0, unsigned a1,
                                unsigned long long as0, unsigned long long as1,
                                const unsigned short *H, unsigned h0,
                                unsigned long long hs0, float s, int i,
                                unsigned b, int *Out, unsigned o0,
                                unsigned long long os0) {
  if (blockIdx.x != 0 || threadIdx.x != 0)
    return;
  int values[] = {(int)((uintptr_t)A & 0x7fffffff),
                  (int)a0,
                  (int)a1,
                  (int)as0,
                  (int)as1,
                  (int)((uintptr_t)H & 0x7fffffff),
                  (int)h0,
                  (int)hs0,
                  __float_as_int(s),
                  i,
                  (int)b,
                  (int)blockDim.x,
                  (int)gridDim.x,
                  (int)gridDim.y,
                  (int)o0,
                  (int)os0,
                  (int)A[as0 * (a0 - 1) + as1 * (a1 - 1)],
                  (int)H[hs0 * (h0 - 1)]};
  for (int k = 0; k < 18 && k < (int)o0; ++k)
    Out[k * os0] = values[k];
}
#endif

#ifdef AXPY
// axpy(X: Tensor[f32, 2], Y: Tensor[f32, 2], alpha: float): Y += alpha X,
// over any strides. Values pass through dynamic shared memory beyond the
// 48 KB a launch gets without cuFuncSetAttribute.
extern "C" __global__ void axpy(const float *X, unsigned x0, unsigned x1,
                                unsigned long long xs0, unsigned long long xs1,
                                float *Y, unsigned y0, unsigned y1,
                                unsigned long long ys0, unsigned long long ys1,
                                float alpha) {
  extern __shared__ float staging[];
  unsigned n = x0 * x1;
  unsigned index = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned r = index / x1, c = index % x1;
  float v = index < n ? alpha * X[r * xs0 + c * xs1] : 0.0f;
  staging[threadIdx.x + 24 * 1024] = v; // byte offset > 96 KB
  __syncthreads();
  if (index < n)
    Y[r * ys0 + c * ys1] += staging[threadIdx.x + 24 * 1024];
}
#endif
