// Several devices behind one session: each host thread's current device reaches the server with
// its calls (one ordered pipe, the device switched as needed). Needs a server with two devices.
#include <cuda_runtime.h>

#include <cstdio>
#include <thread>

int main() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count < 2) {
    std::printf("two_devices: needs 2 devices, found %d\n", count);
    return 1;
  }
  size_t free_before[2] = {}, total = 0;
  for (int d = 0; d < 2; ++d) {
    cudaSetDevice(d);
    cudaMemGetInfo(&free_before[d], &total);
  }
  void* p[2] = {};
  std::thread t0([&] { cudaSetDevice(0); cudaMalloc(&p[0], 8 << 20); });
  std::thread t1([&] { cudaSetDevice(1); cudaMalloc(&p[1], 32 << 20); });
  t0.join();
  t1.join();
  int failures = 0;
  for (int d = 0; d < 2; ++d) {
    cudaPointerAttributes a{};
    cudaPointerGetAttributes(&a, p[d]);
    size_t free_now = 0;
    cudaSetDevice(d);
    cudaMemGetInfo(&free_now, &total);
    size_t used = (free_before[d] - free_now) >> 20;
    bool ok = a.device == d && used == (d == 0 ? 8u : 32u);
    std::printf("device %d: pointer on device %d, %zu MiB used: %s\n", d, a.device, used, ok ? "ok" : "FAIL");
    failures += !ok;
  }
  // cudaSetValidDevices: a thread that set no device uses the list's first; one that set a device
  // keeps it; a device that does not exist is refused.
  int valid[] = {1, 0};
  int in_new_thread = -1, here = -1;
  cudaSetDevice(0);
  bool refused = cudaSetValidDevices(valid, 2) == cudaSuccess;
  int bad[] = {5};
  refused = refused && cudaSetValidDevices(bad, 1) == cudaErrorInvalidDevice;
  cudaGetLastError();
  std::thread t2([&] { cudaGetDevice(&in_new_thread); });
  t2.join();
  cudaGetDevice(&here);
  bool valid_ok = refused && in_new_thread == 1 && here == 0;
  std::printf("cudaSetValidDevices: a new thread's device %d, this thread's %d: %s\n", in_new_thread, here,
              valid_ok ? "ok" : "FAIL");
  failures += !valid_ok;
  cudaSetValidDevices(nullptr, 0);
  std::printf("two_devices: %s\n", failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
}
