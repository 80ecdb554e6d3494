// The driver's error log for the session (Backend::collect_error_log): the driver calls back with
// each entry it writes in this worker, already in its own format, from the thread that failed.
// rgpu's own calls into the driver are the worker's too, so their failures (a device attribute
// the GPU lacks, asked while taking a device snapshot) are entries as well, which a native program
// would not see; they come at a session's first device query, before a program usually takes an
// iterator. Not yet run on a GPU.
#include "common/log.h"
#include "server/backends/cuda/cuda_backend.h"

namespace rgpu::server::cuda {

void CudaBackend::collect_error_log(ErrorLogSink sink) {
  error_log_ = std::move(sink);
  CUlogsCallbackHandle handle = nullptr;  // kept for the worker's life: it exits with the session
  CUresult r = driver_.cuLogsRegisterCallback(&CudaBackend::on_driver_log, this, &handle);
  if (r != CUDA_SUCCESS)
    RGPU_LOG_WARN("the driver's error log will not reach the client: %s", describe_cu_result(driver_, r).c_str());
}

void CudaBackend::on_driver_log(void* self, CUlogLevel level, char* message, size_t length) {
  (void)level;  // the entry's text names its severity ("[E]", "[W]")
  auto* backend = static_cast<CudaBackend*>(self);
  if (backend->error_log_ && message) backend->error_log_(std::string_view(message, length));
}

}  // namespace rgpu::server::cuda
