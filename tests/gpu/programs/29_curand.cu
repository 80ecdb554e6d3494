// cuRAND's host API through the libcurand.so.10 shim: XORWOW, Philox and MRG32k3a generators seeded
// and put on a stream, uniform, normal, log-normal and Poisson numbers into device memory, checked
// against their statistics, a Sobol32 quasi-random sequence, one seed making one sequence and an
// offset another, and the quasi-random tables (checksums). Each
// batch's first values and sums are printed to 9 digits, so a remote run must print exactly what
// the native one does.
#include <cuda_runtime.h>
#include <curand.h>

#include <cmath>
#include <vector>

#include "suite_check.h"

#define CHECK_RAND(call) check_rand((call), #call, __LINE__)
inline void check_rand(curandStatus_t status, const char* call, int line) {
  if (status != CURAND_STATUS_SUCCESS) {
    say("FAIL: %s returned curandStatus %d (line %d)\n", call, static_cast<int>(status), line);
    exit(1);
  }
}

namespace {

template <typename T>
void describe(const char* what, const std::vector<T>& v, double* mean, double* variance) {
  double sum = 0, squares = 0;
  for (T x : v) {
    sum += double(x);
    squares += double(x) * double(x);
  }
  *mean = sum / double(v.size());
  *variance = squares / double(v.size()) - *mean * *mean;
  say("%s: first %.9g %.9g, sum %.9g, mean %.6f, variance %.6f\n", what, double(v[0]), double(v[1]), sum, *mean,
      *variance);
}

}  // namespace

int main() {
  int version = 0;
  CHECK_RAND(curandGetVersion(&version));
  say("cuRAND version %d\n", version);
  const size_t n = 1 << 20;
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  float* df = nullptr;
  unsigned int* du = nullptr;
  CHECK_CUDA(cudaMalloc(&df, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&du, n * sizeof(unsigned int)));
  double mean = 0, variance = 0;

  for (curandRngType_t type : {CURAND_RNG_PSEUDO_XORWOW, CURAND_RNG_PSEUDO_PHILOX4_32_10, CURAND_RNG_PSEUDO_MRG32K3A}) {
    curandGenerator_t g;
    CHECK_RAND(curandCreateGenerator(&g, type));
    CHECK_RAND(curandSetPseudoRandomGeneratorSeed(g, 20261203));
    CHECK_RAND(curandSetStream(g, stream));
    say("generator %d\n", static_cast<int>(type));
    CHECK_RAND(curandGenerateUniform(g, df, n));
    describe("  uniform", to_host(df, n, stream), &mean, &variance);
    expect(std::fabs(mean - 0.5) < 0.005 && std::fabs(variance - 1.0 / 12) < 0.002, "uniform: mean 1/2, variance 1/12");
    CHECK_RAND(curandGenerateNormal(g, df, n, 1.0f, 2.0f));
    describe("  normal(1, 2)", to_host(df, n, stream), &mean, &variance);
    expect(std::fabs(mean - 1) < 0.02 && std::fabs(variance - 4) < 0.05, "normal: mean 1, variance 4");
    CHECK_RAND(curandGenerateLogNormal(g, df, n, 0.0f, 0.5f));
    describe("  log-normal(0, 0.5)", to_host(df, n, stream), &mean, &variance);
    expect(std::fabs(mean - std::exp(0.125)) < 0.01, "log-normal: mean exp(sigma^2 / 2)");
    CHECK_RAND(curandGeneratePoisson(g, du, n, 3.5));
    describe("  poisson(3.5)", to_host(du, n, stream), &mean, &variance);
    expect(std::fabs(mean - 3.5) < 0.02 && std::fabs(variance - 3.5) < 0.05, "poisson: mean and variance lambda");
    CHECK_RAND(curandDestroyGenerator(g));
  }

  // One seed, one sequence; another offset, another.
  std::vector<unsigned int> first, again, shifted;
  for (int round = 0; round < 3; ++round) {
    curandGenerator_t g;
    CHECK_RAND(curandCreateGenerator(&g, CURAND_RNG_PSEUDO_PHILOX4_32_10));
    CHECK_RAND(curandSetPseudoRandomGeneratorSeed(g, 7));
    if (round == 2) CHECK_RAND(curandSetGeneratorOffset(g, 1 << 20));
    CHECK_RAND(curandSetStream(g, stream));
    CHECK_RAND(curandGenerate(g, du, 1024));
    (round == 0 ? first : round == 1 ? again : shifted) = to_host(du, 1024, stream);
    CHECK_RAND(curandDestroyGenerator(g));
  }
  say("philox seed 7: first %u %u, at offset 2^20: %u %u\n", first[0], first[1], shifted[0], shifted[1]);
  expect(first == again, "one seed makes one sequence");
  expect(first != shifted, "another offset makes other numbers");

  // Quasi-random: Sobol32 in one dimension fills [0, 1) evenly, and refuses a seed.
  curandGenerator_t q;
  CHECK_RAND(curandCreateGenerator(&q, CURAND_RNG_QUASI_SOBOL32));
  expect(curandSetPseudoRandomGeneratorSeed(q, 1) == CURAND_STATUS_TYPE_ERROR, "a quasi-random generator refuses a seed");
  CHECK_RAND(curandSetQuasiRandomGeneratorDimensions(q, 1));
  CHECK_RAND(curandSetStream(q, stream));
  CHECK_RAND(curandGenerateUniform(q, df, 4096));
  describe("sobol32 uniform", to_host(df, 4096, stream), &mean, &variance);
  expect(std::fabs(mean - 0.5) < 0.001, "sobol32: the mean of 4096 points is 1/2 within 0.001");
  CHECK_RAND(curandDestroyGenerator(q));

  // The quasi-random tables (remotely: copied from the server once): checksums over all 20,000
  // dimensions, and dimension 0's direction numbers, 2^(31-k) (van der Corput's sequence).
  curandDirectionVectors32_t* v32 = nullptr;
  curandDirectionVectors64_t* v64 = nullptr;
  unsigned int* s32 = nullptr;
  unsigned long long* s64 = nullptr;
  CHECK_RAND(curandGetDirectionVectors32(&v32, CURAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6));
  CHECK_RAND(curandGetDirectionVectors64(&v64, CURAND_DIRECTION_VECTORS_64_JOEKUO6));
  CHECK_RAND(curandGetScrambleConstants32(&s32));
  CHECK_RAND(curandGetScrambleConstants64(&s64));
  unsigned long long sums[4] = {0, 0, 0, 0};
  for (int d = 0; d < 20000; ++d) {
    for (int k = 0; k < 32; ++k) sums[0] += v32[d][k];
    for (int k = 0; k < 64; ++k) sums[1] += v64[d][k];
    sums[2] += s32[d];
    sums[3] += s64[d];
  }
  say("tables: direction vectors 32 (scrambled) %llu, 64 %llu; scramble constants 32 %llu, 64 %llu\n", sums[0],
      sums[1], sums[2], sums[3]);
  curandDirectionVectors32_t* plain = nullptr;
  CHECK_RAND(curandGetDirectionVectors32(&plain, CURAND_DIRECTION_VECTORS_32_JOEKUO6));
  bool vdc = true;
  for (int k = 0; k < 32; ++k) vdc &= plain[0][k] == (1u << (31 - k));
  expect(vdc, "direction vectors: dimension 0's are 2^(31-k)");

  CHECK_CUDA(cudaFree(df));
  CHECK_CUDA(cudaFree(du));
  CHECK_CUDA(cudaStreamDestroy(stream));
  return finish("29_curand");
}
