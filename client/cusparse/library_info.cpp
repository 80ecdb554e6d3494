// The names and texts of cuSPARSE's status codes, answered locally: the real ones are pointers into
// the server's library, which cannot travel. The codes are those of the headers this shim was
// built with (cuSPARSE 12.6).
#include <cusparse.h>

namespace {

struct StatusText {
  const char* name;
  const char* text;
};

StatusText status_text(cusparseStatus_t status) {
  switch (status) {
#define RGPU_STATUS(code, text) \
  case code:                    \
    return {#code, text};
    RGPU_STATUS(CUSPARSE_STATUS_SUCCESS, "success")
    RGPU_STATUS(CUSPARSE_STATUS_NOT_INITIALIZED, "initialization error")
    RGPU_STATUS(CUSPARSE_STATUS_ALLOC_FAILED, "out of memory")
    RGPU_STATUS(CUSPARSE_STATUS_INVALID_VALUE, "invalid value")
    RGPU_STATUS(CUSPARSE_STATUS_ARCH_MISMATCH, "architecture mismatch")
    RGPU_STATUS(CUSPARSE_STATUS_MAPPING_ERROR, "mapping error")
    RGPU_STATUS(CUSPARSE_STATUS_EXECUTION_FAILED, "execution failed")
    RGPU_STATUS(CUSPARSE_STATUS_INTERNAL_ERROR, "internal operation failed")
    RGPU_STATUS(CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED, "matrix type not supported")
    RGPU_STATUS(CUSPARSE_STATUS_ZERO_PIVOT, "zero pivot")
    RGPU_STATUS(CUSPARSE_STATUS_NOT_SUPPORTED, "operation not supported")
    RGPU_STATUS(CUSPARSE_STATUS_INSUFFICIENT_RESOURCES, "insufficient resources")
#undef RGPU_STATUS
  }
  return {"CUSPARSE_STATUS_UNKNOWN", "unknown error"};
}

}  // namespace

extern "C" {  // exported by the shim's version script

const char* cusparseGetErrorName(cusparseStatus_t status) { return status_text(status).name; }

const char* cusparseGetErrorString(cusparseStatus_t status) { return status_text(status).text; }

}  // extern "C"
