// The emulated cuRAND (curand.h): generator handles and their settings, and numbers written into
// the virtual device's memory in the generator's stream.
#include "server/backends/emulated/curand.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>


#include "common/curand_tables.h"
#include "server/backends/emulated/entry_table.h"
#include "server/backends/emulated/handle_table.h"
#include "server/backends/emulated/runtime_state.h"

namespace rgpu::server::emulated {
namespace {

struct Generator {
  bool quasi = false;
  cudaStream_t stream = nullptr;
  uint64_t seed = 0;
  uint64_t offset = 0;  // how many numbers were drawn, where the next call starts
};

HandleTable<curandGenerator_t, Generator>& generators() {
  static HandleTable<curandGenerator_t, Generator> table;
  return table;
}

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Number i of the generator's sequence, uniform in (0, 1] (cuRAND's range for floats).
float uniform_at(uint64_t seed, uint64_t i) {
  return static_cast<float>((splitmix64(seed ^ splitmix64(i)) >> 40) + 1) * (1.0f / 16777216.0f);
}

// Reserves n numbers of the generator's sequence: where they start, the seed and the stream.
curandStatus_t draw(curandGenerator_t generator, size_t n, Generator* taken) {
  const bool known = generators().update(generator, [&](Generator& g) {
    *taken = g;
    g.offset += n;
  });
  return known ? CURAND_STATUS_SUCCESS : CURAND_STATUS_NOT_INITIALIZED;
}

// Writes n floats into device memory at `out` in the stream, each from fill(i).
template <typename Fill>
curandStatus_t issue(const Generator& g, float* out, size_t n, Fill fill) {
  DeviceRange range = state().memory.find(out, uint64_t(n) * sizeof(float));
  if (!range) return CURAND_STATUS_LAUNCH_FAILURE;  // as a kernel writing outside memory would
  const cudaError_t err = state().enqueue(g.stream, cudaGraphNodeTypeKernel, [=] {
    auto* p = reinterpret_cast<float*>(range.data);
    for (size_t i = 0; i < n; ++i) p[i] = fill(i);
    return cudaSuccess;
  });
  return err == cudaSuccess ? CURAND_STATUS_SUCCESS : CURAND_STATUS_LAUNCH_FAILURE;
}

}  // namespace

curandStatus_t curandCreateGenerator(curandGenerator_t* generator, curandRngType_t rng_type) {
  if (!generator) return CURAND_STATUS_NOT_INITIALIZED;
  const int type = static_cast<int>(rng_type);
  const bool pseudo = type == 100 || type == 101 || type == 121 || type == 141 || type == 142 || type == 161;
  const bool quasi = type >= 200 && type <= 204;
  if (!pseudo && !quasi) return CURAND_STATUS_TYPE_ERROR;
  *generator = generators().create();
  generators().update(*generator, [&](Generator& g) { g.quasi = quasi; });
  return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandDestroyGenerator(curandGenerator_t generator) {
  return generators().destroy(generator) ? CURAND_STATUS_SUCCESS : CURAND_STATUS_NOT_INITIALIZED;
}

curandStatus_t curandGetVersion(int* version) {
  if (!version) return CURAND_STATUS_OUT_OF_RANGE;
  *version = CURAND_VERSION;
  return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandSetStream(curandGenerator_t generator, cudaStream_t stream) {
  return generators().update(generator, [&](Generator& g) { g.stream = stream; }) ? CURAND_STATUS_SUCCESS
                                                                                  : CURAND_STATUS_NOT_INITIALIZED;
}

curandStatus_t curandSetPseudoRandomGeneratorSeed(curandGenerator_t generator, unsigned long long seed) {
  bool quasi = false;
  if (!generators().update(generator, [&](Generator& g) {
        quasi = g.quasi;
        if (!quasi) g.seed = seed;
      }))
    return CURAND_STATUS_NOT_INITIALIZED;
  return quasi ? CURAND_STATUS_TYPE_ERROR : CURAND_STATUS_SUCCESS;
}

curandStatus_t curandSetGeneratorOffset(curandGenerator_t generator, unsigned long long offset) {
  return generators().update(generator, [&](Generator& g) { g.offset = offset; }) ? CURAND_STATUS_SUCCESS
                                                                                  : CURAND_STATUS_NOT_INITIALIZED;
}

curandStatus_t curandGenerateUniform(curandGenerator_t generator, float* outputPtr, size_t num) {
  Generator g;
  if (curandStatus_t st = draw(generator, num, &g); st != CURAND_STATUS_SUCCESS) return st;
  if (num == 0) return CURAND_STATUS_SUCCESS;
  return issue(g, outputPtr, num, [g](size_t i) { return uniform_at(g.seed, g.offset + i); });
}

// Box-Muller over pairs, so n must be even, as cuRAND's pseudo-random generators ask.
curandStatus_t curandGenerateNormal(curandGenerator_t generator, float* outputPtr, size_t n, float mean, float stddev) {
  if (n % 2) return CURAND_STATUS_LENGTH_NOT_MULTIPLE;
  Generator g;
  if (curandStatus_t st = draw(generator, n, &g); st != CURAND_STATUS_SUCCESS) return st;
  if (n == 0) return CURAND_STATUS_SUCCESS;
  return issue(g, outputPtr, n, [g, mean, stddev](size_t i) {
    const size_t pair = g.offset + (i & ~size_t{1});
    const float r = std::sqrt(-2.0f * std::log(uniform_at(g.seed, pair)));
    const float theta = 6.28318530718f * uniform_at(g.seed, pair + 1);
    return mean + stddev * r * (i % 2 ? std::sin(theta) : std::cos(theta));
  });
}

// Entry k of dimension d is d * 32 + k (+ 1,000,000 for the scrambled set); constant d is d.
curandStatus_t curandGetDirectionVectors32(curandDirectionVectors32_t* vectors[], curandDirectionVectorSet_t set) {
  static const auto tables = [] {
    auto t = std::make_unique<curandDirectionVectors32_t[]>(2 * curand_tables::kDimensions);
    for (size_t d = 0; d < 2 * curand_tables::kDimensions; ++d)
      for (unsigned k = 0; k < 32; ++k)
        t[d][k] = static_cast<unsigned>((d % curand_tables::kDimensions) * 32 + k + (d >= curand_tables::kDimensions ? 1000000 : 0));
    return t;
  }();
  if (!vectors) return CURAND_STATUS_OUT_OF_RANGE;
  if (set == CURAND_DIRECTION_VECTORS_32_JOEKUO6) *vectors = tables.get();
  else if (set == CURAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6) *vectors = tables.get() + curand_tables::kDimensions;
  else return CURAND_STATUS_OUT_OF_RANGE;
  return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandGetScrambleConstants32(unsigned int** constants) {
  static const auto table = [] {
    auto t = std::make_unique<unsigned int[]>(curand_tables::kDimensions);
    for (size_t d = 0; d < curand_tables::kDimensions; ++d) t[d] = static_cast<unsigned>(d);
    return t;
  }();
  if (!constants) return CURAND_STATUS_OUT_OF_RANGE;
  *constants = table.get();
  return CURAND_STATUS_SUCCESS;
}

namespace {

const Entry kTable[] = {
    RGPU_EMULATED(curandCreateGenerator),   RGPU_EMULATED(curandDestroyGenerator),
    RGPU_EMULATED(curandGetVersion),        RGPU_EMULATED(curandSetStream),
    RGPU_EMULATED(curandSetPseudoRandomGeneratorSeed), RGPU_EMULATED(curandSetGeneratorOffset),
    RGPU_EMULATED(curandGenerateUniform),   RGPU_EMULATED(curandGenerateNormal),
    RGPU_EMULATED(curandGetDirectionVectors32), RGPU_EMULATED(curandGetScrambleConstants32),
};

}  // namespace

void* resolve_curand(const char* name, void*) {
  if (!name) return nullptr;
  return find_entry(kTable, name);
}

}  // namespace rgpu::server::emulated
