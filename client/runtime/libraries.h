// Modules the program loads from an image itself: the runtime's cudaLibrary* functions and the
// driver API's cuModule*/cuLibrary* (client/driver maps its handles and statuses onto these). A
// library (cudaLibrary_t, CUlibrary, CUmodule) is a ModuleRecord, a kernel (cudaKernel_t, CUkernel,
// CUfunction) a KernelRecord (modules.h): the load is one ModuleLoad round trip that returns every
// kernel's parameter layout, so looking kernels up is local. Variables cannot be listed before the
// load (the image does not say which symbols the driver will answer for), so a global is asked of
// the server once per name (kCallModuleGlobal) and then cached. Unloads are posted.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <span>

#include "client/runtime/modules.h"

namespace rgpu::client::libraries {

// Loads a fatbin container or wrapper, a cubin or NUL-terminated PTX given by pointer (the bytes are
// copied: the caller may free them after the call).
cudaError_t load(const void* image, ModuleRecord** out);
// Loads the file at `path`, read here: the path is the client host's.
cudaError_t load_file(const char* path, ModuleRecord** out);
// Its kernels' handles are refused from now on; the server unloads it in call order, after the
// work already sent. cudaErrorInvalidResourceHandle for a handle that is no loaded library.
cudaError_t unload(ModuleRecord* library);

// The JIT and library options of a load, checked before it: those that change nothing a program
// can see are answered here (see libraries.cpp), the others refused loudly (cudaErrorNotSupported).
// `from_file`: the load reads a file (then cudaLibraryBinaryIsPreserved is cudaErrorInvalidValue).
cudaError_t accept_load_options(const cudaJitOption* jit_options, void** jit_values, unsigned jit_count,
                                const cudaLibraryOption* library_options, void** library_values,
                                unsigned library_count, bool from_file);

// Whether `library` is loaded (and not unloaded).
bool is_loaded(ModuleRecord* library);
// The kernel `name` (its device, mangled name); cudaErrorSymbolNotFound when there is none.
cudaError_t kernel(ModuleRecord* library, const char* name, KernelRecord** out);
// Its kernels, in the image's order (the first out.size() of them).
cudaError_t kernel_count(ModuleRecord* library, unsigned* count);
cudaError_t kernels(ModuleRecord* library, std::span<KernelRecord*> out);
// The library `kernel` belongs to; cudaErrorInvalidResourceHandle when it is no loaded library's.
cudaError_t library_of(const void* kernel, ModuleRecord** out);
// A module-scope variable's device address and size; either output may be null.
cudaError_t global(ModuleRecord* library, const char* name, uint64_t* address, size_t* bytes);

}  // namespace rgpu::client::libraries
