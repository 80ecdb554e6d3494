// GPU suite: memset and memcpy in every direction, explicit and with cudaMemcpyDefault, and
// cudaPointerGetAttributes on device, pinned, pageable and interior pointers.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "suite_check.h"

static const char* memory_type_name(cudaMemoryType type) {
  switch (type) {
    case cudaMemoryTypeUnregistered: return "unregistered";
    case cudaMemoryTypeHost: return "host";
    case cudaMemoryTypeDevice: return "device";
    case cudaMemoryTypeManaged: return "managed";
  }
  return "unknown";
}

static bool all_bytes(const std::vector<uint8_t>& bytes, uint8_t value) {
  for (uint8_t b : bytes)
    if (b != value) return false;
  return true;
}

int main() {
  const size_t n = 1 << 20;
  std::vector<uint8_t> source(n), sink(n);
  for (size_t i = 0; i < n; ++i) source[i] = static_cast<uint8_t>(i * 31 + 7);

  uint8_t *dev_a, *dev_b, *pinned;
  CHECK_CUDA(cudaMalloc(&dev_a, n));
  CHECK_CUDA(cudaMalloc(&dev_b, n));
  CHECK_CUDA(cudaMallocHost(&pinned, n));

  // Memsets, synchronous and on a stream.
  CHECK_CUDA(cudaMemset(dev_a, 0xab, n));
  CHECK_CUDA(cudaMemcpy(sink.data(), dev_a, n, cudaMemcpyDeviceToHost));
  expect(all_bytes(sink, 0xab), "cudaMemset");
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  CHECK_CUDA(cudaMemsetAsync(dev_a + n / 2, 0x5c, n / 2, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_CUDA(cudaMemcpy(sink.data(), dev_a + n / 2, n / 2, cudaMemcpyDeviceToHost));
  expect(sink[0] == 0x5c && sink[n / 2 - 1] == 0x5c, "cudaMemsetAsync on the upper half");

  // Explicit kinds: H2D, D2D, D2H, H2H.
  CHECK_CUDA(cudaMemcpy(dev_a, source.data(), n, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dev_b, dev_a, n, cudaMemcpyDeviceToDevice));
  CHECK_CUDA(cudaMemcpy(pinned, dev_b, n, cudaMemcpyDeviceToHost));
  expect(memcmp(pinned, source.data(), n) == 0, "H2D, D2D, D2H round trip");
  memset(sink.data(), 0, n);
  CHECK_CUDA(cudaMemcpy(sink.data(), pinned, n, cudaMemcpyHostToHost));
  expect(sink == source, "host to host");

  // cudaMemcpyDefault infers every direction from the pointers.
  CHECK_CUDA(cudaMemset(dev_a, 0, n));
  CHECK_CUDA(cudaMemset(dev_b, 0, n));
  CHECK_CUDA(cudaMemcpy(dev_a, source.data(), n, cudaMemcpyDefault));
  CHECK_CUDA(cudaMemcpy(dev_b + 100, dev_a + 100, n - 200, cudaMemcpyDefault));
  memset(pinned, 0, n);
  CHECK_CUDA(cudaMemcpy(pinned, dev_b, n, cudaMemcpyDefault));
  bool default_ok = pinned[0] == 0 && pinned[99] == 0 && pinned[n - 1] == 0 &&
                    memcmp(pinned + 100, source.data() + 100, n - 200) == 0;
  expect(default_ok, "cudaMemcpyDefault in all directions");
  CHECK_CUDA(cudaMemcpyAsync(sink.data(), dev_a, n, cudaMemcpyDefault, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  expect(sink == source, "cudaMemcpyAsync with cudaMemcpyDefault");

  // Pointer attributes: device base and interior pointers, pinned host memory, plain malloc memory.
  cudaPointerAttributes attributes{};
  CHECK_CUDA(cudaPointerGetAttributes(&attributes, dev_a));
  say("device pointer: type %s, device %d\n", memory_type_name(attributes.type), attributes.device);
  expect(attributes.type == cudaMemoryTypeDevice && attributes.devicePointer == dev_a, "device attributes");
  CHECK_CUDA(cudaPointerGetAttributes(&attributes, dev_a + 12345));
  say("interior pointer: type %s\n", memory_type_name(attributes.type));
  expect(attributes.type == cudaMemoryTypeDevice && attributes.devicePointer == dev_a + 12345,
         "interior pointer attributes");
  CHECK_CUDA(cudaPointerGetAttributes(&attributes, pinned));
  say("pinned pointer: type %s\n", memory_type_name(attributes.type));
  expect(attributes.type == cudaMemoryTypeHost && attributes.hostPointer == pinned, "pinned attributes");
  void* pageable = malloc(4096);
  CHECK_CUDA(cudaPointerGetAttributes(&attributes, pageable));
  say("pageable pointer: type %s\n", memory_type_name(attributes.type));
  expect(attributes.type == cudaMemoryTypeUnregistered, "pageable attributes");
  free(pageable);

  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDA(cudaFreeHost(pinned));
  CHECK_CUDA(cudaFree(dev_a));
  CHECK_CUDA(cudaFree(dev_b));
  return finish("memcpy_kinds");
}
