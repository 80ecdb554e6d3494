/* A tiny CUDA-like API for the generator tests: one function per marshalling rule. */
#pragma once

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fakeError {
  fakeSuccess = 0,
  fakeErrorInvalidValue = 1,
  fakeErrorNoDevice = 100,
  fakeErrorInvalidHandle = 400,
  fakeErrorNotSupported = 801,
  fakeErrorUnknown = 999
} fakeError_t;

typedef struct fakeStream_st* fakeStream_t;
enum fakeKind { fakeKindA = 0, fakeKindB = 1 };
struct fakeDims { unsigned x, y, z; };
struct fakePitched { void* ptr; size_t pitch; };
typedef void (*fakeCallback)(void* user);

#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
#define fakeStreamSync fakeStreamSync_ptsz
#endif

fakeError_t fakeGetCount(int* count);
fakeError_t fakeSetValues(int value, enum fakeKind kind, bool flag, struct fakeDims dims);
fakeError_t fakeFill(void* devPtr, int value, size_t n, fakeStream_t stream);
fakeError_t fakeStreamCreate(fakeStream_t* stream);
fakeError_t fakeStreamDestroy(fakeStream_t stream);
fakeError_t fakeStreamSync(fakeStream_t stream);
fakeError_t fakeSum(const int* values, int n, long long* sum);
fakeError_t fakeName(int id, char* name, int len);
fakeError_t fakeLookup(const char* key, int* value);
fakeError_t fakeSwap(int* value);
fakeError_t fakeJoin(const fakeStream_t* streams, size_t n);
fakeError_t fakeMemset2D(struct fakePitched p, int value);
fakeError_t fakeSetCallback(fakeCallback fn, void* user);
fakeError_t fakeQueryDevice(int* major);
const char* fakeErrorString(fakeError_t error);
fakeError_t fakeCopy(void* dst, const void* src, size_t n);
// The shapes of an API older than its status rule (cuBLAS's legacy API): nothing returned, its
// error kept for a getter, or a value returned.
void fakeTouch(int value);
double fakeScale(double x, int times);

#ifdef __cplusplus
}
#endif
