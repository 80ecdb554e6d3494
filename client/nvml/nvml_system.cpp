// The server's driver, NVML and CUDA driver versions, from the snapshot.
#include <nvml_subset.h>

#include "client/nvml/nvml_snapshot.h"

namespace nvml = rgpu::client::nvml;

extern "C" {  // exported by the shim's version script

nvmlReturn_t nvmlSystemGetDriverVersion(char* version, unsigned int length) {
  const nvml::Snapshot* s = nvml::snapshot();
  if (!s) return NVML_ERROR_UNINITIALIZED;
  return nvml::copy_string(s->system.driver_version, version, length);
}

nvmlReturn_t nvmlSystemGetNVMLVersion(char* version, unsigned int length) {
  const nvml::Snapshot* s = nvml::snapshot();
  if (!s) return NVML_ERROR_UNINITIALIZED;
  return nvml::copy_string(s->system.nvml_version, version, length);
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int* cudaDriverVersion) {
  if (!cudaDriverVersion) return NVML_ERROR_INVALID_ARGUMENT;
  const nvml::Snapshot* s = nvml::snapshot();
  if (!s) return NVML_ERROR_UNINITIALIZED;
  *cudaDriverVersion = s->system.cuda_driver_version;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion(int* cudaDriverVersion) {
  return nvmlSystemGetCudaDriverVersion_v2(cudaDriverVersion);
}

}  // extern "C"
