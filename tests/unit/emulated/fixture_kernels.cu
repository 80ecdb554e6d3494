// Kernels and variables whose layouts the emulated backend tests check (built with nvcc into a
// fatbin, a cubin and PTX by CMakeLists.txt).
struct Pair {
  char c;
  double d;
};

__device__ int counter;                              // zero-filled (.nv.global)
__device__ float table[100] = {1.0f, 2.0f, 3.0f};    // initialised (.nv.global.init)
__constant__ double coefficients[8] = {0.5, 0.25};   // constant bank

extern "C" __global__ void no_args() { atomicAdd(&counter, 1); }

// Offsets: c 0 (1 byte), p 8 (8), pair 16 (16), s 32 (2): 34 argument bytes.
extern "C" __global__ void mixed(char c, int* p, Pair pair, short s) {
  if (p) *p = c + s + static_cast<int>(pair.d + coefficients[0] + table[1]);
}

extern "C" __global__ void with_shared(float* out) {
  __shared__ float buffer[256];  // 1 KiB of static shared memory
  buffer[threadIdx.x] = static_cast<float>(threadIdx.x);
  __syncthreads();
  out[threadIdx.x] = buffer[255 - threadIdx.x];
}

extern "C" __global__ void __launch_bounds__(256) bounded(int* out) { out[threadIdx.x] = 1; }

// Keeps many values live: ptxas gives it 168 registers a thread (nvcc 13, sm_90), so at most 12
// warps fit in a block's 64 Ki registers.
extern "C" __global__ void register_hungry(float* out, const float* in) {
  float v[160];
#pragma unroll
  for (int i = 0; i < 160; ++i) v[i] = in[i * blockDim.x + threadIdx.x];
  float s = 0;
#pragma unroll
  for (int i = 0; i < 160; ++i)
#pragma unroll
    for (int j = i; j < 160; j += 37) s += v[i] * v[j];
  out[threadIdx.x] = s;
}

__global__ void scale(int n, const float* x, float* y) {  // a C++ (mangled) name
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}
