// NVIDIA MPS under rgpud (policy `mps: true`, docs/pool.md). Without MPS, the CUDA contexts of
// different processes take turns on a GPU at its time slice, so a high-priority session that
// preempts a lower one waits behind whatever the lower one already has on the GPU (up to a whole
// kernel; on the H200, 1 ms kernels gave high-priority requests 3-4 x their solo latency). Under
// MPS the workers' contexts are clients of one MPS server per GPU and their kernels run side by
// side, so the pool grants the higher priority at once (ComputeArbiter's overlapping preemption).
// The price, which is why it is the operator's choice: a fatal GPU fault in one session ends every
// session on that GPU.
//
// rgpud starts a control daemon of its own, with pipe and log directories in a fresh private
// directory, so it neither joins nor disturbs an MPS the host may run for others; the workers
// inherit the directory through the environment. Sessions of a tenant below normal priority ask
// MPS to schedule their work below the others' (CUDA_MPS_CLIENT_PRIORITY).
#pragma once

#include <memory>
#include <string>

#include "common/status.h"

namespace rgpu::server {

class MpsDaemon {
 public:
  // Starts the control daemon (`nvidia-cuda-mps-control -d`) and points this process's CUDA
  // environment at it (CUDA_MPS_PIPE_DIRECTORY, CUDA_MPS_LOG_DIRECTORY), before any worker forks.
  static Result<std::unique_ptr<MpsDaemon>> start();
  // Quits the control daemon (and with it the MPS servers) and removes its directory.
  ~MpsDaemon();
  MpsDaemon(const MpsDaemon&) = delete;
  MpsDaemon& operator=(const MpsDaemon&) = delete;

  const std::string& directory() const { return dir_; }

 private:
  explicit MpsDaemon(std::string dir) : dir_(std::move(dir)) {}
  std::string dir_;
};

// In a worker, before its CUDA context exists: the MPS client priority of a session whose tenant
// has `priority` (below normal: BELOW_NORMAL, else NORMAL).
void set_mps_client_priority(int priority);

}  // namespace rgpu::server
