// The driver's error log for the session (Backend::collect_error_log): the driver calls back with
// each entry it writes in this worker, from the thread that failed, as its message alone; the
// entry gets the head the driver's own dump gives it (time, thread, "[CUDA][E]"), so a remote dump
// reads as a native one (checked on an H100, driver 580, 2026-12-06).
// rgpu's own calls into the driver are the worker's too, so their failures (a device attribute
// the GPU lacks, asked while taking a device snapshot) are entries as well, which a native program
// would not see; they come at a session's first device query, before a program usually takes an
// iterator.
#include "common/driver_log_line.h"
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
  auto* backend = static_cast<CudaBackend*>(self);
  if (!backend->error_log_ || !message) return;
  std::string_view text(message, length);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\0')) text.remove_suffix(1);
  backend->error_log_(driver_log_line("CUDA", level == CU_LOG_LEVEL_WARNING ? 'W' : 'E', "", text));
}

}  // namespace rgpu::server::cuda
