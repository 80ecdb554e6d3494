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
