// Batched copies (cudaMemcpyBatchAsync, cudaMemcpy3DBatchAsync): each copy of the batch is issued
// in turn on the stream, as cudaMemcpyAsync / cudaMemcpy3DAsync of the same operands. CUDA lets a
// batch's copies run in any order and read their sources in stream order, during the call, or
// whenever: issuing them one after the other in stream order meets each of these (host sources
// are taken when the call is made), and the location hints and the overlap flag are hints. A copy
// that fails stops the batch with its status; the copies before it stay issued.
#include <cuda_runtime_api.h>

#include "client/runtime/arrays.h"
#include "client/runtime/cudart_errors.h"
#include "client/runtime/memcpy.h"
#include "common/wire/array_geometry.h"
#include "common/wire/pitched.h"
#include "gen/cudart/cudart_decls.h"

namespace rgpu::client {
namespace {

bool valid_order(cudaMemcpySrcAccessOrder o) {
  return o == cudaMemcpySrcAccessOrderStream || o == cudaMemcpySrcAccessOrderDuringApiCall ||
         o == cudaMemcpySrcAccessOrderAny;
}

// Batches may not go to the legacy default stream (the per-thread variants' null stream is the
// thread's own).
bool legacy_stream(cudaStream_t s, bool per_thread) { return s == cudaStreamLegacy || (!s && !per_thread); }

cudaError_t batch(void* const* dsts, const void* const* srcs, const size_t* sizes, size_t count,
                  const cudaMemcpyAttributes* attrs, const size_t* idxs, size_t num_attrs, cudaStream_t stream,
                  bool per_thread) {
  if (!dsts || !srcs || !sizes || !attrs || !idxs || count == 0 || num_attrs == 0 || num_attrs > count ||
      idxs[0] != 0 || legacy_stream(stream, per_thread))
    return cudart_finish(cudaErrorInvalidValue);
  for (size_t k = 0; k < num_attrs; ++k)
    if (!valid_order(attrs[k].srcAccessOrder) || idxs[k] >= count || (k && idxs[k] <= idxs[k - 1]))
      return cudart_finish(cudaErrorInvalidValue);
  for (size_t i = 0; i < count; ++i) {
    cudaError_t st = copy_linear(dsts[i], srcs[i], sizes[i], cudaMemcpyDefault, true, stream, per_thread);
    if (st != cudaSuccess) return st;
  }
  return cudaSuccess;
}

// One operand as cudaMemcpy3D's parameters: an array at its offset, or pointed memory whose rows
// hold rowLength elements (0: the copy's width) and layers layerHeight rows (0: its height).
bool operand(const cudaMemcpy3DOperand& o, const cudaExtent& e, size_t elem, cudaArray_t* array, cudaPos* pos,
             cudaPitchedPtr* ptr) {
  if (o.type == cudaMemcpyOperandTypeArray) {
    *array = o.op.array.array;
    *pos = cudaPos{o.op.array.offset.x, o.op.array.offset.y, o.op.array.offset.z};
    return *array != nullptr;
  }
  if (o.type != cudaMemcpyOperandTypePointer) return false;
  size_t row = o.op.ptr.rowLength ? o.op.ptr.rowLength : e.width;
  size_t layer = o.op.ptr.layerHeight ? o.op.ptr.layerHeight : e.height;
  if (row < e.width || layer < e.height) return false;
  *ptr = pitched(o.op.ptr.ptr, row * elem, e.width * elem, layer);
  return true;
}

// The element size of a copy: the array's when one takes part (both arrays must agree), else 1.
size_t element_size(const cudaMemcpy3DBatchOp& op) {
  size_t elem = 1;
  for (const cudaMemcpy3DOperand* o : {&op.src, &op.dst}) {
    if (o->type != cudaMemcpyOperandTypeArray) continue;
    auto r = find_array(o->op.array.array);
    size_t e = r ? channel_bytes(r->desc) : 0;
    if (!e || (elem != 1 && e != elem)) return 0;
    elem = e;
  }
  return elem;
}

cudaError_t batch_3d(size_t num_ops, const cudaMemcpy3DBatchOp* ops, unsigned long long flags, cudaStream_t stream,
                     bool per_thread) {
  if (!ops || num_ops == 0 || flags != 0 || legacy_stream(stream, per_thread))
    return cudart_finish(cudaErrorInvalidValue);
  for (size_t i = 0; i < num_ops; ++i) {
    const cudaMemcpy3DBatchOp& op = ops[i];
    const size_t elem = element_size(op);
    cudaMemcpy3DParms p{};
    p.extent = op.extent;
    p.kind = cudaMemcpyDefault;
    if (!elem || !valid_order(op.srcAccessOrder) || !op.extent.width || !op.extent.height || !op.extent.depth ||
        !operand(op.src, op.extent, elem, &p.srcArray, &p.srcPos, &p.srcPtr) ||
        !operand(op.dst, op.extent, elem, &p.dstArray, &p.dstPos, &p.dstPtr))
      return cudart_finish(cudaErrorInvalidValue);
    cudaError_t st = copy_3d_parms(p, true, stream, per_thread);
    if (st != cudaSuccess) return st;
  }
  return cudaSuccess;
}

}  // namespace
}  // namespace rgpu::client

extern "C" cudaError_t cudaMemcpyBatchAsync(void* const* dsts, const void* const* srcs, const size_t* sizes,
                                            size_t count, cudaMemcpyAttributes* attrs, size_t* attrsIdxs,
                                            size_t numAttrs, cudaStream_t stream) {
  return rgpu::client::batch(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, stream, false);
}
extern "C" cudaError_t cudaMemcpyBatchAsync_ptsz(void* const* dsts, const void* const* srcs, const size_t* sizes,
                                                 size_t count, cudaMemcpyAttributes* attrs, size_t* attrsIdxs,
                                                 size_t numAttrs, cudaStream_t stream) {
  return rgpu::client::batch(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, stream, true);
}
extern "C" cudaError_t cudaMemcpy3DBatchAsync(size_t numOps, cudaMemcpy3DBatchOp* opList, unsigned long long flags,
                                              cudaStream_t stream) {
  return rgpu::client::batch_3d(numOps, opList, flags, stream, false);
}
extern "C" cudaError_t cudaMemcpy3DBatchAsync_ptsz(size_t numOps, cudaMemcpy3DBatchOp* opList,
                                                   unsigned long long flags, cudaStream_t stream) {
  return rgpu::client::batch_3d(numOps, opList, flags, stream, true);
}
