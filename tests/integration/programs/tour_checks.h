// The tours' checks: each prints "ok: WHAT" or "FAIL ..." and returns 1 from the calling function on
// failure, so the run scripts read one line per check and the first failure ends the tour.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdio>

#define EXPECT(cond, what)            \
  do {                                \
    if (!(cond)) {                    \
      std::printf("FAIL %s\n", what); \
      return 1;                       \
    }                                 \
    std::printf("ok: %s\n", what);    \
  } while (0)

// A library call that must answer OK_VALUE; on failure prints TEXT (the call as written) and
// NAME_OF(its status). Each library's CHECK_<LIB>(x) passes #x, stringized before expansion.
#define CHECK_STATUS(text, x, ok_value, name_of)         \
  do {                                                   \
    auto s_ = (x);                                       \
    if (s_ != (ok_value)) {                              \
      std::printf("FAIL %s: %s\n", text, name_of(s_));   \
      return 1;                                          \
    }                                                    \
  } while (0)

#define CHECK_CUDA(x) CHECK_STATUS(#x, x, cudaSuccess, cudaGetErrorName)

// A status as its number, for libraries that name none (cuRAND, cuFFT).
template <typename Status>
const char* status_number(Status s) {
  static char text[32];
  std::snprintf(text, sizeof text, "status %d", static_cast<int>(s));
  return text;
}
