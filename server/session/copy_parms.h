// cudaMemcpy3D's parameters from their wire form (common/wire/copy_args.h), shared by the copy
// handlers (memcpy.cpp) and copy nodes built by hand (graph.cpp).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "common/wire/copy_args.h"
#include "server/session/call_context.h"

namespace rgpu::server::handlers {

// Fills `p` from `a`: arrays resolved by id at their positions, other sides pitched pointers at
// the wire's addresses, the extent in array elements when an array takes part. False, with
// `status` set, for an unknown array.
bool copy_parms(CallContext& ctx, const wire::Copy3D& a, cudaMemcpy3DParms* p, int32_t& status);

}  // namespace rgpu::server::handlers
