// Source of the kernels in cuda_backend_gpu_test.cpp's PTX, and of the fatbins that test loads
// when RGPU_TEST_FATBIN / RGPU_TEST_FATBIN_OTHER_ARCH name them (nvcc -fatbin; see README there).
#include <cstdio>

__device__ int gvar[4];
__constant__ float cvar[8];

struct S {
  char c;
  double d;
  int i;
};

extern "C" __global__ void add(int* p, int n, S s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += n + s.i;
}

__global__ void coop(float* x) { x[threadIdx.x] = cvar[0] + gvar[0]; }

extern "C" __global__ void hello(int v) { printf("rgpu device printf %d\n", v); }
