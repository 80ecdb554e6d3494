// The emulated runtime's entry points by name (entry_table.h): the resolver given to
// gen::cudart::load_api.
#include <cstring>
#include <string_view>

#include "server/backends/emulated/entry_table.h"
#include "server/backends/emulated/runtime.h"

namespace rgpu::server::emulated {
namespace {

const Entry kTable[] = {
    RGPU_EMULATED(cudaGetDeviceCount),
    RGPU_EMULATED(cudaSetDevice),
    RGPU_EMULATED(cudaGetDevice),
    RGPU_EMULATED(cudaInitDevice),
    RGPU_EMULATED(cudaDeviceReset),
    RGPU_EMULATED(cudaDeviceSynchronize),
    RGPU_EMULATED(cudaDeviceGetLimit),
    RGPU_EMULATED(cudaDeviceSetLimit),
    RGPU_EMULATED(cudaDeviceGetCacheConfig),
    RGPU_EMULATED(cudaDeviceSetCacheConfig),
    RGPU_EMULATED(cudaSetDeviceFlags),
    RGPU_EMULATED(cudaGetDeviceFlags),
    RGPU_EMULATED(cudaDeviceGetStreamPriorityRange),
    RGPU_EMULATED(cudaGetDeviceProperties),
    RGPU_EMULATED(cudaDeviceGetAttribute),
    RGPU_EMULATED(cudaDeviceGetPCIBusId),
    RGPU_EMULATED(cudaDeviceGetByPCIBusId),
    RGPU_EMULATED(cudaDeviceCanAccessPeer),
    RGPU_EMULATED(cudaDeviceEnablePeerAccess),
    RGPU_EMULATED(cudaDeviceDisablePeerAccess),
    RGPU_EMULATED(cudaChooseDevice),
    RGPU_EMULATED(cudaDeviceGetP2PAttribute),
    RGPU_EMULATED(cudaDeviceGetTexture1DLinearMaxWidth),
    RGPU_EMULATED(cudaDeviceGraphMemTrim),
    RGPU_EMULATED(cudaCtxResetPersistingL2Cache),
    RGPU_EMULATED(cudaProfilerStart),
    RGPU_EMULATED(cudaProfilerStop),
    RGPU_EMULATED(cudaDriverGetVersion),
    RGPU_EMULATED(cudaRuntimeGetVersion),
    RGPU_EMULATED(cudaMemGetInfo),
    RGPU_EMULATED(cudaMalloc),
    RGPU_EMULATED(cudaFree),
    RGPU_EMULATED(cudaMallocPitch),
    RGPU_EMULATED(cudaMallocAsync),
    RGPU_EMULATED(cudaFreeAsync),
    RGPU_EMULATED(cudaDeviceGetDefaultMemPool),
    RGPU_EMULATED(cudaDeviceGetMemPool),
    RGPU_EMULATED(cudaDeviceSetMemPool),
    RGPU_EMULATED(cudaMemPoolCreate),
    RGPU_EMULATED(cudaMemPoolDestroy),
    RGPU_EMULATED(cudaMemPoolSetAttribute),
    RGPU_EMULATED(cudaMemPoolGetAttribute),
    RGPU_EMULATED(cudaMemPoolSetAccess),
    RGPU_EMULATED(cudaMemPoolGetAccess),
    RGPU_EMULATED(cudaMemPoolTrimTo),
    RGPU_EMULATED(cudaMallocFromPoolAsync),
    RGPU_EMULATED(cudaMemset),
    RGPU_EMULATED(cudaMemsetAsync),
    RGPU_EMULATED(cudaMemset2D),
    RGPU_EMULATED(cudaMemset2DAsync),
    RGPU_EMULATED(cudaMemset3D),
    RGPU_EMULATED(cudaMemset3DAsync),
    RGPU_EMULATED(cudaMemcpy),
    RGPU_EMULATED(cudaMemcpyAsync),
    RGPU_EMULATED(cudaMemcpy2D),
    RGPU_EMULATED(cudaMemcpy2DAsync),
    RGPU_EMULATED(cudaMemcpy3D),
    RGPU_EMULATED(cudaMemcpy3DAsync),
    RGPU_EMULATED(cudaMemcpyPeer),
    RGPU_EMULATED(cudaMemcpyPeerAsync),
    RGPU_EMULATED(cudaMemcpy3DPeer),
    RGPU_EMULATED(cudaMemcpy3DPeerAsync),
    RGPU_EMULATED(cudaStreamCreate),
    RGPU_EMULATED(cudaStreamCreateWithFlags),
    RGPU_EMULATED(cudaStreamCreateWithPriority),
    RGPU_EMULATED(cudaStreamDestroy),
    RGPU_EMULATED(cudaStreamQuery),
    RGPU_EMULATED(cudaStreamSynchronize),
    RGPU_EMULATED(cudaStreamGetPriority),
    RGPU_EMULATED(cudaStreamGetFlags),
    RGPU_EMULATED(cudaStreamGetDevice),
    RGPU_EMULATED(cudaStreamGetId),
    RGPU_EMULATED(cudaStreamCopyAttributes),
    RGPU_EMULATED(cudaStreamWaitEvent),
    RGPU_EMULATED(cudaStreamAddCallback),
    RGPU_EMULATED(cudaLaunchHostFunc),
    RGPU_EMULATED(cudaEventCreate),
    RGPU_EMULATED(cudaEventCreateWithFlags),
    RGPU_EMULATED(cudaEventDestroy),
    RGPU_EMULATED(cudaEventRecord),
    RGPU_EMULATED(cudaEventRecordWithFlags),
    RGPU_EMULATED(cudaEventQuery),
    RGPU_EMULATED(cudaEventSynchronize),
    RGPU_EMULATED(cudaEventElapsedTime),
    RGPU_EMULATED(cudaStreamBeginCapture),
    RGPU_EMULATED(cudaStreamEndCapture),
    RGPU_EMULATED(cudaStreamIsCapturing),
    RGPU_EMULATED(cudaStreamGetCaptureInfo),
    RGPU_EMULATED(cudaThreadExchangeStreamCaptureMode),
    RGPU_EMULATED(cudaGraphCreate),
    RGPU_EMULATED(cudaGraphInstantiate),
    RGPU_EMULATED(cudaGraphInstantiateWithFlags),
    RGPU_EMULATED(cudaGraphLaunch),
    RGPU_EMULATED(cudaGraphUpload),
    RGPU_EMULATED(cudaGraphGetNodes),
    RGPU_EMULATED(cudaGraphNodeGetType),
    RGPU_EMULATED(cudaGraphAddEmptyNode),
    RGPU_EMULATED(cudaGraphAddHostNode),
    RGPU_EMULATED(cudaGraphHostNodeGetParams),
    RGPU_EMULATED(cudaGraphDestroy),
    RGPU_EMULATED(cudaGraphExecDestroy),
    RGPU_EMULATED(cudaMallocArray),
    RGPU_EMULATED(cudaMalloc3DArray),
    RGPU_EMULATED(cudaMallocMipmappedArray),
    RGPU_EMULATED(cudaGetMipmappedArrayLevel),
    RGPU_EMULATED(cudaFreeArray),
    RGPU_EMULATED(cudaFreeMipmappedArray),
    RGPU_EMULATED(cudaArrayGetInfo),
    RGPU_EMULATED(cudaCreateTextureObject),
    RGPU_EMULATED(cudaDestroyTextureObject),
    RGPU_EMULATED(cudaCreateSurfaceObject),
    RGPU_EMULATED(cudaDestroySurfaceObject),
};

}  // namespace

void* resolve(const char* name, void*) {
  if (!name) return nullptr;
  std::string_view n(name);
  if (void* fn = find_entry(kTable, n)) return fn;
  // The per-thread-default-stream variants (_ptds, _ptsz) have the plain function's type; with all
  // work done at issue time the per-thread and legacy default streams behave alike.
  if (n.ends_with("_ptds") || n.ends_with("_ptsz")) return find_entry(kTable, n.substr(0, n.size() - 5));
  return nullptr;
}

}  // namespace rgpu::server::emulated
