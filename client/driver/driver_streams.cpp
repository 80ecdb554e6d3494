// Streams and events are the runtime's (CUstream == cudaStream_t, CUevent == cudaEvent_t ids):
// creation, records and waits are posted without waiting, as the runtime does.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include "client/driver/driver_errors.h"
#include "client/driver/driver_stream.h"
#include "gen/cuda/cuda_decls.h"

using rgpu::client::driver::runtime_stream;
using rgpu::client::driver::to_cu;

// CU_STREAM_* and CU_EVENT_* flags have the runtime's values.
static_assert(CU_STREAM_NON_BLOCKING == cudaStreamNonBlocking);
static_assert(CU_EVENT_BLOCKING_SYNC == cudaEventBlockingSync && CU_EVENT_DISABLE_TIMING == cudaEventDisableTiming &&
              CU_EVENT_INTERPROCESS == cudaEventInterprocess);

extern "C" CUresult cuStreamCreate(CUstream* phStream, unsigned int Flags) {
  return to_cu(cudaStreamCreateWithFlags(phStream, Flags));
}
extern "C" CUresult cuStreamCreateWithPriority(CUstream* phStream, unsigned int flags, int priority) {
  return to_cu(cudaStreamCreateWithPriority(phStream, flags, priority));
}
extern "C" CUresult cuStreamDestroy_v2(CUstream hStream) { return to_cu(cudaStreamDestroy(hStream)); }

extern "C" CUresult cuStreamSynchronize(CUstream hStream) { return to_cu(cudaStreamSynchronize(hStream)); }
extern "C" CUresult cuStreamSynchronize_ptsz(CUstream hStream) {
  return to_cu(cudaStreamSynchronize(runtime_stream(hStream, true)));
}
extern "C" CUresult cuStreamQuery(CUstream hStream) { return to_cu(cudaStreamQuery(hStream)); }
extern "C" CUresult cuStreamQuery_ptsz(CUstream hStream) { return to_cu(cudaStreamQuery(runtime_stream(hStream, true))); }
extern "C" CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags) {
  return to_cu(cudaStreamWaitEvent(hStream, hEvent, Flags));
}
extern "C" CUresult cuStreamWaitEvent_ptsz(CUstream hStream, CUevent hEvent, unsigned int Flags) {
  return to_cu(cudaStreamWaitEvent(runtime_stream(hStream, true), hEvent, Flags));
}

extern "C" CUresult cuStreamGetFlags(CUstream hStream, unsigned int* flags) {
  return to_cu(cudaStreamGetFlags(hStream, flags));
}
extern "C" CUresult cuStreamGetFlags_ptsz(CUstream hStream, unsigned int* flags) {
  return to_cu(cudaStreamGetFlags(runtime_stream(hStream, true), flags));
}
extern "C" CUresult cuStreamGetPriority(CUstream hStream, int* priority) {
  return to_cu(cudaStreamGetPriority(hStream, priority));
}
extern "C" CUresult cuStreamGetPriority_ptsz(CUstream hStream, int* priority) {
  return to_cu(cudaStreamGetPriority(runtime_stream(hStream, true), priority));
}

// CUstreamCaptureStatus numbers the states as cudaStreamCaptureStatus.
static_assert(CU_STREAM_CAPTURE_STATUS_ACTIVE == static_cast<int>(cudaStreamCaptureStatusActive) &&
              CU_STREAM_CAPTURE_STATUS_INVALIDATED == static_cast<int>(cudaStreamCaptureStatusInvalidated));
extern "C" CUresult cuStreamIsCapturing(CUstream hStream, CUstreamCaptureStatus* captureStatus) {
  return to_cu(cudaStreamIsCapturing(hStream, reinterpret_cast<cudaStreamCaptureStatus*>(captureStatus)));
}
extern "C" CUresult cuStreamIsCapturing_ptsz(CUstream hStream, CUstreamCaptureStatus* captureStatus) {
  return to_cu(
      cudaStreamIsCapturing(runtime_stream(hStream, true), reinterpret_cast<cudaStreamCaptureStatus*>(captureStatus)));
}

// Host functions run on the client in stream order, as the runtime's do (client/runtime/callbacks.cpp).
extern "C" CUresult cuLaunchHostFunc(CUstream hStream, CUhostFn fn, void* userData) {
  return to_cu(cudaLaunchHostFunc(hStream, fn, userData));
}
extern "C" CUresult cuLaunchHostFunc_ptsz(CUstream hStream, CUhostFn fn, void* userData) {
  return to_cu(cudaLaunchHostFunc(runtime_stream(hStream, true), fn, userData));
}

// A CUstreamCallback has the runtime callback's ABI (the stream, a status, the user's pointer); the
// status it gets is the runtime's number, which is the driver's for success and the shared errors.
extern "C" CUresult cuStreamAddCallback(CUstream hStream, CUstreamCallback callback, void* userData,
                                        unsigned int flags) {
  return to_cu(cudaStreamAddCallback(hStream, reinterpret_cast<cudaStreamCallback_t>(callback), userData, flags));
}
extern "C" CUresult cuStreamAddCallback_ptsz(CUstream hStream, CUstreamCallback callback, void* userData,
                                             unsigned int flags) {
  return to_cu(cudaStreamAddCallback(runtime_stream(hStream, true), reinterpret_cast<cudaStreamCallback_t>(callback),
                                     userData, flags));
}

extern "C" CUresult cuEventCreate(CUevent* phEvent, unsigned int Flags) {
  return to_cu(cudaEventCreateWithFlags(phEvent, Flags));
}
extern "C" CUresult cuEventRecord(CUevent hEvent, CUstream hStream) { return to_cu(cudaEventRecord(hEvent, hStream)); }
extern "C" CUresult cuEventRecord_ptsz(CUevent hEvent, CUstream hStream) {
  return to_cu(cudaEventRecord(hEvent, runtime_stream(hStream, true)));
}
extern "C" CUresult cuEventSynchronize(CUevent hEvent) { return to_cu(cudaEventSynchronize(hEvent)); }
extern "C" CUresult cuEventQuery(CUevent hEvent) { return to_cu(cudaEventQuery(hEvent)); }
extern "C" CUresult cuEventDestroy_v2(CUevent hEvent) { return to_cu(cudaEventDestroy(hEvent)); }
extern "C" CUresult cuEventElapsedTime_v2(float* pMilliseconds, CUevent hStart, CUevent hEnd) {
  return to_cu(cudaEventElapsedTime(pMilliseconds, hStart, hEnd));
}
