// Memory pools shared between two processes served by one rgpud (client/runtime/mem_pool_sharing.cpp,
// server/session/pool_shares.h), against rgpud --emulate, whose exportable pools live in a memfd.
// The parent creates an exportable pool, fills an allocation from it, exports the pool (a stand-in
// descriptor) and the allocation, and starts a child (fork + exec of itself, the descriptor
// inherited): the child imports both in its own session, reads the parent's bytes, writes its own,
// frees its import and leaves; the parent then reads the child's bytes. A pool made without a
// handle type does not export; a descriptor that is no export, or a stand-in whose secret was
// changed, does not import; the daemon answers and keeps serving.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../../gpu/programs/child_process.h"
#include "tour_checks.h"

namespace {

constexpr int kN = 1 << 16;
constexpr size_t kBytes = kN * sizeof(int);

int count_wrong(const std::vector<int>& v, int (*want)(int)) {
  int wrong = 0;
  for (int i = 0; i < kN; ++i) wrong += v[i] != want(i);
  return wrong;
}

int parents(int i) { return 3 * i + 1; }
int childs(int i) { return -i; }

// argv: "child", the pool's descriptor, the pointer's export data (hex).
int child(const char* fd_text, const char* data_hex) {
  cudaMemPoolPtrExportData data;
  EXPECT(from_hex(data_hex, &data, sizeof data), "the child reads its arguments");
  const int fd = std::atoi(fd_text);
  cudaMemPool_t pool = nullptr;
  CHECK_CUDA(cudaMemPoolImportFromShareableHandle(&pool, reinterpret_cast<void*>(static_cast<intptr_t>(fd)),
                                                  cudaMemHandleTypePosixFileDescriptor, 0));
  close(fd);  // the import keeps what it needs
  int* shared = nullptr;
  CHECK_CUDA(cudaMemPoolImportPointer(reinterpret_cast<void**>(&shared), pool, &data));
  std::vector<int> host(kN);
  CHECK_CUDA(cudaMemcpy(host.data(), shared, kBytes, cudaMemcpyDeviceToHost));
  EXPECT(count_wrong(host, parents) == 0, "the child reads the parent's bytes through the imported pool");
  int probe = 0;  // an interior address is device memory to cudaMemcpyDefault: the import's extent is known
  CHECK_CUDA(cudaMemcpy(&probe, shared + 10, sizeof probe, cudaMemcpyDefault));
  EXPECT(probe == parents(10), "an interior address of the import copies as device memory");
  for (int i = 0; i < kN; ++i) host[i] = childs(i);
  CHECK_CUDA(cudaMemcpy(shared, host.data(), kBytes, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaFree(shared));
  CHECK_CUDA(cudaMemPoolDestroy(pool));
  std::printf("ok: the child's part\n");
  return 0;
}

int parent() {
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = 0;
  cudaMemPool_t plain = nullptr;
  CHECK_CUDA(cudaMemPoolCreate(&plain, &props));
  int fd = -1;
  EXPECT(cudaMemPoolExportToShareableHandle(&fd, plain, cudaMemHandleTypePosixFileDescriptor, 0) ==
             cudaErrorInvalidValue, "a pool made without a handle type does not export");
  cudaGetLastError();
  CHECK_CUDA(cudaMemPoolDestroy(plain));

  props.handleTypes = cudaMemHandleTypePosixFileDescriptor;
  cudaMemPool_t pool = nullptr;
  CHECK_CUDA(cudaMemPoolCreate(&pool, &props));
  cudaStream_t s;
  CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  int* shared = nullptr;
  CHECK_CUDA(cudaMallocFromPoolAsync(reinterpret_cast<void**>(&shared), kBytes, pool, s));
  std::vector<int> host(kN);
  for (int i = 0; i < kN; ++i) host[i] = parents(i);
  CHECK_CUDA(cudaMemcpyAsync(shared, host.data(), kBytes, cudaMemcpyHostToDevice, s));
  CHECK_CUDA(cudaStreamSynchronize(s));

  CHECK_CUDA(cudaMemPoolExportToShareableHandle(&fd, pool, cudaMemHandleTypePosixFileDescriptor, 0));
  EXPECT(fd >= 0 && fcntl(fd, F_GETFD) != -1, "the export is a descriptor of this process");
  cudaMemPoolPtrExportData data;
  CHECK_CUDA(cudaMemPoolExportPointer(&data, shared));

  // Descriptors that are no export: /dev/null, and a copy of the export with one byte changed.
  cudaMemPool_t wrong = nullptr;
  const int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  EXPECT(cudaMemPoolImportFromShareableHandle(&wrong, reinterpret_cast<void*>(static_cast<intptr_t>(null_fd)),
                                              cudaMemHandleTypePosixFileDescriptor, 0) == cudaErrorInvalidValue,
         "a descriptor that is no export does not import");
  cudaGetLastError();
  close(null_fd);
  unsigned char bytes[256];
  const ssize_t n = pread(fd, bytes, sizeof bytes, 0);
  EXPECT(n > 0, "the export's descriptor can be read");
  bytes[n - 1] ^= 1;
  const int forged = memfd_create("forged", MFD_CLOEXEC);
  EXPECT(forged >= 0 && pwrite(forged, bytes, static_cast<size_t>(n), 0) == n, "a forged copy is made");
  EXPECT(cudaMemPoolImportFromShareableHandle(&wrong, reinterpret_cast<void*>(static_cast<intptr_t>(forged)),
                                              cudaMemHandleTypePosixFileDescriptor, 0) == cudaErrorInvalidValue,
         "an export whose secret was changed does not import");
  cudaGetLastError();
  close(forged);

  // The child inherits the descriptor.
  EXPECT(fcntl(fd, F_SETFD, 0) == 0, "the descriptor is made inheritable");
  const std::string fd_text = std::to_string(fd), data_hex = to_hex(&data, sizeof data);
  EXPECT(run_child("child", fd_text, data_hex) == 0, "the child imported the pool and its allocation");
  CHECK_CUDA(cudaMemcpy(host.data(), shared, kBytes, cudaMemcpyDeviceToHost));
  EXPECT(count_wrong(host, childs) == 0, "the parent reads the child's bytes");
  close(fd);
  CHECK_CUDA(cudaFreeAsync(shared, s));
  CHECK_CUDA(cudaStreamSynchronize(s));
  CHECK_CUDA(cudaStreamDestroy(s));
  CHECK_CUDA(cudaMemPoolDestroy(pool));
  std::printf("ok: pool_sharing\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IONBF, 0);  // the child's lines and the parent's in order
  if (argc == 4 && std::strcmp(argv[1], "child") == 0) return child(argv[2], argv[3]);
  return parent();
}
