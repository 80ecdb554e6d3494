// The emulated cuRAND: generators of every pseudo- and quasi-random type, their seed, offset and
// stream, and uniform and normal numbers issued in the generator's stream, for the calls CI runs
// end to end. The numbers come from a counter-based generator of its own (splitmix64 of seed and
// position), not NVIDIA's algorithms: they check the plumbing, in [0, 1) or N(mean, stddev), never
// cuRAND's exact values. With exactly the signatures of curand.h (checked in curand.cpp's table).
#pragma once

#include <curand.h>

namespace rgpu::server::emulated {

curandStatus_t curandCreateGenerator(curandGenerator_t* generator, curandRngType_t rng_type);
curandStatus_t curandDestroyGenerator(curandGenerator_t generator);
curandStatus_t curandGetVersion(int* version);
curandStatus_t curandSetStream(curandGenerator_t generator, cudaStream_t stream);
curandStatus_t curandSetPseudoRandomGeneratorSeed(curandGenerator_t generator, unsigned long long seed);
curandStatus_t curandSetGeneratorOffset(curandGenerator_t generator, unsigned long long offset);
curandStatus_t curandGenerateUniform(curandGenerator_t generator, float* outputPtr, size_t num);
curandStatus_t curandGenerateNormal(curandGenerator_t generator, float* outputPtr, size_t n, float mean, float stddev);
// Tables of the shape the library's are (20,000 dimensions), filled with a pattern of their own.
curandStatus_t curandGetDirectionVectors32(curandDirectionVectors32_t* vectors[], curandDirectionVectorSet_t set);
curandStatus_t curandGetScrambleConstants32(unsigned int** constants);

// The name -> entry point table above, as the resolver that load_api takes.
void* resolve_curand(const char* name, void* ctx);

}  // namespace rgpu::server::emulated
