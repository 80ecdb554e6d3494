// CHECK_DNN for the GPU suite's cuDNN programs: a cuDNN call that must succeed; on failure the
// call, cuDNN's status name and the line are printed and the program exits 1.
#pragma once

#include <cudnn.h>

#include <cstdlib>

#include "suite_check.h"

#define CHECK_DNN(call) check_dnn((call), #call, __LINE__)
inline void check_dnn(cudnnStatus_t status, const char* call, int line) {
  if (status != CUDNN_STATUS_SUCCESS) {
    say("FAIL: %s returned %s (line %d)\n", call, cudnnGetErrorString(status), line);
    exit(1);
  }
}
