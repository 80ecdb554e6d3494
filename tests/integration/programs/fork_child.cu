// A process that used CUDA forks; the child calls CUDA, then exits through exit() (static
// destructors and atexit handlers run). CUDA refuses a child forked after initialisation with
// cudaErrorInitializationError; through rgpu the child must get that answer too, and must neither
// hang nor disturb the parent's session, whose connection (or shared-memory rings) it inherited:
// the parent then copies 8 MiB both ways and checks every byte. Prints "ok: ..." per check and
// "ok: fork_child" last.
#include <cuda_runtime.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "tour_checks.h"

namespace {

// The child's part: each call must fail as CUDA fails in a forked child, a copy from the parent's
// memory too. Its exit status says so.
int child(const unsigned char* parents) {
  void* p = nullptr;
  const cudaError_t malloc_status = cudaMalloc(&p, 1024);  // the size of a block the parent freed
  int host = 0;
  const cudaError_t copy_status = cudaMemcpy(&host, parents, sizeof host, cudaMemcpyDeviceToHost);
  const cudaError_t sync_status = cudaDeviceSynchronize();
  std::printf("child: cudaMalloc %s, cudaMemcpy %s, cudaDeviceSynchronize %s\n", cudaGetErrorName(malloc_status),
              cudaGetErrorName(copy_status), cudaGetErrorName(sync_status));
  const bool refused = malloc_status == cudaErrorInitializationError && copy_status == cudaErrorInitializationError &&
                       sync_status == cudaErrorInitializationError;
  std::fflush(stdout);
  std::exit(refused ? 0 : 1);
}

}  // namespace

int main() {
  const size_t n = 8 << 20;
  unsigned char* d = nullptr;
  CHECK_CUDA(cudaMalloc(&d, n));
  CHECK_CUDA(cudaMemset(d, 7, n));
  void* freed = nullptr;  // rgpu keeps a freed block for the next cudaMalloc of its size
  CHECK_CUDA(cudaMalloc(&freed, 1024));
  CHECK_CUDA(cudaFree(freed));
  CHECK_CUDA(cudaDeviceSynchronize());

  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid == 0) child(d);
  int status = -1;
  EXPECT(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
         "CUDA in a child forked after initialisation fails with cudaErrorInitializationError");

  std::vector<unsigned char> host(n);
  for (size_t i = 0; i < n; ++i) host[i] = static_cast<unsigned char>(i * 31 + 5);
  CHECK_CUDA(cudaMemcpy(d, host.data(), n, cudaMemcpyHostToDevice));
  std::vector<unsigned char> back(n, 0);
  CHECK_CUDA(cudaMemcpy(back.data(), d, n, cudaMemcpyDeviceToHost));
  EXPECT(back == host, "the parent's session goes on after the child's exit: 8 MiB there and back, every byte");
  CHECK_CUDA(cudaFree(d));
  std::printf("ok: fork_child\n");
  return 0;
}
