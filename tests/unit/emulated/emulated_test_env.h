// Shared setup of the emulated backend tests: a small two-device configuration (set before the
// runtime state is first created) and a fixture that starts each test from reset devices.
#pragma once

#include <cstdlib>

#include "server/backends/emulated/runtime.h"

namespace rgpu::server::emulated::test {

inline constexpr size_t kDeviceMemory = 64u << 20;  // RGPU_EMULATED_MEMORY_MB below

inline bool configure_environment() {
  setenv("RGPU_EMULATED_DEVICES", "2", 1);
  setenv("RGPU_EMULATED_MEMORY_MB", "64", 1);
  return true;
}

struct FreshDevices {
  FreshDevices() {
    static bool configured = configure_environment();
    (void)configured;
    for (int d : {1, 0}) {
      emulated::cudaSetDevice(d);
      emulated::cudaDeviceReset();
    }
  }
};

}  // namespace rgpu::server::emulated::test
