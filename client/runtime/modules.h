// Registered device code on the client: the fatbins, kernels and device variables that nvcc's
// registration calls announce (local bookkeeping only), and their lazy upload: a module goes to the
// server on the first use of one of its kernels or variables, carrying only the fatbin slice for
// the server GPU's architecture, and comes back with each kernel's parameter layout and each
// variable's device address.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace rgpu::client {

struct ModuleRecord;

struct KernelRecord {
  ModuleRecord* module = nullptr;
  std::string name;   // the device (mangled) name
  uint64_t server_id = 0;  // valid once the module is loaded
  struct Param {
    uint32_t offset;
    uint32_t size;
  };
  std::vector<Param> params;
  uint32_t args_size = 0;  // bytes of the packed argument buffer
  // Cached attributes (cudaFuncGetAttributes), fetched on first use.
  std::once_flag attrs_once;
  cudaFuncAttributes attrs{};
  cudaError_t attrs_status = cudaSuccess;
  // Answers of cudaOccupancyMaxActiveBlocksPerMultiprocessor(WithFlags) by (device, block size,
  // dynamic shared memory, flags): they depend on nothing else until an attribute setter changes
  // the kernel, which clears them. PyTorch asks them in every training step.
  std::mutex occupancy_mu;
  std::map<std::tuple<int, int, size_t, unsigned>, int> occupancy;
};

struct VarRecord {
  ModuleRecord* module = nullptr;
  std::string name;
  size_t size = 0;        // as registered
  uint64_t address = 0;   // device address, once loaded
};

struct ModuleRecord {
  const void* wrapper = nullptr;  // what __cudaRegisterFatBinary was given
  // Or a module given as an image (the driver API's cuModuleLoadData: a fatbin container, a cubin
  // or PTX): uploaded as is, a container reduced to the server GPU's slice.
  std::vector<uint8_t> image;
  uint64_t id = 0;
  std::vector<std::unique_ptr<KernelRecord>> kernels;
  std::vector<std::unique_ptr<VarRecord>> vars;
  std::mutex load_mu;
  bool load_tried = false;
  cudaError_t load_status = cudaErrorInitializationError;
  int device = -1;  // the device the load went to (the current one at the first use)
};

class ModuleRegistry {
 public:
  static ModuleRegistry& get();

  ModuleRecord* add_module(const void* wrapper);
  void remove_module(ModuleRecord* m);
  void add_kernel(ModuleRecord* m, const void* host_fun, const char* device_name);
  void add_var(ModuleRecord* m, const void* host_var, const char* device_name, size_t size);
  // A module given as an image with its kernels' names; the kernels are found by their record's
  // address only (a CUfunction is a KernelRecord*).
  ModuleRecord* add_image_module(std::vector<uint8_t> image, const std::vector<std::string>& kernel_names);

  // The kernel for a host stub address, or for a handle handed out by __cudaGetKernel.
  KernelRecord* kernel(const void* host_fun_or_handle);
  VarRecord* var(const void* host_var);

  // Uploads the module if not done yet; returns the load's status.
  cudaError_t ensure_loaded(ModuleRecord* m);
  // The device the module is loaded on, or would be at its next use (the current one) when it is not.
  int load_device(ModuleRecord* m);
  // After cudaDeviceReset the server's modules are gone: every module uploads again on next use.
  void forget_uploads();

 private:
  std::mutex mu_;
  std::vector<std::unique_ptr<ModuleRecord>> modules_;
  std::unordered_map<const void*, KernelRecord*> kernels_;  // by host stub and by record address
  std::unordered_map<const void*, VarRecord*> vars_;
  uint64_t next_id_ = 1;
};

}  // namespace rgpu::client
