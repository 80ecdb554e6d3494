// The virtual device's attribute table and the cudaDeviceProp built from it.
#include "server/backends/emulated/device_spec.h"

#include <cstdio>
#include <cstring>
#include <string>

#include "common/config.h"

namespace rgpu::server::emulated {
namespace {

const Tunable kDevices{"RGPU_EMULATED_DEVICES", "1", "number of virtual GPUs of the emulated backend (0..64)"};
const Tunable kMemoryMb{"RGPU_EMULATED_MEMORY_MB", "16384",
                        "device memory of each virtual GPU of the emulated backend, in MiB (1..1048576)"};
const Tunable kKernelMs{"RGPU_EMULATED_KERNEL_MS", "0",
                        "how long each kernel keeps its virtual GPU busy, in ms (0..3600000; the fault tests' long kernel)"};

constexpr int kMaxDevices = 64;
constexpr int64_t kMaxMemoryMb = int64_t{1} << 20;

// PCI identity of an H200 (device id << 16 | NVIDIA's vendor id), so tools that key on it work.
constexpr unsigned kPciDeviceVendor = 0x233510DEu;
constexpr unsigned kPciSubsystem = 0x18BF10DEu;

}  // namespace

Result<DeviceConfig> read_device_config() {
  int64_t count = kDevices.get_int();
  int64_t mb = kMemoryMb.get_int();
  if (count < 0 || count > kMaxDevices)
    return RGPU_ERROR(kInvalidArgument, std::string("RGPU_EMULATED_DEVICES=") + kDevices.get() + " is not in 0..64");
  if (mb < 1 || mb > kMaxMemoryMb)
    return RGPU_ERROR(kInvalidArgument,
                      std::string("RGPU_EMULATED_MEMORY_MB=") + kMemoryMb.get() + " is not in 1..1048576");
  int64_t kernel_ms = kKernelMs.get_int();
  if (kernel_ms < 0 || kernel_ms > 3600000)
    return RGPU_ERROR(kInvalidArgument,
                      std::string("RGPU_EMULATED_KERNEL_MS=") + kKernelMs.get() + " is not in 0..3600000");
  return DeviceConfig{static_cast<int>(count), static_cast<uint64_t>(mb) << 20, std::chrono::milliseconds(kernel_ms)};
}

cudaError_t device_attribute(cudaDeviceAttr attr, int device, int* value) {
  int v = 0;
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: v = kMaxThreadsPerBlock; break;
    case cudaDevAttrMaxBlockDimX: v = kMaxBlockDim[0]; break;
    case cudaDevAttrMaxBlockDimY: v = kMaxBlockDim[1]; break;
    case cudaDevAttrMaxBlockDimZ: v = kMaxBlockDim[2]; break;
    case cudaDevAttrMaxGridDimX: v = kMaxGridDim[0]; break;
    case cudaDevAttrMaxGridDimY: v = kMaxGridDim[1]; break;
    case cudaDevAttrMaxGridDimZ: v = kMaxGridDim[2]; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: v = kSharedMemPerBlock; break;
    case cudaDevAttrTotalConstantMemory: v = 65536; break;
    case cudaDevAttrWarpSize: v = kWarpSize; break;
    case cudaDevAttrMaxPitch: v = 2147483647; break;
    case cudaDevAttrMaxRegistersPerBlock: v = kRegistersPerBlock; break;
    case cudaDevAttrClockRate: v = 1980000; break;
    case cudaDevAttrTextureAlignment: v = 512; break;
    case cudaDevAttrGpuOverlap: v = 1; break;
    case cudaDevAttrMultiProcessorCount: v = kMultiProcessorCount; break;
    case cudaDevAttrKernelExecTimeout: v = 0; break;
    case cudaDevAttrIntegrated: v = 0; break;
    case cudaDevAttrCanMapHostMemory: v = 1; break;
    case cudaDevAttrComputeMode: v = cudaComputeModeDefault; break;
    case cudaDevAttrMaxTexture1DWidth: v = 131072; break;
    case cudaDevAttrMaxTexture2DWidth: v = 131072; break;
    case cudaDevAttrMaxTexture2DHeight: v = 65536; break;
    case cudaDevAttrMaxTexture3DWidth: v = 16384; break;
    case cudaDevAttrMaxTexture3DHeight: v = 16384; break;
    case cudaDevAttrMaxTexture3DDepth: v = 16384; break;
    case cudaDevAttrMaxTexture2DLayeredWidth: v = 32768; break;
    case cudaDevAttrMaxTexture2DLayeredHeight: v = 32768; break;
    case cudaDevAttrMaxTexture2DLayeredLayers: v = 2048; break;
    case cudaDevAttrSurfaceAlignment: v = 512; break;
    case cudaDevAttrConcurrentKernels: v = 1; break;
    case cudaDevAttrEccEnabled: v = 1; break;
    case cudaDevAttrPciBusId: v = device + 1; break;
    case cudaDevAttrPciDeviceId: v = 0; break;
    case cudaDevAttrTccDriver: v = 0; break;
    case cudaDevAttrMemoryClockRate: v = 3201000; break;
    case cudaDevAttrGlobalMemoryBusWidth: v = 6016; break;
    case cudaDevAttrL2CacheSize: v = 60 * 1024 * 1024; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: v = kMaxThreadsPerMultiProcessor; break;
    case cudaDevAttrAsyncEngineCount: v = 3; break;
    case cudaDevAttrUnifiedAddressing: v = 1; break;
    case cudaDevAttrMaxTexture1DLayeredWidth: v = 32768; break;
    case cudaDevAttrMaxTexture1DLayeredLayers: v = 2048; break;
    case cudaDevAttrMaxTexture2DGatherWidth: v = 32768; break;
    case cudaDevAttrMaxTexture2DGatherHeight: v = 32768; break;
    case cudaDevAttrMaxTexture3DWidthAlt: v = 8192; break;
    case cudaDevAttrMaxTexture3DHeightAlt: v = 8192; break;
    case cudaDevAttrMaxTexture3DDepthAlt: v = 32768; break;
    case cudaDevAttrPciDomainId: v = 0; break;
    case cudaDevAttrTexturePitchAlignment: v = 32; break;
    case cudaDevAttrMaxTextureCubemapWidth: v = 32768; break;
    case cudaDevAttrMaxTextureCubemapLayeredWidth: v = 32768; break;
    case cudaDevAttrMaxTextureCubemapLayeredLayers: v = 2046; break;
    case cudaDevAttrMaxSurface1DWidth: v = 32768; break;
    case cudaDevAttrMaxSurface2DWidth: v = 131072; break;
    case cudaDevAttrMaxSurface2DHeight: v = 65536; break;
    case cudaDevAttrMaxSurface3DWidth: v = 16384; break;
    case cudaDevAttrMaxSurface3DHeight: v = 16384; break;
    case cudaDevAttrMaxSurface3DDepth: v = 16384; break;
    case cudaDevAttrMaxSurface1DLayeredWidth: v = 32768; break;
    case cudaDevAttrMaxSurface1DLayeredLayers: v = 2048; break;
    case cudaDevAttrMaxSurface2DLayeredWidth: v = 32768; break;
    case cudaDevAttrMaxSurface2DLayeredHeight: v = 32768; break;
    case cudaDevAttrMaxSurface2DLayeredLayers: v = 2048; break;
    case cudaDevAttrMaxSurfaceCubemapWidth: v = 32768; break;
    case cudaDevAttrMaxSurfaceCubemapLayeredWidth: v = 32768; break;
    case cudaDevAttrMaxSurfaceCubemapLayeredLayers: v = 2046; break;
    case cudaDevAttrMaxTexture1DLinearWidth: v = 268435456; break;
    case cudaDevAttrMaxTexture2DLinearWidth: v = 131072; break;
    case cudaDevAttrMaxTexture2DLinearHeight: v = 65000; break;
    case cudaDevAttrMaxTexture2DLinearPitch: v = 2097120; break;
    case cudaDevAttrMaxTexture2DMipmappedWidth: v = 32768; break;
    case cudaDevAttrMaxTexture2DMipmappedHeight: v = 32768; break;
    case cudaDevAttrComputeCapabilityMajor: v = kComputeMajor; break;
    case cudaDevAttrComputeCapabilityMinor: v = kComputeMinor; break;
    case cudaDevAttrMaxTexture1DMipmappedWidth: v = 32768; break;
    case cudaDevAttrStreamPrioritiesSupported: v = 1; break;
    case cudaDevAttrGlobalL1CacheSupported: v = 1; break;
    case cudaDevAttrLocalL1CacheSupported: v = 1; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: v = kSharedMemPerMultiProcessor; break;
    case cudaDevAttrMaxRegistersPerMultiprocessor: v = 65536; break;
    case cudaDevAttrManagedMemory: v = 1; break;
    case cudaDevAttrIsMultiGpuBoard: v = 0; break;
    case cudaDevAttrMultiGpuBoardGroupID: v = device; break;
    case cudaDevAttrHostNativeAtomicSupported: v = 0; break;
    case cudaDevAttrSingleToDoublePrecisionPerfRatio: v = 2; break;
    case cudaDevAttrPageableMemoryAccess: v = 0; break;
    case cudaDevAttrConcurrentManagedAccess: v = 1; break;
    case cudaDevAttrComputePreemptionSupported: v = 1; break;
    case cudaDevAttrCanUseHostPointerForRegisteredMem: v = 1; break;
    case cudaDevAttrCooperativeLaunch: v = 1; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: v = kSharedMemPerBlockOptin; break;
    case cudaDevAttrCanFlushRemoteWrites: v = 0; break;
    case cudaDevAttrHostRegisterSupported: v = 1; break;
    case cudaDevAttrPageableMemoryAccessUsesHostPageTables: v = 0; break;
    case cudaDevAttrDirectManagedMemAccessFromHost: v = 0; break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: v = kMaxBlocksPerMultiProcessor; break;
    case cudaDevAttrMaxPersistingL2CacheSize: v = 39321600; break;
    case cudaDevAttrMaxAccessPolicyWindowSize: v = 128 * 1024 * 1024; break;
    case cudaDevAttrReservedSharedMemoryPerBlock: v = kReservedSharedMemPerBlock; break;
    case cudaDevAttrSparseCudaArraySupported: v = 1; break;
    case cudaDevAttrHostRegisterReadOnlySupported: v = 1; break;
    case cudaDevAttrTimelineSemaphoreInteropSupported: v = 1; break;
    case cudaDevAttrMemoryPoolsSupported: v = 1; break;
    case cudaDevAttrGPUDirectRDMASupported: v = 0; break;
    case cudaDevAttrGPUDirectRDMAFlushWritesOptions: v = 0; break;
    case cudaDevAttrGPUDirectRDMAWritesOrdering: v = cudaGPUDirectRDMAWritesOrderingNone; break;
    case cudaDevAttrMemoryPoolSupportedHandleTypes: v = cudaMemHandleTypeNone; break;
    case cudaDevAttrClusterLaunch: v = 1; break;
    case cudaDevAttrDeferredMappingCudaArraySupported: v = 1; break;
    case cudaDevAttrIpcEventSupport: v = 0; break;
    case cudaDevAttrMemSyncDomainCount: v = 4; break;
    case cudaDevAttrNumaConfig: v = cudaDeviceNumaConfigNone; break;
    case cudaDevAttrNumaId: v = -1; break;
    case cudaDevAttrMpsEnabled: v = 0; break;
    case cudaDevAttrHostNumaId: v = -1; break;
    case cudaDevAttrD3D12CigSupported: v = 0; break;
    case cudaDevAttrVulkanCigSupported: v = 0; break;
    case cudaDevAttrGpuPciDeviceId: v = static_cast<int>(kPciDeviceVendor); break;
    case cudaDevAttrGpuPciSubsystemId: v = static_cast<int>(kPciSubsystem); break;
    case cudaDevAttrHostNumaMemoryPoolsSupported: v = 0; break;
    case cudaDevAttrHostNumaMultinodeIpcSupported: v = 0; break;
    case cudaDevAttrHostMemoryPoolsSupported: v = 0; break;
    case cudaDevAttrOnlyPartialHostNativeAtomicSupported: v = 0; break;
    default:
      // Reserved numbers below cudaDevAttrMax answer 0, as a real device answers them too.
      if (attr < 1 || attr >= cudaDevAttrMax) return cudaErrorInvalidValue;
      v = 0;
      break;
  }
  *value = v;
  return cudaSuccess;
}

void device_properties(int device, uint64_t memory_bytes, cudaDeviceProp* prop) {
  auto attr = [device](cudaDeviceAttr a) {
    int v = 0;
    device_attribute(a, device, &v);
    return v;
  };
  auto sz = [&attr](cudaDeviceAttr a) { return static_cast<size_t>(static_cast<unsigned>(attr(a))); };
  cudaDeviceProp& p = *prop;
  std::memset(&p, 0, sizeof p);
  std::snprintf(p.name, sizeof p.name, "rgpu emulated device");
  // A stable, distinct uuid per device: "rgpu-emulated" then the device index.
  std::memcpy(p.uuid.bytes, "rgpu-emulated", 13);
  p.uuid.bytes[15] = static_cast<char>(device);
  p.totalGlobalMem = memory_bytes;
  p.sharedMemPerBlock = sz(cudaDevAttrMaxSharedMemoryPerBlock);
  p.regsPerBlock = attr(cudaDevAttrMaxRegistersPerBlock);
  p.warpSize = attr(cudaDevAttrWarpSize);
  p.memPitch = sz(cudaDevAttrMaxPitch);
  p.maxThreadsPerBlock = attr(cudaDevAttrMaxThreadsPerBlock);
  p.maxThreadsDim[0] = attr(cudaDevAttrMaxBlockDimX);
  p.maxThreadsDim[1] = attr(cudaDevAttrMaxBlockDimY);
  p.maxThreadsDim[2] = attr(cudaDevAttrMaxBlockDimZ);
  p.maxGridSize[0] = attr(cudaDevAttrMaxGridDimX);
  p.maxGridSize[1] = attr(cudaDevAttrMaxGridDimY);
  p.maxGridSize[2] = attr(cudaDevAttrMaxGridDimZ);
  p.totalConstMem = sz(cudaDevAttrTotalConstantMemory);
  p.major = attr(cudaDevAttrComputeCapabilityMajor);
  p.minor = attr(cudaDevAttrComputeCapabilityMinor);
  p.textureAlignment = sz(cudaDevAttrTextureAlignment);
  p.texturePitchAlignment = sz(cudaDevAttrTexturePitchAlignment);
  p.multiProcessorCount = attr(cudaDevAttrMultiProcessorCount);
  p.integrated = attr(cudaDevAttrIntegrated);
  p.canMapHostMemory = attr(cudaDevAttrCanMapHostMemory);
  p.maxTexture1D = attr(cudaDevAttrMaxTexture1DWidth);
  p.maxTexture1DMipmap = attr(cudaDevAttrMaxTexture1DMipmappedWidth);
  p.maxTexture2D[0] = attr(cudaDevAttrMaxTexture2DWidth);
  p.maxTexture2D[1] = attr(cudaDevAttrMaxTexture2DHeight);
  p.maxTexture2DMipmap[0] = attr(cudaDevAttrMaxTexture2DMipmappedWidth);
  p.maxTexture2DMipmap[1] = attr(cudaDevAttrMaxTexture2DMipmappedHeight);
  p.maxTexture2DLinear[0] = attr(cudaDevAttrMaxTexture2DLinearWidth);
  p.maxTexture2DLinear[1] = attr(cudaDevAttrMaxTexture2DLinearHeight);
  p.maxTexture2DLinear[2] = attr(cudaDevAttrMaxTexture2DLinearPitch);
  p.maxTexture2DGather[0] = attr(cudaDevAttrMaxTexture2DGatherWidth);
  p.maxTexture2DGather[1] = attr(cudaDevAttrMaxTexture2DGatherHeight);
  p.maxTexture3D[0] = attr(cudaDevAttrMaxTexture3DWidth);
  p.maxTexture3D[1] = attr(cudaDevAttrMaxTexture3DHeight);
  p.maxTexture3D[2] = attr(cudaDevAttrMaxTexture3DDepth);
  p.maxTexture3DAlt[0] = attr(cudaDevAttrMaxTexture3DWidthAlt);
  p.maxTexture3DAlt[1] = attr(cudaDevAttrMaxTexture3DHeightAlt);
  p.maxTexture3DAlt[2] = attr(cudaDevAttrMaxTexture3DDepthAlt);
  p.maxTextureCubemap = attr(cudaDevAttrMaxTextureCubemapWidth);
  p.maxTexture1DLayered[0] = attr(cudaDevAttrMaxTexture1DLayeredWidth);
  p.maxTexture1DLayered[1] = attr(cudaDevAttrMaxTexture1DLayeredLayers);
  p.maxTexture2DLayered[0] = attr(cudaDevAttrMaxTexture2DLayeredWidth);
  p.maxTexture2DLayered[1] = attr(cudaDevAttrMaxTexture2DLayeredHeight);
  p.maxTexture2DLayered[2] = attr(cudaDevAttrMaxTexture2DLayeredLayers);
  p.maxTextureCubemapLayered[0] = attr(cudaDevAttrMaxTextureCubemapLayeredWidth);
  p.maxTextureCubemapLayered[1] = attr(cudaDevAttrMaxTextureCubemapLayeredLayers);
  p.maxSurface1D = attr(cudaDevAttrMaxSurface1DWidth);
  p.maxSurface2D[0] = attr(cudaDevAttrMaxSurface2DWidth);
  p.maxSurface2D[1] = attr(cudaDevAttrMaxSurface2DHeight);
  p.maxSurface3D[0] = attr(cudaDevAttrMaxSurface3DWidth);
  p.maxSurface3D[1] = attr(cudaDevAttrMaxSurface3DHeight);
  p.maxSurface3D[2] = attr(cudaDevAttrMaxSurface3DDepth);
  p.maxSurface1DLayered[0] = attr(cudaDevAttrMaxSurface1DLayeredWidth);
  p.maxSurface1DLayered[1] = attr(cudaDevAttrMaxSurface1DLayeredLayers);
  p.maxSurface2DLayered[0] = attr(cudaDevAttrMaxSurface2DLayeredWidth);
  p.maxSurface2DLayered[1] = attr(cudaDevAttrMaxSurface2DLayeredHeight);
  p.maxSurface2DLayered[2] = attr(cudaDevAttrMaxSurface2DLayeredLayers);
  p.maxSurfaceCubemap = attr(cudaDevAttrMaxSurfaceCubemapWidth);
  p.maxSurfaceCubemapLayered[0] = attr(cudaDevAttrMaxSurfaceCubemapLayeredWidth);
  p.maxSurfaceCubemapLayered[1] = attr(cudaDevAttrMaxSurfaceCubemapLayeredLayers);
  p.surfaceAlignment = sz(cudaDevAttrSurfaceAlignment);
  p.concurrentKernels = attr(cudaDevAttrConcurrentKernels);
  p.ECCEnabled = attr(cudaDevAttrEccEnabled);
  p.pciBusID = attr(cudaDevAttrPciBusId);
  p.pciDeviceID = attr(cudaDevAttrPciDeviceId);
  p.pciDomainID = attr(cudaDevAttrPciDomainId);
  p.tccDriver = attr(cudaDevAttrTccDriver);
  p.asyncEngineCount = attr(cudaDevAttrAsyncEngineCount);
  p.unifiedAddressing = attr(cudaDevAttrUnifiedAddressing);
  p.memoryBusWidth = attr(cudaDevAttrGlobalMemoryBusWidth);
  p.l2CacheSize = attr(cudaDevAttrL2CacheSize);
  p.persistingL2CacheMaxSize = attr(cudaDevAttrMaxPersistingL2CacheSize);
  p.maxThreadsPerMultiProcessor = attr(cudaDevAttrMaxThreadsPerMultiProcessor);
  p.streamPrioritiesSupported = attr(cudaDevAttrStreamPrioritiesSupported);
  p.globalL1CacheSupported = attr(cudaDevAttrGlobalL1CacheSupported);
  p.localL1CacheSupported = attr(cudaDevAttrLocalL1CacheSupported);
  p.sharedMemPerMultiprocessor = sz(cudaDevAttrMaxSharedMemoryPerMultiprocessor);
  p.regsPerMultiprocessor = attr(cudaDevAttrMaxRegistersPerMultiprocessor);
  p.managedMemory = attr(cudaDevAttrManagedMemory);
  p.isMultiGpuBoard = attr(cudaDevAttrIsMultiGpuBoard);
  p.multiGpuBoardGroupID = attr(cudaDevAttrMultiGpuBoardGroupID);
  p.hostNativeAtomicSupported = attr(cudaDevAttrHostNativeAtomicSupported);
  p.pageableMemoryAccess = attr(cudaDevAttrPageableMemoryAccess);
  p.concurrentManagedAccess = attr(cudaDevAttrConcurrentManagedAccess);
  p.computePreemptionSupported = attr(cudaDevAttrComputePreemptionSupported);
  p.canUseHostPointerForRegisteredMem = attr(cudaDevAttrCanUseHostPointerForRegisteredMem);
  p.cooperativeLaunch = attr(cudaDevAttrCooperativeLaunch);
  p.sharedMemPerBlockOptin = sz(cudaDevAttrMaxSharedMemoryPerBlockOptin);
  p.pageableMemoryAccessUsesHostPageTables = attr(cudaDevAttrPageableMemoryAccessUsesHostPageTables);
  p.directManagedMemAccessFromHost = attr(cudaDevAttrDirectManagedMemAccessFromHost);
  p.maxBlocksPerMultiProcessor = attr(cudaDevAttrMaxBlocksPerMultiprocessor);
  p.accessPolicyMaxWindowSize = attr(cudaDevAttrMaxAccessPolicyWindowSize);
  p.reservedSharedMemPerBlock = sz(cudaDevAttrReservedSharedMemoryPerBlock);
  p.hostRegisterSupported = attr(cudaDevAttrHostRegisterSupported);
  p.sparseCudaArraySupported = attr(cudaDevAttrSparseCudaArraySupported);
  p.hostRegisterReadOnlySupported = attr(cudaDevAttrHostRegisterReadOnlySupported);
  p.timelineSemaphoreInteropSupported = attr(cudaDevAttrTimelineSemaphoreInteropSupported);
  p.memoryPoolsSupported = attr(cudaDevAttrMemoryPoolsSupported);
  p.gpuDirectRDMASupported = attr(cudaDevAttrGPUDirectRDMASupported);
  p.gpuDirectRDMAFlushWritesOptions = static_cast<unsigned>(attr(cudaDevAttrGPUDirectRDMAFlushWritesOptions));
  p.gpuDirectRDMAWritesOrdering = attr(cudaDevAttrGPUDirectRDMAWritesOrdering);
  p.memoryPoolSupportedHandleTypes = static_cast<unsigned>(attr(cudaDevAttrMemoryPoolSupportedHandleTypes));
  p.deferredMappingCudaArraySupported = attr(cudaDevAttrDeferredMappingCudaArraySupported);
  p.ipcEventSupported = attr(cudaDevAttrIpcEventSupport);
  p.clusterLaunch = attr(cudaDevAttrClusterLaunch);
  p.unifiedFunctionPointers = 1;
  p.deviceNumaConfig = attr(cudaDevAttrNumaConfig);
  p.deviceNumaId = attr(cudaDevAttrNumaId);
  p.mpsEnabled = attr(cudaDevAttrMpsEnabled);
  p.hostNumaId = attr(cudaDevAttrHostNumaId);
  p.gpuPciDeviceID = static_cast<unsigned>(attr(cudaDevAttrGpuPciDeviceId));
  p.gpuPciSubsystemID = static_cast<unsigned>(attr(cudaDevAttrGpuPciSubsystemId));
  p.hostNumaMultinodeIpcSupported = attr(cudaDevAttrHostNumaMultinodeIpcSupported);
}

}  // namespace rgpu::server::emulated
