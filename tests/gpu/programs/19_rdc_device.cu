// GPU suite, -rdc program, part 1 of 2: a device function and a device variable used from the other file.
#include "19_rdc_shared.h"

__device__ int rdc_calls;

__device__ int mix(int value, int salt) {
  atomicAdd(&rdc_calls, 1);
  return (value ^ salt) * 3 + (value >> 2);
}
