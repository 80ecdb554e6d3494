// The wire form of a kernel launch (all launch entry points share it), written by the client's
// launch.cpp and read by the server's launch.cpp. The packed argument buffer follows as
// length-prefixed bytes, then the launch attributes as a count and that many LaunchAttribute.
// The cluster-occupancy queries send a LaunchArgs and the attributes, no arguments.
#pragma once

#include <cstdint>

namespace rgpu::wire {

struct LaunchArgs {
  uint64_t function;   // the server id the module load gave the kernel
  uint32_t grid[3];
  uint32_t block[3];
  uint32_t shared_mem;
  uint32_t cooperative;
  uint64_t stream;     // client stream id
};

// One cudaLaunchAttribute: its id and its value union's 64 bytes, as the runtime lays them out. The
// two values that hold an event (programmatic event, launch completion event) hold the client's
// event id, which the server resolves.
struct LaunchAttribute {
  uint32_t id;
  uint32_t pad;
  uint8_t value[64];
};

// cudaFuncGetAttributes / SetAttribute / occupancy: the kernel's server id and the call's values.
struct FunctionQuery {
  uint64_t function;
  int32_t a;           // attribute, or block size
  int32_t b;           // value
  uint64_t c;          // dynamic shared memory
  uint32_t flags;
  uint32_t pad;
};

}  // namespace rgpu::wire
