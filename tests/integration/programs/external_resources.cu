// External memory and semaphores through a same-host session (client/runtime/external_resources.cpp),
// against rgpud --emulate, whose GPU maps an imported memfd and stands an eventfd for a semaphore:
// bytes written on either side of the import are seen on the other, a successful import takes the
// caller's descriptor and a failed one leaves it, a signal reaches the eventfd and a wait takes it.
// With the argument `tcp` (a session over TCP): every import is refused, the descriptor kept.
#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <vector>

#include "tour_checks.h"

namespace {

constexpr size_t kPage = 4096;
constexpr size_t kFileBytes = 4 * kPage;

bool is_open(int fd) { return fcntl(fd, F_GETFD) != -1 || errno != EBADF; }

// A memfd of kFileBytes holding byte i % 251 at i, sealed against shrinking when `sealed`.
int patterned_memfd(bool sealed) {
  int fd = memfd_create("external", MFD_ALLOW_SEALING);
  if (fd < 0 || ftruncate(fd, kFileBytes) != 0) return -1;
  std::vector<unsigned char> bytes(kFileBytes);
  for (size_t i = 0; i < kFileBytes; ++i) bytes[i] = static_cast<unsigned char>(i % 251);
  if (pwrite(fd, bytes.data(), kFileBytes, 0) != static_cast<ssize_t>(kFileBytes)) return -1;
  if (sealed && fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK) != 0) return -1;
  return fd;
}

cudaExternalMemoryHandleDesc memory_desc(int fd) {
  cudaExternalMemoryHandleDesc d{};
  d.type = cudaExternalMemoryHandleTypeOpaqueFd;
  d.handle.fd = fd;
  d.size = kFileBytes;
  return d;
}

int over_tcp() {
  int fd = patterned_memfd(true);
  cudaExternalMemory_t memory = nullptr;
  auto desc = memory_desc(fd);
  EXPECT(cudaImportExternalMemory(&memory, &desc) == cudaErrorNotSupported && is_open(fd),
         "over TCP an external memory import is refused and the descriptor stays the caller's");
  cudaGetLastError();
  int event = eventfd(0, 0);
  cudaExternalSemaphoreHandleDesc sd{};
  sd.type = cudaExternalSemaphoreHandleTypeOpaqueFd;
  sd.handle.fd = event;
  cudaExternalSemaphore_t semaphore = nullptr;
  EXPECT(cudaImportExternalSemaphore(&semaphore, &sd) == cudaErrorNotSupported && is_open(event),
         "over TCP a semaphore import is refused too");
  std::printf("ok: external_resources (tcp)\n");
  return 0;
}

int memory() {
  // A file that could still shrink is refused, and stays the caller's.
  int loose = patterned_memfd(false);
  cudaExternalMemory_t memory = nullptr;
  auto desc = memory_desc(loose);
  EXPECT(cudaImportExternalMemory(&memory, &desc) == cudaErrorInvalidValue && is_open(loose),
         "an unsealed memfd is refused and its descriptor left to the caller");
  cudaGetLastError();
  close(loose);
  desc.type = cudaExternalMemoryHandleTypeOpaqueWin32;
  EXPECT(cudaImportExternalMemory(&memory, &desc) == cudaErrorNotSupported, "a Windows handle type is refused");
  cudaGetLastError();

  int fd = patterned_memfd(true);
  int view_fd = dup(fd);  // the test's own view of the bytes, once the import has taken fd
  auto* view = static_cast<unsigned char*>(mmap(nullptr, kFileBytes, PROT_READ | PROT_WRITE, MAP_SHARED, view_fd, 0));
  EXPECT(view != MAP_FAILED, "the test maps the memfd");
  desc = memory_desc(fd);
  CHECK_CUDA(cudaImportExternalMemory(&memory, &desc));
  EXPECT(!is_open(fd), "a successful import takes the descriptor (closed on the client)");

  cudaExternalMemoryBufferDesc buffer{};
  buffer.offset = kPage;
  buffer.size = 2 * kPage;
  void* dev = nullptr;
  CHECK_CUDA(cudaExternalMemoryGetMappedBuffer(&dev, memory, &buffer));
  std::vector<unsigned char> got(2 * kPage);
  CHECK_CUDA(cudaMemcpy(got.data(), dev, got.size(), cudaMemcpyDeviceToHost));
  size_t right = 0;
  for (size_t i = 0; i < got.size(); ++i) right += got[i] == (kPage + i) % 251;
  EXPECT(right == got.size(), "the mapped buffer holds the file's bytes from its offset");
  cudaPointerAttributes attributes{};
  CHECK_CUDA(cudaPointerGetAttributes(&attributes, dev));
  EXPECT(attributes.type == cudaMemoryTypeDevice, "the mapped buffer is device memory to the client's map");

  CHECK_CUDA(cudaMemset(dev, 0xAB, 16));
  CHECK_CUDA(cudaDeviceSynchronize());
  EXPECT(view[kPage] == 0xAB && view[kPage + 15] == 0xAB && view[kPage + 16] == (kPage + 16) % 251,
         "a device write to the buffer shows in the file");
  view[kPage + 100] = 7;
  unsigned char one = 0;
  CHECK_CUDA(cudaMemcpy(&one, static_cast<unsigned char*>(dev) + 100, 1, cudaMemcpyDeviceToHost));
  EXPECT(one == 7, "a write to the file shows in the buffer");

  buffer.offset = 3 * kPage;
  buffer.size = 2 * kPage;
  void* past = nullptr;
  EXPECT(cudaExternalMemoryGetMappedBuffer(&past, memory, &buffer) == cudaErrorInvalidValue,
         "a buffer past the imported size is refused");
  cudaGetLastError();
  CHECK_CUDA(cudaFree(dev));
  CHECK_CUDA(cudaDestroyExternalMemory(memory));
  CHECK_CUDA(cudaDeviceSynchronize());
  munmap(view, kFileBytes);
  close(view_fd);
  return 0;
}

int semaphores() {
  int event = eventfd(0, EFD_NONBLOCK);
  cudaExternalSemaphoreHandleDesc sd{};
  sd.type = cudaExternalSemaphoreHandleTypeOpaqueFd;
  sd.handle.fd = dup(event);
  cudaExternalSemaphore_t semaphore = nullptr;
  CHECK_CUDA(cudaImportExternalSemaphore(&semaphore, &sd));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));

  cudaExternalSemaphoreSignalParams signal{};
  CHECK_CUDA(cudaSignalExternalSemaphoresAsync(&semaphore, &signal, 1, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  uint64_t count = 0;
  EXPECT(read(event, &count, sizeof count) == sizeof count && count == 1, "a signal in stream order reaches the eventfd");

  count = 1;
  EXPECT(write(event, &count, sizeof count) == sizeof count, "the test signals the eventfd");
  cudaExternalSemaphoreWaitParams wait{};
  CHECK_CUDA(cudaWaitExternalSemaphoresAsync(&semaphore, &wait, 1, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  EXPECT(read(event, &count, sizeof count) == -1 && errno == EAGAIN, "a wait in stream order takes the signal");

  CHECK_CUDA(cudaDestroyExternalSemaphore(semaphore));
  CHECK_CUDA(cudaSignalExternalSemaphoresAsync(&semaphore, &signal, 1, stream));
  (void)cudaStreamSynchronize(stream);
  EXPECT(cudaGetLastError() == cudaErrorInvalidResourceHandle,
         "a signal of a destroyed semaphore fails (its error joins the last error, as asynchronous errors do)");
  sd.type = cudaExternalSemaphoreHandleTypeD3D12Fence;
  EXPECT(cudaImportExternalSemaphore(&semaphore, &sd) == cudaErrorNotSupported, "a D3D12 fence is refused");
  cudaGetLastError();
  CHECK_CUDA(cudaStreamDestroy(stream));
  close(event);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "tcp") == 0) return over_tcp();
  if (int failed = memory()) return failed;
  if (int failed = semaphores()) return failed;
  std::printf("ok: external_resources\n");
  return 0;
}
