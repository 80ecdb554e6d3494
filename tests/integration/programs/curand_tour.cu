// cuRAND through the libcurand.so.10 shim against rgpud --emulate (whose cuRAND has generators of
// its own: the numbers check the plumbing, not NVIDIA's algorithms): generators created, seeded,
// put on a stream and destroyed; uniform and normal numbers into device memory; one seed, one
// sequence; a quasi-random generator refusing a seed at once; the version; the quasi-random tables
// copied whole; and the unsupported and not-available answers. Prints "ok: ..." per check and "ok: curand_tour" last.
#include <cuda_runtime.h>
#include <curand.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "tour_checks.h"

#define CHECK_RAND(x) CHECK_STATUS(#x, x, CURAND_STATUS_SUCCESS, status_number)

int main() {
  int version = 0;
  CHECK_RAND(curandGetVersion(&version));
  EXPECT(version == CURAND_VERSION, "curandGetVersion answers the library's version");

  const size_t n = 4096;
  float* d = nullptr;
  CHECK_CUDA(cudaMalloc(&d, 2 * n * sizeof(float)));
  cudaStream_t stream = nullptr;
  CHECK_CUDA(cudaStreamCreate(&stream));
  curandGenerator_t g = nullptr, again = nullptr;
  CHECK_RAND(curandCreateGenerator(&g, CURAND_RNG_PSEUDO_DEFAULT));
  CHECK_RAND(curandSetPseudoRandomGeneratorSeed(g, 1234));
  CHECK_RAND(curandSetStream(g, stream));
  CHECK_RAND(curandGenerateUniform(g, d, n));
  CHECK_RAND(curandGenerateNormal(g, d + n, n, 2.0f, 3.0f));
  std::vector<float> got(2 * n);
  CHECK_CUDA(cudaMemcpyAsync(got.data(), d, got.size() * sizeof(float), cudaMemcpyDeviceToHost, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  bool in_range = true;
  double uniform_sum = 0, normal_sum = 0;
  for (size_t i = 0; i < n; ++i) {
    in_range &= got[i] > 0.0f && got[i] <= 1.0f;
    uniform_sum += got[i];
    normal_sum += got[n + i];
  }
  EXPECT(in_range && std::fabs(uniform_sum / n - 0.5) < 0.05, "uniform numbers in (0, 1], mean near 1/2");
  EXPECT(std::fabs(normal_sum / n - 2.0) < 0.3, "normal numbers, mean near the one asked");

  // The same seed makes the same sequence.
  CHECK_RAND(curandCreateGenerator(&again, CURAND_RNG_PSEUDO_DEFAULT));
  CHECK_RAND(curandSetPseudoRandomGeneratorSeed(again, 1234));
  CHECK_RAND(curandGenerateUniform(again, d, n));
  std::vector<float> replay(n);
  CHECK_CUDA(cudaMemcpy(replay.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
  bool same = true;
  for (size_t i = 0; i < n; ++i) same &= replay[i] == got[i];
  EXPECT(same, "one seed, one sequence");

  // A setter's failure is the caller's to see at once.
  curandGenerator_t quasi = nullptr;
  CHECK_RAND(curandCreateGenerator(&quasi, CURAND_RNG_QUASI_SOBOL32));
  EXPECT(curandSetPseudoRandomGeneratorSeed(quasi, 1) == CURAND_STATUS_TYPE_ERROR,
         "a quasi-random generator refuses a seed, at once");

  // The quasi-random tables: copied from the server once, then answered from the copy.
  curandDirectionVectors32_t* vectors = nullptr;
  curandDirectionVectors32_t* scrambled = nullptr;
  curandDirectionVectors32_t* again_vectors = nullptr;
  CHECK_RAND(curandGetDirectionVectors32(&vectors, CURAND_DIRECTION_VECTORS_32_JOEKUO6));
  CHECK_RAND(curandGetDirectionVectors32(&scrambled, CURAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6));
  CHECK_RAND(curandGetDirectionVectors32(&again_vectors, CURAND_DIRECTION_VECTORS_32_JOEKUO6));
  // The emulated backend's pattern: entry k of dimension d is d * 32 + k (+ 1,000,000 scrambled).
  EXPECT(vectors[0][0] == 0 && vectors[1][5] == 37 && vectors[19999][31] == 19999u * 32 + 31 &&
             scrambled[19999][31] == 19999u * 32 + 31 + 1000000,
         "the direction vectors arrive whole, all 20,000 dimensions of each set");
  EXPECT(again_vectors == vectors, "a second call answers the same copy");
  EXPECT(curandGetDirectionVectors32(&again_vectors, CURAND_DIRECTION_VECTORS_64_JOEKUO6) == CURAND_STATUS_OUT_OF_RANGE,
         "a 64-bit set is no 32-bit table");
  unsigned int* constants = nullptr;
  CHECK_RAND(curandGetScrambleConstants32(&constants));
  EXPECT(constants[0] == 0 && constants[19999] == 19999, "the scramble constants arrive whole");
  unsigned long long* constants64 = nullptr;
  EXPECT(curandGetScrambleConstants64(&constants64) == CURAND_STATUS_INTERNAL_ERROR,
         "a table the backend lacks is an error");

  // Not forwarded (a host generator): an error, and its name on stderr. Forwarded but missing from
  // the emulated backend: named in rgpud's log.
  curandGenerator_t host = nullptr;
  EXPECT(curandCreateGeneratorHost(&host, CURAND_RNG_PSEUDO_DEFAULT) != CURAND_STATUS_SUCCESS,
         "a host generator is refused");
  double* dd = nullptr;
  CHECK_CUDA(cudaMalloc(&dd, 16 * sizeof(double)));
  (void)curandGenerateUniformDouble(g, dd, 16);
  CHECK_CUDA(cudaDeviceSynchronize());

  CHECK_RAND(curandDestroyGenerator(g));
  CHECK_RAND(curandDestroyGenerator(again));
  CHECK_RAND(curandDestroyGenerator(quasi));
  CHECK_CUDA(cudaFree(dd));
  CHECK_CUDA(cudaFree(d));
  CHECK_CUDA(cudaStreamDestroy(stream));
  std::printf("ok: curand_tour\n");
  return 0;
}
