// GPU suite: device count, properties and attributes, printing only what is equal on the same GPU natively
// and remotely (no name, no bus id, no clock), and checking that attributes agree with the properties.
#include "suite_check.h"

struct AttributeCheck {
  cudaDeviceAttr attribute;
  const char* name;
  int from_properties;
};

int main() {
  int count = 0;
  CHECK_CUDA(cudaGetDeviceCount(&count));
  expect(count >= 1, "at least one device");
  CHECK_CUDA(cudaSetDevice(0));
  int current = -1;
  CHECK_CUDA(cudaGetDevice(&current));
  expect(current == 0, "current device is 0");

  cudaDeviceProp props{};
  CHECK_CUDA(cudaGetDeviceProperties(&props, 0));
  expect(props.major >= 7, "compute capability major >= 7");
  expect(props.warpSize == 32, "warp size 32");
  expect(props.totalGlobalMem > (size_t{1} << 30), "more than 1 GiB of global memory");
  expect(props.maxThreadsPerBlock == 1024, "1024 threads per block");

  const AttributeCheck checks[] = {
      {cudaDevAttrComputeCapabilityMajor, "ComputeCapabilityMajor", props.major},
      {cudaDevAttrComputeCapabilityMinor, "ComputeCapabilityMinor", props.minor},
      {cudaDevAttrMultiProcessorCount, "MultiProcessorCount", props.multiProcessorCount},
      {cudaDevAttrWarpSize, "WarpSize", props.warpSize},
      {cudaDevAttrMaxThreadsPerBlock, "MaxThreadsPerBlock", props.maxThreadsPerBlock},
      {cudaDevAttrMaxBlockDimX, "MaxBlockDimX", props.maxThreadsDim[0]},
      {cudaDevAttrMaxGridDimX, "MaxGridDimX", props.maxGridSize[0]},
      {cudaDevAttrMaxSharedMemoryPerBlock, "MaxSharedMemoryPerBlock", static_cast<int>(props.sharedMemPerBlock)},
      {cudaDevAttrMaxSharedMemoryPerBlockOptin, "MaxSharedMemoryPerBlockOptin",
       static_cast<int>(props.sharedMemPerBlockOptin)},
      {cudaDevAttrMaxRegistersPerBlock, "MaxRegistersPerBlock", props.regsPerBlock},
      {cudaDevAttrL2CacheSize, "L2CacheSize", props.l2CacheSize},
      {cudaDevAttrCooperativeLaunch, "CooperativeLaunch", props.cooperativeLaunch},
      {cudaDevAttrConcurrentKernels, "ConcurrentKernels", props.concurrentKernels},
      {cudaDevAttrUnifiedAddressing, "UnifiedAddressing", props.unifiedAddressing},
  };
  bool all_agree = true;
  for (const AttributeCheck& check : checks) {
    int value = -1;
    CHECK_CUDA(cudaDeviceGetAttribute(&value, check.attribute, 0));
    if (value != check.from_properties) {
      say("attribute %s: %d, properties say %d\n", check.name, value, check.from_properties);
      all_agree = false;
    }
  }
  expect(all_agree, "cudaDeviceGetAttribute agrees with cudaGetDeviceProperties");

  int runtime = 0, driver = 0;
  CHECK_CUDA(cudaRuntimeGetVersion(&runtime));
  CHECK_CUDA(cudaDriverGetVersion(&driver));
  expect(runtime >= 13000, "runtime version >= 13.0");
  expect(driver >= runtime, "driver version >= runtime version");

  // Asking for a device that does not exist is an error CUDA names.
  cudaError_t invalid = cudaSetDevice(count);
  say("cudaSetDevice(count): %s\n", cudaGetErrorName(invalid));
  cudaError_t invalid_props = cudaGetDeviceProperties(&props, count);
  say("cudaGetDeviceProperties(count): %s\n", cudaGetErrorName(invalid_props));
  (void)cudaGetLastError();  // those two errors are expected; clear them
  return finish("device_properties");
}
