// CudaBackend's stream marks (stream_marks.h) and writes after a stream's work (Backend::write_after):
// a stream-ordered write of a word of mapped host memory (cuStreamWriteValue32), which by default
// follows a memory barrier, so once the word reads the value the stream's earlier kernels and copies
// are complete and their results visible.
#include <cstring>

#include "common/log.h"
#include "server/backends/cuda/cuda_backend.h"

namespace rgpu::server::cuda {

uint32_t CudaBackend::mark_stream(void* stream) {
  if (!marks_) {
    if (marks_tried_ || !ready_ || !make_context_current()) return 0;
    marks_tried_ = true;
    // Portable and mapped: every context of the process can write it, at its host address (UVA).
    void* words = nullptr;
    if (driver_.cuMemHostAlloc(&words, MarkRing::kBytes, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP) !=
        CUDA_SUCCESS) {
      RGPU_LOG_WARN("cuda backend: no mapped memory for stream marks; waits poll the stream instead");
      return 0;
    }
    std::memset(words, 0, MarkRing::kBytes);
    marks_ = std::make_unique<MarkRing>(static_cast<uint32_t*>(words));  // kept until the process ends
  }
  const MarkRing::Mark mark = marks_->next();
  return write_after(stream, mark.word, reinterpret_cast<uintptr_t>(mark.word), mark.number) ? mark.number : 0;
}

bool CudaBackend::write_after(void* stream, uint32_t* host_word, uint64_t device_word, uint32_t value) {
  (void)host_word;  // the device writes it at its own address
  if (!ready_) return false;
  // A write into a capturing stream would become a node of the program's graph.
  auto s = static_cast<CUstream>(stream);
  CUstreamCaptureStatus capturing = CU_STREAM_CAPTURE_STATUS_ACTIVE;
  if (driver_.cuStreamIsCapturing(s, &capturing) != CUDA_SUCCESS || capturing != CU_STREAM_CAPTURE_STATUS_NONE)
    return false;
  return driver_.cuStreamWriteValue32_v2(s, static_cast<CUdeviceptr>(device_word), value,
                                         CU_STREAM_WRITE_VALUE_DEFAULT) == CUDA_SUCCESS;
}

bool CudaBackend::mark_passed(uint32_t mark) const { return marks_ && marks_->passed(mark); }

}  // namespace rgpu::server::cuda
