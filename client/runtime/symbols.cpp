// Device symbols (__device__ and __constant__ variables): the module load reported each
// variable's device address, so a symbol copy is an ordinary copy to or from that address.
#include <cuda_runtime_api.h>

#include "client/runtime/cudart_errors.h"
#include "client/runtime/memcpy.h"
#include "client/runtime/modules.h"

namespace {

using rgpu::client::cudart_finish;

cudaError_t symbol(const void* host_var, rgpu::client::VarRecord** out) {
  auto* v = rgpu::client::ModuleRegistry::get().var(host_var);
  if (!v) return cudaErrorInvalidSymbol;
  cudaError_t st = rgpu::client::ModuleRegistry::get().ensure_loaded(v->module);
  if (st != cudaSuccess) return st;
  *out = v;
  return cudaSuccess;
}

cudaError_t to_symbol(const void* sym, const void* src, size_t count, size_t offset, cudaMemcpyKind kind, bool async,
                      cudaStream_t stream, bool per_thread) {
  uintptr_t address = 0;
  cudaError_t st = rgpu::client::symbol_copy(sym, count, offset, true, &kind, &address);
  if (st != cudaSuccess) return cudart_finish(st);
  return rgpu::client::copy_linear(reinterpret_cast<void*>(address), src, count, kind, async, stream, per_thread);
}

cudaError_t from_symbol(void* dst, const void* sym, size_t count, size_t offset, cudaMemcpyKind kind, bool async,
                        cudaStream_t stream, bool per_thread) {
  uintptr_t address = 0;
  cudaError_t st = rgpu::client::symbol_copy(sym, count, offset, false, &kind, &address);
  if (st != cudaSuccess) return cudart_finish(st);
  return rgpu::client::copy_linear(dst, reinterpret_cast<const void*>(address), count, kind, async, stream, per_thread);
}

}  // namespace

namespace rgpu::client {

cudaError_t symbol_copy(const void* sym, size_t count, size_t offset, bool to, cudaMemcpyKind* kind, uintptr_t* address) {
  VarRecord* v = nullptr;
  cudaError_t st = symbol(sym, &v);
  if (st != cudaSuccess) return st;
  if (offset > v->size || count > v->size - offset) return cudaErrorInvalidValue;
  cudaMemcpyKind host_side = to ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
  if (*kind == cudaMemcpyDefault) *kind = host_side;
  if (*kind != host_side && *kind != cudaMemcpyDeviceToDevice) return cudaErrorInvalidMemcpyDirection;
  *address = v->address + offset;
  return cudaSuccess;
}

}  // namespace rgpu::client

extern "C" cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, size_t count, size_t offset,
                                          cudaMemcpyKind kind) {
  return to_symbol(symbol, src, count, offset, kind, false, nullptr, false);
}
extern "C" cudaError_t cudaMemcpyToSymbol_ptds(const void* symbol, const void* src, size_t count, size_t offset,
                                               cudaMemcpyKind kind) {
  return to_symbol(symbol, src, count, offset, kind, false, nullptr, true);
}
extern "C" cudaError_t cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t count, size_t offset,
                                               cudaMemcpyKind kind, cudaStream_t stream) {
  return to_symbol(symbol, src, count, offset, kind, true, stream, false);
}
extern "C" cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void* symbol, const void* src, size_t count, size_t offset,
                                                    cudaMemcpyKind kind, cudaStream_t stream) {
  return to_symbol(symbol, src, count, offset, kind, true, stream, true);
}
extern "C" cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t count, size_t offset,
                                            cudaMemcpyKind kind) {
  return from_symbol(dst, symbol, count, offset, kind, false, nullptr, false);
}
extern "C" cudaError_t cudaMemcpyFromSymbol_ptds(void* dst, const void* symbol, size_t count, size_t offset,
                                                 cudaMemcpyKind kind) {
  return from_symbol(dst, symbol, count, offset, kind, false, nullptr, true);
}
extern "C" cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t count, size_t offset,
                                                 cudaMemcpyKind kind, cudaStream_t stream) {
  return from_symbol(dst, symbol, count, offset, kind, true, stream, false);
}
extern "C" cudaError_t cudaMemcpyFromSymbolAsync_ptsz(void* dst, const void* symbol, size_t count, size_t offset,
                                                      cudaMemcpyKind kind, cudaStream_t stream) {
  return from_symbol(dst, symbol, count, offset, kind, true, stream, true);
}

extern "C" cudaError_t cudaGetSymbolAddress(void** devPtr, const void* sym) {
  if (!devPtr) return cudart_finish(cudaErrorInvalidValue);
  rgpu::client::VarRecord* v = nullptr;
  cudaError_t st = symbol(sym, &v);
  if (st != cudaSuccess) return cudart_finish(st);
  *devPtr = reinterpret_cast<void*>(v->address);
  return cudaSuccess;
}

extern "C" cudaError_t cudaGetSymbolSize(size_t* size, const void* sym) {
  if (!size) return cudart_finish(cudaErrorInvalidValue);
  rgpu::client::VarRecord* v = nullptr;
  cudaError_t st = symbol(sym, &v);
  if (st != cudaSuccess) return cudart_finish(st);
  *size = v->size;
  return cudaSuccess;
}
