// GPU suite, -rdc program: the device symbols one file defines and the other uses.
#pragma once

extern __device__ int rdc_calls;
__device__ int mix(int value, int salt);
