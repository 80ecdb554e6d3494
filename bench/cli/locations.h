// Where rgpu bench finds what it runs: the worker beside itself (<prefix>/libexec/rgpu), rgpu's
// shim (<prefix>/lib/rgpu), rgpud and rgpu (<prefix>/bin, for `rgpu bench pool`), and, for native
// runs, a GPU and the real libcudart.so.13.
#pragma once

#include <optional>
#include <string>

namespace rgpu::bench {

// The folder of the running executable.
std::string own_dir();

// <prefix>/lib/rgpu, for an executable in <prefix>/libexec/rgpu.
std::string shim_dir();

// <prefix>/bin (rgpud, rgpu), for an executable in <prefix>/libexec/rgpu.
std::string bin_dir();

// The real libcudart.so.13's folder: RGPU_CUDA_LIB_DIR, else the CUDA toolkit's usual places.
// Empty when none holds it.
std::string native_cudart_dir();

// Whether this host has an NVIDIA driver with a device node (a native run can be tried).
bool has_gpu();

// Whether an executable of this name is in one of PATH's folders.
bool on_path(const std::string& program);

}  // namespace rgpu::bench
